//! The speed figures, side by side, in one run (`croupier-bench`).
//!
//! Timed loops live here, not in tests: the machines are shared and noisy, so figures are
//! medians of several rounds and ratios are taken within one run.

use crate::measure::*;
use anyhow::{Context, Result};
use croupier_host::Runtime;
use croupier_host::loader;
use croupier_host::player::{PlayerFactory, StartInfo};
use croupier_learn::native::NativeFactory;
use croupier_rules::durak::Durak;
use croupier_rules::{Game, Rules};
use croupier_tournament::matches::{self, RulesArgs};
use std::sync::Arc;
use std::time::Instant;

/// Runs every benchmark (or the one section `only` names) and prints the figures; `no_pool`
/// as in [`runtime`].
pub fn run(quick: bool, only: Option<&str>, no_pool: bool) -> Result<Vec<Figure>> {
    let rounds = if quick { 3 } else { 7 };
    let mut figs: Vec<Figure> = Vec::new();
    let mut put = |name: &str, value: f64, unit: &str| {
        println!("  {name:<58} {value:>12.3} {unit}");
        figs.push(Figure {
            name: name.into(),
            value,
            unit: unit.into(),
        });
    };
    println!(
        "croupier-bench · {} cores · medians of {rounds} rounds",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    if only == Some("fuel") {
        println!("\nfuel against wall time: ns per unit of fuel, by access pattern (sandboxed)");
        fuel_rates(&mut put, if quick { 1 } else { 4 }, rounds)?;
        return Ok(figs);
    }
    if only == Some("match") {
        let host = runtime(no_pool)?;
        match_figures(&mut put, &host, quick, rounds)?;
        return Ok(figs);
    }
    if only == Some("search") {
        let host = runtime(no_pool)?;
        crate::search::search_figures(&mut put, &host, quick, rounds)?;
        return Ok(figs);
    }

    // Issue: how much does crossing into the sandbox cost per decision?
    println!(
        "\ndecisions through the sandbox vs native (durak classic, 2000 real decision points)"
    );
    let host = runtime(no_pool)?;
    let (_, classic) = matches::setup::options::<Durak>(&RulesArgs::default())?;
    let points = decision_points::<Durak>(&classic, if quick { 500 } else { 2000 });
    let info = start_info::<Durak>(&classic);
    let native_first: Arc<dyn PlayerFactory<Durak>> =
        Arc::new(NativeFactory::<Durak, First>::new(host.limits.clone()));
    let native_cheapest: Arc<dyn PlayerFactory<Durak>> = Arc::new(NativeFactory::<
        Durak,
        durak_cheapest::Cheapest,
    >::new(host.limits.clone()));
    let trivial = trivial_wasm();
    let pairs: Vec<BenchPair> = vec![
        (
            "trivial (first legal action)",
            trivial
                .as_ref()
                .and_then(|p| wasm_factory::<Durak>(&host, &p.display().to_string()).ok()),
            native_first,
        ),
        (
            "realistic (durak/cheapest)",
            wasm_factory::<Durak>(&host, "durak/cheapest").ok(),
            native_cheapest.clone(),
        ),
        (
            // The same strategy in C (c-agents/durak-cheapest): the issue's "C within 1.5x".
            "realistic in C (durak/c-cheapest)",
            wasm_factory::<Durak>(&host, "durak/c-cheapest").ok(),
            native_cheapest.clone(),
        ),
    ];
    for (label, wasm, native) in pairs {
        let mut n = native.make(1).map_err(|f| anyhow::anyhow!("{f}"))?;
        n.start(&info).map_err(|f| anyhow::anyhow!("{f}"))?;
        let ns_native = ns_per_decision(n.as_mut(), &points, rounds)?;
        put(&format!("{label}: native"), ns_native, "ns/decision");
        let Some(wasm) = wasm else {
            println!("  ({label}: component not built; run scripts/setup.sh and the tests)");
            continue;
        };
        let mut w = wasm.make(1).map_err(|f| anyhow::anyhow!("{f}"))?;
        w.start(&info).map_err(|f| anyhow::anyhow!("{f}"))?;
        let ns_wasm = ns_per_decision(w.as_mut(), &points, rounds)?;
        put(&format!("{label}: sandboxed"), ns_wasm, "ns/decision");
        put(
            &format!("{label}: boundary (sandboxed − native)"),
            ns_wasm - ns_native,
            "ns/decision",
        );
        put(
            &format!("{label}: ratio"),
            ns_wasm / ns_native.max(1e-9),
            "×",
        );
    }
    if only == Some("boundary") {
        return Ok(figs);
    }

    println!("\ninstantiating an agent for a game (fresh store + instance + start)");
    let cheapest = wasm_factory::<Durak>(&host, "durak/cheapest").context("durak/cheapest")?;
    let n = if quick { 500 } else { 3000 };
    let mut inst = Vec::with_capacity(n);
    let mut with_start = Vec::with_capacity(n);
    let mut teardown = Vec::with_capacity(n);
    for i in 0..n {
        let t = Instant::now();
        let mut p = cheapest
            .make(i as u64)
            .map_err(|f| anyhow::anyhow!("{f}"))?;
        let made = t.elapsed();
        p.start(&info).map_err(|f| anyhow::anyhow!("{f}"))?;
        inst.push(made.as_secs_f64() * 1e6);
        with_start.push(t.elapsed().as_secs_f64() * 1e6);
        // Dropping the store returns the slot to the pool, which resets the touched memory:
        // part of every game's cost too.
        let t = Instant::now();
        drop(p);
        teardown.push(t.elapsed().as_secs_f64() * 1e6);
    }
    put("instantiate: median", median(inst.clone()), "µs");
    put("instantiate: p99", percentile(inst, 0.99), "µs");
    put(
        "instantiate + start: median",
        median(with_start.clone()),
        "µs",
    );
    put(
        "instantiate + start: p99",
        percentile(with_start, 0.99),
        "µs",
    );
    // The same for the C agent, when built (croupier build c-agents/durak-cheapest).
    if let Ok(c) = wasm_factory::<Durak>(&host, "durak/c-cheapest") {
        let mut times = Vec::with_capacity(n);
        for i in 0..n {
            let t = Instant::now();
            let mut p = c.make(i as u64).map_err(|f| anyhow::anyhow!("{f}"))?;
            p.start(&info).map_err(|f| anyhow::anyhow!("{f}"))?;
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
        put(
            "instantiate + start, C (durak/c-cheapest): median",
            median(times),
            "µs",
        );
    }
    put("teardown (slot reset): median", median(teardown), "µs");

    language_figures(&mut put, &host, &points, &info, rounds)?;
    crate::search::search_figures(&mut put, &host, quick, rounds)?;

    println!("\nloading a component (durak/cheapest): compile vs the compiled cache");
    let spec =
        croupier_host::registry::resolve("durak/cheapest").map_err(|e| anyhow::anyhow!("{e}"))?;
    let bytes = std::fs::read(&spec.path)?;
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    let dir = std::env::temp_dir().join(format!("croupier-bench-cache-{}", std::process::id()));
    let cache = croupier_host::cache::Cache::at(&dir).map_err(|e| anyhow::anyhow!(e))?;
    for _ in 0..rounds {
        let t = Instant::now();
        // Cold: the compiling child process included, as every first load pays it.
        loader::check_and_compile(
            &host.engine,
            &croupier_host::cache::Cache::disabled(),
            &host.limits,
            &spec.path,
            &bytes,
        )?;
        cold.push(t.elapsed().as_secs_f64() * 1e3);
        loader::check_and_compile(&host.engine, &cache, &host.limits, &spec.path, &bytes)?;
        let t = Instant::now();
        loader::check_and_compile(&host.engine, &cache, &host.limits, &spec.path, &bytes)?;
        warm.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let _ = std::fs::remove_dir_all(&dir);
    put(
        "load without the cache (compile in a child process)",
        median(cold),
        "ms",
    );
    put("load from the cache", median(warm), "ms");

    match_figures(&mut put, &host, quick, rounds)?;

    println!("\nrules engines alone: random play, native, 1 thread");
    rules_rates(&mut put, if quick { 300 } else { 3000 }, rounds);

    // Hardening finding 6: fuel is the deterministic budget, but the wall clock is the
    // backstop; the default deadline must sit above the slowest code fuel allows.
    println!("\nfuel against wall time: ns per unit of fuel, by access pattern (sandboxed)");
    fuel_rates(&mut put, if quick { 1 } else { 4 }, rounds)?;
    Ok(figs)
}

/// Source A's match (the issue's main job) on 1 and 2 threads, sandboxed and native.
fn match_figures(
    put: &mut dyn FnMut(&str, f64, &str),
    host: &croupier_host::Runtime,
    quick: bool,
    rounds: usize,
) -> Result<()> {
    println!("\nsource A's match: 1000 games, durak teams, random-lead vs trump-tosser");
    let (_, teams) = matches::setup::options::<Durak>(&RulesArgs {
        rules: Some("teams".into()),
        ..Default::default()
    })?;
    let games = if quick { 300 } else { 1000 };
    let sandboxed = [
        entrant::<Durak>(
            "random-lead",
            wasm_factory::<Durak>(host, "durak/random-lead")?,
        ),
        entrant::<Durak>(
            "trump-tosser",
            wasm_factory::<Durak>(host, "durak/trump-tosser")?,
        ),
    ];
    let native = [
        entrant::<Durak>(
            "random-lead",
            Arc::new(NativeFactory::<Durak, durak_random_lead::RandomLead>::new(
                host.limits.clone(),
            )),
        ),
        entrant::<Durak>(
            "trump-tosser",
            Arc::new(
                NativeFactory::<Durak, durak_trump_tosser::TrumpTosser>::new(host.limits.clone()),
            ),
        ),
    ];
    // The four runs alternate round by round, and each ratio is the median of the rounds'
    // own ratios: on a shared machine the speed drifts by 10-20% over a minute, and runs
    // taken one configuration after another put that drift into the ratios.
    let (mut s1, mut s2, mut n1, mut n2) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut asked = 0.0;
    for _ in 0..rounds {
        let (t, a) = match_time(&teams, &sandboxed, games, 1)?;
        s1.push(t);
        asked = a;
        s2.push(match_time(&teams, &sandboxed, games, 2)?.0);
        n1.push(match_time(&teams, &native, games, 1)?.0);
        n2.push(match_time(&teams, &native, games, 2)?.0);
    }
    let ratio =
        |a: &[f64], b: &[f64]| median(a.iter().zip(b).map(|(x, y)| x / y.max(1e-9)).collect());
    let (sandbox_ratio, speed_up) = (ratio(&s1, &n1), ratio(&s1, &s2));
    let (s1, s2, n1, n2) = (median(s1), median(s2), median(n1), median(n2));
    // Forced moves are never sent, so this is what crosses the boundary in a game.
    put("agent decisions per game (real choices only)", asked, "");
    put(
        &format!("sandboxed, 1 thread ({games} games)"),
        s1 * 1e3,
        "ms",
    );
    put(
        &format!("sandboxed, 2 threads ({games} games)"),
        s2 * 1e3,
        "ms",
    );
    put(&format!("native, 1 thread ({games} games)"), n1 * 1e3, "ms");
    put(
        &format!("native, 2 threads ({games} games)"),
        n2 * 1e3,
        "ms",
    );
    put("sandboxed games/s, 2 threads", games as f64 / s2, "games/s");
    put("sandboxed / native, 1 thread", sandbox_ratio, "×");
    put("2 threads speed-up (sandboxed)", speed_up, "×");

    Ok(())
}

/// Guest code for [`fuel_rates`]: an array of 12 Mi `u32` (48 MiB) made into one random
/// cycle (Sattolo's shuffle), and loops that each take `steps` steps of one pattern.
const FUEL_PATTERNS: &str = r#"(module
  (memory (export "mem") 769)
  (func (export "init") (param $n i32)
    (local $i i32) (local $j i32) (local $x i32) (local $t i32)
    ;; a[i] = the byte address of a[i], for i in 1..n
    (local.set $i (i32.const 1))
    (loop $fill
      (i32.store (i32.shl (local.get $i) (i32.const 2)) (i32.shl (local.get $i) (i32.const 2)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $fill (i32.lt_u (local.get $i) (local.get $n))))
    ;; Sattolo over 1..n: one cycle through every element, never through address 0
    (local.set $x (i32.const 12345))
    (local.set $i (i32.sub (local.get $n) (i32.const 1)))
    (loop $shuffle
      (local.set $x (i32.add (i32.mul (local.get $x) (i32.const 1103515245)) (i32.const 12345)))
      (local.set $j (i32.add (i32.const 1)
        (i32.rem_u (i32.shr_u (local.get $x) (i32.const 1)) (i32.sub (local.get $i) (i32.const 1)))))
      (local.set $t (i32.load (i32.shl (local.get $i) (i32.const 2))))
      (i32.store (i32.shl (local.get $i) (i32.const 2)) (i32.load (i32.shl (local.get $j) (i32.const 2))))
      (i32.store (i32.shl (local.get $j) (i32.const 2)) (local.get $t))
      (local.set $i (i32.sub (local.get $i) (i32.const 1)))
      (br_if $shuffle (i32.gt_u (local.get $i) (i32.const 1)))))
  ;; The cheapest miss fuel can buy: 4 operators per dependent load, until fuel runs out.
  (func (export "chase") (param $p i32) (result i32)
    (loop $l (br_if $l (local.tee $p (i32.load (local.get $p)))))
    (local.get $p))
  (func (export "arith") (param $steps i32) (result i32)
    (local $x i32)
    (loop $l
      (local.set $x (i32.add (i32.mul (local.get $x) (i32.const 31)) (i32.const 7)))
      (br_if $l (local.tee $steps (i32.sub (local.get $steps) (i32.const 1)))))
    (local.get $x))
  (func (export "divide") (param $steps i32) (result i32)
    (local $x i64)
    (loop $l
      (local.set $x (i64.div_u (i64.const -1) (i64.or (local.get $x) (i64.const 3))))
      (br_if $l (local.tee $steps (i32.sub (local.get $steps) (i32.const 1)))))
    (i32.wrap_i64 (local.get $x)))
  (func (export "fill") (param $steps i32) (result i32)
    (loop $l
      (memory.fill (i32.const 0) (local.get $steps) (i32.const 1048576))
      (br_if $l (local.tee $steps (i32.sub (local.get $steps) (i32.const 1)))))
    (i32.const 0)))"#;

/// Wall time per unit of fuel for the access patterns fuel is cheapest on: what a decision
/// that stays within its fuel budget can cost in time (the reasoning in `limits.rs`).
fn fuel_rates(put: &mut dyn FnMut(&str, f64, &str), scale: u32, rounds: usize) -> Result<()> {
    use wasmtime::{Instance, Module, Store};
    let limits = croupier_host::limits::Limits::default();
    let engine = croupier_host::engine::shared()?;
    let module = Module::new(&engine, FUEL_PATTERNS)?;
    let mut store = Store::new(&engine, ());
    store.set_epoch_deadline(u64::MAX / 2);
    store.set_fuel(u64::MAX / 2)?;
    let instance = Instance::new(&mut store, &module, &[])?;
    instance
        .get_typed_func::<i32, ()>(&mut store, "init")?
        .call(&mut store, 12 << 20)?;
    let mut worst: f64 = 0.0;
    let chase = instance.get_typed_func::<i32, i32>(&mut store, "chase")?;
    let mut per = Vec::new();
    for _ in 0..rounds {
        // The chase runs until its fuel is gone (it has no other end).
        let fuel = 5_000_000 * u64::from(scale);
        store.set_fuel(fuel)?;
        let t = Instant::now();
        let r = chase.call(&mut store, 4);
        let ns = t.elapsed().as_nanos() as f64;
        if !matches!(
            r.as_ref()
                .err()
                .and_then(|e| e.downcast_ref::<wasmtime::Trap>()),
            Some(wasmtime::Trap::OutOfFuel)
        ) {
            anyhow::bail!("the pointer chase should have run out of fuel");
        }
        per.push(ns / fuel as f64);
    }
    let m = median(per);
    worst = worst.max(m);
    put(
        "pointer chase (48 MiB): wall time per unit of fuel",
        m,
        "ns/fuel",
    );
    store.set_fuel(u64::MAX / 2)?;
    for (name, steps) in [
        ("arith", 20_000_000 * scale),
        ("divide", 5_000_000 * scale),
        ("fill", 200 * scale),
    ] {
        let f = instance.get_typed_func::<i32, i32>(&mut store, name)?;
        let mut per = Vec::new();
        for _ in 0..rounds {
            let fuel0 = store.get_fuel()?;
            let t = Instant::now();
            f.call(&mut store, steps as i32)?;
            let ns = t.elapsed().as_nanos() as f64;
            let fuel = fuel0.saturating_sub(store.get_fuel()?).max(1);
            per.push(ns / fuel as f64);
        }
        let m = median(per);
        worst = worst.max(m);
        put(&format!("{name}: wall time per unit of fuel"), m, "ns/fuel");
    }
    put(
        "worst pattern: wall time of a whole default fuel budget",
        worst * limits.fuel_per_decision as f64 / 1e6,
        "ms",
    );
    put(
        "default deadline over that worst case (margin)",
        f64::from(limits.millis_per_decision) * 1e6 / (worst * limits.fuel_per_decision as f64),
        "×",
    );
    Ok(())
}

fn rules_rates(put: &mut dyn FnMut(&str, f64, &str), games: u64, rounds: usize) {
    fn each<G: Game>(put: &mut dyn FnMut(&str, f64, &str), games: u64, rounds: usize) {
        for p in G::Options::presets() {
            if let Ok(o) = G::Options::preset(p.name) {
                let rate = rules_games_per_s::<G>(&o, games, rounds);
                put(&format!("{} {}", G::NAME, p.name), rate, "games/s");
            }
        }
    }
    each::<croupier_rules::durak::Durak>(put, games, rounds);
    each::<croupier_rules::toepen::Toepen>(put, games, rounds);
    each::<croupier_rules::uno::Uno>(put, games, rounds);
}

/// Trivial agents (the first legal action) of other languages, when they are built: size,
/// instantiation per game and decisions per second (issue #18's per-language figures).
fn language_figures(
    put: &mut dyn FnMut(&str, f64, &str),
    host: &Runtime,
    points: &[(<Durak as Game>::Observation, Vec<<Durak as Game>::Action>)],
    info: &StartInfo,
    rounds: usize,
) -> Result<()> {
    println!("\nother languages: trivial agents (first legal action), when built");
    for (lang, spec) in [
        ("Python", "durak/python-first"),
        ("JavaScript", "durak/js-first"),
    ] {
        let Ok(agent) = croupier_host::registry::resolve(spec) else {
            println!("  ({lang}: {spec} is not built; run `croupier build`)");
            continue;
        };
        let size = std::fs::metadata(&agent.path).map(|m| m.len()).unwrap_or(0);
        put(&format!("{lang}: component size"), size as f64 / 1e6, "MB");
        let factory = wasm_factory::<Durak>(host, spec)?;
        let mut inst = Vec::new();
        for i in 0..rounds.max(5) * 4 {
            let t = Instant::now();
            let mut p = factory.make(i as u64).map_err(|f| anyhow::anyhow!("{f}"))?;
            p.start(info).map_err(|f| anyhow::anyhow!("{f}"))?;
            inst.push(t.elapsed().as_secs_f64() * 1e3);
        }
        put(
            &format!("{lang}: instantiate + start, median"),
            median(inst),
            "ms",
        );
        let mut p = factory.make(1).map_err(|f| anyhow::anyhow!("{f}"))?;
        p.start(info).map_err(|f| anyhow::anyhow!("{f}"))?;
        let ns = ns_per_decision(p.as_mut(), points, rounds)?;
        put(
            &format!("{lang}: decisions per second"),
            1e9 / ns.max(1.0),
            "/s",
        );
    }
    Ok(())
}
