//! One agent instance for one game: its store, limits, log and calls.
//!
//! A trap poisons the whole `Store` (WASMTIME-NOTES.md), so every agent gets a fresh store
//! and instance per game, created from a pre-linked `InstancePre` in a few microseconds, and
//! a store that trapped is never entered again.

use crate::adapters::Adapter;
use crate::bindings::{v0_1, v0_2};
use crate::engine::EPOCH_TICK;
use crate::limits::Limits;
use crate::player::StartInfo;
use crate::verdict::{Fault, Verdict};
use croupier_rules::GameRng;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};
use wasmtime::component::{HasSelf, Linker};
use wasmtime::{Engine, ResourceLimiter, Store, Trap};

/// One line an agent logged, already escaped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    pub level: String,
    pub text: String,
}

/// The per-game log of one agent, bounded in bytes.
#[derive(Debug, Default)]
pub struct AgentLog {
    pub lines: Vec<LogLine>,
    used: usize,
    budget: usize,
    /// The agent tried to log past its budget.
    pub flooded: bool,
}

impl AgentLog {
    pub fn with_budget(budget: usize) -> AgentLog {
        AgentLog {
            budget,
            ..Default::default()
        }
    }

    /// Adds a line; `false` (and `flooded`) once the budget would be exceeded.
    pub fn push(&mut self, level: &str, message: &str) -> bool {
        if self.flooded {
            return false;
        }
        // Count the raw bytes, so escaping cannot be used to smuggle a larger log past it.
        if self.used + message.len() > self.budget {
            self.flooded = true;
            let keep = self.budget.saturating_sub(self.used);
            let mut cut = keep.min(message.len());
            while !message.is_char_boundary(cut) {
                cut -= 1;
            }
            if cut > 0 {
                self.lines.push(LogLine {
                    level: level.to_string(),
                    text: escape(&message[..cut]) + " [truncated]",
                });
            }
            self.used = self.budget;
            return false;
        }
        self.used += message.len();
        self.lines.push(LogLine {
            level: level.to_string(),
            text: escape(message),
        });
        true
    }

    pub fn take(&mut self) -> Vec<LogLine> {
        std::mem::take(&mut self.lines)
    }
}

/// Makes agent text safe to print: control characters (terminal escape sequences, carriage
/// returns, bells, newlines) are shown as `\u{..}` escapes instead of being interpreted.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}') {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

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
    pub limiter: Limiter,
    pub log: AgentLog,
    rng: GameRng,
}

impl StoreData {
    fn host_log(&mut self, level: &str, message: &str) -> wasmtime::Result<()> {
        if self.log.push(level, message) {
            Ok(())
        } else {
            Err(wasmtime::Error::msg(format!(
                "log budget of {} bytes per game exceeded",
                self.log.budget
            )))
        }
    }
}

/// The host services, once per contract version (the records are the same; the generated
/// types differ).
macro_rules! host_services {
    ($v:ident) => {
        impl $v::durak::croupier::agent::host::Host for StoreData {
            fn log(&mut self, level: $v::Level, message: String) -> wasmtime::Result<()> {
                let level = match level {
                    $v::Level::Error => "error",
                    $v::Level::Warn => "warn",
                    $v::Level::Info => "info",
                    $v::Level::Debug => "debug",
                };
                self.host_log(level, &message)
            }

            fn random(&mut self) -> u64 {
                self.rng.next_u64()
            }
        }

        impl $v::durak::croupier::agent::common::Host for StoreData {}
    };
}
host_services!(v0_1);
host_services!(v0_2);

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
    {
        use v0_1::durak::croupier::agent as w;
        w::host::add_to_linker::<StoreData, HasSelf<StoreData>>(linker, |s| s)?;
        w::common::add_to_linker::<StoreData, HasSelf<StoreData>>(linker, |s| s)?;
    }
    {
        use v0_2::durak::croupier::agent as w;
        w::host::add_to_linker::<StoreData, HasSelf<StoreData>>(linker, |s| s)?;
        w::common::add_to_linker::<StoreData, HasSelf<StoreData>>(linker, |s| s)?;
    }
    Ok(())
}

/// Counters for one agent in one game.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CallStats {
    pub decisions: u64,
    pub fuel: u64,
}

