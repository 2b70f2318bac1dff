//! The Durak state machine: deal and first attacker (docs/rules/durak.md#deal,
//! docs/rules/durak.md#first-attacker), roles (docs/rules/durak.md#roles), the bout
//! (docs/rules/durak.md#the-bout, docs/rules/durak.md#legality), end of bout, refill, leaving and
//! the next attacker (docs/rules/durak.md#end-of-a-bout), the end of the game
//! (docs/rules/durak.md#end-of-the-game).

use super::types::*;
use super::why::Why;
use crate::cards::{Card, CardSet, Seat, Suit};
use crate::game::{IllegalAction, Logged, Outcome, Rules, SeatResult, Visibility};
use crate::log::EventLog;
use crate::rng::GameRng;

/// Most seats any deck allows (Deck52).
pub(crate) const MAX_SEATS: usize = 8;
/// Most cards a table (or the talon) can ever hold.
pub(crate) const MAX_CARDS: usize = 52;
// Decision: if `no_trump_fallback=Redeal` keeps dealing hands without a trump this many times
// (practically impossible), the engine falls back to `LeftOfDealer` so `new` always ends.
pub(crate) const MAX_REDEALS: u32 = 1000;

const FILLER: Card = Card::new(2, Suit::Clubs);

/// One attack card on the table, who played it, and its defence card.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    /// The attack card.
    pub attack: Card,
    /// The player whose hand the attack card left.
    pub by: Seat,
    /// The card that covers it, `None` while uncovered.
    pub defence: Option<Card>,
}

const EMPTY_PAIR: Pair = Pair {
    attack: FILLER,
    by: 0,
    defence: None,
};

/// Beat relation of docs/rules/durak.md#beat-relation: `d` beats `a` with trump suit `trump`.
pub fn beats(trump: Suit, d: Card, a: Card) -> bool {
    (d.suit() == a.suit() && d.rank() > a.rank()) || (d.suit() == trump && a.suit() != trump)
}

/// A Durak game in progress (or finished). Fixed-size arrays and the shared event log keep
/// clones allocation-free, which matters for search agents and the checker.
#[derive(Clone, Debug, PartialEq)]
pub struct Durak {
    pub(crate) opts: Options,
    pub(crate) n: u8,
    pub(crate) rng: GameRng,
    pub(crate) deck: CardSet,
    /// The trump card (face up under the talon, or the dealer's shown last card).
    pub(crate) trump: Card,
    pub(crate) dealer: Seat,
    pub(crate) hands: [CardSet; MAX_SEATS],
    /// Publicly known cards of each hand (`known_in_hand` of docs/rules/durak.md#information).
    pub(crate) known: [CardSet; MAX_SEATS],
    /// Trumps no hand held at the deal (see `Observation::low_trumps`).
    pub(crate) low: CardSet,
    /// Per player: how many `low` cards his unknown cards can hold.
    pub(crate) low_room: [u8; MAX_SEATS],
    /// Talon, bottom first: `talon[0]` is the face-up trump card while it is there; the top
    /// (next card drawn) is `talon[talon_len - 1]`.
    pub(crate) talon: [Card; MAX_CARDS],
    pub(crate) talon_len: u8,
    /// Who drew the trump card (or the dealer holding it when there was no talon).
    pub(crate) trump_holder: Option<Seat>,
    pub(crate) discard: CardSet,
    pub(crate) table: [Pair; MAX_CARDS],
    pub(crate) table_len: u8,
    pub(crate) phase: Phase,
    /// Principal attacker (a seat; under PartnerProxy it may be a seat whose player is out).
    pub(crate) principal: Seat,
    /// The seat that led the bout.
    pub(crate) leader: Seat,
    pub(crate) defender: Seat,
    pub(crate) h0: u8,
    pub(crate) taking: bool,
    /// Players who passed since the table last changed (bit per player).
    pub(crate) passed: u8,
    /// Trumps shown for a transfer in this bout.
    pub(crate) shown: CardSet,
    /// Bit per seat whose player is out.
    pub(crate) out: u8,
    /// Finishing place per seat, 0 = still in.
    pub(crate) finish: [u8; MAX_SEATS],
    /// Bouts started so far.
    pub(crate) bout: u16,
    pub(crate) first_attacker: Seat,
    pub(crate) outcome: Option<Outcome>,
    pub(crate) events: EventLog<Event>,
}

/// Test constructor input: a state built directly (docs/rules/README.md#engine-requirements), at
/// the start of a bout.
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct Setup {
    /// One hand per seat (empty for a seat that is out).
    pub hands: Vec<CardSet>,
    /// The talon, TOP FIRST; its last card is the face-up trump card when `trump` is in it.
    pub talon: Vec<Card>,
    /// The trump card. If it is not the talon's bottom card it is in a hand (that player
    /// drew it) or in the discard.
    pub trump: Card,
    pub dealer: Seat,
    /// The principal attacker of the bout that starts; `None` = the first attacker of
    /// docs/rules/durak.md#first-attacker (lowest trump / left of dealer / redeal with the state's
    /// RNG).
    pub attacker: Option<Seat>,
    /// Seats whose player is already out.
    pub out: Vec<Seat>,
    /// Extra publicly known cards per seat (e.g. cards taken earlier); may be empty.
    pub known: Vec<CardSet>,
    /// Bouts already played before this one (0 = the bout that starts is the first).
    pub bouts_played: u16,
    /// Seed of the state's RNG.
    pub seed: u64,
}

impl Setup {
    /// A setup with the given hands, talon (top first) and trump card; dealer 0, attacker
    /// by the rules, nobody out. Every deck card not placed goes to the discard.
    pub fn new(hands: Vec<CardSet>, talon: Vec<Card>, trump: Card) -> Setup {
        Setup {
            hands,
            talon,
            trump,
            dealer: 0,
            attacker: None,
            out: Vec::new(),
            known: Vec::new(),
            bouts_played: 0,
            seed: 0,
        }
    }
}

