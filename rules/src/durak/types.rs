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
    /// Safety limit, not a rule (RULES.md §4.5): after this many bouts a game that has not
    /// ended is stopped and reported as aborted (every seat `Draw`). Added by the engine:
    /// with three or more players a game in which the defenders keep taking can cycle.
    #[serde(default = "default_max_bouts")]
    pub max_bouts: u32,
}

/// Default of [`Options::max_bouts`].
pub const DEFAULT_MAX_BOUTS: u32 = 1000;

fn default_max_bouts() -> u32 {
    DEFAULT_MAX_BOUTS
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
    Beat {
        slot: u8,
        card: Card,
    },
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
    Deal {
        dealer: Seat,
        trump: Card,
        talon: u8,
    },
    /// Private to `seat`: the cards dealt to it.
    Hand {
        seat: Seat,
        cards: CardSet,
    },
    /// Public: nobody held a trump and the cards were dealt again (`Redeal`).
    Redeal,
    /// Public: the lowest trump that decided the first attacker (`reveal_lowest_trump`).
    LowestTrump {
        seat: Seat,
        card: Card,
    },
    /// Public: a bout starts.
    BoutStart {
        attacker: Seat,
        defender: Seat,
    },
    Lead {
        seat: Seat,
        cards: CardSet,
    },
    /// `seat` covers the attack card `attack` in table slot `slot` with `card`.
    Beat {
        seat: Seat,
        slot: u8,
        card: Card,
        /// The attack card that was covered (added so the event reads on its own).
        attack: Card,
    },
    ThrowIn {
        seat: Seat,
        card: Card,
    },
    Pass {
        seat: Seat,
    },
    Transfer {
        seat: Seat,
        card: Card,
        new_defender: Seat,
    },
    ShowTrump {
        seat: Seat,
        card: Card,
        new_defender: Seat,
    },
    Take {
        seat: Seat,
    },
    BoutEnd {
        how: BoutEnd,
        cards: CardSet,
    },
    /// Public: `seat` drew `count` cards; `trump` when the face-up trump card was among them.
    Refill {
        seat: Seat,
        count: u8,
        trump: bool,
    },
    /// Private to `seat`: the cards it drew.
    Drew {
        seat: Seat,
        cards: CardSet,
    },
    Out {
        seat: Seat,
    },
    GameEnd {
        summary: String,
    },
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
    // Fields below were added by the engine (§1.12 public information that `determinize`
    // needs to rebuild an exact state).
    /// Who played each attack card of `table` (same order): the player whose hand it left.
    pub attackers: Vec<Seat>,
    /// The seat that led the bout in progress (differs from `attacker` after a transfer;
    /// decides the refill order with `refill_start=OriginalLeader`).
    pub leader: Seat,
    pub dealer: Seat,
    /// Finishing place of every seat (1 = went out first; players who went out at the same
    /// end of bout share a place); 0 = still in the game.
    pub finish: Vec<u8>,
    /// The cards of the own hand that everybody knows (what the others' `known` says about us).
    pub own_known: CardSet,
    /// Certain inference of §1.5: trumps that no hand held at the deal (lower than the revealed
    /// lowest trump, or every trump when nobody held one); such a card can be in a hand only
    /// if that player drew it from the talon.
    pub low_trumps: CardSet,
    /// Per seat: how many cards of `low_trumps` the unknown part of that hand can hold at most
    /// (face-down cards drawn from the talon, minus low trumps it has revealed since).
    pub low_trump_room: Vec<u8>,
}