/// A live agent instance for one game.
pub struct WasmAgent<G: Adapter> {
    store: Store<StoreData>,
    bindings: G::Bindings,
    limits: Limits,
    bank_left: Option<Duration>,
    legal: Vec<u32>,
    scratch: G::Scratch,
    /// Set after any trap: the store is poisoned and must not be entered again.
    pub dead: bool,
    pub stats: CallStats,
}

impl<G: Adapter> WasmAgent<G> {
    /// A fresh store and instance. `seed` seeds the agent's `random` import.
    pub fn instantiate(
        engine: &Engine,
        pre: &G::Pre,
        limits: &Limits,
        seed: u64,
    ) -> Result<Self, Fault> {
        let data = StoreData {
            limiter: Limiter {
                max_memory: limits.memory_bytes(),
                denied: None,
            },
            log: AgentLog::with_budget(limits.log_bytes_per_game as usize),
            rng: GameRng::new(seed),
        };
        let mut store = Store::new(engine, data);
        store.limiter(|d| &mut d.limiter);
        store.epoch_deadline_trap();
        set_budget(&mut store, limits.start_fuel, limits.millis_per_decision);
        let bindings = G::instantiate(pre, &mut store).map_err(|e| classify(e, &store))?;
        Ok(WasmAgent {
            store,
            bindings,
            limits: limits.clone(),
            bank_left: limits
                .time_bank_millis
                .map(|ms| Duration::from_millis(ms.into())),
            legal: Vec::new(),
            scratch: Default::default(),
            dead: false,
            stats: CallStats::default(),
        })
    }

    pub fn start(&mut self, info: &StartInfo) -> Result<(), Fault> {
        set_budget(
            &mut self.store,
            self.limits.start_fuel,
            self.limits.millis_per_decision,
        );
        let r = G::call_start(&self.bindings, &mut self.store, info);
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
        let bank = self.bank_left.unwrap_or(Duration::ZERO);
        let budget = crate::adapters::Budget {
            fuel: self.limits.fuel_per_decision,
            millis,
            bank_millis: self.bank_left.map(|b| b.as_millis() as u32),
        };
        let wall = Duration::from_millis(millis.into()) + bank;
        set_budget(
            &mut self.store,
            self.limits.fuel_per_decision,
            wall.as_millis() as u32,
        );
        // The clock is read only for a time bank: the epoch deadline already bounds every
        // call, and two clock reads were 2% of a match.
        let t0 = self.bank_left.map(|_| Instant::now());
        let r = G::call_decide(
            &self.bindings,
            &mut self.store,
            obs,
            &self.legal,
            budget,
            &mut self.scratch,
        );
        self.stats.decisions += 1;
        self.stats.fuel += self
            .limits
            .fuel_per_decision
            .saturating_sub(self.store.get_fuel().unwrap_or(0));
        let code = r.map_err(|e| self.fail(e))?;
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

    pub fn take_log(&mut self) -> Vec<LogLine> {
        self.store.data_mut().log.take()
    }

    fn fail(&mut self, e: wasmtime::Error) -> Fault {
        self.dead = true;
        classify(e, &self.store)
    }
}

fn set_budget(store: &mut Store<StoreData>, fuel: u64, millis: u32) {
    // Setting fuel only fails when fuel is not enabled, which engine::build always does.
    let _ = store.set_fuel(fuel);
    let ticks = u64::from(millis).div_ceil(EPOCH_TICK.as_millis().max(1) as u64) + 1;
    store.set_epoch_deadline(ticks);
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
        return Fault::new(
            Verdict::LogFlood,
            format!(
                "logged past the budget of {} bytes per game",
                data.log.budget
            ),
        );
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
    fn escape_neutralises_terminal_sequences() {
        assert_eq!(escape("a\x1b[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(escape("x\ny\r"), "x\\u{a}y\\u{d}");
        assert_eq!(escape("ok ✓"), "ok ✓");
    }

    #[test]
    fn log_is_bounded() {
        let mut log = AgentLog::with_budget(10);
        assert!(log.push("info", "12345"));
        assert!(!log.push("info", "abcdefgh"));
        assert!(log.flooded);
        assert_eq!(log.lines.len(), 2);
        assert_eq!(log.lines[1].text, "abcde [truncated]");
        assert!(!log.push("info", "x"));
    }
}
