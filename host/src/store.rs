//! What one agent's store holds: its memory limiter, its bounded log and its seeded random
//! stream. A leaf below the contract bindings (which implement the host interface on
//! [`StoreData`]) and the sandbox (which makes a store per agent per game).

use crate::limits::{LOG_LINE_OVERHEAD, Limits};
use crate::text::escape;
use croupier_rules::GameRng;
use serde::{Deserialize, Serialize};
use wasmtime::ResourceLimiter;

/// One line an agent logged, already escaped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    /// The level: `error`, `warn`, `info` or `debug`.
    pub level: String,
    /// The message, cut to what the budget allowed and escaped.
    pub text: String,
    /// When it was logged: 0 in `start`, `k` during the agent's `k`-th decision (forced moves
    /// are not decisions). `None` in logs written before this was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<u32>,
}

/// The per-game log of one agent, bounded in bytes and in lines.
#[derive(Debug, Default)]
pub struct AgentLog {
    /// The lines kept so far, escaped.
    pub lines: Vec<LogLine>,
    used: usize,
    budget: usize,
    /// Lines charged so far (`lines` may have been taken out).
    count: usize,
    max_lines: usize,
    /// The agent tried to log past its budget.
    pub flooded: bool,
    /// The decision under way (0 in `start`), stamped on each line as [`LogLine::at`] so a
    /// replay can show a line beside the move it explains. Set by the caller before each
    /// decision: one store write per decision, nothing per line beyond the copy.
    pub decision: u32,
}

impl AgentLog {
    /// A log that holds at most `budget` bytes (each line charged
    /// [`LOG_LINE_OVERHEAD`] on top of its text) in at most `max_lines` lines.
    pub fn new(budget: usize, max_lines: usize) -> AgentLog {
        AgentLog {
            budget,
            max_lines,
            ..Default::default()
        }
    }

    /// The log an agent gets under `limits`.
    pub fn for_limits(limits: &Limits) -> AgentLog {
        AgentLog::new(
            limits.log_bytes_per_game as usize,
            limits.log_lines_per_game as usize,
        )
    }

    /// How many bytes of text the next line may still carry: what `log` copies into the
    /// host at most, whatever length the agent passes.
    pub fn room(&self) -> usize {
        self.budget.saturating_sub(self.used + LOG_LINE_OVERHEAD)
    }

    /// Adds a line; `false` (and `flooded`) once the budget would be exceeded.
    pub fn push(&mut self, level: &str, message: &str) -> bool {
        self.push_measured(level, message, message.len())
    }

    /// Adds a line whose text was `len` bytes long, of which `message` holds at most the
    /// first [`AgentLog::room`] bytes (the rest was never copied out of the agent).
    pub fn push_measured(&mut self, level: &str, message: &str, len: usize) -> bool {
        if self.flooded {
            return false;
        }
        // Count the raw bytes plus a fixed cost per line, so that neither escaping nor
        // empty lines smuggle a larger log past the budget.
        let charge = len.saturating_add(LOG_LINE_OVERHEAD);
        if self.count >= self.max_lines || self.used.saturating_add(charge) > self.budget {
            self.flooded = true;
            let mut cut = self.room().min(message.len());
            while !message.is_char_boundary(cut) {
                cut -= 1;
            }
            if cut > 0 && self.count < self.max_lines {
                self.lines.push(LogLine {
                    level: level.to_string(),
                    text: escape(&message[..cut]) + " [truncated]",
                    at: Some(self.decision),
                });
            }
            self.used = self.budget;
            return false;
        }
        self.used += charge;
        self.count += 1;
        self.lines.push(LogLine {
            level: level.to_string(),
            text: escape(message),
            at: Some(self.decision),
        });
        true
    }

    /// Takes the lines out, leaving the counters as they are.
    pub fn take(&mut self) -> Vec<LogLine> {
        std::mem::take(&mut self.lines)
    }

    /// Why the log ended the agent's call.
    pub fn flood_message(&self) -> String {
        if self.count >= self.max_lines {
            format!("logged more than {} lines in one game", self.max_lines)
        } else {
            format!(
                "logged past the budget of {} bytes per game ({} bytes charged per line)",
                self.budget, LOG_LINE_OVERHEAD
            )
        }
    }
}

/// Caps linear memory and tables per store, and remembers a refused growth so that the
/// trap that follows (Rust aborts on allocation failure) is reported as `MEMORY`.
#[derive(Debug)]
pub struct Limiter {
    max_memory: usize,
    /// `(current, desired)` bytes of the first refused growth.
    pub denied: Option<(usize, usize)>,
}

impl Limiter {
    /// The cap on the store's linear memory, in bytes.
    pub fn max_memory(&self) -> usize {
        self.max_memory
    }
}

/// Tables hold function references; generous for any real agent, small against a bomb.
const MAX_TABLE_ELEMENTS: usize = 1 << 20;

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.max_memory {
            self.denied.get_or_insert((current, desired));
            return Ok(false);
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= MAX_TABLE_ELEMENTS)
    }

    fn instances(&self) -> usize {
        64
    }
    fn tables(&self) -> usize {
        64
    }
    fn memories(&self) -> usize {
        8
    }
}

/// What a store holds: the limiter, the log and the agent's seeded random stream.
pub struct StoreData {
    /// Caps the store's memory and tables.
    pub limiter: Limiter,
    /// The agent's log for this game.
    pub log: AgentLog,
    rng: GameRng,
}

impl StoreData {
    /// A store's data for one agent in one game: memory capped and log bounded by `limits`,
    /// `random` seeded from `seed`.
    pub fn new(limits: &Limits, seed: u64) -> StoreData {
        StoreData {
            limiter: Limiter {
                max_memory: limits.memory_bytes(),
                denied: None,
            },
            log: AgentLog::for_limits(limits),
            rng: GameRng::new(seed),
        }
    }

    /// The next number of the agent's `random` stream.
    pub(crate) fn next_random(&mut self) -> u64 {
        self.rng.next_u64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_is_bounded() {
        let mut log = AgentLog::new(10 + 2 * LOG_LINE_OVERHEAD, 100);
        assert!(log.push("info", "12345"));
        assert!(!log.push("info", "abcdefgh"));
        assert!(log.flooded);
        assert_eq!(log.lines.len(), 2);
        assert_eq!(log.lines[1].text, "abcde [truncated]");
        assert!(!log.push("info", "x"));
    }

    /// Regression (hardening finding 2): an empty line is not free.
    #[test]
    fn empty_lines_are_charged_and_counted() {
        let mut log = AgentLog::new(64 * 1024, 1_000_000);
        let mut n = 0;
        while log.push("info", "") {
            n += 1;
        }
        assert_eq!(n, 64 * 1024 / LOG_LINE_OVERHEAD);
        let mut capped = AgentLog::new(1 << 30, 3);
        assert!(capped.push("info", ""));
        assert!(capped.push("info", ""));
        assert!(capped.push("info", ""));
        assert!(!capped.push("info", ""));
        assert!(capped.flood_message().contains("3 lines"));
    }
}
