//! Observation, hidden-card re-deal and determinization (docs/rules/durak.md#information).
//!
//! Hidden cards are: other hands minus their publicly known cards (`known_in_hand`), and the
//! face-down talon (everything but the face-up trump card at its bottom). The only certain
//! inference beyond the known cards is the one of docs/rules/durak.md#first-attacker: with the
//! lowest trump revealed, no hand held a lower trump at the deal (and if no trump was revealed, no
//! hand held any trump), so such a card can only be in a hand that drew it from the talon. The
//! engine keeps, per player, how many such cards his unknown cards can hold (`low_room`), and both
//! re-deals sample uniformly among the assignments that respect it.
//!
//! Decision (also below): the count bound ignores timing (a card revealed at bout k must have been drawn
//! before bout k); with ordinary play this never binds beyond the count. With
//! `reveal_lowest_trump=false` nothing is inferred from who attacks first.

use super::engine::{Durak, MAX_CARDS, MAX_SEATS, Pair};
use super::types::*;
use crate::cards::{Card, CardSet, Seat};
use crate::rng::GameRng;

impl Durak {
    /// Cards whose place `seat` does not know (docs/rules/durak.md#information `unseen`).
    fn unseen_for(&self, seat: Seat) -> CardSet {
        let mut u = self
            .deck
            .minus(self.hands[seat as usize])
            .minus(self.discard);
        for p in self.table() {
            u.remove(p.attack);
            if let Some(d) = p.defence {
                u.remove(d);
            }
        }
        for s in 0..self.n as usize {
            u = u.minus(self.known[s]);
        }
        if self.trump_holder.is_none() {
            u.remove(self.trump);
        }
        u
    }

    pub(crate) fn observation(&self, seat: Seat) -> Observation {
        let n = self.n as usize;
        let known = (0..n)
            .map(|s| {
                if s == seat as usize {
                    self.hands[s]
                } else {
                    self.known[s]
                }
            })
            .collect();
        let own_known = self
            .known
            .get(seat as usize)
            .copied()
            .unwrap_or(CardSet::EMPTY);
        Observation {
            seat,
            acting_for: self.acting_for().unwrap_or(seat),
            players: self.n,
            teams: self.partnerships(),
            trump: self.trump,
            trump_suit: self.trump.suit(),
            trump_holder: self.trump_holder,
            talon: self.talon_len,
            hand: self.hand(seat),
            hand_sizes: (0..n).map(|s| self.hands[s].len() as u8).collect(),
            out: self.out,
            phase: self.phase,
            attacker: self.principal,
            defender: self.defender,
            h0: self.h0,
            limit: self.limit(),
            taking: self.taking,
            passed: self.passed,
            table: self.table().iter().map(|p| (p.attack, p.defence)).collect(),
            shown: self.shown,
            discard: self.discard,
            known,
            unseen: if (seat as usize) < n {
                self.unseen_for(seat)
            } else {
                CardSet::EMPTY
            },
            bout: self.bout,
            attackers: self.table().iter().map(|p| p.by).collect(),
            leader: self.leader,
            dealer: self.dealer,
            finish: self.finish[..n].to_vec(),
            own_known,
            low_trumps: self.low,
            low_trump_room: self.low_room[..n].to_vec(),
        }
    }

    // Decision: the `low_room` bound is a count; it ignores timing (a low trump revealed at
    // bout k must have been drawn before bout k), which ordinary play never makes binding.
    /// Re-deals `pool` (exactly the hidden cards) into the unknown parts of every hand but
    /// `seat`'s (each filled up to `sizes[s]` cards) and the face-down talon, uniformly among
    /// the assignments that respect `low_room`. Hands must hold only their known cards (and
    /// `seat` its whole hand); the talon must hold only the face-up trump card, if any, with
    /// `talon_len` already the final count.
    fn fill_hidden(&mut self, seat: Seat, pool: CardSet, sizes: &[u8], rng: &mut GameRng) {
        let n = self.n as usize;
        // Groups: 0..n = hands (size 0 for `seat`), n = talon.
        let mut size = [0usize; MAX_SEATS + 1];
        let mut cap = [0usize; MAX_SEATS + 1];
        for s in 0..n {
            if s != seat as usize {
                size[s] = (sizes[s] as usize).saturating_sub(self.hands[s].len());
                cap[s] = self.low_room[s] as usize;
            }
        }
        let trump_below = usize::from(self.trump_holder.is_none() && self.talon_len > 0);
        size[n] = (self.talon_len as usize).saturating_sub(trump_below);
        cap[n] = usize::MAX;
        let groups = n + 1;

        let low_pool = pool.intersect(self.low);
        let mut lows = [Card::new(2, crate::cards::Suit::Clubs); MAX_CARDS];
        let mut highs = lows;
        let (mut nl, mut nh) = (0, 0);
        for c in pool {
            if low_pool.contains(c) {
                lows[nl] = c;
                nl += 1;
            } else {
                highs[nh] = c;
                nh += 1;
            }
        }
        rng.shuffle(&mut lows[..nl]);
        rng.shuffle(&mut highs[..nh]);

        // How many low cards each group gets: P(x) ∝ Π C(size_g, x_g) under the caps.
        let mut take = [0usize; MAX_SEATS + 1];
        if nl > 0 {
            // ways[g][r]: ways to place r low cards into the slots of groups g.. .
            let mut ways = [[0f64; MAX_CARDS + 1]; MAX_SEATS + 2];
            let fill = |ways: &mut [[f64; MAX_CARDS + 1]; MAX_SEATS + 2], cap: &[usize]| {
                ways[groups][0] = 1.0;
                for g in (0..groups).rev() {
                    for r in 0..=nl {
                        let mut w = 0.0;
                        for x in 0..=r.min(cap[g]).min(size[g]) {
                            w += binom(size[g], x) * ways[g + 1][r - x];
                        }
                        ways[g][r] = w;
                    }
                }
            };
            fill(&mut ways, &cap);
            if ways[0][nl] <= 0.0 {
                // Only for an inconsistent input: drop the caps rather than fail.
                cap = [usize::MAX; MAX_SEATS + 1];
                fill(&mut ways, &cap);
            }
            let mut r = nl;
            for g in 0..groups {
                let hi = r.min(cap[g]).min(size[g]);
                let mut u = rng.unit() * ways[g][r];
                let mut pick = hi;
                for x in 0..=hi {
                    let w = binom(size[g], x) * ways[g + 1][r - x];
                    if u < w {
                        pick = x;
                        break;
                    }
                    u -= w;
                }
                // Guard against rounding: never pick a count the later groups cannot absorb.
                while pick < hi && ways[g + 1][r - pick] <= 0.0 {
                    pick += 1;
                }
                take[g] = pick;
                r -= pick;
            }
        }

        let (mut li, mut hi) = (0, 0);
        for g in 0..groups {
            let mut got = CardSet::EMPTY;
            let want_low = take[g].min(nl - li);
            for _ in 0..want_low {
                got.insert(lows[li]);
                li += 1;
            }
            while got.len() < size[g] && hi < nh {
                got.insert(highs[hi]);
                hi += 1;
            }
            // Any low card left over (only with an inconsistent input) fills the gap.
            while got.len() < size[g] && li < nl {
                got.insert(lows[li]);
                li += 1;
            }
            if g < n {
                self.hands[g] = self.hands[g].union(got);
            } else {
                let mut order = [Card::new(2, crate::cards::Suit::Clubs); MAX_CARDS];
                let mut k = 0;
                for c in got {
                    order[k] = c;
                    k += 1;
                }
                rng.shuffle(&mut order[..k]);
                let base = trump_below;
                let k = k.min(MAX_CARDS - base);
                for (i, c) in order[..k].iter().enumerate() {
                    self.talon[base + i] = *c;
                }
                self.talon_len = (base + k) as u8;
            }
        }
    }

