//! Options and presets (docs/rules/uno.md#options): `uno_official(n)`, `uno_house(n)`,
//! `uno_two_player()`, option text by the rule book's names, and validation.

use super::types::*;
use crate::game::{ConfigError, Preset, Rules, find_preset, parse_bool, parse_choice, parse_num};

/// Default safety cap on turns per hand (docs/rules/README.md#engine-requirements; not a rule).
pub const DEFAULT_TURN_LIMIT: u32 = 5000;

pub(crate) const PRESETS: &[Preset] = &[
    Preset {
        name: "official",
        rulebook: "uno_official(n)",
        summary: "Mattel rules: 4 players, 7 cards, WD4 challenge, winner takes all to 500",
    },
    Preset {
        name: "house",
        rulebook: "uno_house(n)",
        summary: "source E: progressive Draw Two/Four stacking, hand ends when the draw pile is empty, one hand",
    },
    Preset {
        name: "two-player",
        rulebook: "uno_two_player()",
        summary: "official rules for two players (Reverse acts as Skip)",
    },
];

const OPTION_NAMES: &[&str] = &[
    "num_players",
    "hand_size",
    "scoring",
    "target_score",
    "wd4_challenge",
    "wd4_restriction",
    "start_wild",
    "start_reverse",
    "draw_rule",
    "uno_call",
    "uno_penalty",
    "stacking",
    "deck_exhaustion",
    "dealer",
    "turn_limit",
];

impl Options {
    /// `uno_official(n)`: every option at its default (docs/rules/uno.md#options).
    pub fn official(n: u8) -> Options {
        Options {
            num_players: n,
            hand_size: 7,
            scoring: Scoring::WinnerTakesAll,
            target_score: 500,
            wd4_challenge: true,
            wd4_restriction: Wd4Restriction::NoCardOfCurrentColor,
            start_wild: StartWild::FirstPlayerChooses,
            start_reverse: StartReverse::DealerStarts,
            draw_rule: DrawRule::DrawOneMayPlay,
            uno_call: UnoCall::Auto,
            uno_penalty: 2,
            stacking: Stacking::None,
            deck_exhaustion: DeckExhaustion::Reshuffle,
            dealer: None,
            turn_limit: DEFAULT_TURN_LIMIT,
        }
    }

    /// `uno_house(n)`: source E's game (docs/rules/uno.md#options).
    pub fn house(n: u8) -> Options {
        Options {
            stacking: Stacking::Progressive,
            deck_exhaustion: DeckExhaustion::EndHand,
            wd4_challenge: false,
            scoring: Scoring::SingleHand,
            ..Options::official(n)
        }
    }

    /// `uno_two_player()`.
    pub fn two_player() -> Options {
        Options::official(2)
    }
}

impl Default for Options {
    fn default() -> Self {
        Options::official(4)
    }
}

const SCORING: &[(&str, Scoring)] = &[
    ("WinnerTakesAll", Scoring::WinnerTakesAll),
    ("CumulativePenalty", Scoring::CumulativePenalty),
    ("SingleHand", Scoring::SingleHand),
];
const RESTRICTION: &[(&str, Wd4Restriction)] = &[
    ("NoCardOfCurrentColor", Wd4Restriction::NoCardOfCurrentColor),
    ("NoMatchingCard", Wd4Restriction::NoMatchingCard),
];
const START_WILD: &[(&str, StartWild)] = &[
    ("FirstPlayerChooses", StartWild::FirstPlayerChooses),
    ("Redraw", StartWild::Redraw),
];
const START_REVERSE: &[(&str, StartReverse)] = &[
    ("DealerStarts", StartReverse::DealerStarts),
    ("RightOfDealerStarts", StartReverse::RightOfDealerStarts),
];
const DRAW_RULE: &[(&str, DrawRule)] = &[
    ("DrawOneMayPlay", DrawRule::DrawOneMayPlay),
    ("DrawUntilPlayable", DrawRule::DrawUntilPlayable),
];
const UNO_CALL: &[(&str, UnoCall)] = &[("Auto", UnoCall::Auto), ("Explicit", UnoCall::Explicit)];
const STACKING: &[(&str, Stacking)] = &[
    ("None", Stacking::None),
    ("SameKind", Stacking::SameKind),
    ("Progressive", Stacking::Progressive),
];
const EXHAUSTION: &[(&str, DeckExhaustion)] = &[
    ("Reshuffle", DeckExhaustion::Reshuffle),
    ("EndHand", DeckExhaustion::EndHand),
];

