//! Options and presets (RULES.md §3.3): `uno_official(n)`, `uno_house(n)`, `uno_two_player()`,
//! option text by the rule book's names, and validation.

use super::types::*;
use crate::game::{ConfigError, Preset, find_preset, parse_bool, parse_choice, parse_num};

/// Default safety cap on turns per hand (§4.5; not a rule).
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
    /// `uno_official(n)`: every option at its default (§3.3).
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

    /// `uno_house(n)`: source E's game (§3.3).
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

pub(crate) fn preset(name: &str) -> Result<Options, ConfigError> {
    let i = find_preset("uno", PRESETS, name)?;
    Ok(match i {
        0 => Options::official(4),
        1 => Options::house(4),
        _ => Options::two_player(),
    })
}

pub(crate) fn set_option(opts: &mut Options, key: &str, value: &str) -> Result<(), ConfigError> {
    let k = crate::game::option_key(key);
    let v = value.trim();
    match k.as_ref() {
        "num_players" | "players" => opts.num_players = parse_num(&k, v)?,
        "hand_size" => opts.hand_size = parse_num(&k, v)?,
        "scoring" => opts.scoring = parse_choice(&k, v, SCORING)?,
        "target_score" => opts.target_score = parse_num(&k, v)?,
        "wd4_challenge" => opts.wd4_challenge = parse_bool(&k, v)?,
        "wd4_restriction" => opts.wd4_restriction = parse_choice(&k, v, RESTRICTION)?,
        "start_wild" => opts.start_wild = parse_choice(&k, v, START_WILD)?,
        "start_reverse" => opts.start_reverse = parse_choice(&k, v, START_REVERSE)?,
        "draw_rule" => opts.draw_rule = parse_choice(&k, v, DRAW_RULE)?,
        "uno_call" => opts.uno_call = parse_choice(&k, v, UNO_CALL)?,
        "uno_penalty" => opts.uno_penalty = parse_num(&k, v)?,
        "stacking" => opts.stacking = parse_choice(&k, v, STACKING)?,
        "deck_exhaustion" => opts.deck_exhaustion = parse_choice(&k, v, EXHAUSTION)?,
        "dealer" => {
            opts.dealer = if v.eq_ignore_ascii_case("none") {
                None
            } else {
                // Accept `2` and `P2`.
                let t = v.strip_prefix(['P', 'p']).unwrap_or(v);
                Some(parse_num(&k, t)?)
            }
        }
        "turn_limit" => opts.turn_limit = parse_num(&k, v)?,
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

pub(crate) fn option_pairs(o: &Options) -> Vec<(String, String)> {
    let p = |k: &str, v: String| (k.to_string(), v);
    vec![
        p("num_players", o.num_players.to_string()),
        p("hand_size", o.hand_size.to_string()),
        p("scoring", name_of(SCORING, o.scoring)),
        p("target_score", o.target_score.to_string()),
        p("wd4_challenge", o.wd4_challenge.to_string()),
        p("wd4_restriction", name_of(RESTRICTION, o.wd4_restriction)),
        p("start_wild", name_of(START_WILD, o.start_wild)),
        p("start_reverse", name_of(START_REVERSE, o.start_reverse)),
        p("draw_rule", name_of(DRAW_RULE, o.draw_rule)),
        p("uno_call", name_of(UNO_CALL, o.uno_call)),
        p("uno_penalty", o.uno_penalty.to_string()),
        p("stacking", name_of(STACKING, o.stacking)),
        p("deck_exhaustion", name_of(EXHAUSTION, o.deck_exhaustion)),
        p(
            "dealer",
            o.dealer
                .map_or_else(|| "none".to_string(), |d| d.to_string()),
        ),
        p("turn_limit", o.turn_limit.to_string()),
    ]
}

pub(crate) fn validate(o: &Options) -> Result<(), ConfigError> {
    if !(2..=10).contains(&o.num_players) {
        return Err(ConfigError::invalid(
            "num_players",
            format!("{} players: UNO is played by 2 to 10", o.num_players),
        ));
    }
    // Decision: a hand of 0 cards is refused (nobody could ever go out or hold a card).
    if o.hand_size == 0 {
        return Err(ConfigError::invalid("hand_size", "must be at least 1"));
    }
    let needed = o.num_players as u32 * o.hand_size as u32 + 1;
    if needed > 108 {
        return Err(ConfigError::invalid(
            "hand_size",
            format!(
                "{} players × {} cards + 1 start card = {needed} > 108 cards in the deck",
                o.num_players, o.hand_size
            ),
        ));
    }
    if o.stacking != Stacking::None && o.wd4_challenge {
        return Err(ConfigError::invalid(
            "stacking",
            "stacking requires wd4_challenge=false (challenges inside stacks are not defined)",
        ));
    }
    // Decision: target 0 would end a multi-hand game before it starts; refused.
    if o.target_score == 0 {
        return Err(ConfigError::invalid("target_score", "must be at least 1"));
    }
    if let Some(d) = o.dealer
        && d >= o.num_players
    {
        return Err(ConfigError::invalid(
            "dealer",
            format!("seat {d} does not exist with {} players", o.num_players),
        ));
    }
    if o.turn_limit == 0 {
        return Err(ConfigError::invalid("turn_limit", "must be at least 1"));
    }
    Ok(())
}

pub(crate) fn set_players(o: &mut Options, n: usize) -> Result<(), ConfigError> {
    if !(2..=10).contains(&n) {
        return Err(ConfigError::invalid(
            "num_players",
            format!("{n} players: UNO is played by 2 to 10"),
        ));
    }
    o.num_players = n as u8;
    Ok(())
}
