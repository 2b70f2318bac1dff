//! The information model of docs/rules/toepen.md#information: per-seat observations with the
//! perfect-memory derived knowledge (voids, unseen cards, known cards), re-dealing hidden cards
//! (`shuffle_hidden`) and building a full state from an observation (`determinize`).
//!
//! What a seat `p` cannot see: other seats' hands (live, folded, or removed by a laundry
//! elimination) unless their whole hand is known to `p` (a returned, revealed laundry hand, or
//! cards `p` himself put under the stock and that were then drawn); other seats' unrevealed
//! set-aside laundry hands; and the stock blocks `p` does not know. Every zone keeps its count;
//! a hand keeps every known void (a void-respecting deal always exists because the real one
//! does).

// Seat-indexed parallel arrays (hands, voids, needs) read best with a seat index.
#![allow(clippy::needless_range_loop)]

use super::engine::{DECK, MAX_BLOCKS, MAXP, Stock, Toepen, bit, suits_set};
use super::types::*;
use crate::cards::{Card, CardSet, Seat};
use crate::rng::GameRng;

impl Toepen {
    /// Does `p` know the whole hand of `c`?
    fn knows_hand(&self, p: Seat, c: Seat) -> bool {
        p == c || self.hand_knowers[c as usize] & bit(p) != 0
    }

    pub(crate) fn observation(&self, p: Seat) -> Observation {
        let n = self.n as usize;
        let pi = p as usize;
        let mut played_all = CardSet::EMPTY;
        for s in &self.played[..n] {
            played_all = played_all.union(*s);
        }
        let mut revealed = CardSet::EMPTY;
        for s in &self.revealed_by[..n] {
            revealed = revealed.union(*s);
        }
        let known_cards: Vec<CardSet> = (0..n)
            .map(|c| {
                if (pi < n) && self.knows_hand(p, c as Seat) {
                    self.hands[c]
                } else {
                    CardSet::EMPTY
                }
            })
            .collect();
        let mut known_stock = Vec::new();
        let mut stock_knowers = Vec::new();
        for b in 0..self.stock.len as usize {
            let k = self.stock.knowers[b];
            if k != 0 {
                stock_knowers.push((b as u8, k));
                if k & bit(p) != 0 {
                    known_stock.push((b as u8, self.stock.blocks[b]));
                }
            }
        }
        let mut known_elsewhere = CardSet::EMPTY;
        for k in &known_cards {
            known_elsewhere = known_elsewhere.union(*k);
        }
        for (_, b) in &known_stock {
            known_elsewhere = known_elsewhere.union(*b);
        }
        let own_hand = self.hands.get(pi).copied().unwrap_or_default();
        let own_aside = self.aside.get(pi).copied().unwrap_or_default();
        // Decision: `unseen` also leaves out cards this player knows the place of (cards he
        // put under the stock as a caught bluffer, and revealed hands taken back), since he
        // has seen them.
        let unseen = DECK
            .minus(own_hand)
            .minus(own_aside)
            .minus(played_all)
            .minus(revealed)
            .minus(known_elsewhere);
        let ts = self.trick_starts;
        let past = (self.trick_no as usize).clamp(1, 4) - 1;
        let past_tricks: Vec<Vec<(Seat, Card)>> = (0..past)
            .map(|k| {
                let a = ts[k] as usize;
                let b = ts[k + 1] as usize;
                self.plays.get(a..b).map(|t| t.to_vec()).unwrap_or_default()
            })
            .collect();
        let trick = self.trick().to_vec();
        let mut dead = 0u8;
        for (s, _) in &trick {
            if self.live & bit(*s) == 0 {
                dead |= bit(*s);
            }
        }
        let over = self.outcome.is_some();
        Observation {
            seat: p,
            players: self.n,
            decision: self.decision,
            round: self.round,
            dealer: self.dealer,
            hand: own_hand,
            scores: self.scores[..n].to_vec(),
            eliminated: self.eliminated,
            live: self.live,
            stake: self.stake,
            last_knocker: self.last_knocker,
            stock: self.stock.cards() as u8,
            trick_no: self.trick_no,
            leader: self.leader,
            trick,
            trick_winners: self.winners[..self.nwinners as usize].to_vec(),
            played: self.played[..n].to_vec(),
            hand_counts: self.hands[..n].iter().map(|h| h.len() as u8).collect(),
            voids: self.voids[..n].to_vec(),
            unseen,
            own_laundry: own_aside,
            revealed,
            to_act: if over { None } else { Some(self.actor) },
            dealt: self.dealt,
            fold_stakes: self.fold_stake[..n].to_vec(),
            dead,
            past_tricks,
            poor: self.poor,
            laundry_done: self.laundry_done,
            claimed: self.claimed,
            white_claims: self.white_claims,
            challenged: self.challenged,
            returned: self.returned,
            revealed_by: self.revealed_by[..n].to_vec(),
            claimant: if self.decision == Decision::LaundryChallenge {
                Some(self.claimant)
            } else {
                None
            },
            poverty_done: self.poverty_done,
            knock_window: self.window,
            hand_knowers: self.hand_knowers[..n].to_vec(),
            stock_knowers,
            known_cards,
            known_stock,
            eliminated_at: self.elim_at[..n].to_vec(),
        }
    }

