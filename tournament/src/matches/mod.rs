//! Matches and tournaments as a library, generic over games. Nothing here prints: progress,
//! pairings and watcher reports go to callbacks, and the caller renders the summaries.
//!
//! One way in: a [`MatchArgs`], plain data that the command line fills from its flags, the
//! arena from its config and a test from a helper, given to [`run_match`] or
//! [`run_match_with`] (or to [`round_robin::run_tournament`]). A builder beside it was a
//! second way to say the same thing, used only by tests.
//!
//! Errors name a setting by its field (`rules`, `set`, `resume`), an agent as given or a log
//! by its path, never by a command-line flag: the caller knows its own words for them.
//!
//! One concern a file, each importing only the files listed before it:
//! - [`error`]: the errors every file returns (a leaf).
//! - [`setup`]: what a match is asked to be ([`MatchArgs`], [`RulesArgs`]) and what it is
//!   set up from: options from a preset and settings, entrants from names or files.
//! - [`log`]: the log format, its header, writing runs and reading a log back.
//! - [`summary`]: a match's totals, counted game by game, and its summary.
//! - `resume`: the earlier run of a match in its log, for `resume`.
//! - [`run`]: playing a match, with its log, resume and summary.
//! - [`round_robin`]: tournaments, every pair of agents a match, and their ranking.
//! - [`bosses`](mod@bosses): every agent against every boss, in duplicate deals.

pub mod bosses;
pub mod error;
pub mod log;
mod resume;
pub mod round_robin;
pub mod run;
pub mod setup;
pub mod summary;

// The entrance, where callers look for it.
pub use run::{run_match, run_match_with};
pub use setup::{MatchArgs, RulesArgs};
