//! A hostile Durak agent, in the style of wasmtime's and Spin's test guests: one guest, one
//! misbehaviour per mode. The mode is the agent's args (`hostile.wasm#loop`); the misbehaviour
//! happens at the first decision (or in `start` for modes starting with `start-`, except in
//! the host's trial run at load, whose seed is 0). Every mode
//! that does not fault plays the first legal action, so the tests can see the game go on.
//! Two modes act at every decision: `random` (a seeded random legal action, logged) and
//! `spin=N` (k·N host calls at the k-th decision, then the first legal action: wall time
//! that grows by a known amount per decision) and `burn=N` (N rounds of arithmetic at every
//! decision, the same fuel each time, whatever its budget says, then the first legal action).

#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code, unused_imports))]

use croupier_sdk::durak::{Action, Durak, Observation};
use croupier_sdk::{Card, Ctx, Level};

/// Small frames that live on the wasm stack only: exhausts wasmtime's stack limit.
#[inline(never)]
fn deep(depth: u64) -> u64 {
    if std::hint::black_box(depth) == u64::MAX {
        return 0;
    }
    deep(depth + 1).wrapping_add(std::hint::black_box(1))
}

/// Large frames on the shadow stack in linear memory: runs off the bottom of memory.
#[inline(never)]
fn recurse(depth: u64, sink: &mut [u64; 64]) -> u64 {
    // A large frame so that the shadow stack, not only the wasm stack, is consumed.
    let mut local = [depth; 64];
    local[(depth % 64) as usize] ^= sink[(depth % 64) as usize];
    sink[0] = sink[0].wrapping_add(1);
    if depth == u64::MAX {
        return local[3];
    }
    recurse(depth + 1, &mut local).wrapping_add(local[7])
}

