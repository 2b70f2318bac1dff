//! Durak's public types: options, actions, events, observation (docs/rules/durak.md).

use crate::cards::{Card, CardSet, Seat, Suit};
use serde::{Deserialize, Serialize};

/// Which cards are in play (docs/rules/durak.md#cards): ranks from [`Deck::low_rank`] up to the
/// ace, all four suits.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Deck {
    /// 24 cards, ranks 9..=A; 2 to 4 players.
    Deck24,
    /// 36 cards, ranks 6..=A; 2 to 6 players. The default.
    Deck36,
    /// 52 cards, ranks 2..=A; 2 to 8 players (source A).
    Deck52,
}

/// Individual play or partnerships (docs/rules/durak.md#roles).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Teams {
    /// Everyone plays for himself; the last player still holding cards is the durak. The default.
    None,
    /// Two teams with alternating seats, team = `seat % 2`: 4 players (partners opposite) or 6
    /// (teams of three). Only the defender's opponents attack and throw in; a team wins when all
    /// its players are out.
    Partnerships,
}

/// Who may throw in, in individual play (docs/rules/durak.md#who-may-throw-in; partnerships ignore
/// it).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ThrowInBy {
    /// Every active player except the defender. The default.
    AllOpponents,
    /// Only the principal attacker and the defender's left-hand neighbour
    /// (`next_active(defender)`); the same as `AllOpponents` with 2 or 3 players.
    Neighbours,
}

/// Who attacks in the first bout (docs/rules/durak.md#first-attacker).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FirstAttacker {
    /// The holder of the lowest trump (unique with one deck). The default.
    LowestTrump,
    /// The player to the dealer's left (`dealer + 1`).
    LeftOfDealer,
}

/// With `first_attacker=LowestTrump`, what happens when no hand holds a trump
/// (docs/rules/durak.md#first-attacker).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NoTrumpFallback {
    /// The player to the dealer's left attacks first. The default.
    LeftOfDealer,
    /// Shuffle and deal again with the same dealer (public [`Event::Redeal`]). After 1000 redeals
    /// in a row the engine falls back to `LeftOfDealer`, so a game always starts.
    Redeal,
}

/// Who draws first after a bout (docs/rules/durak.md#refill); the two differ only after a transfer.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RefillStart {
    /// The principal attacker at the end of the bout (the last player who transferred). The
    /// default.
    FinalAttacker,
    /// The player who led the bout.
    OriginalLeader,
}

/// In partnerships, what becomes of the seat of a player who went out (docs/rules/durak.md#roles).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TeamExitRule {
    /// The seat stays in the rotation and is played by its partner (4 players) or the nearest
    /// active teammate clockwise (6 players); see [`Observation::acting_for`]. The default.
    PartnerProxy,
    /// The seat is skipped: the defender is the first active opponent clockwise from the attacker.
    SkipOut,
}

