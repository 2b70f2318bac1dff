//! Typed verdicts: how an agent failed. Every failure is the agent's, never the host's.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why an agent was faulted in a game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verdict {
    /// The wall-clock limit for a decision (or the game's time bank) ran out.
    Timeout,
    /// The per-decision fuel budget ran out (a busy loop, or too much search).
    OutOfFuel,
    /// The agent tried to grow its memory past the limit.
    Memory,
    /// The agent's call stack overflowed.
    StackOverflow,
    /// Any other trap: a panic, an abort, `unreachable`, an out-of-bounds access.
    Trap,
    /// The action decodes but is not legal now (e.g. a card the agent does not hold).
    IllegalAction,
    /// The action code names no action of this game.
    MalformedAction,
    /// The agent logged more than its per-game budget.
    LogFlood,
}

impl Verdict {
    /// Every verdict, in a fixed order.
    pub const ALL: [Verdict; 8] = [
        Verdict::Timeout,
        Verdict::OutOfFuel,
        Verdict::Memory,
        Verdict::StackOverflow,
        Verdict::Trap,
        Verdict::IllegalAction,
        Verdict::MalformedAction,
        Verdict::LogFlood,
    ];

    /// The verdict's name as shown and recorded, e.g. `OUT_OF_FUEL`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Timeout => "TIMEOUT",
            Verdict::OutOfFuel => "OUT_OF_FUEL",
            Verdict::Memory => "MEMORY",
            Verdict::StackOverflow => "STACK_OVERFLOW",
            Verdict::Trap => "TRAP",
            Verdict::IllegalAction => "ILLEGAL_ACTION",
            Verdict::MalformedAction => "MALFORMED_ACTION",
            Verdict::LogFlood => "LOG_FLOOD",
        }
    }

    /// What the verdict means, for `--help` and the README.
    pub fn meaning(self) -> &'static str {
        match self {
            Verdict::Timeout => "the decision took longer than the wall-clock limit",
            Verdict::OutOfFuel => "the decision used more than its fuel budget",
            Verdict::Memory => "the agent asked for more memory than its limit",
            Verdict::StackOverflow => "the agent overflowed its call stack",
            Verdict::Trap => "the agent trapped: panic, abort, unreachable or a bad memory access",
            Verdict::IllegalAction => "the agent chose an action that is not legal now",
            Verdict::MalformedAction => "the agent's answer is not an action of this game",
            Verdict::LogFlood => "the agent logged more than its per-game budget",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A verdict with the details that explain it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// What kind of fault.
    pub verdict: Verdict,
    /// What happened, in one line.
    pub message: String,
}

impl Fault {
    /// A fault of kind `verdict` with its explanation.
    pub fn new(verdict: Verdict, message: impl Into<String>) -> Fault {
        Fault {
            verdict,
            message: message.into(),
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.verdict, self.message)
    }
}
