//! Human text for actions and events, and the `u32` action code of the WIT contract.
//!
//! Action text: `lead 7S`, `lead 7C 7S` (several cards, ascending code order), `beat 0 9S`
//! (table slot from 0, then the card), `transfer 7D`, `show 7H`, `take`, `throw 8C`, `pass`.
//! Action code: `kind | a << 8 | b << 16` with kinds Lead=1 (a = card), LeadMany=2 (a = rank,
//! b = suit mask), Beat=3 (a = card, b = slot), Transfer=4, ShowTrumpTransfer=5 (a = card),
//! Take=6, ThrowIn=7 (a = card), Pass=8.

use super::engine::rank_set;
use super::types::*;
use crate::cards::{Card, CardSet, Suit};
use std::fmt;
use std::str::FromStr;

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Lead(c) => write!(f, "lead {c}"),
            Action::LeadMany(set) => {
                write!(f, "lead")?;
                for c in set.iter() {
                    write!(f, " {c}")?;
                }
                Ok(())
            }
            Action::Beat { slot, card } => write!(f, "beat {slot} {card}"),
            Action::Transfer(c) => write!(f, "transfer {c}"),
            Action::ShowTrumpTransfer(c) => write!(f, "show {c}"),
            Action::Take => write!(f, "take"),
            Action::ThrowIn(c) => write!(f, "throw {c}"),
            Action::Pass => write!(f, "pass"),
        }
    }
}

/// Why an action text did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{text}`: {why} (expected e.g. `lead 7S`, `lead 7S 7D`, `beat 0 9S`, `transfer 7D`, `show 7H`, `take`, `throw 8C`, `pass`)"
)]
pub struct ParseActionError {
    /// The text as given.
    pub text: String,
    /// What is wrong with it, e.g. `unknown action`.
    pub why: String,
}

impl FromStr for Action {
    type Err = ParseActionError;
    fn from_str(s: &str) -> Result<Action, ParseActionError> {
        let err = |why: &str| ParseActionError {
            text: s.to_string(),
            why: why.to_string(),
        };
        let words: Vec<&str> = s.split_whitespace().collect();
        let Some((verb, args)) = words.split_first() else {
            return Err(err("empty"));
        };
        let card = |w: &str| w.parse::<Card>().map_err(|e| err(&e.to_string()));
        let one_card = |args: &[&str]| -> Result<Card, ParseActionError> {
            match args {
                [c] => card(c),
                _ => Err(err("expected exactly one card")),
            }
        };
        let no_args = |args: &[&str], a: Action| {
            if args.is_empty() {
                Ok(a)
            } else {
                Err(err("takes no argument"))
            }
        };
        match verb.to_ascii_lowercase().as_str() {
            "lead" => match args {
                [] => Err(err("lead which card?")),
                [c] => Ok(Action::Lead(card(c)?)),
                many => {
                    let mut set = CardSet::EMPTY;
                    for w in many {
                        if !set.insert(card(w)?) {
                            return Err(err("a card is named twice"));
                        }
                    }
                    let first = set.first().ok_or_else(|| err("no card"))?;
                    if !set.is_subset(rank_set(first.rank())) {
                        return Err(err("the cards of a multiple lead must share one rank"));
                    }
                    Ok(Action::LeadMany(set))
                }
            },
            "beat" => match args {
                [slot, c] => {
                    let slot = slot
                        .parse::<u8>()
                        .map_err(|_| err("the slot is a number from 0"))?;
                    Ok(Action::Beat {
                        slot,
                        card: card(c)?,
                    })
                }
                _ => Err(err("expected `beat <slot> <card>`")),
            },
            "transfer" => Ok(Action::Transfer(one_card(args)?)),
            "show" => Ok(Action::ShowTrumpTransfer(one_card(args)?)),
            "throw" => Ok(Action::ThrowIn(one_card(args)?)),
            "take" => no_args(args, Action::Take),
            "pass" => no_args(args, Action::Pass),
            _ => Err(err("unknown action")),
        }
    }
}

