//! The interfaces every game implements, so that the host, the match runner, the soak
//! checker and the property tests are written once (docs/rules/README.md#engine-requirements).
//!
//! They are split the way OpenSpiel splits `Game` from `State`, by what a caller holds:
//!
//! * [`Rules`], implemented by each game's `Options` type: what a game *is* before a card is
//!   dealt (presets, options as text, validation, seats). Option text is parsed where there is
//!   no state yet (the CLI, logs, the contract's `game-info`), so these are methods of the
//!   options themselves; each game writes them once in its `options.rs` and nothing forwards.
//! * [`Game`], implemented by each game's state type: what a state *does* (whose turn it is,
//!   legal actions, apply, observe, outcome, events, determinize) plus the action codes of the
//!   WIT contract. The action type lives here, so its encoding does too; `Game::Options`
//!   links a state to its rules.
//! * [`Checkable`], a sub-trait of [`Game`]: the hooks only the invariant checker and the
//!   tests call (the action space, the invariants, the re-deal of hidden cards). Agents, the
//!   host and the match runner bound on [`Game`] alone, so they cannot come to rely on them.

use crate::cards::Seat;
use crate::rng::GameRng;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::{Debug, Display};
use std::hash::Hash;
use std::str::FromStr;

/// Who may see an event (docs/rules/README.md#engine-requirements).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Visibility {
    /// Every seat and every spectator.
    Public,
    /// Only the seats whose bit is set (bit `s` = seat `s`).
    Seats(u16),
}

impl Visibility {
    /// Visible to `seat` only.
    pub fn only(seat: Seat) -> Visibility {
        Visibility::Seats(1 << seat)
    }
    /// Whether a seat may see an event with this tag.
    pub fn visible_to(self, seat: Seat) -> bool {
        match self {
            Visibility::Public => true,
            Visibility::Seats(m) => m & (1 << seat) != 0,
        }
    }
    /// Whether every seat (and a spectator) may see it.
    pub fn is_public(self) -> bool {
        matches!(self, Visibility::Public)
    }
}

/// An event with its visibility tag.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Logged<E> {
    /// Who may see the event.
    pub vis: Visibility,
    /// The event itself.
    pub event: E,
}

/// A seat's result in a finished game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SeatResult {
    /// The seat won (in Durak: did not end as the durak, or its team went out first).
    Win,
    /// The seat lost.
    Loss,
    /// Neither: a drawn game, a shared win (UNO ties), or an aborted game (every seat).
    Draw,
}

/// The result of a finished game, in a form every game shares.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// One entry per seat.
    pub results: Vec<SeatResult>,
    /// Game-specific figures per seat: Toepen penalty points, UNO points, and in Durak the
    /// finishing place (1 = went out first; seats still holding cards get the last place).
    pub scores: Vec<i64>,
    /// True when the engine's own safety limit (turns, rounds) ended the game, not a rule.
    pub aborted: bool,
    /// One line for people, e.g. "P1 is the durak" or "team 0 wins".
    pub summary: String,
}

/// Why an option set or preset was refused. Always names the option.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// [`Rules::preset`] or [`find_preset`] got a name that is no preset of the game.
    #[error("unknown preset `{name}` for {game}; known presets: {known}")]
    UnknownPreset {
        /// Lower-case game name, e.g. `durak`.
        game: &'static str,
        /// The name as given.
        name: String,
        /// The user-facing names of the game's presets, comma-separated.
        known: String,
    },
    /// [`Rules::set_option`] got a key that is no option of the game.
    #[error("unknown option `{name}` for {game}; known options: {known}")]
    UnknownOption {
        /// Lower-case game name, e.g. `toepen`.
        game: &'static str,
        /// The key that names no option.
        name: String,
        /// The game's option names, comma-separated.
        known: String,
    },
    /// A known option got a value that does not parse as its type (a word that is no choice,
    /// a number too large for the field).
    #[error("option `{option}`: `{value}` is not valid: {why}")]
    BadValue {
        /// The option's name.
        option: String,
        /// The value as given.
        value: String,
        /// What was expected, e.g. `expected true or false`.
        why: String,
    },
    /// The values parse but break a rule on the options ([`Rules::validate`]; a player count
    /// in a preset's parentheses that the game does not allow).
    #[error("option `{option}`: {why}")]
    Invalid {
        /// The option named (for a bad combination, one of the options involved).
        option: String,
        /// What is wrong, e.g. `must be at least 1`.
        why: String,
    },
}

