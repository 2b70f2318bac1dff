//! Live events: what changes on the pages, pushed as it happens to browsers and to
//! `croupier submit` as server-sent events (`GET /api/events`), instead of every open page
//! polling.
//!
//! The events, each a JSON object:
//! - `hello` when a stream opens, then the current `board` and `live`;
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
//! one address without a sign-in holds at most [`PER_ADDRESS`], one signed-in team
//! [`PER_TEAM`], and streams without a sign-in together [`ANONYMOUS`] (429 or 503 naming the
//! limit), so that no client can take every stream from the others (issue #64: one client on
//! 127.0.0.1 held all 2 048). Every stream ends when the server stops, so an open page
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

/// Streams one client address may hold without signing in: a visitor's tabs, with room to
/// spare, and a sixty-fourth of [`MAX_STREAMS`], so that one client (issue #64: 2 048 streams
/// from 127.0.0.1) cannot take every stream from everyone else. A class behind one NAT signs
/// in, and then counts per team.
pub const PER_ADDRESS: usize = 32;

/// Streams one signed-in team (or the organiser) may hold: its members' pages, whatever
/// address they share.
pub const PER_TEAM: usize = 16;

/// Of [`MAX_STREAMS`], what streams without a sign-in may take all together: the rest is kept
/// for signed-in teams, so that anonymous clients from many addresses cannot take a team's
/// live page either.
pub const ANONYMOUS: usize = MAX_STREAMS / 4 * 3;

/// Whose share a stream counts against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Share {
    /// A client that is not signed in, by its address (`None`: the server does not know it).
    Address(Option<std::net::IpAddr>),
    /// A signed-in team, by id.
    Team(i64),
    /// The organiser.
    Organiser,
}

/// Why a stream was refused, naming the limit reached.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// [`MAX_STREAMS`] are open.
    #[error(
        "{MAX_STREAMS} live streams are open, the most this server keeps; the page updates when you reload it"
    )]
    Server,
    /// Anonymous streams fill their [`ANONYMOUS`] part of the server's.
    #[error(
        "{ANONYMOUS} live streams without a sign-in are open, the most this server keeps for them; sign in, or reload later"
    )]
    Anonymous,
    /// This address holds [`PER_ADDRESS`].
    #[error(
        "{PER_ADDRESS} live streams are open from this address without a sign-in, the most one address may hold: close some pages, or sign in"
    )]
    Address,
    /// This team holds [`PER_TEAM`].
    #[error(
        "{PER_TEAM} live streams are open for this team, the most one team may hold: close some of its pages"
    )]
    Team,
}

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
    /// Streams open per share, counted and checked under one lock.
    shares: Arc<Mutex<Counts>>,
}

/// Streams open per share, and all anonymous ones together.
#[derive(Default)]
struct Counts {
    per: HashMap<Share, usize>,
    anonymous: usize,
}

impl Default for Hub {
    fn default() -> Self {
        Hub {
            tx: broadcast::channel(QUEUE).0,
            open: Arc::new(AtomicUsize::new(0)),
            stop: watch::channel(false).0,
            last: Mutex::new(HashMap::new()),
            shares: Arc::default(),
        }
    }
}

