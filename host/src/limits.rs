//! Limits are data: one struct with defaults that the CLI can override and the results record.
//!
//! Why each default:
//! - `fuel_per_decision` (200 M): fuel is the deterministic budget, so a search agent that
//!   plans by it replays bit for bit. 200 M instructions is about 0.1–0.3 s of Rust guest code
//!   here, room for a few thousand Monte Carlo playouts, while a busy loop ends quickly.
//! - `millis_per_decision` (2000): the wall-clock backstop for what fuel cannot see (a guest
//!   stuck in slow host calls, a machine under load). Generous so that load never decides a
//!   game that fuel would not have.
//! - `memory_mib` (64): per agent instance; a Rust agent needs about 1 MiB, an interpreted one
//!   (componentize-py) about 30 MiB. A memory bomb hits this and is faulted.
//! - `log_bytes_per_game` (64 KiB): enough to debug, small enough that thousands of games in
//!   a log file stay readable. Past it the agent is faulted (`log-flood`).
//! - `time_bank_millis` (none): an optional per-game bank on top of the per-decision limit.
//! - `start_fuel` (1 G): `start` may precompute tables once per game.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    pub fuel_per_decision: u64,
    pub millis_per_decision: u32,
    pub memory_mib: u32,
    pub log_bytes_per_game: u32,
    pub time_bank_millis: Option<u32>,
    pub start_fuel: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            fuel_per_decision: 200_000_000,
            millis_per_decision: 2_000,
            memory_mib: 64,
            log_bytes_per_game: 64 * 1024,
            time_bank_millis: None,
            start_fuel: 1_000_000_000,
        }
    }
}

impl Limits {
    pub fn memory_bytes(&self) -> usize {
        (self.memory_mib as usize) << 20
    }
}
