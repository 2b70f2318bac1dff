//! # croupier-rules
//!
//! Pure rules engines for Durak, Toepen and UNO, exactly as `RULES.md` describes them:
//! state, whose decision it is, legal actions, apply, outcome, and events tagged public or
//! private to a seat. No I/O and no platform dependencies, so the same crate runs in the host
//! and, compiled to wasm, inside agents that simulate games.
//!
//! Every game implements [`Game`]; the host, the match runner and the checks in [`check`]
//! are written once against it. Randomness comes only from the state's own [`GameRng`]
//! (ChaCha8 with our own Fisher–Yates), so `(options, seed, actions)` replays a game bit for
//! bit on any machine.

pub mod cards;
pub mod check;
pub mod durak;
pub mod game;
pub mod log;
pub mod rng;
pub mod toepen;
pub mod uno;

pub use cards::{Card, CardSet, Seat, Suit};
pub use game::{
    ConfigError, Game, IllegalAction, Logged, Outcome, Preset, Refusal, SeatResult, Visibility,
    options_from_pairs, options_from_preset,
};
pub use rng::GameRng;