fn misbehave(mode: &str, ctx: &mut Ctx) -> Option<u32> {
    match mode {
        "loop" | "start-loop" => {
            let mut x: u64 = 1;
            loop {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
        "slow" => {
            // Each iteration is cheap in fuel but crosses into the host: wall time runs out
            // long before fuel does.
            let mut acc = 0u64;
            loop {
                acc = acc.wrapping_add(ctx.host_random());
                std::hint::black_box(acc);
            }
        }
        "memory" => {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                hoard.push(vec![1u8; 1 << 20]);
                std::hint::black_box(&hoard);
            }
        }
        "stack" => Some(deep(0) as u32),
        "shadow-stack" => {
            let mut sink = [0u64; 64];
            Some(recurse(0, &mut sink) as u32)
        }
        "panic" | "start-panic" => panic!("hostile agent panics on purpose"),
        "log-then-panic" => {
            // Its own words first, so a test can see a faulted game keep the agent's log
            // (this guest installs no panic hook: the panic itself logs nothing).
            ctx.log(Level::Warn, "hostile: giving up at my first decision");
            panic!("hostile agent panics on purpose")
        }
        "abort" => std::process::abort(),
        "log-flood" => {
            let line = "x".repeat(64 * 1024);
            loop {
                ctx.log(Level::Info, &line);
            }
        }
        "log-empty" => {
            // Empty lines: free under a budget that counts only bytes.
            loop {
                ctx.log(Level::Info, "");
            }
        }
        "log-chatty" => {
            // Twenty one-byte lines per decision: inside the budget for a whole game, so
            // the agent plays on while the host keeps its lines.
            for _ in 0..20 {
                ctx.log(Level::Debug, "x");
            }
            None
        }
        "dawdle" => {
            // About 10 ms of host calls per decision: cheap in fuel, slow on the clock.
            let mut acc = 0u64;
            for _ in 0..200_000 {
                acc = acc.wrapping_add(ctx.host_random());
            }
            std::hint::black_box(acc);
            None
        }
        "huge-output" => {
            ctx.log(Level::Info, "y".repeat(4 << 20));
            None
        }
        "escape" => {
            ctx.log(
                Level::Warn,
                "\x1b[2J\x1b[31mred alert\x1b[0m\r\x07 bell <script>alert('log')</script>",
            );
            None
        }
        "file" => {
            let r = std::fs::read("/etc/passwd");
            ctx.log(
                Level::Info,
                format!("file: {}", describe(r.map(|b| b.len()))),
            );
            None
        }
        "env" => {
            let r = std::env::var("HOME");
            ctx.log(
                Level::Info,
                format!("env: {}", describe(r.map(|s| s.len()))),
            );
            None
        }
        "net" => {
            let r = std::net::TcpStream::connect("127.0.0.1:80");
            ctx.log(Level::Info, format!("net: {}", describe(r.map(|_| 0usize))));
            None
        }
        "clock" => {
            // On a target without a clock this traps; either way no real time leaks.
            let t = std::time::SystemTime::now();
            ctx.log(Level::Info, format!("clock: {t:?}"));
            None
        }
        "malformed" => Some(0xDEAD_BEEF),
        _ => None,
    }
}

fn describe<T, E: std::fmt::Display>(r: Result<T, E>) -> String {
    match r {
        Ok(_) => "ALLOWED".to_string(),
        Err(e) => format!("denied ({e})"),
    }
}

/// Plays through the SDK's services but answers with raw codes, so that it can also send
/// answers no well-typed agent could.
struct Raw;

struct Imports;
impl croupier_sdk::Services for Imports {
    fn random(&mut self) -> u64 {
        croupier_sdk::__private::DurakImports.random()
    }
    fn log(&mut self, level: Level, message: &str) {
        croupier_sdk::__private::DurakImports.log(level, message)
    }
}

std::thread_local! {
    static STATE: std::cell::RefCell<(String, croupier_sdk::GameRng)> =
        std::cell::RefCell::new((String::new(), croupier_sdk::GameRng::new(0)));
}

#[cfg(target_arch = "wasm32")]
mod export {
    use super::*;
    use croupier_sdk::__private::durak_world as w;

    impl w::exports::croupier::agent::durak_agent::Guest for Raw {
        fn start(info: w::croupier::agent::common::GameInfo) {
            // Without args, the mode baked in at build time (`HOSTILE_MODE=escape croupier
            // build`): the arena sends no args, so its tests upload one build per mode.
            let mode = match (info.args.is_empty(), option_env!("HOSTILE_MODE")) {
                (true, Some(m)) => m.to_string(),
                _ => info.args.clone(),
            };
            STATE.with(|s| *s.borrow_mut() = (mode.clone(), croupier_sdk::agent_rng(info.seed)));
            // Not in the host's trial run at load (seed 0), which would refuse an agent that
            // fails every start: these modes test a start that fails in a game.
            if mode.starts_with("start-") && info.seed != 0 {
                let mut rng = croupier_sdk::agent_rng(info.seed);
                let mut imports = Imports;
                let mut ctx = Ctx::new(Default::default(), &mut rng, &mut imports);
                misbehave(&mode, &mut ctx);
            }
        }

        fn decide(
            obs: w::croupier::agent::durak_types::Observation, // the wire format's bytes
            legal: Vec<u32>,
            _budget: w::croupier::agent::common::Budget,
        ) -> u32 {
            // Like the SDK's export macro: decoded in place, refilling the previous
            // observation's vectors.
            OBS.with_borrow_mut(|o| {
                let o = o.get_or_insert_with(croupier_sdk::__private::Item::blank);
                croupier_sdk::__private::refill::<Durak>(&obs, o);
                play(o, &legal)
            })
        }
    }

    thread_local! {
        static DECISIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
        static OBS: std::cell::RefCell<Option<Observation>> = const { std::cell::RefCell::new(None) };
    }

    fn play(obs: &Observation, legal: &[u32]) -> u32 {
        STATE.with(|s| {
            let mut st = s.borrow_mut();
            let (mode, rng) = &mut *st;
            // These modes misbehave at every decision; the others once.
            let mode_now = if matches!(mode.as_str(), "random" | "log-chatty" | "dawdle")
                || mode.starts_with("spin=")
                || mode.starts_with("burn=")
            {
                mode.clone()
            } else {
                std::mem::take(mode)
            };
            let mut imports = Imports;
            let mut ctx = Ctx::new(Default::default(), rng, &mut imports);
            if mode_now == "illegal" {
                // A card it does not hold: the lowest card missing from its hand.
                let missing = (0..52u8)
                    .filter_map(Card::from_code)
                    .find(|c| !obs.hand.contains(*c))
                    .unwrap_or(Card::new(2, croupier_sdk::Suit::Clubs));
                return <Durak as croupier_sdk::Game>::encode_action(Action::Lead(missing));
            }
            if let Some(n) = mode_now.strip_prefix("spin=") {
                // Decision k (from 1): k·n cheap host calls (wall time, little fuel), then the
                // first legal action. For the time bank: each decision overruns the limit by
                // more than the last, so any bank runs dry within a game, whatever the
                // machine's speed.
                let k = DECISIONS.with(|d| {
                    d.set(d.get() + 1);
                    d.get()
                });
                let n: u64 = n.parse().unwrap_or(0);
                let mut acc = 0u64;
                for _ in 0..n * k {
                    acc = acc.wrapping_add(ctx.host_random());
                }
                std::hint::black_box(acc);
                return legal[0];
            }
            if let Some(n) = mode_now.strip_prefix("burn=") {
                let mut x: u64 = 1;
                for _ in 0..n.parse::<u64>().unwrap_or(0) {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
                std::hint::black_box(x);
                return legal[0];
            }
            if mode_now == "random" {
                let i = ctx.rng().below(legal.len());
                ctx.log(Level::Debug, format!("picked {}", legal[i]));
                return legal[i];
            }
            if let Some(code) = misbehave(&mode_now, &mut ctx) {
                return code;
            }
            legal[0]
        })
    }

    croupier_sdk::__private::durak_world::__export_durak_world!(Raw with_types_in croupier_sdk::__private::durak_world);
}
