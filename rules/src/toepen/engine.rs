//! The Toepen state machine: round setup (docs/rules/toepen.md#round-setup), the round state
//! machine (docs/rules/toepen.md#decisions), trick play and dead cards
//! (docs/rules/toepen.md#tricks), knocking (docs/rules/toepen.md#knocking), laundry
//! (docs/rules/toepen.md#laundry), poverty (docs/rules/toepen.md#poverty), scoring, elimination and
//! the next dealer (docs/rules/toepen.md#end-of-a-round) and the end of the game
//! (docs/rules/toepen.md#end-of-the-game).
//!
//! Every forced step (dealing, trick resolution, scoring, eliminations, the next round) is
//! applied inside [`Toepen::apply`], so whenever the game is not over `to_act` has at least
//! one legal action.

use super::types::*;
use super::why::Why;
use crate::cards::{Card, CardSet, Seat, Suit};
use crate::game::{IllegalAction, Logged, Outcome, Rules, SeatResult, Visibility};
use crate::log::EventLog;
use crate::rng::GameRng;

/// Most seats at a Toepen table (docs/rules/toepen.md#options).
pub(crate) const MAXP: usize = 8;
/// Most stock blocks of 4 cards: 32 − 4·2 = 24 cards.
pub(crate) const MAX_BLOCKS: usize = 6;
/// Mask meaning "every seat" in a knowers mask.
pub(crate) const ALL_SEATS: u8 = 0xFF;

/// Ranks 7..=A of one suit as card-code bits (codes `suit*13 + 5 ..= suit*13 + 12`).
const SUIT_BITS: u64 = 0xFF << 5;
/// The 32-card piquet pack (docs/rules/toepen.md#cards).
pub const DECK: CardSet = CardSet(SUIT_BITS | SUIT_BITS << 13 | SUIT_BITS << 26 | SUIT_BITS << 39);
/// The four "laundry" ranks J, Q, K, A of every suit (docs/rules/toepen.md#what-counts-as-laundry).
pub const FACES: CardSet = CardSet((0xF << 9) | (0xF << 22) | (0xF << 35) | (0xF << 48));
/// The four sevens.
pub const SEVENS: CardSet = CardSet((1 << 5) | (1 << 18) | (1 << 31) | (1 << 44));

/// Toepen strength inside a suit (docs/rules/toepen.md#cards): J=1, Q=2, K=3, A=4, 7=5, 8=6, 9=7,
/// 10=8; 0 for a card that is not in the piquet pack.
pub fn strength(card: Card) -> u8 {
    match card.rank() {
        11 => 1,
        12 => 2,
        13 => 3,
        14 => 4,
        r @ 7..=10 => r - 2,
        _ => 0,
    }
}

/// True if `card` is one of the 32 cards of the Toepen pack.
pub fn is_toepen_card(card: Card) -> bool {
    DECK.contains(card)
}

/// Genuine "dirty laundry" (docs/rules/toepen.md#what-counts-as-laundry): four cards, all J, Q, K
/// or A.
pub fn is_laundry(hand: CardSet) -> bool {
    hand.len() == 4 && hand.is_subset(FACES)
}

/// Genuine white laundry (docs/rules/toepen.md#white-laundry): exactly one 7 and three cards from
/// J, Q, K, A.
pub fn is_white_laundry(hand: CardSet) -> bool {
    hand.len() == 4 && hand.intersect(SEVENS).len() == 1 && hand.minus(SEVENS).is_subset(FACES)
}

/// The mask bit of seat `s` (0 for a number that is no seat, so no shift can overflow).
#[inline]
pub(crate) fn bit(s: Seat) -> u8 {
    1u8.checked_shl(s as u32).unwrap_or(0)
}

/// The cards of the suits in `suits` (bit = suit index).
pub(crate) fn suits_set(suits: u8) -> CardSet {
    let mut s = CardSet::EMPTY;
    for su in Suit::ALL {
        if suits & (1 << su as u8) != 0 {
            s = s.union(CardSet::suit(su));
        }
    }
    s
}

// Decision: the stock is kept as blocks of 4 cards; a caught bluffer's returned cards form
// the bottom block (their order inside it never matters, since claims always take 4).
/// The stock as blocks of 4 cards, top block first. Claims take the top block, a caught
/// bluffer's returned cards become the bottom block (docs/rules/toepen.md#laundry-claims); the
/// order of the cards inside a block never matters, so a block is a set. `knowers[i]` = seats that
/// know block `i`'s cards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stock {
    pub(crate) blocks: [CardSet; MAX_BLOCKS],
    pub(crate) knowers: [u8; MAX_BLOCKS],
    pub(crate) len: u8,
}

impl Stock {
    pub(crate) const EMPTY: Stock = Stock {
        blocks: [CardSet::EMPTY; MAX_BLOCKS],
        knowers: [0; MAX_BLOCKS],
        len: 0,
    };

    pub(crate) fn cards(&self) -> usize {
        self.len as usize * 4
    }

    fn take_top(&mut self) -> Option<(CardSet, u8)> {
        if self.len == 0 {
            return None;
        }
        let top = (self.blocks[0], self.knowers[0]);
        let n = self.len as usize;
        self.blocks.copy_within(1..n, 0);
        self.knowers.copy_within(1..n, 0);
        self.len -= 1;
        self.blocks[n - 1] = CardSet::EMPTY;
        self.knowers[n - 1] = 0;
        Some(top)
    }

    pub(crate) fn push_bottom(&mut self, cards: CardSet, knowers: u8) -> bool {
        let n = self.len as usize;
        if n >= MAX_BLOCKS {
            return false;
        }
        self.blocks[n] = cards;
        self.knowers[n] = knowers;
        self.len += 1;
        true
    }
}

