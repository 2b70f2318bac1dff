//! The one place that configures wasmtime, with the reason for each setting.

use crate::limits::Limits;
use std::sync::OnceLock;
use std::time::Duration;
use wasmtime::{Config, Engine, InstanceAllocationStrategy, OptLevel, PoolingAllocationConfig};

/// One epoch tick. The per-decision deadline is counted in ticks, so this is the resolution
/// of the wall-clock backstop.
pub const EPOCH_TICK: Duration = Duration::from_millis(1);

/// Agent instances that may be alive at once: up to 64 threads × 10 seats, plus slack for
/// validation. Pool slots are only virtual memory until touched.
const POOL_INSTANCES: u32 = 1000;

/// Builds the engine every agent runs in. Only the memory limit affects the engine itself
/// (it sizes the pooling allocator's slots); the other limits are applied per store.
pub fn build(limits: &Limits) -> anyhow::Result<Engine> {
    let mut config = Config::new();
    // Agents are components (WIT contract); core modules are refused before compilation.
    config.wasm_component_model(true);
    // Fuel is the deterministic per-decision budget: the same agent spends the same fuel on
    // every machine, so a budget decides games reproducibly.
    config.consume_fuel(true);
    // Epoch interruption is the wall-clock backstop for what fuel cannot see. It costs 0–8%
    // on Rust guests (WASMTIME-NOTES.md).
    config.epoch_interruption(true);
    // Optimised code: agents are compiled once per file (and cached on disk), then run for
    // thousands of games.
    config.cranelift_opt_level(OptLevel::Speed);
    // A bounded wasm stack so deep recursion traps as StackOverflow long before the host's
    // own stack is at risk.
    config.max_wasm_stack(512 * 1024);
    // Threads, shared memory and async are compiled out (Cargo features), which keeps the
    // sandbox small and the call path short: the features cut a call from 1.6 to 1.0 µs.
    // Pooling allocator: instantiating a fresh instance per agent per game costs a few
    // microseconds instead of mmap/munmap per instance. Each slot is capped at the memory
    // limit, so a memory bomb cannot grow past it even before the store limiter sees it.
    let mut pool = PoolingAllocationConfig::default();
    pool.total_component_instances(POOL_INSTANCES)
        .total_core_instances(POOL_INSTANCES * 4)
        .total_memories(POOL_INSTANCES * 2)
        .total_tables(POOL_INSTANCES * 4)
        .max_memories_per_component(4)
        .max_tables_per_component(8)
        .max_core_instances_per_component(64)
        .max_memory_size(limits.memory_bytes());
    config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    let engine = Engine::new(&config)?;
    start_epoch_ticker(&engine);
    Ok(engine)
}

/// One background thread per engine advances the epoch every tick. It holds only a weak
/// handle, so it stops by itself when the engine is dropped.
fn start_epoch_ticker(engine: &Engine) {
    let weak = engine.weak();
    std::thread::Builder::new()
        .name("croupier-epoch".into())
        .spawn(move || {
            while let Some(engine) = weak.upgrade() {
                engine.increment_epoch();
                drop(engine);
                std::thread::sleep(EPOCH_TICK);
            }
        })
        .ok();
}

/// Process-wide engines keyed by memory limit, so that validation and matches share
/// compiled code and the ticker.
pub fn shared(limits: &Limits) -> anyhow::Result<Engine> {
    // An `Engine` is a cheap handle (clones share one engine); keyed by memory limit.
    type Registry = std::sync::Mutex<Vec<(u32, Engine)>>;
    static ENGINES: OnceLock<Registry> = OnceLock::new();
    let cell = ENGINES.get_or_init(Default::default);
    let mut list = cell
        .lock()
        .map_err(|_| anyhow::anyhow!("engine registry poisoned"))?;
    if let Some((_, e)) = list.iter().find(|(m, _)| *m == limits.memory_mib) {
        return Ok(e.clone());
    }
    let e = build(limits)?;
    list.push((limits.memory_mib, e.clone()));
    Ok(e)
}
