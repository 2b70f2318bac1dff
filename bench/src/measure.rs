//! What every figure is measured with: the runtime, the trivial agents, decision points,
//! medians and percentiles, one match's time. A leaf below the figures' sections.

use anyhow::Result;
use croupier_host::Runtime;
use croupier_host::adapters::Adapter;
use croupier_host::cache::Cache;
use croupier_host::limits::Limits;
use croupier_host::loader;
use croupier_host::player::{Player, PlayerFactory, StartInfo};
use croupier_rules::durak::Durak;
use croupier_rules::{Game, GameRng, Rules};
use croupier_tournament::runner::{self, Entrant, FaultPolicy, Schedule};
use serde::Serialize;
use std::sync::Arc;
use std::time::Instant;

/// The runtime the figures are taken in: default limits and the user's compile cache. With
/// `no_pool`, instances are made on demand in an engine otherwise configured as the one agents
/// play in ([`croupier_host::engine::Levers::PLAY`]): valgrind cannot reserve the pool's
/// address space, and the decision path does not go through the pool.
pub(crate) fn runtime(no_pool: bool) -> Result<Runtime> {
    let (cache, why) = Cache::default_or_disabled();
    if let Some(why) = why {
        eprintln!("warning: compiled-agent cache disabled: {why}");
    }
    if no_pool {
        use croupier_host::engine::{Levers, measuring};
        return Ok(Runtime {
            engine: measuring(Levers::PLAY)?,
            cache,
            limits: Limits::default(),
            compiler: Default::default(),
        });
    }
    Runtime::new(Limits::default(), cache)
}

/// The trivial native agent: the first legal action (the hostile guest's `ok` mode in wasm).
pub struct First;

impl<G: Game> croupier_sdk::Agent<G> for First {
    fn new(_: &croupier_sdk::GameInfo<G>) -> Self {
        First
    }
    fn decide(
        &mut self,
        _: &G::Observation,
        legal: &[G::Action],
        _: &mut croupier_sdk::Ctx,
    ) -> G::Action {
        legal[0]
    }
}

/// A label, the sandboxed factory (when its component is built) and the native one.
pub(crate) type BenchPair = (
    &'static str,
    Option<Arc<dyn PlayerFactory<Durak>>>,
    Arc<dyn PlayerFactory<Durak>>,
);

/// One figure.
#[derive(Clone, Debug, Serialize)]
pub struct Figure {
    pub name: String,
    pub value: f64,
    pub unit: String,
}

pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

pub(crate) fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v.get(i).copied().unwrap_or(0.0)
}

/// Decision points of random games: what agents are asked.
pub(crate) fn decision_points<G: Game>(
    opts: &G::Options,
    n: usize,
) -> Vec<(G::Observation, Vec<G::Action>)> {
    decision_points_of::<G>(opts, n, None)
}

/// Like [`decision_points`], only `seat`'s (when given): a search agent reasons from its own
/// seat, so it must be shown that seat's observations.
pub(crate) fn decision_points_of<G: Game>(
    opts: &G::Options,
    n: usize,
    only: Option<u8>,
) -> Vec<(G::Observation, Vec<G::Action>)> {
    let mut out = Vec::with_capacity(n);
    let mut rng = GameRng::new(99);
    let mut legal = Vec::new();
    let mut seed = 0;
    while out.len() < n {
        seed += 1;
        let Ok(mut g) = G::new(opts, seed) else { break };
        while let Some(seat) = g.to_act() {
            g.legal_actions(&mut legal);
            if legal.len() > 1 && out.len() < n && only.is_none_or(|o| o == seat) {
                out.push((g.observe(seat), legal.clone()));
            }
            let a = legal[rng.below(legal.len())];
            if g.apply(a).is_err() {
                break;
            }
        }
    }
    out
}

pub(crate) fn start_info<G: Game>(opts: &G::Options) -> StartInfo {
    StartInfo {
        seat: 0,
        players: opts.seats() as u8,
        rules: croupier_host::player::StartRules::new::<G>(opts),
        seed: 1,
        args: "ok".into(),
    }
}

/// Median nanoseconds per decision of a player over the decision points.
pub(crate) fn ns_per_decision<G: Game>(
    player: &mut dyn Player<G>,
    points: &[(G::Observation, Vec<G::Action>)],
    rounds: usize,
) -> Result<f64> {
    let mut per = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        for (obs, legal) in points {
            player
                .decide(obs.clone(), legal)
                .map_err(|f| anyhow::anyhow!("bench agent faulted: {f}"))?;
        }
        per.push(t.elapsed().as_nanos() as f64 / points.len() as f64);
    }
    Ok(median(per))
}

pub(crate) fn wasm_factory<G: Adapter>(
    host: &Runtime,
    spec: &str,
) -> Result<Arc<dyn PlayerFactory<G>>> {
    let agent = croupier_host::registry::resolve(spec).map_err(|e| anyhow::anyhow!("{e}"))?;
    let loaded = loader::load(&host.engine, &host.cache, &host.limits, &agent.path)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    host.factory_default::<G>(&loaded)
        .map_err(|e| anyhow::anyhow!("{e}"))
}

pub(crate) fn entrant<G: Game>(name: &str, f: Arc<dyn PlayerFactory<G>>) -> Entrant<G> {
    Entrant {
        name: name.into(),
        args: String::new(),
        factory: f,
    }
}

/// Wall time of one whole match, and the agents' decisions per game.
pub(crate) fn match_time<G: Game>(
    opts: &G::Options,
    entrants: &[Entrant<G>],
    games: u64,
    threads: usize,
) -> Result<(f64, f64)> {
    let schedule = Schedule::new(entrants.len(), opts.seats(), games, false);
    let todo: Vec<u64> = (0..games).collect();
    let plan = runner::Plan {
        options: opts,
        entrants,
        schedule: &schedule,
        seed: 1,
        policy: FaultPolicy::Forfeit,
        threads,
    };
    let mut asked = 0u64;
    let d = runner::run(&plan, &todo, &(), &mut |rec| {
        asked += rec.decisions;
        Ok::<_, std::convert::Infallible>(())
    })?;
    Ok((d.as_secs_f64(), asked as f64 / games.max(1) as f64))
}

/// Random-play games per second of the rules engine alone (median of `rounds`).
pub(crate) fn rules_games_per_s<G: Game>(opts: &G::Options, games: u64, rounds: usize) -> f64 {
    let mut rates = Vec::new();
    let mut legal = Vec::new();
    for r in 0..rounds {
        let mut rng = GameRng::new(r as u64);
        let t = Instant::now();
        for s in 0..games {
            let Ok(mut g) = G::new(opts, s) else { continue };
            while g.to_act().is_some() {
                g.legal_actions(&mut legal);
                let a = legal[rng.below(legal.len())];
                if g.apply(a).is_err() {
                    break;
                }
            }
        }
        rates.push(games as f64 / t.elapsed().as_secs_f64());
    }
    median(rates)
}

/// The hostile guest (`#ok` mode) is the trivial sandboxed agent; it is built for the tests.
pub(crate) fn trivial_wasm() -> Option<std::path::PathBuf> {
    croupier_host::registry::agent_dirs()
        .into_iter()
        .filter_map(|d| d.parent().map(|t| t.join("test-agents/durak/hostile.wasm")))
        .find(|p| p.is_file())
}