/// A Toepen game in progress (docs/rules/toepen.md).
#[derive(Clone, Debug, PartialEq)]
pub struct Toepen {
    pub(crate) opts: Options,
    pub(crate) n: u8,
    pub(crate) rng: GameRng,
    pub(crate) events: EventLog<Event>,
    pub(crate) outcome: Option<Outcome>,
    // ---- game level
    pub(crate) scores: [u32; MAXP],
    pub(crate) eliminated: u8,
    pub(crate) elim_at: [u32; MAXP],
    pub(crate) elim_moment: u32,
    pub(crate) round: u32,
    pub(crate) dealer: Seat,
    // ---- round level
    pub(crate) dealt: u8,
    pub(crate) live: u8,
    pub(crate) poor: u8,
    pub(crate) stake: u32,
    pub(crate) last_knocker: Option<Seat>,
    pub(crate) fold_stake: [u32; MAXP],
    pub(crate) hands: [CardSet; MAXP],
    /// Set-aside laundry hands (out of play this round).
    pub(crate) aside: [CardSet; MAXP],
    pub(crate) played: [CardSet; MAXP],
    /// Suits each seat is known to lack (bit = suit index), docs/rules/toepen.md#information.
    pub(crate) voids: [u8; MAXP],
    pub(crate) stock: Stock,
    /// Per seat `c`: the other seats that know `c`'s whole hand.
    pub(crate) hand_knowers: [u8; MAXP],
    pub(crate) claimed: u8,
    pub(crate) white_claims: u8,
    pub(crate) challenged: u8,
    pub(crate) returned: u8,
    pub(crate) revealed_by: [CardSet; MAXP],
    pub(crate) laundry_done: u8,
    pub(crate) poverty_done: u8,
    /// Leader of the current trick.
    pub(crate) leader: Seat,
    /// Current trick, 1..=4.
    pub(crate) trick_no: u8,
    /// Every card played this round, in order.
    pub(crate) plays: Vec<(Seat, Card)>,
    /// Index in `plays` where trick `k` (0-based) starts.
    pub(crate) trick_starts: [u8; 4],
    /// Seats that played to the current trick.
    pub(crate) trick_mask: u8,
    pub(crate) winners: [Seat; 4],
    pub(crate) nwinners: u8,
    // ---- pending decision
    pub(crate) decision: Decision,
    pub(crate) actor: Seat,
    pub(crate) claimant: Seat,
    pub(crate) window: Option<(Seat, u8)>,
}

impl Toepen {
    // ------------------------------------------------------------------ construction

    pub(crate) fn blank(opts: &Options, rng: GameRng) -> Toepen {
        Toepen {
            opts: opts.clone(),
            n: opts.num_players,
            rng,
            events: EventLog::new(),
            outcome: None,
            scores: [0; MAXP],
            eliminated: 0,
            elim_at: [0; MAXP],
            elim_moment: 0,
            round: 0,
            dealer: 0,
            dealt: 0,
            live: 0,
            poor: 0,
            stake: 1,
            last_knocker: None,
            fold_stake: [0; MAXP],
            hands: [CardSet::EMPTY; MAXP],
            aside: [CardSet::EMPTY; MAXP],
            played: [CardSet::EMPTY; MAXP],
            voids: [0; MAXP],
            stock: Stock::EMPTY,
            hand_knowers: [0; MAXP],
            claimed: 0,
            white_claims: 0,
            challenged: 0,
            returned: 0,
            revealed_by: [CardSet::EMPTY; MAXP],
            laundry_done: 0,
            poverty_done: 0,
            leader: 0,
            trick_no: 1,
            plays: Vec::with_capacity(32),
            trick_starts: [0; 4],
            trick_mask: 0,
            winners: [0; 4],
            nwinners: 0,
            decision: Decision::Over,
            actor: 0,
            claimant: 0,
            window: None,
        }
    }

    /// Deals a new game (options already validated).
    pub(crate) fn start(opts: &Options, seed: u64) -> Toepen {
        let mut rng = GameRng::new(seed);
        // docs/rules/README.md#randomness-and-replay / brief: the first dealer is drawn BEFORE the
        // first shuffle.
        let dealer = match opts.dealer {
            Some(d) => d,
            None => rng.below(opts.num_players as usize) as Seat,
        };
        let mut g = Toepen::blank(opts, rng);
        g.dealer = dealer;
        g.round = 1;
        let (hands, stock) = g.shuffle_and_deal();
        g.begin_round(hands, stock);
        g
    }

