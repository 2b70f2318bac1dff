//! Toepen's public types: options, actions, events, observation (docs/rules/toepen.md).

use crate::cards::{Card, CardSet, Seat};
use serde::{Deserialize, Serialize};

/// How the game ends (docs/rules/toepen.md#end-of-the-game).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GameEnd {
    /// A player whose score reaches `limit` is eliminated; the last player left wins, the others
    /// are ranked by when they were eliminated (later is better). The default.
    LastSurvivor,
    /// The game ends as soon as any score reaches `limit`: every player at or over it loses, all
    /// others win together.
    FirstToLimit,
}

/// When a player may knock (docs/rules/toepen.md#knock-on-turn, docs/rules/toepen.md#knock-window).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum KnockTiming {
    /// Only at his own `Play` decision, before playing his card. The default.
    OnTurn,
    /// Before every card a knock window asks each live player who may knock, clockwise from the
    /// player about to play ([`Decision::KnockWindow`]).
    AnyCardBoundary,
}

/// Who deals the next round (docs/rules/toepen.md#end-of-a-round).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NextDealer {
    /// The winner of the round, so the player to his left leads. The default.
    RoundWinner,
    /// The next player still in the game clockwise from the old dealer.
    RotateLeft,
}

/// Rule options of docs/rules/toepen.md#options (names as there), plus the first dealer and a
/// safety cap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// Seats at the table, 2..=8. Default 4.
    pub num_players: u8,
    /// The penalty limit: reaching it eliminates a player (`LastSurvivor`) or ends the game
    /// (`FirstToLimit`). Default 10; at least 2, and at least 3 with `poverty`.
    pub limit: u32,
    /// How the game ends (docs/rules/toepen.md#end-of-the-game). Default `LastSurvivor`.
    pub game_end: GameEnd,
    /// Whether players may knock at all (docs/rules/toepen.md#knocking). Default true; false is
    /// source D's plain game.
    pub knocking: bool,
    /// When knocking is offered (docs/rules/toepen.md#knock-on-turn,
    /// docs/rules/toepen.md#knock-window). Default `OnTurn`.
    pub knock_timing: KnockTiming,
    /// Variant: no knock once the stake has reached this, e.g. `Some(3)`; at least 2 if set.
    /// Default `None` (no cap).
    pub max_stake: Option<u32>,
    /// Variant: a player may not knock if his score plus the raised stake would pass `limit`
    /// (docs/rules/toepen.md#who-may-knock rule 5). Default false.
    pub knock_cap_by_score: bool,
    /// Whether players may exchange a bad hand ("vuile was") after the deal, with challenges
    /// (docs/rules/toepen.md#laundry). Default true.
    pub laundry: bool,
    /// Points paid by whoever was wrong in a challenged laundry claim (the challenger of a genuine
    /// claim, or the bluffer). Default 1; 0 = nothing is paid.
    pub laundry_penalty: u32,
    /// Whether a caught laundry bluffer keeps his new cards (true, the default) or takes his old,
    /// now revealed hand back while the new cards go under the stock unseen (false).
    pub caught_bluffer_keeps_new_hand: bool,
    /// Variant: also allow white-laundry claims ([`Action::ClaimWhiteLaundry`],
    /// docs/rules/toepen.md#white-laundry). Default false.
    pub white_laundry: bool,
    /// Variant, poverty (docs/rules/toepen.md#poverty): when a player is one point from the limit
    /// the round starts at stake 2 and the others choose to stay or fold. Default false.
    pub poverty: bool,
    /// Who deals the next round (docs/rules/toepen.md#end-of-a-round). Default `RoundWinner`.
    pub next_dealer: NextDealer,
    /// First dealer; `None` = drawn with the game's RNG.
    pub dealer: Option<Seat>,
    /// Safety cap: the game is aborted (not a rule) after this many rounds.
    pub max_rounds: u32,
}