    /// Re-deals every card hidden from `p` among the hidden places
    /// (docs/rules/toepen.md#information), keeping counts, known cards and voids, and re-seeds the
    /// state's RNG.
    pub(crate) fn shuffle_hidden_for(&mut self, p: Seat, rng: &mut GameRng) {
        let n = self.n as usize;
        let mut pool = CardSet::EMPTY;
        let mut hand_need = [0u8; MAXP];
        let mut aside_hidden = 0u8;
        let mut stock_hidden = 0u8;
        for c in 0..n {
            let cs = c as Seat;
            if cs == p {
                continue;
            }
            if !self.knows_hand(p, cs) && !self.hands[c].is_empty() {
                pool = pool.union(self.hands[c]);
                hand_need[c] = self.hands[c].len() as u8;
                self.hands[c] = CardSet::EMPTY;
            }
            if !self.aside[c].is_empty() && self.challenged & bit(cs) == 0 {
                pool = pool.union(self.aside[c]);
                aside_hidden |= bit(cs);
                self.aside[c] = CardSet::EMPTY;
            }
        }
        for b in 0..self.stock.len as usize {
            if self.stock.knowers[b] & bit(p) == 0 {
                pool = pool.union(self.stock.blocks[b]);
                stock_hidden |= 1 << b;
                self.stock.blocks[b] = CardSet::EMPTY;
            }
        }
        self.fill_hidden(pool, hand_need, aside_hidden, stock_hidden, rng);
        self.rng = GameRng::new(rng.next_u64());
    }

    /// Deals `pool` into the emptied hidden places: `hand_need[c]` cards to hand `c`
    /// (respecting its voids), 4 to each aside of `aside_hidden`, 4 to each stock block of
    /// `stock_hidden`; uniformly among every deal that respects the voids.
    ///
    /// Why it is exactly uniform: the hands with a void ("constrained") are dealt first by
    /// `deal_constrained`, which gives every consistent choice of their cards the same
    /// probability; whatever they leave has the same size in every such choice, and is
    /// shuffled and dealt to the unconstrained places, where every split is equally likely.
    /// So each consistent deal has probability 1 / (choices × splits).
    ///
    /// Random stream: nothing is drawn for the constrained hands when there are none (then
    /// the deal is one shuffle, as it always was); otherwise one uniform 128-bit draw per
    /// constrained hand (its suit counts) and one draw per card (which cards of each suit).
    fn fill_hidden(
        &mut self,
        pool: CardSet,
        hand_need: [u8; MAXP],
        aside_hidden: u8,
        stock_hidden: u8,
        rng: &mut GameRng,
    ) {
        let n = self.n as usize;
        let mut cons = [0usize; MAXP];
        let mut ncons = 0;
        for c in 0..n {
            if hand_need[c] > 0 && self.voids[c] != 0 {
                cons[ncons] = c;
                ncons += 1;
            }
        }
        let mut rest = pool;
        if ncons > 0 {
            rest = self.deal_constrained(pool, &hand_need, &cons[..ncons], rng);
        }
        // Everything else is unconstrained: shuffle and deal in seat / block order.
        let mut cards = [Card::new(7, crate::cards::Suit::Clubs); 32];
        let mut m = 0;
        for c in rest.iter() {
            cards[m] = c;
            m += 1;
        }
        rng.shuffle(&mut cards[..m]);
        let mut next = cards[..m].iter().copied();
        let mut take = |k: usize| {
            let mut s = CardSet::EMPTY;
            for _ in 0..k {
                if let Some(c) = next.next() {
                    s.insert(c);
                }
            }
            s
        };
        for c in 0..n {
            if hand_need[c] > 0 && self.voids[c] == 0 {
                let got = take(hand_need[c] as usize);
                self.hands[c] = self.hands[c].union(got);
            }
        }
        for c in 0..n {
            if aside_hidden & bit(c as Seat) != 0 {
                self.aside[c] = take(4);
            }
        }
        for b in 0..MAX_BLOCKS {
            if stock_hidden & (1 << b) != 0 {
                self.stock.blocks[b] = take(4);
            }
        }
    }

