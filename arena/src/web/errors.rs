//! Everything a handler can fail with, turned into a response in one place (axum's
//! examples): JSON `{"error": ...}` for the API, a small page for the pages. A 500's detail
//! is logged, never shown: it may name files or queries. What fails before a handler runs
//! (an extractor's rejection, a method the route does not take, an unknown route, a layer's
//! timeout) answers in the same two forms ([`uniform`], [`no_route`]), so a client of the
//! API never has to read text/plain or an empty body.

use axum::Json;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use maud::{DOCTYPE, html};

/// Everything a handler can fail with, and the status it becomes.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// No token, or a token that is not valid: 401.
    #[error("{0}")]
    Unauthorized(String),
    /// A valid token without the right: 403.
    #[error("{0}")]
    Forbidden(String),
    /// 404.
    #[error("{0}")]
    NotFound(String),
    /// 400.
    #[error("{0}")]
    BadRequest(String),
    /// 409: the name is taken, or the arena is frozen.
    #[error("{0}")]
    Conflict(String),
    /// 410: the storage budget dropped it (a game's replay).
    #[error("{0}")]
    Gone(String),
    /// 408: the client stopped sending.
    #[error("{0}")]
    Timeout(String),
    /// 413, with the cap in bytes.
    #[error("the upload is larger than this arena's cap of {cap} ({bytes} bytes)", cap = mib(*.0), bytes = .0)]
    TooLarge(u64),
    /// 422: a body of the right encoding and the wrong shape.
    #[error("{0}")]
    Unprocessable(String),
    /// 415: a body in an encoding the route does not take.
    #[error("{0}")]
    Unsupported(String),
    /// 429, with Retry-After in seconds.
    #[error("{message}")]
    TooMany {
        /// What limit was hit.
        message: String,
        /// Seconds until a request would be accepted.
        retry_after: u64,
    },
    /// 503, with Retry-After in seconds: a server-wide cap is reached (live streams).
    #[error("{message}")]
    Unavailable {
        /// What is full.
        message: String,
        /// Seconds until trying again is worth it.
        retry_after: u64,
    },
    /// 500: the server's fault; the message is logged, the client gets a short one.
    #[error("{0}")]
    Internal(String),
}

/// Bytes in MiB as a person reads them: `32 MiB`, `0.5 MiB`.
pub fn mib(bytes: u64) -> String {
    let m = bytes as f64 / f64::from(1u32 << 20);
    if (m - m.round()).abs() < 1e-9 {
        format!("{m:.0} MiB")
    } else {
        format!("{m:.1} MiB")
    }
}

/// Whether reading a body failed because the client stopped sending: the server's idle
/// timeout on upload bodies (`uploads.idle_seconds`) ended it.
pub fn stalled(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if c.is::<tower_http::timeout::TimeoutError>() {
            return true;
        }
        cause = c.source();
    }
    false
}

/// The 408 of an upload that stalled.
pub fn stalled_upload(idle_seconds: u32) -> AppError {
    AppError::Timeout(format!(
        "the upload sent nothing for {idle_seconds} s; send it again"
    ))
}

impl From<crate::store::db::DbError> for AppError {
    fn from(e: crate::store::db::DbError) -> AppError {
        AppError::Internal(e.to_string())
    }
}

impl From<crate::queue::JobError> for AppError {
    fn from(e: crate::queue::JobError) -> AppError {
        match e {
            crate::queue::JobError::Bad(m) => AppError::BadRequest(m),
            e => AppError::Internal(e.to_string()),
        }
    }
}