/// The kind of decision pending (docs/rules/toepen.md#decisions).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    /// A laundry turn (docs/rules/toepen.md#laundry-claims): `ClaimLaundry`, `ClaimWhiteLaundry`
    /// (with `white_laundry`) or `NoClaim`; claims need 4 cards in the stock.
    Laundry,
    /// Someone claimed laundry: `Challenge` or `NoChallenge` ([`Observation::claimant`] is the
    /// claimant).
    LaundryChallenge,
    /// A poverty decision (docs/rules/toepen.md#poverty): `Stay` (play for 2) or `Fold` (pay 1).
    Poverty,
    /// The player to move plays a card, following suit if he can; with `knock_timing=OnTurn` he
    /// may `Knock` first if docs/rules/toepen.md#who-may-knock allows it.
    Play,
    /// A knock window (`knock_timing=AnyCardBoundary`): `Knock` or `NoKnock`.
    KnockWindow,
    /// Another player knocked: `Stay` (risk the new stake) or `Fold` (pay the old one).
    KnockResponse,
    /// The game is over; nobody acts.
    Over,
}

/// Every choice a Toepen player makes (docs/rules/toepen.md#decisions).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Action {
    /// Play this card from hand to the current trick (decision `Play`). It must be of the led suit
    /// if the hand holds one (docs/rules/toepen.md#following-suit).
    Play(Card),
    /// Raise the stake by 1 (docs/rules/toepen.md#knocking); every other live player then answers
    /// `Stay` or `Fold`. Not twice in a row by the same player.
    Knock,
    /// Decline to knock in a knock window.
    NoKnock,
    /// Stay in the round: after a knock, at the new stake; in a poverty decision, at stake 2.
    Stay,
    /// Leave the round. After a knock he pays the stake before it; in a poverty decision he pays 1.
    /// Either way at the round's end, and his hand is never shown.
    Fold,
    /// Claim dirty laundry (four cards from J, Q, K, A): the hand is set aside face down and the
    /// top 4 stock cards become the new hand. Bluffing is allowed.
    ClaimLaundry,
    /// Variant (`white_laundry`): claim white laundry (exactly one 7 and three from J, Q, K, A),
    /// with the same exchange.
    ClaimWhiteLaundry,
    /// Keep the hand (laundry turn).
    NoClaim,
    /// Challenge the open laundry claim: the set-aside hand is shown to everybody and whoever was
    /// wrong pays `laundry_penalty`.
    Challenge,
    /// Let the claim stand unseen.
    NoChallenge,
}

impl Action {
    /// Every action that plays no card, in the order of their action indices
    /// (`croupier_rules::encode`: 52 onwards).
    pub const WORDS: [Action; 9] = [
        Action::Knock,
        Action::NoKnock,
        Action::Stay,
        Action::Fold,
        Action::ClaimLaundry,
        Action::ClaimWhiteLaundry,
        Action::NoClaim,
        Action::Challenge,
        Action::NoChallenge,
    ];
}

