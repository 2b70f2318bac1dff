//! The information model of RULES.md §2.14: per-seat observations with the perfect-memory
//! derived knowledge (voids, unseen cards, known cards), re-dealing hidden cards
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

    /// Re-deals every card hidden from `p` among the hidden places (§2.14), keeping counts,
    /// known cards and voids, and re-seeds the state's RNG.
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
    /// `stock_hidden`. The most constrained hands are dealt first, at random, with retries;
    /// a max-flow assignment by suit is the fallback that always finds a valid deal when one
    /// exists.
    fn fill_hidden(
        &mut self,
        pool: CardSet,
        hand_need: [u8; MAXP],
        aside_hidden: u8,
        stock_hidden: u8,
        rng: &mut GameRng,
    ) {
        let n = self.n as usize;
        // Constrained hands, fewest allowed cards first.
        let mut cons: [(usize, usize); MAXP] = [(0, 0); MAXP];
        let mut ncons = 0;
        for c in 0..n {
            if hand_need[c] > 0 && self.voids[c] != 0 {
                let allowed = pool.minus(suits_set(self.voids[c])).len();
                cons[ncons] = (allowed, c);
                ncons += 1;
            }
        }
        cons[..ncons].sort_unstable();
        let mut rest = pool;
        let mut done = false;
        if ncons > 0 {
            'attempt: for _ in 0..12 {
                let mut rem = pool;
                let mut picks = [CardSet::EMPTY; MAXP];
                for &(_, c) in &cons[..ncons] {
                    let allowed = rem.minus(suits_set(self.voids[c]));
                    let need = hand_need[c] as usize;
                    if allowed.len() < need {
                        continue 'attempt;
                    }
                    let got = pick_random(allowed, need, rng);
                    picks[c] = got;
                    rem = rem.minus(got);
                }
                for &(_, c) in &cons[..ncons] {
                    self.hands[c] = picks[c];
                }
                rest = rem;
                done = true;
                break;
            }
            if !done {
                rest = self.fill_by_flow(pool, &hand_need, &cons[..ncons], rng);
            }
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

    /// Fallback of `fill_hidden`: how many cards of each suit each constrained hand gets, by a
    /// max flow (source → suit → hand / free slots → sink), then random cards of those suits.
    /// Returns the cards left for the unconstrained places.
    fn fill_by_flow(
        &mut self,
        pool: CardSet,
        hand_need: &[u8; MAXP],
        cons: &[(usize, usize)],
        rng: &mut GameRng,
    ) -> CardSet {
        // Nodes: 0 source, 1..=4 suits, 5..5+k constrained hands, F = free, T = sink.
        let k = cons.len();
        let free_node = 5 + k;
        let sink = free_node + 1;
        let size = sink + 1;
        let mut cap = [[0i32; 16]; 16];
        let cons_need: i32 = cons.iter().map(|(_, c)| hand_need[*c] as i32).sum();
        for su in 0..4u8 {
            let cnt = pool.intersect(suits_set(1 << su)).len() as i32;
            cap[0][1 + su as usize] = cnt;
            cap[1 + su as usize][free_node] = 32;
            for (i, (_, c)) in cons.iter().enumerate() {
                if self.voids[*c] & (1 << su) == 0 {
                    cap[1 + su as usize][5 + i] = 32;
                }
            }
        }
        for (i, (_, c)) in cons.iter().enumerate() {
            cap[5 + i][sink] = hand_need[*c] as i32;
        }
        cap[free_node][sink] = pool.len() as i32 - cons_need;
        let orig = cap;
        // Ford–Fulkerson with DFS augmenting paths (total flow <= 32).
        loop {
            let mut prev = [usize::MAX; 16];
            prev[0] = 0;
            let mut stack = [0usize; 16];
            let mut sp = 1;
            while sp > 0 && prev[sink] == usize::MAX {
                sp -= 1;
                let u = stack[sp];
                for v in 0..size {
                    if prev[v] == usize::MAX && cap[u][v] > 0 {
                        prev[v] = u;
                        stack[sp] = v;
                        sp += 1;
                    }
                }
            }
            if prev[sink] == usize::MAX {
                break;
            }
            let mut v = sink;
            let mut f = i32::MAX;
            while v != 0 {
                let u = prev[v];
                f = f.min(cap[u][v]);
                v = u;
            }
            let mut v = sink;
            while v != 0 {
                let u = prev[v];
                cap[u][v] -= f;
                cap[v][u] += f;
                v = u;
            }
        }
        let mut rem = pool;
        for (i, (_, c)) in cons.iter().enumerate() {
            let mut got = CardSet::EMPTY;
            for su in 0..4usize {
                let flow = (orig[1 + su][5 + i] - cap[1 + su][5 + i]).max(0) as usize;
                let avail = rem.intersect(suits_set(1 << su));
                let take = pick_random(avail, flow.min(avail.len()), rng);
                got = got.union(take);
                rem = rem.minus(take);
            }
            self.hands[*c] = got;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::Suit;

    fn set(s: &str) -> CardSet {
        s.split_whitespace()
            .map(|c| c.parse::<Card>().unwrap())
            .collect()
    }

    /// Non-nested void patterns where a greedy deal can fail: the flow fallback (and
    /// `fill_hidden` as a whole) must always find a void-respecting deal.
    #[test]
    fn flow_fallback_respects_voids() {
        let opts = Options::default();
        let hands = [
            set("JC QC KC AC"),
            set("7H 8H 7S 8S"),
            set("7C 8C 7D 8D"),
            set("9D 10D 9S 10S"),
        ];
        let mut used = CardSet::EMPTY;
        for h in hands {
            used = used.union(h);
        }
        let stock: Vec<Card> = DECK.minus(used).iter().collect();
        let setup = Setup {
            hands: hands.to_vec(),
            stock,
            dealer: 3,
            ..Setup::default()
        };
        let base = Toepen::from_setup(&opts, setup).unwrap();
        let voids = [0u8, 0b0011, 0b1100, 0b0101]; // P1 no C/D, P2 no H/S, P3 no C/H
        let mut rng = GameRng::new(3);
        for round in 0..300 {
            let mut g = base.clone();
            g.voids[..4].copy_from_slice(&voids);
            let mut pool = CardSet::EMPTY;
            let mut need = [0u8; MAXP];
            for c in 1..4 {
                pool = pool.union(g.hands[c]);
                need[c] = 4;
                g.hands[c] = CardSet::EMPTY;
            }
            let cons: Vec<(usize, usize)> = (1..4).map(|c| (0, c)).collect();
            let rest = if round % 2 == 0 {
                g.fill_by_flow(pool, &need, &cons, &mut rng)
            } else {
                g.fill_hidden(pool, need, 0, 0, &mut rng);
                CardSet::EMPTY
            };
            assert!(rest.is_empty());
            for c in 1..4 {
                assert_eq!(g.hands[c].len(), 4, "{:?}", g.hands);
                for su in Suit::ALL {
                    if voids[c] & (1 << su as u8) != 0 {
                        assert!(g.hands[c].of_suit(su).is_empty(), "P{c} {:?}", g.hands);
                    }
                }
            }
            g.invariants().unwrap();
        }
    }

    #[test]
    fn malformed_observation_does_not_panic() {
        let opts = Options::default();
        let g = Toepen::start(&opts, 1);
        let mut obs = g.observation(0);
        let mut rng = GameRng::new(1);
        obs.players = 0;
        obs.to_act = Some(200);
        obs.last_knocker = Some(99);
        obs.trick.push((77, "7H".parse().unwrap()));
        obs.trick_no = 9;
        obs.stock = 255;
        let mut d = Toepen::from_observation(&opts, &obs, &mut rng);
        let mut v = Vec::new();
        d.legal_into(&mut v);
        for a in v {
            let _ = d.clone().apply_action(a);
        }
        let _ = d.invariants();
        d.shuffle_hidden_for(250, &mut rng);
        let _ = d.observation(250);
    }
}
