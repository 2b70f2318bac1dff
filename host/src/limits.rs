//! Limits are data: one struct with defaults that the CLI can override and the results record.
//!
//! Threat model: an agent file and the code in it are hostile. Every resource such a file can
//! make the host spend, at load time or at play time, has a limit here, and every limit says
//! why it has the value it has. Figures quoted were measured on the 2-core development
//! machine (`croupier bench`, section "fuel against wall time").
//!
//! Play time, per agent instance:
//! - `fuel_per_decision` (200 M): fuel is the deterministic budget, so a search agent that
//!   plans by it replays bit for bit. Typical Rust agent code runs 1–3 fuel per ns (0.1 s for
//!   200 M), room for a few thousand Monte Carlo playouts, while a busy loop ends quickly.
//! - `millis_per_decision` (10 000): the wall-clock backstop for what fuel cannot see (a guest
//!   stuck in slow host calls, a machine under load). Fuel does not bound time: the worst
//!   pattern measured, pointer chasing through a 48 MiB array, costs about 30 ns per fuel
//!   (a cache and TLB miss every few instructions), so 200 M fuel can take 6 s. The deadline
//!   is set above that worst case with a margin of 1.6×, so that on an idle machine a
//!   decision that stays within its fuel never reaches it, and the wall clock never decides
//!   a game that fuel would not have.
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
//! - `start_fuel` (1 G): `start` may precompute tables once per game.
//!
//! Load time, per agent file (compiling is not covered by wasmtime's security model: a small
//! file can make Cranelift spend minutes and gigabytes, so it runs in a child process under
//! these limits, see [`crate::loader`]):
//! - `max_file_bytes` (32 MiB): the largest real agents are interpreted ones, 12 MB (JS) and
//!   18 MB (Python); a Rust agent is about 100 KB.
//! - `compile_cpu_seconds` (60): CPU time of the compiling child. The Python agent (18 MB)
//!   takes about 12 s of CPU; a compile bomb is stopped here. The child's wall clock is
//!   capped at twice this plus 5 s, for a loaded machine.
//! - `compile_memory_mib` (4096): address space of the compiling child. Compiling the Python
//!   agent peaks near 1 GiB.

use serde::{Deserialize, Serialize};

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
            millis_per_decision: 10_000,
            memory_mib: 64,
            log_bytes_per_game: 64 * 1024,
            log_lines_per_game: 4096,
            time_bank_millis: None,
            start_fuel: 1_000_000_000,
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