    /// Test/tool constructor: a round dealt exactly as `setup` says
    /// (docs/rules/README.md#engine-requirements).
    #[doc(hidden)]
    pub fn from_setup(opts: &Options, setup: Setup) -> Result<Toepen, String> {
        opts.validate().map_err(|e| e.to_string())?;
        let n = opts.num_players as usize;
        if setup.hands.len() != n {
            return Err(format!(
                "setup has {} hands for {n} seats",
                setup.hands.len()
            ));
        }
        if setup.dealer as usize >= n {
            return Err(format!("dealer P{} is not a seat", setup.dealer));
        }
        if !setup.scores.is_empty() && setup.scores.len() != n {
            return Err("scores must have one entry per seat".into());
        }
        let all = if n == 8 { 0xFF } else { (1u8 << n) - 1 };
        if setup.eliminated & !all != 0 || setup.eliminated & bit(setup.dealer) != 0 {
            return Err("eliminated names a non-seat or the dealer".into());
        }
        if (all & !setup.eliminated).count_ones() < 2 {
            return Err("fewer than two players in the game".into());
        }
        let mut seen = CardSet::EMPTY;
        let mut hands = [CardSet::EMPTY; MAXP];
        for (s, h) in setup.hands.iter().enumerate() {
            let out = setup.eliminated & bit(s as Seat) != 0;
            if (out && !h.is_empty()) || (!out && h.len() != 4) {
                return Err(format!("P{s} must hold {} cards", if out { 0 } else { 4 }));
            }
            if !h.is_subset(DECK) || !h.intersect(seen).is_empty() {
                return Err(format!("P{s}'s hand repeats a card or is not piquet cards"));
            }
            seen = seen.union(*h);
            hands[s] = *h;
        }
        if !setup.stock.len().is_multiple_of(4) || setup.stock.len() > 4 * MAX_BLOCKS {
            return Err("the stock must be a multiple of 4 cards, at most 24".into());
        }
        let mut stock = Stock::EMPTY;
        for chunk in setup.stock.chunks(4) {
            let b = CardSet::from_cards(chunk.iter().copied());
            if b.len() != 4 || !b.is_subset(DECK) || !b.intersect(seen).is_empty() {
                return Err("the stock repeats a card or is not piquet cards".into());
            }
            seen = seen.union(b);
            stock.push_bottom(b, 0);
        }
        if seen != DECK {
            return Err(format!(
                "cards missing from the setup: {}",
                DECK.minus(seen)
            ));
        }
        let mut g = Toepen::blank(opts, GameRng::new(setup.seed));
        for (s, sc) in setup.scores.iter().enumerate() {
            g.scores[s] = *sc;
        }
        g.eliminated = setup.eliminated;
        let mut moment = 0;
        for s in 0..n {
            if setup.eliminated & bit(s as Seat) != 0 {
                moment += 1;
                g.elim_at[s] = moment;
            }
        }
        g.elim_moment = moment;
        g.dealer = setup.dealer;
        g.round = setup.round.max(1);
        g.begin_round(hands, stock);
        Ok(g)
    }

    // ------------------------------------------------------------------ small helpers

    #[inline]
    pub(crate) fn all_mask(&self) -> u8 {
        if self.n as usize >= 8 {
            0xFF
        } else {
            (1u8 << self.n) - 1
        }
    }

    #[inline]
    fn is_live(&self, s: Seat) -> bool {
        self.live & bit(s) != 0
    }

    #[inline]
    fn seat_after(&self, s: Seat, k: u8) -> Seat {
        ((s as u16 + k as u16) % self.n as u16) as Seat
    }

    /// First seat of `mask`, clockwise starting AT `from`.
    fn first_from(&self, from: Seat, mask: u8) -> Option<Seat> {
        (0..self.n)
            .map(|k| self.seat_after(from, k))
            .find(|s| mask & bit(*s) != 0)
    }

    pub(crate) fn in_game(&self) -> u8 {
        self.all_mask() & !self.eliminated
    }

    /// The current trick's cards, in play order.
    pub(crate) fn trick(&self) -> &[(Seat, Card)] {
        let start = self.trick_starts[(self.trick_no as usize).clamp(1, 4) - 1] as usize;
        self.plays.get(start..).unwrap_or(&[])
    }

    fn led_suit(&self) -> Option<Suit> {
        self.trick().first().map(|(_, c)| c.suit())
    }

    /// The live player who plays the next card of the current trick
    /// (docs/rules/toepen.md#following-suit), or `None` when every live player has played to it.
    // Decision: if the leader folds (or is eliminated in the laundry phase) before leading,
    // the next live player clockwise leads the trick instead.
    fn to_move(&self) -> Option<Seat> {
        self.first_from(self.leader, self.live & !self.trick_mask)
    }

    /// May `s` knock now (docs/rules/toepen.md#who-may-knock, rules 2–5; rule 1 is the caller's
    /// phase)?
    pub(crate) fn may_knock(&self, s: Seat) -> bool {
        self.opts.knocking
            && self.is_live(s)
            && !self.hands[s as usize].is_empty()
            && self.last_knocker != Some(s)
            && self.opts.max_stake.is_none_or(|m| self.stake < m)
            // docs/rules/toepen.md#who-may-knock rule 5: score + stake + 1 <= limit.
            && (!self.opts.knock_cap_by_score
                || (self.scores[s as usize] as u64 + self.stake as u64) < self.opts.limit as u64)
    }

    /// Cards `s` may play now (follow suit, docs/rules/toepen.md#following-suit).
    pub(crate) fn playable(&self, s: Seat) -> CardSet {
        let hand = self.hands[s as usize];
        match self.led_suit() {
            Some(led) => {
                let follow = hand.of_suit(led);
                if follow.is_empty() { hand } else { follow }
            }
            None => hand,
        }
    }

    fn log(&mut self, vis: Visibility, event: Event) {
        self.events.push(Logged { vis, event });
    }

    fn public(&mut self, event: Event) {
        self.log(Visibility::Public, event);
    }

    fn set_decision(&mut self, d: Decision, actor: Seat) {
        self.decision = d;
        self.actor = actor;
    }

    // ------------------------------------------------------------------ legal actions

