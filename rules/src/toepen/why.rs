//! Why a Toepen action is refused: small values, formatted only when shown (see
//! [`crate::game::IllegalAction`]).

use super::types::{Action, Decision};
use crate::cards::{Card, Seat, Suit};
use std::fmt;

/// The reason an action was refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Why {
    GameOver,
    /// The action is not of the kind the pending decision takes.
    WrongDecision {
        seat: Seat,
        decision: Decision,
        action: Action,
    },
    /// `white-laundry` while `white_laundry=false`.
    WhiteLaundryOff,
    /// A laundry claim with fewer than 4 cards in the stock.
    StockShort {
        cards: u8,
    },
    NotHeld {
        seat: Seat,
        card: Card,
    },
    /// A card off the led suit while holding one of it (§2.7.1).
    MustFollow {
        seat: Seat,
        led: Option<Suit>,
    },
    /// `knock` while `knocking=false`.
    KnockingOff,
    /// `knock` on the turn while `knock_timing=AnyCardBoundary`.
    KnockInWindow,
    /// The last knocker knocking again (§2.8.2 rule 3).
    LastKnocker {
        seat: Seat,
    },
    /// The stake is already at `max_stake` (§2.8.2 rule 4).
    MaxStake {
        stake: u32,
    },
    /// `knock_cap_by_score` (§2.8.2 rule 5): `raise_to` is the stake the knock would make.
    KnockCapByScore {
        seat: Seat,
        score: u32,
        raise_to: u32,
        limit: u32,
    },
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Why::GameOver => f.write_str("the game is over"),
            Why::WrongDecision {
                seat: p,
                decision,
                action,
            } => {
                let what = match decision {
                    Decision::Laundry => "claim laundry or not (laundry, white-laundry, no-claim)",
                    Decision::LaundryChallenge => "challenge the laundry claim or not",
                    Decision::Poverty => "stay or fold (poverty)",
                    Decision::KnockResponse => "answer the knock (stay or fold)",
                    Decision::KnockWindow => "knock or not (knock window)",
                    Decision::Play => "play a card",
                    Decision::Over => return f.write_str("the game is over"),
                };
                let tried = match action {
                    Action::Play(_) => "play a card",
                    Action::Knock => "knock",
                    Action::NoKnock => "decline to knock",
                    Action::Stay | Action::Fold => "stay or fold",
                    Action::ClaimLaundry | Action::ClaimWhiteLaundry | Action::NoClaim => {
                        "make a laundry decision"
                    }
                    Action::Challenge | Action::NoChallenge => "answer a laundry claim",
                };
                write!(f, "P{p} must {what} now, not {tried}")
            }
            Why::WhiteLaundryOff => {
                f.write_str("white laundry is not played (white_laundry=false)")
            }
            Why::StockShort { cards } => write!(
                f,
                "a laundry claim needs 4 cards in the stock, it holds {cards}"
            ),
            Why::NotHeld { seat, card } => write!(f, "P{seat} does not hold {card}"),
            Why::MustFollow { seat, led } => {
                let led = led.map(|x| x.letter()).unwrap_or('?');
                write!(f, "P{seat} must follow suit {led}")
            }
            Why::KnockingOff => f.write_str("knocking is off (knocking=false)"),
            Why::KnockInWindow => {
                f.write_str("with knock_timing=AnyCardBoundary knocks are made in the knock window")
            }
            Why::LastKnocker { seat } => write!(
                f,
                "P{seat} made the last knock; somebody else must knock first"
            ),
            Why::MaxStake { stake } => write!(f, "the stake is at max_stake ({stake})"),
            Why::KnockCapByScore {
                seat,
                score,
                raise_to,
                limit,
            } => write!(
                f,
                "knock_cap_by_score: P{seat} on {score} may not raise the stake to {raise_to} \
                 (limit {limit})"
            ),
        }
    }
}