impl Durak {
    pub(crate) fn blank(opts: &Options, seed: u64) -> Durak {
        Durak {
            opts: opts.clone(),
            n: opts.num_players,
            rng: GameRng::new(seed),
            deck: opts.deck.cards(),
            trump: FILLER,
            dealer: 0,
            hands: [CardSet::EMPTY; MAX_SEATS],
            known: [CardSet::EMPTY; MAX_SEATS],
            low: CardSet::EMPTY,
            low_room: [0; MAX_SEATS],
            talon: [FILLER; MAX_CARDS],
            talon_len: 0,
            trump_holder: None,
            discard: CardSet::EMPTY,
            table: [EMPTY_PAIR; MAX_CARDS],
            table_len: 0,
            phase: Phase::Lead,
            principal: 0,
            leader: 0,
            defender: 0,
            h0: 0,
            taking: false,
            passed: 0,
            shown: CardSet::EMPTY,
            out: 0,
            finish: [0; MAX_SEATS],
            bout: 0,
            first_attacker: 0,
            outcome: None,
            events: EventLog::new(),
        }
    }

    /// Deals a new game (docs/rules/durak.md#deal, docs/rules/durak.md#first-attacker); options
    /// must be valid.
    pub(crate) fn deal_new(opts: &Options, seed: u64) -> Durak {
        let mut g = Durak::blank(opts, seed);
        // docs/rules/README.md#seats-and-direction / brief: the dealer is drawn BEFORE the shuffle.
        g.dealer = match opts.dealer {
            Some(d) => d,
            None => g.rng.below(g.n as usize) as Seat,
        };
        g.deal_cards();
        g.start_game();
        g
    }

    /// Shuffles the canonical deck and deals (docs/rules/durak.md#deal), emitting the deal events.
    fn deal_cards(&mut self) {
        let mut cards = [FILLER; MAX_CARDS];
        let mut len = 0;
        for c in self.deck.iter() {
            cards[len] = c;
            len += 1;
        }
        let cards = &mut cards[..len];
        self.rng.shuffle(cards);
        let n = self.n as usize;
        self.hands = [CardSet::EMPTY; MAX_SEATS];
        self.known = [CardSet::EMPTY; MAX_SEATS];
        let dealt = n * self.opts.hand_size as usize;
        for (k, c) in cards[..dealt].iter().enumerate() {
            self.hands[(self.dealer as usize + 1 + k) % n].insert(*c);
        }
        let rest = &cards[dealt..];
        if let Some(&t) = rest.first() {
            // docs/rules/durak.md#deal: the next card is turned up and goes to the bottom of the
            // talon.
            self.trump = t;
            self.talon[0] = t;
            for (i, c) in rest[1..].iter().rev().enumerate() {
                self.talon[i + 1] = *c;
            }
            self.talon_len = rest.len() as u8;
            self.trump_holder = None;
        } else {
            // docs/rules/durak.md#deal: no talon, the dealer's last card fixes the trump and is
            // shown.
            let t = cards[dealt - 1];
            self.trump = t;
            self.talon_len = 0;
            self.trump_holder = Some(self.dealer);
            self.known[self.dealer as usize].insert(t);
        }
        self.log(
            Visibility::Public,
            Event::Deal {
                dealer: self.dealer,
                trump: self.trump,
                talon: self.talon_len,
            },
        );
        for s in 0..self.n {
            self.log(
                Visibility::only(s),
                Event::Hand {
                    seat: s,
                    cards: self.hands[s as usize],
                },
            );
        }
    }

    /// Finds the first attacker (docs/rules/durak.md#first-attacker), redealing when asked to, and
    /// starts the first bout.
    fn start_game(&mut self) {
        let mut redeals = 0;
        let attacker = loop {
            match self.first_attacker_of_deal(redeals >= MAX_REDEALS) {
                Some(a) => break a,
                None => {
                    redeals += 1;
                    self.log(Visibility::Public, Event::Redeal);
                    self.deal_cards();
                }
            }
        };
        self.first_attacker = attacker;
        self.start_bout(attacker);
    }

    /// The first attacker of the current deal, or `None` when the deal must be redone.
    fn first_attacker_of_deal(&mut self, no_more_redeals: bool) -> Option<Seat> {
        let left = (self.dealer + 1) % self.n;
        if self.opts.first_attacker == FirstAttacker::LeftOfDealer {
            return Some(left);
        }
        let trumps = self.deck.of_suit(self.trump.suit());
        let mut all = CardSet::EMPTY;
        for h in &self.hands[..self.n as usize] {
            all = all.union(*h);
        }
        match all.intersect(trumps).first() {
            Some(low) => {
                let holder = (0..self.n)
                    .find(|s| self.hands[*s as usize].contains(low))
                    .unwrap_or(left);
                if self.opts.reveal_lowest_trump {
                    self.known[holder as usize].insert(low);
                    self.low = CardSet(trumps.bits() & (low.bit() - 1));
                    self.log(
                        Visibility::Public,
                        Event::LowestTrump {
                            seat: holder,
                            card: low,
                        },
                    );
                }
                Some(holder)
            }
            None => {
                if self.opts.no_trump_fallback == NoTrumpFallback::Redeal && !no_more_redeals {
                    return None;
                }
                // Decision: with the reveal on, the absence of a revealed trump tells
                // everybody that no hand held a trump; that certain inference is kept.
                if self.opts.reveal_lowest_trump {
                    self.low = trumps;
                }
                Some(left)
            }
        }
    }

