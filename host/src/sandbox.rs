//! One agent instance for one game: its store, limits, log and calls.
//!
//! A trap poisons the whole `Store` (docs/wasmtime.md#traps), so every agent gets a fresh store
//! and instance per game, created from a pre-linked `InstancePre` in a few microseconds, and
//! a store that trapped is never entered again.

use crate::adapters::Adapter;
use crate::engine::EPOCH_TICK;
use crate::limits::Limits;
use crate::start::StartInfo;
use crate::verdict::{Fault, Verdict};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};
use wasmtime::component::Linker;
use wasmtime::{Engine, Store, Trap};

pub use crate::store::{AgentLog, Limiter, LogLine, StoreData};
pub use crate::text::escape;

/// A linker holding exactly what agents may import for game `G`, in every supported
/// contract version.
pub fn linker<G: Adapter>(engine: &Engine) -> wasmtime::Result<Linker<StoreData>> {
    let mut linker = Linker::new(engine);
    G::add_to_linker(&mut linker)?;
    Ok(linker)
}

/// Counters for one agent in one game.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CallStats {
    /// Decisions the agent was asked.
    pub decisions: u64,
    /// Fuel those decisions burnt, over the decisions whose fuel is known.
    pub fuel: u64,
    /// Decisions whose fuel is unknown: stopped by a trap inside pure wasm code (the
    /// wall-clock deadline, an out-of-bounds access), where wasmtime 48 and 49 keep the fuel
    /// counter in a register and do not write it back before trapping (cranelift
    /// `epoch_check_full` calls `new_epoch` without `fuel_save_from_var`; upstream
    /// bytecodealliance/wasmtime#13802). Such a decision is left out of the fuel figures
    /// rather than counted at the few dozen units the stale counter shows.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fuel_unknown: u64,
    /// The most fuel one of those decisions burnt: how close the agent came to the
    /// per-decision limit (an agent that prices its own work states its margin by it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fuel_max: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl CallStats {
    /// Decisions whose fuel is counted in `fuel`.
    pub fn fuel_decisions(&self) -> u64 {
        self.decisions.saturating_sub(self.fuel_unknown)
    }

    /// Counts one decision's known fuel.
    pub fn count_fuel(&mut self, spent: u64) {
        self.fuel += spent;
        self.fuel_max = self.fuel_max.max(spent);
    }
}

/// Why an agent instance could not be made: the agent's fault, or the host's.
#[derive(Debug)]
pub enum MakeError {
    /// The agent failed (its start function trapped, ran out of fuel, ...): a verdict.
    Agent(Fault),
    /// The host ran out of one of its own resources (a pool of instances, memories or
    /// tables shared by every agent). Never an agent's verdict: the game is not scored.
    Host(String),
}

impl std::fmt::Display for MakeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MakeError::Agent(fault) => write!(f, "{fault}"),
            MakeError::Host(e) => write!(f, "host error: {e}"),
        }
    }
}

impl From<Fault> for MakeError {
    fn from(f: Fault) -> Self {
        MakeError::Agent(f)
    }
}

/// A live agent instance for one game.
pub struct WasmAgent<G: Adapter> {
    store: Store<StoreData>,
    bindings: G::Bindings,
    limits: Limits,
    bank_left: Option<Duration>,
    /// Epoch ticks left of the game's wall-clock net (`Limits::game_millis`).
    game_ticks_left: u64,
    /// Fuel left of the game's budget (`Limits::game_fuel`).
    game_fuel_left: u64,
    /// Epoch ticks of one decision's deadline without a time bank.
    decision_ticks: u64,
    legal: Vec<u32>,
    scratch: G::Scratch,
    /// Set after any trap: the store is poisoned and must not be entered again.
    pub dead: bool,
    /// Decisions asked and fuel burnt so far in this game.
    pub stats: CallStats,
    /// The build this instance runs (set by its factory), for the game record.
    pub build: String,
}

