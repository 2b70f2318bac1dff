//! Text and codes for actions and events: the human syntax typed in `croupier play`
//! (`play W blue uno`, `draw`, `stack RD2`, ...), one-line event text, and the `u32` action
//! encoding of the WIT contract (`kind | card << 8 | declare << 16 | uno << 24`).

use super::types::*;
use std::fmt;
use std::str::FromStr;

const K_COLOR: u32 = 1;
const K_PLAY: u32 = 2;
const K_DRAW: u32 = 3;
const K_PLAY_DRAWN: u32 = 4;
const K_KEEP: u32 = 5;
const K_CHALLENGE: u32 = 6;
const K_ACCEPT: u32 = 7;
const K_STACK: u32 = 8;
const K_ACCEPT_PENALTY: u32 = 9;
const K_CATCH: u32 = 10;
const K_NO_CATCH: u32 = 11;

#[inline]
fn declare_code(d: Option<Color>) -> u32 {
    d.map_or(0, |c| 1 + c as u32)
}

#[inline]
pub(crate) fn encode(a: Action) -> u32 {
    let pack = |kind: u32, card: u8, declare: Option<Color>, uno: bool| {
        kind | (card as u32) << 8 | declare_code(declare) << 16 | (uno as u32) << 24
    };
    match a {
        Action::ChooseColor(c) => pack(K_COLOR, 0, Some(c), false),
        Action::Play { card, declare, uno } => pack(K_PLAY, card.0, declare, uno),
        Action::Draw => K_DRAW,
        Action::PlayDrawn { declare, uno } => pack(K_PLAY_DRAWN, 0, declare, uno),
        Action::Keep => K_KEEP,
        Action::Challenge => K_CHALLENGE,
        Action::Accept => K_ACCEPT,
        Action::Stack { card, declare, uno } => pack(K_STACK, card.0, declare, uno),
        Action::AcceptPenalty => K_ACCEPT_PENALTY,
        Action::CatchUno => K_CATCH,
        Action::NoCatch => K_NO_CATCH,
    }
}

pub(crate) fn decode(code: u32) -> Option<Action> {
    let kind = code & 0xFF;
    let card = ((code >> 8) & 0xFF) as u8;
    let decl = (code >> 16) & 0xFF;
    let uno = code >> 24;
    if decl > 4 || uno > 1 {
        return None;
    }
    let declare = if decl == 0 {
        None
    } else {
        Color::from_index(decl as u8 - 1)
    };
    let uno = uno == 1;
    // Actions without a card, colour or flag must carry none.
    let bare = |a: Action| (card == 0 && decl == 0 && !uno).then_some(a);
    match kind {
        K_COLOR => (card == 0 && !uno)
            .then_some(())
            .and(declare.map(Action::ChooseColor)),
        K_PLAY | K_STACK => {
            let card = UnoCard::from_code(card)?;
            Some(if kind == K_PLAY {
                Action::Play { card, declare, uno }
            } else {
                Action::Stack { card, declare, uno }
            })
        }
        K_PLAY_DRAWN => (card == 0).then_some(Action::PlayDrawn { declare, uno }),
        K_DRAW => bare(Action::Draw),
        K_KEEP => bare(Action::Keep),
        K_CHALLENGE => bare(Action::Challenge),
        K_ACCEPT => bare(Action::Accept),
        K_ACCEPT_PENALTY => bare(Action::AcceptPenalty),
        K_CATCH => bare(Action::CatchUno),
        K_NO_CATCH => bare(Action::NoCatch),
        _ => None,
    }
}

fn write_tail(f: &mut fmt::Formatter<'_>, declare: Option<Color>, uno: bool) -> fmt::Result {
    if let Some(c) = declare {
        write!(f, " {c}")?;
    }
    if uno {
        write!(f, " uno")?;
    }
    Ok(())
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Action::ChooseColor(c) => write!(f, "color {c}"),
            Action::Play { card, declare, uno } => {
                write!(f, "play {card}")?;
                write_tail(f, declare, uno)
            }
            Action::Draw => f.write_str("draw"),
            Action::PlayDrawn { declare, uno } => {
                f.write_str("play-drawn")?;
                write_tail(f, declare, uno)
            }
            Action::Keep => f.write_str("keep"),
            Action::Challenge => f.write_str("challenge"),
            Action::Accept => f.write_str("accept"),
            Action::Stack { card, declare, uno } => {
                write!(f, "stack {card}")?;
                write_tail(f, declare, uno)
            }
            Action::AcceptPenalty => f.write_str("accept-penalty"),
            Action::CatchUno => f.write_str("catch"),
            Action::NoCatch => f.write_str("no-catch"),
        }
    }
}

/// Why an action text did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{text}` is not an UNO action: {why} (expected e.g. `play R7`, `play W blue`, `play W4 green uno`, `draw`, `play-drawn`, `keep`, `challenge`, `accept`, `stack RD2`, `accept-penalty`, `catch`, `no-catch`, `color red`)"
)]
pub struct ParseActionError {
    /// The text as given.
    pub text: String,
    /// What is wrong with it, e.g. `` `draw` takes no arguments ``.
    pub why: String,
}