impl AppError {
    /// The status code.
    pub fn status(&self) -> StatusCode {
        match self {
            AppError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            AppError::Forbidden(_) => StatusCode::FORBIDDEN,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AppError::Conflict(_) => StatusCode::CONFLICT,
            AppError::Gone(_) => StatusCode::GONE,
            AppError::Timeout(_) => StatusCode::REQUEST_TIMEOUT,
            AppError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::Unsupported(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            AppError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            AppError::TooMany { .. } => StatusCode::TOO_MANY_REQUESTS,
            AppError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The message a client is shown (internal details stay in the server's log).
    pub fn public_message(&self) -> String {
        match self {
            AppError::Internal(m) => {
                tracing::error!("arena: internal error: {m}");
                "internal error (logged on the server)".into()
            }
            e => e.to_string(),
        }
    }

    fn headers(&self) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let AppError::TooMany { retry_after, .. } | AppError::Unavailable { retry_after, .. } =
            self
            && let Ok(v) = HeaderValue::from_str(&retry_after.to_string())
        {
            h.insert(header::RETRY_AFTER, v);
        }
        if let AppError::Unauthorized(_) = self {
            h.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        h
    }
}

/// JSON errors, for the API: `{"error": "..."}`.
impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let body = Json(serde_json::json!({ "error": self.public_message() }));
        (self.status(), self.headers(), body).into_response()
    }
}

/// An [`AppError`] on a page: the same status, as a page.
#[derive(Debug)]
pub struct PageError(pub AppError);

impl<E: Into<AppError>> From<E> for PageError {
    fn from(e: E) -> PageError {
        PageError(e.into())
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let status = self.0.status();
        let page = error_page(status, &self.0.public_message());
        (status, self.0.headers(), page).into_response()
    }
}

/// Whether a path is the JSON API's, whose errors are JSON (the pages' are pages).
pub fn is_api(path: &str) -> bool {
    path.starts_with("/api/")
}

/// The most of a rejection's text [`uniform`] reads: axum's are one line.
const REJECTION_CAP: usize = 16 << 10;

/// Turns an error response that is not already this server's (axum's extractors answer
/// 400, 413, 415 and 422 in text/plain; a wrong method gets an empty 405, a layer's timeout an
/// empty 408) into `{"error": ...}` under `/api/` and a page elsewhere, with the same status
/// and its `Allow`, `Retry-After` and `WWW-Authenticate` headers.
pub async fn uniform(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let api = is_api(req.uri().path());
    let r = next.run(req).await;
    let status = r.status();
    let ours = r
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/json") || t.starts_with("text/html"));
    if !(status.is_client_error() || status.is_server_error()) || ours {
        return r;
    }
    let (parts, body) = r.into_parts();
    let text = axum::body::to_bytes(body, REJECTION_CAP)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let message = if text.is_empty() {
        match status {
            StatusCode::METHOD_NOT_ALLOWED => "this route does not take that method".to_string(),
            StatusCode::REQUEST_TIMEOUT => "the request took too long".to_string(),
            s => s.canonical_reason().unwrap_or("error").to_lowercase(),
        }
    } else {
        text
    };
    let mut out = if api {
        (status, Json(serde_json::json!({ "error": message }))).into_response()
    } else {
        let mut p = error_page(status, &message);
        *p.status_mut() = status;
        p
    };
    for h in [header::ALLOW, header::RETRY_AFTER, header::WWW_AUTHENTICATE] {
        if let Some(v) = parts.headers.get(&h) {
            out.headers_mut().insert(h, v.clone());
        }
    }
    out
}

/// A JSON body that must be an object. serde's derive also reads a struct from an array
/// (`["x"]` as `{"name": "x"}`, `[]` as a withdrawal with no reason), which the API
/// documents as refused; axum's `Json` then answers this server's own errors.
pub struct Object<T>(pub T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> axum::extract::FromRequest<S> for Object<T> {
    type Rejection = AppError;

    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Object<T>, AppError> {
        use axum::extract::rejection::JsonRejection;
        let Json(v) = Json::<serde_json::Value>::from_request(req, state)
            .await
            .map_err(|e| match e {
                JsonRejection::MissingJsonContentType(e) => AppError::Unsupported(e.body_text()),
                JsonRejection::JsonSyntaxError(e) => AppError::BadRequest(e.body_text()),
                e if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                    AppError::TooLarge(crate::web::request_limits::SMALL_BODY as u64)
                }
                e => AppError::Unprocessable(e.body_text()),
            })?;
        if !v.is_object() {
            return Err(AppError::Unprocessable(
                "the body must be a JSON object".into(),
            ));
        }
        serde_json::from_value(v)
            .map(Object)
            .map_err(|e| AppError::Unprocessable(format!("the body: {e}")))
    }
}

/// An unknown route: 404 in the API's or the pages' form.
pub async fn no_route(uri: axum::http::Uri) -> Response {
    let e = AppError::NotFound(format!("no such page or route: {}", uri.path()));
    if is_api(uri.path()) {
        e.into_response()
    } else {
        PageError(e).into_response()
    }
}

/// An error as a small page.
pub fn error_page(status: StatusCode, message: &str) -> Response {
    let m = html! {
        (DOCTYPE)
        html lang="en" {
            head { meta charset="utf-8"; title { (status.as_u16()) } link rel="stylesheet" href="/static/style.css"; }
            body { main {
                h1 { (status.as_u16()) " " (status.canonical_reason().unwrap_or("")) }
                p.error { (message) }
                p { a href="/" { "leaderboard" } }
            } }
        }
    };
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        m.into_string(),
    )
        .into_response()
}
