#![deny(missing_docs)]
//! # croupier-arena
//!
//! The competition server: teams upload agents, each upload is validated at once (the
//! runtime's loader, then a short smoke match in the sandbox), a ladder plays the latest
//! valid versions against each other without end, ratings are recomputed from the stored
//! results, and pages and a JSON API show the leaderboard, the teams, and every game as a
//! replay.
//!
//! ## Threat model
//! Everything a team sends is hostile: the agent file, its name, its log lines, the team's
//! requests. The server's promises and where each is kept:
//! - *An upload cannot hurt the server.* The body is capped before it is read
//!   ([`config::Uploads::max_bytes`], 413 past it), a team's submissions are rate-limited
//!   ([`config::Uploads::per_hour`], 429 with `Retry-After`, counted as uploads start, and
//!   [`config::Uploads::in_flight`] at once), the file is stored under its SHA-256 (no name
//!   from the upload ever becomes a path), and validation and compilation
//!   run in a child process under CPU and memory limits (`croupier-host`'s loader), so a
//!   compile bomb kills that child, never the server.
//! - *An agent cannot hurt a game it is not in, nor the host.* Games run in the sandbox under
//!   the arena's [`croupier_host::limits::Limits`]; a fault is a verdict against the agent.
//!   After [`config::Ladder::suspend_after`] faulted games in a row a version leaves
//!   matchmaking until its team uploads a new one.
//! - *Nobody sees what is not theirs.* Tokens are random 256-bit secrets stored as SHA-256
//!   and compared in constant time ([`auth`]). An agent's log lines and its seat's private
//!   view of a replay are shown only to its team and the organiser. Every text a team
//!   controls is escaped in every page (templates escape by default), and pages are sent
//!   with a strict Content-Security-Policy.
//! - *A browser's sign-in works only for its own pages.* Every state-changing request that
//!   rides on the sign-in cookie, and the sign-in form itself, must come from the arena's own
//!   origin and carry a CSRF token ([`web::session`]); a cookie that no longer works is dropped,
//!   never turned into a lock-out.
//! - *An agent cannot fill the disk.* What the database keeps of games is bounded by the
//!   organiser's budget ([`store::storage`]): logs are cut as games are stored, old replays are
//!   sampled, the oldest logs and replays go first, and the ladder pauses before the
//!   results alone outgrow it.
//! - *A crash loses nothing.* Each finished game is written once, keyed by (match, game
//!   index); a match whose worker died is leased again and plays only its missing games,
//!   from the same seeds, so it gives the same results. A failure of the platform is never
//!   scored against an agent.
//! - *A person's game shows only that person's seat.* `/play` ([`play`]) builds what the page
//!   shows from the person's own observation, offers exactly the legal actions and refuses
//!   any other; its agents play in the sandbox like any other, the games are bounded in
//!   number, time and memory, and they are never rated.
//! - *A machine that plays matches holds no keys to the arena.* Workers on other machines
//!   ([`queue::worker`]) pull jobs over HTTP with a worker token that opens only the worker API; the
//!   server checks every game they report against the match's schedule and refuses a report
//!   made under a lost lease (409), so a late or repeated result is never counted twice.

pub mod auth;
pub mod config;
pub mod context;
pub mod events;
pub mod finals;
pub mod linked;
pub mod names;
pub mod play;
pub mod queue;
pub mod ratings;
pub mod store;
pub mod turns;
pub mod validate;
pub mod web;

/// Milliseconds since the Unix epoch: how every time is stored.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