/// Rule options of docs/rules/durak.md#options (names as there), plus the dealer and a safety cap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// Cards in play (docs/rules/durak.md#cards). Default `Deck36`.
    pub deck: Deck,
    /// Seats at the table, default 2: 2..=4 with `Deck24`, 2..=6 with `Deck36`, 2..=8 with
    /// `Deck52`.
    pub num_players: u8,
    /// Cards dealt to each player, and the refill target after every bout
    /// (docs/rules/durak.md#refill). Default 6; at least 1, and `hand_size * num_players` may not
    /// exceed the deck (if equal there is no talon, docs/rules/durak.md#deal).
    pub hand_size: u8,
    /// Individual play or partnerships (partnerships need 4 or 6 players). Default `None`.
    pub teams: Teams,
    /// Perevodnoy: the defender may pass the attack on with a card of the attack rank
    /// (docs/rules/durak.md#transfer). Default false.
    pub transfer: bool,
    /// Variant: a defender may also transfer by showing a trump of the attack rank, which stays in
    /// his hand ([`Action::ShowTrumpTransfer`]). Needs `transfer`. Default false.
    pub transfer_by_showing_trump: bool,
    /// Variant: no transfer of either kind in the game's first bout. Default false.
    pub no_transfer_in_first_bout: bool,
    /// Variant: the leader may lead 2..=4 cards of one rank at once ([`Action::LeadMany`]). Default
    /// false.
    pub multi_card_lead: bool,
    /// Most attack cards one bout may hold (docs/rules/durak.md#bout-limit); the defender's hand
    /// size `h0` limits it too. Default 6, at least 1.
    pub bout_cap: u8,
    /// Variant: the cap while the discard pile is empty (until a bout ends beaten), e.g. `Some(5)`;
    /// at most `bout_cap`. `None` (default): `bout_cap` from the first bout.
    pub first_bout_cap: Option<u8>,
    /// Who may throw in, in individual play (docs/rules/durak.md#who-may-throw-in). Default
    /// `AllOpponents`.
    pub throw_in_by: ThrowInBy,
    /// Whether attackers may still add cards after the defender takes
    /// (docs/rules/durak.md#throw-in). Default true.
    pub throw_in_after_take: bool,
    /// Who attacks in the first bout (docs/rules/durak.md#first-attacker). Default `LowestTrump`.
    pub first_attacker: FirstAttacker,
    /// What happens when nobody holds a trump under `LowestTrump`
    /// (docs/rules/durak.md#first-attacker). Default `LeftOfDealer`.
    pub no_trump_fallback: NoTrumpFallback,
    /// Under `LowestTrump`, whether the lowest trump that chose the first attacker is shown to all
    /// ([`Event::LowestTrump`]); it stays in the hand. Default true.
    pub reveal_lowest_trump: bool,
    /// Who draws first after a bout (docs/rules/durak.md#refill). Default `FinalAttacker`.
    pub refill_start: RefillStart,
    /// What becomes of the seat of a player who went out, in partnerships
    /// (docs/rules/durak.md#roles). Default `PartnerProxy`.
    pub team_exit_rule: TeamExitRule,
    /// Dealer of the game; `None` = drawn with the game's RNG
    /// (docs/rules/README.md#seats-and-direction).
    pub dealer: Option<Seat>,
    /// Safety limit, not a rule (docs/rules/README.md#engine-requirements): after this many bouts a
    /// game that has not ended is stopped and reported as aborted (every seat `Draw`). Added by the
    /// engine: with three or more players a game in which the defenders keep taking can cycle.
    #[serde(default = "default_max_bouts")]
    pub max_bouts: u32,
}

/// Default of [`Options::max_bouts`].
pub const DEFAULT_MAX_BOUTS: u32 = 1000;

fn default_max_bouts() -> u32 {
    DEFAULT_MAX_BOUTS
}

/// Phase of the bout in progress (docs/rules/durak.md#the-bout).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// The principal attacker must lead a card (docs/rules/durak.md#lead).
    Lead,
    /// The defender answers the uncovered attack cards: beat one, transfer, or take
    /// (docs/rules/durak.md#defend).
    Defend,
    /// Every attack card is covered, or the defender takes: the throwers in priority order add a
    /// card of a table rank or pass (docs/rules/durak.md#throw-in).
    ThrowIn,
    /// The game is over; nobody acts.
    Over,
}