impl ConfigError {
    /// A [`ConfigError::Invalid`] for `option`.
    pub fn invalid(option: &str, why: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            option: option.to_string(),
            why: why.into(),
        }
    }
    /// A [`ConfigError::BadValue`] for `option` and its `value`.
    pub fn bad_value(option: &str, value: &str, why: impl Into<String>) -> ConfigError {
        ConfigError::BadValue {
            option: option.to_string(),
            value: value.to_string(),
            why: why.into(),
        }
    }
}

/// Why an action was refused; the state is unchanged. It holds the action and the game's own
/// typed reason, and no text: the soak checker provokes a hundred refusals or more in every
/// state it checks, and formatting them was most of its cost. The text is made only when the
/// error is displayed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal action {action}: {why}")]
pub struct IllegalAction<A, W> {
    /// The refused action, as given.
    pub action: A,
    /// The game's reason (its `Why` type); `Display` gives the sentence for players.
    pub why: W,
}

/// The refusal type of game `G`.
pub type Refusal<G> = IllegalAction<<G as Game>::Action, <G as Game>::Why>;

/// A named option set (the presets of docs/rules/, e.g. docs/rules/durak.md#presets); user-facing
/// names drop the game prefix.
#[derive(Copy, Clone, Debug)]
pub struct Preset {
    /// e.g. `teams`, `plain`, `house`, `two-player`.
    pub name: &'static str,
    /// The rule book's constructor, e.g. `durak_teams()`.
    pub rulebook: &'static str,
    /// One line on what the preset plays, for `--help` and listings.
    pub summary: &'static str,
}

/// What a game is before a card is dealt: its presets, its options as text and their
/// validation, and its seats. Implemented by each game's `Options` type (OpenSpiel's `Game`
/// with its parameters); the state is [`Game`].
pub trait Rules:
    Clone + Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync + Sized + 'static
{
    /// Every preset; the first is the default.
    fn presets() -> &'static [Preset];
    /// Options of a preset by its user-facing name (`teams`) or rule-book name (`durak_teams`).
    fn preset(name: &str) -> Result<Self, ConfigError>;
    /// Sets one option from text (`transfer=true`, `deck=52`), naming the option on error.
    fn set_option(&mut self, key: &str, value: &str) -> Result<(), ConfigError>;
    /// Every option as `(name, value)` text, such that `set_option` on a default set rebuilds it.
    fn option_pairs(&self) -> Vec<(String, String)>;
    /// Rejects impossible combinations, naming the option and why.
    fn validate(&self) -> Result<(), ConfigError>;
    /// Seats at the table for these options.
    fn seats(&self) -> usize;
    /// Sets the number of players (the CLI's `--players`), naming the option on error.
    fn set_players(&mut self, n: usize) -> Result<(), ConfigError>;

    /// Rebuilds rule options from `(name, value)` pairs, starting from the game's first preset
    /// (how logs and contract 0.1.0 carry them). The error names the option that did not parse.
    fn from_pairs(pairs: &[(String, String)]) -> Result<Self, ConfigError> {
        let first = Self::presets()
            .first()
            .ok_or_else(|| ConfigError::invalid("rules", "the game has no presets"))?;
        Self::from_preset(first.name, pairs)
    }

    /// Rule options from a preset name and the options that differ from it (contract 0.2.0's
    /// `game-info`).
    fn from_preset(preset: &str, overrides: &[(String, String)]) -> Result<Self, ConfigError> {
        let mut opts = Self::preset(preset)?;
        for (k, v) in overrides {
            opts.set_option(k, v)?;
        }
        Ok(opts)
    }
}