    /// Builds a state directly (test constructor, docs/rules/README.md#engine-requirements): the
    /// bout that starts has `setup.attacker` (or the docs/rules/durak.md#first-attacker first
    /// attacker) as principal attacker.
    #[doc(hidden)]
    pub fn from_setup(opts: &Options, setup: Setup) -> Result<Durak, String> {
        opts.validate().map_err(|e| e.to_string())?;
        let mut g = Durak::blank(opts, setup.seed);
        let n = g.n as usize;
        if setup.hands.len() != n {
            return Err(format!("{} hands for {n} players", setup.hands.len()));
        }
        if setup.dealer as usize >= n {
            return Err("dealer out of range".into());
        }
        g.dealer = setup.dealer;
        g.trump = setup.trump;
        let mut seen = CardSet::EMPTY;
        let mut place = |c: CardSet| -> Result<(), String> {
            if !c.is_subset(g.deck) {
                return Err(format!("{} is not in the deck", c.minus(g.deck)));
            }
            if !c.intersect(seen).is_empty() {
                return Err(format!("{} placed twice", c.intersect(seen)));
            }
            seen = seen.union(c);
            Ok(())
        };
        for h in &setup.hands {
            place(*h)?;
        }
        for c in &setup.talon {
            place(CardSet::from_cards([*c]))?;
        }
        if !g.deck.contains(setup.trump) {
            return Err("trump card not in the deck".into());
        }
        for (s, h) in setup.hands.iter().enumerate() {
            g.hands[s] = *h;
        }
        g.discard = g.deck.minus(seen);
        g.talon_len = setup.talon.len() as u8;
        for (i, c) in setup.talon.iter().rev().enumerate() {
            g.talon[i] = *c;
        }
        if setup.talon.last() == Some(&setup.trump) {
            g.trump_holder = None;
        } else {
            let holder = (0..g.n).find(|s| g.hands[*s as usize].contains(setup.trump));
            g.trump_holder = Some(holder.unwrap_or(setup.dealer));
            if let Some(h) = holder {
                g.known[h as usize].insert(setup.trump);
            }
        }
        for (s, k) in setup.known.iter().enumerate().take(n) {
            if !k.is_subset(g.hands[s]) {
                return Err(format!("known cards {k} not in P{s}'s hand"));
            }
            g.known[s] = g.known[s].union(*k);
        }
        for (place_no, &s) in (1..).zip(setup.out.iter()) {
            if s as usize >= n || !g.hands[s as usize].is_empty() || g.talon_len > 0 {
                return Err(format!("P{s} cannot be out"));
            }
            g.out |= 1 << s;
            g.finish[s as usize] = place_no;
        }
        g.bout = setup.bouts_played;
        g.log(
            Visibility::Public,
            Event::Deal {
                dealer: g.dealer,
                trump: g.trump,
                talon: g.talon_len,
            },
        );
        for s in 0..g.n {
            g.log(
                Visibility::only(s),
                Event::Hand {
                    seat: s,
                    cards: g.hands[s as usize],
                },
            );
        }
        match setup.attacker {
            Some(a) => {
                if a as usize >= n || !g.active(a) {
                    return Err(format!("attacker P{a} is not an active seat"));
                }
                g.first_attacker = a;
                g.start_bout(a);
            }
            None => g.start_game(),
        }
        if g.hands[g.controller(g.principal) as usize].is_empty()
            || g.hands[g.controller(g.defender) as usize].is_empty()
        {
            return Err("attacker and defender must hold cards".into());
        }
        g.check()
            .map_err(|e| format!("setup breaks an invariant: {e}"))?;
        Ok(g)
    }

    pub(crate) fn log(&mut self, vis: Visibility, event: Event) {
        self.events.push(Logged { vis, event });
    }

    // ---------------------------------------------------------------- roles
    // (docs/rules/durak.md#roles)

    #[inline]
    pub(crate) fn active(&self, s: Seat) -> bool {
        self.out & (1 << s) == 0
    }

    #[inline]
    pub(crate) fn partnerships(&self) -> bool {
        self.opts.teams == Teams::Partnerships
    }

    #[inline]
    pub(crate) fn proxy(&self) -> bool {
        self.partnerships() && self.opts.team_exit_rule == TeamExitRule::PartnerProxy
    }

    /// The player who acts for seat `s` (docs/rules/durak.md#partnerships, PartnerProxy: partner,
    /// or nearest active teammate clockwise); the seat itself otherwise.
    #[inline]
    pub(crate) fn controller(&self, s: Seat) -> Seat {
        if !self.proxy() || self.active(s) {
            return s;
        }
        let mut t = s;
        for _ in 1..self.n / 2 {
            t = (t + 2) % self.n;
            if self.active(t) {
                return t;
            }
        }
        s
    }

    /// `next_active(s)` of docs/rules/durak.md#roles.
    pub(crate) fn next_active(&self, s: Seat) -> Seat {
        for k in 1..=self.n {
            let t = (s + k) % self.n;
            if self.active(t) {
                return t;
            }
        }
        s
    }

    /// First active opponent clockwise from `s` (SkipOut).
    fn next_active_opponent(&self, s: Seat) -> Seat {
        for k in 1..self.n {
            let t = (s + k) % self.n;
            if self.active(t) && t % 2 != s % 2 {
                return t;
            }
        }
        s
    }

    /// The defender faced by attacker `a` (docs/rules/durak.md#roles).
    fn defender_for(&self, a: Seat) -> Seat {
        if !self.partnerships() {
            self.next_active(a)
        } else if self.proxy() {
            (a + 1) % self.n
        } else {
            self.next_active_opponent(a)
        }
    }

    /// Transfer target of the current defender (docs/rules/durak.md#roles).
    pub(crate) fn transfer_target(&self) -> Seat {
        self.defender_for(self.defender)
    }

    #[inline]
    pub(crate) fn hand_len(&self, p: Seat) -> usize {
        self.hands[p as usize].len()
    }

    // ---------------------------------------------------------------- bout limits
    // (docs/rules/durak.md#bout-limit)

    pub(crate) fn cap(&self) -> u8 {
        match self.opts.first_bout_cap {
            Some(c) if self.discard.is_empty() => c,
            _ => self.opts.bout_cap,
        }
    }

    pub(crate) fn limit(&self) -> u8 {
        self.cap().min(self.h0)
    }

    pub(crate) fn room(&self) -> u8 {
        self.limit().saturating_sub(self.table_len)
    }

    pub(crate) fn table(&self) -> &[Pair] {
        &self.table[..self.table_len as usize]
    }

