//! `uno/search` — the strong UNO example agent: determinized flat Monte Carlo search over the
//! rules engine (STRATEGIES.md, "UNO": source E's game, preset `house`, 2 players; it answers
//! every decision of the other presets too).
//!
//! For each decision with more than one legal action it runs the SDK's determinized flat Monte
//! Carlo search (`croupier_sdk::search::search_stats`): worlds drawn with `Uno::determinize`
//! (the unknown pool — opponents' hands and the draw pile — dealt at random, keeping every
//! public count and every proven fact of the observation), every legal action applied in each
//! world (the same worlds for every action), and the game played on with a greedy policy for
//! every seat for at most 40 actions. A finished playout scores 1 for a win, ½ for a draw or
//! shared win, 0 for a loss; one stopped at the horizon is scored by hand points (0.5 +
//! (best opponent's points − own points) / 200, clamped to 0..1). The action with the best
//! mean wins; ties go to what `uno/greedy` would play.
//!
//! Default: `iters=300` playouts per decision, shared by the legal actions (e.g. 5 actions → 60
//! worlds). Not measured in the sandbox (the UNO engine had not landed in the host when this
//! was written); estimated from native timings against `toepen/search`, whose 400 playouts
//! were measured at 30–40 M fuel: about 35–45 M fuel for the first decision of a hand, under a
//! quarter of the default 200 M budget. `uno/search#iters=N` sets it; the count is also capped
//! at `budget.fuel / 4 / fuel_per_playout` (`fuel_per_playout=150000` by default, also an arg).
//!
//! Decided here: the playout policy is a greedy rule close to source E's — the playable
//! coloured card worth the most points, a Wild only when no coloured card fits, a Wild Draw
//! Four last (keeping wilds played better in playouts than source E's wild-first order), the
//! most-held colour, stack whenever possible — but with probability 1/4 a uniformly random
//! playable card, so the simulated opponents are not all one deterministic bot; playouts never
//! challenge a Wild Draw Four and play a drawn card when it fits.

use croupier_sdk::search::{Search as Params, best, outcome_value, search_stats};
use croupier_sdk::uno::{Action, Color, Observation, Options, Uno, UnoCard};
use croupier_sdk::{Agent, Ctx, Game, GameInfo, GameRng, Seat};
use uno_common::{Style, greedy_pick, most_held_color};

/// Default playouts per decision.
pub const DEFAULT_ITERS: u32 = 300;
/// Default fuel reckoned per playout, to cap `iters` at a quarter of the decision's budget.
pub const FUEL_PER_PLAYOUT: u64 = 150_000;
/// Most simulated actions in one playout (a longer horizon cost more than it gained).
const MAX_STEPS: u32 = 40;

pub struct Search {
    opts: Options,
    iters: u32,
    fuel_per_playout: u64,
}

/// The card a `Play` or `Stack` plays.
fn played_card(a: &Action) -> Option<UnoCard> {
    match a {
        Action::Play { card, .. } | Action::Stack { card, .. } => Some(*card),
        _ => None,
    }
}

/// The most frequent colour in `hand` (ties: red, yellow, green, blue), or `fallback`.
fn hand_color(hand: &[UnoCard], fallback: Color) -> Color {
    let mut counts = [0u32; 4];
    for c in hand {
        if let Some(col) = c.color() {
            counts[col as usize] += 1;
        }
    }
    let mut best = fallback;
    let mut most = 0;
    for col in Color::ALL {
        if counts[col as usize] > most {
            most = counts[col as usize];
            best = col;
        }
    }
    best
}

fn declared(a: &Action) -> Option<Color> {
    match a {
        Action::Play { declare, .. }
        | Action::Stack { declare, .. }
        | Action::PlayDrawn { declare, .. } => *declare,
        _ => None,
    }
}

/// The playout policy (see the crate doc).
fn policy(g: &Uno, legal: &[Action], rng: &mut GameRng) -> Action {
    let first = legal.first().copied().unwrap_or(Action::Draw);
    // A drawn card that fits is played.
    if let Some(a) = legal.iter().find(|a| matches!(a, Action::PlayDrawn { .. })) {
        return match declared(a) {
            None => *a,
            Some(_) => pick_declared(g, legal, |x| matches!(x, Action::PlayDrawn { .. })),
        };
    }
    let plays: Vec<&Action> = legal
        .iter()
        .filter(|a| matches!(a, Action::Play { .. } | Action::Stack { .. }))
        .collect();
    if !plays.is_empty() {
        let chosen = if rng.below(4) == 0 {
            played_card(plays[rng.below(plays.len())])
        } else {
            plays
                .iter()
                .filter_map(|a| played_card(a))
                .max_by_key(|c| policy_rank(*c))
        };
        if let Some(card) = chosen {
            return pick_declared(g, legal, |x| played_card(x) == Some(card));
        }
    }
    for a in [
        Action::Draw,
        Action::AcceptPenalty,
        Action::Keep,
        Action::Accept,
        Action::CatchUno,
    ] {
        if legal.contains(&a) {
            return a;
        }
    }
    if let Some(a) = legal.iter().find(|a| matches!(a, Action::ChooseColor(_))) {
        let c = g.to_act().map(|s| g.hand(s)).unwrap_or_default();
        let want = Action::ChooseColor(hand_color(&c, Color::Red));
        return if legal.contains(&want) { want } else { *a };
    }
    first
}

