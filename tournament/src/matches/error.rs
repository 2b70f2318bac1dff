//! The errors of a match, shared by every file of `matches`: a leaf, so that no file
//! imports another only to name its errors.
//!
//! A message names what is wrong by its field ([`RulesArgs`]'s `rules`, `players` and `set`,
//! [`MatchArgs`]'s `agents` and `resume`), by the agent as given or by the log file's path;
//! never by a command-line flag, which is the caller's word for a field (the command line
//! says `--rules`, the arena's config `rules`). Each message is whole on one line with its
//! cause, and no cause is also a `source()`, so that a caller printing the chain prints it
//! once.
//!
//! [`RulesArgs`]: super::setup::RulesArgs
//! [`MatchArgs`]: super::setup::MatchArgs

use crate::runner::HostError;
use croupier_host::loader::LoadError;
use croupier_host::registry::UnknownAgent;
use std::path::PathBuf;

/// Rule settings that do not make options of the game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// The game has no presets to start from (a game's bug, not a setting).
    #[error("the game has no presets")]
    NoPresets,
    /// `rules` names no preset of the game.
    #[error("rules: {0}")]
    Rules(String),
    /// The game cannot have `players` seats.
    #[error("players: {0}")]
    Players(String),
    /// An item of `set` is not `NAME=VALUE`.
    #[error("set `{0}`: expected NAME=VALUE")]
    SetSyntax(String),
    /// An item of `set` names no option of the game, or a value the option cannot take.
    #[error("set: {0}")]
    Set(String),
    /// The settings one by one are fine but not together (too many players for a preset).
    #[error("rules `{preset}`: {reason}")]
    Invalid {
        /// The preset the options started from.
        preset: String,
        /// What the game's validation said.
        reason: String,
    },
}

/// An agent that cannot enter a match. The message names the agent as given, or the file
/// it stands for.
#[derive(Debug, thiserror::Error)]
pub enum EntrantError {
    /// Neither a file nor a built example agent.
    #[error("{0}")]
    Unknown(UnknownAgent),
    /// The file does not load, is another game's agent, or fails its trial run.
    #[error("{0}")]
    Load(LoadError),
}

