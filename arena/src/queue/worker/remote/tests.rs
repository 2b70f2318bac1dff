use super::*;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

/// A listener that counts the connections it accepts.
struct Counting(tokio::net::TcpListener, Arc<AtomicUsize>);

impl axum::serve::Listener for Counting {
    type Io = tokio::net::TcpStream;
    type Addr = std::net::SocketAddr;
    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            if let Ok(c) = self.0.accept().await {
                self.1.fetch_add(1, Ordering::Relaxed);
                return c;
            }
        }
    }
    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.0.local_addr()
    }
}

/// Regression: the blocking client looked the server up before every call, on a thread
/// it started for the purpose (70 threads a second on a busy worker). Calls now share a
/// pooled connection: fifty calls, one connection (so one lookup). The answers' caps and
/// the token's header hold on the way.
#[tokio::test]
async fn fifty_calls_share_one_connection() {
    let accepted = Arc::new(AtomicUsize::new(0));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let app = axum::Router::new()
        .route(
            "/api/worker/lease",
            axum::routing::post(|headers: axum::http::HeaderMap, body: Bytes| async move {
                let auth = headers.get(header::AUTHORIZATION).cloned();
                (
                    axum::http::StatusCode::OK,
                    format!("{auth:?} {}", body.len()),
                )
            }),
        )
        .route(
            "/big",
            axum::routing::get(|| async { vec![b'x'; MAX_ANSWER_BYTES + 1] }),
        );
    let server = tokio::spawn(axum::serve(Counting(listener, accepted.clone()), app).into_future());
    let cache = std::env::temp_dir().join(format!("croupier-remote-{}", std::process::id()));
    let remote = Remote::new(&format!("http://{addr}/"), "t0k", &cache).expect("remote");
    for _ in 0..50 {
        let (status, body) = remote
            .post("/api/worker/lease", "{}", JSON)
            .await
            .expect("answered");
        assert_eq!(status, 200);
        assert_eq!(&body[..], b"Some(\"Bearer t0k\") 2");
    }
    assert_eq!(accepted.load(Ordering::Relaxed), 1, "one connection");
    let big = remote
        .call(Method::GET, "/big", None, MAX_ANSWER_BYTES)
        .await;
    assert!(
        big.as_ref()
            .is_err_and(|e| e.contains("/big") && e.contains("length limit")),
        "{big:?}"
    );
    server.abort();
    let _ = std::fs::remove_dir_all(&cache);
}

/// A server URL that is not one, and a token no header can carry, are refused before
/// any call, by name.
#[test]
fn a_bad_url_or_token_is_refused_at_once() {
    let cache = std::env::temp_dir();
    for bad in ["10.0.0.5:8080", "ftp://10.0.0.5", "http://"] {
        let e = Remote::new(bad, "t", &cache).err().map(|e| e.to_string());
        assert!(
            e.as_ref().is_some_and(|e| e.contains("not an http")),
            "{bad}: {e:?}"
        );
    }
    assert!(matches!(
        Remote::new("http://127.0.0.1:1", "a\nb", &cache),
        Err(RemoteError::Token)
    ));
}
