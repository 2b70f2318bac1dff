//! UNO's public types: cards, options, actions, events, observation (RULES.md §3).

use crate::cards::Seat;
use serde::{Deserialize, Serialize};

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Color {
    Red = 0,
    Yellow = 1,
    Green = 2,
    Blue = 3,
}

impl Color {
    pub const ALL: [Color; 4] = [Color::Red, Color::Yellow, Color::Green, Color::Blue];
}

/// A UNO card face as one byte: `color * 13 + kind` for coloured cards (kind 0..=9 numbers,
/// 10 Skip, 11 Reverse, 12 Draw Two), 52 Wild, 53 Wild Draw Four. Copies of a face are
/// indistinguishable, so a face is all anyone needs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct UnoCard(pub u8);

/// The number of distinct faces.
pub const FACES: usize = 54;

/// Rule options of RULES.md §3.3 (names as there), plus the dealer and a safety cap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    pub num_players: u8,
    pub hand_size: u8,
    pub scoring: Scoring,
    pub target_score: u32,
    pub wd4_challenge: bool,
    pub wd4_restriction: Wd4Restriction,
    pub start_wild: StartWild,
    pub start_reverse: StartReverse,
    pub draw_rule: DrawRule,
    pub uno_call: UnoCall,
    pub uno_penalty: u8,
    pub stacking: Stacking,
    pub deck_exhaustion: DeckExhaustion,
    /// First dealer; `None` = drawn with the game's RNG.
    pub dealer: Option<Seat>,
    /// Safety cap (§4.5): a hand is aborted after this many turns (reported, not a rule).
    pub turn_limit: u32,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scoring {
    WinnerTakesAll,
    CumulativePenalty,
    SingleHand,
}
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Wd4Restriction {
    NoCardOfCurrentColor,
    NoMatchingCard,
}
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StartWild {
    FirstPlayerChooses,
    Redraw,
}
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StartReverse {
    DealerStarts,
    RightOfDealerStarts,
}
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DrawRule {
    DrawOneMayPlay,
    DrawUntilPlayable,
}
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnoCall {
    Auto,
    Explicit,
}
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stacking {
    None,
    SameKind,
    Progressive,
}
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DeckExhaustion {
    Reshuffle,
    EndHand,
}

/// The kind of decision pending (§3.6).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    ChooseStartColor,
    Turn,
    AfterDraw,
    Wd4Challenge,
    PenaltyTurn,
    UnoCatch,
    Over,
}

/// Every choice an UNO player makes (§3.6). `declare` is `Some` exactly for wild kinds;
/// `uno` matters only with `uno_call=Explicit` (always `false` otherwise).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Action {
    ChooseColor(Color),
    Play {
        card: UnoCard,
        declare: Option<Color>,
        uno: bool,
    },
    Draw,
    PlayDrawn {
        declare: Option<Color>,
        uno: bool,
    },
    Keep,
    Challenge,
    Accept,
    Stack {
        card: UnoCard,
        declare: Option<Color>,
        uno: bool,
    },
    AcceptPenalty,
    CatchUno,
    NoCatch,
}