    pub(crate) fn legal_into(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        let s = self.actor;
        match self.decision {
            Decision::Laundry => {
                if self.stock.cards() >= 4 {
                    out.push(Action::ClaimLaundry);
                    if self.opts.white_laundry {
                        out.push(Action::ClaimWhiteLaundry);
                    }
                }
                out.push(Action::NoClaim);
            }
            Decision::LaundryChallenge => {
                out.push(Action::Challenge);
                out.push(Action::NoChallenge);
            }
            Decision::Poverty | Decision::KnockResponse => {
                out.push(Action::Stay);
                out.push(Action::Fold);
            }
            Decision::Play => {
                out.extend(self.playable(s).iter().map(Action::Play));
                if self.opts.knock_timing == KnockTiming::OnTurn && self.may_knock(s) {
                    out.push(Action::Knock);
                }
            }
            Decision::KnockWindow => {
                out.push(Action::Knock);
                out.push(Action::NoKnock);
            }
            Decision::Over => {}
        }
    }

    /// `None` when `a` is legal now, else why not. Changes nothing.
    pub(crate) fn why_illegal(&self, a: Action) -> Option<Why> {
        if self.outcome.is_some() {
            return Some(Why::GameOver);
        }
        let s = self.actor;
        let ok = match (self.decision, a) {
            (Decision::Laundry, Action::ClaimLaundry | Action::ClaimWhiteLaundry) => {
                if a == Action::ClaimWhiteLaundry && !self.opts.white_laundry {
                    return Some(Why::WhiteLaundryOff);
                }
                if self.stock.cards() < 4 {
                    return Some(Why::StockShort {
                        cards: self.stock.cards() as u8,
                    });
                }
                true
            }
            (Decision::Laundry, Action::NoClaim) => true,
            (Decision::LaundryChallenge, Action::Challenge | Action::NoChallenge) => true,
            (Decision::Poverty | Decision::KnockResponse, Action::Stay | Action::Fold) => true,
            (Decision::KnockWindow, Action::Knock | Action::NoKnock) => true,
            (Decision::Play, Action::Play(c)) => {
                if !self.hands[s as usize].contains(c) {
                    return Some(Why::NotHeld { seat: s, card: c });
                }
                if !self.playable(s).contains(c) {
                    return Some(Why::MustFollow {
                        seat: s,
                        led: self.led_suit(),
                    });
                }
                true
            }
            (Decision::Play, Action::Knock) => {
                if !self.opts.knocking {
                    return Some(Why::KnockingOff);
                }
                if self.opts.knock_timing != KnockTiming::OnTurn {
                    return Some(Why::KnockInWindow);
                }
                if self.last_knocker == Some(s) {
                    return Some(Why::LastKnocker { seat: s });
                }
                if self.opts.max_stake.is_some_and(|m| self.stake >= m) {
                    return Some(Why::MaxStake { stake: self.stake });
                }
                if !self.may_knock(s) {
                    return Some(Why::KnockCapByScore {
                        seat: s,
                        score: self.scores[s as usize],
                        raise_to: self.stake + 1,
                        limit: self.opts.limit,
                    });
                }
                true
            }
            (Decision::Over, _) => return Some(Why::GameOver),
            _ => false,
        };
        if ok {
            None
        } else {
            Some(Why::WrongDecision {
                seat: s,
                decision: self.decision,
                action: a,
            })
        }
    }

    // ------------------------------------------------------------------ apply

