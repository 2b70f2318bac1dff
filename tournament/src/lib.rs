#![deny(missing_docs)]
//! # croupier-tournament
//!
//! Matches and tournaments between agents, as a library that the command line, tests and
//! the arena call directly: schedules with seat rotation and duplicate deals, the parallel
//! runner ([`runner`], seating its agents through [`seating`]), game records and the log
//! format with resume, and matches and round robins from plain arguments
//! ([`matches::MatchArgs`] to [`matches::run_match`], in [`matches`](mod@matches)), shards
//! of a match and putting them back together ([`merge`]), a compact form of a game record
//! for stores of millions of games ([`compact`]), replay documents for each viewer and the
//! browser viewer ([`replay`]), a person's seat in a game played move by move ([`human`]),
//! hot swap ([`watch`]), and honest statistics ([`stats`]).
//!
//! Determinism: game `i` of a match depends only on the master seed and `i` (its deal, its
//! seat rotation and every agent's random stream), so a match gives the same records and the
//! same log whatever the number of threads, and any subset of its games can be played apart.
//! Agents run in `croupier-host`'s sandbox; nothing here prints.

pub mod compact;
pub mod human;
pub mod matches;
pub mod merge;
pub mod replay;
pub mod runner;
pub mod seating;
pub mod shard;
pub mod stats;
pub mod watch;

#[doc(hidden)]
pub mod __games {
    pub use croupier_host::loader::GameKind;
    pub use croupier_rules::{durak::Durak, toepen::Toepen, uno::Uno};
}

/// Runs `$body` with `$G` the rules type of `$kind` (a `GameKind`): the one place that
/// lists the games, so a new game never edits a command or a handler.
#[macro_export]
macro_rules! with_game {
    ($kind:expr, $G:ident => $body:expr) => {
        match $kind {
            $crate::__games::GameKind::Durak => {
                type $G = $crate::__games::Durak;
                $body
            }
            $crate::__games::GameKind::Toepen => {
                type $G = $crate::__games::Toepen;
                $body
            }
            $crate::__games::GameKind::Uno => {
                type $G = $crate::__games::Uno;
                $body
            }
        }
    };
}
