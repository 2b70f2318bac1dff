//! UNO's public types: cards, options, actions, events, observation (docs/rules/uno.md).

use crate::cards::Seat;
use serde::{Deserialize, Serialize};

/// The four UNO colours, in the canonical order of docs/rules/README.md#canonical-deck-order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Color {
    /// Red (`R`), index 0.
    Red = 0,
    /// Yellow (`Y`), index 1.
    Yellow = 1,
    /// Green (`G`), index 2.
    Green = 2,
    /// Blue (`B`), index 3.
    Blue = 3,
}

impl Color {
    /// The four colours in canonical order: Red, Yellow, Green, Blue.
    pub const ALL: [Color; 4] = [Color::Red, Color::Yellow, Color::Green, Color::Blue];
}

/// A UNO card face as one byte: `color * 13 + kind` for coloured cards (kind 0..=9 numbers,
/// 10 Skip, 11 Reverse, 12 Draw Two), 52 Wild, 53 Wild Draw Four. Copies of a face are
/// indistinguishable, so a face is all anyone needs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct UnoCard(pub u8);

/// The number of distinct faces.
pub const FACES: usize = 54;

/// Rule options of docs/rules/uno.md#options (names as there), plus the dealer and a safety cap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// Seats at the table, 2..=10. Default 4.
    pub num_players: u8,
    /// Cards dealt to each player (docs/rules/uno.md#setup). Default 7; at least 1, and
    /// `num_players * hand_size + 1` (the start card) may not exceed 108.
    pub hand_size: u8,
    /// How hands are scored and when the game ends (docs/rules/uno.md#going-out-and-scoring).
    /// Default `WinnerTakesAll`.
    pub scoring: Scoring,
    /// The score that ends a multi-hand game (docs/rules/uno.md#going-out-and-scoring); unused with
    /// `SingleHand`. Default 500, at least 1.
    pub target_score: u32,
    /// Whether a Wild Draw Four may always be played and its victim may challenge it (true, the
    /// default, docs/rules/uno.md#wild-draw-four), or the restriction is enforced and an illegal
    /// one is not listed (false).
    pub wd4_challenge: bool,
    /// What a Wild Draw Four requires of the hand (docs/rules/uno.md#wild-draw-four). Default
    /// `NoCardOfCurrentColor`.
    pub wd4_restriction: Wd4Restriction,
    /// What a Wild start card does (docs/rules/uno.md#setup). Default `FirstPlayerChooses`.
    pub start_wild: StartWild,
    /// Who starts after a Reverse start card (docs/rules/uno.md#setup). Default `DealerStarts`.
    pub start_reverse: StartReverse,
    /// What `Draw` does (docs/rules/uno.md#turns). Default `DrawOneMayPlay`.
    pub draw_rule: DrawRule,
    /// Whether players call "UNO" themselves (docs/rules/uno.md#calling-uno). Default `Auto`.
    pub uno_call: UnoCall,
    /// Cards a player draws when caught not calling UNO (`uno_call=Explicit`). Default 2.
    pub uno_penalty: u8,
    /// Whether a Draw Two / Wild Draw Four penalty may be passed on (docs/rules/uno.md#stacking).
    /// Default `None`; any other value needs `wd4_challenge=false`.
    pub stacking: Stacking,
    /// What happens when the draw pile runs out (docs/rules/uno.md#drawing-and-the-empty-pile).
    /// Default `Reshuffle`.
    pub deck_exhaustion: DeckExhaustion,
    /// First dealer; `None` = drawn with the game's RNG.
    pub dealer: Option<Seat>,
    /// Safety cap (docs/rules/README.md#engine-requirements): a hand is aborted after this many
    /// turns (reported, not a rule).
    pub turn_limit: u32,
}

