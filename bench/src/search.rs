//! Search agents at a fixed number of playouts, sandboxed and linked natively. What a
//! competitor feels is how many playouts their agent gets per decision, so the figure is
//! playouts per second on each side and their ratio (issue #19's target: sandboxed at
//! least 0.6× native). Both sides get the same seed and the same decision points, so they
//! do the same work, and the bench checks that they chose the same actions.

use anyhow::{Context, Result};
use croupier_host::Runtime;
use croupier_host::adapters::Adapter;
use croupier_host::loader;
use croupier_host::player::{PlayerFactory, StartInfo};
use croupier_learn::native::NativeFactory;
use croupier_rules::Game;
use croupier_rules::durak::Durak;
use croupier_tournament::matches::{self, RulesArgs};
use std::sync::Arc;

use crate::measure::*;

/// Decision points: an observation and its legal actions.
type Points<G> = Vec<(<G as Game>::Observation, Vec<<G as Game>::Action>)>;

/// Playouts per decision for every search figure: enough for the search to dominate a
/// decision's cost, few enough for `--quick` to take a second.
const SEARCH_ITERS: u32 = 200;

/// Rules defaults, `n` of seat 0's decision points, and seat 0's start with
/// [`SEARCH_ITERS`] as the agent's argument.
fn search_setup<G: Game>(n: usize) -> Result<(Points<G>, StartInfo)> {
    let (_, opts) = matches::setup::options::<G>(&RulesArgs::default())?;
    let mut info = start_info::<G>(&opts);
    info.args = format!("iters={SEARCH_ITERS}");
    Ok((decision_points_of::<G>(&opts, n, Some(0)), info))
}

pub(crate) fn search_figures(
    put: &mut dyn FnMut(&str, f64, &str),
    host: &Runtime,
    quick: bool,
    rounds: usize,
) -> Result<()> {
    println!(
        "\nsearch agents at a fixed number of playouts: sandboxed vs native (seat 0's decisions)"
    );
    let points = if quick { 8 } else { 30 };
    let rounds = rounds.min(3);
    use croupier_rules::{toepen::Toepen, uno::Uno};
    search_pair::<Durak, durak_ismcts::Ismcts>(put, host, "durak/ismcts", points, rounds)?;
    search_pair::<Toepen, toepen_search::Search>(put, host, "toepen/search", points, rounds)?;
    search_pair::<Uno, uno_search::Search>(put, host, "uno/search", points, rounds)?;
    levers(put, host, points, rounds)
}

/// What each of the sandbox's code-generation switches costs a search agent: `durak/ismcts`
/// at a fixed number of playouts, compiled in this process for engines with fuel, epochs or
/// explicit bounds checks turned off (`croupier_host::engine::Levers`; never used in play).
/// All without the instance pool, the baseline included, so the ratios compare like with
/// like.
fn levers(
    put: &mut dyn FnMut(&str, f64, &str),
    host: &Runtime,
    n: usize,
    rounds: usize,
) -> Result<()> {
    use croupier_host::engine::{Levers, measuring};
    let spec = "durak/ismcts";
    let Ok(agent) = croupier_host::registry::resolve(spec) else {
        return Ok(());
    };
    let bytes = std::fs::read(&agent.path).with_context(|| agent.path.display().to_string())?;
    let loaded = loader::load(&host.engine, &host.cache, &host.limits, &agent.path)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let (points, info) = search_setup::<Durak>(n)?;
    println!("\n{spec} at {SEARCH_ITERS} playouts, one switch off at a time (no instance pool)");
    let off = |f: fn(&mut Levers)| {
        let mut l = Levers::PLAY;
        f(&mut l);
        l
    };
    let variants: [(&str, Levers); 6] = [
        ("as played (fuel, epochs, bounds checks)", Levers::PLAY),
        ("with Cranelift's inliner", {
            let mut l = Levers::PLAY;
            l.inlining = true;
            l
        }),
        ("without fuel", off(|l| l.fuel = false)),
        ("without epochs", off(|l| l.epoch = false)),
        (
            "guard pages instead of bounds checks",
            off(|l| l.bounds_checks = false),
        ),
        (
            "none of the three",
            Levers {
                fuel: false,
                epoch: false,
                bounds_checks: false,
                inlining: false,
            },
        ),
    ];
    let mut base = None;
    for (label, lv) in variants {
        let engine = measuring(lv)?;
        // Our own shipped agent, compiled here: the child-process compile is for untrusted
        // uploads, and its artifacts fit only the engine agents play in.
        let component = wasmtime::component::Component::from_binary(&engine, &bytes)
            .map_err(|e| anyhow::anyhow!("compiling {spec} for {label}: {e:#}"))?;
        let lever_host = Runtime {
            engine,
            cache: croupier_host::cache::Cache::disabled(),
            limits: host.limits.clone(),
            compiler: host.compiler.clone(),
        };
        let mut l = loaded.clone();
        l.component = component;
        let f = lever_host
            .factory_default::<Durak>(&l)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut p = f.make(1).map_err(|e| anyhow::anyhow!("{spec}: {e}"))?;
        p.start(&info).map_err(|e| anyhow::anyhow!("{spec}: {e}"))?;
        let ns = ns_per_decision(p.as_mut(), &points, rounds)?;
        let b = *base.get_or_insert(ns);
        put(&format!("levers: {label}"), ns / 1e3, "µs/decision");
        put(&format!("levers: {label}, speed vs as played"), b / ns, "×");
    }
    Ok(())
}

