//! What can go wrong in an environment; every message names what was wrong.

/// An environment refused its arguments or an action. The environment is unchanged.
#[derive(Debug, thiserror::Error)]
pub enum EnvError {
    /// No game of that name.
    #[error("unknown game `{name}`; the games are durak, toepen and uno")]
    UnknownGame {
        /// The name as given.
        name: String,
    },
    /// The preset, the number of seats or a setting does not work for the game.
    #[error("{game}: {reason}")]
    Options {
        /// The game.
        game: &'static str,
        /// What is wrong, naming the option.
        reason: String,
    },
    /// An opponent that cannot play: unknown, not loadable, another game's agent.
    #[error("opponent `{spec}`: {reason}")]
    Opponent {
        /// The opponent as given.
        spec: String,
        /// Why.
        reason: String,
    },
    /// A batch needs at least one opponent, and weights that are finite and not all zero.
    #[error("opponents: {0}")]
    Opponents(String),
    /// A count that must be positive was zero.
    #[error("{0} must be at least 1")]
    Zero(&'static str),
    /// An action array whose length is not the number of environments.
    #[error("actions: expected {expected} actions (one per environment), got {got}")]
    ActionCount {
        /// Environments.
        expected: usize,
        /// Actions given.
        got: usize,
    },
    /// An action that is not legal now (or names no action at all).
    #[error("environment {env}: action {action} is not legal now; the legal actions are {legal:?}")]
    Illegal {
        /// The environment's index in the batch (0 for a single game).
        env: usize,
        /// The action index given.
        action: i64,
        /// The legal action indices.
        legal: Vec<usize>,
    },
    /// A step of a game that is over, or before a reset.
    #[error("the game is over: reset it first")]
    Over,
    /// The sandbox could not be set up.
    #[error("the sandbox: {0}")]
    Host(String),
}