/// The playout policy's preference: coloured cards by points, then Wild, then Wild Draw Four
/// (wilds are kept for when nothing else fits).
fn policy_rank(card: UnoCard) -> i32 {
    if card.is_wd4() {
        -2
    } else if card.is_wild() {
        -1
    } else {
        card.points() as i32
    }
}

/// Among the legal actions matching `which`, the one naming the colour the actor holds most
/// of (not counting wilds), calling UNO when possible.
fn pick_declared(g: &Uno, legal: &[Action], which: impl Fn(&Action) -> bool) -> Action {
    let candidates: Vec<&Action> = legal.iter().filter(|a| which(a)).collect();
    let Some(&&fallback) = candidates.first() else {
        return legal.first().copied().unwrap_or(Action::Draw);
    };
    let wants_color = candidates.iter().any(|a| declared(a).is_some());
    let color = if wants_color {
        let hand = g.to_act().map(|s| g.hand(s)).unwrap_or_default();
        Some(hand_color(&hand, g.current_color()))
    } else {
        None
    };
    let uno = |a: &Action| {
        matches!(
            a,
            Action::Play { uno: true, .. }
                | Action::Stack { uno: true, .. }
                | Action::PlayDrawn { uno: true, .. }
        )
    };
    candidates
        .iter()
        .copied()
        .max_by_key(|a| u8::from(declared(a) == color) * 2 + u8::from(uno(a)))
        .copied()
        .unwrap_or(fallback)
}

/// Score of the state where a playout stopped, for `seat`.
fn evaluate(g: &Uno, seat: Seat) -> f64 {
    if g.outcome().is_some() {
        return outcome_value(g, seat);
    }
    // Stopped by the step cap: fewer hand points than the best opponent is better.
    let points = |s: Seat| g.hand(s).iter().map(|c| c.points() as f64).sum::<f64>();
    let mine = points(seat);
    let best_other = (0..g.num_players() as Seat)
        .filter(|s| *s != seat)
        .map(points)
        .fold(f64::INFINITY, f64::min);
    if !best_other.is_finite() {
        return 0.5;
    }
    (0.5 + (best_other - mine) / 200.0).clamp(0.0, 1.0)
}

/// `uno/greedy`'s choice, to order the candidates (ties go to the first).
struct GreedyStyle;
impl Style for GreedyStyle {
    fn pick(&mut self, _: &Observation, cards: &[UnoCard], _: &mut Ctx) -> Option<UnoCard> {
        greedy_pick(cards)
    }
    fn color(&mut self, obs: &Observation, played: Option<UnoCard>, _: &mut Ctx) -> Color {
        most_held_color(obs, played)
    }
}

impl Search {
    fn search(&self, obs: &Observation, legal: &[Action], ctx: &mut Ctx) -> Option<Action> {
        let budget_playouts = ctx.budget().fuel / 4 / self.fuel_per_playout.max(1);
        let playouts = (self.iters as u64).min(budget_playouts).max(1) as u32;
        let preferred = uno_common::decide(&mut GreedyStyle, obs, legal, ctx);
        let mut order: Vec<Action> = vec![preferred];
        order.extend(legal.iter().copied().filter(|a| *a != preferred));
        let params = Params {
            playouts,
            max_steps: MAX_STEPS,
            // Neither the playout policy nor the score reads the simulated events.
            events: false,
        };
        let stats = search_stats::<Uno>(
            &self.opts,
            obs,
            &order,
            obs.seat,
            &params,
            ctx.rng(),
            policy,
            evaluate,
        );
        best(&stats)
    }
}

impl Agent<Uno> for Search {
    fn new(info: &GameInfo<Uno>) -> Self {
        Search {
            opts: info.options.clone(),
            iters: info.arg("iters").unwrap_or(DEFAULT_ITERS),
            fuel_per_playout: info.arg("fuel_per_playout").unwrap_or(FUEL_PER_PLAYOUT),
        }
    }

    fn decide(&mut self, obs: &Observation, legal: &[Action], ctx: &mut Ctx) -> Action {
        match legal {
            [] => Action::Draw,
            [only] => *only,
            _ => match self.search(obs, legal, ctx) {
                Some(a) if legal.contains(&a) => a,
                _ => legal[0],
            },
        }
    }
}

croupier_sdk::export_uno!(Search);

#[cfg(test)]
mod tests {
    use super::*;
    use croupier_sdk::rules::SeatResult;
    use croupier_sdk::{Budget, Level, Native, Rules, Services};