    fn table_cards(&self) -> CardSet {
        let mut s = CardSet::EMPTY;
        for p in self.table() {
            s.insert(p.attack);
            if let Some(d) = p.defence {
                s.insert(d);
            }
        }
        s
    }

    /// Bit `r` set for every rank on the table (docs/rules/durak.md#rank-rule).
    fn table_ranks(&self) -> u16 {
        let mut m = 0u16;
        for p in self.table() {
            m |= 1 << p.attack.rank();
            if let Some(d) = p.defence {
                m |= 1 << d.rank();
            }
        }
        m
    }

    fn any_covered(&self) -> bool {
        self.table().iter().any(|p| p.defence.is_some())
    }

    fn all_covered(&self) -> bool {
        self.table().iter().all(|p| p.defence.is_some())
    }

    // ---------------------------------------------------------------- throw-in
    // (docs/rules/durak.md#who-may-throw-in)

    /// Players allowed to add cards to this bout (bit per player).
    pub(crate) fn eligible(&self) -> u8 {
        let all = ((1u16 << self.n) - 1) as u8;
        let active = all & !self.out;
        if self.partnerships() {
            let team = (self.defender + 1) % 2;
            let mut m = 0u8;
            for s in (team..self.n).step_by(2) {
                m |= 1 << s;
            }
            return active & m;
        }
        let d = 1u8 << self.defender;
        match self.opts.throw_in_by {
            ThrowInBy::AllOpponents => active & !d,
            ThrowInBy::Neighbours => {
                ((1u8 << self.principal) | (1u8 << self.next_active(self.defender))) & active & !d
            }
        }
    }

    /// The next thrower in priority order (docs/rules/durak.md#throw-in) who has not passed.
    // Decision: an eligible thrower without a card of a table rank (even one with no card at
    // all) is still asked; his only action is `Pass` (docs/rules/durak.md#who-may-throw-in,
    // docs/rules/durak.md#edge-cases: the host may auto-pass him, and the event is the same as for
    // a chosen pass).
    pub(crate) fn thrower(&self) -> Option<Seat> {
        let open = self.eligible() & !self.passed;
        if open == 0 {
            return None;
        }
        let c = self.controller(self.principal);
        if open & (1 << c) != 0 {
            return Some(c);
        }
        (1..self.n)
            .map(|k| (self.principal + k) % self.n)
            .find(|s| open & (1 << s) != 0)
    }

    // ---------------------------------------------------------------- decisions

    pub(crate) fn actor(&self) -> Option<Seat> {
        match self.phase {
            Phase::Lead => Some(self.controller(self.principal)),
            Phase::Defend => Some(self.controller(self.defender)),
            Phase::ThrowIn => self.thrower(),
            Phase::Over => None,
        }
    }

    /// The seat the current decision is made for (docs/rules/durak.md#partnerships, PartnerProxy).
    // Decision: in the throw-in phase this is the principal attacker's seat while its
    // controller is asked (priority 1 of docs/rules/durak.md#throw-in), otherwise the thrower's own
    // seat.
    pub(crate) fn acting_for(&self) -> Option<Seat> {
        match self.phase {
            Phase::Lead => Some(self.principal),
            Phase::Defend => Some(self.defender),
            Phase::ThrowIn => self.thrower().map(|t| {
                if t == self.controller(self.principal) {
                    self.principal
                } else {
                    t
                }
            }),
            Phase::Over => None,
        }
    }

    fn first_bout(&self) -> bool {
        self.bout <= 1
    }

    /// Common conditions 1, 2 and 6 of docs/rules/durak.md#transfer plus the lead rank; `None` if
    /// no transfer now.
    fn transfer_rank(&self) -> Option<u8> {
        if !self.opts.transfer
            || self.any_covered()
            || (self.opts.no_transfer_in_first_bout && self.first_bout())
        {
            return None;
        }
        Some(self.table[0].attack.rank())
    }

    pub(crate) fn legal(&self, out: &mut Vec<Action>) {
        out.clear();
        let Some(p) = self.actor() else { return };
        let hand = self.hands[p as usize];
        match self.phase {
            Phase::Lead => {
                for c in hand {
                    out.push(Action::Lead(c));
                }
                if self.opts.multi_card_lead {
                    let k = self.cap().min(self.h0).min(4) as u32;
                    for r in self.opts.deck.low_rank()..=14 {
                        let of_rank = rank_set(r).intersect(hand).bits();
                        if of_rank.count_ones() < 2 {
                            continue;
                        }
                        // Every subset of 2..=k cards of this rank.
                        let mut sub = of_rank;
                        while sub != 0 {
                            let c = sub.count_ones();
                            if c >= 2 && c <= k {
                                out.push(Action::LeadMany(CardSet(sub)));
                            }
                            sub = (sub - 1) & of_rank;
                        }
                    }
                }
            }
            Phase::Defend => {
                let trump = self.trump.suit();
                for (i, pair) in self.table().iter().enumerate() {
                    if pair.defence.is_some() {
                        continue;
                    }
                    for c in hand {
                        if beats(trump, c, pair.attack) {
                            out.push(Action::Beat {
                                slot: i as u8,
                                card: c,
                            });
                        }
                    }
                }
                if let Some(r) = self.transfer_rank() {
                    let count = self.table_len as usize;
                    let target = self.hand_len(self.controller(self.transfer_target()));
                    let same = rank_set(r).intersect(hand);
                    if count < self.cap() as usize && target > count {
                        for c in same {
                            out.push(Action::Transfer(c));
                        }
                    }
                    if self.opts.transfer_by_showing_trump
                        && count <= self.cap() as usize
                        && target >= count
                    {
                        for c in same.of_suit(trump).minus(self.shown) {
                            out.push(Action::ShowTrumpTransfer(c));
                        }
                    }
                }
                out.push(Action::Take);
            }
            Phase::ThrowIn => {
                let ranks = self.table_ranks();
                for c in hand {
                    if ranks & (1 << c.rank()) != 0 {
                        out.push(Action::ThrowIn(c));
                    }
                }
                out.push(Action::Pass);
            }
            Phase::Over => {}
        }
    }

