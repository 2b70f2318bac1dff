//! Rule options and presets of docs/rules/toepen.md#options: defaults, presets, `set_option` by the
//! rule book's option names, `option_pairs` and validation.

use super::types::*;
use crate::game::{
    ConfigError, Preset, Rules, find_preset, parse_bool, parse_choice, parse_num, parse_opt_num,
};

const NAME: &str = "toepen";

/// Every preset; the first is the default (docs/rules/toepen.md#options).
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "standard",
        rulebook: "toepen_standard(n)",
        summary: "4 players, knocking, laundry, no poverty, eliminated at 10 (last survivor wins)",
    },
    Preset {
        name: "drinking",
        rulebook: "toepen_drinking(n)",
        summary: "standard, but the game ends when the first player reaches the limit",
    },
    Preset {
        name: "cafe",
        rulebook: "toepen_cafe(n)",
        summary: "standard with poverty (armoede) and a limit of 15",
    },
    Preset {
        name: "plain",
        rulebook: "toepen_plain()",
        summary: "source D: 4 players, no knocking, no laundry, no poverty, limit 10",
    },
];

/// Every option name accepted by `set_option`, in `option_pairs` order.
pub const OPTION_NAMES: &[&str] = &[
    "num_players",
    "limit",
    "game_end",
    "knocking",
    "knock_timing",
    "max_stake",
    "knock_cap_by_score",
    "laundry",
    "laundry_penalty",
    "caught_bluffer_keeps_new_hand",
    "white_laundry",
    "poverty",
    "next_dealer",
    "dealer",
    "max_rounds",
];

const GAME_END: &[(&str, GameEnd)] = &[
    ("LastSurvivor", GameEnd::LastSurvivor),
    ("FirstToLimit", GameEnd::FirstToLimit),
];
const KNOCK_TIMING: &[(&str, KnockTiming)] = &[
    ("OnTurn", KnockTiming::OnTurn),
    ("AnyCardBoundary", KnockTiming::AnyCardBoundary),
];
const NEXT_DEALER: &[(&str, NextDealer)] = &[
    ("RoundWinner", NextDealer::RoundWinner),
    ("RotateLeft", NextDealer::RotateLeft),
];

