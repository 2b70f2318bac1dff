//! Limits are data: one struct with defaults that the CLI can override and the results record.
//!
//! Threat model: an agent file and the code in it are hostile. Every resource such a file can
//! make the host spend, at load time or at play time, has a limit here, and every limit says
//! why it has the value it has. Figures quoted were measured on the 2-core development
//! machine (`croupier bench`, section "fuel against wall time").
//!
//! Play time, per agent instance:
//! - `fuel_per_decision` (200 M): fuel is the deterministic budget, so a search agent that
//!   plans by it replays bit for bit. Typical agent code runs 3–10 fuel per ns (`croupier
//!   bench --only fuel`: 0.1 ns per fuel for arithmetic, 0.35 for division), so 200 M is
//!   well under a second and room for thousands of Monte Carlo playouts, while a busy loop
//!   ends quickly.
//! - `millis_per_decision` (15 000): the wall-clock backstop for what fuel cannot see (a
//!   guest stuck in slow host calls, a machine under load). Fuel does not bound time: the
//!   worst pattern measured, a pointer chase through a 48 MiB array at 4 operators per
//!   dependent load (a cache and TLB miss each), costs [`WORST_NS_PER_FUEL`] ns per fuel, so
//!   200 M fuel can take 9 s. The deadline is that worst case with a margin of 1.7×, so
//!   that on an idle machine a decision that stays within its fuel never reaches it, and
//!   the wall clock does not decide a game that fuel would not have. (Bulk memory
//!   operations are charged per byte, so they are not worse.)
//! - `game_millis` (60 000): the wall time one agent may spend on all its decisions in one
//!   game. A normal game takes milliseconds; without this an agent that stays just inside
//!   fuel and deadline every decision stretches a 5 ms game to minutes, a thousandfold.
//!   Past it the agent gets `TIMEOUT`. Counted in epoch ticks, so it costs no clock read.
//! - `memory_mib` (64): per agent instance; a Rust agent needs about 1 MiB, an interpreted one
//!   (componentize-py) about 30 MiB. A memory bomb hits this and is faulted.
//! - `log_bytes_per_game` (64 KiB) and `log_lines_per_game` (4096): enough to debug, small
//!   enough that thousands of games in a log file stay readable. Every line is charged
//!   [`LOG_LINE_OVERHEAD`] bytes on top of its text, since an empty line still costs the host
//!   a record; the line cap bounds the number of records whatever their size. Past either
//!   the agent is faulted (`LOG_FLOOD`).
//! - `time_bank_millis` (none): an optional per-game bank on top of the per-decision limit.
//! - `start_fuel` (200 M): instantiation and `start`, once per game, get the same budget as a
//!   decision, so the same deadline covers them with the same margin (it was 1 G, which at
//!   the worst rate could outlast the deadline). Their time counts against `game_millis`.
//!
//! Load time, per agent file (compiling is not covered by wasmtime's security model: a small
//! file can make Cranelift spend minutes and gigabytes, so it runs in a child process under
//! these limits, see [`crate::loader`]):
//! - `max_file_bytes` (32 MiB): the largest real agents are interpreted ones, 12 MB (JS) and
//!   18 MB (Python); a Rust agent is about 100 KB.
//! - `compile_cpu_seconds` (60): CPU time of the compiling child. The Python agent (18 MB)
//!   takes about 20 s of CPU on a loaded 2-core machine; a Rust agent 0.1 s. A compile bomb
//!   is stopped here (a 1.3 KB file of nested instantiations doubles its compile time and
//!   memory with every level). The child's wall clock is capped at twice this plus 5 s, for
//!   a loaded machine.
//! - `compile_memory_mib` (4096): address space of the compiling child. Compiling the Python
//!   agent peaks at 800 MB resident.

use serde::{Deserialize, Serialize};

