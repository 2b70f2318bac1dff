//! Why an UNO action is refused: small values, formatted only when shown (see
//! [`crate::game::IllegalAction`]).

use super::types::{Color, Stacking, UnoCard};
use crate::cards::Seat;
use std::fmt;

/// The reason an action was refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Why {
    GameOver,
    /// The action is not of the kind the pending decision takes.
    WrongDecision {
        seat: Seat,
        expected: Expected,
    },
    NotACard(u8),
    NotHeld {
        seat: Seat,
        card: UnoCard,
    },
    NeedsColour(UnoCard),
    NotWild(UnoCard),
    /// The `uno` flag on a play that does not leave one card.
    UnoFlagNotLastCard,
    /// The `uno` flag while calls are not explicit.
    UnoFlagNotExplicit,
    /// The Wild Draw Four restriction (§3.8).
    Wd4Restricted {
        seat: Seat,
    },
    CannotStack {
        card: UnoCard,
        top: UnoCard,
        stacking: Stacking,
    },
    NoMatch {
        card: UnoCard,
        top: UnoCard,
        colour: Color,
    },
    /// `keep` under `draw_rule=DrawUntilPlayable`.
    DrawnMustBePlayed,
}

/// The decision that is pending, as a refusal names it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    StartColour,
    Turn,
    DrawnMayPlay,
    DrawnMustPlay,
    Wd4Challenge,
    Penalty { pending: u16 },
    Catch { offender: Seat },
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Why::GameOver => f.write_str("the game is over"),
            Why::WrongDecision { seat: p, expected } => match expected {
                Expected::StartColour => write!(f, "P{p} must choose the start colour (color ...)"),
                Expected::Turn => write!(f, "it is P{p}'s turn: play a card or draw"),
                Expected::DrawnMayPlay => {
                    write!(f, "P{p} just drew a playable card: play-drawn or keep")
                }
                Expected::DrawnMustPlay => {
                    write!(f, "P{p} must play the card just drawn (play-drawn)")
                }
                Expected::Wd4Challenge => {
                    write!(f, "P{p} must challenge or accept the Wild Draw Four")
                }
                Expected::Penalty { pending } => write!(
                    f,
                    "P{p} must stack a draw card or accept-penalty ({pending})"
                ),
                Expected::Catch { offender } => {
                    write!(f, "P{p} must catch P{offender} (catch) or not (no-catch)")
                }
            },
            Why::NotACard(code) => write!(f, "face code {code} is not a card"),
            Why::NotHeld { seat, card } => write!(f, "P{seat} does not hold {card}"),
            Why::NeedsColour(card) => {
                write!(f, "{card} needs a declared colour (e.g. `{card} red`)")
            }
            Why::NotWild(card) => write!(f, "{card} is not a wild card and declares no colour"),
            Why::UnoFlagNotLastCard => {
                f.write_str("the uno flag is only used when the play leaves one card")
            }
            Why::UnoFlagNotExplicit => {
                f.write_str("the uno flag is only used with uno_call=Explicit")
            }
            Why::Wd4Restricted { seat } => write!(
                f,
                "P{seat} holds a card that forbids the Wild Draw Four (restriction)"
            ),
            Why::CannotStack {
                card,
                top,
                stacking,
            } => write!(
                f,
                "{card} cannot be stacked on {top} with stacking={stacking:?}"
            ),
            Why::NoMatch { card, top, colour } => {
                write!(f, "{card} does not match {top} with colour {colour}")
            }
            Why::DrawnMustBePlayed => {
                f.write_str("with draw_rule=DrawUntilPlayable the drawn card must be played")
            }
        }
    }
}
