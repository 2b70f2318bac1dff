//! The information model of docs/rules/uno.md#information: per-seat observations, re-dealing hidden
//! cards (`shuffle_hidden`) and building a state from an observation (`determinize`).
//!
//! Hidden places: the other players' hands and the draw pile (order unknown). The certain
//! inferences respected by both re-deals:
//! * the unknown pool (`unseen`) and every public count (hand sizes, draw pile);
//! * cards the observer saw in a hand shown after his WD4 challenge, minus what that player
//!   played since (`known`);
//! * public upper bounds per colour / per kind (`color_caps`, `kind_caps`), proved by a
//!   Wild Draw Four played under the enforced restriction or by a not-guilty challenge, and
//!   loosened by every card drawn since;
//! * in `AfterDraw`, the drawn card is playable (the decision itself is public).
//!
//! Decision: two weaker inferences are not tracked (they are lower bounds of the kind "holds
//! at least one card of some set", which later draws and plays blur): a guilty challenge
//! ("held a card of the colour") and a drawn card that was kept or auto-kept ("it was / was
//! not playable then"). Agents may add them from the event history.

use super::cards::deck_counts;

/// How many uniform deals a re-deal tries before mending one (`deal_hidden`). A deal that
/// fits the caps comes up with probability p; the mending (not exactly uniform) is reached
/// with probability (1 - p)^REDEALS: for p = 2% (a 15-card hand with one colour capped at
/// none), 0.6%. Each deal costs a shuffle of the pool, about a microsecond.
const REDEALS: usize = 256;
use super::engine::{GROUPS, KnownHand, NO_CAP, Phase, Uno, Wd4Ctx, counts_to_vec, groups};
use super::types::*;
use crate::cards::Seat;
use crate::game::SeatResult;
use crate::rng::GameRng;

pub(crate) fn decision_of(p: Phase) -> Decision {
    match p {
        Phase::ChooseStartColor => Decision::ChooseStartColor,
        Phase::Turn => Decision::Turn,
        Phase::AfterDraw { .. } => Decision::AfterDraw,
        Phase::Wd4Challenge => Decision::Wd4Challenge,
        Phase::PenaltyTurn => Decision::PenaltyTurn,
        Phase::UnoCatch { .. } => Decision::UnoCatch,
        Phase::Over => Decision::Over,
    }
}

fn group_counts(hand: &[u8; FACES]) -> [u8; GROUPS] {
    let mut g = [0u8; GROUPS];
    for (f, &k) in hand.iter().enumerate().take(52) {
        if k > 0 {
            g[f / 13] += k;
            g[4 + f % 13] += k;
        }
    }
    g
}

#[inline]
fn fits(f: UnoCard, g: &[u8; GROUPS], caps: &[u8; GROUPS]) -> bool {
    match groups(f) {
        Some((cg, kg)) => g[cg] < caps[cg] && g[kg] < caps[kg],
        None => true,
    }
}

impl Uno {
    pub(crate) fn observation(&self, seat: Seat) -> Observation {
        let n = self.n as usize;
        let s = (seat as usize).min(n.saturating_sub(1));
        let own = &self.hands[s];
        let mut unseen = deck_counts();
        for f in 0..FACES {
            unseen[f] = unseen[f].saturating_sub(own[f]);
        }
        for c in &self.discard {
            if let Some(u) = unseen.get_mut(c.0 as usize) {
                *u = u.saturating_sub(1);
            }
        }
        let mut known = vec![Vec::new(); n];
        for k in self.known.iter().filter(|k| k.viewer == seat) {
            known[k.holder as usize] = counts_to_vec(&k.cards);
        }
        let offender = match self.phase {
            Phase::UnoCatch { offender, .. } => Some(offender),
            Phase::Wd4Challenge => self.wd4.as_ref().map(|w| w.offender),
            _ => None,
        };
        Observation {
            seat,
            players: self.n,
            decision: decision_of(self.phase),
            hand_no: self.hand_no,
            dealer: self.dealer,
            hand: counts_to_vec(own),
            top: self.top(),
            color: self.color,
            direction: self.direction,
            pending: self.pending,
            hand_sizes: self.hand_len.clone(),
            draw_pile: self.draw.len() as u16,
            discard_pile: self.discard.len() as u16,
            scores: self.scores.clone(),
            drawn: match self.phase {
                Phase::AfterDraw { drawn } if self.cur == seat => Some(drawn),
                _ => None,
            },
            unseen: unseen.to_vec(),
            to_act: self.to_act(),
            discard: self.discard.clone(),
            turns: self.turns,
            known,
            color_caps: self.caps.iter().map(|c| [c[0], c[1], c[2], c[3]]).collect(),
            kind_caps: self
                .caps
                .iter()
                .map(|c| {
                    let mut k = [NO_CAP; 13];
                    k.copy_from_slice(&c[4..]);
                    k
                })
                .collect(),
            offender,
            wd4: self.wd4.as_ref().map(|w| Wd4Pending {
                offender: w.offender,
                victim: w.victim,
                prev_color: w.prev_color,
                prev_top: w.prev_top,
                hand_len: w.hand_len,
                hand: (w.offender == seat).then(|| counts_to_vec(&w.hand)),
            }),
        }
    }

