//! What a person sees when a command fails. An error they can fix (a bad agent, preset, flag
//! or file) is a [`UserError`]: one line, exit 2. The libraries name a setting by its field
//! (`rules`, `set`, `resume`); here it becomes the flag the person typed (`--rules`, `--set`,
//! `--resume`), since only the command line knows its flags.

use croupier_tournament::matches::error::{MatchError, OptionsError};

/// An error the user can fix (bad agent, preset, option, file): printed as one line, exit 2.
#[derive(Debug)]
pub struct UserError(pub String);

impl std::fmt::Display for UserError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UserError {}

/// A [`UserError`] as an `anyhow::Error`.
pub fn user(msg: impl Into<String>) -> anyhow::Error {
    UserError(msg.into()).into()
}

/// Rule settings that make no options, in the flags' words.
pub fn of_options(e: OptionsError) -> anyhow::Error {
    user(options_text(&e))
}

/// A match or tournament that stopped, in the flags' words. Every variant is decided here,
/// so a new one cannot reach a person in the library's words by accident.
pub fn of_match(e: MatchError) -> anyhow::Error {
    let text = match &e {
        MatchError::Options(o) => options_text(o),
        // clap asks for at least one AGENT; a library caller may not.
        MatchError::NoAgents => "give at least one AGENT".into(),
        MatchError::TooFewAgents { .. } => "a tournament needs at least two agents".into(),
        MatchError::ResumeWithoutLog => "--resume needs --log FILE".into(),
        MatchError::NothingToResume { path } => format!(
            "{}: --resume found no earlier run of this match (same game, rules, seed, games, agents and shard)",
            path.display()
        ),
        // These name the agent, the log file or the game, as a person reads them.
        MatchError::Entrant(_) | MatchError::OpenLog { .. } | MatchError::Log(_) => e.to_string(),
        // Not the person's doing: the host, the disk, a bug. One line all the same.
        MatchError::WriteLog { .. }
        | MatchError::Host(_)
        | MatchError::Panicked
        | MatchError::Pairings { .. } => return anyhow::Error::new(e),
    };
    user(text)
}

fn options_text(e: &OptionsError) -> String {
    match e {
        OptionsError::Rules(why) => format!("--rules: {why}"),
        OptionsError::Players(why) => format!("--players: {why}"),
        OptionsError::SetSyntax(item) => format!("--set `{item}`: expected NAME=VALUE"),
        OptionsError::Set(why) => format!("--set: {why}"),
        // About the preset and the settings together, named by the preset.
        OptionsError::Invalid { .. } | OptionsError::NoPresets => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The text a person sees, and that it is a user error (one line, exit 2) or not.
    fn shown(e: anyhow::Error) -> (String, bool) {
        (format!("{e:#}"), e.downcast_ref::<UserError>().is_some())
    }

    /// Each setting the library names by its field is shown by its flag.
    #[test]
    fn fields_are_shown_as_flags() {
        for (e, text) in [
            (
                OptionsError::Rules("unknown preset `x`".into()),
                "--rules: unknown preset `x`",
            ),
            (OptionsError::Players("7".into()), "--players: 7"),
            (
                OptionsError::SetSyntax("transfer".into()),
                "--set `transfer`: expected NAME=VALUE",
            ),
            (
                OptionsError::Set("unknown option `colour`".into()),
                "--set: unknown option `colour`",
            ),
        ] {
            assert_eq!(shown(of_options(e.clone())), (text.to_string(), true));
            assert_eq!(shown(of_match(e.into())), (text.to_string(), true));
        }
        let path = PathBuf::from("m.jsonl");
        assert_eq!(
            shown(of_match(MatchError::ResumeWithoutLog)).0,
            "--resume needs --log FILE"
        );
        assert!(
            shown(of_match(MatchError::NothingToResume { path }))
                .0
                .starts_with("m.jsonl: --resume found no earlier run")
        );
        assert_eq!(
            shown(of_match(MatchError::TooFewAgents { given: 1 })).0,
            "a tournament needs at least two agents"
        );
    }

    /// What is not the person's doing is still one line, and not called theirs.
    #[test]
    fn a_failure_is_one_line_and_not_a_user_error() {
        let e = MatchError::WriteLog {
            path: PathBuf::from("m.jsonl"),
            error: std::io::Error::other("disk full"),
        };
        assert_eq!(
            shown(of_match(e)),
            (
                "m.jsonl: cannot write the log: disk full".to_string(),
                false
            )
        );
    }
}
