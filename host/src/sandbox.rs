//! One agent instance for one game: its store, limits, log and calls.
//!
//! A trap poisons the whole `Store` (WASMTIME-NOTES.md), so every agent gets a fresh store
//! and instance per game, created from a pre-linked `InstancePre` in a few microseconds, and
//! a store that trapped is never entered again.

use crate::adapters::Adapter;
use crate::contract::latest as v0_2;
use crate::engine::EPOCH_TICK;
use crate::limits::{LOG_LINE_OVERHEAD, Limits};
use crate::player::StartInfo;
use crate::verdict::{Fault, Verdict};
use croupier_rules::GameRng;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};
use wasmtime::component::{Linker, WasmStr};
use wasmtime::{Engine, ResourceLimiter, Store, StoreContextMut, Trap};

/// One line an agent logged, already escaped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    /// The level: `error`, `warn`, `info` or `debug`.
    pub level: String,
    /// The message, cut to what the budget allowed and escaped.
    pub text: String,
    /// When it was logged: 0 in `start`, `k` during the agent's `k`-th decision (forced moves
    /// are not decisions). `None` in logs written before this was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<u32>,
}

/// The per-game log of one agent, bounded in bytes and in lines.
#[derive(Debug, Default)]
pub struct AgentLog {
    /// The lines kept so far, escaped.
    pub lines: Vec<LogLine>,
    used: usize,
    budget: usize,
    /// Lines charged so far (`lines` may have been taken out).
    count: usize,
    max_lines: usize,
    /// The agent tried to log past its budget.
    pub flooded: bool,
    /// The decision under way (0 in `start`), stamped on each line as [`LogLine::at`] so a
    /// replay can show a line beside the move it explains. Set by the caller before each
    /// decision: one store write per decision, nothing per line beyond the copy.
    pub decision: u32,
}

impl AgentLog {
    /// A log that holds at most `budget` bytes (each line charged
    /// [`LOG_LINE_OVERHEAD`] on top of its text) in at most `max_lines` lines.
    pub fn new(budget: usize, max_lines: usize) -> AgentLog {
        AgentLog {
            budget,
            max_lines,
            ..Default::default()
        }
    }

    /// The log an agent gets under `limits`.
    pub fn for_limits(limits: &Limits) -> AgentLog {
        AgentLog::new(
            limits.log_bytes_per_game as usize,
            limits.log_lines_per_game as usize,
        )
    }

    /// How many bytes of text the next line may still carry: what `log` copies into the
    /// host at most, whatever length the agent passes.
    pub fn room(&self) -> usize {
        self.budget.saturating_sub(self.used + LOG_LINE_OVERHEAD)
    }

    /// Adds a line; `false` (and `flooded`) once the budget would be exceeded.
    pub fn push(&mut self, level: &str, message: &str) -> bool {
        self.push_measured(level, message, message.len())
    }

    /// Adds a line whose text was `len` bytes long, of which `message` holds at most the
    /// first [`AgentLog::room`] bytes (the rest was never copied out of the agent).
    pub fn push_measured(&mut self, level: &str, message: &str, len: usize) -> bool {
        if self.flooded {
            return false;
        }
        // Count the raw bytes plus a fixed cost per line, so that neither escaping nor
        // empty lines smuggle a larger log past the budget.
        let charge = len.saturating_add(LOG_LINE_OVERHEAD);
        if self.count >= self.max_lines || self.used.saturating_add(charge) > self.budget {
            self.flooded = true;
            let mut cut = self.room().min(message.len());
            while !message.is_char_boundary(cut) {
                cut -= 1;
            }
            if cut > 0 && self.count < self.max_lines {
                self.lines.push(LogLine {
                    level: level.to_string(),
                    text: escape(&message[..cut]) + " [truncated]",
                    at: Some(self.decision),
                });
            }
            self.used = self.budget;
            return false;
        }
        self.used += charge;
        self.count += 1;
        self.lines.push(LogLine {
            level: level.to_string(),
            text: escape(message),
            at: Some(self.decision),
        });
        true
    }

    /// Takes the lines out, leaving the counters as they are.
    pub fn take(&mut self) -> Vec<LogLine> {
        std::mem::take(&mut self.lines)
    }

    /// Why the log ended the agent's call.
    pub fn flood_message(&self) -> String {
        if self.count >= self.max_lines {
            format!("logged more than {} lines in one game", self.max_lines)
        } else {
            format!(
                "logged past the budget of {} bytes per game ({} bytes charged per line)",
                self.budget, LOG_LINE_OVERHEAD
            )
        }
    }
}