/// How hands are scored and when the game ends (docs/rules/uno.md#going-out-and-scoring). Hand
/// value = the points of the cards in a hand ([`UnoCard::points`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scoring {
    /// The player who goes out scores the hand values of all the others; the game ends after the
    /// hand in which a score reaches `target_score`, and the highest score wins. The default.
    WinnerTakesAll,
    /// Every player adds his own hand value to his score; once a score reaches `target_score` the
    /// lowest score wins.
    CumulativePenalty,
    /// One hand only: the player who goes out wins (under `EndHand`, the lowest hand value); the
    /// hand is scored as in `WinnerTakesAll`.
    SingleHand,
}
/// What a Wild Draw Four requires of the rest of the hand (docs/rules/uno.md#wild-draw-four). Wild
/// cards never count.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Wd4Restriction {
    /// No other card of the current colour. The default.
    NoCardOfCurrentColor,
    /// No other card that matches the top card by colour, number or symbol (source E's wording).
    NoMatchingCard,
}
/// What a Wild turned as the start card does (docs/rules/uno.md#setup).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StartWild {
    /// The player to the dealer's left names the colour (decision `ChooseStartColor`), then takes
    /// his turn. The default.
    FirstPlayerChooses,
    /// The Wild goes back into the draw pile, which is reshuffled, and another card is turned (as
    /// for a Wild Draw Four).
    Redraw,
}
/// Who starts after a Reverse turned as the start card (docs/rules/uno.md#setup); play runs
/// counter-clockwise either way.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StartReverse {
    /// The dealer plays first. The default.
    DealerStarts,
    /// The dealer's right-hand neighbour plays first. With 2 players the dealer starts anyway.
    RightOfDealerStarts,
}
/// What `Draw` does (docs/rules/uno.md#turns).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DrawRule {
    /// Draw one card; if it is playable the player may play it (`PlayDrawn`) or `Keep` it, else the
    /// turn ends. The default.
    DrawOneMayPlay,
    /// House rule: Draw until a playable card comes (or nothing is left to draw); it must then be
    /// played.
    DrawUntilPlayable,
}
/// Who calls "UNO" (docs/rules/uno.md#calling-uno).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnoCall {
    /// The engine calls for everyone; nobody is ever caught, and the `uno` flag of an action must
    /// be false. The default.
    Auto,
    /// A play that leaves the player one card must carry `uno: true`; otherwise the other players
    /// may catch him ([`Action::CatchUno`]) and he draws `uno_penalty` cards.
    Explicit,
}
/// Whether a draw penalty may be passed on (docs/rules/uno.md#stacking, house rule).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stacking {
    /// No: the victim of a Draw Two or Wild Draw Four draws and loses his turn. The default.
    None,
    /// A Draw Two on a pending Draw Two, a Wild Draw Four on a pending Wild Draw Four.
    SameKind,
    /// A Draw Two on a pending Draw Two; a Wild Draw Four on either (never a Draw Two on a Wild
    /// Draw Four). Source E.
    Progressive,
}
/// What happens when the draw pile is empty (docs/rules/uno.md#drawing-and-the-empty-pile).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DeckExhaustion {
    /// The discard pile except its top card is shuffled into a new draw pile
    /// ([`Event::Reshuffle`]). The default.
    Reshuffle,
    /// No reshuffle: at the next turn boundary with an empty draw pile the hand ends, and the
    /// lowest hand value wins (ties: fewer cards; then a shared win). Source E.
    EndHand,
}

/// The kind of decision pending (docs/rules/uno.md#turns).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    /// The start card is a Wild: the player to the dealer's left names the colour
    /// ([`Action::ChooseColor`]).
    ChooseStartColor,
    /// A normal turn: `Play` a playable card, or `Draw`.
    Turn,
    /// The card just drawn is playable ([`Observation::drawn`] for the drawer): `PlayDrawn`, or
    /// `Keep` (only with `DrawOneMayPlay`).
    AfterDraw,
    /// The victim of a Wild Draw Four (with `wd4_challenge`): `Challenge` or `Accept`.
    Wd4Challenge,
    /// With stacking, a draw penalty is pending ([`Observation::pending`]): `Stack` or
    /// `AcceptPenalty`.
    PenaltyTurn,
    /// With `uno_call=Explicit`, a player was left one card without calling UNO; the others are
    /// asked in turn order: `CatchUno` or `NoCatch`.
    UnoCatch,
    /// The game is over; nobody acts.
    Over,
}

