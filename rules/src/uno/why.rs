//! Why an UNO action is refused: small values, formatted only when shown (see
//! [`crate::game::IllegalAction`]).

use super::types::{Color, Stacking, UnoCard};
use crate::cards::Seat;
use std::fmt;

/// The reason an action was refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// Any action once the game has ended (docs/rules/uno.md#going-out-and-scoring).
    GameOver,
    /// The action is not of the kind the pending decision takes (docs/rules/uno.md#turns: the table
    /// of decisions and their actions), e.g. `Draw` in a Wild Draw Four challenge.
    WrongDecision {
        /// The player to act.
        seat: Seat,
        /// The decision pending, with the actions it takes.
        expected: Expected,
    },
    /// A card whose face code names no card (54 or more); only a hand-built [`UnoCard`] can
    /// carry one. Holds the code.
    NotACard(u8),
    /// `Play` or `Stack` of a card the player does not hold.
    NotHeld {
        /// The player to act.
        seat: Seat,
        /// The card named.
        card: UnoCard,
    },
    /// A Wild or Wild Draw Four played (or stacked) without a declared colour
    /// (docs/rules/uno.md#matching: the player names one of the four colours); holds the card.
    NeedsColour(UnoCard),
    /// A declared colour on a card that is not wild; holds the card.
    NotWild(UnoCard),
    /// The `uno` flag on a play that does not leave the player exactly one card
    /// (docs/rules/uno.md#turns: the flag matters only then).
    UnoFlagNotLastCard,
    /// The `uno` flag while `uno_call=Auto` (docs/rules/uno.md#calling-uno: the engine calls for
    /// everyone).
    UnoFlagNotExplicit,
    /// A Wild Draw Four the restriction forbids (docs/rules/uno.md#wild-draw-four: another card of
    /// the current colour in hand, or with `NoMatchingCard` any matching card): given when the
    /// engine enforces it, i.e. with `wd4_challenge=false` (always the case with stacking).
    Wd4Restricted {
        /// The player, who holds such a card.
        seat: Seat,
    },
    /// A card that may not be stacked on the pending penalty (docs/rules/uno.md#stacking: only a
    /// Draw Two on a Draw Two, and a Wild Draw Four on a Wild Draw Four, or with `Progressive` on
    /// either).
    CannotStack {
        /// The card offered.
        card: UnoCard,
        /// The top card, the last penalty card played.
        top: UnoCard,
        /// The stacking rule in force.
        stacking: Stacking,
    },
    /// A coloured card that matches the top card neither by colour, nor by number or symbol
    /// (docs/rules/uno.md#matching).
    NoMatch {
        /// The card offered.
        card: UnoCard,
        /// The top card.
        top: UnoCard,
        /// The current colour.
        colour: Color,
    },
    /// `Keep` under `draw_rule=DrawUntilPlayable`, where the playable card drawn must be
    /// played (docs/rules/uno.md#turns).
    DrawnMustBePlayed,
}

/// The decision that is pending, as a refusal names it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// `ChooseColor` for a Wild start card.
    StartColour,
    /// `Play` or `Draw`.
    Turn,
    /// `PlayDrawn` or `Keep` (`draw_rule=DrawOneMayPlay`).
    DrawnMayPlay,
    /// `PlayDrawn` only (`draw_rule=DrawUntilPlayable`).
    DrawnMustPlay,
    /// `Challenge` or `Accept` a Wild Draw Four.
    Wd4Challenge,
    /// `Stack` or `AcceptPenalty`.
    Penalty {
        /// The cards the pending penalty would make him draw.
        pending: u16,
    },
    /// `CatchUno` or `NoCatch`.
    Catch {
        /// The player who did not call UNO.
        offender: Seat,
    },
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
