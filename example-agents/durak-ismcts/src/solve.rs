//! Exact end-game search: alpha-beta over the rules engine for a state whose every card is
//! known (two sides, perfect information), with a transposition table and a node budget.
//!
//! Values are per side: 2 = the searching seat (or its team) wins, 1 = draw, 0 = loss. A seat
//! of the searcher's side maximises, the other side minimises. Candidates are those of
//! [`crate::candidates`] (a defender covers the first open slot first), cheapest card first.
//!
//! Decided here: the position key hashes what the rest of the game depends on (every hand,
//! the table with who played what, phase, attacker, defender, h0, the actor, the talon's size
//! and who is out); the discard follows from them. `taking` follows too: a throw-in phase with
//! an uncovered card means the defender took. The bout counter is left out (the engine's
//! safety limit of 1000 bouts never binds in an end game).

use croupier_sdk::durak::{Action, Durak, Observation};
use croupier_sdk::rules::SeatResult;
use croupier_sdk::{Game, Seat};
use durak_common::{
    CHEAPEST, Decision, Style, action_card, base_decide, cheap_key, decision, is_trump,
};
use std::collections::HashMap;

/// Value of a won game for the searching side.
pub const WIN: u8 = 2;
/// Value of a drawn game.
pub const DRAW: u8 = 1;

/// The search's state for one decision.
pub struct Solver {
    me: Seat,
    teams: bool,
    /// Nodes expanded so far.
    pub nodes: u32,
    limit: u32,
    /// Bounds `(lower, upper)` of positions already searched.
    table: HashMap<u64, (u8, u8)>,
    bufs: Vec<Vec<Action>>,
    legal: Vec<Action>,
    /// Expected values of positions under the opponent model ([`Solver::respond`]).
    expected: HashMap<u64, f64>,
    /// Positions on the current line (the recursion's depth).
    depth: u32,
    /// The deepest line followed so far.
    pub deepest: u32,
}

/// Deepest line the searches follow; past it they give up as when the node budget is spent.
/// Each level holds a copy of the game on the agent's stack (1 MiB in the sandbox): without
/// a bound, a long line of transfers in `perevodnoy` overflowed it and trapped the agent
/// (4 of 80 games, seed 41; none with this bound). A level holds little more than a copy of
/// the game (960 bytes natively), so the stack has room for several times this depth. The
/// deepest line natively in 150 classic deals (seed 9) was 81 (the search there is the same
/// with or without the bound); in `perevodnoy` lines reach the bound, where takes keep the
/// cards in play.
pub const MAX_DEPTH: u32 = 96;

