//! Determinized ("perfect-information") Monte Carlo search over any [`Game`].
//!
//! The hidden cards of an observation are dealt at random by [`Game::determinize`] (one
//! "world"); in every world each candidate action is applied and the game is played out with
//! a cheap policy that sees the whole simulated state; the candidate with the best mean score
//! is played. Every candidate is played out in the same worlds, each from the same random
//! stream (common random numbers), so their comparison is not drowned by the luck of the deal.
//!
//! ```ignore
//! use croupier_sdk::search::{self, Search};
//! let best = search::flat_monte_carlo::<Durak>(
//!     &self.opts, obs, legal, obs.seat,
//!     &Search { playouts: 400, ..Search::default() },
//!     ctx.rng(),
//!     |game, legal, rng| my_fast_policy(game, legal, rng),
//!     search::outcome_value,
//! );
//! ```
//!
//! Cost: `playouts` playouts per decision in total (at least one per candidate), each one
//! [`Game::determinize`] per world plus the policy and [`Game::apply`] per simulated step.
//! Size `playouts` to the fuel budget ([`crate::Ctx::budget`]), or better, let
//! [`search_stats_until`] stop when the [`Work`] done, priced by the agent's own measured
//! costs, reaches its plan: a fixed count must be sized for the costliest position and leaves
//! the budget of the others unused (`durak/ismcts` and `uno/search` do this).

use crate::{Game, GameRng, Seat};
use croupier_rules::SeatResult;

/// Search parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Search {
    /// Playouts per decision, shared by the candidates: `max(1, playouts / candidates)`
    /// worlds, every candidate played out once per world.
    pub playouts: u32,
    /// Most simulated actions in one playout (after the candidate) before `evaluate` scores
    /// the unfinished state.
    pub max_steps: u32,
    /// Whether the simulated games record the engine's events. A `policy` or `evaluate` that
    /// reads `events()` needs them (on by default); without them a playout is cheaper
    /// ([`Game::record_no_events`]: `durak/ismcts` got 1.08× the playouts sandboxed).
    pub events: bool,
}

impl Default for Search {
    fn default() -> Search {
        Search {
            playouts: 200,
            max_steps: 10_000,
            events: true,
        }
    }
}

/// What the search found for one candidate action.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CandidateStats<A> {
    /// The candidate action.
    pub action: A,
    /// Playouts that scored this candidate.
    pub playouts: u32,
    /// Sum of their scores.
    pub total: f64,
}

impl<A> CandidateStats<A> {
    /// Mean score (0 before any playout).
    pub fn mean(&self) -> f64 {
        if self.playouts == 0 {
            0.0
        } else {
            self.total / self.playouts as f64
        }
    }
}

/// Score of a finished game for `seat`: win 1, draw 0.5, loss 0 (a team game's results are
/// already per seat); 0.5 for a game that is not over (use your own `evaluate` to do better).
pub fn outcome_value<G: Game>(game: &G, seat: Seat) -> f64 {
    match game.outcome().and_then(|o| o.results.get(seat as usize)) {
        Some(SeatResult::Win) => 1.0,
        Some(SeatResult::Loss) => 0.0,
        _ => 0.5,
    }
}

/// The work a search has done so far, counted as it goes. An agent cannot read the fuel it
/// has used, so an anytime search converts this into fuel by costs it measured itself and
/// stops in time ([`search_stats_until`], [`crate::tree::search_until`]): every decision then
/// spends about what it planned, where a fixed number of playouts must plan for the costliest
/// position and leave most of the budget unused in the others.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Worlds dealt.
    pub worlds: u64,
    /// Playouts begun (the flat search plays one per candidate per world; the tree search
    /// one per iteration).
    pub playouts: u64,
    /// Simulated moves applied (in the tree and in the playouts).
    pub steps: u64,
    /// Legal actions listed at those moves (a policy's work grows with the list).
    pub legal: u64,
}

impl Work {
    /// The stop rule of an agent that prices its work: whether one more world, as costly as
    /// the average of the `self.worlds` so far (which cost `spent` fuel by the agent's
    /// model), would pass `plan`.
    pub fn one_more_passes(&self, spent: u64, plan: u64) -> bool {
        let next = spent / self.worlds.max(1);
        spent.saturating_add(next) > plan
    }
}