/// A card game's state as the host sees it: whose decision it is, legal actions, apply,
/// outcome, events and per-seat observations (OpenSpiel's `State`). Implementations are pure:
/// no I/O, and every random choice comes from the state's own [`GameRng`].
pub trait Game: Clone + Debug + PartialEq + Send + Sync + 'static {
    /// The rule options this game is dealt with; presets and option text are theirs.
    type Options: Rules;
    /// One decision of the player to act.
    type Action: Copy
        + Debug
        + Display
        + FromStr
        + Eq
        + Hash
        + Serialize
        + DeserializeOwned
        + Send
        + Sync
        + 'static;
    /// What one seat may know.
    type Observation: Clone + Debug + PartialEq + Serialize + Send;
    /// One thing that happened, as logged and shown.
    type Event: Clone + Debug + Display + PartialEq + Serialize + Send + Sync;
    /// Why an action is refused: a small value, formatted only when shown.
    type Why: Clone + Debug + Display + PartialEq + Send + Sync + 'static;

    /// Lower-case game name: `durak`, `toepen`, `uno`.
    const NAME: &'static str;

    /// Deals a new game. Validates the options first.
    fn new(opts: &Self::Options, seed: u64) -> Result<Self, ConfigError>;
    /// The options this game was dealt with.
    fn options(&self) -> &Self::Options;
    /// Seats at the table.
    fn num_players(&self) -> usize;
    /// The player who must decide now, or `None` once the game is over. Forced steps
    /// (refills, penalty draws, end of bout) are applied inside `apply`, so a game that is not
    /// over always has a decision pending.
    fn to_act(&self) -> Option<Seat>;
    /// Exactly the legal actions of `to_act`, appended to `out` (cleared first).
    fn legal_actions(&self, out: &mut Vec<Self::Action>);
    /// Applies one action of `to_act`; an illegal action is an error and changes nothing.
    fn apply(&mut self, action: Self::Action) -> Result<(), Refusal<Self>>;
    /// The result, once the game is over.
    fn outcome(&self) -> Option<&Outcome>;
    /// Everything seat `seat` may know now, including the perfect-memory derived knowledge.
    fn observe(&self, seat: Seat) -> Self::Observation;
    /// Every event so far with its visibility.
    fn events(&self) -> &[Logged<Self::Event>];
    /// Builds a full game state consistent with `obs` (one "determinization"): hidden cards
    /// are dealt at random among the places they could be, respecting every public count and
    /// every certain inference (known cards, voids). Search agents simulate from it. The
    /// result's `observe(obs.seat)` equals `obs`; its event log starts empty.
    fn determinize(opts: &Self::Options, obs: &Self::Observation, rng: &mut GameRng) -> Self;
    /// Forgets the events so far and records no more, in this state and its copies: for
    /// simulations (search playouts) that never read `events()`, where recording cost Durak's
    /// search agent about a tenth of its time. Play, observations and outcomes are
    /// unchanged, except that an engine may leave the outcome's `summary` text empty (UNO
    /// does: building its texts was a tenth of a playout). The default keeps recording (for
    /// engines without the switch).
    fn record_no_events(&mut self) {}

    /// The team of `seat` in a team game (`None` in individual play). The host uses it to
    /// score a forfeit against a whole team.
    fn team_of(&self, _seat: Seat) -> Option<u8> {
        None
    }

    /// Compact `u32` code of an action (the WIT contract's encoding).
    fn encode_action(action: Self::Action) -> u32;
    /// Inverse of `encode_action`; `None` for a code that names no action.
    fn decode_action(code: u32) -> Option<Self::Action>;
}