/// Parses `[colour] [uno]` after a card.
fn parse_tail(words: &[&str]) -> Result<(Option<Color>, bool), String> {
    let mut declare = None;
    let mut uno = false;
    for w in words {
        if w.eq_ignore_ascii_case("uno") {
            if uno {
                return Err("`uno` given twice".into());
            }
            uno = true;
        } else if let Ok(c) = w.parse::<Color>() {
            if declare.is_some() {
                return Err("two colours given".into());
            }
            declare = Some(c);
        } else {
            return Err(format!("`{w}` is neither a colour nor `uno`"));
        }
    }
    Ok((declare, uno))
}

impl FromStr for Action {
    type Err = ParseActionError;
    fn from_str(s: &str) -> Result<Action, ParseActionError> {
        let err = |why: String| ParseActionError {
            text: s.to_string(),
            why,
        };
        let words: Vec<&str> = s.split_whitespace().collect();
        let Some((head, rest)) = words.split_first() else {
            return Err(err("empty".into()));
        };
        let head = head.to_ascii_lowercase().replace('_', "-");
        let bare = |a: Action| {
            if rest.is_empty() {
                Ok(a)
            } else {
                Err(err(format!("`{head}` takes no arguments")))
            }
        };
        match head.as_str() {
            "color" | "colour" => match rest {
                [c] => c
                    .parse::<Color>()
                    .map(Action::ChooseColor)
                    .map_err(|e| err(e.to_string())),
                _ => Err(err("expected one colour, e.g. `color red`".into())),
            },
            "play" | "stack" => {
                let Some((card, tail)) = rest.split_first() else {
                    return Err(err(format!("`{head}` needs a card")));
                };
                let card = card.parse::<UnoCard>().map_err(|e| err(e.to_string()))?;
                let (declare, uno) = parse_tail(tail).map_err(err)?;
                Ok(if head == "play" {
                    Action::Play { card, declare, uno }
                } else {
                    Action::Stack { card, declare, uno }
                })
            }
            "play-drawn" => {
                let (declare, uno) = parse_tail(rest).map_err(err)?;
                Ok(Action::PlayDrawn { declare, uno })
            }
            "draw" => bare(Action::Draw),
            "keep" => bare(Action::Keep),
            "challenge" => bare(Action::Challenge),
            "accept" => bare(Action::Accept),
            "accept-penalty" => bare(Action::AcceptPenalty),
            "catch" => bare(Action::CatchUno),
            "no-catch" => bare(Action::NoCatch),
            _ => Err(err(format!("unknown word `{head}`"))),
        }
    }
}

fn cards_text(cards: &[UnoCard]) -> String {
    if cards.is_empty() {
        return "nothing".into();
    }
    cards
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn played(f: &mut fmt::Formatter<'_>, card: UnoCard, declare: Option<Color>) -> fmt::Result {
    write!(f, "{card}")?;
    if let Some(c) = declare {
        write!(f, " declaring {c}")?;
    }
    Ok(())
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::HandStart { hand_no, dealer } => write!(f, "hand {hand_no}: P{dealer} deals"),
            Event::Hand { seat, cards } => write!(f, "P{seat} is dealt {}", cards_text(cards)),
            Event::StartCard { card } => write!(f, "start card {card}"),
            Event::StartReturned { card } => {
                write!(
                    f,
                    "{card} goes back into the draw pile, which is reshuffled"
                )
            }
            Event::ChooseColor { seat, color } => write!(f, "P{seat} chooses {color}"),
            Event::Play {
                seat,
                card,
                declare,
            } => {
                write!(f, "P{seat} plays ")?;
                played(f, *card, *declare)
            }
            Event::Draw { seat, count } => {
                let s = if *count == 1 { "" } else { "s" };
                write!(f, "P{seat} draws {count} card{s}")
            }
            Event::Drew { seat, cards } => write!(f, "P{seat} drew {}", cards_text(cards)),
            Event::Keep { seat } => write!(f, "P{seat} keeps the card"),
            Event::Skipped { seat } => write!(f, "P{seat} loses his turn"),
            Event::Reversed { direction } => write!(
                f,
                "direction reversed: now {}",
                if *direction > 0 {
                    "clockwise"
                } else {
                    "counter-clockwise"
                }
            ),
            Event::Challenge {
                seat,
                offender,
                guilty,
            } => write!(
                f,
                "P{seat} challenges P{offender}'s Wild Draw Four: {}",
                if *guilty { "guilty" } else { "not guilty" }
            ),
            Event::Shown {
                seat,
                offender,
                cards,
            } => write!(f, "P{offender} shows P{seat} {}", cards_text(cards)),
            Event::Accept { seat } => write!(f, "P{seat} accepts the Wild Draw Four"),
            Event::Stack {
                seat,
                card,
                declare,
                pending,
            } => {
                write!(f, "P{seat} stacks ")?;
                played(f, *card, *declare)?;
                write!(f, " (pending {pending})")
            }
            Event::AcceptPenalty { seat, count } => {
                write!(f, "P{seat} accepts the penalty of {count}")
            }
            Event::CatchUno { seat, offender } => {
                write!(f, "P{seat} catches P{offender} without UNO")
            }
            Event::NoCatch { seat } => write!(f, "P{seat} does not catch"),
            Event::Reshuffle { cards } => {
                write!(
                    f,
                    "the discard pile is reshuffled into a new draw pile of {cards}"
                )
            }
            Event::Uno { seat } => write!(f, "P{seat} calls UNO"),
            Event::HandEnd { summary, .. } => write!(f, "hand over: {summary}"),
            Event::GameEnd { summary } => write!(f, "game over: {summary}"),
        }
    }
}