    pub(crate) fn reshuffle_hidden(&mut self, seat: Seat, rng: &mut GameRng) {
        let n = self.n as usize;
        if seat as usize >= n {
            return;
        }
        let pool = self.unseen_for(seat);
        let mut sizes = [0u8; MAX_SEATS];
        for (s, size) in sizes.iter_mut().enumerate().take(n) {
            *size = self.hands[s].len() as u8;
            if s != seat as usize {
                self.hands[s] = self.known[s];
            }
        }
        self.fill_hidden(seat, pool, &sizes[..n], rng);
        self.rng = GameRng::new(rng.next_u64());
    }

    pub(crate) fn from_observation(opts: &Options, obs: &Observation, rng: &mut GameRng) -> Durak {
        // An observation normally comes from `observe`; a forged one must not make us panic,
        // so seats and counts are clamped into range (the result may then fail
        // `check_invariants`, but every method stays total).
        let mut o = opts.clone();
        o.num_players = obs.players.clamp(2, MAX_SEATS as u8);
        let mut g = Durak::blank(&o, 0);
        let n = g.n as usize;
        let players = g.n;
        let fix = move |s: Seat| s % players;
        let seat = obs.seat;
        g.trump = obs.trump;
        g.dealer = fix(obs.dealer);
        g.trump_holder = obs.trump_holder.map(fix);
        for s in 0..n.min(MAX_SEATS) {
            if s == seat as usize {
                g.hands[s] = obs.hand;
                g.known[s] = obs.own_known;
            } else {
                let k = obs.known.get(s).copied().unwrap_or_default();
                g.hands[s] = k;
                g.known[s] = k;
            }
            g.low_room[s] = obs.low_trump_room.get(s).copied().unwrap_or(0);
            g.finish[s] = obs.finish.get(s).copied().unwrap_or(0);
        }
        g.low = obs.low_trumps;
        g.discard = obs.discard;
        for (i, (a, d)) in obs.table.iter().enumerate().take(MAX_CARDS) {
            g.table[i] = Pair {
                attack: *a,
                by: fix(obs.attackers.get(i).copied().unwrap_or(0)),
                defence: *d,
            };
        }
        g.table_len = obs.table.len().min(MAX_CARDS) as u8;
        g.shown = obs.shown;
        g.phase = obs.phase;
        g.principal = fix(obs.attacker);
        g.leader = fix(obs.leader);
        g.defender = fix(obs.defender);
        g.h0 = obs.h0;
        g.taking = obs.taking;
        g.passed = obs.passed;
        g.out = obs.out & (((1u16 << n) - 1) as u8);
        g.bout = obs.bout;
        // `first_attacker` is a statistic of the real game, not part of the observation.
        g.first_attacker = g.leader;
        g.talon_len = obs.talon.min(g.deck.len() as u8);
        if g.trump_holder.is_none() && obs.talon > 0 {
            g.talon[0] = g.trump;
        }
        g.rng = GameRng::new(rng.next_u64());
        let mut sizes = [0u8; MAX_SEATS];
        for (s, v) in sizes.iter_mut().enumerate().take(n) {
            *v = obs.hand_sizes.get(s).copied().unwrap_or(0);
        }
        g.fill_hidden(seat, obs.unseen, &sizes[..n], rng);
        if g.phase == Phase::Over {
            g.table_len = 0;
            let aborted = !g.game_decided();
            g.outcome = Some(g.compute_outcome(aborted));
        }
        g
    }
}

fn binom(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    let mut r = 1.0;
    for i in 0..k {
        r = r * (n - i) as f64 / (i + 1) as f64;
    }
    r
}