    /// Deals `pool` into the hidden places: `need[h]` more cards into seat `h`'s hand (on
    /// top of the cards already there) and the rest, in random order, as the draw pile.
    /// A uniform deal, dealt again while a seat holds more cards of a cap group than its cap
    /// allows (up to `REDEALS` times: uniform among the deals that fit). Past that, one such
    /// card is swapped with a random card elsewhere (another hidden hand or the draw pile)
    /// that fits both places, until none is over. The real state proves a solution exists.
    fn deal_hidden(
        &mut self,
        pool: &mut [UnoCard],
        need: &[u8],
        caps: &[[u8; GROUPS]],
        rng: &mut GameRng,
    ) {
        const PILE: u8 = u8::MAX;
        let n = self.n as usize;
        rng.shuffle(pool);
        let mut owner = vec![PILE; pool.len()];
        let mut next = 0;
        for (h, &k) in need.iter().enumerate() {
            for _ in 0..k {
                if next < owner.len() {
                    owner[next] = h as u8;
                    next += 1;
                }
            }
        }
        let constrained = (0..n).any(|h| need[h] > 0 && caps[h].iter().any(|&c| c != NO_CAP));
        if constrained {
            // The group counts of every hand once the pool is dealt.
            let counts = |pool: &[UnoCard]| {
                let mut g: Vec<[u8; GROUPS]> = self.hands.iter().map(group_counts).collect();
                for (i, &f) in pool.iter().enumerate() {
                    if owner[i] != PILE
                        && let Some((cg, kg)) = groups(f)
                    {
                        g[owner[i] as usize][cg] += 1;
                        g[owner[i] as usize][kg] += 1;
                    }
                }
                g
            };
            let fits_caps = |g: &[[u8; GROUPS]]| {
                (0..n).all(|h| need[h] == 0 || (0..GROUPS).all(|k| g[h][k] <= caps[h][k]))
            };
            // Exactly uniform among the deals that respect every cap: deal again until one
            // does. Mending a deal instead (below) is not uniform: it moves every hand over a
            // cap onto the cap, so hands at the cap come up far more often than they should.
            // Only when the caps are so tight that REDEALS deals all break them does the
            // mending take over (consistent, but not exactly uniform).
            let mut g = counts(pool);
            for _ in 0..REDEALS {
                if fits_caps(&g) {
                    break;
                }
                rng.shuffle(pool);
                g = counts(pool);
            }
            // Room left for one more card of group `x` in seat `o` (the pile has no caps).
            let room = |g: &[[u8; GROUPS]], o: u8, grp: usize, minus: bool| {
                o == PILE
                    || (g[o as usize][grp] as i32 - minus as i32) < caps[o as usize][grp] as i32
            };
            let mut cands: Vec<usize> = Vec::new();
            for _ in 0..4 * pool.len() + 64 {
                let violation = (0..n)
                    .filter(|&h| need[h] > 0)
                    .find_map(|h| (0..GROUPS).find(|&k| g[h][k] > caps[h][k]).map(|k| (h, k)));
                let Some((h, grp)) = violation else { break };
                // A card of the offending group in h's dealt part.
                cands.clear();
                cands.extend((0..pool.len()).filter(|&i| {
                    owner[i] as usize == h
                        && groups(pool[i]).is_some_and(|(cg, kg)| cg == grp || kg == grp)
                }));
                if cands.is_empty() {
                    break; // only fixed cards: nothing to move
                }
                let xi = cands[rng.below(cands.len())];
                let x = pool[xi];
                let xg = groups(x);
                // A card elsewhere that fits h in x's place, while x fits its place.
                cands.clear();
                cands.extend((0..pool.len()).filter(|&j| {
                    let o = owner[j];
                    if o as usize == h {
                        return false;
                    }
                    let y = pool[j];
                    let yg = groups(y);
                    let y_fits_h = match yg {
                        None => true,
                        Some((cg, kg)) => {
                            cg != grp
                                && kg != grp
                                && room(&g, h as u8, cg, xg.is_some_and(|(a, _)| a == cg))
                                && room(&g, h as u8, kg, xg.is_some_and(|(_, b)| b == kg))
                        }
                    };
                    let x_fits_o = match xg {
                        None => true,
                        Some((cg, kg)) => {
                            room(&g, o, cg, yg.is_some_and(|(a, _)| a == cg))
                                && room(&g, o, kg, yg.is_some_and(|(_, b)| b == kg))
                        }
                    };
                    y_fits_h && x_fits_o
                }));
                if cands.is_empty() {
                    continue; // try another card of the group
                }
                let yj = cands[rng.below(cands.len())];
                let o = owner[yj];
                for (card, from, to) in [(x, h as u8, o), (pool[yj], o, h as u8)] {
                    if let Some((cg, kg)) = groups(card) {
                        if from != PILE {
                            g[from as usize][cg] -= 1;
                            g[from as usize][kg] -= 1;
                        }
                        if to != PILE {
                            g[to as usize][cg] += 1;
                            g[to as usize][kg] += 1;
                        }
                    }
                }
                // The owners stay with the places: the two cards change places.
                pool.swap(xi, yj);
            }
        }
        self.draw.clear();
        self.draw.reserve(pool.len());
        for (i, &f) in pool.iter().enumerate() {
            if owner[i] == PILE {
                self.draw.push(f);
            } else {
                self.add_card(owner[i], f);
            }
        }
    }

