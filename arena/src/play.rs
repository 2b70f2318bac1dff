//! People playing agents from the browser: the human games a server holds (the arena's
//! `/play`, and `croupier play --web` on one machine), their bounds, and the agents' turns.
//!
//! A game is [`croupier_tournament::human`]'s: the person's seat sees only its own
//! observation, and an action is played only if it is one of those offered now. Here is what
//! a server needs around it:
//! - *The agents never hold up the server.* Their turns are played on a blocking thread
//!   (`spawn_blocking`), in their sandbox under the arena's limits, one game's at a time; a
//!   request never waits for an agent: the page asks for the state again.
//! - *State is bounded.* At most [`crate::config::Play::games`] games are going at once (503
//!   beyond) and [`crate::config::Play::per_team`] per owner (429 beyond); a game's own state
//!   is the rules engine's, the agents' instances (each under the memory limit) and their
//!   logs (under the log limits). A finished game is kept in memory only, for
//!   [`crate::config::Play::keep_minutes`], and at most `4 × games` of them: it is never rated
//!   and never written to the database, so the ladder's tables and the storage budget never
//!   see it, and a restart forgets it.
//! - *A game nobody plays ends.* The person has [`crate::config::Play::turn_seconds`] for a
//!   decision; a page that has not asked for the state for
//!   [`crate::config::Play::left_seconds`] has been left (it asks every two seconds, and says
//!   so as it closes); either ends the game, unrated, and lets its instances go.
//! - *Only its owner sees a game.* A game's id is 128 random bits, and every call names the
//!   owner it must belong to: a team, the organiser, a visitor's browser or the local person.
//!   After the game, the owner sees its replay from the person's seat, and from the seats of
//!   the owner's own team's agents with their logs; a house agent's seat and log are shown to
//!   nobody (as in every replay, an agent's log is its team's).

use crate::linked::Linked;
use croupier_host::adapters::Adapter;
use croupier_host::limits::Limits;
use croupier_host::loader::GameKind;
use croupier_tournament::human::{ActError, HumanGame, HumanSetup, PlayView, Waiting, seat_person};
use croupier_tournament::matches::RulesArgs;
use croupier_tournament::matches::log::LogHeader;
use croupier_tournament::matches::setup::{entrant, options};
use croupier_tournament::replay::TableView;
use croupier_tournament::runner::{Entrant, GameRecord};
use serde::Serialize;
use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// How often ended games are looked for, and the page's interval between asks (two), in
/// milliseconds: both far below the shortest limit they serve.
pub const SWEEP_MS: u64 = 5_000;

/// Who a game belongs to: whom it is shown to and whose cap it counts against.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    /// A team, by id.
    Team(i64),
    /// The organiser.
    Organiser,
    /// A browser that is not signed in (an open arena: `arena demo`), by its nonce.
    Visitor(String),
    /// The person at `croupier play --web`.
    Local,
}

/// Why a call about a human game was refused. Each becomes a status in the web wing.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// No game by that id for this owner (or it was forgotten): 404.
    #[error("no game `{0}` of yours here (a finished game is kept for a while, then forgotten)")]
    NotFound(String),
    /// The owner has as many games going as it may: 429.
    #[error("{0}")]
    TooMany(String),
    /// The server has as many games going as it may: 503.
    #[error("{0}")]
    Full(String),
    /// The action was refused (not offered, not the person's turn, stale): 409 or 422.
    #[error(transparent)]
    Act(#[from] ActError),
    /// The seat asked for is not one the owner may see: 403.
    #[error("{0}")]
    Private(String),
    /// The game could not begin (an agent, the host): 422 or 503.
    #[error("{0}")]
    Setup(String),
    /// The game has not ended yet: 409.
    #[error("the game is still going: its replay opens when it ends")]
    Going,
}

/// The bounds of one server's human games ([`crate::config::Play`]).
#[derive(Clone, Debug)]
pub struct Bounds {
    /// Games going at once, all owners.
    pub games: u32,
    /// Games going at once per owner.
    pub per_owner: u32,
    /// Milliseconds a person has for one decision.
    pub turn_ms: i64,
    /// Milliseconds without a sign from the page before the game ends.
    pub left_ms: i64,
    /// Milliseconds a finished game is kept.
    pub keep_ms: i64,
}

