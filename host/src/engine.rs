//! The one place that configures wasmtime, with the reason for each setting.
//!
//! Threat model for the pools: the pooling allocator's slots are shared by every agent of the
//! process. A component may legally hold several core instances, memories and tables, so the
//! pool is sized from the per-component maxima times the number of agents that can be alive
//! at once: however an agent is built, it cannot run the pool dry for the others. A component
//! over a per-component maximum is refused when it is loaded, and if a pool still runs dry
//! that is reported as the host's error, never as an agent's verdict
//! ([`crate::sandbox::MakeError::Host`]).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use wasmtime::{
    Config, Enabled, Engine, InstanceAllocationStrategy, OptLevel, PoolingAllocationConfig,
};

/// One epoch tick. The per-decision deadline is counted in ticks, so this is the resolution
/// of the wall-clock backstop.
pub const EPOCH_TICK: Duration = Duration::from_millis(1);

/// Agent instances that may be alive at once: up to 64 threads × 10 seats, plus slack for
/// validation. Pool slots are only virtual memory until touched. The match runner keeps
/// `threads × seats` within this (see [`max_threads`]).
pub const POOL_INSTANCES: u32 = 1000;

/// Per component: core instances, linear memories and tables. A Rust agent has 1 core
/// instance (plus the adapter shims), 1 memory and 1 table; componentize-py's Python agent
/// has about a dozen core instances. A component over any of these is refused at load.
const MAX_CORE_INSTANCES_PER_COMPONENT: u32 = 64;
const MAX_MEMORIES_PER_COMPONENT: u32 = 4;
const MAX_TABLES_PER_COMPONENT: u32 = 8;

/// Pool slots kept free for loading and trial runs while a match runs.
const POOL_SLACK: u32 = 40;

/// The most match threads that can run with `seats` sandboxed agents each without the pool
/// running dry.
pub fn max_threads(seats: usize) -> usize {
    ((POOL_INSTANCES - POOL_SLACK) as usize / seats.max(1)).max(1)
}

/// The address space reserved for each linear memory: a 32-bit memory's whole range, the most
/// any memory limit can give (`Limits::MAX_MEMORY_MIB`). It is one figure for every limit
/// because wasmtime's compatibility hash includes it: a component compiled once then loads
/// under any `--memory`, and one engine and one pool serve them all. The limit itself is the
/// store's ([`crate::store::Limiter`]). The pool's 4 000 memory slots reserve 16 TiB of
/// address space, of the 128 TiB a process has; only touched pages cost memory.
pub const MEMORY_RESERVATION: u64 = 4 << 30;

/// Bytes per linear memory (and table) that a returned pool slot keeps mapped and resets by
/// hand. A typical agent touches a few hundred KiB per game; bigger users pay madvise.
const KEEP_RESIDENT: usize = 4 << 20;