fn cards_text(set: CardSet) -> String {
    set.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Deal {
                dealer,
                trump,
                talon,
            } => {
                if *talon == 0 {
                    write!(
                        f,
                        "P{dealer} deals; no talon, trump {trump} (dealer's last card)"
                    )
                } else {
                    write!(f, "P{dealer} deals; trump card {trump}, talon {talon}")
                }
            }
            Event::Hand { seat, cards } => write!(f, "P{seat} is dealt {}", cards_text(*cards)),
            Event::Redeal => write!(f, "nobody holds a trump: the cards are dealt again"),
            Event::LowestTrump { seat, card } => {
                write!(f, "P{seat} shows the lowest trump {card}")
            }
            Event::BoutStart { attacker, defender } => {
                write!(f, "bout: P{attacker} attacks P{defender}")
            }
            Event::Lead { seat, cards } => write!(f, "P{seat} leads {}", cards_text(*cards)),
            Event::Beat {
                seat, card, attack, ..
            } => write!(f, "P{seat} beats {attack} with {card}"),
            Event::ThrowIn { seat, card } => write!(f, "P{seat} throws in {card}"),
            Event::Pass { seat } => write!(f, "P{seat} passes"),
            Event::Transfer {
                seat,
                card,
                new_defender,
            } => write!(f, "P{seat} transfers with {card} to P{new_defender}"),
            Event::ShowTrump {
                seat,
                card,
                new_defender,
            } => write!(
                f,
                "P{seat} shows trump {card} and transfers to P{new_defender}"
            ),
            Event::Take { seat } => write!(f, "P{seat} takes"),
            Event::BoutEnd { how, cards } => match how {
                BoutEnd::Beaten => write!(f, "beaten off: {} to the discard", cards_text(*cards)),
                BoutEnd::Taken => write!(f, "taken: {} picked up", cards_text(*cards)),
            },
            Event::Refill { seat, count, trump } => {
                let s = if *count == 1 { "" } else { "s" };
                if *trump {
                    write!(
                        f,
                        "P{seat} draws {count} card{s}, the trump card among them"
                    )
                } else {
                    write!(f, "P{seat} draws {count} card{s}")
                }
            }
            Event::Drew { seat, cards } => write!(f, "P{seat} draws {}", cards_text(*cards)),
            Event::Out { seat } => write!(f, "P{seat} is out"),
            Event::GameEnd { summary } => write!(f, "game over: {summary}"),
        }
    }
}

pub(crate) fn encode(a: Action) -> u32 {
    let (kind, x, y): (u32, u32, u32) = match a {
        Action::Lead(c) => (1, c.code() as u32, 0),
        Action::LeadMany(set) => {
            let rank = set.first().map_or(0, |c| c.rank());
            let mut mask = 0u32;
            for c in set.intersect(rank_set(rank)) {
                mask |= 1 << c.suit() as u32;
            }
            (2, rank as u32, mask)
        }
        Action::Beat { slot, card } => (3, card.code() as u32, slot as u32),
        Action::Transfer(c) => (4, c.code() as u32, 0),
        Action::ShowTrumpTransfer(c) => (5, c.code() as u32, 0),
        Action::Take => (6, 0, 0),
        Action::ThrowIn(c) => (7, c.code() as u32, 0),
        Action::Pass => (8, 0, 0),
    };
    kind | x << 8 | y << 16
}

pub(crate) fn decode(code: u32) -> Option<Action> {
    if code >> 24 != 0 {
        return None;
    }
    let kind = code & 0xFF;
    let a = ((code >> 8) & 0xFF) as u8;
    let b = ((code >> 16) & 0xFF) as u8;
    let card = || Card::from_code(a);
    let only_a = |act: Option<Action>| if b == 0 { act } else { None };
    match kind {
        1 => only_a(card().map(Action::Lead)),
        2 => {
            if !(2..=14).contains(&a) || b == 0 || b > 0xF || b.count_ones() < 2 {
                return None;
            }
            let mut set = CardSet::EMPTY;
            for (i, suit) in Suit::ALL.iter().enumerate() {
                if b & (1 << i) != 0 {
                    set.insert(Card::new(a, *suit));
                }
            }
            Some(Action::LeadMany(set))
        }
        3 => card().map(|card| Action::Beat { slot: b, card }),
        4 => only_a(card().map(Action::Transfer)),
        5 => only_a(card().map(Action::ShowTrumpTransfer)),
        6 if a == 0 && b == 0 => Some(Action::Take),
        7 => only_a(card().map(Action::ThrowIn)),
        8 if a == 0 && b == 0 => Some(Action::Pass),
        _ => None,
    }
}