/// A log that cannot be read back, or cut where an interrupted write tore its last line.
/// Every message starts with the log's path (and the line, from 1, where one is at fault).
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The file could not be read.
    #[error("{path}: cannot read the log: {error}")]
    Read {
        /// The log.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// A line is not JSON.
    #[error("{path}:{line}: not a JSON line: {error}")]
    NotJson {
        /// The log.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What the parser said.
        error: serde_json::Error,
    },
    /// A `match` line is not a header.
    #[error("{path}:{line}: bad match header: {error}")]
    Header {
        /// The log.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What the parser said.
        error: serde_json::Error,
    },
    /// A `game` line is not a game record.
    #[error("{path}:{line}: bad game record: {error}")]
    Game {
        /// The log.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What the parser said.
        error: serde_json::Error,
    },
    /// A game line comes before any header.
    #[error("{path}:{line}: game record before any match header")]
    Orphan {
        /// The log.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
    },
    /// A line is neither a header nor a game.
    #[error("{path}:{line}: unknown line type (expected \"match\" or \"game\")")]
    LineType {
        /// The log.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
    },
    /// The log holds no run.
    #[error("{path}: no match in this log")]
    Empty {
        /// The log.
        path: PathBuf,
    },
    /// The torn last line of an interrupted write could not be cut off.
    #[error("{path}: cannot cut the torn last line: {error}")]
    Cut {
        /// The log.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
}

/// Why a match or a round robin did not run to the end.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// The rule settings.
    #[error(transparent)]
    Options(#[from] OptionsError),
    /// An agent.
    #[error(transparent)]
    Entrant(#[from] EntrantError),
    /// `agents` is empty.
    #[error("agents: none given; a match needs at least one")]
    NoAgents,
    /// A round robin of fewer than two `agents`.
    #[error("agents: a round robin needs at least two, not {given}")]
    TooFewAgents {
        /// How many were given.
        given: usize,
    },
    /// `resume` without a `log` to resume from.
    #[error("resume: needs a log to resume from")]
    ResumeWithoutLog,
    /// `resume`, and the log holds no earlier run of this match.
    #[error(
        "{path}: resume found no earlier run of this match (same game, rules, seed, games, agents and shard)"
    )]
    NothingToResume {
        /// The log.
        path: PathBuf,
    },
    /// The log could not be opened for appending.
    #[error("{path}: cannot open the log: {error}")]
    OpenLog {
        /// The log.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// A line could not be written to the log.
    #[error("{path}: cannot write the log: {error}")]
    WriteLog {
        /// The log.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// The log to resume from could not be read.
    #[error(transparent)]
    Log(#[from] LogError),
    /// The host could not play a game, even after retries.
    #[error(transparent)]
    Host(#[from] HostError),
    /// A worker panicked while saving a result.
    #[error("a match worker panicked while saving a result")]
    Panicked,
    /// A round robin's runs are not one per pairing of its plan.
    #[error("a round robin of {agents} agents has {pairings} pairings, not {runs}")]
    Pairings {
        /// Agents in the round robin.
        agents: usize,
        /// Its pairings.
        pairings: usize,
        /// The runs given.
        runs: usize,
    },
}

impl From<crate::runner::RunError<MatchError>> for MatchError {
    fn from(e: crate::runner::RunError<MatchError>) -> MatchError {
        use crate::runner::RunError;
        match e {
            // The sink is the match's own log writer: its error is already a MatchError.
            RunError::Sink(e) => e,
            RunError::Host(e) => MatchError::Host(e),
            RunError::Panicked => MatchError::Panicked,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A library's message never speaks the command line's language.
    fn no_flag(message: &str) {
        assert!(
            !message.contains("--"),
            "a flag in a library error: {message}"
        );
    }

    /// Each options error about one field starts with that field's name.
    #[test]
    fn options_errors_name_their_field() {
        for (e, field) in [
            (OptionsError::Rules("unknown preset `x`".into()), "rules: "),
            (OptionsError::Players("7 seats".into()), "players: "),
            (
                OptionsError::SetSyntax("transfer".into()),
                "set `transfer`: ",
            ),
            (OptionsError::Set("unknown option `colour`".into()), "set: "),
            (
                OptionsError::Invalid {
                    preset: "teams".into(),
                    reason: "needs 4 players".into(),
                },
                "rules `teams`: ",
            ),
        ] {
            let m = e.to_string();
            assert!(m.starts_with(field), "{m} should start with {field}");
            no_flag(&m);
            // Wrapped in a match error, the message is the same.
            assert_eq!(MatchError::from(e).to_string(), m);
        }
    }

    /// Each match error names its field (`agents`, `resume`) or the log's path.
    #[test]
    fn match_errors_name_their_field_or_file() {
        let path = PathBuf::from("/x/games.jsonl");
        let io = || std::io::Error::other("disk full");
        for (e, start) in [
            (MatchError::NoAgents, "agents: "),
            (MatchError::TooFewAgents { given: 1 }, "agents: "),
            (MatchError::ResumeWithoutLog, "resume: "),
            (
                MatchError::NothingToResume { path: path.clone() },
                "/x/games.jsonl: resume ",
            ),
            (
                MatchError::OpenLog {
                    path: path.clone(),
                    error: io(),
                },
                "/x/games.jsonl: cannot open the log: disk full",
            ),
            (
                MatchError::WriteLog {
                    path: path.clone(),
                    error: io(),
                },
                "/x/games.jsonl: cannot write the log: disk full",
            ),
        ] {
            let m = e.to_string();
            assert!(m.starts_with(start), "{m} should start with {start}");
            no_flag(&m);
            // Whole on one line, with nothing more down the chain to print twice.
            assert!(!m.contains('\n'), "{m}");
            assert!(std::error::Error::source(&e).is_none(), "{m}");
        }
        assert!(
            MatchError::TooFewAgents { given: 1 }
                .to_string()
                .ends_with("not 1")
        );
    }

    /// Each log error starts with the log's path, and the line where one is at fault.
    #[test]
    fn log_errors_name_the_file_and_line() {
        let path = PathBuf::from("runs.jsonl");
        let json = || serde_json::from_str::<u8>("x").expect_err("not JSON");
        for (e, start) in [
            (
                LogError::Read {
                    path: path.clone(),
                    error: std::io::Error::other("gone"),
                },
                "runs.jsonl: cannot read the log: gone",
            ),
            (
                LogError::NotJson {
                    path: path.clone(),
                    line: 3,
                    error: json(),
                },
                "runs.jsonl:3: not a JSON line",
            ),
            (
                LogError::Header {
                    path: path.clone(),
                    line: 1,
                    error: json(),
                },
                "runs.jsonl:1: bad match header",
            ),
            (
                LogError::Game {
                    path: path.clone(),
                    line: 2,
                    error: json(),
                },
                "runs.jsonl:2: bad game record",
            ),
            (
                LogError::Orphan {
                    path: path.clone(),
                    line: 1,
                },
                "runs.jsonl:1: game record before",
            ),
            (
                LogError::LineType {
                    path: path.clone(),
                    line: 4,
                },
                "runs.jsonl:4: unknown line type",
            ),
            (
                LogError::Empty { path: path.clone() },
                "runs.jsonl: no match",
            ),
            (
                LogError::Cut {
                    path: path.clone(),
                    error: std::io::Error::other("read-only"),
                },
                "runs.jsonl: cannot cut",
            ),
        ] {
            let m = e.to_string();
            assert!(m.starts_with(start), "{m} should start with {start}");
            assert!(std::error::Error::source(&e).is_none(), "{m}");
            // The same through a match (resume reads the log).
            assert_eq!(MatchError::from(e).to_string(), m);
        }
    }

    /// A runner's stop becomes the match's error: the sink's own as it was.
    #[test]
    fn a_run_error_keeps_the_sinks_error() {
        use crate::runner::RunError;
        let e = MatchError::from(RunError::Sink(MatchError::ResumeWithoutLog));
        assert!(matches!(e, MatchError::ResumeWithoutLog), "{e:?}");
        let e = MatchError::from(RunError::<MatchError>::Panicked);
        assert!(matches!(e, MatchError::Panicked), "{e:?}");
        let host = HostError {
            index: 3,
            reason: "no slot".into(),
        };
        let e = MatchError::from(RunError::<MatchError>::Host(host));
        assert!(e.to_string().starts_with("game 3: "), "{e}");
    }
}