/// Plays `game` on with `policy` for every seat until it is over or `max_steps` actions were
/// played. An illegal choice of the policy is replaced by the first legal action. Returns the
/// moves applied and the legal actions listed ([`Work::steps`], [`Work::legal`]).
pub fn playout<G: Game>(
    game: &mut G,
    max_steps: u32,
    rng: &mut GameRng,
    policy: &mut impl FnMut(&G, &[G::Action], &mut GameRng) -> G::Action,
    buf: &mut Vec<G::Action>,
) -> Work {
    let mut work = Work::default();
    for _ in 0..max_steps {
        if game.to_act().is_none() {
            break;
        }
        game.legal_actions(buf);
        let Some(&first) = buf.first() else { break };
        work.steps += 1;
        work.legal += buf.len() as u64;
        let a = policy(game, buf, rng);
        if game.apply(a).is_err() && game.apply(first).is_err() {
            break;
        }
    }
    work
}

/// Runs the search and returns the statistics of every candidate (in `legal` order).
///
/// * `opts`: the game's options (from [`crate::GameInfo`]); `obs`: the decision's observation;
///   `legal`: the candidates; `seat`: whose score `evaluate` gives (the own seat).
/// * `policy(game, legal, rng)`: the playout policy for whoever acts in `game`.
/// * `evaluate(game, seat)`: score of the state where the playout stopped (finished or
///   not), higher is better, e.g. [`outcome_value`].
#[allow(clippy::too_many_arguments)]
pub fn search_stats<G: Game>(
    opts: &G::Options,
    obs: &G::Observation,
    legal: &[G::Action],
    seat: Seat,
    params: &Search,
    rng: &mut GameRng,
    policy: impl FnMut(&G, &[G::Action], &mut GameRng) -> G::Action,
    evaluate: impl FnMut(&G, Seat) -> f64,
) -> Vec<CandidateStats<G::Action>> {
    let worlds = |rng: &mut GameRng| G::determinize(opts, obs, rng);
    search_stats_in(worlds, legal, seat, params, rng, policy, evaluate)
}

/// As [`search_stats`], with the worlds drawn by `world(rng)` instead of
/// [`Game::determinize`]: for an agent that deals them its own way (`uno/search` deals the
/// opponent's hand from what it inferred of it).
pub fn search_stats_in<G: Game>(
    world: impl FnMut(&mut GameRng) -> G,
    legal: &[G::Action],
    seat: Seat,
    params: &Search,
    rng: &mut GameRng,
    policy: impl FnMut(&G, &[G::Action], &mut GameRng) -> G::Action,
    evaluate: impl FnMut(&G, Seat) -> f64,
) -> Vec<CandidateStats<G::Action>> {
    search_stats_until(world, legal, seat, params, rng, policy, evaluate, |_| false)
}

/// As [`search_stats_in`], stopping early when `stop(work so far)` says so: asked before
/// every world but the first, so every candidate keeps the same number of playouts, in the
/// same worlds. `params.playouts` still caps the playouts.
#[allow(clippy::too_many_arguments)]
pub fn search_stats_until<G: Game>(
    mut world: impl FnMut(&mut GameRng) -> G,
    legal: &[G::Action],
    seat: Seat,
    params: &Search,
    rng: &mut GameRng,
    mut policy: impl FnMut(&G, &[G::Action], &mut GameRng) -> G::Action,
    mut evaluate: impl FnMut(&G, Seat) -> f64,
    stop: impl FnMut(&Work) -> bool,
) -> Vec<CandidateStats<G::Action>> {
    let mut buf = Vec::new();
    let world = |rng: &mut GameRng| {
        let mut w = world(rng);
        if !params.events {
            w.record_no_events();
        }
        w
    };
    let play = |world: &G, action: G::Action, stream: u64| {
        let mut prng = GameRng::new(stream);
        let mut g = world.clone();
        // Cannot fail when the world keeps the observation (the legal actions depend only
        // on what the observer sees); skipped rather than trusted otherwise.
        g.apply(action).ok()?;
        let mut done = playout(&mut g, params.max_steps, &mut prng, &mut policy, &mut buf);
        done.steps += 1;
        Some((evaluate(&g, seat), done))
    };
    search_stats_by(world, legal, params.playouts, rng, play, stop)
}