impl From<&crate::config::Play> for Bounds {
    fn from(p: &crate::config::Play) -> Bounds {
        Bounds {
            games: p.games,
            per_owner: p.per_team,
            turn_ms: i64::from(p.turn_seconds) * 1000,
            left_ms: i64::from(p.left_seconds) * 1000,
            keep_ms: i64::from(p.keep_minutes) * 60_000,
        }
    }
}

/// What the page is sent: the person's view, and where the game stands.
#[derive(Clone, Debug, Serialize)]
pub struct PlayState {
    /// The game's id.
    pub id: String,
    /// What the person's seat may see now.
    #[serde(flatten)]
    pub view: PlayView,
    /// `turn` (the person's), `host` (an agent is deciding) or `over`.
    pub state: &'static str,
    /// Milliseconds left for the person's decision, on their turn.
    pub turn_left_ms: Option<i64>,
    /// The replay's address, once the game is over.
    pub replay: Option<String>,
}

/// A finished game: its log and who may see which seat.
#[derive(Clone, Debug)]
pub struct Finished {
    /// The log header.
    pub header: LogHeader,
    /// The record, the agents' logs in it.
    pub record: GameRecord,
    /// Per seat: whether the owner may see its private view and log.
    pub may_see: Vec<bool>,
}

/// One game going.
struct Live {
    owner: Owner,
    /// A visitor's address: visitors' games are capped per address too.
    from: Option<std::net::IpAddr>,
    may_see: Vec<bool>,
    /// The game; held by the thread playing the agents' turns while it plays them.
    game: Mutex<Box<dyn HumanGame>>,
    /// What the page is shown, kept current as moves are played.
    shown: Mutex<Shown>,
    /// Why the game must end, set while the agents' thread holds it.
    stop: Mutex<Option<String>>,
}

struct Shown {
    view: PlayView,
    waiting: Waiting,
    /// When the person's turn began (ms).
    turn_since: i64,
    /// When the page last asked (ms).
    seen: i64,
}

/// A finished game as kept.
struct Done {
    owner: Owner,
    view: PlayView,
    finished: Option<Finished>,
    at: i64,
}

#[derive(Default)]
struct Held {
    live: HashMap<String, Arc<Live>>,
    /// Games being set up, per owner: they count against the caps before they exist.
    starting: HashMap<Owner, u32>,
    /// Visitors' games being set up, per address.
    starting_from: HashMap<std::net::IpAddr, u32>,
    done: HashMap<String, Done>,
    done_order: VecDeque<String>,
}

/// The human games of one server.
pub struct Games {
    bounds: Bounds,
    held: Mutex<Held>,
}

fn now() -> i64 {
    crate::now_ms()
}

/// A new game's id: 128 random bits in hex.
fn new_id() -> Result<String, PlayError> {
    crate::auth::random_bytes::<16>()
        .map(|b| crate::auth::hex(&b))
        .map_err(|e| PlayError::Setup(e.to_string()))
}

fn state_of(w: Waiting) -> &'static str {
    match w {
        Waiting::Person => "turn",
        Waiting::Host => "host",
        Waiting::Over => "over",
    }
}

impl Games {
    /// No games yet, under `bounds`.
    pub fn new(bounds: Bounds) -> Arc<Games> {
        Arc::new(Games {
            bounds,
            held: Mutex::new(Held::default()),
        })
    }

    /// The bounds.
    pub fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        // A panic while holding the lock leaves plain maps behind: still usable.
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Games `owner` has going.
    pub fn going(&self, owner: &Owner) -> u32 {
        let h = self.held();
        h.live.values().filter(|g| &g.owner == owner).count() as u32
            + h.starting.get(owner).copied().unwrap_or(0)
    }

    /// Starts a game for `owner`: `make` deals it and starts its agents (on a blocking
    /// thread), then the agents play until it is the person's turn. `may_see` says, per
    /// seat, whether the owner may see that seat's private view and log once it is over.
    pub async fn start(
        self: &Arc<Self>,
        owner: Owner,
        may_see: Vec<bool>,
        make: impl FnOnce() -> Result<Box<dyn HumanGame>, String> + Send + 'static,
    ) -> Result<String, PlayError> {
        self.start_from(owner, None, may_see, make).await
    }