/// Every choice an UNO player makes (docs/rules/uno.md#turns). `declare` is `Some` exactly for wild
/// kinds; `uno` matters only with `uno_call=Explicit` (always `false` otherwise).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Action {
    /// Name the colour of a Wild start card (decision `ChooseStartColor`); the same player then
    /// takes his turn.
    ChooseColor(Color),
    /// Play a card from hand (decision `Turn`); it must match the top card
    /// (docs/rules/uno.md#matching).
    Play {
        /// The card.
        card: UnoCard,
        /// The colour named: `Some` exactly for a Wild or Wild Draw Four.
        declare: Option<Color>,
        /// Call UNO with this play (`uno_call=Explicit`, and only on a play that leaves one card).
        uno: bool,
    },
    /// Draw from the draw pile (decision `Turn`; always legal, even holding a playable card). A
    /// playable drawn card leads to `AfterDraw`; otherwise the turn ends.
    Draw,
    /// Play the card just drawn (decision `AfterDraw`).
    PlayDrawn {
        /// The colour named, for a wild drawn card.
        declare: Option<Color>,
        /// Call UNO with this play (as in `Play`).
        uno: bool,
    },
    /// Keep the drawn card and end the turn (decision `AfterDraw`, only with `DrawOneMayPlay`).
    Keep,
    /// The victim challenges the Wild Draw Four just played on him (decision `Wd4Challenge`).
    /// If it broke the restriction, its player draws 4 and the victim plays his turn; if not,
    /// the victim draws 6 and loses his turn.
    Challenge,
    /// The victim accepts the Wild Draw Four: he draws 4 and loses his turn.
    Accept,
    /// With stacking, pass the pending penalty on with a Draw Two or Wild Draw Four from hand
    /// (decision `PenaltyTurn`, docs/rules/uno.md#stacking).
    Stack {
        /// The card stacked.
        card: UnoCard,
        /// The colour named, for a Wild Draw Four.
        declare: Option<Color>,
        /// Call UNO with this play (as in `Play`).
        uno: bool,
    },
    /// Draw the whole pending penalty and lose the turn (decision `PenaltyTurn`).
    AcceptPenalty,
    /// Catch the player who did not call UNO: he draws `uno_penalty` cards (decision `UnoCatch`).
    CatchUno,
    /// Do not catch him; the next player in turn order is asked.
    NoCatch,
}

/// What happened (docs/rules/uno.md#information).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// Public: a hand is dealt.
    HandStart {
        /// Hand number, 1 for the first.
        hand_no: u32,
        /// The dealer of this hand.
        dealer: Seat,
    },
    /// Private to `seat`: its dealt hand.
    Hand {
        /// The seat dealt to.
        seat: Seat,
        /// Its cards, sorted by face.
        cards: Vec<UnoCard>,
    },
    /// Public: the start card (and a W4 put back when it was one).
    StartCard {
        /// The card turned face up.
        card: UnoCard,
    },
    /// Public: the start card went back into the draw pile, which was reshuffled (a Wild Draw Four,
    /// or a Wild with `start_wild=Redraw`); another `StartCard` follows.
    StartReturned {
        /// The card put back.
        card: UnoCard,
    },
    /// Public: `seat` named the start colour.
    ChooseColor {
        /// The player to the dealer's left.
        seat: Seat,
        /// The colour named.
        color: Color,
    },
    /// Public: `seat` played `card` (from hand or just drawn); the top card and colour change.
    Play {
        /// The player.
        seat: Seat,
        /// The card played.
        card: UnoCard,
        /// The colour named for a wild card; `None` for coloured cards.
        declare: Option<Color>,
    },
    /// Public: `seat` drew `count` cards (identities private).
    Draw {
        /// The player who drew (by choice or as a penalty).
        seat: Seat,
        /// Cards drawn; fewer than asked (even 0) when the piles ran out.
        count: u8,
    },
    /// Private to `seat`: what it drew.
    Drew {
        /// The player who drew.
        seat: Seat,
        /// The cards, in the order drawn.
        cards: Vec<UnoCard>,
    },
    /// Public: `seat` keeps the card he drew and his turn ends (also when the engine applies the
    /// keep because the card was unplayable or nothing was drawn).
    Keep {
        /// The player.
        seat: Seat,
    },
    /// Public: `seat` loses his turn: to a Skip, to a Draw Two or Wild Draw Four he had to draw
    /// for (no challenge, no stacking), to a two-player Reverse, or to a Skip or Draw Two start
    /// card.
    Skipped {
        /// The player who loses his turn.
        seat: Seat,
    },
    /// Public: a Reverse (played or turned as start card) changed the direction.
    Reversed {
        /// The new direction: +1 clockwise, -1 counter-clockwise.
        direction: i8,
    },
    /// Public: `seat` challenged `offender`'s Wild Draw Four (docs/rules/uno.md#wild-draw-four).
    Challenge {
        /// The challenger (the victim).
        seat: Seat,
        /// The player of the Wild Draw Four.
        offender: Seat,
        /// True: he broke the restriction and draws 4, and the challenger plays his turn; false:
        /// the challenger draws 6 and loses his turn.
        guilty: bool,
    },
    /// Private to the challenger: the offender's hand at the challenge.
    Shown {
        /// The challenger, the only one who sees the hand.
        seat: Seat,
        /// The player of the Wild Draw Four.
        offender: Seat,
        /// His hand right after playing it, sorted by face.
        cards: Vec<UnoCard>,
    },
    /// Public: `seat` accepts the Wild Draw Four: he draws 4 and loses his turn.
    Accept {
        /// The victim.
        seat: Seat,
    },
    /// Public: `seat` stacks `card` on the pending penalty (docs/rules/uno.md#stacking).
    Stack {
        /// The player.
        seat: Seat,
        /// The Draw Two or Wild Draw Four stacked.
        card: UnoCard,
        /// The colour named for a Wild Draw Four.
        declare: Option<Color>,
        /// The penalty now pending, this card included.
        pending: u16,
    },
    /// Public: `seat` takes the stacked penalty and loses his turn (a `Draw` event says how many he
    /// actually got).
    AcceptPenalty {
        /// The player.
        seat: Seat,
        /// The penalty he must draw.
        count: u16,
    },
    /// Public: `seat` caught `offender` not calling UNO; the offender draws `uno_penalty` cards.
    CatchUno {
        /// The catcher.
        seat: Seat,
        /// The player who did not call.
        offender: Seat,
    },
    /// Public: `seat` does not catch the player who did not call UNO.
    NoCatch {
        /// The player asked.
        seat: Seat,
    },
    /// Public: the discard pile except its top card was shuffled into a new draw pile; wild cards
    /// lose their declared colour.
    Reshuffle {
        /// Cards in the new draw pile.
        cards: u16,
    },
    /// Public (`uno_call=Explicit` only): `seat` called "UNO" with the play that left it one card.
    Uno {
        /// The player who called.
        seat: Seat,
    },
    /// Public: all hands at the end of a hand.
    HandEnd {
        /// Every seat's remaining cards, sorted by face (these values are what is scored).
        hands: Vec<Vec<UnoCard>>,
        /// Every seat's score after this hand.
        scores: Vec<i64>,
        /// The result of the hand in words, e.g. who went out and what he scored.
        summary: String,
    },
    /// Public: the game is over (docs/rules/uno.md#going-out-and-scoring).
    GameEnd {
        /// The outcome in words, as [`Outcome::summary`](crate::Outcome::summary).
        summary: String,
    },
}

