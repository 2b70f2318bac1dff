//! A lean simulator of one two-player hand under house-like rules, for the playouts.
//!
//! The rules engine keeps what a real game needs and a playout does not: every seat's public
//! caps and known cards, the events, a legal-action list with four entries per wild, an
//! `Uno` copied per playout with its vectors. Here a hand is two face-count arrays and a few
//! fields, copied as one value, the draw pile is the world's and shared by its playouts (a
//! playout only counts the cards it took), and the policy looks at the playable faces
//! directly. It plays exactly the rules of [`crate::model::applies`] with `SingleHand`
//! scoring (progressive stacking, draw one and may play it, the hand ends when the draw pile
//! is empty, automatic UNO calls, no challenge) and exactly [`crate::Policy`]'s moves from
//! the same random stream, so a playout here ends as the engine's does: the test
//! `lean_plays_as_the_engine` checks it on thousands of positions. Not modelled: the engine's
//! turn limit (5 000 turns, a safety cap, not a rule; a playout is 20 moves at most).
//!
//! A playout stopped at its horizon is scored by the points in hand ([`Lean::value`], as the
//! engine's playouts are) or by the learned evaluation ([`Lean::learned_value`]: a logistic
//! model of [`Lean::features`], whose weights `scripts/fit-uno-eval.py` fits to positions of
//! real hands and writes into `weights.rs`).

use crate::{Policy, hand_color, policy_rank};
use croupier_sdk::{Game, GameRng};

use croupier_sdk::uno::{Action, Color, Decision, Observation, Uno, UnoCard, Wd4Restriction};
use uno_common::greedy_score;

const FACES: usize = 54;
const WILD: usize = 52;
const WD4: usize = 53;
/// A set of faces, bit = face code.
type Faces = u64;
const WILDS: Faces = 3 << WILD;
const WD4_BIT: Faces = 1 << WD4;

const fn color_faces(c: usize) -> Faces {
    ((1 << 13) - 1) << (13 * c)
}
const fn kind_faces(k: usize) -> Faces {
    (1 << k) | (1 << (13 + k)) | (1 << (26 + k)) | (1 << (39 + k))
}
const DRAW_TWOS: Faces = kind_faces(12);

/// Per face: its points, [`policy_rank`] and greedy's score (as [`greedy_score`]), looked up
/// instead of computed at every simulated move.
struct Table {
    points: [i16; FACES],
    rank: [i16; FACES],
    greedy: [i16; FACES],
}
static TABLE: std::sync::LazyLock<Table> = std::sync::LazyLock::new(|| {
    let face = |f: usize| UnoCard(f as u8);
    Table {
        points: std::array::from_fn(|f| face(f).points() as i16),
        rank: std::array::from_fn(|f| policy_rank(face(f)) as i16),
        greedy: std::array::from_fn(|f| greedy_score(face(f)) as i16),
    }
});

/// The random numbers a playout draws: [`GameRng`]'s (the engine's playouts; the test
/// compares the two simulators on the same stream) or [`Fast`]'s.
pub trait Draws {
    /// A number in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize;
}

impl Draws for GameRng {
    fn below(&mut self, n: usize) -> usize {
        GameRng::below(self, n)
    }
}

/// xorshift64*, seeded from the search's [`GameRng`]: a playout draws a number at nearly
/// every move and a world shuffles its draw pile, and `GameRng`'s ChaCha, without SIMD in
/// the sandbox, cost more fuel than the simulated moves. Its quality is ample for the
/// playouts' coin flips; `below` maps the high 32 bits by a multiply (bias under `n`/2³²).
#[derive(Clone, Debug)]
pub struct Fast(u64);