    /// [`Games::start`] for a request from `from`. A visitor is only its cookie, which a
    /// client can drop and get anew at every `GET /play`, so visitors' games are also capped
    /// at `play.per_team` per address (issue #64: one client could otherwise take every
    /// `play.games` slot). Teams are capped per team, whatever address they share.
    pub async fn start_from(
        self: &Arc<Self>,
        owner: Owner,
        from: Option<std::net::IpAddr>,
        may_see: Vec<bool>,
        make: impl FnOnce() -> Result<Box<dyn HumanGame>, String> + Send + 'static,
    ) -> Result<String, PlayError> {
        let from = from.filter(|_| matches!(owner, Owner::Visitor(_)));
        self.sweep();
        {
            let mut h = self.held();
            let all = h.live.len() as u32 + h.starting.values().sum::<u32>();
            if all >= self.bounds.games {
                return Err(PlayError::Full(format!(
                    "{} games are being played here, as many as the server allows at once (play.games): try again in a few minutes",
                    self.bounds.games
                )));
            }
            let mine = h.live.values().filter(|g| g.owner == owner).count() as u32
                + h.starting.get(&owner).copied().unwrap_or(0);
            if mine >= self.bounds.per_owner {
                return Err(PlayError::TooMany(format!(
                    "you have {mine} games going, as many as one team may (play.per_team): finish or leave one first"
                )));
            }
            if let Some(addr) = from {
                let there = h.live.values().filter(|g| g.from == Some(addr)).count() as u32
                    + h.starting_from.get(&addr).copied().unwrap_or(0);
                if there >= self.bounds.per_owner {
                    return Err(PlayError::TooMany(format!(
                        "{there} games are going from this address without a sign-in, as many as one address may (play.per_team): finish or leave one first"
                    )));
                }
                *h.starting_from.entry(addr).or_default() += 1;
            }
            *h.starting.entry(owner.clone()).or_default() += 1;
        }
        let made = tokio::task::spawn_blocking(make)
            .await
            .map_err(|e| PlayError::Setup(format!("setting the game up failed: {e}")))
            .and_then(|r| r.map_err(PlayError::Setup));
        let id = new_id();
        let mut h = self.held();
        if let Some(n) = h.starting.get_mut(&owner) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                h.starting.remove(&owner);
            }
        }
        if let Some(addr) = from
            && let Some(n) = h.starting_from.get_mut(&addr)
        {
            *n = n.saturating_sub(1);
            if *n == 0 {
                h.starting_from.remove(&addr);
            }
        }
        let (game, id) = (made?, id?);
        let t = now();
        let live = Arc::new(Live {
            owner,
            from,
            may_see,
            shown: Mutex::new(Shown {
                view: game.view(),
                waiting: game.waiting(),
                turn_since: t,
                seen: t,
            }),
            game: Mutex::new(game),
            stop: Mutex::new(None),
        });
        let waiting = lock(&live.shown).waiting;
        h.live.insert(id.clone(), live.clone());
        drop(h);
        // A game that opens on the person's turn has nothing for the agents to do (as in `act`).
        if waiting != Waiting::Person {
            self.clone().drive(id.clone(), live);
        }
        Ok(id)
    }

    /// Plays the host's moves of game `id` on a blocking thread, until the person's turn or
    /// the end, showing each move as it is made.
    fn drive(self: Arc<Self>, id: String, live: Arc<Live>) {
        tokio::task::spawn_blocking(move || {
            let mut game = lock(&live.game);
            loop {
                if let Some(why) = lock(&live.stop).take() {
                    game.abandon(&why);
                }
                let waiting = game.waiting();
                let view = game.view();
                if waiting == Waiting::Person {
                    // The game is let go before the turn shows: an action sent the moment the
                    // page sees its turn must find it free (`act` refuses a held game as not
                    // the person's turn).
                    drop(game);
                    Self::show(&live, view, waiting);
                    return;
                }
                Self::show(&live, view, waiting);
                match waiting {
                    Waiting::Host => game.step(),
                    Waiting::Person | Waiting::Over => break,
                }
            }
            let finished = game.finish();
            drop(game);
            self.retire(&id, &live, finished);
        });
    }

    /// Publishes what the person's page is shown of a live game.
    fn show(live: &Live, view: PlayView, waiting: Waiting) {
        let mut s = lock(&live.shown);
        if waiting == Waiting::Person && s.waiting != Waiting::Person {
            s.turn_since = now();
        }
        s.view = view;
        s.waiting = waiting;
    }

    /// Moves a game that is over from the live games to the finished ones.
    fn retire(&self, id: &str, live: &Live, finished: Option<(LogHeader, GameRecord)>) {
        let view = lock(&live.shown).view.clone();
        let mut h = self.held();
        h.live.remove(id);
        h.done.insert(
            id.to_string(),
            Done {
                owner: live.owner.clone(),
                view,
                finished: finished.map(|(header, record)| Finished {
                    header,
                    record,
                    may_see: live.may_see.clone(),
                }),
                at: now(),
            },
        );
        h.done_order.push_back(id.to_string());
        let keep = 4 * self.bounds.games.max(1) as usize;
        while h.done_order.len() > keep {
            if let Some(old) = h.done_order.pop_front() {
                h.done.remove(&old);
            }
        }
    }

    /// Finished game `id`, if it is `owner`'s.
    fn done<'a>(h: &'a Held, id: &str, owner: &Owner) -> Result<&'a Done, PlayError> {
        h.done
            .get(id)
            .filter(|d| &d.owner == owner)
            .ok_or_else(|| PlayError::NotFound(id.to_string()))
    }

    fn live(&self, id: &str, owner: &Owner) -> Option<Arc<Live>> {
        self.held()
            .live
            .get(id)
            .filter(|g| &g.owner == owner)
            .cloned()
    }

    /// What the page shows now; asking keeps the game alive.
    pub fn state(&self, id: &str, owner: &Owner) -> Result<PlayState, PlayError> {
        if let Some(live) = self.live(id, owner) {
            let mut s = lock(&live.shown);
            s.seen = now();
            let turn = s.waiting == Waiting::Person;
            return Ok(PlayState {
                id: id.to_string(),
                view: s.view.clone(),
                state: state_of(s.waiting),
                turn_left_ms: turn.then(|| (s.turn_since + self.bounds.turn_ms - now()).max(0)),
                replay: None,
            });
        }
        let h = self.held();
        let done = Self::done(&h, id, owner)?;
        Ok(PlayState {
            id: id.to_string(),
            view: done.view.clone(),
            state: "over",
            turn_left_ms: None,
            replay: done.finished.as_ref().map(|_| format!("/play/{id}/replay")),
        })
    }

    /// Plays the person's action (by its text, chosen at move `moves`), then the agents'
    /// turns after it on a blocking thread. Refused unless the action is offered now.
    pub fn act(
        self: &Arc<Self>,
        id: &str,
        owner: &Owner,
        action: &str,
        moves: u64,
    ) -> Result<PlayState, PlayError> {
        let live = match self.live(id, owner) {
            Some(l) => l,
            None => {
                // A game of this owner that has ended refuses as over; anything else is not
                // theirs.
                self.state(id, owner)?;
                return Err(ActError::Over.into());
            }
        };
        let waiting = {
            // The agents' thread holds the game while it plays: it is not the person's turn.
            let Ok(mut game) = live.game.try_lock() else {
                return Err(ActError::NotYourTurn.into());
            };
            game.act(action, moves)?;
            let mut s = lock(&live.shown);
            s.view = game.view();
            s.waiting = game.waiting();
            s.seen = now();
            s.waiting
        };
        // Still the person's turn (a UNO draw, then whether to play it): no agent has anything
        // to do, and a thread that took the game to see that would refuse the next click.
        if waiting != Waiting::Person {
            self.clone().drive(id.to_string(), live);
        }
        self.state(id, owner)
    }

    /// Ends game `id` now (the person left the page): unrated, its replay kept.
    pub fn leave(self: &Arc<Self>, id: &str, owner: &Owner) -> Result<(), PlayError> {
        let live = match self.live(id, owner) {
            Some(l) => l,
            None => return self.state(id, owner).map(|_| ()),
        };
        self.end(id, live, "the game ended: the person left the page");
        Ok(())
    }

    /// Ends a live game for `why`: at once if no agent is deciding, else as soon as it has.
    fn end(self: &Arc<Self>, id: &str, live: Arc<Live>, why: &str) {
        let Ok(mut game) = live.game.try_lock() else {
            *lock(&live.stop) = Some(why.to_string());
            return;
        };
        game.abandon(why);
        {
            let mut s = lock(&live.shown);
            s.view = game.view();
            s.waiting = game.waiting();
        }
        let finished = game.finish();
        drop(game);
        self.retire(id, &live, finished);
    }

    /// A finished game of `owner`'s, with which seats it may see.
    pub fn finished(&self, id: &str, owner: &Owner) -> Result<Finished, PlayError> {
        if self.live(id, owner).is_some() {
            return Err(PlayError::Going);
        }
        let h = self.held();
        Self::done(&h, id, owner)?
            .finished
            .clone()
            .ok_or_else(|| PlayError::NotFound(id.to_string()))
    }

    /// Ends the games whose person ran out of time or whose page was left, and forgets
    /// finished games past their time.
    pub fn sweep(self: &Arc<Self>) {
        let t = now();
        let mut ending = Vec::new();
        {
            let mut h = self.held();
            for (id, g) in &h.live {
                let s = lock(&g.shown);
                if s.waiting == Waiting::Person && t - s.turn_since > self.bounds.turn_ms {
                    ending.push((
                        id.clone(),
                        g.clone(),
                        format!(
                            "the game ended: no move in {} s",
                            self.bounds.turn_ms / 1000
                        ),
                    ));
                } else if t - s.seen > self.bounds.left_ms {
                    ending.push((
                        id.clone(),
                        g.clone(),
                        "the game ended: the page was closed".to_string(),
                    ));
                }
            }
            let keep = self.bounds.keep_ms;
            let Held {
                done, done_order, ..
            } = &mut *h;
            done.retain(|_, d| t - d.at <= keep);
            done_order.retain(|id| done.contains_key(id));
        }
        for (id, g, why) in ending {
            self.end(&id, g, &why);
        }
    }

    /// Sweeps every [`SWEEP_MS`] until `stop` changes.
    pub async fn sweeper(self: Arc<Self>, mut stop: tokio::sync::watch::Receiver<bool>) {
        loop {
            self.sweep();
            tokio::select! {
                _ = stop.changed() => return,
                _ = tokio::time::sleep(std::time::Duration::from_millis(SWEEP_MS)) => {}
            }
        }
    }
}