pub use crate::text::escape;

/// Caps linear memory and tables per store, and remembers a refused growth so that the
/// trap that follows (Rust aborts on allocation failure) is reported as `MEMORY`.
#[derive(Debug)]
pub struct Limiter {
    max_memory: usize,
    /// `(current, desired)` bytes of the first refused growth.
    pub denied: Option<(usize, usize)>,
}

/// Tables hold function references; generous for any real agent, small against a bomb.
const MAX_TABLE_ELEMENTS: usize = 1 << 20;

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.max_memory {
            self.denied.get_or_insert((current, desired));
            return Ok(false);
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= MAX_TABLE_ELEMENTS)
    }

    fn instances(&self) -> usize {
        64
    }
    fn tables(&self) -> usize {
        64
    }
    fn memories(&self) -> usize {
        8
    }
}

/// What a store holds: the limiter, the log and the agent's seeded random stream.
pub struct StoreData {
    /// Caps the store's memory and tables.
    pub limiter: Limiter,
    /// The agent's log for this game.
    pub log: AgentLog,
    rng: GameRng,
}

/// The host's `log`: copies at most what the log still has room for out of the agent's
/// memory (the string is borrowed in place, so a call that passes the whole linear memory
/// costs the host no allocation), then charges the line.
fn host_log(
    mut cx: StoreContextMut<'_, StoreData>,
    level: &'static str,
    message: &WasmStr,
) -> wasmtime::Result<()> {
    let room = cx.data().log.room();
    let (prefix, len) = {
        let text = message.to_str(&cx)?;
        let mut cut = room.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        (text[..cut].to_string(), text.len())
    };
    let log = &mut cx.data_mut().log;
    if log.push_measured(level, &prefix, len) {
        Ok(())
    } else {
        Err(wasmtime::Error::msg(log.flood_message()))
    }
}

/// Defines `croupier:agent/host@VERSION` by hand rather than through the bindings, so that
/// `log` receives the agent's string in place ([`WasmStr`]) instead of a host `String` lifted
/// before any budget check. The `level` enum is the same in every version, so the newest
/// version's type serves them all.
fn add_host_version(linker: &mut Linker<StoreData>, version: &str) -> wasmtime::Result<()> {
    let mut host = linker.instance(&format!("{}/host@{version}", crate::loader::PACKAGE))?;
    host.func_wrap(
        "log",
        |cx: StoreContextMut<'_, StoreData>, (level, message): (v0_2::Level, WasmStr)| {
            let level = match level {
                v0_2::Level::Error => "error",
                v0_2::Level::Warn => "warn",
                v0_2::Level::Info => "info",
                v0_2::Level::Debug => "debug",
            };
            host_log(cx, level, &message)
        },
    )?;
    host.func_wrap(
        "random",
        |mut cx: StoreContextMut<'_, StoreData>, (): ()| Ok((cx.data_mut().rng.next_u64(),)),
    )?;
    Ok(())
}

/// A linker holding exactly what agents may import for game `G`, in every supported
/// contract version.
pub fn linker<G: Adapter>(engine: &Engine) -> wasmtime::Result<Linker<StoreData>> {
    let mut linker = Linker::new(engine);
    G::add_to_linker(&mut linker)?;
    Ok(linker)
}

/// Adds the shared host interfaces of every version (used by each adapter's
/// `add_to_linker`).
pub fn add_host_to_linker(linker: &mut Linker<StoreData>) -> wasmtime::Result<()> {
    for version in crate::contract::numbers() {
        add_host_version(linker, version)?;
    }
    crate::contract::add_common_to_linker(linker)
}