impl Fast {
    pub fn new(seed: u64) -> Fast {
        // A zero state would stay zero.
        Fast(seed | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Fisher–Yates.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

impl Draws for Fast {
    fn below(&mut self, n: usize) -> usize {
        (((self.next() >> 32) * n as u64) >> 32) as usize
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    Turn,
    /// A draw penalty is pending: stack or take it.
    Penalty,
    /// The card just drawn fits.
    AfterDraw(UnoCard),
    /// The hand is over: its winner, or `None` for a shared lowest hand.
    Over(Option<u8>),
}

/// One hand in play. The draw pile is the world's ([`World::draw`], top first); `taken`
/// counts the cards drawn from it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Lean {
    hands: [[u8; FACES]; 2],
    /// Per seat: the faces held (a count above 0).
    held: [Faces; 2],
    len: [u8; 2],
    /// Per seat: the hand's points (what the player who goes out would score from it).
    points: [i64; 2],
    taken: u8,
    /// The world's draw pile's size (for the features).
    pile: u8,
    top: UnoCard,
    color: Color,
    pending: u16,
    cur: u8,
    phase: Phase,
    restriction: Wd4Restriction,
}

/// A dealt world: the hand and its draw pile.
#[derive(Clone, Debug)]
pub struct World {
    pub lean: Lean,
    /// The draw pile, top first.
    pub draw: Vec<UnoCard>,
}

impl World {
    /// The engine's position as a lean one, for a two-player game whose rules
    /// [`crate::model::applies`] to, with `SingleHand` scoring; `drawn` is the card just
    /// drawn in an `AfterDraw` decision (the observation's). `None` for any other position.
    pub fn from_uno(g: &Uno, restriction: Wd4Restriction, drawn: Option<UnoCard>) -> Option<World> {
        if g.num_players() != 2 {
            return None;
        }
        let cur = g.to_act()?;
        let phase = match g.decision() {
            Decision::Turn => Phase::Turn,
            Decision::PenaltyTurn => Phase::Penalty,
            Decision::AfterDraw => Phase::AfterDraw(drawn?),
            _ => return None,
        };
        let mut hands = [[0u8; FACES]; 2];
        for (s, hand) in hands.iter_mut().enumerate() {
            let counts = g.hand_counts(s as u8);
            if counts.len() != FACES {
                return None;
            }
            hand.copy_from_slice(counts);
        }
        let mut lean = Lean::new(
            hands,
            g.top_card(),
            g.current_color(),
            g.pending(),
            cur,
            phase,
            restriction,
        );
        let draw = g.draw_pile();
        lean.pile = u8::try_from(draw.len()).ok()?;
        Some(World { lean, draw })
    }

    /// A world dealt from our observation `obs` of a decision of ours, the opponent holding
    /// `opp_hand`: the draw pile is the rest of the unseen cards, shuffled. `None` when the
    /// cards do not add up or the decision is not one this simulator plays.
    pub fn deal(
        obs: &Observation,
        opp_hand: &[UnoCard],
        restriction: Wd4Restriction,
        rng: &mut Fast,
    ) -> Option<World> {
        let me = obs.seat as usize;
        if obs.players != 2 || me > 1 || obs.to_act != Some(obs.seat) {
            return None;
        }
        let phase = match obs.decision {
            Decision::Turn => Phase::Turn,
            Decision::PenaltyTurn => Phase::Penalty,
            Decision::AfterDraw => Phase::AfterDraw(obs.drawn?),
            _ => return None,
        };
        let mut hands = [[0u8; FACES]; 2];
        let mut left: [u8; FACES] = obs.unseen.as_slice().try_into().ok()?;
        for c in &obs.hand {
            *hands[me].get_mut(c.0 as usize)? += 1;
        }
        for c in opp_hand {
            let f = c.0 as usize;
            *hands[1 - me].get_mut(f)? += 1;
            left[f] = left[f].checked_sub(1)?;
        }
        let mut draw = Vec::with_capacity(obs.draw_pile as usize);
        for (f, &k) in left.iter().enumerate() {
            for _ in 0..k {
                draw.push(UnoCard(f as u8));
            }
        }
        if draw.len() != obs.draw_pile as usize {
            return None;
        }
        rng.shuffle(&mut draw);
        let mut lean = Lean::new(
            hands,
            obs.top,
            obs.color,
            obs.pending,
            obs.seat,
            phase,
            restriction,
        );
        lean.pile = u8::try_from(draw.len()).ok()?;
        Some(World { lean, draw })
    }

    /// Plays `action` and then `policy` for at most `max_steps` moves from `rng`; returns
    /// the score for `seat` (as [`crate::evaluate`] with `SingleHand` scoring) and the moves
    /// applied (the candidate's included), or `None` for an action this simulator does not
    /// play.
    pub fn playout(
        &self,
        action: Action,
        policy: &Policy,
        max_steps: u32,
        rng: &mut impl Draws,
    ) -> Option<(f64, u64)> {
        let mut h = self.lean;
        let draw = &self.draw[..];
        let t = &*TABLE;
        h.apply(draw, action)?;
        let mut steps = 1;
        for _ in 0..max_steps {
            if matches!(h.phase, Phase::Over(_)) {
                break;
            }
            steps += 1;
            h.policy_step(draw, policy, rng, t);
        }
        let value = match policy.learned {
            Some(w) => h.learned_value(policy.me, w),
            None => h.value(policy.me),
        };
        Some((value, steps))
    }
}

/// How many numbers [`Lean::features`] describes a position by: one per learned weight.
pub const FEATURES: usize = crate::weights::WEIGHTS.len();

/// The faces of the four colours' Skips and Reverses (in two-player UNO both play again).
const AGAIN: Faces = kind_faces(10) | kind_faces(11);

impl Lean {
    fn new(
        hands: [[u8; FACES]; 2],
        top: UnoCard,
        color: Color,
        pending: u16,
        cur: u8,
        phase: Phase,
        restriction: Wd4Restriction,
    ) -> Lean {
        let mut lean = Lean {
            hands,
            held: [0; 2],
            len: [0; 2],
            points: [0; 2],
            taken: 0,
            pile: 0,
            top,
            color,
            pending,
            cur,
            phase,
            restriction,
        };
        let t = &*TABLE;
        for (s, hand) in hands.iter().enumerate() {
            for (f, &k) in hand.iter().enumerate() {
                if k > 0 {
                    lean.held[s] |= 1 << f;
                    lean.len[s] += k;
                    lean.points[s] += i64::from(k) * i64::from(t.points[f]);
                }
            }
        }
        lean
    }

    fn other(p: u8) -> u8 {
        1 - p
    }

    /// 1 for a won hand, ½ shared, 0 lost; an unfinished one by the points in hand.
    pub(crate) fn value(&self, me: u8) -> f64 {
        match self.phase {
            Phase::Over(Some(w)) => f64::from(u8::from(w == me)),
            Phase::Over(None) => 0.5,
            _ => {
                let me = me as usize & 1;
                let diff = self.points[1 - me] - self.points[me];
                (0.5 + diff as f64 / 200.0).clamp(0.0, 1.0)
            }
        }
    }

    /// A position as numbers for the learned evaluation (`weights.rs`), seen from `me`:
    /// each seat's cards, points, special cards, playable cards and colours, the draw
    /// pile, the turn and the pending penalty. The fit script reads the same list.
    pub fn features(&self, me: u8) -> [f64; FEATURES] {
        let m = me as usize & 1;
        let left = self.left_in_pile();
        let turn = if self.cur == me { 1.0 } else { -1.0 };
        let pending = f64::from(self.pending) * f64::from(u8::from(self.phase == Phase::Penalty));
        let mut f = [0.0; FEATURES];
        f[0] = 1.0;
        f[1] = left / 10.0;
        f[2] = turn;
        f[3] = pending * turn / 2.0;
        for (k, s) in [m, 1 - m].into_iter().enumerate() {
            let hand = &self.hands[s];
            let held = self.held[s];
            let count = |set: Faces| {
                BitIter(set & held)
                    .map(|face| f64::from(hand[face]))
                    .sum::<f64>()
            };
            let len = f64::from(self.len[s]);
            let points = self.points[s] as f64;
            let colours = (0..4).filter(|&c| held & color_faces(c) != 0).count() as f64;
            let o = 4 + 11 * k;
            f[o] = len / 5.0;
            f[o + 1] = points / 50.0;
            f[o + 2] = 1.0 / len.max(1.0);
            f[o + 3] = f64::from(u8::from(self.len[s] == 1));
            f[o + 4] = count(1 << WILD);
            f[o + 5] = count(WD4_BIT);
            f[o + 6] = count(DRAW_TWOS);
            f[o + 7] = count(AGAIN);
            f[o + 8] = count(self.playable(s as u8)) / len.max(1.0);
            f[o + 9] = colours / 4.0;
            f[o + 10] = points / 50.0 / (1.0 + left / 5.0);
        }
        f
    }

    /// The learned evaluation: the chance `me` wins the hand, by a logistic model of
    /// [`Lean::features`]; a finished hand by its result.
    pub(crate) fn learned_value(&self, me: u8, weights: &[f64; FEATURES]) -> f64 {
        match self.phase {
            Phase::Over(_) => self.value(me),
            _ => {
                let f = self.features(me);
                let z: f64 = f.iter().zip(weights).map(|(x, w)| x * w).sum();
                1.0 / (1.0 + (-z).exp())
            }
        }
    }

    fn left_in_pile(&self) -> f64 {
        f64::from(self.pile.saturating_sub(self.taken))
    }

    /// The Wild Draw Four restriction (no card of the current colour, and with
    /// `NoMatchingCard` none of the top card's kind).
    fn wd4_allowed(&self, p: u8) -> bool {
        let held = self.held[p as usize];
        if held & color_faces(self.color as usize) != 0 {
            return false;
        }
        match (self.restriction, self.top.kind_index()) {
            (Wd4Restriction::NoMatchingCard, Some(kind)) => held & kind_faces(kind as usize) == 0,
            _ => true,
        }
    }

    /// The faces `p` may play at a turn (held or not).
    fn playable(&self, p: u8) -> Faces {
        let mut m = color_faces(self.color as usize) | (1 << WILD);
        if let Some(k) = self.top.kind_index() {
            m |= kind_faces(k as usize);
        }
        if self.wd4_allowed(p) {
            m |= WD4_BIT;
        }
        m
    }

    /// The faces `p` may stack on the pending penalty.
    fn stackable(&self, p: u8) -> Faces {
        let twos = if self.top.is_wd4() { 0 } else { DRAW_TWOS };
        twos | if self.wd4_allowed(p) { WD4_BIT } else { 0 }
    }

    fn begin_turn(&mut self, draw: &[UnoCard], seat: u8, penalty: bool) {
        if self.taken as usize >= draw.len() {
            self.end_hand();
            return;
        }
        self.cur = seat;
        self.phase = if penalty { Phase::Penalty } else { Phase::Turn };
    }

    /// The draw pile ran out: the lowest hand wins, then the fewest cards; else shared.
    fn end_hand(&mut self) {
        let key = |s: usize| (self.points[s], self.len[s]);
        self.phase = Phase::Over(match key(0).cmp(&key(1)) {
            std::cmp::Ordering::Less => Some(0),
            std::cmp::Ordering::Greater => Some(1),
            std::cmp::Ordering::Equal => None,
        });
    }

    /// Moves the top of the draw pile into `p`'s hand.
    fn take(&mut self, draw: &[UnoCard], p: u8) -> Option<UnoCard> {
        let c = *draw.get(self.taken as usize)?;
        let (s, f) = (p as usize & 1, c.0 as usize % FACES);
        self.taken += 1;
        self.hands[s][f] += 1;
        self.held[s] |= 1 << f;
        self.len[s] += 1;
        self.points[s] += i64::from(TABLE.points[f]);
        Some(c)
    }

    fn play(&mut self, draw: &[UnoCard], card: UnoCard, declare: Option<Color>) -> Option<()> {
        let p = self.cur;
        let s = p as usize & 1;
        let f = card.0 as usize;
        let slot = self.hands[s].get_mut(f)?;
        *slot = slot.checked_sub(1)?;
        if *slot == 0 {
            self.held[s] &= !(1 << f);
        }
        self.len[s] -= 1;
        self.points[s] -= i64::from(TABLE.points[f]);
        self.top = card;
        self.color = card.color().or(declare).unwrap_or(self.color);
        self.pending += card.draw_amount();
        if self.len[s] == 0 {
            // Going out wins the hand (the victim of a draw card still draws; no matter).
            self.phase = Phase::Over(Some(p));
            return Some(());
        }
        let other = Self::other(p);
        if card.is_draw() {
            self.begin_turn(draw, other, true);
        } else if matches!(card.kind_index(), Some(10 | 11)) {
            // Skip, and Reverse with two players (docs/rules/uno.md#two-players): the same player
            // again.
            self.begin_turn(draw, p, false);
        } else {
            self.begin_turn(draw, other, false);
        }
        Some(())
    }

    /// Applies a legal action; `None` for one this simulator does not play.
    fn apply(&mut self, draw: &[UnoCard], a: Action) -> Option<()> {
        let p = self.cur;
        match (a, self.phase) {
            (Action::Play { card, declare, .. }, Phase::Turn)
            | (Action::Stack { card, declare, .. }, Phase::Penalty) => {
                self.play(draw, card, declare)
            }
            (Action::PlayDrawn { declare, .. }, Phase::AfterDraw(card)) => {
                self.play(draw, card, declare)
            }
            (Action::Keep, Phase::AfterDraw(_)) => {
                self.begin_turn(draw, Self::other(p), false);
                Some(())
            }
            (Action::Draw, Phase::Turn) => {
                self.draw_one(draw);
                Some(())
            }
            (Action::AcceptPenalty, Phase::Penalty) => {
                self.accept(draw);
                Some(())
            }
            _ => None,
        }
    }

    /// `Draw`: one card; a playable one waits for `PlayDrawn` or `Keep`.
    fn draw_one(&mut self, draw: &[UnoCard]) {
        let p = self.cur;
        match self.take(draw, p) {
            Some(c) if self.playable(p) & (1 << (c.0 as usize % FACES)) != 0 => {
                self.phase = Phase::AfterDraw(c)
            }
            _ => self.begin_turn(draw, Self::other(p), false),
        }
    }

    fn accept(&mut self, draw: &[UnoCard]) {
        let p = self.cur;
        for _ in 0..self.pending {
            if self.take(draw, p).is_none() {
                break;
            }
        }
        self.pending = 0;
        self.begin_turn(draw, Self::other(p), false);
    }

    /// The colour a wild names: the one `p` holds most of.
    fn declare(&self, card: UnoCard) -> Option<Color> {
        card.is_wild()
            .then(|| hand_color(&self.hands[self.cur as usize & 1], self.color))
    }

    /// One move of [`Policy::act`], drawing the same random numbers.
    fn policy_step(&mut self, draw: &[UnoCard], pol: &Policy, rng: &mut impl Draws, t: &Table) {
        let p = self.cur;
        if let Phase::AfterDraw(card) = self.phase {
            let _ = self.play(draw, card, self.declare(card));
            return;
        }
        let penalty = self.phase == Phase::Penalty;
        let allowed = if penalty {
            self.stackable(p)
        } else {
            self.playable(p)
        };
        let fits = self.held[p as usize & 1] & allowed;
        if fits == 0 {
            if penalty {
                self.accept(draw);
            } else {
                self.draw_one(draw);
            }
            return;
        }
        // The engine lists a wild once per colour it may name: four of the plays.
        let plays =
            (fits & !WILDS).count_ones() as usize + 4 * (fits & WILDS).count_ones() as usize;
        let mut faces = BitIter(fits);
        let mine = p == pol.me;
        let eps = if mine { pol.my_eps } else { pol.opp_eps };
        let chosen = if eps > 0 && (rng.below(100) as u32) < eps {
            let mut k = rng.below(plays);
            faces.find(|&f| {
                let w = if f >= WILD { 4 } else { 1 };
                if k < w {
                    true
                } else {
                    k -= w;
                    false
                }
            })
        } else if mine || !pol.opp_greedy {
            // The last of the best, as `max_by_key` over the list.
            faces.max_by_key(|&f| t.rank[f])
        } else {
            // Greedy's order: the first of the best scores.
            faces.rev().max_by_key(|&f| t.greedy[f])
        };
        if let Some(f) = chosen {
            let card = UnoCard(f as u8);
            let _ = self.play(draw, card, self.declare(card));
        }
    }
}

/// The faces of a set, lowest first (or highest first, reversed).
#[derive(Copy, Clone)]
struct BitIter(Faces);

impl Iterator for BitIter {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let f = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(f)
    }
}

impl DoubleEndedIterator for BitIter {
    fn next_back(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let f = 63 - self.0.leading_zeros() as usize;
        self.0 &= !(1 << f);
        Some(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate;
    use croupier_sdk::Rules;
    use croupier_sdk::search::playout;
    use croupier_sdk::uno::{Options, Scoring};

    /// Every candidate of every position of 150 house hands (played by a mix of the
    /// policies) played out by the engine and here from the same random stream: the same
    /// score and the same number of moves, for both policies' settings and horizons.
    #[test]
    fn lean_plays_as_the_engine() {
        let mut opts = Options::preset("house").unwrap();
        opts.set_players(2).unwrap();
        let mut restricted = opts.clone();
        restricted.wd4_restriction = Wd4Restriction::NoMatchingCard;
        let (mut positions, mut over, mut checked) = (0, 0, 0);
        for seed in 0..150u64 {
            let opts = if seed % 3 == 2 { &restricted } else { &opts };
            let mut g = Uno::new(opts, seed).unwrap();
            let mut rng = GameRng::new(seed ^ 0x5eed);
            let mut legal = Vec::new();
            let mut buf = Vec::new();
            while let Some(seat) = g.to_act() {
                g.legal_actions(&mut legal);
                let obs = g.observe(seat);
                let pol = Policy {
                    me: seat,
                    opp_eps: [0, 5, 50][seed as usize % 3],
                    my_eps: [10, 0, 30][seed as usize % 3],
                    opp_greedy: seed % 4 != 1,
                    learned: None,
                };
                let steps = [20, 3, 200][seed as usize % 3];
                if let Some(w) = World::from_uno(&g, opts.wd4_restriction, obs.drawn) {
                    positions += 1;
                    // Dealt from the observation with the true opposing hand: the same
                    // position, the draw pile in another order.
                    let opp_hand = g.hand(1 - seat);
                    let mut fast = Fast::new(seed);
                    let dealt = World::deal(&obs, &opp_hand, opts.wd4_restriction, &mut fast)
                        .expect("dealt");
                    assert_eq!(dealt.lean, w.lean, "seed {seed}");
                    let sorted = |d: &[UnoCard]| {
                        let mut d = d.to_vec();
                        d.sort();
                        d
                    };
                    assert_eq!(sorted(&dealt.draw), sorted(&w.draw), "seed {seed}");
                    for (i, &a) in legal.iter().enumerate() {
                        let stream = seed * 1000 + i as u64;
                        let mut e = g.clone();
                        e.record_no_events();
                        e.apply(a).unwrap();
                        let mut r = GameRng::new(stream);
                        let done = playout(
                            &mut e,
                            steps,
                            &mut r,
                            &mut |g, l, r| pol.act(g, l, r),
                            &mut buf,
                        );
                        let want = evaluate(&e, seat, Scoring::SingleHand, &obs.scores);
                        let mut r = GameRng::new(stream);
                        let got = w.playout(a, &pol, steps, &mut r);
                        assert_eq!(
                            got,
                            Some((want, done.steps + 1)),
                            "seed {seed}, {:?}, candidate {a:?}",
                            obs.decision
                        );
                        over += usize::from(e.outcome().is_some());
                        checked += 1;
                    }
                }
                let a = pol.act(&g, &legal, &mut rng);
                g.apply(a).unwrap();
            }
        }
        // The positions cover finished and unfinished playouts alike.
        assert!(positions > 5000, "{positions} positions");
        assert!(
            over > checked / 10 && over < checked * 9 / 10,
            "{over} of {checked} over"
        );
    }
}