impl<G: Adapter> WasmAgent<G> {
    /// A fresh store and instance. `seed` seeds the agent's `random` import.
    pub fn instantiate(
        engine: &Engine,
        pre: &G::Pre,
        limits: &Limits,
        seed: u64,
    ) -> Result<Self, MakeError> {
        let data = StoreData::new(limits, seed);
        let mut store = Store::new(engine, data);
        store.limiter(|d| &mut d.limiter);
        store.epoch_deadline_trap();
        let start_fuel = limits.start_fuel.min(limits.game_fuel);
        set_budget(
            &mut store,
            start_fuel,
            ticks_for(limits.millis_per_decision),
        );
        let bindings = match G::instantiate(pre, &mut store) {
            Ok(b) => b,
            // The engine's pools are shared by all agents: running dry is the host's
            // problem, and an innocent agent must not forfeit for it.
            Err(e)
                if e.downcast_ref::<wasmtime::PoolConcurrencyLimitError>()
                    .is_some() =>
            {
                return Err(MakeError::Host(format!("{e:#}")));
            }
            Err(e) => {
                return Err(MakeError::Agent(classify(
                    e,
                    &store,
                    "while being instantiated",
                )));
            }
        };
        // Instantiating runs the guest's initialisers: their fuel is the game's too.
        let spent = start_fuel.saturating_sub(store.get_fuel().unwrap_or(0));
        Ok(WasmAgent {
            store,
            bindings,
            limits: limits.clone(),
            bank_left: limits
                .time_bank_millis
                .map(|ms| Duration::from_millis(ms.into())),
            game_ticks_left: ticks_for(limits.game_millis),
            game_fuel_left: limits.game_fuel.saturating_sub(spent),
            decision_ticks: ticks_for(limits.millis_per_decision),
            legal: Vec::new(),
            scratch: Default::default(),
            dead: false,
            stats: CallStats::default(),
            build: String::new(),
        })
    }

    /// Calls the agent's `start` under the start budget. Its fuel and time count against the
    /// game's like a decision's.
    pub fn start(&mut self, info: &StartInfo) -> Result<(), Fault> {
        let fuel = self.limits.start_fuel.min(self.game_fuel_left);
        set_budget(
            &mut self.store,
            fuel,
            ticks_for(self.limits.millis_per_decision).min(self.game_ticks_left),
        );
        let tick0 = crate::engine::ticks();
        let r = G::call_start(&self.bindings, &mut self.store, info);
        let used = crate::engine::ticks().saturating_sub(tick0);
        self.game_ticks_left = self.game_ticks_left.saturating_sub(used);
        let left = self.store.get_fuel().unwrap_or(0);
        self.game_fuel_left = self
            .game_fuel_left
            .saturating_sub(fuel.saturating_sub(left));
        r.map_err(|e| self.fail(e, "in `start`"))
    }