/// The flat search's loop, with the worlds and the playouts the caller's own: `world(rng)`
/// deals a world of any type, and `play(world, candidate, stream)` plays the candidate out
/// in it from the random stream `stream` (a seed, the same for every candidate of a world:
/// [`GameRng::new`] or a cheaper generator of the caller's) and returns its
/// score and the moves and legal actions it cost ([`Work::steps`], [`Work::legal`]), or
/// `None` to skip it. For an agent with a simulator of its own, cheaper than the rules
/// engine (`uno/search`). At most `playouts` playouts, shared by the candidates; `stop` as
/// in [`search_stats_until`].
pub fn search_stats_by<W, A: Copy>(
    mut world: impl FnMut(&mut GameRng) -> W,
    legal: &[A],
    playouts: u32,
    rng: &mut GameRng,
    mut play: impl FnMut(&W, A, u64) -> Option<(f64, Work)>,
    mut stop: impl FnMut(&Work) -> bool,
) -> Vec<CandidateStats<A>> {
    let mut stats: Vec<CandidateStats<A>> = legal
        .iter()
        .map(|&action| CandidateStats {
            action,
            playouts: 0,
            total: 0.0,
        })
        .collect();
    if legal.len() < 2 {
        return stats;
    }
    let worlds = (playouts as usize / legal.len()).max(1);
    let mut work = Work::default();
    for w in 0..worlds {
        if w > 0 && stop(&work) {
            break;
        }
        let world = world(rng);
        work.worlds += 1;
        let stream = rng.next_u64();
        for s in stats.iter_mut() {
            work.playouts += 1;
            let Some((score, done)) = play(&world, s.action, stream) else {
                continue;
            };
            work.steps += done.steps;
            work.legal += done.legal;
            s.playouts += 1;
            s.total += score;
        }
    }
    stats
}

/// Flat determinized Monte Carlo: the candidate of `legal` with the best mean playout score
/// (see [`search_stats`] for the arguments). Ties go to the earlier candidate, so order
/// `legal` by preference if it matters. `None` only for an empty `legal`.
#[allow(clippy::too_many_arguments)]
pub fn flat_monte_carlo<G: Game>(
    opts: &G::Options,
    obs: &G::Observation,
    legal: &[G::Action],
    seat: Seat,
    params: &Search,
    rng: &mut GameRng,
    policy: impl FnMut(&G, &[G::Action], &mut GameRng) -> G::Action,
    evaluate: impl FnMut(&G, Seat) -> f64,
) -> Option<G::Action> {
    let stats = search_stats(opts, obs, legal, seat, params, rng, policy, evaluate);
    best(&stats)
}

/// The candidate with the highest mean (the first among equals).
pub fn best<A: Copy>(stats: &[CandidateStats<A>]) -> Option<A> {
    let mut best: Option<&CandidateStats<A>> = None;
    for s in stats {
        if best.is_none_or(|b| s.mean() > b.mean()) {
            best = Some(s);
        }
    }
    best.map(|s| s.action)
}

#[cfg(test)]
mod tests {
    use super::*;
    use croupier_rules::durak::{Action, Durak, Observation, Options};
    use croupier_rules::{Card, CardSet};

    fn first_legal(_: &Durak, legal: &[Action], _: &mut GameRng) -> Action {
        legal[0]
    }

    fn random_legal(_: &Durak, legal: &[Action], rng: &mut GameRng) -> Action {
        legal[rng.below(legal.len())]
    }

    /// A state two decisions into a classic 2-player game.
    fn some_state(seed: u64) -> Durak {
        let mut g = Durak::new(&Options::classic(2), seed).unwrap();
        let mut legal = Vec::new();
        for _ in 0..3 {
            g.legal_actions(&mut legal);
            g.apply(legal[0]).unwrap();
        }
        g
    }

    /// A state of `some_state(seed)` with its player to act, what it sees and may do.
    fn position(seed: u64) -> (Durak, Seat, Observation, Vec<Action>) {
        let g = some_state(seed);
        let seat = g.to_act().unwrap();
        let obs = g.observe(seat);
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        (g, seat, obs, legal)
    }

    #[test]
    fn playouts_finish_games_and_count() {
        let g = some_state(7);
        let seat = g.to_act().unwrap();
        let obs = g.observe(seat);
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        let params = Search {
            playouts: 40,
            max_steps: 10_000,
            ..Search::default()
        };
        let mut rng = GameRng::new(3);
        let stats = search_stats::<Durak>(
            g.options(),
            &obs,
            &legal,
            seat,
            &params,
            &mut rng,
            random_legal,
            outcome_value,
        );
        assert_eq!(stats.len(), legal.len());
        let worlds = (40 / legal.len()).max(1) as u32;
        for s in &stats {
            assert_eq!(s.playouts, worlds);
            assert!((0.0..=s.playouts as f64).contains(&s.total));
        }
        assert!(legal.contains(&best(&stats).unwrap()));
    }