    struct Quiet(GameRng);
    impl Services for Quiet {
        fn random(&mut self) -> u64 {
            self.0.next_u64()
        }
        fn log(&mut self, _: Level, _: &str) {}
    }

    /// Seat 0 searches, the others play greedy; returns seat 0's wins.
    fn play(preset: &str, players: usize, games: u64, iters: u32) -> u32 {
        play_with(preset, players, games, |info| {
            let mut agent = Native::<Uno, Search>::new(&GameInfo {
                args: format!("iters={iters}"),
                ..info.clone()
            });
            let mut services = Quiet(GameRng::new(info.seed));
            move |_: &Uno, obs: &Observation, legal: &[Action], budget: Budget| {
                agent.decide(obs, legal, budget, &mut services)
            }
        })
    }

    /// Seat 0 decides with what `seat0` makes for each deal (it sees the true state), the
    /// others play greedy; returns seat 0's wins over deals (seeds) `0..games`.
    fn play_with<D>(
        preset: &str,
        players: usize,
        games: u64,
        mut seat0: impl FnMut(&GameInfo<Uno>) -> D,
    ) -> u32
    where
        D: FnMut(&Uno, &Observation, &[Action], Budget) -> Action,
    {
        let mut opts = Options::preset(preset).unwrap();
        opts.set_players(players).unwrap();
        let mut wins = 0;
        for seed in 0..games {
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
            let budget = Budget {
                fuel: 200_000_000,
                millis: 1000,
                bank_millis: None,
            };
            let mut legal = Vec::new();
            let mut steps = 0;
            while let Some(s) = g.to_act() {
                g.legal_actions(&mut legal);
                let obs = g.observe(s);
                let a = if s == 0 {
                    decide(&g, &obs, &legal, budget)
                } else {
                    let mut ctx = Ctx::new(budget, &mut rng, &mut services);
                    uno_common::decide(&mut GreedyStyle, &obs, &legal, &mut ctx)
                };
                assert!(legal.contains(&a), "{a} not legal in {preset}");
                g.apply(a).unwrap();
                steps += 1;
                if steps > 3000 {
                    break;
                }
            }
            if g.outcome().map(|o| o.results[0]) == Some(SeatResult::Win) {
                wins += 1;
            }
        }
        wins
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
        let budget = Budget {
            fuel: 200_000_000,
            millis: 1000,
            bank_millis: None,
        };
        let mut ctx = Ctx::new(budget, &mut r, &mut quiet);
        let preferred = uno_common::decide(&mut GreedyStyle, obs, legal, &mut ctx);
        let mut order = vec![preferred];
        order.extend(legal.iter().copied().filter(|a| *a != preferred));
        let worlds = (iters as usize / order.len()).max(1);
        let mut totals = vec![0.0; order.len()];
        let mut buf = Vec::new();
        let mut seen = obs.clone();
        for s in 0..g.num_players() as Seat {
            if s != obs.seat {
                seen.known[s as usize] = g.hand(s).to_vec();
            }
        }
        let opts = Options::preset("house").unwrap();
        for _ in 0..worlds {
            let mut world = if pile {
                g.clone()
            } else {
                Uno::determinize(&opts, &seen, rng)
            };
            world.record_no_events();
            let stream = rng.next_u64();
            for (i, a) in order.iter().enumerate() {
                let mut sim = world.clone();
                if sim.apply(*a).is_err() {
                    continue;
                }
                let mut prng = GameRng::new(stream);
                croupier_sdk::search::playout(
                    &mut sim,
                    MAX_STEPS,
                    &mut prng,
                    &mut policy,
                    &mut buf,
                );
                totals[i] += evaluate(&sim, obs.seat);
            }
        }
        let mut best_i = 0;
        for (i, t) in totals.iter().enumerate() {
            if *t > totals[best_i] {
                best_i = i;
            }
        }
        order[best_i]
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
        let var = |k: &str, d: u64| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(d)
        };
        let games = var("GAMES", 300);
        let iters = var("ITERS", 300) as u32;
        let fair = play("house", 2, games, iters);
        let sees = |pile: bool| {
            play_with("house", 2, games, |info| {
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

    /// A real win, not parity: at its default 300 playouts, over 300 two-player deals (seeds
    /// 0..300), search takes 169 games from greedy: 56.3%, Wilson 95% interval 50.7–61.8%
    /// (the README's duplicate match gives 56.2%). The bound, 160 (53%), leaves room for
    /// changes that move a few games. At 100 playouts search does not win (191 of 400, 48%),
    /// yet it took 26 of the first 40 games, which is all the old test looked at.
    #[test]
    fn beats_greedy_in_house() {
        let games = 300;
        let wins = play("house", 2, games, DEFAULT_ITERS);
        eprintln!("search won {wins} of {games} against greedy");
        assert!(
            wins >= 160,
            "search won {wins} of {games} against greedy: no real win"
        );
    }
}