/// Every choice a Durak player makes (docs/rules/durak.md#the-bout).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Action {
    /// Lead one card (phase Lead).
    Lead(Card),
    /// Lead several cards of one rank (only with `multi_card_lead`, 2..=4 cards).
    LeadMany(CardSet),
    /// Cover the uncovered attack card in table slot `slot` with `card`.
    Beat {
        /// Index into the table, 0 = the first attack card played (as in [`Observation::table`]).
        slot: u8,
        /// A card from the defender's hand that beats that attack card
        /// (docs/rules/durak.md#beat-relation).
        card: Card,
    },
    /// Perevodnoy (`transfer`): put a card of the attack rank from hand on the table as a new
    /// attack card; the transfer target becomes the defender (docs/rules/durak.md#transfer). Only
    /// while nothing is covered.
    Transfer(Card),
    /// Variant (`transfer_by_showing_trump`): show a trump of the attack rank (it stays in hand,
    /// nothing is added to the table) and pass the bout on as with [`Action::Transfer`]
    /// (docs/rules/durak.md#transfer).
    ShowTrumpTransfer(Card),
    /// The defender gives up: after any throw-ins he picks up every card on the table. Always legal
    /// in phase `Defend`.
    Take,
    /// Add a card whose rank is on the table, attack or defence (phase `ThrowIn`,
    /// docs/rules/durak.md#rank-rule).
    ThrowIn(Card),
    /// Add nothing now; the thrower is asked again once the table changes. The only action of a
    /// thrower with no card of a table rank.
    Pass,
}

/// How a bout ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BoutEnd {
    /// The defender covered every attack card and nobody added more: the table goes to the discard.
    Beaten,
    /// The defender took: he picks up every card on the table.
    Taken,
}

/// What happened (docs/rules/durak.md#information). Private events carry card identities; each has
/// a public twin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// Public: the deal; the trump card is face up (or the dealer's shown last card).
    Deal {
        /// The dealer's seat.
        dealer: Seat,
        /// The trump card, whose suit is trump for the whole game.
        trump: Card,
        /// Cards in the talon after the deal, the face-up trump card included; 0 = no talon (the
        /// trump card is the dealer's last card, shown and kept in his hand).
        talon: u8,
    },
    /// Private to `seat`: the cards dealt to it.
    Hand {
        /// The seat dealt to.
        seat: Seat,
        /// Its whole hand.
        cards: CardSet,
    },
    /// Public: nobody held a trump and the cards were dealt again (`Redeal`).
    Redeal,
    /// Public: the lowest trump that decided the first attacker (`reveal_lowest_trump`).
    LowestTrump {
        /// The player who holds it; he attacks first.
        seat: Seat,
        /// The lowest trump dealt; it stays in his hand, now known to all.
        card: Card,
    },
    /// Public: a bout starts.
    BoutStart {
        /// The principal attacker's seat.
        attacker: Seat,
        /// The defending seat (the next seat the rules of docs/rules/durak.md#roles pick for this
        /// attacker).
        defender: Seat,
    },
    /// Public: cards led to open the bout (one, or 2..=4 of one rank with `multi_card_lead`).
    Lead {
        /// The player whose hand the cards left (under PartnerProxy the controller, not the seat he
        /// plays for; the same in every event below that names a `seat` acting).
        seat: Seat,
        /// The card or cards led.
        cards: CardSet,
    },
    /// `seat` covers the attack card `attack` in table slot `slot` with `card`.
    Beat {
        /// The player who covers (the defender, or his controller).
        seat: Seat,
        /// Table slot of the attack card, 0 = first.
        slot: u8,
        /// The defence card, from his hand.
        card: Card,
        /// The attack card that was covered (added so the event reads on its own).
        attack: Card,
    },
    /// Public: `seat` adds `card` to the bout (docs/rules/durak.md#throw-in).
    ThrowIn {
        /// The thrower.
        seat: Seat,
        /// The card added as a new attack card.
        card: Card,
    },
    /// Public: a thrower passes (the same event whether he chose it or the host passed for him).
    Pass {
        /// The player who passes.
        seat: Seat,
    },
    /// Public: the defender transfers the bout with `card` (docs/rules/durak.md#transfer).
    Transfer {
        /// The player transferring (the old defender, now the principal attacker).
        seat: Seat,
        /// The card he added to the table.
        card: Card,
        /// The seat that defends now (the transfer target).
        new_defender: Seat,
    },
    /// Public: the defender shows a trump of the attack rank to transfer
    /// (docs/rules/durak.md#transfer, a variant); the card stays in his hand.
    ShowTrump {
        /// The player showing the card.
        seat: Seat,
        /// The trump shown, now known to be in his hand.
        card: Card,
        /// The seat that defends now.
        new_defender: Seat,
    },
    /// Public: the defender gives up; he picks the table up when the bout ends.
    Take {
        /// The defender (or the player defending for his seat).
        seat: Seat,
    },
    /// Public: the bout is over (docs/rules/durak.md#resolution).
    BoutEnd {
        /// Beaten off (the cards go to the discard) or taken.
        how: BoutEnd,
        /// Every card that was on the table, attack and defence.
        cards: CardSet,
    },
    /// Public: `seat` drew `count` cards; `trump` when the face-up trump card was among them.
    Refill {
        /// The player who drew.
        seat: Seat,
        /// Cards drawn, 1 or more (a player who draws nothing gets no event).
        count: u8,
        /// Whether the face-up trump card was among them (it is then known to be in his hand).
        trump: bool,
    },
    /// Private to `seat`: the cards it drew.
    Drew {
        /// The player who drew.
        seat: Seat,
        /// The cards drawn, the trump card included if it was among them.
        cards: CardSet,
    },
    /// Public: `seat` holds no card with the talon empty and is out
    /// (docs/rules/durak.md#going-out); in partnerships his team is safe only once all its players
    /// are out.
    Out {
        /// The player who is out.
        seat: Seat,
    },
    /// Public: the game is over (docs/rules/durak.md#end-of-the-game).
    GameEnd {
        /// The outcome in words, as [`Outcome::summary`](crate::Outcome::summary).
        summary: String,
    },
}