fn mix(h: u64, x: u64) -> u64 {
    let z = (h ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z ^ (z >> 29)
}

/// The position key (see the module doc).
fn key(g: &Durak) -> u64 {
    let n = g.num_players() as Seat;
    let mut h = 0xC0FF_EE00_D00Du64;
    for s in 0..n {
        h = mix(h, g.hand(s).0);
        h = mix(h, u64::from(g.is_out(s)));
    }
    for p in g.table_pairs() {
        let d = p.defence.map_or(0xFF, |c| c.code());
        h = mix(
            h,
            u64::from(p.attack.code()) | u64::from(p.by) << 8 | u64::from(d) << 16,
        );
    }
    let actor = g.to_act().map_or(0xFF, u64::from);
    h = mix(
        h,
        g.phase() as u64
            | u64::from(g.principal()) << 8
            | u64::from(g.defender()) << 16
            | u64::from(g.h0()) << 24
            | actor << 32
            | (g.talon_cards().len() as u64) << 40,
    );
    h
}

impl Solver {
    /// A solver for `me`'s side, expanding at most `limit` nodes.
    pub fn new(me: Seat, teams: bool, limit: u32) -> Solver {
        Solver {
            me,
            teams,
            nodes: 0,
            limit,
            table: HashMap::new(),
            bufs: Vec::new(),
            legal: Vec::new(),
            expected: HashMap::new(),
            depth: 0,
            deepest: 0,
        }
    }

    /// Runs `f` one level deeper, or gives up (`None`) past [`MAX_DEPTH`].
    fn deeper<T>(&mut self, f: impl FnOnce(&mut Solver) -> Option<T>) -> Option<T> {
        if self.depth >= MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        self.deepest = self.deepest.max(self.depth);
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn mine(&self, s: Seat) -> bool {
        if self.teams {
            s % 2 == self.me % 2
        } else {
            s == self.me
        }
    }

    fn value_of(&self, g: &Durak) -> Option<u8> {
        let o = g.outcome()?;
        Some(match o.results.get(self.me as usize) {
            Some(SeatResult::Win) => WIN,
            Some(SeatResult::Loss) => 0,
            _ => DRAW,
        })
    }

    /// The candidates of `g`'s actor into `out`, cheapest card first (then take or pass); `legal` is a buffer.
    fn moves(g: &Durak, legal: &mut Vec<Action>, out: &mut Vec<Action>) {
        g.legal_actions(legal);
        game_candidates(g, legal, out);
        let trump = g.trump_card().suit();
        out.sort_by_key(|a| match action_card(*a) {
            Some(c) => (false, cheap_key(c, trump)),
            None => (true, (false, 0, 0)),
        });
    }

    /// The value of `g` for the searching side within `(alpha, beta)`, or `None` once the
    /// node budget is spent or the line is deeper than [`MAX_DEPTH`].
    pub fn search(&mut self, g: &Durak, alpha: u8, beta: u8) -> Option<u8> {
        self.deeper(|s| s.search_here(g, alpha, beta))
    }

    fn search_here(&mut self, g: &Durak, mut alpha: u8, mut beta: u8) -> Option<u8> {
        if let Some(v) = self.value_of(g) {
            return Some(v);
        }
        let actor = g.to_act()?;
        self.nodes += 1;
        if self.nodes > self.limit {
            return None;
        }
        let k = key(g);
        if let Some(&(lo, hi)) = self.table.get(&k) {
            if lo >= beta || lo == hi {
                return Some(lo);
            }
            if hi <= alpha {
                return Some(hi);
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
        }
        let (a0, b0) = (alpha, beta);
        let maximise = self.mine(actor);
        let mut moves = self.bufs.pop().unwrap_or_default();
        Self::moves(g, &mut self.legal, &mut moves);
        let mut best = if maximise { 0 } else { WIN };
        let mut done = true;
        for &a in &moves {
            let mut child = g.clone();
            if child.apply(a).is_err() {
                continue;
            }
            let Some(v) = self.search(&child, alpha, beta) else {
                done = false;
                break;
            };
            if maximise {
                best = best.max(v);
                alpha = alpha.max(v);
            } else {
                best = best.min(v);
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        self.bufs.push(moves);
        if !done {
            return None;
        }
        let bounds = if best <= a0 {
            (0, best)
        } else if best >= b0 {
            (best, WIN)
        } else {
            (best, best)
        };
        self.table.insert(k, bounds);
        Some(best)
    }

    /// The first of `cands` that wins against every defence, `Some(None)` if none does, or
    /// `None` once the node budget is spent.
    pub fn winning(&mut self, g: &Durak, cands: &[Action]) -> Option<Option<Action>> {
        for &a in cands {
            let mut child = g.clone();
            if child.apply(a).is_err() {
                continue;
            }
            // A null window: only "wins or not" is asked.
            if self.search(&child, DRAW, WIN)? == WIN {
                return Some(Some(a));
            }
        }
        Some(None)
    }
}

impl Solver {
    /// The searching side's expected score (win 1, draw ½) of `g` when it plays its best and
    /// the other seat plays the base behaviour: its lead and defence, and a throw-in of a
    /// plain card of a table rank at random (`durak/cheapest`) or, with chance `tosser`, of
    /// any card of a table rank (`durak/trump-tosser`). `None` once the node budget is spent
    /// or the line is deeper than [`MAX_DEPTH`].
    pub fn expect(&mut self, g: &Durak, tosser: f64) -> Option<f64> {
        self.deeper(|s| s.expect_here(g, tosser))
    }

    fn expect_here(&mut self, g: &Durak, tosser: f64) -> Option<f64> {
        if let Some(v) = self.value_of(g) {
            return Some(f64::from(v) / f64::from(WIN));
        }
        let actor = g.to_act()?;
        self.nodes += 1;
        if self.nodes > self.limit {
            return None;
        }
        let k = key(g);
        if let Some(&v) = self.expected.get(&k) {
            return Some(v);
        }
        let mut moves = self.bufs.pop().unwrap_or_default();
        let value = if self.mine(actor) {
            Self::moves(g, &mut self.legal, &mut moves);
            let mut best: Option<f64> = None;
            for &a in &moves {
                let mut child = g.clone();
                if child.apply(a).is_err() {
                    continue;
                }
                let v = self.expect(&child, tosser);
                match v {
                    Some(v) => best = Some(best.map_or(v, |b: f64| b.max(v))),
                    None => {
                        best = None;
                        break;
                    }
                }
            }
            best
        } else {
            g.legal_actions(&mut moves);
            self.modelled(g, actor, &moves, tosser)
        };
        self.bufs.push(moves);
        let value = value?;
        self.expected.insert(k, value);
        Some(value)
    }

    /// The expected value over the modelled opponent's choices among `legal`.
    fn modelled(&mut self, g: &Durak, actor: Seat, legal: &[Action], tosser: f64) -> Option<f64> {
        let trump = g.trump_card().suit();
        let after = |a: Action, me: &mut Solver| {
            let mut child = g.clone();
            match child.apply(a) {
                Ok(()) => me.expect(&child, tosser),
                Err(_) => Some(0.0),
            }
        };
        if decision(legal) != Decision::ThrowIn {
            // Lead and defence are deterministic in the base behaviour.
            let table: Vec<_> = g
                .table_pairs()
                .iter()
                .map(|p| (p.attack, p.defence))
                .collect();
            let mut rng = croupier_sdk::GameRng::new(0);
            let a = base_decide(
                Style::from_code(CHEAPEST),
                g.hand(actor),
                trump,
                &table,
                legal,
                &mut rng,
            );
            return after(a, self);
        }
        let throws: Vec<Action> = legal
            .iter()
            .copied()
            .filter(|a| matches!(a, Action::ThrowIn(_)))
            .collect();
        let plain: Vec<Action> = throws
            .iter()
            .copied()
            .filter(|a| !action_card(*a).is_some_and(|c| is_trump(c, trump)))
            .collect();
        let mut values = HashMap::new();
        let mut mean = |set: &[Action], me: &mut Solver| -> Option<f64> {
            if set.is_empty() {
                return after(Action::Pass, me);
            }
            let mut sum = 0.0;
            for &a in set {
                let v = match values.get(&a) {
                    Some(&v) => v,
                    None => {
                        let v = after(a, me)?;
                        values.insert(a, v);
                        v
                    }
                };
                sum += v;
            }
            Some(sum / set.len() as f64)
        };
        let cheap = if tosser < 1.0 {
            mean(&plain, self)?
        } else {
            0.0
        };
        let toss = if tosser > 0.0 {
            mean(&throws, self)?
        } else {
            0.0
        };
        Some((1.0 - tosser) * cheap + tosser * toss)
    }

    /// The candidate with the best [`Solver::expect`]ed score (the first among equals), with a
    /// fresh budget of `limit` positions; `None` once it is spent.
    pub fn respond(
        &mut self,
        g: &Durak,
        cands: &[Action],
        tosser: f64,
        limit: u32,
    ) -> Option<Action> {
        let values = self.values(g, cands, tosser, limit)?;
        let mut best: Option<(f64, Action)> = None;
        for (&a, v) in cands.iter().zip(values) {
            if best.is_none_or(|(b, _)| v > b) {
                best = Some((v, a));
            }
        }
        best.map(|(_, a)| a)
    }

    /// The [`Solver::expect`]ed score after each of `cands` in `g` (an illegal one scores 0),
    /// with a fresh budget of `limit` positions; `None` once it is spent. Positions already
    /// valued are forgotten first: `g` may be another world of the same decision.
    pub fn values(
        &mut self,
        g: &Durak,
        cands: &[Action],
        tosser: f64,
        limit: u32,
    ) -> Option<Vec<f64>> {
        self.limit = self.nodes.saturating_add(limit);
        self.expected.clear();
        let mut out = Vec::with_capacity(cands.len());
        for &a in cands {
            let mut child = g.clone();
            out.push(match child.apply(a) {
                Ok(()) => self.expect(&child, tosser)?,
                Err(_) => 0.0,
            });
        }
        Some(out)
    }
}

/// [`crate::candidates`] in a game state: every legal action, but a defender's beats only of
/// the first open slot (the tree search's moves below its root, and this search's).
pub fn game_candidates(g: &Durak, legal: &[Action], out: &mut Vec<Action>) {
    let first_open = g.table_pairs().iter().position(|p| p.defence.is_none());
    keep_first_open(first_open, legal, out);
}

/// `legal` into `out` without the beats of any slot but `first_open` (all of `legal` if
/// nothing is left).
pub fn keep_first_open(first_open: Option<usize>, legal: &[Action], out: &mut Vec<Action>) {
    out.clear();
    let first_open = first_open.map(|i| i as u8);
    for &a in legal {
        match a {
            Action::Beat { slot, .. } if Some(slot) != first_open => {}
            _ => out.push(a),
        }
    }
    if out.is_empty() {
        out.extend_from_slice(legal);
    }
}

/// Whether the observation leaves nothing hidden: no face-down talon card and at most one
/// other hand with cards not known (which then holds exactly the unseen cards), so the
/// determinized state is the real one.
pub fn perfect(obs: &Observation) -> bool {
    let face_down = obs.talon - u8::from(obs.trump_holder.is_none() && obs.talon > 0);
    let hidden_hands = (0..obs.players as usize)
        .filter(|&s| s != obs.seat as usize)
        .filter(|&s| {
            let known = obs.known.get(s).map_or(0, |k| k.len());
            obs.hand_sizes.get(s).map_or(0, |&n| n as usize) > known
        })
        .count();
    face_down == 0 && hidden_hands <= 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use croupier_sdk::durak::Options;
    use croupier_sdk::{GameRng, Rules};
    use durak_common::{CHEAPEST, Style, base_decide_obs};

    /// Plain minimax over the same candidates: no window, no table; `None` past `left` nodes.
    fn minimax(g: &Durak, me: Seat, left: &mut u32) -> Option<u8> {
        *left = left.checked_sub(1)?;
        if let Some(o) = g.outcome() {
            return Some(match o.results[me as usize] {
                SeatResult::Win => WIN,
                SeatResult::Loss => 0,
                _ => DRAW,
            });
        }
        let actor = g.to_act().unwrap();
        let (mut legal, mut moves) = (Vec::new(), Vec::new());
        Solver::moves(g, &mut legal, &mut moves);
        let mut values = Vec::new();
        for &a in &moves {
            let mut c = g.clone();
            c.apply(a).unwrap();
            values.push(minimax(&c, me, left)?);
        }
        if actor == me {
            values.into_iter().max()
        } else {
            values.into_iter().min()
        }
    }

    /// The first position of a real deal (the base behaviour for both seats) with the talon
    /// empty and at most `max_hand` cards in each hand, if the game gets there.
    fn end_game(seed: u64, max_hand: u8) -> Option<Durak> {
        let opts = Options::preset("classic").unwrap();
        let mut g = Durak::new(&opts, seed).unwrap();
        let mut rng = GameRng::new(seed);
        let mut legal = Vec::new();
        while let Some(p) = g.to_act() {
            let obs = g.observe(p);
            if obs.hand_sizes.iter().all(|n| *n <= max_hand) && obs.talon == 0 {
                return Some(g);
            }
            g.legal_actions(&mut legal);
            let a = base_decide_obs(Style::from_code(CHEAPEST), &obs, &legal, &mut rng);
            g.apply(a).unwrap();
        }
        None
    }

    /// End games of real deals (talon empty, at most four cards a hand, small enough for plain
    /// minimax): the search with its window and table gives plain minimax's value, and
    /// `winning` finds a win exactly when there is one, with an action that wins.
    #[test]
    fn the_search_agrees_with_plain_minimax() {
        let (mut checked, mut wins) = (0, 0);
        for seed in 0..200 {
            let Some(g) = end_game(seed, 4) else { continue };
            let Some(p) = g.to_act() else { continue };
            let Some(want) = minimax(&g, p, &mut 30_000) else {
                continue;
            };
            // One solver, one table: null windows first, then the whole window, so that
            // bounds stored under one window are read under the other.
            let mut s = Solver::new(p, false, u32::MAX);
            let (mut l, mut cands) = (Vec::new(), Vec::new());
            Solver::moves(&g, &mut l, &mut cands);
            let found = s.winning(&g, &cands).unwrap();
            assert_eq!(found.is_some(), want == WIN, "seed {seed}");
            assert_eq!(s.search(&g, 0, WIN), Some(want), "seed {seed}");
            for &a in &cands {
                let mut c = g.clone();
                c.apply(a).unwrap();
                let v = minimax(&c, p, &mut { u32::MAX });
                let v = v.unwrap();
                // A fail-low answer is an upper bound, a fail-high one a lower bound.
                let low = s.search(&c, 0, DRAW).unwrap();
                assert!(
                    if v == 0 { low == 0 } else { low >= DRAW },
                    "seed {seed}: {a}"
                );
                assert_eq!(s.search(&c, 0, WIN), Some(v), "seed {seed}: {a}");
            }
            if let Some(a) = found {
                let mut c = g.clone();
                c.apply(a).unwrap();
                assert_eq!(
                    minimax(&c, p, &mut { u32::MAX }),
                    Some(WIN),
                    "seed {seed}: {a}"
                );
                wins += 1;
            }
            checked += 1;
        }
        assert!(
            checked >= 20 && wins >= 5,
            "{checked} end games, {wins} wins"
        );
    }

    /// The expected score against the base behaviour by plain recursion, the opponent's lead
    /// and defence asked of the agent itself (`base_decide_obs` on its observation).
    fn brute(g: &Durak, me: Seat, tosser: f64) -> f64 {
        if let Some(o) = g.outcome() {
            return match o.results[me as usize] {
                SeatResult::Win => 1.0,
                SeatResult::Loss => 0.0,
                _ => 0.5,
            };
        }
        let actor = g.to_act().unwrap();
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        let after = |a: Action| {
            let mut c = g.clone();
            c.apply(a).unwrap();
            brute(&c, me, tosser)
        };
        if actor == me {
            let (mut l, mut moves) = (Vec::new(), Vec::new());
            Solver::moves(g, &mut l, &mut moves);
            return moves.iter().map(|&a| after(a)).fold(0.0, f64::max);
        }
        if decision(&legal) != Decision::ThrowIn {
            let obs = g.observe(actor);
            let a = base_decide_obs(
                Style::from_code(CHEAPEST),
                &obs,
                &legal,
                &mut GameRng::new(1),
            );
            return after(a);
        }
        let trump = g.trump_card().suit();
        let mean = |plain_only: bool| {
            let set: Vec<Action> = legal
                .iter()
                .copied()
                .filter(|a| match a {
                    Action::ThrowIn(c) => !plain_only || !is_trump(*c, trump),
                    _ => false,
                })
                .collect();
            if set.is_empty() {
                after(Action::Pass)
            } else {
                set.iter().map(|&a| after(a)).sum::<f64>() / set.len() as f64
            }
        };
        (1.0 - tosser) * mean(true) + tosser * mean(false)
    }

    /// End games of real deals (talon empty, at most three cards a hand): the expected score
    /// against the modelled opponent, with its table and budget, is that of plain recursion,
    /// for `durak/cheapest`, `durak/trump-tosser` and an even mixture of the two.
    #[test]
    fn the_expected_score_agrees_with_plain_recursion() {
        let mut checked = 0;
        for seed in 0..120 {
            let Some(g) = end_game(seed, 3) else { continue };
            let Some(p) = g.to_act() else { continue };
            for tosser in [0.0, 0.5, 1.0] {
                let want = brute(&g, p, tosser);
                let mut s = Solver::new(p, false, 0);
                let (mut l, mut cands) = (Vec::new(), Vec::new());
                Solver::moves(&g, &mut l, &mut cands);
                let values = s.values(&g, &cands, tosser, u32::MAX).unwrap();
                let best = values.iter().copied().fold(0.0, f64::max);
                assert!((best - want).abs() < 1e-9, "seed {seed}: {best} vs {want}");
            }
            checked += 1;
        }
        assert!(checked >= 50, "{checked} end games");
    }

    /// Regression: the searches follow no line deeper than [`MAX_DEPTH`] (deeper, the
    /// sandbox's stack overflowed in `perevodnoy`). A whole game from the deal, with nodes
    /// to spare, is deeper: the search reaches the bound and gives up there.
    #[test]
    fn the_search_gives_up_past_its_depth() {
        for preset in ["perevodnoy", "classic"] {
            let opts = Options::preset(preset).unwrap();
            let g = Durak::new(&opts, 3).unwrap();
            let mut s = Solver::new(0, false, 1_000_000);
            assert_eq!(s.search(&g, 0, WIN), None, "{preset}");
            assert_eq!(s.deepest, MAX_DEPTH, "{preset}");
            let mut e = Solver::new(0, false, 1_000_000);
            assert_eq!(e.expect(&g, 0.5), None, "{preset}");
            assert_eq!(e.deepest, MAX_DEPTH, "{preset}");
        }
    }

    /// The budget holds: a search that needs more positions than allowed gives up.
    #[test]
    fn the_search_gives_up_past_its_budget() {
        let opts = Options::preset("classic").unwrap();
        let g = Durak::new(&opts, 3).unwrap();
        let mut s = Solver::new(0, false, 50);
        assert_eq!(s.search(&g, 0, WIN), None);
        assert!(s.nodes <= 51);
    }
}
