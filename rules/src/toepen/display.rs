//! Human text for actions and events, and the compact `u32` action code of the WIT contract.
//!
//! Action text (what a person types in `croupier play`): `play 10H`, `knock`, `no-knock`,
//! `stay`, `fold`, `laundry`, `white-laundry`, `no-claim`, `challenge`, `no-challenge`.
//! Action code: `Play = 1 | card_code << 8`, `Knock = 2`, `NoKnock = 3`, `Stay = 4`,
//! `Fold = 5`, `ClaimLaundry = 6`, `ClaimWhiteLaundry = 7`, `NoClaim = 8`, `Challenge = 9`,
//! `NoChallenge = 10`.

use super::engine::is_toepen_card;
use super::types::*;
use crate::cards::Card;
use std::fmt;
use std::str::FromStr;

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Play(c) => write!(f, "play {c}"),
            Action::Knock => f.write_str("knock"),
            Action::NoKnock => f.write_str("no-knock"),
            Action::Stay => f.write_str("stay"),
            Action::Fold => f.write_str("fold"),
            Action::ClaimLaundry => f.write_str("laundry"),
            Action::ClaimWhiteLaundry => f.write_str("white-laundry"),
            Action::NoClaim => f.write_str("no-claim"),
            Action::Challenge => f.write_str("challenge"),
            Action::NoChallenge => f.write_str("no-challenge"),
        }
    }
}

/// Why a text is not a Toepen action.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a Toepen action (expected `play <card>` with a 7..A card like 10H, knock, \
     no-knock, stay, fold, laundry, white-laundry, no-claim, challenge or no-challenge)"
)]
pub struct ParseActionError(pub String);

impl FromStr for Action {
    type Err = ParseActionError;
    fn from_str(s: &str) -> Result<Action, ParseActionError> {
        let err = || ParseActionError(s.to_string());
        let t = s.trim().to_ascii_lowercase();
        let mut words = t.split_whitespace();
        let head = words.next().ok_or_else(err)?;
        let arg = words.next();
        if words.next().is_some() {
            return Err(err());
        }
        let simple = match head {
            "knock" => Action::Knock,
            "no-knock" => Action::NoKnock,
            "stay" => Action::Stay,
            "fold" => Action::Fold,
            "laundry" => Action::ClaimLaundry,
            "white-laundry" => Action::ClaimWhiteLaundry,
            "no-claim" => Action::NoClaim,
            "challenge" => Action::Challenge,
            "no-challenge" => Action::NoChallenge,
            "play" => {
                let card: Card = arg.ok_or_else(err)?.parse().map_err(|_| err())?;
                if !is_toepen_card(card) {
                    return Err(err());
                }
                return Ok(Action::Play(card));
            }
            _ => return Err(err()),
        };
        if arg.is_some() {
            return Err(err());
        }
        Ok(simple)
    }
}

/// The `u32` code of an action (WIT contract).
pub fn encode(a: Action) -> u32 {
    match a {
        Action::Play(c) => 1 | (c.code() as u32) << 8,
        Action::Knock => 2,
        Action::NoKnock => 3,
        Action::Stay => 4,
        Action::Fold => 5,
        Action::ClaimLaundry => 6,
        Action::ClaimWhiteLaundry => 7,
        Action::NoClaim => 8,
        Action::Challenge => 9,
        Action::NoChallenge => 10,
    }
}

/// Inverse of [`encode`]; `None` for any other code (unknown tag, stray bits, a card that is
/// not in the piquet pack).
pub fn decode(code: u32) -> Option<Action> {
    Some(match code {
        2 => Action::Knock,
        3 => Action::NoKnock,
        4 => Action::Stay,
        5 => Action::Fold,
        6 => Action::ClaimLaundry,
        7 => Action::ClaimWhiteLaundry,
        8 => Action::NoClaim,
        9 => Action::Challenge,
        10 => Action::NoChallenge,
        c if c & 0xFF == 1 && c >> 16 == 0 => {
            let card = Card::from_code((c >> 8) as u8)?;
            if !is_toepen_card(card) {
                return None;
            }
            Action::Play(card)
        }
        _ => return None,
    })
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::RoundStart {
                round,
                dealer,
                leader,
                stake,
                stock,
            } => write!(
                f,
                "round {round}: P{dealer} deals, P{leader} leads, stake {stake}, stock {stock}"
            ),
            Event::Hand { seat, cards } => write!(f, "P{seat} is dealt {cards}"),
            Event::Laundry { seat, white: false } => write!(f, "P{seat} claims laundry"),
            Event::Laundry { seat, white: true } => write!(f, "P{seat} claims white laundry"),
            Event::NoClaim { seat } => write!(f, "P{seat} claims no laundry"),
            Event::Challenge {
                seat,
                claimant,
                revealed,
                genuine,
            } => write!(
                f,
                "P{seat} challenges P{claimant}: {revealed} is {}",
                if *genuine { "genuine" } else { "a bluff" }
            ),
            Event::NoChallenge { seat } => write!(f, "P{seat} does not challenge"),
            Event::NewHand { seat, cards } => write!(f, "P{seat} now holds {cards}"),
            Event::HandBack { seat } => write!(
                f,
                "P{seat} takes the old hand back; the 4 new cards go under the stock"
            ),
            Event::Poverty { seat, stay: true } => write!(f, "P{seat} stays (poverty, stake 2)"),
            Event::Poverty { seat, stay: false } => write!(f, "P{seat} folds (poverty, pays 1)"),
            Event::Knock { seat, stake } => write!(f, "P{seat} knocks (stake {stake})"),
            Event::NoKnock { seat } => write!(f, "P{seat} does not knock"),
            Event::Response { seat, stay: true } => write!(f, "P{seat} stays"),
            Event::Response { seat, stay: false } => write!(f, "P{seat} folds"),
            Event::Play { seat, card } => write!(f, "P{seat} plays {card}"),
            Event::TrickWon { trick, seat } => write!(f, "P{seat} wins trick {trick}"),
            Event::Penalty {
                seat,
                points,
                score,
            } => {
                write!(f, "P{seat} +{points} (score {score})")
            }
            Event::Eliminated { seat } => write!(f, "P{seat} is eliminated"),
            Event::RoundEnd { winner } => write!(f, "P{winner} wins the round"),
            Event::GameEnd { summary } => write!(f, "game over: {summary}"),
        }
    }
}