    /// Which cards of `holder`'s hand `viewer` knows.
    fn known_of(&self, viewer: Seat, holder: Seat) -> Option<&KnownHand> {
        self.known
            .iter()
            .find(|k| k.viewer == viewer && k.holder == holder)
    }

    /// Picks `len` cards of `holder`'s hand at random, always including `must`.
    fn random_subhand(
        &self,
        holder: Seat,
        must: &[u8; FACES],
        len: u8,
        rng: &mut GameRng,
    ) -> [u8; FACES] {
        let mut out = *must;
        let mut rest = Vec::new();
        for (f, (&h, &m)) in self.hands[holder as usize].iter().zip(must).enumerate() {
            for _ in m..h {
                rest.push(UnoCard(f as u8));
            }
        }
        rng.shuffle(&mut rest);
        let have: u8 = must.iter().sum();
        for c in rest.iter().take(len.saturating_sub(have) as usize) {
            out[c.0 as usize] += 1;
        }
        out
    }

    #[allow(clippy::needless_range_loop)]
    pub(crate) fn redeal_hidden(&mut self, seat: Seat, rng: &mut GameRng) {
        let n = self.n as usize;
        if seat as usize >= n {
            return;
        }
        let mut pool: Vec<UnoCard> = std::mem::take(&mut self.draw);
        // Room for every hidden hand at once: the soak re-deals in every state it checks.
        pool.reserve(self.hand_len.iter().map(|&l| l as usize).sum());
        let mut need = vec![0u8; n];
        for h in 0..n {
            if h == seat as usize {
                continue;
            }
            let mut fixed = self
                .known_of(seat, h as Seat)
                .map_or([0u8; FACES], |k| k.cards);
            if let Phase::AfterDraw { drawn } = self.phase {
                // The drawn card is hidden but known to be playable: it stays.
                if self.cur as usize == h {
                    fixed[drawn.0 as usize] += 1;
                }
            }
            let hand = &mut self.hands[h];
            let mut kept = 0u8;
            for f in 0..FACES {
                let keep = fixed[f].min(hand[f]);
                for _ in keep..hand[f] {
                    pool.push(UnoCard(f as u8));
                }
                hand[f] = keep;
                kept += keep;
            }
            need[h] = self.hand_len[h] - kept;
            self.hand_len[h] = kept;
        }
        let caps = std::mem::take(&mut self.caps);
        self.deal_hidden(&mut pool, &need, &caps, rng);
        self.caps = caps;
        // The WD4 snapshot of an offender whose hand was re-dealt.
        if let Some(w) = self.wd4.clone()
            && w.offender != seat
        {
            let must = self
                .known_of(seat, w.offender)
                .map_or([0u8; FACES], |k| k.cards);
            let hand = self.random_subhand(w.offender, &must, w.hand_len, rng);
            if let Some(ctx) = self.wd4.as_mut() {
                ctx.hand = hand;
            }
        }
        // What other players saw of re-dealt hands: the same number of cards, now drawn from
        // the new hands (the observer cannot know which ones).
        let mut known = std::mem::take(&mut self.known);
        for k in known.iter_mut() {
            if k.viewer != seat && k.holder != seat {
                let len = k.len.min(self.hand_len[k.holder as usize]);
                k.cards = self.random_subhand(k.holder, &[0; FACES], len, rng);
                k.len = len;
            }
        }
        known.retain(|k| k.len > 0);
        self.known = known;
        self.rng = GameRng::new(rng.next_u64());
    }