fn name_of<T: PartialEq + Copy>(table: &[(&'static str, T)], v: T) -> &'static str {
    table
        .iter()
        .find(|(_, t)| *t == v)
        .map(|(n, _)| *n)
        .unwrap_or("?")
}

impl Default for Options {
    /// `toepen_standard(4)`: every default of docs/rules/toepen.md#options.
    fn default() -> Options {
        Options {
            num_players: 4,
            limit: 10,
            game_end: GameEnd::LastSurvivor,
            knocking: true,
            knock_timing: KnockTiming::OnTurn,
            max_stake: None,
            knock_cap_by_score: false,
            laundry: true,
            laundry_penalty: 1,
            caught_bluffer_keeps_new_hand: true,
            white_laundry: false,
            poverty: false,
            next_dealer: NextDealer::RoundWinner,
            dealer: None,
            max_rounds: 1000,
        }
    }
}

impl Options {
    /// `toepen_standard(n)`: all defaults.
    pub fn standard(n: u8) -> Options {
        Options {
            num_players: n,
            ..Options::default()
        }
    }
    /// `toepen_drinking(n)`: defaults + `game_end=FirstToLimit`.
    pub fn drinking(n: u8) -> Options {
        Options {
            game_end: GameEnd::FirstToLimit,
            ..Options::standard(n)
        }
    }
    /// `toepen_cafe(n)`: defaults + `poverty=true`, `limit=15`.
    pub fn cafe(n: u8) -> Options {
        Options {
            poverty: true,
            limit: 15,
            ..Options::standard(n)
        }
    }
    /// `toepen_plain()`: source D, 4 players, no knocking, laundry or poverty, limit 10.
    pub fn plain() -> Options {
        Options {
            num_players: 4,
            knocking: false,
            laundry: false,
            poverty: false,
            limit: 10,
            ..Options::default()
        }
    }
}

impl Rules for Options {
    fn presets() -> &'static [Preset] {
        PRESETS
    }

    /// A preset by user-facing name (`cafe`) or rule-book name (`toepen_cafe`, `toepen_cafe(n)`,
    /// `toepen_plain()`); a number in the parentheses sets the players (`toepen_cafe(6)`).
    fn preset(name: &str) -> Result<Options, ConfigError> {
        let trimmed = name.trim();
        let (base, arg) = match trimmed.split_once('(') {
            Some((b, rest)) => (b.trim(), rest.trim_end_matches(')').trim()),
            None => (trimmed, ""),
        };
        let players = match arg {
            "" | "n" => None,
            k => match k.parse::<u8>() {
                Ok(k) if base.eq_ignore_ascii_case("toepen_plain") && k != 4 => {
                    return Err(ConfigError::invalid(
                        "num_players",
                        "toepen_plain() is for 4 players",
                    ));
                }
                Ok(k) if (2..=8).contains(&k) => Some(k),
                _ => {
                    return Err(ConfigError::invalid(
                        "num_players",
                        format!("preset `{name}`: Toepen is played by 2 to 8 players"),
                    ));
                }
            },
        };
        // `find_preset` ignores the parentheses and names `name` as given when it fails.
        let mut o = match find_preset(NAME, PRESETS, name)? {
            0 => Options::standard(4),
            1 => Options::drinking(4),
            2 => Options::cafe(4),
            _ => Options::plain(),
        };
        if let Some(k) = players {
            o.num_players = k;
        }
        Ok(o)
    }

    fn set_option(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        let k = crate::game::option_key(key);
        let v = value.trim();
        match k.as_ref() {
            "num_players" | "players" => self.num_players = parse_num("num_players", v)?,
            "limit" => self.limit = parse_num("limit", v)?,
            "game_end" => self.game_end = parse_choice("game_end", v, GAME_END)?,
            "knocking" => self.knocking = parse_bool("knocking", v)?,
            "knock_timing" => self.knock_timing = parse_choice("knock_timing", v, KNOCK_TIMING)?,
            "max_stake" => self.max_stake = parse_opt_num("max_stake", v)?,
            "knock_cap_by_score" => self.knock_cap_by_score = parse_bool("knock_cap_by_score", v)?,
            "laundry" => self.laundry = parse_bool("laundry", v)?,
            "laundry_penalty" => self.laundry_penalty = parse_num("laundry_penalty", v)?,
            "caught_bluffer_keeps_new_hand" => {
                self.caught_bluffer_keeps_new_hand = parse_bool("caught_bluffer_keeps_new_hand", v)?
            }
            "white_laundry" => self.white_laundry = parse_bool("white_laundry", v)?,
            "poverty" => self.poverty = parse_bool("poverty", v)?,
            "next_dealer" => self.next_dealer = parse_choice("next_dealer", v, NEXT_DEALER)?,
            "dealer" => self.dealer = parse_opt_num("dealer", v)?,
            "max_rounds" => self.max_rounds = parse_num("max_rounds", v)?,
            _ => {
                return Err(ConfigError::UnknownOption {
                    game: NAME,
                    name: key.to_string(),
                    known: OPTION_NAMES.join(", "),
                });
            }
        }
        Ok(())
    }

    fn option_pairs(&self) -> Vec<(String, String)> {
        let opt = |v: Option<String>| v.unwrap_or_else(|| "none".to_string());
        let vals: [String; 15] = [
            self.num_players.to_string(),
            self.limit.to_string(),
            name_of(GAME_END, self.game_end).to_string(),
            self.knocking.to_string(),
            name_of(KNOCK_TIMING, self.knock_timing).to_string(),
            opt(self.max_stake.map(|m| m.to_string())),
            self.knock_cap_by_score.to_string(),
            self.laundry.to_string(),
            self.laundry_penalty.to_string(),
            self.caught_bluffer_keeps_new_hand.to_string(),
            self.white_laundry.to_string(),
            self.poverty.to_string(),
            name_of(NEXT_DEALER, self.next_dealer).to_string(),
            opt(self.dealer.map(|d| d.to_string())),
            self.max_rounds.to_string(),
        ];
        OPTION_NAMES
            .iter()
            .zip(vals)
            .map(|(k, v)| (k.to_string(), v))
            .collect()
    }

    /// Config validation of docs/rules/toepen.md#options, plus what is impossible (a dealer who is
    /// not a seat, a zero round cap).
    fn validate(&self) -> Result<(), ConfigError> {
        if !(2..=8).contains(&self.num_players) {
            return Err(ConfigError::invalid(
                "num_players",
                format!(
                    "Toepen is played by 2 to 8 players, not {}",
                    self.num_players
                ),
            ));
        }
        if self.limit < 2 {
            return Err(ConfigError::invalid(
                "limit",
                format!("the penalty limit must be at least 2, not {}", self.limit),
            ));
        }
        if self.poverty && self.limit < 3 {
            return Err(ConfigError::invalid(
                "limit",
                format!(
                    "poverty=true needs limit >= 3 (poor = limit - 1 points), not {}",
                    self.limit
                ),
            ));
        }
        if let Some(m) = self.max_stake
            && m < 2
        {
            return Err(ConfigError::invalid(
                "max_stake",
                format!("max_stake must be at least 2 if set (the first knock makes 2), not {m}"),
            ));
        }
        if let Some(d) = self.dealer
            && d >= self.num_players
        {
            return Err(ConfigError::invalid(
                "dealer",
                format!(
                    "dealer P{d} is not a seat of a {}-player table",
                    self.num_players
                ),
            ));
        }
        if self.max_rounds == 0 {
            return Err(ConfigError::invalid(
                "max_rounds",
                "the round cap must be at least 1",
            ));
        }
        Ok(())
    }

    fn seats(&self) -> usize {
        self.num_players as usize
    }

    fn set_players(&mut self, n: usize) -> Result<(), ConfigError> {
        if !(2..=8).contains(&n) {
            return Err(ConfigError::invalid(
                "num_players",
                format!("Toepen is played by 2 to 8 players, not {n}"),
            ));
        }
        self.num_players = n as u8;
        Ok(())
    }
}