/// The worst wall time per unit of fuel measured on the 2-core development machine
/// (`croupier bench --only fuel`, pointer chase, median of 7: 44.7 ns). The default deadline
/// is checked against it in a test.
pub const WORST_NS_PER_FUEL: f64 = 45.0;

/// Bytes every logged line is charged on top of its text: what a stored line costs the host
/// beyond its characters (its level and record), so that empty lines are not free.
pub const LOG_LINE_OVERHEAD: usize = 16;

/// Every limit an agent runs under; see the module documentation for each default.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Fuel (roughly, WebAssembly instructions) per decision.
    pub fuel_per_decision: u64,
    /// Wall-clock milliseconds per decision.
    pub millis_per_decision: u32,
    /// Memory per agent instance, in MiB.
    pub memory_mib: u32,
    /// Log bytes per agent per game, each line charged [`LOG_LINE_OVERHEAD`] extra.
    pub log_bytes_per_game: u32,
    /// Log lines per agent per game.
    #[serde(default = "default_log_lines")]
    pub log_lines_per_game: u32,
    /// An optional per-game time bank on top of the per-decision limit.
    pub time_bank_millis: Option<u32>,
    /// Fuel for instantiation and `start`.
    pub start_fuel: u64,
    /// Wall-clock milliseconds one agent may spend on all its decisions in one game.
    #[serde(default = "default_game_millis")]
    pub game_millis: u32,
    /// The largest agent file accepted, in bytes.
    #[serde(default = "default_max_file_bytes")]
    pub max_file_bytes: u64,
    /// CPU seconds the compiling child process may use.
    #[serde(default = "default_compile_cpu_seconds")]
    pub compile_cpu_seconds: u32,
    /// Address space of the compiling child process, in MiB.
    #[serde(default = "default_compile_memory_mib")]
    pub compile_memory_mib: u32,
}

fn default_log_lines() -> u32 {
    Limits::default().log_lines_per_game
}
fn default_game_millis() -> u32 {
    Limits::default().game_millis
}
fn default_max_file_bytes() -> u64 {
    Limits::default().max_file_bytes
}
fn default_compile_cpu_seconds() -> u32 {
    Limits::default().compile_cpu_seconds
}
fn default_compile_memory_mib() -> u32 {
    Limits::default().compile_memory_mib
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            fuel_per_decision: 200_000_000,
            millis_per_decision: 15_000,
            memory_mib: 64,
            log_bytes_per_game: 64 * 1024,
            log_lines_per_game: 4096,
            time_bank_millis: None,
            start_fuel: 200_000_000,
            game_millis: 60_000,
            max_file_bytes: 32 << 20,
            compile_cpu_seconds: 60,
            compile_memory_mib: 4096,
        }
    }
}

impl Limits {
    /// The per-instance memory limit in bytes.
    pub fn memory_bytes(&self) -> usize {
        (self.memory_mib as usize) << 20
    }

    /// The compiling child's wall-clock limit: twice its CPU limit plus 5 s, so that a
    /// loaded machine does not refuse a file an idle one accepts.
    pub fn compile_wall(&self) -> std::time::Duration {
        std::time::Duration::from_secs(u64::from(self.compile_cpu_seconds) * 2 + 5)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reasoning above, held: a whole fuel budget at the worst measured rate fits the
    /// default deadline with a margin of at least 1.5×, and the game budget holds several
    /// such decisions.
    #[test]
    fn the_deadline_covers_the_slowest_fuel() {
        let l = Limits::default();
        let worst_ms = l.fuel_per_decision as f64 * WORST_NS_PER_FUEL / 1e6;
        assert!(
            f64::from(l.millis_per_decision) >= 1.5 * worst_ms,
            "{worst_ms} ms"
        );
        assert!(
            l.start_fuel <= l.fuel_per_decision,
            "start has the same deadline"
        );
        assert!(l.game_millis >= 4 * l.millis_per_decision);
        assert!(LOG_LINE_OVERHEAD > 0 && l.log_lines_per_game > 0);
    }
}