    /// Deals `hand_need[c]` cards of `pool` to each hand `c` of `cons` (hands with a void),
    /// uniformly among the choices that respect every void; returns what is left.
    ///
    /// Only suits matter to a void, so a choice is first a table of suit counts: `x[c][s]`
    /// cards of suit `s` for hand `c`, and the number of choices with that table is
    /// `Π_c Π_s C(left_s, x[c][s])`, `left_s` being what the hands before `c` left of suit
    /// `s`. `Ways::of(i, left)` counts (exactly, in `u128`) the choices for the hands from the
    /// `i`-th on. Hand `i`'s counts are drawn with probability
    /// `Π_s C(left_s, x_s) · ways(i + 1, left − x) / ways(i, left)`, then its cards of each
    /// suit uniformly: the probabilities multiply to `1 / ways(0, pool)` for every choice.
    ///
    /// (This replaces a sampler that dealt the most constrained hand first, uniformly among
    /// its allowed cards, with a max-flow fallback: that is not uniform when two hands' voids
    /// interact, and no fallback is needed here since the counts find a deal whenever one
    /// exists.) A pool with no consistent deal (only a forged observation) is dealt ignoring
    /// the voids, keeping the counts.
    fn deal_constrained(
        &mut self,
        pool: CardSet,
        hand_need: &[u8; MAXP],
        cons: &[usize],
        rng: &mut GameRng,
    ) -> CardSet {
        let hands: Vec<(u8, u8)> = cons
            .iter()
            .map(|&c| (hand_need[c], !self.voids[c] & 0xF))
            .collect();
        let mut ways = Ways::new(&hands);
        let mut rem = pool;
        let mut left = suit_counts(pool);
        if ways.of(0, left) == 0 {
            for &c in cons {
                let got = pick_random(rem, hand_need[c] as usize, rng);
                self.hands[c] = self.hands[c].union(got);
                rem = rem.minus(got);
            }
            return rem;
        }
        for (i, &c) in cons.iter().enumerate() {
            let r = below_u128(ways.of(i, left), rng);
            let pick = ways.split(i, left, r);
            let mut got = CardSet::EMPTY;
            for su in 0..4 {
                let of_suit = rem.intersect(suits_set(1 << su));
                got = got.union(pick_random(of_suit, pick[su] as usize, rng));
            }
            self.hands[c] = self.hands[c].union(got);
            rem = rem.minus(got);
            left = sub(left, pick);
        }
        rem
    }

