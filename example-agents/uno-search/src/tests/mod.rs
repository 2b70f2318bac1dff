//! `uno/search`'s tests: legal play, the opponent model against greedy's true hand, wins
//! against greedy, and the ignored tuning harnesses and diagnostics (`versus`, `ceiling`,
//! `eval_data`, `hand_bias`, `exact_posterior`).

use super::*;
use croupier_sdk::rules::SeatResult;
use croupier_sdk::search::search_stats_in;
use croupier_sdk::{Budget, Level, Native, Rules, Services};

/// The host's default budget for a decision, for the agents these tests call directly.
const BUDGET: Budget = Budget {
    fuel: DEFAULT_FUEL,
    millis: 1000,
    bank_millis: None,
};

struct Quiet(GameRng);
impl Services for Quiet {
    fn random(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn log(&mut self, _: Level, _: &str) {}
}

/// Seat 0 searches, the others play greedy; returns seat 0's wins.
fn play(preset: &str, players: usize, games: u64, iters: u32) -> u32 {
    play_args(
        preset,
        players,
        0..games,
        &format!("iters={iters}"),
        Opp::Greedy,
    )
}

/// Seat 0 searches with `args`, the others play `opp`, over deals (seeds) `seeds`.
fn play_args(
    preset: &str,
    players: usize,
    seeds: std::ops::Range<u64>,
    args: &str,
    opp: Opp,
) -> u32 {
    play_args_watched(preset, players, seeds, args, opp, &mut |_| {})
}

/// [`play_args`], with `play_with`'s `watch`.
fn play_args_watched(
    preset: &str,
    players: usize,
    seeds: std::ops::Range<u64>,
    args: &str,
    opp: Opp,
    watch: &mut dyn FnMut(&Uno),
) -> u32 {
    play_with(preset, players, seeds, opp, watch, |info| {
        let mut agent = Native::<Uno, Search>::new(&GameInfo {
            args: args.to_string(),
            ..info.clone()
        });
        let mut services = Quiet(GameRng::new(info.seed));
        move |_: &Uno, obs: &Observation, legal: &[Action], budget: Budget| {
            agent.decide(obs, legal, budget, &mut services)
        }
    })
}

/// The house opponents: `uno/greedy`, and `uno/anneal` (its rule, copied here).
#[derive(Copy, Clone, Debug, PartialEq)]
enum Opp {
    Greedy,
    Anneal,
    /// A uniformly random legal action: nothing like the model.
    Random,
}

struct AnnealStyle {
    temperature: f64,
}
impl Style for AnnealStyle {
    fn pick(&mut self, _: &Observation, cards: &[UnoCard], ctx: &mut Ctx) -> Option<UnoCard> {
        let best = greedy_pick(cards)?;
        let others: Vec<UnoCard> = cards.iter().copied().filter(|c| *c != best).collect();
        if others.is_empty() {
            return Some(best);
        }
        let proposal = others[ctx.rng().below(others.len())];
        let delta = uno_common::greedy_score(best) - uno_common::greedy_score(proposal);
        let accept = delta <= 0.0
            || (self.temperature > 0.0 && ctx.rng().unit() < (-delta / self.temperature).exp());
        Some(if accept { proposal } else { best })
    }
    fn color(&mut self, obs: &Observation, played: Option<UnoCard>, _: &mut Ctx) -> Color {
        most_held_color(obs, played)
    }
}

/// Seat 0 decides with what `seat0` makes for each deal (it sees the true state) when it
/// has a choice (the host plays forced moves itself), the others play `opp`; returns
/// seat 0's wins over deals (seeds) `seeds`. `watch` sees every position before its move,
/// and the finished game.
fn play_with<D>(
    preset: &str,
    players: usize,
    seeds: std::ops::Range<u64>,
    opp: Opp,
    watch: &mut dyn FnMut(&Uno),
    mut seat0: impl FnMut(&GameInfo<Uno>) -> D,
) -> u32
where
    D: FnMut(&Uno, &Observation, &[Action], Budget) -> Action,
{
    // `preset:N` plays to N points instead of the preset's target (short official matches).
    let (name, target) = match preset.split_once(':') {
        Some((name, t)) => (name, t.parse().ok()),
        None => (preset, None),
    };
    let mut opts = Options::preset(name).unwrap();
    if let Some(t) = target {
        opts.target_score = t;
    }
    opts.set_players(players).unwrap();
    let mut wins = 0;
    for seed in seeds {
        let mut g = Uno::new(&opts, seed).unwrap();
        let info = GameInfo::<Uno> {
            seat: 0,
            players: players as u8,
            options: opts.clone(),
            seed,
            args: String::new(),
        };
        let mut decide = seat0(&info);
        let mut services = Quiet(GameRng::new(seed));
        let mut rng = GameRng::new(seed ^ 77);
        let mut anneal: Vec<AnnealStyle> = (0..players)
            .map(|_| AnnealStyle { temperature: 10.0 })
            .collect();
        let mut legal = Vec::new();
        let mut steps = 0;
        while let Some(s) = g.to_act() {
            watch(&g);
            g.legal_actions(&mut legal);
            let obs = g.observe(s);
            let a = if legal.len() == 1 {
                legal[0]
            } else if s == 0 {
                decide(&g, &obs, &legal, BUDGET)
            } else {
                let mut ctx = Ctx::new(BUDGET, &mut rng, &mut services);
                match opp {
                    Opp::Random => legal[ctx.rng().below(legal.len())],
                    Opp::Greedy => uno_common::decide(&mut GreedyStyle, &obs, &legal, &mut ctx),
                    Opp::Anneal => {
                        let style = &mut anneal[s as usize];
                        let a = uno_common::decide(style, &obs, &legal, &mut ctx);
                        if matches!(
                            obs.decision,
                            croupier_sdk::uno::Decision::Turn
                                | croupier_sdk::uno::Decision::PenaltyTurn
                        ) {
                            style.temperature *= 0.9;
                        }
                        a
                    }
                }
            };
            assert!(legal.contains(&a), "{a} not legal in {preset}");
            g.apply(a).unwrap();
            steps += 1;
            if steps > 300_000 {
                break;
            }
        }
        watch(&g);
        if g.outcome().map(|o| o.results[0]) == Some(SeatResult::Win) {
            wins += 1;
        }
    }
    wins
}

/// Every position of two-player house hands the lean simulator plays, with the hand's result
/// for seat 0 (1, ½ or 0) once it ends: the learned evaluation's data.
struct Positions {
    done: Vec<(lean::Lean, f64)>,
    open: Vec<lean::Lean>,
    restriction: croupier_sdk::uno::Wd4Restriction,
}

impl Positions {
    fn new() -> Positions {
        Positions {
            done: Vec::new(),
            open: Vec::new(),
            restriction: Options::preset("house").unwrap().wd4_restriction,
        }
    }