/// What one player may know (docs/rules/durak.md#information), including the perfect-memory derived
/// knowledge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// The observing player.
    pub seat: Seat,
    /// The seat the current decision is made for (differs from `seat` under PartnerProxy).
    pub acting_for: Seat,
    /// Seats at the table.
    pub players: u8,
    /// Whether seats play in partnerships (the team of a seat is `seat % 2`).
    pub teams: bool,
    /// The trump card (face up under the talon, or the dealer's shown last card).
    pub trump: Card,
    /// The trump suit (the suit of `trump`).
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
    /// Phase of the bout in progress; `Over` once the game has ended.
    pub phase: Phase,
    /// Principal attacker of the bout in progress.
    pub attacker: Seat,
    /// The defending seat (under PartnerProxy a seat whose player is out is defended by his
    /// partner).
    pub defender: Seat,
    /// Defender's hand size when it became defender (docs/rules/durak.md#bout-limit).
    pub h0: u8,
    /// Attack cards this bout may hold (`min(cap, h0)`).
    pub limit: u8,
    /// The defender has declared `Take`: he picks up the table once the throw-ins end.
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
    // Fields below were added by the engine (docs/rules/durak.md#information public information
    // that `determinize` needs to rebuild an exact state).
    /// Who played each attack card of `table` (same order): the player whose hand it left.
    pub attackers: Vec<Seat>,
    /// The seat that led the bout in progress (differs from `attacker` after a transfer;
    /// decides the refill order with `refill_start=OriginalLeader`).
    pub leader: Seat,
    /// The dealer's seat.
    pub dealer: Seat,
    /// Finishing place of every seat (1 = went out first; players who went out at the same
    /// end of bout share a place); 0 = still in the game.
    pub finish: Vec<u8>,
    /// The cards of the own hand that everybody knows (what the others' `known` says about us).
    pub own_known: CardSet,
    /// Certain inference of docs/rules/durak.md#first-attacker: trumps that no hand held at the
    /// deal (lower than the revealed lowest trump, or every trump when nobody held one); such a
    /// card can be in a hand only if that player drew it from the talon.
    pub low_trumps: CardSet,
    /// Per seat: how many cards of `low_trumps` the unknown part of that hand can hold at most
    /// (face-down cards drawn from the talon, minus low trumps it has revealed since).
    pub low_trump_room: Vec<u8>,
}
