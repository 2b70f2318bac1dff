//! Toepen's public types: options, actions, events, observation (RULES.md §2).

use crate::cards::{Card, CardSet, Seat};
use serde::{Deserialize, Serialize};

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GameEnd {
    LastSurvivor,
    FirstToLimit,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum KnockTiming {
    OnTurn,
    AnyCardBoundary,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NextDealer {
    RoundWinner,
    RotateLeft,
}

/// Rule options of RULES.md §2.3 (names as there), plus the first dealer and a safety cap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    pub num_players: u8,
    pub limit: u32,
    pub game_end: GameEnd,
    pub knocking: bool,
    pub knock_timing: KnockTiming,
    pub max_stake: Option<u32>,
    pub knock_cap_by_score: bool,
    pub laundry: bool,
    pub laundry_penalty: u32,
    pub caught_bluffer_keeps_new_hand: bool,
    pub white_laundry: bool,
    pub poverty: bool,
    pub next_dealer: NextDealer,
    /// First dealer; `None` = drawn with the game's RNG.
    pub dealer: Option<Seat>,
    /// Safety cap: the game is aborted (not a rule) after this many rounds.
    pub max_rounds: u32,
}

/// The kind of decision pending (§2.6).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    Laundry,
    LaundryChallenge,
    Poverty,
    Play,
    KnockWindow,
    KnockResponse,
    Over,
}

/// Every choice a Toepen player makes (§2.6).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Action {
    Play(Card),
    Knock,
    NoKnock,
    Stay,
    Fold,
    ClaimLaundry,
    ClaimWhiteLaundry,
    NoClaim,
    Challenge,
    NoChallenge,
}

/// What happened (§2.14). Private events carry hidden card identities.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// Public: a round is dealt.
    RoundStart { round: u32, dealer: Seat, leader: Seat, stake: u32, stock: u8 },
    /// Private to `seat`: its hand.
    Hand { seat: Seat, cards: CardSet },
    Laundry { seat: Seat, white: bool },
    NoClaim { seat: Seat },
    /// Public: `seat` challenged; the set-aside hand is shown; `genuine` says who pays.
    Challenge { seat: Seat, claimant: Seat, revealed: CardSet, genuine: bool },
    NoChallenge { seat: Seat },
    /// Private to `seat`: the new cards after a laundry claim (or old hand given back).
    NewHand { seat: Seat, cards: CardSet },
    Poverty { seat: Seat, stay: bool },
    Knock { seat: Seat, stake: u32 },
    NoKnock { seat: Seat },
    Response { seat: Seat, stay: bool },
    Play { seat: Seat, card: Card },
    TrickWon { trick: u8, seat: Seat },
    Penalty { seat: Seat, points: u32, score: u32 },
    Eliminated { seat: Seat },
    RoundEnd { winner: Seat },
    GameEnd { summary: String },
}

/// What one player may know (§2.14), including the perfect-memory derived knowledge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    pub seat: Seat,
    pub players: u8,
    pub decision: Decision,
    pub round: u32,
    pub dealer: Seat,
    pub hand: CardSet,
    pub scores: Vec<u32>,
    /// Bit `s` = seat `s` is eliminated from the game.
    pub eliminated: u8,
    /// Bit `s` = seat `s` is live in this round (dealt in, not folded).
    pub live: u8,
    pub stake: u32,
    pub last_knocker: Option<Seat>,
    pub stock: u8,
    /// Current trick, 1..=4.
    pub trick_no: u8,
    pub leader: Seat,
    /// Cards played to the current trick, in order.
    pub trick: Vec<(Seat, Card)>,
    /// Winners of the completed tricks of this round, in order.
    pub trick_winners: Vec<Seat>,
    /// Cards each seat has played this round.
    pub played: Vec<CardSet>,
    /// Cards each seat holds now.
    pub hand_counts: Vec<u8>,
    /// Suits each seat is known to lack (bit = suit index), this round.
    pub voids: Vec<u8>,
    /// Cards this player has not seen this round.
    pub unseen: CardSet,
    /// Own set-aside laundry hand, if this player exchanged one.
    pub own_laundry: CardSet,
    /// Laundry hands revealed by challenges this round.
    pub revealed: CardSet,
}