/// The configuration every engine shares: the one agents run in, and the one a compiling
/// child process uses ([`compiler`]), so that what the child compiles the parent can load.
/// No limit affects it: every limit is applied per store.
fn config() -> Config {
    let mut config = Config::new();
    // Agents are components (WIT contract); core modules are refused before compilation.
    config.wasm_component_model(true);
    // Fuel is the deterministic per-decision budget: the same agent spends the same fuel on
    // every machine, so a budget decides games reproducibly.
    config.consume_fuel(true);
    // Epoch interruption is the wall-clock backstop for what fuel cannot see. It costs 0–8%
    // on Rust guests (docs/wasmtime.md#measured-costs).
    config.epoch_interruption(true);
    // Optimised code: agents are compiled once per file (and cached on disk), then run for
    // thousands of games.
    config.cranelift_opt_level(OptLevel::Speed);
    // A bounded wasm stack so deep recursion traps as StackOverflow long before the host's
    // own stack is at risk.
    config.max_wasm_stack(512 * 1024);
    // Explicit bounds checks instead of guard pages and signal handlers. Agents are
    // instantiated per game, and Rust's allocator grows memory in every game; with guard
    // pages each growth and each slot reset is an mprotect, which takes the process-wide
    // memory-map lock and flushes the other cores' TLBs. That serialised the threads: two
    // threads ran source A's match 1.17× faster than one; without guard pages, 1.95×
    // (docs/benchmarks-history.md). The checks cost a compare per memory access, and fuel
    // (the budget that decides games) does not change. Cranelift's Spectre masking of heap and table
    // accesses needs signal-based traps, so it is off: an agent has no clock, no threads and
    // no shared memory, so it has no timer with which to read a cache side channel.
    config.signals_based_traps(false);
    config.memory_guard_size(0);
    // A memory never moves inside its reservation, so the code may keep its base in a
    // register (`memory_may_move` is off for every 32-bit memory).
    config.memory_reservation(MEMORY_RESERVATION);
    // SAFETY: both flags exist in this Cranelift and only turn the masking off.
    unsafe {
        config.cranelift_flag_set("enable_heap_access_spectre_mitigation", "false");
        config.cranelift_flag_set("enable_table_access_spectre_mitigation", "false");
    }
    // Threads, shared memory and async are compiled out (Cargo features), which keeps the
    // sandbox small and the call path short: the features cut a call from 1.6 to 1.0 µs.
    // `CROUPIER_PERFMAP=1` writes /tmp/perf-PID.map so that `perf report` names the agents'
    // functions (how the figures of
    // docs/benchmarks-history.md#what-the-profile-showed-and-what-was-fixed were profiled).
    if std::env::var_os("CROUPIER_PERFMAP").is_some() {
        config.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    config
}

/// The engine of a compiling child process: the same code generation as [`build`], but no
/// pool (it never instantiates) and no epoch ticker, so that it fits in a small address
/// space limit. With `functions`, each function's machine code is taken from that store
/// when an earlier compile made it, and kept there otherwise (the code is the same either
/// way; [`crate::functions`]).
pub fn compiler(
    functions: Option<std::sync::Arc<crate::functions::FunctionStore>>,
) -> anyhow::Result<Engine> {
    let mut config = config();
    config.allocation_strategy(InstanceAllocationStrategy::OnDemand);
    if let Some(store) = functions {
        config.enable_incremental_compilation(store)?;
    }
    Ok(Engine::new(&config)?)
}

/// Builds an engine agents run in. A process needs one ([`shared`]): it serves every limit.
pub fn build() -> anyhow::Result<Engine> {
    let mut config = config();
    // Pooling allocator: instantiating a fresh instance per agent per game costs a few
    // microseconds instead of mmap/munmap per instance. A slot is the memory's whole
    // reservation; the store's limiter refuses any growth past the memory limit, the
    // initial size included.
    let keep_resident = if PoolingAllocationConfig::is_pagemap_scan_available() {
        KEEP_RESIDENT
    } else {
        0
    };
    let mut pool = PoolingAllocationConfig::default();
    // Totals are the per-component maxima times the live instances, so that no component,
    // however built, can take another agent's slots (hardening finding 5). Core instances
    // are only counted; memories and tables are virtual address space until touched.
    pool.total_component_instances(POOL_INSTANCES)
        .total_core_instances(POOL_INSTANCES * MAX_CORE_INSTANCES_PER_COMPONENT)
        .total_memories(POOL_INSTANCES * MAX_MEMORIES_PER_COMPONENT)
        .total_tables(POOL_INSTANCES * MAX_TABLES_PER_COMPONENT)
        .max_memories_per_component(MAX_MEMORIES_PER_COMPONENT)
        .max_tables_per_component(MAX_TABLES_PER_COMPONENT)
        .max_core_instances_per_component(MAX_CORE_INSTANCES_PER_COMPONENT)
        .max_memory_size(MEMORY_RESERVATION as usize)
        // Reset a returned slot by rewriting only the pages the agent touched (found with
        // Linux's PAGEMAP_SCAN, kernel 6.7 and later) instead of madvise: madvise and the
        // page faults after it cost 0.4 s of system time per 1000 games and, like mprotect,
        // flush the other cores' TLBs. Without PAGEMAP_SCAN, keeping memory resident would
        // mean a memset of the whole KEEP_RESIDENT every game, so madvise stays.
        .linear_memory_keep_resident(keep_resident)
        .table_keep_resident(keep_resident)
        .pagemap_scan(Enabled::Auto);
    config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    let engine = Engine::new(&config)?;
    start_epoch_ticker(&engine)?;
    Ok(engine)
}

/// The code-generation switches that `croupier-bench --only search` turns off one at a time
/// to price each (issue #19): fuel metering, epoch checks and explicit bounds checks (and
/// Cranelift's inliner, turned on). Agents
/// always run with [`Levers::PLAY`]; the others exist only to be measured. Without fuel there
/// is no deterministic budget, without epochs no wall-clock backstop, and guard pages bring
/// back the mprotect per memory growth that serialised the threads (see `config`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Levers {
    /// Fuel metering (the deterministic budget).
    pub fuel: bool,
    /// Epoch checks (the wall-clock backstop).
    pub epoch: bool,
    /// Explicit bounds checks; `false` is guard pages and signal handlers instead.
    pub bounds_checks: bool,
    /// Cranelift's inliner (`Config::compiler_inlining`, off by default in wasmtime 48 and 49). It
    /// inlines across core modules and adapters; a Rust agent is one core module that LLVM
    /// has already inlined, so it is measured before it is considered.
    pub inlining: bool,
}