/// One open stream; dropping it frees its place.
pub struct Subscription {
    rx: broadcast::Receiver<Message>,
    stop: watch::Receiver<bool>,
    open: Arc<AtomicUsize>,
    /// The share it counts against, given back when it drops.
    shares: Arc<Mutex<Counts>>,
    held: Option<Share>,
    /// What it sends first: `hello`, then the last `board` and `live`.
    first: std::collections::VecDeque<Message>,
    until: tokio::time::Instant,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::Relaxed);
        if let (Some(s), Ok(mut c)) = (self.held, self.shares.lock()) {
            if let Some(n) = c.per.get_mut(&s) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    c.per.remove(&s);
                }
            }
            if matches!(s, Share::Address(_)) {
                c.anonymous = c.anonymous.saturating_sub(1);
            }
        }
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

    /// A new stream counted against `share`, or why not: [`MAX_STREAMS`] are open, or the
    /// share is full ([`PER_ADDRESS`], [`PER_TEAM`], [`ANONYMOUS`]). The counts are checked
    /// and taken under one lock, so streams opened at once cannot pass a share together.
    pub fn subscribe(&self, share: Share) -> Result<Subscription, Refused> {
        let open = self.open.fetch_add(1, Ordering::Relaxed);
        let mut sub = Subscription {
            rx: self.tx.subscribe(),
            stop: self.stop.subscribe(),
            open: self.open.clone(),
            shares: self.shares.clone(),
            held: None,
            first: Default::default(),
            until: tokio::time::Instant::now() + std::time::Duration::from_secs(STREAM_SECONDS),
        };
        if open >= MAX_STREAMS {
            return Err(Refused::Server);
        }
        {
            let Ok(mut c) = self.shares.lock() else {
                return Err(Refused::Server);
            };
            let mine = c.per.get(&share).copied().unwrap_or(0);
            let anonymous = matches!(share, Share::Address(_));
            match share {
                Share::Address(_) if c.anonymous >= ANONYMOUS => return Err(Refused::Anonymous),
                Share::Address(_) if mine >= PER_ADDRESS => return Err(Refused::Address),
                Share::Team(_) | Share::Organiser if mine >= PER_TEAM => {
                    return Err(Refused::Team);
                }
                _ => {}
            }
            *c.per.entry(share).or_insert(0) += 1;
            if anonymous {
                c.anonymous += 1;
            }
            sub.held = Some(share);
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
        Ok(sub)
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
        let mut sub = hub.subscribe(Share::Organiser).expect("a stream");
        assert_eq!(sub.next().await.expect("hello").name, "hello");
        for i in 0..(QUEUE + 10) {
            hub.send("version", &i);
        }
        assert_eq!(sub.next().await.expect("resync").name, "resync");
        assert_eq!(hub.streams(), 1);
        let mut held = Vec::new();
        for team in 0.. {
            match hub.subscribe(Share::Team(team)) {
                Ok(s) => held.push(s),
                Err(why) => {
                    assert_eq!(why, Refused::Server);
                    break;
                }
            }
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
        let mut a = hub.subscribe(Share::Organiser).expect("a stream");
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
        let mut b = hub.subscribe(Share::Organiser).expect("another");
        b.next().await.expect("hello");
        assert_eq!(&*b.next().await.expect("the last board").data, "2");
    }

    /// Issue #64: one address at its share leaves a second address served, and a signed-in
    /// team keeps its streams while anonymous clients hold every stream they may; a stream
    /// closed gives its place back.
    #[tokio::test]
    async fn one_address_or_team_cannot_take_every_stream() {
        let hub = Hub::default();
        let a = Share::Address(Some([10, 0, 0, 1].into()));
        let b = Share::Address(Some([10, 0, 0, 2].into()));
        let mut held: Vec<Subscription> = (0..PER_ADDRESS)
            .map(|_| hub.subscribe(a).expect("within the share"))
            .collect();
        assert_eq!(hub.subscribe(a).err(), Some(Refused::Address));
        held.push(hub.subscribe(b).expect("a second address is served"));
        held.pop();
        held.pop();
        held.push(hub.subscribe(a).expect("a place given back"));
        let mut teams: Vec<Subscription> = (0..PER_TEAM)
            .map(|_| hub.subscribe(Share::Team(7)).expect("a team's pages"))
            .collect();
        assert_eq!(hub.subscribe(Share::Team(7)).err(), Some(Refused::Team));
        teams.push(hub.subscribe(Share::Team(8)).expect("another team"));
        // Anonymous clients from many addresses fill their part; a team still gets in.
        for i in 0u32.. {
            match hub.subscribe(Share::Address(Some(std::net::Ipv4Addr::from(i).into()))) {
                Ok(s) => held.push(s),
                Err(why) => {
                    assert_eq!(why, Refused::Anonymous);
                    break;
                }
            }
        }
        assert_eq!(held.len(), ANONYMOUS);
        teams.push(
            hub.subscribe(Share::Team(9))
                .expect("a team while anonymous clients flood"),
        );
        assert!(
            Refused::Address
                .to_string()
                .contains(&PER_ADDRESS.to_string())
        );
    }
}