fn name_of<T: PartialEq + Copy>(choices: &[(&'static str, T)], v: T) -> String {
    choices
        .iter()
        .find(|(_, t)| *t == v)
        .map(|(n, _)| n.to_string())
        .unwrap_or_default()
}

impl Rules for Options {
    fn presets() -> &'static [Preset] {
        PRESETS
    }

    fn preset(name: &str) -> Result<Options, ConfigError> {
        let i = find_preset("uno", PRESETS, name)?;
        Ok(match i {
            0 => Options::official(4),
            1 => Options::house(4),
            _ => Options::two_player(),
        })
    }

    fn set_option(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        let k = crate::game::option_key(key);
        let v = value.trim();
        match k.as_ref() {
            "num_players" | "players" => self.num_players = parse_num(&k, v)?,
            "hand_size" => self.hand_size = parse_num(&k, v)?,
            "scoring" => self.scoring = parse_choice(&k, v, SCORING)?,
            "target_score" => self.target_score = parse_num(&k, v)?,
            "wd4_challenge" => self.wd4_challenge = parse_bool(&k, v)?,
            "wd4_restriction" => self.wd4_restriction = parse_choice(&k, v, RESTRICTION)?,
            "start_wild" => self.start_wild = parse_choice(&k, v, START_WILD)?,
            "start_reverse" => self.start_reverse = parse_choice(&k, v, START_REVERSE)?,
            "draw_rule" => self.draw_rule = parse_choice(&k, v, DRAW_RULE)?,
            "uno_call" => self.uno_call = parse_choice(&k, v, UNO_CALL)?,
            "uno_penalty" => self.uno_penalty = parse_num(&k, v)?,
            "stacking" => self.stacking = parse_choice(&k, v, STACKING)?,
            "deck_exhaustion" => self.deck_exhaustion = parse_choice(&k, v, EXHAUSTION)?,
            "dealer" => {
                self.dealer = if v.eq_ignore_ascii_case("none") {
                    None
                } else {
                    // Accept `2` and `P2`.
                    let t = v.strip_prefix(['P', 'p']).unwrap_or(v);
                    Some(parse_num(&k, t)?)
                }
            }
            "turn_limit" => self.turn_limit = parse_num(&k, v)?,
            _ => {
                return Err(ConfigError::UnknownOption {
                    game: "uno",
                    name: key.to_string(),
                    known: OPTION_NAMES.join(", "),
                });
            }
        }
        Ok(())
    }

    fn option_pairs(&self) -> Vec<(String, String)> {
        let p = |k: &str, v: String| (k.to_string(), v);
        vec![
            p("num_players", self.num_players.to_string()),
            p("hand_size", self.hand_size.to_string()),
            p("scoring", name_of(SCORING, self.scoring)),
            p("target_score", self.target_score.to_string()),
            p("wd4_challenge", self.wd4_challenge.to_string()),
            p(
                "wd4_restriction",
                name_of(RESTRICTION, self.wd4_restriction),
            ),
            p("start_wild", name_of(START_WILD, self.start_wild)),
            p("start_reverse", name_of(START_REVERSE, self.start_reverse)),
            p("draw_rule", name_of(DRAW_RULE, self.draw_rule)),
            p("uno_call", name_of(UNO_CALL, self.uno_call)),
            p("uno_penalty", self.uno_penalty.to_string()),
            p("stacking", name_of(STACKING, self.stacking)),
            p("deck_exhaustion", name_of(EXHAUSTION, self.deck_exhaustion)),
            p(
                "dealer",
                self.dealer
                    .map_or_else(|| "none".to_string(), |d| d.to_string()),
            ),
            p("turn_limit", self.turn_limit.to_string()),
        ]
    }

    fn validate(&self) -> Result<(), ConfigError> {
        if !(2..=10).contains(&self.num_players) {
            return Err(ConfigError::invalid(
                "num_players",
                format!("{} players: UNO is played by 2 to 10", self.num_players),
            ));
        }
        // Decision: a hand of 0 cards is refused (nobody could ever go out or hold a card).
        if self.hand_size == 0 {
            return Err(ConfigError::invalid("hand_size", "must be at least 1"));
        }
        let needed = self.num_players as u32 * self.hand_size as u32 + 1;
        if needed > 108 {
            return Err(ConfigError::invalid(
                "hand_size",
                format!(
                    "{} players × {} cards + 1 start card = {needed} > 108 cards in the deck",
                    self.num_players, self.hand_size
                ),
            ));
        }
        if self.stacking != Stacking::None && self.wd4_challenge {
            return Err(ConfigError::invalid(
                "stacking",
                "stacking requires wd4_challenge=false (challenges inside stacks are not defined)",
            ));
        }
        // Decision: target 0 would end a multi-hand game before it starts; refused.
        if self.target_score == 0 {
            return Err(ConfigError::invalid("target_score", "must be at least 1"));
        }
        if let Some(d) = self.dealer
            && d >= self.num_players
        {
            return Err(ConfigError::invalid(
                "dealer",
                format!("seat {d} does not exist with {} players", self.num_players),
            ));
        }
        if self.turn_limit == 0 {
            return Err(ConfigError::invalid("turn_limit", "must be at least 1"));
        }
        Ok(())
    }

    fn seats(&self) -> usize {
        self.num_players as usize
    }

    fn set_players(&mut self, n: usize) -> Result<(), ConfigError> {
        if !(2..=10).contains(&n) {
            return Err(ConfigError::invalid(
                "num_players",
                format!("{n} players: UNO is played by 2 to 10"),
            ));
        }
        self.num_players = n as u8;
        Ok(())
    }
}