/// What happened (docs/rules/toepen.md#information). Private events carry hidden card identities.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// Public: a round is dealt.
    RoundStart {
        /// Round number, 1 for the first.
        round: u32,
        /// The dealer of this round.
        dealer: Seat,
        /// Who leads the first trick: the first player in the game clockwise from the dealer, or
        /// under poverty the first poor player from there.
        leader: Seat,
        /// The stake the round starts at: 1, or 2 under poverty.
        stake: u32,
        /// Cards left in the stock after the deal (`32 - 4 * players in the game`).
        stock: u8,
    },
    /// Private to `seat`: its hand.
    Hand {
        /// The seat dealt to.
        seat: Seat,
        /// Its 4 cards.
        cards: CardSet,
    },
    /// Public: `seat` claims laundry; he has set his hand aside and taken the top 4 stock cards.
    Laundry {
        /// The claimant.
        seat: Seat,
        /// Whether it is a white-laundry claim.
        white: bool,
    },
    /// Public: `seat` keeps his hand in its laundry turn.
    NoClaim {
        /// The player who did not claim.
        seat: Seat,
    },
    /// Public: `seat` challenged; the set-aside hand is shown; `genuine` says who pays.
    Challenge {
        /// The challenger.
        seat: Seat,
        /// The player whose claim is challenged.
        claimant: Seat,
        /// The claimant's set-aside hand, now public.
        revealed: CardSet,
        /// True: the claim was honest and the challenger pays `laundry_penalty`; false: a bluff,
        /// the claimant pays.
        genuine: bool,
    },
    /// Public: `seat` lets the open claim stand.
    NoChallenge {
        /// The player who did not challenge.
        seat: Seat,
    },
    /// Private to `seat`: the new cards after a laundry claim (or old hand given back).
    NewHand {
        /// The player.
        seat: Seat,
        /// His hand now.
        cards: CardSet,
    },
    /// Public: `seat`'s poverty decision (docs/rules/toepen.md#poverty).
    Poverty {
        /// The player deciding (never a poor one).
        seat: Seat,
        /// True: he plays for 2; false: he folds and pays 1.
        stay: bool,
    },
    /// Public: `seat` knocks (docs/rules/toepen.md#what-a-knock-does).
    Knock {
        /// The knocker.
        seat: Seat,
        /// The stake after the knock.
        stake: u32,
    },
    /// Public: `seat` declines to knock in a knock window.
    NoKnock {
        /// The player asked.
        seat: Seat,
    },
    /// Public: `seat`'s answer to a knock.
    Response {
        /// The player answering.
        seat: Seat,
        /// True: he stays at the new stake; false: he folds and will pay the stake before the
        /// knock.
        stay: bool,
    },
    /// Public: `seat` plays `card` to the current trick.
    Play {
        /// The player.
        seat: Seat,
        /// The card, face up for the rest of the round.
        card: Card,
    },
    /// Public: trick `trick` is complete (docs/rules/toepen.md#winning-a-trick).
    TrickWon {
        /// Trick number, 1..=4.
        trick: u8,
        /// Its winner, who leads the next trick (the winner of trick 4 wins the round).
        seat: Seat,
    },
    /// Public: `seat` scores penalty points: a laundry penalty at once
    /// (docs/rules/toepen.md#laundry-penalties), or his payment at the end of the round
    /// (docs/rules/toepen.md#end-of-a-round).
    Penalty {
        /// The player who pays.
        seat: Seat,
        /// Points added now.
        points: u32,
        /// His total score after them.
        score: u32,
    },
    /// Public: `seat`'s score reached the limit under `LastSurvivor`; he takes no further part in
    /// the game.
    Eliminated {
        /// The eliminated player.
        seat: Seat,
    },
    /// Public: the round is over (docs/rules/toepen.md#end-of-a-round); the penalties follow.
    RoundEnd {
        /// The round winner: the winner of trick 4, or the one live player left.
        winner: Seat,
    },
    /// Public: the game is over (docs/rules/toepen.md#end-of-the-game).
    GameEnd {
        /// The outcome in words, as [`Outcome::summary`](crate::Outcome::summary).
        summary: String,
    },
    /// Public: a caught bluffer (with `caught_bluffer_keeps_new_hand=false`) takes his revealed
    /// old hand back; his 4 new cards go face down to the bottom of the stock
    /// (docs/rules/toepen.md#laundry-claims).
    HandBack {
        /// The caught bluffer.
        seat: Seat,
    },
}

/// What one player may know (docs/rules/toepen.md#information), including the perfect-memory
/// derived knowledge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// The observing seat.
    pub seat: Seat,
    /// Seats at the table.
    pub players: u8,
    /// The kind of decision pending for `to_act`.
    pub decision: Decision,
    /// Round number, 1 for the first.
    pub round: u32,
    /// The dealer of this round.
    pub dealer: Seat,
    /// Own hand.
    pub hand: CardSet,
    /// Penalty points of every seat, this game.
    pub scores: Vec<u32>,
    /// Bit `s` = seat `s` is eliminated from the game.
    pub eliminated: u8,
    /// Bit `s` = seat `s` is live in this round (dealt in, not folded).
    pub live: u8,
    /// The current stake: what every live player but the winner pays at the end of the round.
    pub stake: u32,
    /// The last player who knocked this round (he may not knock again until someone else has);
    /// `None` before any knock.
    pub last_knocker: Option<Seat>,
    /// Cards in the stock (a multiple of 4; 0 with 8 players).
    pub stock: u8,
    /// Current trick, 1..=4.
    pub trick_no: u8,
    /// Who leads the current trick (the winner of the last one). If he folded before leading, the
    /// next live player clockwise leads instead.
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