    #[allow(clippy::needless_range_loop)]
    pub(crate) fn from_observation(opts: &Options, obs: &Observation, rng: &mut GameRng) -> Uno {
        let mut opts = opts.clone();
        let n = obs.players.clamp(1, 10);
        opts.num_players = n;
        let nu = n as usize;
        let seat = obs.seat.min(n - 1);
        let mut g = Uno::skeleton(&opts, GameRng::new(rng.next_u64()));
        g.discard = obs
            .discard
            .iter()
            .copied()
            .filter(|c| c.is_valid())
            .collect();
        if g.discard.is_empty() {
            g.discard.push(obs.top);
        }
        g.color = obs.color;
        g.direction = if obs.direction < 0 { -1 } else { 1 };
        g.cur = obs.to_act.unwrap_or(0).min(n - 1);
        g.pending = obs.pending;
        g.dealer = obs.dealer.min(n - 1);
        g.hand_no = obs.hand_no;
        g.turns = obs.turns;
        g.scores = obs.scores.clone();
        g.scores.resize(nu, 0);
        for (h, (cc, kc)) in obs
            .color_caps
            .iter()
            .zip(&obs.kind_caps)
            .enumerate()
            .take(nu)
        {
            g.caps[h][..4].copy_from_slice(cc);
            g.caps[h][4..].copy_from_slice(kc);
        }
        for &c in &obs.hand {
            if c.is_valid() {
                g.add_card(seat, c);
            }
        }
        // The unknown pool, minus what the observer knows to be in particular hands.
        let mut pool_counts = [0u8; FACES];
        for (f, p) in pool_counts.iter_mut().enumerate() {
            *p = obs.unseen.get(f).copied().unwrap_or(0);
        }
        let mut need = vec![0u8; nu];
        for h in 0..nu {
            if h == seat as usize {
                continue;
            }
            let size = obs.hand_sizes.get(h).copied().unwrap_or(0);
            let mut cards = [0u8; FACES];
            if let Some(list) = obs.known.get(h) {
                for c in list.iter().filter(|c| c.is_valid()) {
                    if pool_counts[c.0 as usize] > 0 && g.hand_len[h] < size {
                        pool_counts[c.0 as usize] -= 1;
                        cards[c.0 as usize] += 1;
                        g.add_card(h as Seat, *c);
                    }
                }
            }
            let len: u8 = cards.iter().sum();
            if len > 0 {
                g.known.push(KnownHand {
                    viewer: seat,
                    holder: h as Seat,
                    cards,
                    len,
                });
            }
            need[h] = size - g.hand_len[h];
        }
        let mut pool: Vec<UnoCard> = Vec::with_capacity(108);
        for (f, &k) in pool_counts.iter().enumerate() {
            for _ in 0..k {
                pool.push(UnoCard(f as u8));
            }
        }
        let mut caps = g.caps.clone();
        g.phase = match obs.decision {
            Decision::ChooseStartColor => Phase::ChooseStartColor,
            Decision::Turn => Phase::Turn,
            Decision::Wd4Challenge => Phase::Wd4Challenge,
            Decision::PenaltyTurn => Phase::PenaltyTurn,
            Decision::Over => Phase::Over,
            Decision::UnoCatch => {
                let off = obs.offender.unwrap_or(0).min(n - 1);
                let steps = ((g.cur as i32 - off as i32) * g.direction as i32).rem_euclid(n as i32);
                Phase::UnoCatch {
                    offender: off,
                    asked: (steps - 1).max(0) as u8,
                }
            }
            Decision::AfterDraw => {
                let a = g.cur;
                let drawn = match obs.drawn {
                    Some(d) if a == seat => d,
                    _ => g.pick_drawn(a, &mut pool, &mut need, &mut caps, rng),
                };
                Phase::AfterDraw { drawn }
            }
        };
        // Keep the counts consistent even for a malformed observation (what is left over
        // goes to the draw pile).
        let mut rest = pool.len();
        for k in need.iter_mut() {
            *k = (*k as usize).min(rest) as u8;
            rest -= *k as usize;
        }
        g.deal_hidden(&mut pool, &need, &caps, rng);
        if let Some(w) = &obs.wd4 {
            let off = w.offender.min(n - 1);
            let hand = match &w.hand {
                Some(list) if off == seat => {
                    let mut c = [0u8; FACES];
                    for x in list.iter().filter(|x| x.is_valid()) {
                        c[x.0 as usize] += 1;
                    }
                    c
                }
                _ => {
                    let must = g.known_of(seat, off).map_or([0u8; FACES], |k| k.cards);
                    g.random_subhand(off, &must, w.hand_len, rng)
                }
            };
            g.wd4 = Some(Wd4Ctx {
                offender: off,
                victim: w.victim.min(n - 1),
                prev_color: w.prev_color,
                prev_top: w.prev_top,
                hand,
                hand_len: w.hand_len,
            });
        }
        if g.phase == Phase::Over {
            // Decision: the result of a finished game is not part of the observation (it is
            // in the public events); a determinized finished game reports a shared draw.
            g.outcome = Some(super::engine::make_outcome(
                vec![SeatResult::Draw; nu],
                g.scores.clone(),
                false,
                true,
            ));
        }
        g
    }

