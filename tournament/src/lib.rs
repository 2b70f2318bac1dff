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
//! browser viewer ([`replay`]), each game as people see it ([`games`]: tables, text, names,
//! templates), a person's seat in a game played move by move ([`human`]), hot swap
//! ([`watch`]), honest statistics ([`stats`]), and bosses, the statement of how an agent
//! fares against a fixed one, counted per deal ([`bosses`]).
//!
//! Determinism: game `i` of a match depends only on the master seed and `i` (its deal, its
//! seat rotation and every agent's random stream), so a match gives the same records and the
//! same log whatever the number of threads, and any subset of its games can be played apart.
//! Agents run in `croupier-host`'s sandbox; nothing here prints.

pub mod bosses;
pub mod compact;
pub mod games;
pub mod human;
pub mod matches;
pub mod merge;
pub mod replay;
pub mod runner;
pub mod seating;
pub mod shard;
pub mod stats;
pub mod watch;
