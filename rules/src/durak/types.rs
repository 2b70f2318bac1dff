//! Durak's public types: options, actions, events, observation (RULES.md §1).

use crate::cards::{Card, CardSet, Seat, Suit};
use serde::{Deserialize, Serialize};

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Deck {
    Deck24,
    Deck36,
    Deck52,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Teams {
    None,
    Partnerships,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ThrowInBy {
    AllOpponents,
    Neighbours,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FirstAttacker {
    LowestTrump,
    LeftOfDealer,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NoTrumpFallback {
    LeftOfDealer,
    Redeal,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RefillStart {
    FinalAttacker,
    OriginalLeader,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TeamExitRule {
    PartnerProxy,
    SkipOut,
}

/// Rule options of RULES.md §1.3 (names as there), plus the dealer and a safety cap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    pub deck: Deck,
    pub num_players: u8,
    pub hand_size: u8,
    pub teams: Teams,
    pub transfer: bool,
    pub transfer_by_showing_trump: bool,
    pub no_transfer_in_first_bout: bool,
    pub multi_card_lead: bool,
    pub bout_cap: u8,
    pub first_bout_cap: Option<u8>,
    pub throw_in_by: ThrowInBy,
    pub throw_in_after_take: bool,
    pub first_attacker: FirstAttacker,
    pub no_trump_fallback: NoTrumpFallback,
    pub reveal_lowest_trump: bool,
    pub refill_start: RefillStart,
    pub team_exit_rule: TeamExitRule,
    /// Dealer of the game; `None` = drawn with the game's RNG (§0.2).
    pub dealer: Option<Seat>,
}

/// Phase of the bout in progress (§1.7).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    Lead,
    Defend,
    ThrowIn,
    Over,
}

/// Every choice a Durak player makes (§1.7).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Action {
    /// Lead one card (phase Lead).
    Lead(Card),
    /// Lead several cards of one rank (only with `multi_card_lead`, 2..=4 cards).
    LeadMany(CardSet),
    /// Cover the uncovered attack card in table slot `slot` with `card`.
    Beat { slot: u8, card: Card },
    Transfer(Card),
    ShowTrumpTransfer(Card),
    Take,
    ThrowIn(Card),
    Pass,
}

/// How a bout ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BoutEnd {
    Beaten,
    Taken,
}

/// What happened (§1.12). Private events carry card identities; each has a public twin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// Public: the deal; the trump card is face up (or the dealer's shown last card).
    Deal { dealer: Seat, trump: Card, talon: u8 },
    /// Private to `seat`: the cards dealt to it.
    Hand { seat: Seat, cards: CardSet },
    /// Public: nobody held a trump and the cards were dealt again (`Redeal`).
    Redeal,
    /// Public: the lowest trump that decided the first attacker (`reveal_lowest_trump`).
    LowestTrump { seat: Seat, card: Card },
    /// Public: a bout starts.
    BoutStart { attacker: Seat, defender: Seat },
    Lead { seat: Seat, cards: CardSet },
    Beat { seat: Seat, slot: u8, card: Card },
    ThrowIn { seat: Seat, card: Card },
    Pass { seat: Seat },
    Transfer { seat: Seat, card: Card, new_defender: Seat },
    ShowTrump { seat: Seat, card: Card, new_defender: Seat },
    Take { seat: Seat },
    BoutEnd { how: BoutEnd, cards: CardSet },
    /// Public: `seat` drew `count` cards; `trump` when the face-up trump card was among them.
    Refill { seat: Seat, count: u8, trump: bool },
    /// Private to `seat`: the cards it drew.
    Drew { seat: Seat, cards: CardSet },
    Out { seat: Seat },
    GameEnd { summary: String },
}

/// What one player may know (§1.12), including the perfect-memory derived knowledge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// The observing player.
    pub seat: Seat,
    /// The seat the current decision is made for (differs from `seat` under PartnerProxy).
    pub acting_for: Seat,
    pub players: u8,
    pub teams: bool,
    /// The trump card (face up under the talon, or the dealer's shown last card).
    pub trump: Card,
    pub trump_suit: Suit,
    /// Who drew the trump card (or the dealer who holds it with no talon); `None` while it lies
    /// under the talon.
    pub trump_holder: Option<Seat>,
    /// Cards in the talon, the face-up trump card included.
    pub talon: u8,
    /// Own hand.
    pub hand: CardSet,
    /// Hand size of every seat.
    pub hand_sizes: Vec<u8>,
    /// Bit `s` set = seat `s` is out.
    pub out: u8,
    pub phase: Phase,
    /// Principal attacker of the bout in progress.
    pub attacker: Seat,
    pub defender: Seat,
    /// Defender's hand size when it became defender (§1.8.3).
    pub h0: u8,
    /// Attack cards this bout may hold (`min(cap, h0)`).
    pub limit: u8,
    pub taking: bool,
    /// Bit `s` set = seat `s` passed since the table last changed.
    pub passed: u8,
    /// The bout: `(attack, defence)` per slot, in the order played.
    pub table: Vec<(Card, Option<Card>)>,
    /// Trumps shown for a transfer in this bout (variant).
    pub shown: CardSet,
    /// Exact set of discarded cards.
    pub discard: CardSet,
    /// Cards known to be in each seat's hand (own seat: the whole hand).
    pub known: Vec<CardSet>,
    /// Cards whose place is unknown to this player (other hands' unknown cards and the talon
    /// under the trump card).
    pub unseen: CardSet,
    /// Bouts started so far (1 during the first bout).
    pub bout: u16,
}