/// What one player may know (docs/rules/uno.md#information), including the perfect-memory derived
/// knowledge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// The observing seat.
    pub seat: Seat,
    /// Seats at the table.
    pub players: u8,
    /// The kind of decision pending for `to_act`.
    pub decision: Decision,
    /// Hand number, 1 for the first.
    pub hand_no: u32,
    /// The dealer of this hand.
    pub dealer: Seat,
    /// Own hand, sorted by face.
    pub hand: Vec<UnoCard>,
    /// The top card of the discard pile (a wild on top says nothing about the colour: see `color`).
    pub top: UnoCard,
    /// The current colour: the top card's colour, or the colour declared for the wild on top
    /// (while a Wild start card's colour is still to be named, `Red` as a placeholder).
    pub color: Color,
    /// +1 clockwise, -1 counter-clockwise.
    pub direction: i8,
    /// Pending stacked penalty (stacking only).
    pub pending: u16,
    /// Cards in every seat's hand.
    pub hand_sizes: Vec<u8>,
    /// Cards in the draw pile.
    pub draw_pile: u16,
    /// Cards in the discard pile, the top card included.
    pub discard_pile: u16,
    /// Every seat's score so far (points won, or with `CumulativePenalty` the hand values added
    /// up).
    pub scores: Vec<i64>,
    /// The card just drawn, in `AfterDraw`: only in the drawer's own observation (`None` in
    /// everyone else's).
    pub drawn: Option<UnoCard>,
    /// How many of each face (index = face code) are in the unknown pool (opponents' hands
    /// and the draw pile), from this player's point of view.
    pub unseen: Vec<u8>,
    /// The seat that must decide now (`None` once the game is over).
    pub to_act: Option<Seat>,
    /// The whole discard pile, bottom first (its last entry is `top`). Public history
    /// (docs/rules/uno.md#information); it is what a reshuffle turns into the next draw pile.
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

/// A Wild Draw Four whose challenge decision is pending (docs/rules/uno.md#wild-draw-four).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wd4Pending {
    /// The player of the Wild Draw Four.
    pub offender: Seat,
    /// The next player, who may challenge it.
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