    /// A full state consistent with `obs` (one determinization), hidden cards dealt at random.
    pub(crate) fn from_observation(opts: &Options, obs: &Observation, rng: &mut GameRng) -> Toepen {
        let mut g = Toepen::blank(opts, GameRng::new(rng.next_u64()));
        // A malformed observation must not make the engine panic: seat numbers out of range
        // become seat 0 (or are dropped).
        let players = if (2..=8).contains(&obs.players) {
            obs.players
        } else {
            opts.num_players.clamp(2, 8)
        };
        let n = players as usize;
        g.n = players;
        let fix = |s: Seat| if (s as usize) < n { s } else { 0 };
        let p = obs.seat;
        let get = |v: &Vec<u32>, i: usize| v.get(i).copied().unwrap_or(0);
        for s in 0..n {
            g.scores[s] = get(&obs.scores, s);
            g.fold_stake[s] = get(&obs.fold_stakes, s);
            g.elim_at[s] = get(&obs.eliminated_at, s);
            g.played[s] = obs.played.get(s).copied().unwrap_or_default();
            g.voids[s] = obs.voids.get(s).copied().unwrap_or(0);
            g.hand_knowers[s] = obs.hand_knowers.get(s).copied().unwrap_or(0);
            g.revealed_by[s] = obs.revealed_by.get(s).copied().unwrap_or_default();
        }
        g.elim_moment = g.elim_at.iter().copied().max().unwrap_or(0);
        g.eliminated = obs.eliminated;
        g.round = obs.round;
        g.dealer = fix(obs.dealer);
        g.dealt = obs.dealt;
        g.live = obs.live;
        g.poor = obs.poor;
        g.stake = obs.stake;
        g.last_knocker = obs.last_knocker.map(fix);
        g.claimed = obs.claimed;
        g.white_claims = obs.white_claims;
        g.challenged = obs.challenged;
        g.returned = obs.returned;
        g.laundry_done = obs.laundry_done;
        g.poverty_done = obs.poverty_done;
        g.leader = fix(obs.leader);
        g.trick_no = obs.trick_no.clamp(1, 4);
        g.plays.clear();
        let in_range = |t: &&(Seat, Card)| (t.0 as usize) < n;
        for (k, t) in obs.past_tricks.iter().enumerate().take(3) {
            g.trick_starts[k] = g.plays.len() as u8;
            g.plays.extend(t.iter().filter(in_range).take(8));
        }
        let cur = g.trick_no as usize - 1;
        g.trick_starts[cur] = g.plays.len() as u8;
        g.plays.extend(obs.trick.iter().filter(in_range).take(8));
        g.trick_mask = g.trick().iter().fold(0, |m, (s, _)| m | bit(*s));
        for (i, w) in obs.trick_winners.iter().enumerate().take(4) {
            g.winners[i] = fix(*w);
            g.nwinners = i as u8 + 1;
        }
        g.decision = obs.decision;
        g.actor = fix(obs.to_act.unwrap_or(0));
        g.claimant = fix(obs.claimant.unwrap_or(0));
        g.window = obs.knock_window.map(|(s, pos)| (fix(s), pos));

        // Known cards in place; count what is hidden.
        let mut placed = CardSet::EMPTY;
        for s in 0..n {
            placed = placed.union(g.played[s]);
        }
        let mut hand_need = [0u8; MAXP];
        let mut aside_hidden = 0u8;
        for c in 0..n {
            let cs = c as Seat;
            let count = obs.hand_counts.get(c).copied().unwrap_or(0);
            if cs == p {
                g.hands[c] = obs.hand;
                g.aside[c] = obs.own_laundry;
            } else {
                let known = obs.known_cards.get(c).copied().unwrap_or_default();
                g.hands[c] = known;
                hand_need[c] = count.saturating_sub(known.len() as u8);
                let has_aside = obs.claimed & bit(cs) != 0 && obs.returned & bit(cs) == 0;
                if has_aside {
                    if obs.challenged & bit(cs) != 0 {
                        g.aside[c] = g.revealed_by[c];
                    } else {
                        aside_hidden |= bit(cs);
                    }
                }
            }
            placed = placed.union(g.hands[c]).union(g.aside[c]);
        }
        let mut stock = Stock::EMPTY;
        let mut stock_hidden = 0u8;
        for b in 0..(obs.stock as usize / 4).min(MAX_BLOCKS) {
            let knowers = obs
                .stock_knowers
                .iter()
                .find(|(i, _)| *i as usize == b)
                .map(|(_, k)| *k)
                .unwrap_or(0);
            let cards = obs
                .known_stock
                .iter()
                .find(|(i, _)| *i as usize == b)
                .map(|(_, c)| *c);
            match cards {
                Some(c) => {
                    stock.push_bottom(c, knowers);
                    placed = placed.union(c);
                }
                None => {
                    stock.push_bottom(CardSet::EMPTY, knowers);
                    stock_hidden |= 1 << b;
                }
            }
        }
        g.stock = stock;
        let pool = DECK.minus(placed);
        g.fill_hidden(pool, hand_need, aside_hidden, stock_hidden, rng);
        if g.decision == Decision::Over {
            let natural = match opts.game_end {
                GameEnd::LastSurvivor => g.in_game().count_ones() <= 1,
                GameEnd::FirstToLimit => g.scores[..n].iter().any(|s| *s >= opts.limit),
            };
            g.outcome = Some(g.make_outcome(!natural));
        }
        g
    }
}

/// `k` cards drawn uniformly without replacement from `from` (fewer if it holds fewer).
fn pick_random(from: CardSet, k: usize, rng: &mut GameRng) -> CardSet {
    let mut left = from;
    let mut got = CardSet::EMPTY;
    for _ in 0..k {
        let len = left.len();
        if len == 0 {
            break;
        }
        let i = rng.below(len);
        if let Some(c) = nth(left, i) {
            got.insert(c);
            left.remove(c);
        }
    }
    got
}

