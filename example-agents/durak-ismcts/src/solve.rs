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
use durak_common::{action_card, cheap_key};
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
}

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
        }
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
        let first_open = g
            .table_pairs()
            .iter()
            .position(|p| p.defence.is_none())
            .map(|i| i as u8);
        out.clear();
        for &a in legal.iter() {
            match a {
                Action::Beat { slot, .. } if Some(slot) != first_open => {}
                _ => out.push(a),
            }
        }
        if out.is_empty() {
            out.extend_from_slice(legal);
        }
        let trump = g.trump_card().suit();
        out.sort_by_key(|a| match action_card(*a) {
            Some(c) => (false, cheap_key(c, trump)),
            None => (true, (false, 0, 0)),
        });
    }

    /// The value of `g` for the searching side within `(alpha, beta)`, or `None` once the
    /// node budget is spent.
    pub fn search(&mut self, g: &Durak, mut alpha: u8, mut beta: u8) -> Option<u8> {
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

    /// End games of real deals (talon empty, at most four cards a hand, small enough for plain
    /// minimax): the search with its window and table gives plain minimax's value, and
    /// `winning` finds a win exactly when there is one, with an action that wins.
    #[test]
    fn the_search_agrees_with_plain_minimax() {
        let opts = Options::preset("classic").unwrap();
        let (mut checked, mut wins) = (0, 0);
        for seed in 0..200 {
            let mut g = Durak::new(&opts, seed).unwrap();
            let mut rng = GameRng::new(seed);
            let mut legal = Vec::new();
            while let Some(p) = g.to_act() {
                let obs = g.observe(p);
                let small = obs.hand_sizes.iter().all(|n| *n <= 4) && obs.talon == 0;
                if let Some(want) = small.then(|| minimax(&g, p, &mut 30_000)).flatten() {
                    // One solver, one table: null windows first, then the whole window,
                    // so that bounds stored under one window are read under the other.
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
                    break;
                }
                if small {
                    break;
                }
                g.legal_actions(&mut legal);
                let a = base_decide_obs(Style::from_code(CHEAPEST), &obs, &legal, &mut rng);
                g.apply(a).unwrap();
            }
        }
        assert!(
            checked >= 20 && wins >= 5,
            "{checked} end games, {wins} wins"
        );
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