    /// Asks for one action. The answer is decoded and checked against `legal`.
    pub fn decide(&mut self, obs: G::Observation, legal: &[G::Action]) -> Result<G::Action, Fault> {
        if self.dead {
            return Err(Fault::new(
                Verdict::Trap,
                "agent already failed in this game",
            ));
        }
        self.legal.clear();
        self.legal
            .extend(legal.iter().map(|a| G::encode_action(*a)));
        let millis = self.limits.millis_per_decision;
        // The decision's own fuel, or what is left of the game's when that is less: the agent
        // is told the smaller, so a search agent plans by it.
        let fuel = self.limits.fuel_per_decision.min(self.game_fuel_left);
        let game_fuel_binds = fuel < self.limits.fuel_per_decision;
        let budget = crate::contract::Budget {
            fuel,
            millis,
            bank_millis: self.bank_left.map(|b| b.as_millis() as u32),
        };
        // Without a bank the deadline is the same every decision (computed once).
        let decision_ticks = match self.bank_left {
            None => self.decision_ticks,
            Some(bank) => {
                let wall = Duration::from_millis(millis.into()) + bank;
                ticks_for(wall.as_millis().min(u32::MAX as u128) as u32)
            }
        };
        // The game's budget caps the deadline; when it is what binds, a TIMEOUT says so.
        let game_binds = self.game_ticks_left < decision_ticks;
        set_budget(
            &mut self.store,
            fuel,
            decision_ticks.min(self.game_ticks_left),
        );
        // The game budget is counted in epoch ticks (an atomic load, no clock read); the
        // clock is read only for a time bank, as two clock reads were 2% of a match.
        // Lines logged during this call belong to decision number `decisions + 1`.
        self.store.data_mut().log.decision = (self.stats.decisions + 1) as u32;
        let tick0 = crate::engine::ticks();
        let t0 = self.bank_left.map(|_| Instant::now());
        let r = G::call_decide(
            &self.bindings,
            &mut self.store,
            obs,
            &self.legal,
            budget,
            &mut self.scratch,
        );
        let used = crate::engine::ticks().saturating_sub(tick0);
        self.game_ticks_left = self.game_ticks_left.saturating_sub(used);
        self.stats.decisions += 1;
        let left = self.store.get_fuel().unwrap_or(0);
        let code = match r {
            Ok(code) => {
                self.spend(fuel.saturating_sub(left));
                code
            }
            Err(e) => {
                let trap = e.downcast_ref::<Trap>().copied();
                let interrupted = trap == Some(Trap::Interrupt);
                // The store's fuel is exact only where the generated code saved its counter:
                // running out of fuel, `unreachable` (a panic), or a host call (a log flood).
                // Any other trap (the epoch deadline, an out-of-bounds access, a division
                // by zero) leaves it stale (see `fuel_unknown`).
                let exact = matches!(
                    trap,
                    None | Some(Trap::OutOfFuel | Trap::UnreachableCodeReached)
                );
                if exact {
                    self.spend(fuel.saturating_sub(left));
                } else {
                    self.stats.fuel_unknown += 1;
                }
                let mut fault = self.fail(e, "for this decision");
                if interrupted && game_binds {
                    fault.message = format!(
                        "used up its wall-time budget of {} ms for this game",
                        self.limits.game_millis
                    );
                }
                if trap == Some(Trap::OutOfFuel) && game_fuel_binds {
                    fault.message = format!(
                        "used up its fuel budget of {} for this game",
                        self.limits.game_fuel
                    );
                }
                return Err(fault);
            }
        };
        if let (Some(b), Some(t0)) = (self.bank_left.as_mut(), t0) {
            let elapsed = t0.elapsed();
            let over = elapsed.saturating_sub(Duration::from_millis(millis.into()));
            if over > *b {
                *b = Duration::ZERO;
                return Err(Fault::new(
                    Verdict::Timeout,
                    format!("decision took {elapsed:?}; the time bank is empty"),
                ));
            }
            *b -= over;
        }
        let Some(action) = G::decode_action(code) else {
            return Err(Fault::new(
                Verdict::MalformedAction,
                format!("answer {code:#010x} is not a {} action", G::NAME),
            ));
        };
        if !legal.contains(&action) {
            return Err(Fault::new(
                Verdict::IllegalAction,
                format!(
                    "`{action}` is not legal now; legal: {}",
                    legal
                        .iter()
                        .map(|a| a.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        Ok(action)
    }

    /// Counts a decision's fuel in its stats and against the game's budget.
    fn spend(&mut self, used: u64) {
        self.stats.count_fuel(used);
        self.game_fuel_left = self.game_fuel_left.saturating_sub(used);
    }

    /// The lines logged since the last call, leaving the log empty but its budget spent.
    pub fn take_log(&mut self) -> Vec<LogLine> {
        self.store.data_mut().log.take()
    }

    /// `during` says which call faulted, as the fuel message words it: "for this
    /// decision", "in `start`".
    fn fail(&mut self, e: wasmtime::Error, during: &str) -> Fault {
        self.dead = true;
        classify(e, &self.store, during)
    }
}

/// Epoch ticks for a wall-clock allowance, rounded up, plus one: the tick under way when a
/// call starts may be nearly over.
fn ticks_for(millis: u32) -> u64 {
    u64::from(millis).div_ceil(EPOCH_TICK.as_millis().max(1) as u64) + 1
}

fn set_budget(store: &mut Store<StoreData>, fuel: u64, ticks: u64) {
    // Setting fuel only fails when fuel is not enabled, which engine::build always does.
    let _ = store.set_fuel(fuel);
    store.set_epoch_deadline(ticks.max(1));
}

/// Turns a wasmtime error into the agent's verdict.
fn classify(e: wasmtime::Error, store: &Store<StoreData>, during: &str) -> Fault {
    let data = store.data();
    let first_line = |e: &wasmtime::Error| {
        // "wasm trap: wasm `unreachable` instruction executed in agent::decide", not
        // wasmtime's multi-line report.
        let what = match e.downcast_ref::<Trap>() {
            Some(t) => t.to_string(),
            None => e.root_cause().to_string(),
        };
        let place = e.downcast_ref::<wasmtime::WasmBacktrace>().and_then(|bt| {
            bt.frames()
                .iter()
                .find_map(|f| f.func_name().map(str::to_string))
        });
        let s = match place {
            Some(f) => format!("{what} in {f}"),
            None => what,
        };
        escape(&s.chars().take(300).collect::<String>())
    };
    if data.log.flooded {
        return Fault::new(Verdict::LogFlood, data.log.flood_message());
    }
    let memory = |d: &StoreData| {
        d.limiter.denied.map(|(cur, want)| {
            Fault::new(
                Verdict::Memory,
                format!(
                    "asked to grow memory from {} to {} KiB; the limit is {} KiB",
                    cur >> 10,
                    want >> 10,
                    d.limiter.max_memory() >> 10
                ),
            )
        })
    };
    match e.downcast_ref::<Trap>() {
        Some(Trap::OutOfFuel) => {
            Fault::new(Verdict::OutOfFuel, format!("ran out of fuel {during}"))
        }
        Some(Trap::Interrupt) => Fault::new(Verdict::Timeout, "ran past the wall-clock deadline"),
        Some(Trap::StackOverflow) => Fault::new(Verdict::StackOverflow, "call stack overflowed"),
        Some(_) => memory(data).unwrap_or_else(|| Fault::new(Verdict::Trap, first_line(&e))),
        None => memory(data).unwrap_or_else(|| Fault::new(Verdict::Trap, first_line(&e))),
    }
}