/// What happened (§3.15).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// Public: a hand is dealt.
    HandStart {
        hand_no: u32,
        dealer: Seat,
    },
    /// Private to `seat`: its dealt hand.
    Hand {
        seat: Seat,
        cards: Vec<UnoCard>,
    },
    /// Public: the start card (and a W4 put back when it was one).
    StartCard {
        card: UnoCard,
    },
    StartReturned {
        card: UnoCard,
    },
    ChooseColor {
        seat: Seat,
        color: Color,
    },
    Play {
        seat: Seat,
        card: UnoCard,
        declare: Option<Color>,
    },
    /// Public: `seat` drew `count` cards (identities private).
    Draw {
        seat: Seat,
        count: u8,
    },
    /// Private to `seat`: what it drew.
    Drew {
        seat: Seat,
        cards: Vec<UnoCard>,
    },
    Keep {
        seat: Seat,
    },
    Skipped {
        seat: Seat,
    },
    Reversed {
        direction: i8,
    },
    Challenge {
        seat: Seat,
        offender: Seat,
        guilty: bool,
    },
    /// Private to the challenger: the offender's hand at the challenge.
    Shown {
        seat: Seat,
        offender: Seat,
        cards: Vec<UnoCard>,
    },
    Accept {
        seat: Seat,
    },
    Stack {
        seat: Seat,
        card: UnoCard,
        declare: Option<Color>,
        pending: u16,
    },
    AcceptPenalty {
        seat: Seat,
        count: u16,
    },
    CatchUno {
        seat: Seat,
        offender: Seat,
    },
    NoCatch {
        seat: Seat,
    },
    Reshuffle {
        cards: u16,
    },
    /// Public (`uno_call=Explicit` only): `seat` called "UNO" with the play that left it one card.
    Uno {
        seat: Seat,
    },
    /// Public: all hands at the end of a hand.
    HandEnd {
        hands: Vec<Vec<UnoCard>>,
        scores: Vec<i64>,
        summary: String,
    },
    GameEnd {
        summary: String,
    },
}

/// What one player may know (§3.15), including the perfect-memory derived knowledge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    pub seat: Seat,
    pub players: u8,
    pub decision: Decision,
    pub hand_no: u32,
    pub dealer: Seat,
    /// Own hand, sorted by face.
    pub hand: Vec<UnoCard>,
    pub top: UnoCard,
    pub color: Color,
    /// +1 clockwise, -1 counter-clockwise.
    pub direction: i8,
    /// Pending stacked penalty (stacking only).
    pub pending: u16,
    pub hand_sizes: Vec<u8>,
    pub draw_pile: u16,
    pub discard_pile: u16,
    pub scores: Vec<i64>,
    /// The card just drawn, in `AfterDraw`.
    pub drawn: Option<UnoCard>,
    /// How many of each face (index = face code) are in the unknown pool (opponents' hands
    /// and the draw pile), from this player's point of view.
    pub unseen: Vec<u8>,
    /// The seat that must decide now (`None` once the game is over).
    pub to_act: Option<Seat>,
    /// The whole discard pile, bottom first (its last entry is `top`). Public history (§3.15);
    /// it is what a reshuffle turns into the next draw pile.
    pub discard: Vec<UnoCard>,
    /// Turns begun in this hand (the `turn_limit` safety cap counts them).
    pub turns: u32,
    /// Per seat: cards this player knows to be in that seat's hand (from a hand shown to him
    /// after his WD4 challenge, minus what that seat played since). Empty for his own seat.
    pub known: Vec<Vec<UnoCard>>,
    /// Per seat and colour (index = `Color as usize`): the most coloured cards of that colour
    /// the seat can hold, proved by a restricted WD4 play or a not-guilty challenge (255 = no
    /// bound). Public.
    pub color_caps: Vec<[u8; 4]>,
    /// Per seat and coloured kind (0..=9, 10 Skip, 11 Reverse, 12 Draw Two): the same kind of
    /// upper bound (`wd4_restriction=NoMatchingCard` only; 255 = no bound). Public.
    pub kind_caps: Vec<[u8; 13]>,
    /// In `UnoCatch`: the player who did not call UNO. In `Wd4Challenge`: the WD4's player.
    pub offender: Option<Seat>,
    /// The pending Wild Draw Four challenge, while one is pending (also during an UNO-catch
    /// window that precedes it).
    pub wd4: Option<Wd4Pending>,
}

/// A Wild Draw Four whose challenge decision is pending (§3.8).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wd4Pending {
    pub offender: Seat,
    pub victim: Seat,
    /// The current colour just before the WD4 was played.
    pub prev_color: Color,
    /// The top card just before the WD4 was played.
    pub prev_top: UnoCard,
    /// Size of the offender's hand right after playing the WD4 (guilt is judged on it).
    pub hand_len: u8,
    /// That hand itself: only in the offender's own observation.
    pub hand: Option<Vec<UnoCard>>,
}