    /// Full validation of `a` without changing anything; `Err` says why it is illegal.
    fn validate_action(&self, a: Action) -> Result<Seat, Why> {
        let Some(p) = self.actor() else {
            return Err(Why::GameOver);
        };
        let hand = self.hands[p as usize];
        let in_hand = |card: Card| -> Result<(), Why> {
            if hand.contains(card) {
                Ok(())
            } else {
                Err(Why::NotInHand { seat: p, card })
            }
        };
        match (self.phase, a) {
            (Phase::Lead, Action::Lead(c)) => in_hand(c)?,
            // Decision: with `multi_card_lead` one card is led with `Lead`, 2..=4 cards of one
            // rank with `LeadMany` (so no lead is listed twice).
            (Phase::Lead, Action::LeadMany(set)) => {
                if !self.opts.multi_card_lead {
                    return Err(Why::MultiLeadOff);
                }
                let len = set.len();
                if !(2..=4).contains(&len) {
                    return Err(Why::MultiLeadSize);
                }
                // Never `None`: the set has at least two cards.
                let Some(first) = set.first() else {
                    return Err(Why::MultiLeadSize);
                };
                if !set.is_subset(rank_set(first.rank())) {
                    return Err(Why::MultiLeadMixedRanks);
                }
                if !set.is_subset(hand) {
                    return Err(Why::NotAllInHand {
                        seat: p,
                        missing: set.minus(hand),
                    });
                }
                let k = self.cap().min(self.h0) as usize;
                if len > k {
                    return Err(Why::MultiLeadOverLimit {
                        cap: self.cap(),
                        defender_holds: self.h0,
                    });
                }
            }
            (Phase::Defend, Action::Beat { slot, card }) => {
                let Some(pair) = self.table().get(slot as usize) else {
                    return Err(Why::NoSlot(slot));
                };
                if pair.defence.is_some() {
                    return Err(Why::SlotCovered {
                        slot,
                        attack: pair.attack,
                    });
                }
                in_hand(card)?;
                if !beats(self.trump.suit(), card, pair.attack) {
                    return Err(Why::DoesNotBeat {
                        card,
                        attack: pair.attack,
                        trump: self.trump.suit(),
                    });
                }
            }
            (Phase::Defend, Action::Transfer(c))
            | (Phase::Defend, Action::ShowTrumpTransfer(c)) => {
                let show = matches!(a, Action::ShowTrumpTransfer(_));
                if !self.opts.transfer {
                    return Err(Why::TransferOff);
                }
                if show && !self.opts.transfer_by_showing_trump {
                    return Err(Why::ShowTrumpOff);
                }
                if self.opts.no_transfer_in_first_bout && self.first_bout() {
                    return Err(Why::TransferInFirstBout);
                }
                if self.any_covered() {
                    return Err(Why::TransferAfterBeat);
                }
                in_hand(c)?;
                let r = self.table[0].attack.rank();
                if c.rank() != r {
                    return Err(Why::NotAttackRank(c));
                }
                if show {
                    if c.suit() != self.trump.suit() {
                        return Err(Why::NotTrump(c));
                    }
                    if self.shown.contains(c) {
                        return Err(Why::AlreadyShown(c));
                    }
                }
                let count = self.table_len as usize + usize::from(!show);
                if count > self.cap() as usize {
                    return Err(Why::TransferOverCap { cap: self.cap() });
                }
                let t = self.transfer_target();
                let have = self.hand_len(self.controller(t));
                if have < count {
                    // Both at most the number of cards in the deck.
                    return Err(Why::TargetTooShort {
                        seat: t,
                        holds: have as u8,
                        attack_cards: count as u8,
                    });
                }
            }
            (Phase::Defend, Action::Take) => {}
            (Phase::ThrowIn, Action::ThrowIn(c)) => {
                in_hand(c)?;
                if self.table_ranks() & (1 << c.rank()) == 0 {
                    return Err(Why::RankNotOnTable(c));
                }
                if self.room() == 0 {
                    return Err(Why::BoutFull);
                }
            }
            (Phase::ThrowIn, Action::Pass) => {}
            (phase, _) => return Err(Why::WrongPhase(phase)),
        }
        Ok(p)
    }

    /// docs/rules/durak.md#information bookkeeping for a card leaving `p`'s hand face up.
    fn reveal_played(&mut self, p: Seat, c: Card) {
        let i = p as usize;
        if !self.known[i].remove(c) && self.low.contains(c) {
            self.low_room[i] = self.low_room[i].saturating_sub(1);
        }
    }

    fn push_attack(&mut self, c: Card, by: Seat) {
        // Always in range for a real state (at most 52 cards exist); checked anyway so that
        // a state built from a forged observation cannot make `apply` panic.
        if let Some(slot) = self.table.get_mut(self.table_len as usize) {
            *slot = Pair {
                attack: c,
                by,
                defence: None,
            };
            self.table_len += 1;
        }
    }