    pub(crate) fn apply_action(&mut self, a: Action) -> Result<(), IllegalAction<Action, Why>> {
        if let Some(why) = self.why_illegal(a) {
            return Err(IllegalAction { action: a, why });
        }
        let s = self.actor;
        match (self.decision, a) {
            (Decision::Laundry, Action::ClaimLaundry) => self.claim(s, false),
            (Decision::Laundry, Action::ClaimWhiteLaundry) => self.claim(s, true),
            (Decision::Laundry, _) => {
                self.laundry_done |= bit(s);
                self.public(Event::NoClaim { seat: s });
                self.laundry_next();
            }
            (Decision::LaundryChallenge, Action::Challenge) => self.challenge(s),
            (Decision::LaundryChallenge, _) => {
                self.public(Event::NoChallenge { seat: s });
                self.challenge_next(s);
            }
            (Decision::Poverty, a) => {
                let stay = a == Action::Stay;
                self.poverty_done |= bit(s);
                self.public(Event::Poverty { seat: s, stay });
                // docs/rules/toepen.md#poverty: a poverty fold pays 1.
                if stay || !self.fold(s, 1) {
                    self.poverty_next();
                }
            }
            (Decision::Play, Action::Play(c)) => self.play(s, c),
            (Decision::Play | Decision::KnockWindow, Action::Knock) => {
                self.stake += 1;
                self.last_knocker = Some(s);
                self.public(Event::Knock {
                    seat: s,
                    stake: self.stake,
                });
                self.response_next(s);
            }
            (Decision::KnockWindow, _) => {
                self.public(Event::NoKnock { seat: s });
                if let Some((start, pos)) = self.window {
                    self.window = Some((start, pos + 1));
                }
                self.window_next();
            }
            (Decision::KnockResponse, a) => {
                let stay = a == Action::Stay;
                self.public(Event::Response { seat: s, stay });
                // docs/rules/toepen.md#what-a-knock-does: a folder pays the stake before this
                // knock.
                if stay || !self.fold(s, self.stake.saturating_sub(1)) {
                    self.response_next(s);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// `s` leaves the round, paying `pays` at its end. If one live player is left the round
    /// ends at once and he wins it (docs/rules/toepen.md#what-a-knock-does,
    /// docs/rules/toepen.md#poverty); returns true in that case.
    fn fold(&mut self, s: Seat, pays: u32) -> bool {
        self.fold_stake[s as usize] = pays.max(1);
        self.live &= !bit(s);
        if self.live.count_ones() == 1 {
            let w = self.live.trailing_zeros() as Seat;
            self.end_round(w);
            return true;
        }
        false
    }

    // ------------------------------------------------------------------ round flow

    fn shuffle_and_deal(&mut self) -> ([CardSet; MAXP], Stock) {
        let mut deck: [Card; 32] = [Card::new(7, Suit::Clubs); 32];
        for (i, c) in DECK.iter().enumerate() {
            deck[i] = c;
        }
        self.rng.shuffle(&mut deck);
        let in_game = self.in_game();
        let mut order = [0 as Seat; MAXP];
        let mut m = 0;
        for k in 1..=self.n {
            let s = self.seat_after(self.dealer, k);
            if in_game & bit(s) != 0 {
                order[m] = s;
                m += 1;
            }
        }
        let mut hands = [CardSet::EMPTY; MAXP];
        for (k, c) in deck[..4 * m].iter().enumerate() {
            hands[order[k % m] as usize].insert(*c);
        }
        let mut stock = Stock::EMPTY;
        for chunk in deck[4 * m..].chunks(4) {
            stock.push_bottom(CardSet::from_cards(chunk.iter().copied()), 0);
        }
        (hands, stock)
    }

    /// Round setup (docs/rules/toepen.md#round-setup) with the cards already dealt.
    fn begin_round(&mut self, hands: [CardSet; MAXP], stock: Stock) {
        let in_game = self.in_game();
        self.dealt = in_game;
        self.live = in_game;
        self.poor = 0;
        if self.opts.poverty {
            for s in 0..self.n {
                if in_game & bit(s) != 0 && self.scores[s as usize] + 1 == self.opts.limit {
                    self.poor |= bit(s);
                }
            }
        }
        let first = self.seat_after(self.dealer, 1);
        self.leader = if self.poor != 0 {
            self.first_from(first, self.poor).unwrap_or(first)
        } else {
            self.first_from(first, in_game).unwrap_or(first)
        };
        self.stake = if self.poor != 0 { 2 } else { 1 };
        self.last_knocker = None;
        self.fold_stake = [0; MAXP];
        self.hands = hands;
        self.aside = [CardSet::EMPTY; MAXP];
        self.played = [CardSet::EMPTY; MAXP];
        self.voids = [0; MAXP];
        self.stock = stock;
        self.hand_knowers = [0; MAXP];
        self.claimed = 0;
        self.white_claims = 0;
        self.challenged = 0;
        self.returned = 0;
        self.revealed_by = [CardSet::EMPTY; MAXP];
        self.laundry_done = 0;
        self.poverty_done = 0;
        self.trick_no = 1;
        self.plays.clear();
        self.trick_starts = [0; 4];
        self.trick_mask = 0;
        self.nwinners = 0;
        self.winners = [0; 4];
        self.window = None;
        self.public(Event::RoundStart {
            round: self.round,
            dealer: self.dealer,
            leader: self.leader,
            stake: self.stake,
            stock: self.stock.cards() as u8,
        });
        for s in 0..self.n {
            if in_game & bit(s) != 0 {
                let cards = self.hands[s as usize];
                self.log(Visibility::only(s), Event::Hand { seat: s, cards });
            }
        }
        self.laundry_next();
    }

    /// Next LaundryTurn (docs/rules/toepen.md#laundry-claims): each live player once, clockwise
    /// starting with the leader.
    // Decision: with `laundry=true` every player gets his LaundryTurn even when the stock holds
    // fewer than 4 cards (then `NoClaim` is the only action, as in T10); the host may auto-apply it.
    fn laundry_next(&mut self) {
        if self.opts.laundry
            && let Some(s) = self.first_from(self.leader, self.live & !self.laundry_done)
        {
            self.set_decision(Decision::Laundry, s);
            return;
        }
        self.poverty_next();
    }

    fn claim(&mut self, s: Seat, white: bool) {
        self.laundry_done |= bit(s);
        self.claimed |= bit(s);
        if white {
            self.white_claims |= bit(s);
        }
        // why_illegal guaranteed a block of 4.
        let Some((cards, knowers)) = self.stock.take_top() else {
            return;
        };
        self.aside[s as usize] = self.hands[s as usize];
        self.hands[s as usize] = cards;
        self.hand_knowers[s as usize] = knowers & !bit(s);
        self.public(Event::Laundry { seat: s, white });
        self.log(Visibility::only(s), Event::NewHand { seat: s, cards });
        self.claimant = s;
        self.challenge_next(s);
    }

    /// Next LaundryChallenge: the live players after `after`, up to the claimant.
    fn challenge_next(&mut self, after: Seat) {
        let c = self.claimant;
        for k in 1..self.n {
            let s = self.seat_after(after, k);
            if s == c {
                break;
            }
            if self.is_live(s) {
                self.set_decision(Decision::LaundryChallenge, s);
                return;
            }
        }
        // Nobody challenged: the set-aside hand stays face down and unknown.
        self.laundry_next();
    }

    fn challenge(&mut self, challenger: Seat) {
        let c = self.claimant;
        let ci = c as usize;
        let old = self.aside[ci];
        let white = self.white_claims & bit(c) != 0;
        let genuine = if white {
            is_white_laundry(old)
        } else {
            is_laundry(old)
        };
        self.challenged |= bit(c);
        self.revealed_by[ci] = old;
        self.public(Event::Challenge {
            seat: challenger,
            claimant: c,
            revealed: old,
            genuine,
        });
        if !genuine && !self.opts.caught_bluffer_keeps_new_hand {
            let new = self.hands[ci];
            let knowers = self.hand_knowers[ci] | bit(c);
            self.stock.push_bottom(new, knowers);
            self.hands[ci] = old;
            self.aside[ci] = CardSet::EMPTY;
            self.hand_knowers[ci] = ALL_SEATS;
            self.returned |= bit(c);
            self.public(Event::HandBack { seat: c });
            self.log(
                Visibility::only(c),
                Event::NewHand {
                    seat: c,
                    cards: old,
                },
            );
        }
        let payer = if genuine { challenger } else { c };
        if !self.laundry_penalty(payer) {
            self.laundry_next();
        }
    }

    /// A laundry penalty (docs/rules/toepen.md#laundry-penalties), applied at once. Returns true if
    /// it ended the round or game.
    fn laundry_penalty(&mut self, s: Seat) -> bool {
        let pts = self.opts.laundry_penalty;
        // Decision: with laundry_penalty=0 nothing is scored and no Penalty event is logged.
        if pts == 0 {
            return false;
        }
        let si = s as usize;
        self.scores[si] = self.scores[si].saturating_add(pts);
        self.public(Event::Penalty {
            seat: s,
            points: pts,
            score: self.scores[si],
        });
        if self.scores[si] < self.opts.limit {
            return false;
        }
        match self.opts.game_end {
            GameEnd::FirstToLimit => {
                // docs/rules/toepen.md#end-of-the-game: the round in progress is abandoned.
                self.finish(false);
                true
            }
            GameEnd::LastSurvivor => {
                self.elim_moment += 1;
                self.eliminate(s);
                if self.live.count_ones() == 1 {
                    let w = self.live.trailing_zeros() as Seat;
                    self.end_round(w);
                    return true;
                }
                false
            }
        }
    }

    fn eliminate(&mut self, s: Seat) {
        self.eliminated |= bit(s);
        self.elim_at[s as usize] = self.elim_moment;
        // docs/rules/toepen.md#edge-cases: his cards leave play face down (they stay in his dead
        // hand, unseen).
        self.live &= !bit(s);
        self.public(Event::Eliminated { seat: s });
    }

    /// Next PovertyDecision (docs/rules/toepen.md#poverty): non-poor live players clockwise
    /// starting after the leader.
    // Decision: poverty is fixed at the deal (stake 2, poor leader); if the poor players are
    // eliminated by laundry penalties the others still make their poverty decision.
    fn poverty_next(&mut self) {
        if self.poor != 0 {
            let mask = self.live & !self.poor & !self.poverty_done;
            if let Some(s) = self.first_from(self.seat_after(self.leader, 1), mask) {
                self.set_decision(Decision::Poverty, s);
                return;
            }
        }
        self.card_boundary();
    }

    /// Before a card is played: resolve a complete trick, open a knock window, or ask the
    /// player to move.
    fn card_boundary(&mut self) {
        let Some(p) = self.to_move() else {
            self.finish_trick();
            return;
        };
        if self.opts.knocking && self.opts.knock_timing == KnockTiming::AnyCardBoundary {
            self.window = Some((p, 0));
            self.window_next();
        } else {
            self.set_decision(Decision::Play, p);
        }
    }

    /// Asks the next seat of the knock window (docs/rules/toepen.md#knock-window) or closes it.
    // Decision: the window is one clockwise scan over the seats starting with the player about
    // to play; a seat is asked when the scan reaches it and only if it may knock at that moment
    // (a seat skipped earlier is not asked again after somebody else's knock).
    fn window_next(&mut self) {
        if let Some((start, mut pos)) = self.window {
            while pos < self.n {
                let s = self.seat_after(start, pos);
                if self.may_knock(s) {
                    self.window = Some((start, pos));
                    self.set_decision(Decision::KnockWindow, s);
                    return;
                }
                pos += 1;
            }
        }
        self.window = None;
        match self.to_move() {
            Some(p) => self.set_decision(Decision::Play, p),
            // Decision: the player about to play folded in the window and everybody else
            // live has played: the trick is complete without him.
            None => self.finish_trick(),
        }
    }

    /// Next KnockResponse (docs/rules/toepen.md#what-a-knock-does): live players after `after`, up
    /// to the knocker.
    fn response_next(&mut self, after: Seat) {
        let knocker = self.last_knocker.unwrap_or(after);
        for k in 1..self.n {
            let s = self.seat_after(after, k);
            if s == knocker {
                break;
            }
            if self.is_live(s) {
                self.set_decision(Decision::KnockResponse, s);
                return;
            }
        }
        match self.window {
            Some((start, pos)) => {
                self.window = Some((start, pos + 1));
                self.window_next();
            }
            // OnTurn: the knocker now plays (he is the player to move).
            None => self.card_boundary(),
        }
    }

    fn play(&mut self, s: Seat, c: Card) {
        let si = s as usize;
        if let Some(led) = self.led_suit()
            && c.suit() != led
        {
            self.voids[si] |= 1 << led as u8;
        }
        self.hands[si].remove(c);
        self.played[si].insert(c);
        self.plays.push((s, c));
        self.trick_mask |= bit(s);
        self.public(Event::Play { seat: s, card: c });
        self.card_boundary();
    }

    /// The winner of the complete current trick (docs/rules/toepen.md#winning-a-trick with dead
    /// cards, docs/rules/toepen.md#dead-cards).
    pub(crate) fn trick_winner(&self) -> Option<Seat> {
        let trick = self.trick();
        let led = trick.first()?.1.suit();
        let best_of = |suit: Suit| {
            trick
                .iter()
                .filter(|(s, c)| self.is_live(*s) && c.suit() == suit)
                .max_by_key(|(_, c)| strength(*c))
                .map(|(s, _)| *s)
        };
        best_of(led).or_else(|| {
            let first_live = trick.iter().find(|(s, _)| self.is_live(*s))?;
            best_of(first_live.1.suit())
        })
    }

    fn finish_trick(&mut self) {
        let w = match self.trick_winner() {
            Some(w) => w,
            // Unreachable (a complete trick has two live cards); keep the game moving.
            None => self
                .first_from(self.leader, self.live)
                .unwrap_or(self.leader),
        };
        self.public(Event::TrickWon {
            trick: self.trick_no,
            seat: w,
        });
        if (self.nwinners as usize) < 4 {
            self.winners[self.nwinners as usize] = w;
            self.nwinners += 1;
        }
        if self.trick_no >= 4 {
            self.end_round(w);
            return;
        }
        self.trick_no += 1;
        self.trick_starts[self.trick_no as usize - 1] = self.plays.len() as u8;
        self.trick_mask = 0;
        self.leader = w;
        self.card_boundary();
    }

    /// Scoring, eliminations, end of game, next dealer and next round
    /// (docs/rules/toepen.md#end-of-a-round, docs/rules/toepen.md#end-of-the-game).
    fn end_round(&mut self, winner: Seat) {
        self.window = None;
        self.public(Event::RoundEnd { winner });
        for s in 0..self.n {
            let si = s as usize;
            if s == winner || self.dealt & bit(s) == 0 {
                continue;
            }
            // Decision: a player eliminated by a laundry penalty earlier in this round
            // (neither folded nor live) pays nothing more.
            let pts = if self.fold_stake[si] > 0 {
                self.fold_stake[si]
            } else if self.is_live(s) {
                self.stake
            } else {
                0
            };
            if pts > 0 {
                self.scores[si] = self.scores[si].saturating_add(pts);
                self.public(Event::Penalty {
                    seat: s,
                    points: pts,
                    score: self.scores[si],
                });
            }
        }
        let limit = self.opts.limit;
        match self.opts.game_end {
            GameEnd::FirstToLimit => {
                if self.scores[..self.n as usize].iter().any(|sc| *sc >= limit) {
                    self.finish(false);
                    return;
                }
            }
            GameEnd::LastSurvivor => {
                let out = (0..self.n)
                    .filter(|s| self.in_game() & bit(*s) != 0 && self.scores[*s as usize] >= limit)
                    .fold(0u8, |m, s| m | bit(s));
                if out != 0 {
                    // Players eliminated at the same moment share a place
                    // (docs/rules/toepen.md#end-of-the-game).
                    self.elim_moment += 1;
                    for s in 0..self.n {
                        if out & bit(s) != 0 {
                            self.eliminate(s);
                        }
                    }
                }
                if self.in_game().count_ones() <= 1 {
                    self.finish(false);
                    return;
                }
            }
        }
        if self.round >= self.opts.max_rounds {
            self.finish(true);
            return;
        }
        self.dealer = match self.opts.next_dealer {
            NextDealer::RoundWinner => winner,
            NextDealer::RotateLeft => {
                let from = self.seat_after(self.dealer, 1);
                self.first_from(from, self.in_game()).unwrap_or(winner)
            }
        };
        self.round += 1;
        let (hands, stock) = self.shuffle_and_deal();
        self.begin_round(hands, stock);
    }

    /// Ends the game: the decision is `Over` and the outcome is set.
    fn finish(&mut self, aborted: bool) {
        self.window = None;
        self.decision = Decision::Over;
        let o = self.make_outcome(aborted);
        self.public(Event::GameEnd {
            summary: o.summary.clone(),
        });
        self.outcome = Some(o);
    }

    pub(crate) fn make_outcome(&self, aborted: bool) -> Outcome {
        let n = self.n as usize;
        let scores: Vec<i64> = self.scores[..n].iter().map(|s| *s as i64).collect();
        if aborted {
            return Outcome {
                results: vec![SeatResult::Draw; n],
                scores,
                aborted: true,
                summary: format!("aborted after {} rounds (max_rounds)", self.round),
            };
        }
        let names = |seats: &[usize]| {
            seats
                .iter()
                .map(|s| format!("P{s}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self.opts.game_end {
            GameEnd::FirstToLimit => {
                let limit = self.opts.limit;
                let losers: Vec<usize> = (0..n).filter(|s| self.scores[*s] >= limit).collect();
                let winners: Vec<usize> = (0..n).filter(|s| self.scores[*s] < limit).collect();
                Outcome {
                    results: (0..n)
                        .map(|s| {
                            if self.scores[s] >= limit {
                                SeatResult::Loss
                            } else {
                                SeatResult::Win
                            }
                        })
                        .collect(),
                    scores,
                    aborted: false,
                    summary: format!(
                        "{} reached the limit of {limit}; {} win",
                        names(&losers),
                        names(&winners)
                    ),
                }
            }
            GameEnd::LastSurvivor => {
                let survivors: Vec<usize> = (0..n)
                    .filter(|s| self.eliminated & bit(*s as Seat) == 0)
                    .collect();
                // Ranking: survivors first, then by elimination moment, later = better;
                // players eliminated at the same moment share a place.
                let place = |s: usize| {
                    if self.elim_at[s] == 0 {
                        1
                    } else {
                        1 + (0..n)
                            .filter(|t| self.elim_at[*t] == 0 || self.elim_at[*t] > self.elim_at[s])
                            .count()
                    }
                };
                let mut ranking = Vec::new();
                for p in 2..=n {
                    let at: Vec<usize> = (0..n)
                        .filter(|s| self.elim_at[*s] != 0 && place(*s) == p)
                        .collect();
                    if !at.is_empty() {
                        ranking.push(format!("{p}. {}", names(&at)));
                    }
                }
                Outcome {
                    results: (0..n)
                        .map(|s| {
                            if self.elim_at[s] == 0 {
                                SeatResult::Win
                            } else {
                                SeatResult::Loss
                            }
                        })
                        .collect(),
                    scores,
                    aborted: false,
                    summary: format!("{} wins; then {}", names(&survivors), ranking.join(", ")),
                }
            }
        }
    }

    // ------------------------------------------------------------------ invariants

    pub(crate) fn invariants(&self) -> Result<(), String> {
        let n = self.n as usize;
        if !(2..=8).contains(&n) {
            return Err(format!("bad seat count {n}"));
        }
        let mut seen = CardSet::EMPTY;
        // The zone's name is built only for an error: this runs in every checked state.
        let mut put = |zone: &str, seat: Option<usize>, s: CardSet| -> Result<(), String> {
            let name = || match seat {
                Some(p) => format!("{zone} P{p}"),
                None => zone.to_string(),
            };
            if !s.intersect(seen).is_empty() {
                return Err(format!("{}: {} in two zones", name(), s.intersect(seen)));
            }
            if !s.is_subset(DECK) {
                return Err(format!("{}: not piquet cards {}", name(), s.minus(DECK)));
            }
            seen = seen.union(s);
            Ok(())
        };
        for s in 0..MAXP {
            if s >= n
                && !(self.hands[s].is_empty()
                    && self.aside[s].is_empty()
                    && self.played[s].is_empty())
            {
                return Err(format!("cards held by non-seat {s}"));
            }
            put("hand", Some(s), self.hands[s])?;
            put("aside", Some(s), self.aside[s])?;
            put("played", Some(s), self.played[s])?;
        }
        for b in 0..MAX_BLOCKS {
            let blk = self.stock.blocks[b];
            if (b < self.stock.len as usize) != (blk.len() == 4)
                || (b >= self.stock.len as usize && !blk.is_empty())
            {
                return Err(format!("stock block {b} malformed: {blk}"));
            }
            put("stock", None, blk)?;
        }
        if seen != DECK {
            return Err(format!("cards lost: {}", DECK.minus(seen)));
        }
        let all = self.all_mask();
        if self.live & !self.dealt != 0 || self.dealt & !all != 0 {
            return Err("live/dealt masks out of range".into());
        }
        if self.dealt & self.eliminated & self.live != 0 {
            return Err("an eliminated seat is live".into());
        }
        for s in 0..n {
            let si = s as Seat;
            let dealt = self.dealt & bit(si) != 0;
            let total = self.hands[s].len() + self.played[s].len();
            if dealt && total != 4 {
                return Err(format!("P{s} holds+played {total} cards, not 4"));
            }
            if !dealt && total != 0 {
                return Err(format!("P{s} was not dealt in but has cards"));
            }
            let claimed = self.claimed & bit(si) != 0;
            let returned = self.returned & bit(si) != 0;
            let aside = self.aside[s].len();
            if aside != if claimed && !returned { 4 } else { 0 } {
                return Err(format!("P{s} has {aside} set-aside cards"));
            }
            if self.voids[s] != 0 && !self.hands[s].intersect(suits_set(self.voids[s])).is_empty() {
                return Err(format!("P{s} holds a card of a suit it is known to lack"));
            }
            if self.fold_stake[s] > 0 && self.live & bit(si) != 0 {
                return Err(format!("P{s} is live but folded"));
            }
            if self.opts.game_end == GameEnd::LastSurvivor
                && (self.eliminated & bit(si) != 0) != (self.scores[s] >= self.opts.limit)
            {
                return Err(format!("P{s} elimination does not match its score"));
            }
            if (self.eliminated & bit(si) != 0) != (self.elim_at[s] != 0) {
                return Err(format!("P{s} elimination moment mismatch"));
            }
        }
        if !self.stock.cards().is_multiple_of(4) {
            return Err("stock is not whole blocks".into());
        }
        // The trick bookkeeping.
        let mut mask = 0u8;
        for (s, c) in self.trick() {
            if !self.played[*s as usize].contains(*c) {
                return Err(format!("trick card {c} not in P{s}'s played cards"));
            }
            if mask & bit(*s) != 0 {
                return Err(format!("P{s} played twice to a trick"));
            }
            mask |= bit(*s);
        }
        if mask != self.trick_mask {
            return Err("trick mask out of date".into());
        }
        if self.plays.len() != self.played[..n].iter().map(|p| p.len()).sum::<usize>() {
            return Err("play list does not match played cards".into());
        }
        if self.stake < 1 || self.opts.max_stake.is_some_and(|m| self.stake > m.max(2)) {
            return Err(format!("stake {} out of range", self.stake));
        }
        match (self.decision, &self.outcome) {
            (Decision::Over, None) => return Err("decision Over without an outcome".into()),
            (Decision::Over, Some(_)) => {}
            (_, Some(_)) => return Err("outcome set while a decision is pending".into()),
            (_, None) => {
                let a = self.actor;
                if a as usize >= n || !self.is_live(a) {
                    return Err(format!("actor P{a} is not live"));
                }
                if self.live.count_ones() < 2 {
                    return Err("a decision with fewer than two live players".into());
                }
                let mut v = Vec::new();
                self.legal_into(&mut v);
                if v.is_empty() {
                    return Err(format!("P{a} to act without a legal action"));
                }
                if self.decision == Decision::Play && self.to_move() != Some(a) {
                    return Err(format!("P{a} to play out of turn"));
                }
            }
        }
        Ok(())
    }
}