    /// `play_with`'s `watch`.
    fn watch(&mut self, g: &Uno) {
        if let Some(outcome) = g.outcome() {
            let y = match outcome.results[0] {
                SeatResult::Win => 1.0,
                SeatResult::Loss => 0.0,
                _ => 0.5,
            };
            self.done.extend(self.open.drain(..).map(|l| (l, y)));
            return;
        }
        let drawn = match g.decision() {
            Decision::AfterDraw => g.to_act().and_then(|s| g.observe(s).drawn),
            _ => None,
        };
        if let Some(w) = lean::World::from_uno(g, self.restriction, drawn) {
            self.open.push(w.lean);
        }
    }
}

/// The harnesses' number `k` from the environment, or `default`.
fn env_u64(k: &str, default: u64) -> u64 {
    std::env::var(k)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The harnesses' `ARGS` for the search and `OPP` (`anneal`, else greedy).
fn env_agents() -> (String, Opp) {
    let args = std::env::var("ARGS").unwrap_or_default();
    let opp = match std::env::var("OPP").as_deref() {
        Ok("anneal") => Opp::Anneal,
        _ => Opp::Greedy,
    };
    (args, opp)
}

/// The learned evaluation's training data (`scripts/fit-uno-eval.py` runs it): the search
/// with `ARGS` in seat 0 against `OPP` on house deals `START..START+GAMES`; every position
/// of a two-player hand the lean simulator plays, as seat 0's [`lean::Lean::features`], and
/// the hand's result for seat 0, one line each, into the file `OUT`.
#[test]
#[ignore]
fn eval_data() {
    use std::io::Write;
    let (games, start) = (env_u64("GAMES", 400), env_u64("START", 1_000_000));
    let (args, opp) = env_agents();
    let out = std::env::var("OUT").expect("OUT: the file to write");
    let mut positions = Positions::new();
    let seeds = start..start + games;
    let k = play_args_watched("house", 2, seeds, &args, opp, &mut |g| positions.watch(g));
    let mut file = std::io::BufWriter::new(std::fs::File::create(&out).unwrap());
    for (l, y) in &positions.done {
        let line: Vec<String> = l.features(0).iter().map(|x| format!("{x:.5}")).collect();
        writeln!(file, "{},{y}", line.join(",")).unwrap();
    }
    eprintln!("{args:?} vs {opp:?}: {k}/{games} won, positions in {out}");
}

/// The shipped weights predict real hands' results better than the points evaluation they
/// replace, and better than the base rate: 300 hands of greedy against greedy (not the
/// data they were fitted on), scored by the Brier score (the points evaluation is 0 or 1
/// at its clamps, so its log-loss would be infinite). Measured: learned 0.229, points
/// 0.283, the base rate 0.250. A feature out of the fitted order fails it.
#[test]
fn learned_evaluation_predicts_results() {
    let mut positions = Positions::new();
    play_with(
        "house",
        2,
        0..300,
        Opp::Greedy,
        &mut |g| positions.watch(g),
        |_| {
            move |_: &Uno, obs: &Observation, legal: &[Action], budget: Budget| {
                let (mut rng, mut quiet) = (GameRng::new(1), Quiet(GameRng::new(2)));
                let mut ctx = Ctx::new(budget, &mut rng, &mut quiet);
                uno_common::decide(&mut GreedyStyle, obs, legal, &mut ctx)
            }
        },
    );
    let rows = &positions.done;
    assert!(rows.len() > 5_000, "{} positions", rows.len());
    let brier = |f: &dyn Fn(&lean::Lean) -> f64| {
        rows.iter().map(|(l, y)| (f(l) - y).powi(2)).sum::<f64>() / rows.len() as f64
    };
    let base = rows.iter().map(|(_, y)| y).sum::<f64>() / rows.len() as f64;
    let learned = brier(&|l| l.learned_value(0, &weights::WEIGHTS));
    let points = brier(&|l| l.value(0));
    let constant = brier(&|_| base);
    assert!(
        learned < 0.95 * constant && learned < 0.9 * points,
        "Brier: learned {learned:.4}, points {points:.4}, the base rate {constant:.4}"
    );
}

/// Search with `ARGS` (e.g. `model=0`) against `OPP` (`greedy` or `anneal`) in every other
/// seat, on deals `START..START+GAMES` (0..400) of `PRESET` (house) with `PLAYERS` (2): the
/// tuning bench (tune on seeds below 1600 only).
#[test]
#[ignore]
fn versus() {
    let (games, start) = (env_u64("GAMES", 400), env_u64("START", 0));
    let (args, opp) = env_agents();
    let preset = std::env::var("PRESET").unwrap_or_else(|_| "house".into());
    let players = env_u64("PLAYERS", 2) as usize;
    let k = play_args(&preset, players, start..start + games, &args, opp);
    let (lo, hi) = wilson(k, games);
    eprintln!(
        "{args:?} vs {opp:?}, seeds {start}..{}: {k}/{games} = {:.1}% ({lo:.1}-{hi:.1}%)",
        start + games,
        100.0 * k as f64 / games as f64
    );
}

/// The same flat Monte Carlo search, but clairvoyant: it knows every opponent's hand, and
/// with `pile` the draw pile's order too (every world is then the true state); without,
/// each world deals the draw pile at random from what is left. Greedy's choice first, as
/// the agent orders its candidates.
fn clairvoyant(
    g: &Uno,
    obs: &Observation,
    legal: &[Action],
    iters: u32,
    pile: bool,
    rng: &mut GameRng,
) -> Action {
    if legal.len() < 2 {
        return legal.first().copied().unwrap_or(Action::Draw);
    }
    let mut quiet = Quiet(GameRng::new(0));
    let mut r = GameRng::new(rng.next_u64());
    let mut ctx = Ctx::new(BUDGET, &mut r, &mut quiet);
    let preferred = uno_common::decide(&mut GreedyStyle, obs, legal, &mut ctx);
    let mut order = vec![preferred];
    order.extend(legal.iter().copied().filter(|a| *a != preferred));
    let mut seen = obs.clone();
    for s in 0..g.num_players() as Seat {
        if s != obs.seat {
            seen.known[s as usize] = g.hand(s).to_vec();
        }
    }
    let opts = Options::preset("house").unwrap();
    let params = Params {
        playouts: iters,
        max_steps: MAX_STEPS,
        events: false,
    };
    let stats = search_stats_in::<Uno>(
        |rng| {
            if pile {
                g.clone()
            } else {
                Uno::determinize(&opts, &seen, rng)
            }
        },
        &order,
        obs.seat,
        &params,
        rng,
        policy,
        |g, seat| evaluate(g, seat, Scoring::SingleHand, &obs.scores),
    );
    best(&stats).unwrap_or(preferred)
}

/// Wilson's 95% interval of `k` wins in `n`, in percent.
fn wilson(k: u32, n: u64) -> (f64, f64) {
    let (k, n, z) = (k as f64, n as f64, 1.96f64);
    let p = k / n;
    let c = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let h = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    (100.0 * (c - h), 100.0 * (c + h))
}

/// Issue #42's ceiling: how often this search beats greedy when it sees everything (the
/// opponent's hand and the draw pile's order), beside the fair agent on the same deals.
/// `GAMES` deals (300), `ITERS` playouts (300). A fair agent cannot expect to beat what
/// the same search does with every card known.
#[test]
#[ignore]
fn ceiling() {
    let games = env_u64("GAMES", 300);
    let iters = env_u64("ITERS", 300) as u32;
    let fair = play("house", 2, games, iters);
    let sees = |pile: bool| {
        play_with("house", 2, 0..games, Opp::Greedy, &mut |_| {}, |info| {
            let mut rng = GameRng::new(info.seed ^ 0x5eed);
            move |g: &Uno, obs: &Observation, legal: &[Action], _: Budget| {
                clairvoyant(g, obs, legal, iters, pile, &mut rng)
            }
        })
    };
    let hands = sees(false);
    let all = sees(true);
    for (what, k) in [("fair", fair), ("sees hands", hands), ("sees all", all)] {
        let (lo, hi) = wilson(k, games);
        eprintln!(
            "{what:>11}, {iters} playouts: {k}/{games} = {:.1}% ({lo:.1}-{hi:.1}%)",
            100.0 * k as f64 / games as f64
        );
    }
}

/// Two-player house hands of deals `seeds`: seat 0 plays greedy, seat 1 `opp`'s rule (the
/// host's forced moves skipped), and a fresh agent for seat 0 reads the hand as it would
/// while playing greedy's moves: at each of seat 0's choices `visit` gets the deal, the
/// position, the observation and the agent (which should `observe` it); the agent then
/// remembers the observation and greedy's choice, as after its own decision.
fn read_house_hands(
    seeds: std::ops::Range<u64>,
    opp: Opp,
    mut visit: impl FnMut(u64, &Uno, &Observation, &mut Search),
) {
    let mut opts = Options::preset("house").unwrap();
    opts.set_players(2).unwrap();
    for seed in seeds {
        let mut g = Uno::new(&opts, seed).unwrap();
        let info = GameInfo::<Uno> {
            seat: 0,
            players: 2,
            options: opts.clone(),
            seed,
            args: String::new(),
        };
        let mut agent = Search::new(&info);
        let mut services = Quiet(GameRng::new(seed));
        let mut rng = GameRng::new(seed ^ 77);
        let mut anneal = AnnealStyle { temperature: 10.0 };
        let mut legal = Vec::new();
        while let Some(s) = g.to_act() {
            g.legal_actions(&mut legal);
            let obs = g.observe(s);
            let mut ctx = Ctx::new(Budget::default(), &mut rng, &mut services);
            let a = if legal.len() == 1 {
                legal[0]
            } else if s == 1 && opp == Opp::Anneal {
                let a = uno_common::decide(&mut anneal, &obs, &legal, &mut ctx);
                anneal.temperature *= 0.9;
                a
            } else {
                uno_common::decide(&mut GreedyStyle, &obs, &legal, &mut ctx)
            };
            if s == 0 && legal.len() > 1 {
                visit(seed, &g, &obs, &mut agent);
                agent.last = Some((obs.clone(), a));
            }
            g.apply(a).unwrap();
        }
    }
}

/// The model's facts hold against greedy: at every decision of ours (seat 0 playing
/// greedy's own choices, the host's forced moves skipped), the opponent's true hand meets
/// every constraint; and most gaps are read.
#[test]
fn model_holds_against_greedy() {
    let (mut read, mut gaps, mut facts) = (0, 0, 0);
    read_house_hands(0..60, Opp::Greedy, |seed, g, obs, agent| {
        if let Some((prev, act)) = &agent.last {
            gaps += 1;
            if model::replay(prev, *act, obs, true).is_some_and(|p| p.len() == 1) {
                read += 1;
            }
        }
        agent.observe(obs);
        let hand = g.hand(1);
        for c in &agent.cons {
            facts += 1;
            let inside = hand.iter().filter(|x| c.faces & (1u64 << x.0) != 0).count();
            assert!(
                inside <= c.free as usize,
                "seed {seed}: {c:?} broken by {hand:?} (top {}, {:?})",
                obs.top,
                obs.color
            );
        }
        if let Some(f) = agent.named {
            facts += 1;
            assert!(f.holds(&hand), "seed {seed}: {hand:?} would not name {f:?}");
        }
    });
    eprintln!("{read} of {gaps} gaps read, {facts} facts checked");
    assert!(read * 10 >= gaps * 9, "only {read} of {gaps} gaps read");
    assert!(facts > 100, "{facts} facts");
}

/// The model is a belief: against an opponent it does not fit, the agent still plays
/// only legal actions (`play_with` checks each) and does not panic.
#[test]
fn legal_against_a_random_opponent() {
    play_args("house", 2, 0..8, "iters=30", Opp::Random);
}

#[test]
fn legal_under_every_preset() {
    play("house", 2, 3, 20);
    play("official", 3, 1, 10);
    play("two-player", 2, 1, 10);
}

#[test]
#[ignore]
fn experiment() {
    let iters: u32 = std::env::var("ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let games: u64 = std::env::var("GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let base = play("house", 2, games, 1);
    let wins = play("house", 2, games, iters);
    eprintln!("iters=1: {base}/{games}; iters={iters}: {wins}/{games}");
}

/// Regression (issue #42): in a game of several hands the search counts points, not
/// hands won. Counting hands, it kept its wilds (50 points each) for later and handed them
/// to greedy whenever greedy went out first: it won 9 of 40 official two-player matches to
/// 100 points, and none of 60 to 500, while it won 60% of single hands. It now wins 27.
#[test]
fn wins_official_matches_on_points() {
    let wins = play_args("official:100", 2, 0..40, "iters=300", Opp::Greedy);
    eprintln!("search won {wins} of 40 official matches to 100 points against greedy");
    assert!(
        wins >= 16,
        "search won {wins} of 40 official matches to 100 points"
    );
}

/// A real win: at 300 playouts, over 300 two-player deals (seeds 0..300), search takes
/// 205 games from greedy (68.3%; 188 with points at the horizon, 62.7%). The agent before
/// the opponent model and the new playout settings took 169 (56.3%); without the model
/// (`model=0`) the points agent took 181. The bound, 175 (58.3%), leaves room for changes
/// that move a few games and fails for the old agent.
#[test]
fn beats_greedy_in_house() {
    let games = 300;
    // 300 playouts, as the agent had before it spent its fuel plan: the test is about
    // a real win, not the strength, which is a benchmark (docs/benchmarks-history.md#bosses).
    let wins = play("house", 2, games, 300);
    eprintln!("search won {wins} of {games} against greedy");
    assert!(
        wins >= 175,
        "search won {wins} of {games} against greedy: no real win"
    );
}

/// Diagnostic (ignored): the opponent's true hand against the model's hands (40 sampled per
/// decision) and a uniform deal, per kind of card, summed over seat 0's turns in `GAMES`
/// (300) house hands; seat 0 plays greedy and reads the opponent (`OPP`) as the agent does.
/// Against greedy the model deals 1.40 times the Wilds and 1.46 times the Wild Draw Fours
/// greedy holds (a uniform deal: 5.1 and 1.9 times); a prior per kind fitted to that did not
/// win more (the crate doc).
#[test]
#[ignore]
fn hand_bias() {
    let opp = env_agents().1;
    let games = env_u64("GAMES", 300);
    let names = [
        "wild",
        "wd4",
        "draw2",
        "skiprev",
        "high5-9",
        "low0-4",
        "curcolour",
    ];
    let class = |f: u8, cur: Color| -> Vec<usize> {
        let mut v = vec![];
        match f {
            52 => v.push(0),
            53 => v.push(1),
            _ => {
                v.push(match f % 13 {
                    12 => 2,
                    10 | 11 => 3,
                    5..=9 => 4,
                    _ => 5,
                });
                if f / 13 == cur as u8 {
                    v.push(6);
                }
            }
        }
        v
    };
    let (mut truth, mut sampled, mut pool_share) = ([0f64; 7], [0f64; 7], [0f64; 7]);
    let mut decisions = 0;
    read_house_hands(0..games, opp, |seed, g, obs, agent| {
        agent.observe(obs);
        if obs.decision != Decision::Turn {
            return;
        }
        let mut cons = agent.cons.clone();
        model::cap_constraints(obs, 1, &mut cons);
        let mut shaped = Shaped {
            obs: obs.clone(),
            cons,
            all: model::pool_of(&obs.unseen),
            pool: Vec::new(),
            cands: Vec::new(),
        };
        let cell = Cell::new(0);
        let mut r = GameRng::new(seed * 1000 + decisions);
        let k = 40;
        for _ in 0..k {
            if let Some(h) = agent.opponent_hand(obs, &mut shaped, &mut r, &cell) {
                for c in h {
                    for i in class(c.0, obs.color) {
                        sampled[i] += 1.0 / k as f64;
                    }
                }
            }
        }
        for c in g.hand(1) {
            for i in class(c.0, obs.color) {
                truth[i] += 1.0;
            }
        }
        let n = obs.hand_sizes[1] as f64;
        let total: f64 = obs.unseen.iter().map(|&x| x as f64).sum();
        for (f, &cnt) in obs.unseen.iter().enumerate() {
            for i in class(f as u8, obs.color) {
                pool_share[i] += cnt as f64 * n / total;
            }
        }
        decisions += 1;
    });
    for (i, name) in names.iter().enumerate() {
        let (t, m, u) = (truth[i], sampled[i], pool_share[i]);
        eprintln!(
            "{name:10} truth {t:8.1} model {m:8.1} ({:.2}x) uniform {u:8.1} ({:.2}x)",
            t / m,
            t / u
        );
    }
}

mod exact;
