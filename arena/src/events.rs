//! Live events: what changes on the pages, pushed as it happens to browsers and to
//! `croupier submit` as server-sent events (`GET /api/events`), instead of every open page
//! polling.
//!
//! The events, each a JSON object:
//! - `hello` when a stream opens (then the last `board` and `live` sent, if any);
//! - `version`: an upload's state as it changes ([`VersionEvent`]: queued, compiling, smoke,
//!   then valid or refused);
//! - `board`: the leaderboard, as `GET /api/leaderboard` gives it, when it changed;
//! - `live`: the matches being played now ([`crate::web::views::LiveJson`]), when the list changed;
//! - `resync`: this stream missed events (it read too slowly); a page fetches again.
//!
//! Threat model and limits. The stream is public and carries only what the public pages
//! show. Every stream reads from one queue of [`QUEUE`] events: a client that reads slowly
//! misses events and gets `resync`, and never makes the server hold more for it. `board` and
//! `live` are built once per [`TICK`] for every stream at once, and only while someone
//! listens, so a class of hundreds of open pages costs one board a second, not hundreds of
//! polls. At most [`MAX_STREAMS`] streams are open at once (each holds a socket and a task);
//! more get 503 with Retry-After. Every stream ends when the server stops, so an open page
//! never holds up a stop, and after [`STREAM_SECONDS`], so a stream whose client vanished
//! without closing its socket is not held for ever (a browser reconnects by itself).

use serde::Serialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{broadcast, watch};

/// Events queued per stream: a burst of uploads' states and a board, with room to spare. A
/// stream further behind gets `resync`.
pub const QUEUE: usize = 256;

/// Streams open at once: a class of a few hundred, each with a page or two open.
pub const MAX_STREAMS: usize = 2048;

/// How often `board` and `live` are rebuilt, when they changed: often enough to look live,
/// seldom enough that the board is built a second at most whatever the number of pages.
pub const TICK: std::time::Duration = std::time::Duration::from_secs(1);

/// How long a stream lasts before the server ends it (the browser opens a new one at once).
pub const STREAM_SECONDS: u64 = 600;

/// One event: its name and its JSON, serialised once for every stream.
#[derive(Clone, Debug)]
pub struct Message {
    /// The event's name.
    pub name: &'static str,
    /// Its data, JSON.
    pub data: Arc<str>,
}

/// An upload's state, as it changes.
#[derive(Clone, Debug, Serialize)]
pub struct VersionEvent {
    /// The team.
    pub team: i64,
    /// The version's number.
    pub version: i64,
    /// SHA-256 of the file (`croupier submit` knows its own file by it).
    pub sha256: String,
    /// `queued`, `compiling`, `smoke`, `valid` or `refused` (the stored words).
    pub state: crate::store::db::states::VersionStatus,
    /// The verdict's message, once there is one.
    pub message: String,
}

/// The streams' hub, one per server.
pub struct Hub {
    tx: broadcast::Sender<Message>,
    open: Arc<AtomicUsize>,
    stop: watch::Sender<bool>,
    /// The last `board` and `live` sent: a new stream starts from them.
    last: Mutex<HashMap<&'static str, Arc<str>>>,
}

impl Default for Hub {
    fn default() -> Self {
        Hub {
            tx: broadcast::channel(QUEUE).0,
            open: Arc::new(AtomicUsize::new(0)),
            stop: watch::channel(false).0,
            last: Mutex::new(HashMap::new()),
        }
    }
}

/// One open stream; dropping it frees its place.
pub struct Subscription {
    rx: broadcast::Receiver<Message>,
    stop: watch::Receiver<bool>,
    open: Arc<AtomicUsize>,
    /// What it sends first: `hello`, then the last `board` and `live`.
    first: std::collections::VecDeque<Message>,
    until: tokio::time::Instant,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Subscription {
    /// The next event; `None` once the stream should end (the server stops, or the stream
    /// is [`STREAM_SECONDS`] old).
    pub async fn next(&mut self) -> Option<Message> {
        if let Some(m) = self.first.pop_front() {
            return Some(m);
        }
        if *self.stop.borrow() {
            return None;
        }
        tokio::select! {
            _ = self.stop.changed() => None,
            _ = tokio::time::sleep_until(self.until) => None,
            r = self.rx.recv() => match r {
                Ok(m) => Some(m),
                Err(broadcast::error::RecvError::Lagged(n)) => Some(Message {
                    name: "resync",
                    data: format!("{{\"missed\":{n}}}").into(),
                }),
                Err(broadcast::error::RecvError::Closed) => None,
            },
        }
    }
}

impl Hub {
    /// Whether any stream is open (nothing is built for nobody).
    pub fn listening(&self) -> bool {
        self.tx.receiver_count() > 0
    }