/// The hooks of the invariant checker ([`crate::check`]) and the property tests: nothing a
/// player or the host needs, so kept out of [`Game`].
pub trait Checkable: Game {
    /// A superset of every action that could ever be legal in this state: used by the tests
    /// to check that `legal_actions` is exact (everything else must be rejected).
    fn action_space(&self) -> Vec<Self::Action>;
    /// Internal consistency: every card is in exactly one zone, counts agree, etc.
    fn check_invariants(&self) -> Result<(), String>;
    /// Re-deals every card that `seat` cannot see (other hands' unknown cards, face-down
    /// piles) uniformly among the places they could be, keeping every public count and every
    /// card `seat` knows the location of. The checker uses it to prove that an observation
    /// leaks no hidden card (the observation of `seat` must not change).
    fn shuffle_hidden(&mut self, seat: Seat, rng: &mut GameRng);
}

/// Parses a boolean option value (`true/false`, `yes/no`, `on/off`, `1/0`).
pub fn parse_bool(option: &str, value: &str) -> Result<bool, ConfigError> {
    let is = |words: &[&str]| words.iter().any(|w| value.eq_ignore_ascii_case(w));
    match () {
        _ if is(&["true", "yes", "on", "1"]) => Ok(true),
        _ if is(&["false", "no", "off", "0"]) => Ok(false),
        _ => Err(ConfigError::bad_value(
            option,
            value,
            "expected true or false",
        )),
    }
}

/// An option name in canonical form (`hand_size` for `Hand-Size`). Borrowed when it already
/// is canonical, as the host sends it, because every agent parses the options every game.
pub fn option_key(key: &str) -> std::borrow::Cow<'_, str> {
    let k = key.trim();
    if k.bytes().any(|b| b == b'-' || b.is_ascii_uppercase()) {
        std::borrow::Cow::Owned(k.to_ascii_lowercase().replace('-', "_"))
    } else {
        std::borrow::Cow::Borrowed(k)
    }
}

/// Parses a number option value.
pub fn parse_num<T: FromStr>(option: &str, value: &str) -> Result<T, ConfigError> {
    value
        .trim()
        .parse::<T>()
        .map_err(|_| ConfigError::bad_value(option, value, "expected a whole number"))
}

/// Parses an optional number: `none` or a number.
pub fn parse_opt_num<T: FromStr>(option: &str, value: &str) -> Result<Option<T>, ConfigError> {
    if value.eq_ignore_ascii_case("none") {
        Ok(None)
    } else {
        parse_num(option, value).map(Some)
    }
}

/// Parses an enum option value: matches `value` against `choices` (case-insensitive,
/// dashes, underscores and case ignored, so `all-opponents`, `AllOpponents` and
/// `all_opponents` are the same).
pub fn parse_choice<T: Copy>(
    option: &str,
    value: &str,
    choices: &[(&str, T)],
) -> Result<T, ConfigError> {
    // Compared without allocating: every agent parses the options at the start of every game.
    // Choice names are ASCII, so ASCII case folding is enough; the exact match comes first
    // because the host sends the names as written here.
    fn key(s: &str) -> impl Iterator<Item = u8> + '_ {
        s.bytes()
            .filter(|c| *c != b'-' && *c != b'_')
            .map(|c| c.to_ascii_lowercase())
    }
    let same = |a: &str, b: &str| a == b || key(a).eq(key(b));
    for (name, t) in choices {
        if same(name, value) {
            return Ok(*t);
        }
    }
    let known: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
    Err(ConfigError::bad_value(
        option,
        value,
        format!("expected one of {}", known.join(", ")),
    ))
}

/// Looks a preset up by user-facing name (`teams`) or rule-book name (`durak_teams`,
/// `durak_teams()`, `toepen_standard(n)`); case, dashes and underscores do not matter.
pub fn find_preset(
    game: &'static str,
    presets: &[Preset],
    name: &str,
) -> Result<usize, ConfigError> {
    fn norm(s: &str) -> String {
        let base = s.split('(').next().unwrap_or(s);
        base.trim().to_ascii_lowercase().replace('_', "-")
    }
    let n = norm(name);
    presets
        .iter()
        .position(|p| norm(p.name) == n || norm(p.rulebook) == n)
        .ok_or_else(|| ConfigError::UnknownPreset {
            game,
            name: name.to_string(),
            known: presets
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", "),
        })
}