/// Locks a mutex, going on with its data if a thread panicked while holding it.
fn lock<T: ?Sized>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Who plays one of the agents' seats.
#[derive(Clone, Debug)]
pub enum SeatAgent {
    /// A stored build (an upload or a house agent), by content hash, at `path`.
    Stored {
        /// Its name as shown, e.g. `alpha v3` or `durak/cheapest`.
        name: String,
        /// SHA-256 of the build.
        sha256: String,
        /// Where it is stored.
        path: PathBuf,
    },
    /// An agent named as `croupier match` takes it (`durak/cheapest`, a file).
    Named(String),
}

/// What [`Games::start`] runs: deals a game of `kind` under `rules` from `seed`, with the
/// person in the one seat that has no agent, and starts the other seats' agents in the
/// sandbox under `limits`.
pub fn setup(
    linked: Arc<Linked>,
    kind: GameKind,
    rules: RulesArgs,
    seats: Vec<Option<SeatAgent>>,
    seed: u64,
    limits: Limits,
) -> impl FnOnce() -> Result<Box<dyn HumanGame>, String> + Send + 'static {
    move || croupier_tournament::with_game!(kind, G => make::<G>(&linked, &rules, seats, seed, limits))
}

fn make<G: TableView + Adapter>(
    linked: &Linked,
    rules: &RulesArgs,
    seats: Vec<Option<SeatAgent>>,
    seed: u64,
    limits: Limits,
) -> Result<Box<dyn HumanGame>, String> {
    let (preset, options) = options::<G>(rules).map_err(|e| e.to_string())?;
    let mut entrants = Vec::with_capacity(seats.len());
    for s in seats {
        entrants.push(match s {
            None => None,
            Some(SeatAgent::Stored { name, sha256, path }) => {
                let factory = linked
                    .factory::<G>(&sha256, &path, &options)
                    .map_err(|e| format!("{name}: {e}"))?;
                Some(Entrant {
                    name,
                    args: String::new(),
                    factory,
                })
            }
            Some(SeatAgent::Named(n)) => Some(
                entrant::<G>(linked.runtime(), &n, &options).map_err(|e| format!("{n}: {e}"))?,
            ),
        });
    }
    seat_person::<G>(HumanSetup {
        preset,
        options,
        seats: entrants,
        seed,
        limits,
        person: "you".into(),
    })
    .map_err(|e| e.to_string())
}

/// A fresh seed for a deal.
pub fn new_seed() -> Result<u64, PlayError> {
    crate::auth::random_bytes::<8>()
        .map(u64::from_le_bytes)
        .map_err(|e| PlayError::Setup(e.to_string()))
}

#[cfg(test)]
mod tests;
