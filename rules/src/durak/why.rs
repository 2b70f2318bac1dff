//! Why a Durak action is refused: small values, formatted only when shown (see
//! [`crate::game::IllegalAction`]).

use super::types::Phase;
use crate::cards::{Card, CardSet, Seat, Suit};
use std::fmt;

/// The reason an action was refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Why {
    GameOver,
    /// The action is not of a kind the phase takes.
    WrongPhase(Phase),
    NotInHand {
        seat: Seat,
        card: Card,
    },
    /// The cards of a multiple lead that the player does not hold.
    NotAllInHand {
        seat: Seat,
        missing: CardSet,
    },
    /// `LeadMany` while `multi_card_lead` is off.
    MultiLeadOff,
    /// A `LeadMany` of fewer than 2 or more than 4 cards.
    MultiLeadSize,
    MultiLeadMixedRanks,
    /// A multiple lead over `min(cap, defender's cards)` (§1.8.3).
    MultiLeadOverLimit {
        cap: u8,
        defender_holds: u8,
    },
    NoSlot(u8),
    SlotCovered {
        slot: u8,
        attack: Card,
    },
    DoesNotBeat {
        card: Card,
        attack: Card,
        trump: Suit,
    },
    /// A transfer while `transfer` is off.
    TransferOff,
    /// A shown-trump transfer while `transfer_by_showing_trump` is off.
    ShowTrumpOff,
    /// `no_transfer_in_first_bout`.
    TransferInFirstBout,
    /// A transfer after a card was beaten (§1.8.5).
    TransferAfterBeat,
    NotAttackRank(Card),
    NotTrump(Card),
    AlreadyShown(Card),
    /// The transfer would put more than the bout cap on the table.
    TransferOverCap {
        cap: u8,
    },
    /// The new defender holds fewer cards than there would be attack cards.
    TargetTooShort {
        seat: Seat,
        holds: u8,
        attack_cards: u8,
    },
    RankNotOnTable(Card),
    BoutFull,
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Why::GameOver => f.write_str("the game is over"),
            Why::WrongPhase(phase) => write!(f, "not a possible action in phase {phase:?}"),
            Why::NotInHand { seat, card } => write!(f, "{card} is not in P{seat}'s hand"),
            Why::NotAllInHand { seat, missing } => {
                write!(f, "{missing} is not in P{seat}'s hand")
            }
            Why::MultiLeadOff => f.write_str("leading several cards needs multi_card_lead=true"),
            Why::MultiLeadSize => {
                f.write_str("a multiple lead has 2 to 4 cards (lead one card with `lead`)")
            }
            Why::MultiLeadMixedRanks => {
                f.write_str("the cards of a multiple lead must share one rank")
            }
            Why::MultiLeadOverLimit {
                cap,
                defender_holds,
            } => write!(
                f,
                "at most {} attack cards in this bout (cap {cap}, defender holds {defender_holds})",
                cap.min(defender_holds)
            ),
            Why::NoSlot(slot) => write!(f, "there is no table slot {slot}"),
            Why::SlotCovered { slot, attack } => {
                write!(f, "slot {slot} ({attack}) is already covered")
            }
            Why::DoesNotBeat {
                card,
                attack,
                trump,
            } => write!(f, "{card} does not beat {attack} (trump {trump})"),
            Why::TransferOff => f.write_str("transfers need transfer=true"),
            Why::ShowTrumpOff => {
                f.write_str("showing a trump needs transfer_by_showing_trump=true")
            }
            Why::TransferInFirstBout => {
                f.write_str("no transfer in the first bout (no_transfer_in_first_bout)")
            }
            Why::TransferAfterBeat => {
                f.write_str("a card is already covered: transfer only before beating")
            }
            Why::NotAttackRank(card) => write!(f, "{card} is not of the attack rank"),
            Why::NotTrump(card) => write!(f, "{card} is not a trump"),
            Why::AlreadyShown(card) => write!(f, "{card} was already shown in this bout"),
            Why::TransferOverCap { cap } => {
                write!(f, "the bout would hold more than {cap} cards")
            }
            Why::TargetTooShort {
                seat,
                holds,
                attack_cards,
            } => write!(
                f,
                "P{seat} holds {holds} card{}, fewer than the {attack_cards} attack cards",
                if holds == 1 { "" } else { "s" }
            ),
            Why::RankNotOnTable(card) => write!(f, "no card of {card}'s rank is on the table"),
            Why::BoutFull => f.write_str("the bout is full"),
        }
    }
}