    pub(crate) fn apply_action(&mut self, a: Action) -> Result<(), IllegalAction<Action, Why>> {
        // Decision: events name the PLAYER whose hand a card left (under PartnerProxy the
        // controller, e.g. "P1 leads 7S" for seat 3); `BoutStart` and `new_defender` name seats.
        let p = self
            .validate_action(a)
            .map_err(|why| IllegalAction { action: a, why })?;
        let pi = p as usize;
        match a {
            Action::Lead(c) => {
                self.hands[pi].remove(c);
                self.reveal_played(p, c);
                self.push_attack(c, p);
                self.log(
                    Visibility::Public,
                    Event::Lead {
                        seat: p,
                        cards: CardSet::from_cards([c]),
                    },
                );
                self.phase = Phase::Defend;
            }
            Action::LeadMany(set) => {
                for c in set {
                    self.hands[pi].remove(c);
                    self.reveal_played(p, c);
                    self.push_attack(c, p);
                }
                self.log(
                    Visibility::Public,
                    Event::Lead {
                        seat: p,
                        cards: set,
                    },
                );
                self.phase = Phase::Defend;
            }
            Action::Beat { slot, card } => {
                self.hands[pi].remove(card);
                self.reveal_played(p, card);
                let attack = self.table[slot as usize].attack;
                self.table[slot as usize].defence = Some(card);
                self.log(
                    Visibility::Public,
                    Event::Beat {
                        seat: p,
                        slot,
                        card,
                        attack,
                    },
                );
                if self.all_covered() {
                    self.phase = Phase::ThrowIn;
                    self.passed = 0;
                }
            }
            Action::Transfer(c) => {
                let t = self.transfer_target();
                self.hands[pi].remove(c);
                self.reveal_played(p, c);
                self.push_attack(c, p);
                self.log(
                    Visibility::Public,
                    Event::Transfer {
                        seat: p,
                        card: c,
                        new_defender: t,
                    },
                );
                self.pass_on(t);
            }
            Action::ShowTrumpTransfer(c) => {
                let t = self.transfer_target();
                self.shown.insert(c);
                if self.known[pi].insert(c) && self.low.contains(c) {
                    self.low_room[pi] = self.low_room[pi].saturating_sub(1);
                }
                self.log(
                    Visibility::Public,
                    Event::ShowTrump {
                        seat: p,
                        card: c,
                        new_defender: t,
                    },
                );
                self.pass_on(t);
            }
            Action::Take => {
                self.taking = true;
                self.phase = Phase::ThrowIn;
                self.passed = 0;
                self.log(Visibility::Public, Event::Take { seat: p });
            }
            Action::ThrowIn(c) => {
                self.hands[pi].remove(c);
                self.reveal_played(p, c);
                self.push_attack(c, p);
                self.passed = 0;
                if !self.taking {
                    self.phase = Phase::Defend;
                }
                self.log(Visibility::Public, Event::ThrowIn { seat: p, card: c });
            }
            Action::Pass => {
                self.passed |= 1 << p;
                self.log(Visibility::Public, Event::Pass { seat: p });
            }
        }
        self.settle();
        Ok(())
    }

    /// Effect of a transfer (docs/rules/durak.md#transfer): the old defender becomes principal
    /// attacker.
    fn pass_on(&mut self, t: Seat) {
        self.principal = self.defender;
        self.defender = t;
        self.h0 = self.hand_len(self.controller(t)) as u8;
        self.passed = 0;
        self.phase = Phase::Defend;
    }

    /// Ends the bout when docs/rules/durak.md#throw-in says so.
    fn settle(&mut self) {
        if self.phase == Phase::ThrowIn
            && (self.room() == 0
                || (self.taking && !self.opts.throw_in_after_take)
                || self.thrower().is_none())
        {
            self.end_bout();
        }
    }

    pub(crate) fn start_bout(&mut self, a: Seat) {
        self.bout = self.bout.saturating_add(1);
        self.principal = a;
        self.leader = a;
        self.defender = self.defender_for(a);
        self.h0 = self.hand_len(self.controller(self.defender)) as u8;
        self.taking = false;
        self.passed = 0;
        self.shown = CardSet::EMPTY;
        self.table_len = 0;
        self.phase = Phase::Lead;
        self.log(
            Visibility::Public,
            Event::BoutStart {
                attacker: a,
                defender: self.defender,
            },
        );
    }

    /// docs/rules/durak.md#end-of-a-bout: resolution, refill, leaving, end of game, next bout.
    fn end_bout(&mut self) {
        let cards = self.table_cards();
        let d = self.controller(self.defender);
        let how = if self.taking {
            self.hands[d as usize] = self.hands[d as usize].union(cards);
            self.known[d as usize] = self.known[d as usize].union(cards);
            BoutEnd::Taken
        } else {
            self.discard = self.discard.union(cards);
            BoutEnd::Beaten
        };
        self.table_len = 0;
        self.shown = CardSet::EMPTY;
        self.passed = 0;
        self.log(Visibility::Public, Event::BoutEnd { how, cards });
        self.refill(d);
        if self.talon_len == 0 {
            let place = self.out.count_ones() as u8 + 1;
            for s in 0..self.n {
                if self.active(s) && self.hands[s as usize].is_empty() {
                    self.out |= 1 << s;
                    self.finish[s as usize] = place;
                    self.log(Visibility::Public, Event::Out { seat: s });
                }
            }
        }
        if self.game_decided() {
            self.finish_game(false);
            return;
        }
        // Decision: `max_bouts` is a safety limit, not a rule
        // (docs/rules/README.md#engine-requirements): with three or more players the defenders can
        // keep taking forever. The game then ends aborted.
        if self.bout as u32 >= self.opts.max_bouts {
            self.finish_game(true);
            return;
        }
        let next = if self.proxy() {
            match how {
                BoutEnd::Beaten => self.defender,
                BoutEnd::Taken => (self.defender + 1) % self.n,
            }
        } else {
            match how {
                BoutEnd::Beaten if self.active(self.defender) => self.defender,
                _ => self.next_active(self.defender),
            }
        };
        self.start_bout(next);
    }

    /// docs/rules/durak.md#refill: draw in order principal (or leader), others clockwise, defender
    /// last.
    fn refill(&mut self, d: Seat) {
        if self.talon_len == 0 {
            return;
        }
        let start = self.controller(match self.opts.refill_start {
            RefillStart::FinalAttacker => self.principal,
            RefillStart::OriginalLeader => self.leader,
        });
        // Decision: if the original leader is the final defender (after transfers round the
        // table), the defender still draws last and the others draw clockwise from him.
        for k in 0..self.n {
            let s = (start + k) % self.n;
            if s != d && self.active(s) {
                self.draw(s);
            }
        }
        self.draw(d);
    }