/// Counters for one agent in one game.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CallStats {
    /// Decisions the agent was asked.
    pub decisions: u64,
    /// Fuel those decisions burnt, over the decisions whose fuel is known.
    pub fuel: u64,
    /// Decisions whose fuel is unknown: stopped by a trap inside pure wasm code (the
    /// wall-clock deadline, an out-of-bounds access), where wasmtime 48 keeps the fuel
    /// counter in a register and does not write it back before trapping (cranelift
    /// `epoch_check_full` calls `new_epoch` without `fuel_save_from_var`; upstream
    /// bytecodealliance/wasmtime#13802). Such a decision is left out of the fuel figures
    /// rather than counted at the few dozen units the stale counter shows.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fuel_unknown: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl CallStats {
    /// Decisions whose fuel is counted in `fuel`.
    pub fn fuel_decisions(&self) -> u64 {
        self.decisions.saturating_sub(self.fuel_unknown)
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
    /// Epoch ticks left of the game's wall-time budget (`Limits::game_millis`).
    game_ticks_left: u64,
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
        let data = StoreData {
            limiter: Limiter {
                max_memory: limits.memory_bytes(),
                denied: None,
            },
            log: AgentLog::for_limits(limits),
            rng: GameRng::new(seed),
        };
        let mut store = Store::new(engine, data);
        store.limiter(|d| &mut d.limiter);
        store.epoch_deadline_trap();
        set_budget(
            &mut store,
            limits.start_fuel,
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
            Err(e) => return Err(MakeError::Agent(classify(e, &store))),
        };
        Ok(WasmAgent {
            store,
            bindings,
            limits: limits.clone(),
            bank_left: limits
                .time_bank_millis
                .map(|ms| Duration::from_millis(ms.into())),
            game_ticks_left: ticks_for(limits.game_millis),
            decision_ticks: ticks_for(limits.millis_per_decision),
            legal: Vec::new(),
            scratch: Default::default(),
            dead: false,
            stats: CallStats::default(),
            build: String::new(),
        })
    }

    /// Calls the agent's `start` under the start budget. Its time counts against the game's
    /// wall budget like a decision's.
    pub fn start(&mut self, info: &StartInfo) -> Result<(), Fault> {
        set_budget(
            &mut self.store,
            self.limits.start_fuel,
            ticks_for(self.limits.millis_per_decision).min(self.game_ticks_left),
        );
        let tick0 = crate::engine::ticks();
        let r = G::call_start(&self.bindings, &mut self.store, info);
        let used = crate::engine::ticks().saturating_sub(tick0);
        self.game_ticks_left = self.game_ticks_left.saturating_sub(used);
        r.map_err(|e| self.fail(e))
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
        let budget = crate::adapters::Budget {
            fuel: self.limits.fuel_per_decision,
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
            self.limits.fuel_per_decision,
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
                self.stats.fuel += self.limits.fuel_per_decision.saturating_sub(left);
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
                    self.stats.fuel += self.limits.fuel_per_decision.saturating_sub(left);
                } else {
                    self.stats.fuel_unknown += 1;
                }
                let mut fault = self.fail(e);
                if interrupted && game_binds {
                    fault.message = format!(
                        "used up its wall-time budget of {} ms for this game",
                        self.limits.game_millis
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

    /// The lines logged since the last call, leaving the log empty but its budget spent.
    pub fn take_log(&mut self) -> Vec<LogLine> {
        self.store.data_mut().log.take()
    }

    fn fail(&mut self, e: wasmtime::Error) -> Fault {
        self.dead = true;
        classify(e, &self.store)
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
fn classify(e: wasmtime::Error, store: &Store<StoreData>) -> Fault {
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
                    d.limiter.max_memory >> 10
                ),
            )
        })
    };
    match e.downcast_ref::<Trap>() {
        Some(Trap::OutOfFuel) => {
            Fault::new(Verdict::OutOfFuel, "ran out of fuel for this decision")
        }
        Some(Trap::Interrupt) => Fault::new(Verdict::Timeout, "ran past the wall-clock deadline"),
        Some(Trap::StackOverflow) => Fault::new(Verdict::StackOverflow, "call stack overflowed"),
        Some(_) => memory(data).unwrap_or_else(|| Fault::new(Verdict::Trap, first_line(&e))),
        None => memory(data).unwrap_or_else(|| Fault::new(Verdict::Trap, first_line(&e))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_is_bounded() {
        let mut log = AgentLog::new(10 + 2 * LOG_LINE_OVERHEAD, 100);
        assert!(log.push("info", "12345"));
        assert!(!log.push("info", "abcdefgh"));
        assert!(log.flooded);
        assert_eq!(log.lines.len(), 2);
        assert_eq!(log.lines[1].text, "abcde [truncated]");
        assert!(!log.push("info", "x"));
    }

    /// Regression (hardening finding 2): an empty line is not free.
    #[test]
    fn empty_lines_are_charged_and_counted() {
        let mut log = AgentLog::new(64 * 1024, 1_000_000);
        let mut n = 0;
        while log.push("info", "") {
            n += 1;
        }
        assert_eq!(n, 64 * 1024 / LOG_LINE_OVERHEAD);
        let mut capped = AgentLog::new(1 << 30, 3);
        assert!(capped.push("info", ""));
        assert!(capped.push("info", ""));
        assert!(capped.push("info", ""));
        assert!(!capped.push("info", ""));
        assert!(capped.flood_message().contains("3 lines"));
    }
}
