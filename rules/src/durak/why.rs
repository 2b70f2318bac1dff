//! Why a Durak action is refused: small values, formatted only when shown (see
//! [`crate::game::IllegalAction`]).

use super::types::Phase;
use crate::cards::{Card, CardSet, Seat, Suit};
use std::fmt;

/// The reason an action was refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// Any action once the game has ended (docs/rules/durak.md#end-of-the-game: at most one player,
    /// or one team, still holds cards).
    GameOver,
    /// The action is not of a kind the phase takes (docs/rules/durak.md#the-bout: `Lead` in phase
    /// Lead; `Beat`, `Transfer`, `ShowTrumpTransfer`, `Take` in Defend; `ThrowIn`, `Pass` in
    /// ThrowIn). Holds the current phase.
    WrongPhase(Phase),
    /// The card to lead, beat with, transfer with, show or throw in is not in the acting
    /// player's hand (docs/rules/durak.md#the-bout: every card comes from the actor's hand).
    NotInHand {
        /// The acting player (under PartnerProxy the controller, whose one hand serves both
        /// his seats).
        seat: Seat,
        /// The card named.
        card: Card,
    },
    /// The cards of a multiple lead that the player does not hold (docs/rules/durak.md#lead, a
    /// variant).
    NotAllInHand {
        /// The leading player.
        seat: Seat,
        /// The named cards that are not in his hand.
        missing: CardSet,
    },
    /// `LeadMany` while `multi_card_lead` is off (docs/rules/durak.md#lead: one card per lead).
    MultiLeadOff,
    /// A `LeadMany` of fewer than 2 or more than 4 cards (one card is led with `Lead`; a rank
    /// has four cards).
    MultiLeadSize,
    /// A `LeadMany` whose cards are not all of one rank (docs/rules/durak.md#lead, a variant).
    MultiLeadMixedRanks,
    /// A multiple lead of more cards than `min(cap, h0)` (docs/rules/durak.md#lead with
    /// docs/rules/durak.md#bout-limit).
    MultiLeadOverLimit {
        /// The bout's cap now: `first_bout_cap` while the discard is empty, else `bout_cap`.
        cap: u8,
        /// `h0`: the defender's hand size when the bout started.
        defender_holds: u8,
    },
    /// `Beat` names a table slot that does not exist (docs/rules/durak.md#defend: `slot` is a pair
    /// on the table); holds the slot given.
    NoSlot(u8),
    /// `Beat` on a slot whose attack card is already covered (docs/rules/durak.md#defend: `slot` is
    /// an uncovered pair; one defence card per attack card, docs/rules/durak.md#beating).
    SlotCovered {
        /// The slot named.
        slot: u8,
        /// Its attack card.
        attack: Card,
    },
    /// `Beat` with a card that does not beat the attack card (the beat relation,
    /// docs/rules/durak.md#beat-relation: higher of the same suit, or a trump on a non-trump).
    DoesNotBeat {
        /// The defence card offered.
        card: Card,
        /// The attack card of the slot.
        attack: Card,
        /// The trump suit.
        trump: Suit,
    },
    /// A transfer of either kind while `transfer` is off (docs/rules/durak.md#transfer rule 1).
    TransferOff,
    /// A shown-trump transfer while `transfer_by_showing_trump` is off
    /// (docs/rules/durak.md#transfer, a variant).
    ShowTrumpOff,
    /// A transfer in the game's first bout with `no_transfer_in_first_bout`
    /// (docs/rules/durak.md#transfer rule 6).
    TransferInFirstBout,
    /// A transfer after a card was beaten in this bout (docs/rules/durak.md#transfer rule 2:
    /// transfer only on the first move of the defence).
    TransferAfterBeat,
    /// A transfer card (or shown trump) whose rank is not the attack cards' rank
    /// (docs/rules/durak.md#transfer rule 3); holds the card.
    NotAttackRank(Card),
    /// `ShowTrumpTransfer` with a card that is not a trump (docs/rules/durak.md#transfer, a
    /// variant); holds the card.
    NotTrump(Card),
    /// A trump shown for a transfer a second time in the same bout (docs/rules/durak.md#transfer, a
    /// variant: at most once per bout); holds the card.
    AlreadyShown(Card),
    /// The transfer would put more attack cards on the table than the bout's cap
    /// (docs/rules/durak.md#transfer rule 4: `attack_count + 1 <= cap`; a shown trump adds no
    /// card).
    TransferOverCap {
        /// The bout's cap now.
        cap: u8,
    },
    /// The new defender holds fewer cards than there would be attack cards
    /// (docs/rules/durak.md#transfer rule 5; for a shown trump, fewer than the attack cards now on
    /// the table).
    TargetTooShort {
        /// The transfer target's seat (under PartnerProxy, its controller's hand is counted).
        seat: Seat,
        /// Cards in the target's hand.
        holds: u8,
        /// Attack cards he would face.
        attack_cards: u8,
    },
    /// A throw-in whose rank is on no table card, attack or defence
    /// (docs/rules/durak.md#rank-rule); holds the card.
    RankNotOnTable(Card),
    /// A throw-in when the bout already holds `limit` attack cards
    /// (docs/rules/durak.md#bout-limit). The engine ends a bout the moment its room is 0, so no
    /// real game gives this reason; only a state built from a forged observation can.
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