    /// For a determinization in `AfterDraw` of another player: a playable card from the pool
    /// (weighted by copies) becomes that player's drawn card.
    fn pick_drawn(
        &mut self,
        a: Seat,
        pool: &mut Vec<UnoCard>,
        need: &mut [u8],
        caps: &mut [[u8; GROUPS]],
        rng: &mut GameRng,
    ) -> UnoCard {
        let top = self.top();
        let cc = self.color;
        let ai = a as usize;
        let g = group_counts(&self.hands[ai]);
        let ok = |f: UnoCard| match f.0 {
            52 | 53 => true,
            c if c < 52 => {
                (c / 13 == cc as u8 || top.kind_index() == Some(c % 13)) && fits(f, &g, &caps[ai])
            }
            _ => false,
        };
        let cands: Vec<usize> = (0..pool.len()).filter(|&i| ok(pool[i])).collect();
        let i = if cands.is_empty() {
            if pool.is_empty() {
                return self.top();
            }
            rng.below(pool.len())
        } else {
            cands[rng.below(cands.len())]
        };
        let f = pool.swap_remove(i);
        self.add_card(a, f);
        need[ai] = need[ai].saturating_sub(1);
        if f.is_wd4() && !self.opts.wd4_challenge {
            // It was playable, so the hand passes the restriction.
            caps[ai][cc as usize] = 0;
            if self.opts.wd4_restriction == Wd4Restriction::NoMatchingCard
                && let Some(k) = top.kind_index()
            {
                caps[ai][4 + k as usize] = 0;
            }
        }
        f
    }
}