    /// Without events the playouts are the same games: the same statistics for a policy and a
    /// score that do not read them, and the playouts' states really record nothing.
    #[test]
    fn search_without_events_plays_the_same_playouts() {
        for seed in [7, 11, 19] {
            let (g, seat, obs, legal) = position(seed);
            let mut logged = [0usize; 2];
            let mut run = |events: bool| {
                let mut rng = GameRng::new(5);
                let params = Search {
                    playouts: 60,
                    events,
                    ..Search::default()
                };
                search_stats::<Durak>(
                    g.options(),
                    &obs,
                    &legal,
                    seat,
                    &params,
                    &mut rng,
                    random_legal,
                    |end: &Durak, s| {
                        logged[usize::from(events)] += end.events().len();
                        outcome_value(end, s)
                    },
                )
            };
            assert_eq!(run(true), run(false), "seed {seed}");
            assert!(logged[1] > 0 && logged[0] == 0, "{logged:?}");
        }
    }

    /// `stop` ends the search between worlds, so every candidate keeps the same playouts, and
    /// the work it is shown is what was done: the flat search until the work passes a budget
    /// plays the same first worlds as the one with that many worlds fixed.
    /// The caller's own worlds and playouts: every candidate of a world is played from the
    /// same stream, a world's streams differ, a skipped candidate counts as begun but not
    /// scored, and the work is what the playouts report.
    #[test]
    fn search_by_plays_each_world_from_one_stream() {
        let legal = [0u8, 1, 2];
        let mut streams: Vec<(u64, u8, u64)> = Vec::new();
        let stats = search_stats_by(
            |rng: &mut GameRng| rng.next_u64(),
            &legal,
            30,
            &mut GameRng::new(3),
            |world: &u64, a: u8, stream: u64| {
                streams.push((*world, a, stream));
                // Candidate 2 cannot be played in odd worlds.
                if a == 2 && world % 2 == 1 {
                    return None;
                }
                let work = Work {
                    steps: 2,
                    legal: 5,
                    ..Work::default()
                };
                Some((f64::from(a), work))
            },
            |_| false,
        );
        assert_eq!(streams.len(), 30);
        for w in streams.chunks(3) {
            assert!(w.iter().all(|x| x.0 == w[0].0 && x.2 == w[0].2), "{w:?}");
            assert_eq!(w.iter().map(|x| x.1).collect::<Vec<_>>(), legal);
        }
        assert_ne!(streams[0].2, streams[3].2, "a new stream per world");
        let odd = streams.chunks(3).filter(|w| w[0].0 % 2 == 1).count() as u32;
        assert!(odd > 0 && odd < 10, "{odd} odd worlds");
        assert_eq!(stats[0].playouts, 10);
        assert_eq!(stats[2].playouts, 10 - odd);
        assert_eq!((stats[1].mean(), stats[2].mean()), (1.0, 2.0));
    }

    #[test]
    fn search_stops_between_worlds_by_the_work_done() {
        for seed in [7, 11, 19] {
            let (g, seat, obs, legal) = position(seed);
            let deal = |rng: &mut GameRng| Durak::determinize(g.options(), &obs, rng);
            let params = Search {
                playouts: 1000,
                ..Search::default()
            };
            let mut seen = Vec::new();
            let stats = search_stats_until::<Durak>(
                deal,
                &legal,
                seat,
                &params,
                &mut GameRng::new(5),
                random_legal,
                outcome_value,
                |w| {
                    seen.push(*w);
                    w.steps >= 200
                },
            );
            let last = *seen.last().unwrap();
            assert!(last.steps >= 200, "seed {seed}: {last:?}");
            // Stopped as soon as the work passed the budget, not later.
            assert!(seen[..seen.len() - 1].iter().all(|w| w.steps < 200));
            let worlds = last.worlds as u32;
            assert_eq!(
                seen.len() as u32,
                worlds,
                "asked before every world but the first"
            );
            assert_eq!(last.playouts, last.worlds * legal.len() as u64);
            assert!(last.steps >= last.playouts && last.legal >= last.steps);
            for s in &stats {
                assert_eq!(s.playouts, worlds, "seed {seed}");
            }
            let fixed = Search {
                playouts: worlds * legal.len() as u32,
                ..params
            };
            let same = search_stats_in::<Durak>(
                deal,
                &legal,
                seat,
                &fixed,
                &mut GameRng::new(5),
                random_legal,
                outcome_value,
            );
            assert_eq!(stats, same, "seed {seed}");
        }
    }