    fn draw(&mut self, s: Seat) {
        let i = s as usize;
        let need = (self.opts.hand_size as usize).saturating_sub(self.hands[i].len());
        let count = need.min(self.talon_len as usize);
        // Decision: a player who draws nothing gets no `Refill` event (nothing changed).
        if count == 0 {
            return;
        }
        let mut got = CardSet::EMPTY;
        for _ in 0..count {
            self.talon_len -= 1;
            got.insert(self.talon[self.talon_len as usize]);
        }
        let with_trump = self.trump_holder.is_none() && got.contains(self.trump);
        if with_trump {
            self.trump_holder = Some(s);
            self.known[i].insert(self.trump);
        }
        self.hands[i] = self.hands[i].union(got);
        let hidden = count - usize::from(with_trump);
        self.low_room[i] = self.low_room[i].saturating_add(hidden as u8);
        self.log(
            Visibility::Public,
            Event::Refill {
                seat: s,
                count: count as u8,
                trump: with_trump,
            },
        );
        self.log(
            Visibility::only(s),
            Event::Drew {
                seat: s,
                cards: got,
            },
        );
    }

    /// docs/rules/durak.md#end-of-the-game: is the game over?
    pub(crate) fn game_decided(&self) -> bool {
        if self.partnerships() {
            let (a, b) = self.team_active();
            !(a && b)
        } else {
            self.active_count() <= 1
        }
    }

    fn active_count(&self) -> u32 {
        self.n as u32 - self.out.count_ones()
    }

    fn team_active(&self) -> (bool, bool) {
        let mut t = (false, false);
        for s in 0..self.n {
            if self.active(s) {
                if s % 2 == 0 {
                    t.0 = true;
                } else {
                    t.1 = true;
                }
            }
        }
        t
    }

    /// Sets the outcome and the `Over` phase.
    pub(crate) fn finish_game(&mut self, aborted: bool) {
        let o = self.compute_outcome(aborted);
        self.phase = Phase::Over;
        self.table_len = 0;
        self.log(
            Visibility::Public,
            Event::GameEnd {
                summary: o.summary.clone(),
            },
        );
        self.outcome = Some(o);
    }

    // Decision: `scores` holds finishing places, see below.
    /// The outcome of docs/rules/durak.md#end-of-the-game. `scores[s]` is seat `s`'s finishing
    /// place (1 = went out first, players who went out at the same end of bout share a place;
    /// players still holding cards get the place after the last one who went out).
    pub(crate) fn compute_outcome(&self, aborted: bool) -> Outcome {
        let n = self.n as usize;
        let last = self.out.count_ones() as i64 + 1;
        let scores: Vec<i64> = (0..n)
            .map(|s| {
                if self.finish[s] == 0 {
                    last
                } else {
                    self.finish[s] as i64
                }
            })
            .collect();
        let all = |r: SeatResult| vec![r; n];
        let (results, summary) = if aborted {
            (
                all(SeatResult::Draw),
                format!(
                    "aborted after {} bouts (safety limit max_bouts, not a rule)",
                    self.bout
                ),
            )
        } else if self.partnerships() {
            match self.team_active() {
                (true, false) | (false, true) => {
                    let winner = if self.team_active().0 { 1 } else { 0 };
                    let seats: Vec<String> = (winner..self.n)
                        .step_by(2)
                        .map(|s| format!("P{s}"))
                        .collect();
                    (
                        (0..self.n)
                            .map(|s| {
                                if s % 2 == winner {
                                    SeatResult::Win
                                } else {
                                    SeatResult::Loss
                                }
                            })
                            .collect(),
                        format!("team {winner} ({}) wins", seats.join(", ")),
                    )
                }
                _ => (all(SeatResult::Draw), "draw".to_string()),
            }
        } else {
            match (0..self.n).find(|s| self.active(*s)) {
                Some(d) if self.active_count() == 1 => (
                    (0..self.n)
                        .map(|s| {
                            if s == d {
                                SeatResult::Loss
                            } else {
                                SeatResult::Win
                            }
                        })
                        .collect(),
                    format!("P{d} is the durak"),
                ),
                _ => (all(SeatResult::Draw), "draw".to_string()),
            }
        };
        Outcome {
            results,
            scores,
            aborted,
            summary,
        }
    }