impl Levers {
    /// What agents run with.
    pub const PLAY: Levers = Levers {
        fuel: true,
        epoch: true,
        bounds_checks: true,
        inlining: false,
    };
}

/// An engine with some of [`Levers::PLAY`] turned off, for measurement only (never for
/// play: see [`Levers`]). No pool (instances are made on demand), so that guard pages need
/// no pool-wide reservation; per-decision figures do not depend on it.
pub fn measuring(levers: Levers) -> anyhow::Result<Engine> {
    let mut config = config();
    config.allocation_strategy(InstanceAllocationStrategy::OnDemand);
    config.consume_fuel(levers.fuel);
    config.epoch_interruption(levers.epoch);
    if levers.inlining {
        config.compiler_inlining(wasmtime::Inlining::Yes);
    }
    if !levers.bounds_checks {
        // wasmtime's 64-bit defaults: the 4 GiB reservation and a 32 MiB guard, which lets
        // Cranelift drop the check on every access with a small static offset.
        config.signals_based_traps(true);
        config.memory_guard_size(32 << 20);
    }
    let engine = Engine::new(&config)?;
    if levers.epoch {
        start_epoch_ticker(&engine)?;
    }
    Ok(engine)
}

/// Ticks counted by the ticker since it started: a clock with the epoch's resolution that
/// costs an atomic load to read (the per-game wall budget is kept in it).
static TICKS: AtomicU64 = AtomicU64::new(0);

/// Epoch ticks since the process's first engine was built.
pub fn ticks() -> u64 {
    TICKS.load(Ordering::Relaxed)
}

/// One background thread for the process advances every engine's epoch and [`ticks`] once a
/// tick. It holds only weak handles, so a dropped engine is simply forgotten.
fn start_epoch_ticker(engine: &Engine) -> anyhow::Result<()> {
    type Engines = std::sync::Mutex<Vec<wasmtime::EngineWeak>>;
    static ENGINES: OnceLock<Engines> = OnceLock::new();
    let mut started = None;
    let list = ENGINES.get_or_init(|| {
        started = Some(());
        Default::default()
    });
    list.lock()
        .map_err(|_| anyhow::anyhow!("epoch ticker poisoned"))?
        .push(engine.weak());
    if started.is_some() {
        std::thread::Builder::new()
            .name("croupier-epoch".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(EPOCH_TICK);
                    TICKS.fetch_add(1, Ordering::Relaxed);
                    let Ok(mut engines) = list.lock() else {
                        return;
                    };
                    engines.retain(|w| match w.upgrade() {
                        Some(e) => {
                            e.increment_epoch();
                            true
                        }
                        None => false,
                    });
                }
            })?;
    }
    Ok(())
}

/// The process's engine, so that validation and matches share compiled code, the pool and
/// the ticker whatever their limits. Built on first use; a failure is returned, and the next
/// call tries again.
pub fn shared() -> anyhow::Result<Engine> {
    static ENGINE: std::sync::Mutex<Option<Engine>> = std::sync::Mutex::new(None);
    let mut engine = ENGINE
        .lock()
        .map_err(|_| anyhow::anyhow!("engine registry poisoned"))?;
    if let Some(e) = engine.as_ref() {
        // An `Engine` is a cheap handle: clones share one engine.
        return Ok(e.clone());
    }
    let e = build()?;
    *engine = Some(e.clone());
    Ok(e)
}
