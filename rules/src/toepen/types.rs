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
    RoundStart {
        round: u32,
        dealer: Seat,
        leader: Seat,
        stake: u32,
        stock: u8,
    },
    /// Private to `seat`: its hand.
    Hand {
        seat: Seat,
        cards: CardSet,
    },
    Laundry {
        seat: Seat,
        white: bool,
    },
    NoClaim {
        seat: Seat,
    },
    /// Public: `seat` challenged; the set-aside hand is shown; `genuine` says who pays.
    Challenge {
        seat: Seat,
        claimant: Seat,
        revealed: CardSet,
        genuine: bool,
    },
    NoChallenge {
        seat: Seat,
    },
    /// Private to `seat`: the new cards after a laundry claim (or old hand given back).
    NewHand {
        seat: Seat,
        cards: CardSet,
    },
    Poverty {
        seat: Seat,
        stay: bool,
    },
    Knock {
        seat: Seat,
        stake: u32,
    },
    NoKnock {
        seat: Seat,
    },
    Response {
        seat: Seat,
        stay: bool,
    },
    Play {
        seat: Seat,
        card: Card,
    },
    TrickWon {
        trick: u8,
        seat: Seat,
    },
    Penalty {
        seat: Seat,
        points: u32,
        score: u32,
    },
    Eliminated {
        seat: Seat,
    },
    RoundEnd {
        winner: Seat,
    },
    GameEnd {
        summary: String,
    },
    /// Public: a caught bluffer (with `caught_bluffer_keeps_new_hand=false`) takes his revealed
    /// old hand back; his 4 new cards go face down to the bottom of the stock (2.9.2).
    HandBack {
        seat: Seat,
    },
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

    // ---- Added by the engine: public state that `determinize` needs, plus the seat's own
    // ---- private knowledge. Nothing here is hidden from `seat`.
    /// The seat that must decide now (`None` once the game is over).
    pub to_act: Option<Seat>,
    /// Bit `s` = seat `s` was dealt in this round.
    pub dealt: u8,
    /// Stake each seat folded at and will pay (2.8.5; 1 for a poverty fold); 0 = not folded.
    pub fold_stakes: Vec<u32>,
    /// Bit `s` = seat `s`'s card in the current trick is dead (he folded after playing, 2.7.3).
    pub dead: u8,
    /// Completed tricks of this round, each as (seat, card) in play order.
    pub past_tricks: Vec<Vec<(Seat, Card)>>,
    /// Bit `s` = seat `s` is poor this round (2.10; 0 when poverty does not apply).
    pub poor: u8,
    /// Bit `s` = seat `s` has had its laundry turn this round.
    pub laundry_done: u8,
    /// Bit `s` = seat `s` claimed laundry this round (either type).
    pub claimed: u8,
    /// Bit `s` = seat `s`'s claim was a white-laundry claim.
    pub white_claims: u8,
    /// Bit `s` = seat `s`'s claim was challenged (its set-aside hand is in `revealed_by`).
    pub challenged: u8,
    /// Bit `s` = seat `s` was a caught bluffer who took his old (revealed) hand back.
    pub returned: u8,
    /// Per seat: its laundry hand revealed by a challenge this round (empty if none).
    pub revealed_by: Vec<CardSet>,
    /// The claimant whose challenge window is open (decision `LaundryChallenge`).
    pub claimant: Option<Seat>,
    /// Bit `s` = seat `s` has made its poverty decision this round.
    pub poverty_done: u8,
    /// `knock_timing=AnyCardBoundary`: the open knock window as (first seat asked, offset of
    /// the seat being asked or of the knocker being answered).
    pub knock_window: Option<(Seat, u8)>,
    /// Per seat `c`: bit `s` = seat `s` knows `c`'s whole hand (public fact: `c` holds a
    /// returned laundry hand, or cards `s` put under the stock; 0xFF = everybody).
    pub hand_knowers: Vec<u8>,
    /// Stock blocks of 4 (index 0 = top) whose cards some seats know, as (block, seat mask).
    pub stock_knowers: Vec<(u8, u8)>,
    /// Per seat: the cards of that seat's hand this player knows (own seat: the whole hand).
    pub known_cards: Vec<CardSet>,
    /// Stock blocks this player knows the cards of, as (block index from the top, cards).
    pub known_stock: Vec<(u8, CardSet)>,
    /// Per seat: the moment (1, 2, ...) it was eliminated at; 0 = still in the game.
    pub eliminated_at: Vec<u32>,
}

/// A directly built round for tests and tools (`Toepen::from_setup`): fixed hands and stock.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Setup {
    /// One entry per seat: the 4 cards dealt (empty for an eliminated seat).
    pub hands: Vec<CardSet>,
    /// The stock, top card first (its length must be a multiple of 4).
    pub stock: Vec<Card>,
    /// The dealer of this round.
    pub dealer: Seat,
    /// Penalty points per seat (empty = all 0).
    pub scores: Vec<u32>,
    /// Bit `s` = seat `s` is already eliminated.
    pub eliminated: u8,
    /// Round number (0 = 1).
    pub round: u32,
    /// Seed of the state's RNG (later rounds are shuffled with it).
    pub seed: u64,
}