    /// Internal consistency (docs/rules/durak.md#cards zones, docs/rules/durak.md#the-bout phase
    /// sanity, docs/rules/durak.md#information knowledge).
    pub(crate) fn check(&self) -> Result<(), String> {
        let n = self.n as usize;
        let mut seen = CardSet::EMPTY;
        let mut total = 0usize;
        // The zone's name is built only for an error: this runs in every checked state.
        let mut add = |what: &str, seat: Option<usize>, c: CardSet| -> Result<(), String> {
            if !c.intersect(seen).is_empty() {
                let what = match seat {
                    Some(p) => format!("{what} P{p}"),
                    None => what.to_string(),
                };
                return Err(format!("{} in two zones ({what})", c.intersect(seen)));
            }
            seen = seen.union(c);
            total += c.len();
            Ok(())
        };
        for s in 0..n {
            add("hand", Some(s), self.hands[s])?;
        }
        for s in n..MAX_SEATS {
            if !self.hands[s].is_empty() || !self.known[s].is_empty() {
                return Err(format!("cards for non-existent seat {s}"));
            }
        }
        let mut talon = CardSet::EMPTY;
        for c in &self.talon[..self.talon_len as usize] {
            if !talon.insert(*c) {
                return Err(format!("{c} twice in the talon"));
            }
        }
        add("talon", None, talon)?;
        let mut table = CardSet::EMPTY;
        for p in self.table() {
            if !table.insert(p.attack) {
                return Err(format!("{} twice on the table", p.attack));
            }
            if let Some(d) = p.defence {
                if !table.insert(d) {
                    return Err(format!("{d} twice on the table"));
                }
                if !beats(self.trump.suit(), d, p.attack) {
                    return Err(format!("{d} covers {} but does not beat it", p.attack));
                }
            }
        }
        add("table", None, table)?;
        add("discard", None, self.discard)?;
        if seen != self.deck || total != self.deck.len() {
            return Err(format!(
                "cards not conserved: missing {}, foreign {}",
                self.deck.minus(seen),
                seen.minus(self.deck)
            ));
        }
        match self.trump_holder {
            None => {
                if self.talon_len == 0 || self.talon[0] != self.trump {
                    return Err("trump card should be at the bottom of the talon".into());
                }
            }
            Some(h) => {
                if h as usize >= n || talon.contains(self.trump) {
                    return Err("trump holder inconsistent".into());
                }
            }
        }
        for s in 0..n {
            if !self.known[s].is_subset(self.hands[s]) {
                return Err(format!("P{s}: known cards not in hand"));
            }
            let unknown_low = self.hands[s].minus(self.known[s]).intersect(self.low).len();
            if unknown_low > self.low_room[s] as usize {
                return Err(format!("P{s}: more low trumps than drawn cards"));
            }
            if !self.active(s as Seat) {
                if !self.hands[s].is_empty() || self.talon_len > 0 || self.finish[s] == 0 {
                    return Err(format!("P{s} is out but inconsistent"));
                }
            } else if self.finish[s] != 0 {
                return Err(format!("P{s} has a place but is active"));
            }
        }
        if !self.shown.is_subset(self.trump_suit_cards()) {
            return Err("a shown card is not a trump".into());
        }
        match self.phase {
            Phase::Over => {
                if self.outcome.is_none() || self.table_len != 0 {
                    return Err("game over without outcome or with cards on the table".into());
                }
                return Ok(());
            }
            _ => {
                if self.outcome.is_some() {
                    return Err("outcome while the game runs".into());
                }
                if self.game_decided() {
                    return Err("the game should be over".into());
                }
            }
        }
        for s in [self.principal, self.defender] {
            if s as usize >= n || !self.active(self.controller(s)) {
                return Err(format!("role on inactive seat {s}"));
            }
        }
        if self.controller(self.principal) == self.controller(self.defender) {
            return Err("the attacker defends against himself".into());
        }
        if self.partnerships() && self.principal % 2 == self.defender % 2 {
            return Err("attacker and defender on one team".into());
        }
        if self.table_len > self.limit() {
            return Err(format!(
                "{} attack cards, limit {}",
                self.table_len,
                self.limit()
            ));
        }
        let uncovered = self.table().iter().filter(|p| p.defence.is_none()).count();
        match self.phase {
            Phase::Lead => {
                if self.table_len != 0 || self.taking {
                    return Err("table not empty in Lead".into());
                }
                if self.hand_len(self.controller(self.principal)) == 0 {
                    return Err("the leader has no card".into());
                }
            }
            Phase::Defend => {
                if uncovered == 0 || self.taking {
                    return Err("Defend without uncovered cards".into());
                }
                if uncovered > self.hand_len(self.controller(self.defender)) {
                    return Err("more uncovered cards than the defender holds".into());
                }
            }
            Phase::ThrowIn => {
                if uncovered > 0 && !self.taking {
                    return Err("ThrowIn with uncovered cards".into());
                }
                if self.thrower().is_none() || self.room() == 0 {
                    return Err("ThrowIn phase that should have ended".into());
                }
            }
            Phase::Over => {}
        }
        if self.passed & !self.eligible() != 0 {
            return Err("a non-thrower passed".into());
        }
        Ok(())
    }

    fn trump_suit_cards(&self) -> CardSet {
        self.deck.of_suit(self.trump.suit())
    }

    // ---------------------------------------------------------------- accessors (tests, host)

    /// Cards in `seat`'s hand.
    pub fn hand(&self, seat: Seat) -> CardSet {
        self.hands.get(seat as usize).copied().unwrap_or_default()
    }
    /// Publicly known cards of `seat`'s hand (docs/rules/durak.md#information `known_in_hand`).
    pub fn known_in_hand(&self, seat: Seat) -> CardSet {
        self.known.get(seat as usize).copied().unwrap_or_default()
    }
    /// The table of the bout in progress.
    pub fn table_pairs(&self) -> &[Pair] {
        self.table()
    }
    /// Phase of the bout in progress (`Over` once the game has ended).
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// Principal attacker seat.
    pub fn principal(&self) -> Seat {
        self.principal
    }
    /// Defending seat.
    pub fn defender(&self) -> Seat {
        self.defender
    }
    /// The defender's hand size when he became defender of this bout
    /// (docs/rules/durak.md#bout-limit).
    pub fn h0(&self) -> u8 {
        self.h0
    }
    /// Attack cards this bout may hold (docs/rules/durak.md#bout-limit).
    pub fn bout_limit(&self) -> u8 {
        self.limit()
    }
    /// Talon, top first.
    pub fn talon_cards(&self) -> Vec<Card> {
        self.talon[..self.talon_len as usize]
            .iter()
            .rev()
            .copied()
            .collect()
    }
    /// Cards in the discard pile (bouts beaten off).
    pub fn discard(&self) -> CardSet {
        self.discard
    }
    /// The trump card (face up under the talon, drawn, or the dealer's shown last card).
    pub fn trump_card(&self) -> Card {
        self.trump
    }
    /// The dealer's seat.
    pub fn dealer(&self) -> Seat {
        self.dealer
    }
    /// First attacker of the game (statistics hook of docs/rules/README.md#engine-requirements).
    pub fn first_attacker(&self) -> Seat {
        self.first_attacker
    }
    /// Bouts started so far (statistics hook of docs/rules/README.md#engine-requirements).
    pub fn bouts(&self) -> u16 {
        self.bout
    }
    /// Whether `seat`'s player is out (went out with the talon empty).
    pub fn is_out(&self, seat: Seat) -> bool {
        !self.active(seat)
    }
    /// The seat the current decision is made for (PartnerProxy).
    pub fn acting_seat(&self) -> Option<Seat> {
        self.acting_for()
    }
}

/// The four cards of rank `r`.
pub(crate) fn rank_set(r: u8) -> CardSet {
    if (2..=14).contains(&r) {
        let b = 1u64 << (r - 2);
        CardSet(b | b << 13 | b << 26 | b << 39)
    } else {
        CardSet::EMPTY
    }
}
