//! The errors of a match, shared by every file of `matches`: a leaf, so that no file
//! imports another only to name its errors.

/// An error the user can fix (bad agent, preset, option, file): printed as one line, exit 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UserError(pub String);

/// A [`UserError`] as an `anyhow::Error`.
pub fn user(msg: impl Into<String>) -> anyhow::Error {
    UserError(msg.into()).into()
}

/// Why a match (`run_match`, `run_match_with`) did not run to the end.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// Something the caller can fix and should be told in one line: an agent that does not
    /// load or is for another game, an unknown preset or option, a log that cannot be opened,
    /// `resume` without an earlier run.
    #[error(transparent)]
    User(#[from] UserError),
    /// Anything else: the log could not be written, a rules engine failed, a thread panicked.
    #[error(transparent)]
    Run(anyhow::Error),
}

impl From<anyhow::Error> for MatchError {
    fn from(e: anyhow::Error) -> MatchError {
        // The runner reports fixable errors as `UserError`s inside `anyhow`; they get their
        // own variant so that a caller can match on them instead of downcasting.
        match e.downcast::<UserError>() {
            Ok(u) => MatchError::User(u),
            Err(e) => MatchError::Run(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_errors_keep_their_own_variant() {
        let e = MatchError::from(user("--rules: unknown preset `x`"));
        assert!(matches!(&e, MatchError::User(_)), "{e:?}");
        assert_eq!(e.to_string(), "--rules: unknown preset `x`");
        // Context added on the way up does not hide that the caller can fix it.
        let e = MatchError::from(user("bad agent").context("loading"));
        assert!(matches!(e, MatchError::User(_)), "{e:?}");
        let e = MatchError::from(anyhow::anyhow!("disk full"));
        assert!(matches!(e, MatchError::Run(_)), "{e:?}");
    }
}
