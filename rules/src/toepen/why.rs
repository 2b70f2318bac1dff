//! Why a Toepen action is refused: small values, formatted only when shown (see
//! [`crate::game::IllegalAction`]).

use super::types::{Action, Decision};
use crate::cards::{Card, Seat, Suit};
use std::fmt;

/// The reason an action was refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// Any action once the game has ended (docs/rules/toepen.md#end-of-the-game).
    GameOver,
    /// The action is not of the kind the pending decision takes (docs/rules/toepen.md#decisions:
    /// each decision point has its own actions), e.g. `Play` while answering a knock.
    WrongDecision {
        /// The player to act.
        seat: Seat,
        /// The decision pending.
        decision: Decision,
        /// The action given.
        action: Action,
    },
    /// `ClaimWhiteLaundry` while `white_laundry=false` (docs/rules/toepen.md#white-laundry, a
    /// variant).
    WhiteLaundryOff,
    /// A laundry claim with fewer than 4 cards in the stock (docs/rules/toepen.md#laundry-claims: a
    /// claim needs 4 stock cards; never possible with 8 players).
    StockShort {
        /// Cards in the stock now.
        cards: u8,
    },
    /// `Play` of a card the player does not hold (docs/rules/toepen.md#following-suit: he plays
    /// from his hand).
    NotHeld {
        /// The player to move.
        seat: Seat,
        /// The card named.
        card: Card,
    },
    /// A card off the led suit while holding one of it (docs/rules/toepen.md#following-suit: follow
    /// suit).
    MustFollow {
        /// The player to move.
        seat: Seat,
        /// The led suit (the suit of the trick's first card; always `Some` when this is given,
        /// since the leader may play anything).
        led: Option<Suit>,
    },
    /// `Knock` while `knocking=false` (docs/rules/toepen.md#who-may-knock rule 1; source D's plain
    /// game).
    KnockingOff,
    /// `Knock` at a `Play` decision while `knock_timing=AnyCardBoundary`, where knocks are made
    /// in the knock window (docs/rules/toepen.md#knock-window).
    KnockInWindow,
    /// The last knocker knocking again before anybody else has (docs/rules/toepen.md#who-may-knock
    /// rule 3).
    LastKnocker {
        /// The player, who made the last knock.
        seat: Seat,
    },
    /// A knock with the stake already at `max_stake` (docs/rules/toepen.md#who-may-knock rule 4, a
    /// variant).
    MaxStake {
        /// The stake now.
        stake: u32,
    },
    /// A knock that `knock_cap_by_score` forbids (docs/rules/toepen.md#who-may-knock rule 5, a
    /// variant: `score + stake + 1 <= limit`).
    KnockCapByScore {
        /// The player to move.
        seat: Seat,
        /// His penalty points.
        score: u32,
        /// The stake the knock would make.
        raise_to: u32,
        /// The penalty limit.
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
