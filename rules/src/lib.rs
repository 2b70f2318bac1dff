#![deny(missing_docs)]
//! # croupier-rules
//!
//! Pure rules engines for Durak, Toepen and UNO, exactly as the rule book, docs/rules/README.md,
//! describes them: state, whose decision it is, legal actions, apply, outcome, and events tagged
//! public or private to a seat. No I/O and no platform dependencies, so the same crate runs in the
//! host and, compiled to wasm, inside agents that simulate games.
//!
//! Every game's options implement [`Rules`] (presets, option text, seats) and its state
//! implements [`Game`] (turns, legal actions, observations) and [`Checkable`] (the checker's
//! hooks); the host, the match runner and the checks in [`check`] are written once against
//! them. Randomness comes only from the state's own [`GameRng`]
//! (ChaCha8 with our own Fisher–Yates), so `(options, seed, actions)` replays a game bit for
//! bit on any machine.

pub mod cards;
pub mod check;
pub mod durak;
pub mod encode;
pub mod game;
pub mod log;
pub mod rng;
pub mod toepen;
pub mod uno;
pub mod wire;

pub use cards::{Card, CardSet, Seat, Suit};
pub use game::{
    Checkable, ConfigError, Game, IllegalAction, Logged, Outcome, Preset, Refusal, Rules,
    SeatResult, Visibility,
};
pub use rng::GameRng;