    #[test]
    fn search_is_deterministic_for_a_seed() {
        let g = some_state(11);
        let seat = g.to_act().unwrap();
        let obs = g.observe(seat);
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        let run = || {
            let mut rng = GameRng::new(5);
            search_stats::<Durak>(
                g.options(),
                &obs,
                &legal,
                seat,
                &Search::default(),
                &mut rng,
                random_legal,
                outcome_value,
            )
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn a_forced_move_costs_nothing() {
        let g = some_state(1);
        let seat = g.to_act().unwrap();
        let obs = g.observe(seat);
        let only = [Action::Take];
        let mut rng = GameRng::new(1);
        let mut calls = 0;
        let a = flat_monte_carlo::<Durak>(
            g.options(),
            &obs,
            &only,
            seat,
            &Search::default(),
            &mut rng,
            |g, l, r| {
                calls += 1;
                first_legal(g, l, r)
            },
            outcome_value,
        );
        assert_eq!(a, Some(Action::Take));
        assert_eq!(calls, 0);
        assert_eq!(
            flat_monte_carlo::<Durak>(
                g.options(),
                &obs,
                &[],
                seat,
                &Search::default(),
                &mut rng,
                first_legal,
                outcome_value
            ),
            None
        );
    }

    /// An end game with open cards: P0 attacks with {AS} against P1 holding {6C}; the talon is
    /// empty. Leading the ace (the only card) wins; the point is that search sees the
    /// finished game and scores it 1 for P0.
    #[test]
    fn search_sees_a_won_end_game() {
        use croupier_rules::durak::Setup;
        let card = |s: &str| s.parse::<Card>().unwrap();
        // P0: 7S KS (trumps: spades); P1: 6C. P0 leads; whatever P0 leads, P1 cannot beat a
        // trump and must take; P0 then goes out with the other card next bout... unless P0
        // leads 7S and P1... P1 only has 6C, so every line wins for P0.
        let mut setup = Setup::new(
            vec![
                CardSet::from_cards([card("7S"), card("KS")]),
                CardSet::from_cards([card("6C")]),
            ],
            vec![],
            card("AS"),
        );
        setup.attacker = Some(0);
        let g = Durak::from_setup(&Options::classic(2), setup).unwrap();
        let obs = g.observe(0);
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        let mut rng = GameRng::new(2);
        let stats = search_stats::<Durak>(
            g.options(),
            &obs,
            &legal,
            0,
            &Search {
                playouts: 10,
                max_steps: 100,
                ..Search::default()
            },
            &mut rng,
            random_legal,
            outcome_value,
        );
        for s in &stats {
            assert!(s.playouts > 0);
            assert_eq!(s.mean(), 1.0, "{:?}", s.action);
        }
    }

    /// Search beats a random player in a classic 2-player game over a few deals.
    #[test]
    fn search_beats_random_play() {
        let opts = Options::classic(2);
        let mut wins = 0;
        let games = 12;
        let mut legal = Vec::new();
        for seed in 0..games {
            let mut g = Durak::new(&opts, seed).unwrap();
            let mut rng = GameRng::new(seed + 100);
            let me = (seed % 2) as u8;
            while let Some(p) = g.to_act() {
                g.legal_actions(&mut legal);
                let a = if p == me {
                    let obs = g.observe(p);
                    flat_monte_carlo::<Durak>(
                        &opts,
                        &obs,
                        &legal,
                        me,
                        &Search {
                            playouts: 60,
                            max_steps: 10_000,
                            ..Search::default()
                        },
                        &mut rng,
                        random_legal,
                        outcome_value,
                    )
                    .unwrap()
                } else {
                    legal[rng.below(legal.len())]
                };
                g.apply(a).unwrap();
            }
            if outcome_value(&g, me) == 1.0 {
                wins += 1;
            }
        }
        assert!(wins >= 9, "search won only {wins} of {games}");
    }
}
