#![deny(missing_docs)]
//! # croupier-learn
//!
//! Croupier's games as environments for learning, the Rust side of `croupier.env` in Python
//! (docs/learning.md):
//!
//! * [`table`]: one game whose every seat is driven from outside, one decision at a time
//!   (what PettingZoo's AEC environments wrap);
//! * [`batch`]: many games at once, the learner's seat driven from outside with arrays and
//!   every other seat played inside by an opponent: a Rust example agent natively, any agent
//!   component through the sandbox, or a [`opponents::Foreign`] player (a Python callable);
//! * [`native`]: the Rust example agents linked natively.
//!
//! Observations and actions are encoded by [`croupier_rules::encode`], the module an exported
//! policy compiles into its component. Only real choices are asked for: a decision with one
//! legal action is applied at once, as the match runner does for agents.
//!
//! Determinism: a batch's game `k` in slot `i` depends only on the seed, `i` and `k` (its deal,
//! the learner's seat, the opponents drawn and their random streams), so the results are the
//! same on any number of threads. Nothing here prints.

pub mod batch;
mod error;
pub mod native;
pub mod opponents;
pub mod record;
pub mod table;

pub use croupier_rules::encode::Shape;
pub use error::EnvError;

use croupier_host::adapters::Adapter;
use croupier_host::loader::GameKind;
use croupier_rules::encode::Encode;
use croupier_rules::{Game, SeatResult};
use croupier_tournament::matches::RulesArgs;

/// The games that have environments, by name.
pub fn games() -> Vec<&'static str> {
    GameKind::ALL.iter().map(|g| g.name()).collect()
}

/// What a game needs to be an environment: an encoding, a sandbox adapter and native agents.
pub trait Learnable: Encode + Adapter + native::Natives {}

impl<G: Encode + Adapter + native::Natives> Learnable for G {}

/// A game's rule options from a preset, a number of seats and `NAME=VALUE` settings.
pub fn options<G: Game>(args: &RulesArgs) -> Result<G::Options, EnvError> {
    croupier_tournament::matches::setup::options::<G>(args)
        .map(|(_, opts)| opts)
        .map_err(|e| EnvError::Options {
            game: G::NAME,
            reason: e.to_string(),
        })
}

/// The reward of a seat's result: 1 for a win, -1 for a loss, 0 for a draw (team games give
/// each seat its team's result).
pub fn reward(result: SeatResult) -> f32 {
    match result {
        SeatResult::Win => 1.0,
        SeatResult::Loss => -1.0,
        SeatResult::Draw => 0.0,
    }
}

/// The indices of `legal`, ascending (what an illegal action's error lists).
pub(crate) fn legal_indices<G: croupier_rules::encode::Encode>(legal: &[G::Action]) -> Vec<usize> {
    let mut v: Vec<usize> = legal.iter().map(|a| G::action_index(*a)).collect();
    v.sort_unstable();
    v
}

/// The game named `name`.
pub(crate) fn kind(name: &str) -> Result<GameKind, EnvError> {
    GameKind::parse(name).ok_or_else(|| EnvError::UnknownGame {
        name: name.to_string(),
    })
}