    /// Streams open now.
    pub fn streams(&self) -> usize {
        self.open.load(Ordering::Relaxed)
    }

    /// Sends an event to every open stream.
    pub fn send(&self, name: &'static str, data: &impl Serialize) {
        if !self.listening() {
            return;
        }
        if let Ok(json) = serde_json::to_string(data) {
            let _ = self.tx.send(Message {
                name,
                data: json.into(),
            });
        }
    }

    /// Sends `board` or `live` if it differs from the last one sent; kept for new streams.
    pub fn send_if_changed(&self, name: &'static str, data: &impl Serialize) {
        let Ok(json) = serde_json::to_string(data) else {
            return;
        };
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        if last.get(name).is_some_and(|l| **l == *json) {
            return;
        }
        let json: Arc<str> = json.into();
        last.insert(name, json.clone());
        let _ = self.tx.send(Message { name, data: json });
    }

    /// The last `board` or `live` sent, while someone listens.
    pub fn last(&self, name: &str) -> Option<Arc<str>> {
        self.last.lock().ok().and_then(|l| l.get(name).cloned())
    }

    /// Forgets the last `board` and `live` (nobody listens, so they would go stale).
    pub fn forget(&self) {
        if let Ok(mut last) = self.last.lock() {
            last.clear();
        }
    }

    /// A new stream, or `None` when [`MAX_STREAMS`] are open.
    pub fn subscribe(&self) -> Option<Subscription> {
        let open = self.open.fetch_add(1, Ordering::Relaxed);
        let mut sub = Subscription {
            rx: self.tx.subscribe(),
            stop: self.stop.subscribe(),
            open: self.open.clone(),
            first: Default::default(),
            until: tokio::time::Instant::now() + std::time::Duration::from_secs(STREAM_SECONDS),
        };
        if open >= MAX_STREAMS {
            return None;
        }
        sub.first.push_back(Message {
            name: "hello",
            data: "{}".into(),
        });
        if let Ok(last) = self.last.lock() {
            for name in ["board", "live"] {
                if let Some(d) = last.get(name) {
                    sub.first.push_back(Message {
                        name,
                        data: d.clone(),
                    });
                }
            }
        }
        Some(sub)
    }

    /// Ends every stream (the server is stopping).
    pub fn close(&self) {
        let _ = self.stop.send(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_slow_stream_gets_resync_and_the_cap_refuses_the_next() {
        let hub = Hub::default();
        let mut sub = hub.subscribe().expect("a stream");
        assert_eq!(sub.next().await.expect("hello").name, "hello");
        for i in 0..(QUEUE + 10) {
            hub.send("version", &i);
        }
        assert_eq!(sub.next().await.expect("resync").name, "resync");
        assert_eq!(hub.streams(), 1);
        let mut held = Vec::new();
        while let Some(s) = hub.subscribe() {
            held.push(s);
        }
        assert_eq!(held.len(), MAX_STREAMS - 1);
        drop(held);
        assert_eq!(hub.streams(), 1);
        hub.close();
        assert!(sub.next().await.is_none(), "a stop ends the stream");
    }

    #[tokio::test]
    async fn a_new_stream_starts_from_the_last_board_and_an_unchanged_board_is_not_sent_again() {
        let hub = Hub::default();
        let mut a = hub.subscribe().expect("a stream");
        hub.send_if_changed("board", &1);
        hub.send_if_changed("board", &1);
        hub.send_if_changed("board", &2);
        let names: Vec<String> = [
            a.next().await.expect("hello"),
            a.next().await.expect("board"),
            a.next().await.expect("board"),
        ]
        .iter()
        .map(|m| format!("{} {}", m.name, m.data))
        .collect();
        assert_eq!(names, ["hello {}", "board 1", "board 2"]);
        let mut b = hub.subscribe().expect("another");
        b.next().await.expect("hello");
        assert_eq!(&*b.next().await.expect("the last board").data, "2");
    }
}