fn search_pair<G: Adapter, A: croupier_sdk::Agent<G> + Send + 'static>(
    put: &mut dyn FnMut(&str, f64, &str),
    host: &Runtime,
    spec: &str,
    n: usize,
    rounds: usize,
) -> Result<()>
where
    G::Options: Send,
{
    let (points, info) = search_setup::<G>(n)?;
    let Ok(wasm) = wasm_factory::<G>(host, spec) else {
        println!("  ({spec}: component not built; run scripts/setup.sh)");
        return Ok(());
    };
    let native: Arc<dyn PlayerFactory<G>> =
        Arc::new(NativeFactory::<G, A>::new(host.limits.clone()));
    // Same seed, same points: the same choices, or the two sides did different work.
    let mut chosen = Vec::new();
    for f in [&native, &wasm] {
        let mut p = f.make(1).map_err(|e| anyhow::anyhow!("{spec}: {e}"))?;
        p.start(&info).map_err(|e| anyhow::anyhow!("{spec}: {e}"))?;
        let mut actions = Vec::with_capacity(points.len());
        for (obs, legal) in &points {
            actions.push(
                p.decide(obs.clone(), legal)
                    .map_err(|e| anyhow::anyhow!("{spec}: {e}"))?,
            );
        }
        chosen.push(actions);
    }
    anyhow::ensure!(
        chosen[0] == chosen[1],
        "{spec}: the sandboxed and the native agent chose differently from the same seed"
    );
    let time = |f: &Arc<dyn PlayerFactory<G>>| -> Result<f64> {
        let mut p = f.make(1).map_err(|e| anyhow::anyhow!("{spec}: {e}"))?;
        p.start(&info).map_err(|e| anyhow::anyhow!("{spec}: {e}"))?;
        ns_per_decision(p.as_mut(), &points, rounds)
    };
    let ns_native = time(&native)?;
    let ns_wasm = time(&wasm)?;
    let per_s = |ns: f64| f64::from(SEARCH_ITERS) / (ns / 1e9);
    put(
        &format!("{spec} at {SEARCH_ITERS} playouts: native"),
        ns_native / 1e3,
        "µs/decision",
    );
    put(
        &format!("{spec} at {SEARCH_ITERS} playouts: sandboxed"),
        ns_wasm / 1e3,
        "µs/decision",
    );
    put(
        &format!("{spec}: playouts/s native"),
        per_s(ns_native),
        "/s",
    );
    put(
        &format!("{spec}: playouts/s sandboxed"),
        per_s(ns_wasm),
        "/s",
    );
    put(
        &format!("{spec}: sandboxed speed / native"),
        ns_native / ns_wasm,
        "×",
    );
    Ok(())
}