/// The `i`-th card of `set` in code order.
fn nth(set: CardSet, i: usize) -> Option<Card> {
    let mut bits = set.0;
    for _ in 0..i {
        bits &= bits.wrapping_sub(1);
    }
    if bits == 0 {
        None
    } else {
        Card::from_code(bits.trailing_zeros() as u8)
    }
}

/// How many cards of each suit `set` holds.
fn suit_counts(set: CardSet) -> [u8; 4] {
    let mut n = [0u8; 4];
    for su in 0..4u8 {
        n[su as usize] = set.intersect(suits_set(1 << su)).len() as u8;
    }
    n
}

fn sub(a: [u8; 4], b: [u8; 4]) -> [u8; 4] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3]]
}

/// `C(n, k)`, exact.
fn binom(n: u8, k: u8) -> u128 {
    if k > n {
        return 0;
    }
    let mut r: u128 = 1;
    for i in 0..k as u128 {
        r = r * (n as u128 - i) / (i + 1);
    }
    r
}

/// How many ways to take `x[s]` cards of each suit `s` from `left[s]`.
fn choose_product(left: [u8; 4], x: [u8; 4]) -> u128 {
    (0..4).map(|s| binom(left[s], x[s])).product()
}

/// Every way to split `need` cards over the `allowed` suits (bit `s`) with at most `left[s]`
/// of suit `s`, in a fixed order.
fn splits(need: u8, allowed: u8, left: [u8; 4]) -> Vec<[u8; 4]> {
    let cap = |s: usize| {
        if allowed & (1 << s) != 0 {
            left[s].min(need)
        } else {
            0
        }
    };
    let mut out = Vec::new();
    for a in 0..=cap(0) {
        for b in 0..=cap(1).min(need - a) {
            for c in 0..=cap(2).min(need - a - b) {
                let d = need - a - b - c;
                if d <= cap(3) {
                    out.push([a, b, c, d]);
                }
            }
        }
    }
    out
}

/// Counts of consistent choices for the constrained hands `hands[i..]` (`(need, allowed
/// suits)` each) from `left` cards per suit, memoized. At most 8^32 = 2^96 (each of at most
/// 32 cards goes to one of at most 7 hands or stays), so `u128` never overflows.
struct Ways<'a> {
    hands: &'a [(u8, u8)],
    memo: std::collections::HashMap<(usize, [u8; 4]), u128>,
}

impl<'a> Ways<'a> {
    fn new(hands: &'a [(u8, u8)]) -> Self {
        Ways {
            hands,
            memo: std::collections::HashMap::new(),
        }
    }

    fn of(&mut self, i: usize, left: [u8; 4]) -> u128 {
        let Some(&(need, allowed)) = self.hands.get(i) else {
            return 1;
        };
        if i + 1 == self.hands.len() {
            // Vandermonde: any `need` of the cards of the allowed suits.
            let avail = (0..4)
                .filter(|s| allowed & (1 << s) != 0)
                .map(|s| left[s])
                .sum();
            return binom(avail, need);
        }
        if let Some(&w) = self.memo.get(&(i, left)) {
            return w;
        }
        let mut w = 0;
        for x in splits(need, allowed, left) {
            w += choose_product(left, x) * self.of(i + 1, sub(left, x));
        }
        self.memo.insert((i, left), w);
        w
    }
}

impl Ways<'_> {
    /// The suit counts of hand `i` for the draw `r` in `0..self.of(i, left)`: the splits in
    /// their fixed order, each taking as many values of `r` as it has completions.
    fn split(&mut self, i: usize, left: [u8; 4], mut r: u128) -> [u8; 4] {
        let (need, allowed) = self.hands[i];
        for x in splits(need, allowed, left) {
            let w = choose_product(left, x) * self.of(i + 1, sub(left, x));
            if r < w {
                return x;
            }
            r -= w;
        }
        unreachable!("a draw beyond the number of choices")
    }
}

/// A uniform draw from `0..n` (`n > 0`): 128 random bits, rejected in the top `2^128 mod n`
/// values so that every residue is equally likely.
fn below_u128(n: u128, rng: &mut GameRng) -> u128 {
    let skip = (u128::MAX % n + 1) % n; // 2^128 mod n
    loop {
        let r = ((rng.next_u64() as u128) << 64) | rng.next_u64() as u128;
        if r <= u128::MAX - skip {
            return r % n;
        }
    }
}

#[cfg(test)]
mod tests;
