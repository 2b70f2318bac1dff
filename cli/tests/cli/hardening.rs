//! Regression tests for the hardening issue: what a hostile agent file could do to the host.
//! One test (or a few) per finding, named `fNN_…` after it, as Extism keeps one test per
//! fixed bug. Hostile files are generated here as raw components (below the SDK) or come
//! from the hostile guest's modes (`tests/hostile-agent`).

use crate::common;

use common::{croupier, fan_out, hostile, hostile_as, match_args as args, test_limits};
use croupier_host::Runtime;
use croupier_host::cache::Cache;
use croupier_host::limits::Limits;
use croupier_host::loader::{self, LoadError};
use croupier_host::player::PlayerFactory;
use croupier_host::sandbox::MakeError;
use croupier_rules::durak::{self, Durak};
use croupier_rules::{Game, Rules};
use croupier_tournament::matches::{self, summary::MatchSummary};
use croupier_tournament::runner::{self, Entrant, FaultPolicy, Plan, Schedule};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

/// Plays a short match and returns its summary and every game record of the log.
fn play(limits: Limits, agents: Vec<String>, games: u64) -> (MatchSummary, Vec<serde_json::Value>) {
    let host = Runtime::new(limits, croupier_host::cache::Cache::disabled()).expect("host");
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("games.jsonl");
    let s = matches::run_match::<Durak>(&host, &args(agents, games, Some(log.clone())))
        .expect("match runs");
    let records = std::fs::read_to_string(&log)
        .expect("log")
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "game")
        .collect();
    (s, records)
}

fn check(limits: &Limits, bytes: &[u8]) -> Result<loader::LoadedComponent, LoadError> {
    let engine = croupier_host::engine::shared().expect("engine");
    loader::check_and_compile(
        &engine,
        &Cache::disabled(),
        limits,
        Path::new("hostile.wasm"),
        bytes,
    )
}

/// `croupier validate FILE`: (exit code, stdout, stderr).
fn validate(path: &Path) -> (Option<i32>, String, String) {
    let out = croupier()
        .arg("validate")
        .arg(path)
        .env("CROUPIER_CACHE", path.with_extension("cache"))
        .output()
        .expect("run croupier validate");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write_temp(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p
}

/// A component header followed by `sections` (each already encoded).
fn component(sections: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"\0asm\x0d\x00\x01\x00".to_vec();
    for s in sections {
        out.extend_from_slice(s);
    }
    out
}

fn leb(mut n: usize, out: &mut Vec<u8>) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn section(id: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![id];
    leb(body.len(), &mut out);
    out.extend_from_slice(body);
    out
}

/// A component whose one type declaration nests `depth` component types inside each other:
/// `(type (component (type (component … ))))`, 3 bytes a level.
fn nested_types(depth: usize) -> Vec<u8> {
    let mut body = vec![];
    leb(1, &mut body); // one type
    for _ in 0..depth {
        body.extend_from_slice(&[0x41, 0x01, 0x01]); // componenttype, 1 decl, a type decl
    }
    body.extend_from_slice(&[0x41, 0x00]); // the innermost: an empty component type
    // Then an (empty) agent export, so that the file passes the outline checks.
    let export = wat(
        r#"(component (instance $i) (export "croupier:agent/durak-agent@0.2.0" (instance $i)))"#,
    );
    let mut out = component(&[section(7, &body)]);
    out.extend_from_slice(&export[8..]);
    out
}

fn wat(text: &str) -> Vec<u8> {
    wat::parse_str(text).expect("valid WAT")
}

/// Finding 1: a 150 KB file of nested type declarations used to abort the host with a stack
/// overflow (SIGABRT, exit 134). Now it is a one-line refusal naming the file.
#[test]
fn f01_deeply_nested_types_are_refused_without_a_crash() {
    let dir = tempfile::tempdir().expect("tempdir");
    for depth in [5_000, 50_000] {
        let bytes = nested_types(depth);
        let path = write_temp(dir.path(), &format!("deep-{depth}.wasm"), &bytes);
        let (code, stdout, stderr) = validate(&path);
        assert_eq!(
            code,
            Some(2),
            "depth {depth}: stdout {stdout} stderr {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        assert!(
            stderr.starts_with(&format!("error: {}: ", path.display())),
            "names the file: {stderr}"
        );
        // The library says the same, and the calling process is still here to say it.
        let e = check(&Limits::default(), &bytes).err().expect("refused");
        assert!(
            matches!(e, LoadError::Compile { .. } | LoadError::Invalid { .. }),
            "{e}"
        );
    }
}

/// Finding 1, under `--watch`: overwriting a watched agent with such a file used to kill the
/// running match (the watcher thread's small stack). Now the new build is refused, the old
/// one plays on, and the match ends with its summary.
#[test]
fn f01_watch_survives_a_nested_types_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let agent = dir.path().join("agent.wasm");
    std::fs::copy(hostile(), &agent).expect("copy");
    let json = dir.path().join("summary.json");
    let child = croupier()
        .args(["match", "durak"])
        .arg(format!("{}#dawdle", agent.display()))
        .arg(hostile_as("ok"))
        .args([
            "--games",
            "40",
            "--threads",
            "1",
            "--watch",
            "--quiet",
            "--json",
        ])
        .arg(&json)
        .env("CROUPIER_CACHE", dir.path().join("cache"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start the match");
    std::thread::sleep(std::time::Duration::from_millis(800));
    std::fs::write(&agent, nested_types(50_000)).expect("overwrite");
    let out = child.wait_with_output().expect("match ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the match survives: {stderr}");
    assert!(
        stderr.contains("refused the new build"),
        "the watcher says so: {stderr}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("summary")).expect("json");
    assert_eq!(summary["games"], 40);
}

/// Finding 2: `log("")` cost nothing, so a million empty lines a decision ran the host's
/// memory up by gigabytes with no verdict. Every line now costs a fixed overhead and the
/// lines per game are capped, so the agent is stopped with LOG_FLOOD.
#[test]
fn f02_empty_log_lines_end_in_log_flood() {
    let (s, records) = play(
        test_limits(),
        vec![hostile_as("log-empty"), hostile_as("ok")],
        1,
    );
    assert_eq!(s.agents[0].faults_by_verdict.get("LOG_FLOOD"), Some(&1));
    let fault = &records[0]["faults"][0];
    assert!(
        fault["message"]
            .as_str()
            .is_some_and(|m| m.contains("16 bytes charged per line")),
        "{fault}"
    );
    // The log kept is within the budget: at most 4096 / 16 lines.
    let lines: usize = records[0]["logs"]
        .as_array()
        .map(|l| {
            l.iter()
                .map(|seat| seat[1].as_array().map_or(0, Vec::len))
                .sum()
        })
        .unwrap_or(0);
    assert!(lines <= 4096 / 16, "{lines} lines kept");
}

/// Finding 2: the line cap is data in `Limits`, and it ends the agent even when the bytes
/// would allow more.
#[test]
fn f02_line_cap_is_a_limit() {
    let limits = Limits {
        log_bytes_per_game: 1 << 20,
        log_lines_per_game: 5,
        ..test_limits()
    };
    let (s, records) = play(limits, vec![hostile_as("log-chatty"), hostile_as("ok")], 1);
    assert_eq!(s.agents[0].faults_by_verdict.get("LOG_FLOOD"), Some(&1));
    assert!(
        records[0]["faults"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("more than 5 lines")),
        "{}",
        records[0]["faults"]
    );
}

/// Finding 2: a single `log` call of 4 MiB is stopped with what fits the budget, and the
/// host keeps no more than that.
#[test]
fn f02_one_huge_line_is_cut_to_the_budget() {
    let (s, records) = play(
        test_limits(),
        vec![hostile_as("huge-output"), hostile_as("ok")],
        1,
    );
    assert_eq!(s.agents[0].faults_by_verdict.get("LOG_FLOOD"), Some(&1));
    let kept: usize = records[0]["logs"][0][1]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l["text"].as_str().map_or(0, str::len))
        .sum();
    assert!(kept <= 4096 + 20, "kept {kept} bytes");
}

/// Finding 3: a file over the size cap is refused by its size, before it is read.
#[test]
fn f03_a_file_over_the_size_cap_is_refused() {
    let limits = Limits {
        max_file_bytes: 1000,
        ..Limits::default()
    };
    let engine = croupier_host::engine::shared().expect("engine");
    let e = loader::load(&engine, &Cache::disabled(), &limits, &hostile())
        .err()
        .expect("refused");
    assert!(matches!(e, LoadError::TooLarge { limit: 1000, .. }), "{e}");
    assert!(e.to_string().contains("at most 1000 bytes"), "{e}");
}

/// Finding 3, the same class: only a regular file is read. A FIFO (which would block the
/// loader, or the watcher thread, until someone writes to it) or a device is refused at
/// once.
#[cfg(unix)]
#[test]
fn f03_only_a_regular_file_is_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("agent.wasm");
    let c = std::ffi::CString::new(fifo.to_str().expect("utf-8")).expect("path");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let limits = Limits::default();
    let engine = croupier_host::engine::shared().expect("engine");
    for path in [fifo.as_path(), Path::new("/dev/zero")] {
        let e = loader::load(&engine, &Cache::disabled(), &limits, path)
            .err()
            .expect("refused");
        assert!(matches!(e, LoadError::NotAFile { .. }), "{e}");
    }
}

/// Finding 3: compiling runs in a child process under a CPU-time limit; a file that makes
/// Cranelift work for longer is refused with the limit named, and the host is unharmed.
#[test]
fn f03_a_compile_bomb_is_stopped_by_the_cpu_limit() {
    let bytes = fan_out(23);
    assert!(bytes.len() < 2000, "{} bytes", bytes.len());
    let limits = Limits {
        compile_cpu_seconds: 1,
        ..Limits::default()
    };
    let started = std::time::Instant::now();
    let e = check(&limits, &bytes).err().expect("refused");
    assert!(matches!(e, LoadError::Compile { .. }), "{e}");
    assert!(e.to_string().contains("s of CPU time (the limit)"), "{e}");
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
}

/// Issue #45: under the default limits a bomb's budget is the small base (its code is a few
/// bytes), so it is refused as one line within its wall-clock limit (a busy CI machine once
/// let a bomb run for 90 s under the old flat 60 s CPU limit), while the parent stays small.
#[test]
fn f03_a_compile_bomb_is_refused_within_the_default_limits() {
    let limits = Limits::default();
    let bytes = fan_out(30);
    let code = loader::inspect(&limits, Path::new("bomb.wasm"), &bytes)
        .expect("passes the outline")
        .outline
        .code_bytes;
    assert!(code < 100, "{code} bytes of code");
    let wall = limits.compile_wall(code);
    assert!(wall.as_secs() <= 40, "{wall:?}");
    let started = std::time::Instant::now();
    let e = check(&limits, &bytes).err().expect("refused");
    assert!(matches!(e, LoadError::Compile { .. }), "{e}");
    assert!(e.to_string().contains("(the limit)"), "{e}");
    assert_eq!(e.to_string().lines().count(), 1, "{e}");
    // On a loaded machine the child may not reach its CPU limit before its wall limit, which
    // then ends it: the refusal comes at the wall limit, plus the moments the kill takes
    // (32.16 s against 32 s once, with three builds beside it).
    let kill = std::time::Duration::from_secs(3);
    assert!(
        started.elapsed() < wall + kill,
        "{:?} against {wall:?}",
        started.elapsed()
    );
}

/// Finding 3: the compiling child's address space is limited, and running out is a
/// refusal that names the limit.
#[test]
fn f03_a_compile_bomb_is_stopped_by_the_memory_limit() {
    let bytes = fan_out(22);
    let limits = Limits {
        compile_memory_mib: 150,
        ..Limits::default()
    };
    let e = check(&limits, &bytes).err().expect("refused");
    assert!(matches!(e, LoadError::Compile { .. }), "{e}");
    assert!(e.to_string().contains("150 MiB"), "{e}");
}

/// Finding 3: the world and imports are checked with the parser alone, before anything is
/// compiled: nested components that export no agent are refused at once.
#[test]
fn f03_no_agent_is_refused_before_compiling() {
    // Nested components (wat's own parser stops at 100 levels), many times over.
    let nest = |n: usize| "(component ".repeat(n) + &")".repeat(n);
    let text = format!("(component {})", nest(60).repeat(50));
    let limits = Limits {
        // A compile could not even start under this limit: the refusal must come first.
        compile_memory_mib: 1,
        ..Limits::default()
    };
    let e = check(&limits, &wat(&text)).err().expect("refused");
    assert!(matches!(e, LoadError::NoWorld { .. }), "{e}");
}

/// Finding 3: the compile cache is bounded by total size and evicts the least recently
/// used entry.
#[test]
fn f03_the_cache_is_bounded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let limits = Limits::default();
    let engine = croupier_host::engine::shared().expect("engine");
    let base = std::fs::read(hostile()).expect("hostile");
    // Variants differ by a trailing custom section: each is its own cache entry.
    let variant = |k: u8| {
        let mut b = base.clone();
        b.extend_from_slice(&section(0, &[1, b'x', k]));
        b
    };
    let probe = Cache::at(dir.path().join("probe")).expect("cache");
    loader::check_and_compile(&engine, &probe, &limits, Path::new("a.wasm"), &variant(0))
        .expect("loads");
    let entry_size: u64 = std::fs::read_dir(dir.path().join("probe"))
        .expect("dir")
        .filter_map(Result::ok)
        .filter(|e| e.path().is_file())
        .map(|e| e.metadata().map_or(0, |m| m.len()))
        .sum();
    let cache = Cache::at(dir.path().join("bounded"))
        .expect("cache")
        .with_max_bytes(entry_size * 2 + entry_size / 2);
    for k in 0..5 {
        loader::check_and_compile(&engine, &cache, &limits, Path::new("a.wasm"), &variant(k))
            .expect("loads");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let entries: Vec<_> = std::fs::read_dir(dir.path().join("bounded"))
        .expect("dir")
        .filter_map(Result::ok)
        .filter(|e| e.path().is_file())
        .collect();
    let total: u64 = entries
        .iter()
        .map(|e| e.metadata().map_or(0, |m| m.len()))
        .sum();
    assert!(
        total <= cache.max_bytes(),
        "{total} > {}",
        cache.max_bytes()
    );
    assert_eq!(entries.len(), 2, "the two most recent entries stay");
    // The most recent one is among them: it loads from the cache.
    let again =
        loader::check_and_compile(&engine, &cache, &limits, Path::new("a.wasm"), &variant(4))
            .expect("loads");
    assert_eq!(again.cache, croupier_host::cache::CacheOutcome::Hit);
}

/// Peak resident memory of a finished child process, in KiB.
#[cfg(unix)]
// The child is reaped by `wait4`, which also gives its rusage; std's `wait` cannot.
#[allow(clippy::zombie_processes)]
fn max_rss_kib(mut cmd: std::process::Command) -> i64 {
    let child = cmd
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: plain FFI call with valid pointers; `rusage` is plain data.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::wait4(pid, &mut status, 0, &mut usage), pid);
        usage
    };
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    usage.ru_maxrss
}

/// Finding 4: every game record, agent logs included, stayed in memory until the match
/// ended. Records are now counted and written as each game ends, so ten times the games
/// take no more memory.
#[cfg(unix)]
#[test]
fn f04_match_memory_does_not_grow_with_its_games() {
    let rss = |games: &str| {
        let mut cmd = croupier();
        cmd.args(["match", "durak"])
            .arg(hostile_as("log-chatty"))
            .arg(hostile_as("log-chatty"))
            .args(["--games", games, "--quiet", "--no-cache"]);
        max_rss_kib(cmd)
    };
    let small = rss("200");
    let large = rss("2000");
    // Before the fix the extra 1800 games kept about 85 MB of log lines.
    assert!(
        large - small < 30 * 1024,
        "200 games: {small} KiB, 2000 games: {large} KiB"
    );
}

/// A factory whose player for one seed is made a second late (the slow game).
struct SlowFor<G: Game> {
    inner: Arc<dyn PlayerFactory<G>>,
    seed: u64,
}

impl<G: Game> PlayerFactory<G> for SlowFor<G> {
    fn make(&self, seed: u64) -> Result<Box<dyn croupier_host::player::Player<G>>, MakeError> {
        if seed == self.seed {
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
        self.inner.make(seed)
    }
}

/// Counts the games finished while game 0 is still under way.
#[derive(Default)]
struct Overtaken {
    first_done: std::sync::atomic::AtomicBool,
    overtaken: AtomicU32,
}

impl runner::Progress for Overtaken {
    fn game_done(&self, rec: &runner::GameRecord) {
        if rec.index == 0 {
            self.first_done.store(true, Ordering::SeqCst);
        } else if !self.first_done.load(Ordering::SeqCst) {
            self.overtaken.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Finding 4, the same class: records that finish early wait in memory for their
/// predecessors, so one slow game let the other threads pile up every later game's record.
/// Workers now stay within a window of the oldest undelivered game.
#[test]
fn f04_a_slow_game_does_not_let_records_pile_up() {
    let host = Runtime::new(test_limits(), croupier_host::cache::Cache::disabled()).expect("host");
    let opts = durak::Options::preset("classic").expect("preset");
    let fast = matches::setup::entrant::<Durak>(&host, &hostile_as("ok"), &opts).expect("entrant");
    let slow =
        matches::setup::entrant::<Durak>(&host, &hostile_as("random"), &opts).expect("entrant");
    let entrants = [
        Entrant {
            name: slow.name,
            args: slow.args,
            factory: Arc::new(SlowFor {
                inner: slow.factory,
                seed: runner::agent_seed(3, 0, 0),
            }),
        },
        fast,
    ];
    let schedule = Schedule::new(2, 2, 3000, false);
    let plan = Plan {
        options: &opts,
        entrants: &entrants,
        schedule: &schedule,
        seed: 3,
        policy: FaultPolicy::Forfeit,
        threads: 2,
    };
    let progress = Overtaken::default();
    let todo: Vec<u64> = (0..3000).collect();
    let mut delivered = 0u64;
    let mut sink = |_: runner::GameRecord| {
        delivered += 1;
        Ok::<_, std::convert::Infallible>(())
    };
    runner::run(&plan, &todo, &progress, &mut sink).expect("runs");
    assert_eq!(delivered, 3000);
    let overtaken = progress.overtaken.load(Ordering::SeqCst);
    // The window is 64 games per thread; without it the other thread finished thousands.
    assert!(
        overtaken <= 2 * 64,
        "{overtaken} games finished while game 0 ran"
    );
}

/// A component of `instances` core instances of one module (with a memory when `memory`),
/// exporting an empty instance under the agent's name.
fn many_instances(instances: usize, memory: bool) -> Vec<u8> {
    let mut text = format!(
        "(component (core module $m {}(func (export \"f\")))",
        if memory { "(memory 1) " } else { "" }
    );
    for _ in 0..instances {
        text.push_str("(core instance (instantiate $m))");
    }
    text.push_str(r#"(instance $i) (export "croupier:agent/durak-agent@0.2.0" (instance $i)))"#);
    wat(&text)
}

/// Finding 5: the pool is sized from the per-component maxima, so that as many agents as
/// may be alive at once can each hold the most a component may hold. Before, components of
/// 64 core instances ran the pool dry after 62 instances, and an innocent agent's
/// instantiation failed as its TRAP.
#[test]
fn f05_the_pool_holds_every_agent_at_its_per_component_maximum() {
    use wasmtime::component::{Component, Linker};
    let engine = croupier_host::engine::build().expect("engine");
    // 4 memories (the per-component maximum) among 64 core instances (the maximum).
    let text = {
        let mut t = String::from(
            "(component (core module $m (func (export \"f\"))) (core module $mem (memory 1))",
        );
        for _ in 0..60 {
            t.push_str("(core instance (instantiate $m))");
        }
        for _ in 0..4 {
            t.push_str("(core instance (instantiate $mem))");
        }
        t.push(')');
        t
    };
    let component = Component::new(&engine, wat(&text)).expect("compiles");
    let linker: Linker<()> = Linker::new(&engine);
    let pre = linker.instantiate_pre(&component).expect("links");
    let live = croupier_host::engine::POOL_INSTANCES as usize - 40;
    let mut stores = Vec::with_capacity(live);
    for k in 0..live {
        let mut store = wasmtime::Store::new(&engine, ());
        pre.instantiate(&mut store)
            .unwrap_or_else(|e| panic!("instance {k} of {live}: {e:#}"));
        stores.push(store);
    }
}

/// Finding 5: a component over the per-component maximum is refused when it is loaded, so it
/// never reaches a game.
#[test]
fn f05_a_component_over_the_maximum_is_refused_at_load() {
    let limits = Limits::default();
    let e = check(&limits, &many_instances(65, false))
        .err()
        .expect("refused");
    assert!(e.to_string().contains("core module instances"), "{e}");
}

/// A factory that reports a host error for its first `fail` instances, then delegates.
struct Flaky<G: Game> {
    inner: Arc<dyn PlayerFactory<G>>,
    fail: u32,
    made: AtomicU32,
}

impl<G: Game> PlayerFactory<G> for Flaky<G> {
    fn make(&self, seed: u64) -> Result<Box<dyn croupier_host::player::Player<G>>, MakeError> {
        if self.made.fetch_add(1, Ordering::SeqCst) < self.fail {
            return Err(MakeError::Host("pool exhausted (test)".into()));
        }
        self.inner.make(seed)
    }
}

fn run_with(entrants: &[Entrant<Durak>]) -> anyhow::Result<Vec<runner::GameRecord>> {
    let opts = durak::Options::preset("classic").expect("preset");
    let schedule = Schedule::new(entrants.len(), 2, 3, false);
    let plan = Plan {
        options: &opts,
        entrants,
        schedule: &schedule,
        seed: 11,
        policy: FaultPolicy::Forfeit,
        threads: 1,
    };
    let mut out = Vec::new();
    let mut sink = |r: runner::GameRecord| {
        out.push(r);
        Ok::<_, std::convert::Infallible>(())
    };
    runner::run(&plan, &[0, 1, 2], &(), &mut sink)?;
    Ok(out)
}

/// Finding 5: a failure of the host's own resources is never an agent's verdict. A game
/// that meets one is played again from its seed (and comes out the same); if the host
/// stays short, the match stops with a host error and nobody is scored for that game.
#[test]
fn f05_host_resource_errors_are_not_verdicts() {
    let host = Runtime::new(test_limits(), croupier_host::cache::Cache::disabled()).expect("host");
    let opts = durak::Options::preset("classic").expect("preset");
    let entrant = |spec: &str, fail: u32| {
        let e = matches::setup::entrant::<Durak>(&host, spec, &opts).expect("entrant");
        Entrant {
            name: e.name,
            args: e.args,
            factory: Arc::new(Flaky {
                inner: e.factory,
                fail,
                made: AtomicU32::new(0),
            }),
        }
    };
    let clean = run_with(&[
        entrant(&hostile_as("random"), 0),
        entrant(&hostile_as("ok"), 0),
    ])
    .expect("clean run");
    let retried = run_with(&[
        entrant(&hostile_as("random"), 2),
        entrant(&hostile_as("ok"), 0),
    ])
    .expect("a retried run");
    assert_eq!(clean, retried, "the retried games are the same games");
    assert!(retried.iter().all(|r| r.faults.is_empty()));
    let e = run_with(&[
        entrant(&hostile_as("random"), u32::MAX),
        entrant(&hostile_as("ok"), 0),
    ])
    .expect_err("the host gives up");
    assert!(
        e.to_string().contains("the host ran out of resources"),
        "{e}"
    );
}

/// Finding 6: fuel does not bound time, so an agent that stays within fuel and the decision
/// deadline every time could stretch a 5 ms game a thousandfold. The per-game wall budget
/// stops it with TIMEOUT and says which budget it was.
#[test]
fn f06_the_game_wall_budget_stops_a_dawdler() {
    let limits = Limits {
        game_millis: 60,
        ..test_limits()
    };
    let (s, records) = play(limits, vec![hostile_as("dawdle"), hostile_as("ok")], 1);
    assert_eq!(
        s.agents[0].faults_by_verdict.get("TIMEOUT"),
        Some(&1),
        "{s:?}"
    );
    assert!(
        records[0]["faults"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("wall-time budget of 60 ms for this game")),
        "{}",
        records[0]["faults"]
    );
    // Under the default budget the same agent plays its games out.
    let (s, _) = play(
        test_limits(),
        vec![hostile_as("dawdle"), hostile_as("ok")],
        1,
    );
    assert_eq!(s.agents[0].faults, 0, "{s:?}");
}

/// Issue #65: a game's length is bounded by fuel, not by the clock. An agent that spends the
/// same fuel every decision, whatever its budget says, runs out of the game's fuel at the same
/// decision in every run, with `OUT_OF_FUEL` naming the game's budget; under the default game
/// budget it plays its games out. (The old bound was the game's wall time alone, which such
/// an agent reaches on a slow machine and not on a fast one.)
#[test]
fn the_game_s_fuel_ends_a_long_spender_at_the_same_decision_every_time() {
    let limits = Limits {
        game_fuel: 40_000_000,
        ..test_limits()
    };
    let burner = || vec![hostile_as("burn=1000000"), hostile_as("ok")];
    let fault = |records: &[serde_json::Value]| records[0]["faults"][0].clone();
    let (s, first) = play(limits.clone(), burner(), 1);
    assert_eq!(
        s.agents[0].faults_by_verdict.get("OUT_OF_FUEL"),
        Some(&1),
        "{s:?}"
    );
    let f = fault(&first);
    assert!(
        f["message"]
            .as_str()
            .is_some_and(|m| m.contains("fuel budget of 40000000 for this game")),
        "{f}"
    );
    // Its decisions before the last fit the game's fuel; the last did not.
    let calls = &first[0]["calls"][0];
    assert!(calls["decisions"].as_u64() > Some(1), "{calls}");
    let (_, again) = play(limits, burner(), 1);
    assert_eq!(fault(&again), f, "the same decision, the same fault");
    assert_eq!(again[0]["calls"], first[0]["calls"]);
    let (s, _) = play(test_limits(), burner(), 1);
    assert_eq!(s.agents[0].faults, 0, "{s:?}");
}

/// Finding 7: names from the file (imports, exports) and the producers section were printed
/// raw. Each is escaped, and every refusal is exactly one line.
#[test]
fn f07_text_from_the_file_is_escaped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let evil = "\u{1b}]0;pwned\u{7}\u{1b}[2J\nerror: forged";
    let export = format!(
        r#"(component (instance $i) (export "croupier:agent/durak-agent@0.2.0{}" (instance $i)))"#,
        evil.escape_default()
    );
    let import = format!(
        r#"(component (import "x:y/z{}" (instance)) (instance $i) (export "croupier:agent/durak-agent@0.2.0" (instance $i)))"#,
        evil.escape_default()
    );
    for (name, text) in [("export", export), ("import", import)] {
        // The WAT parser takes `\u{..}` escapes in names; names need not be valid here,
        // since the host reads them before anything validates the file.
        let Ok(bytes) = wat::parse_str(&text) else {
            panic!("{name}: WAT");
        };
        let path = write_temp(dir.path(), &format!("{name}.wasm"), &bytes);
        let (code, _, stderr) = validate(&path);
        assert_eq!(code, Some(2), "{name}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{name}: one line: {stderr:?}");
        assert!(
            !stderr.contains('\u{1b}') && !stderr.contains('\u{7}'),
            "{stderr:?}"
        );
        assert!(
            stderr.contains("\\u{1b}"),
            "{name}: shown escaped: {stderr:?}"
        );
    }
    // The producers section's language, in `validate`'s ok line and in `croupier agents`.
    let mut producers = vec![];
    leb(1, &mut producers); // one field
    leb("language".len(), &mut producers);
    producers.extend_from_slice(b"language");
    leb(1, &mut producers); // one value
    leb(evil.len(), &mut producers);
    producers.extend_from_slice(evil.as_bytes());
    leb(0, &mut producers); // no version
    let mut custom = vec![];
    leb("producers".len(), &mut custom);
    custom.extend_from_slice(b"producers");
    custom.extend_from_slice(&producers);
    let base = std::fs::read(hostile()).expect("hostile");
    let mut bytes = base[..8].to_vec();
    bytes.extend_from_slice(&section(0, &custom));
    bytes.extend_from_slice(&base[8..]);
    let agents = dir.path().join("agents");
    std::fs::create_dir_all(agents.join("durak")).expect("mkdir");
    let path = write_temp(&agents.join("durak"), "evil.wasm", &bytes);
    let (code, stdout, stderr) = validate(&path);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout.lines().count(), 1, "{stdout:?}");
    assert!(!stdout.contains('\u{1b}'), "{stdout:?}");
    assert!(stdout.contains("\\u{1b}]0;pwned"), "{stdout:?}");
    let out = croupier()
        .arg("agents")
        .env("CROUPIER_AGENTS", &agents)
        .env("CROUPIER_CACHE", dir.path().join("cache"))
        .output()
        .expect("croupier agents");
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(listing.contains("durak/evil"), "{listing}");
    assert!(!listing.contains('\u{1b}'), "{listing:?}");
}

/// A component for the durak world built from the real WIT with `edit` applied, around
/// wit-component's dummy core module (every function `unreachable`). With `start_export`, a
/// core start function runs that module's `run` export (which traps) at instantiation.
fn dummy_agent(edit: impl Fn(String) -> String, start_export: bool) -> Vec<u8> {
    use wit_parser::{LiftLowerAbi, ManglingAndAbi, Resolve};
    let dir = tempfile::tempdir().expect("tempdir");
    let wit = common::repo().join("wit/v0.2");
    for entry in std::fs::read_dir(&wit).expect("wit dir") {
        let entry = entry.expect("entry");
        if entry.path().extension().is_some_and(|e| e == "wit") {
            let mut text = std::fs::read_to_string(entry.path()).expect("wit");
            if entry.file_name() == "durak.wit" {
                text = edit(text);
                if start_export {
                    text = text.replace(
                        "    export durak-agent;",
                        "    export durak-agent;\n    export run: func();",
                    );
                }
            }
            std::fs::write(dir.path().join(entry.file_name()), text).expect("write");
        }
    }
    let mut resolve = Resolve::default();
    let (pkg, _) = resolve.push_dir(dir.path()).expect("WIT parses");
    let world = resolve.select_world(&[pkg], Some("durak")).expect("world");
    let mut module =
        wit_component::dummy_module(&resolve, world, ManglingAndAbi::Legacy(LiftLowerAbi::Sync));
    if start_export {
        module = with_start_section(&module, "run");
    }
    wit_component::embed_component_metadata(
        &mut module,
        &resolve,
        world,
        wit_component::StringEncoding::UTF8,
        false,
    )
    .expect("embed");
    wit_component::ComponentEncoder::default()
        .module(&module)
        .expect("module")
        .validate(true)
        .encode()
        .expect("encode")
}

/// Inserts a start section naming the function exported as `export` into a core module.
fn with_start_section(module: &[u8], export: &str) -> Vec<u8> {
    use wasmparser::{Parser, Payload};
    let mut func = None;
    let mut insert_at = None;
    for payload in Parser::new(0).parse_all(module) {
        match payload.expect("parses") {
            Payload::ExportSection(r) => {
                for e in r {
                    let e = e.expect("export");
                    if e.name == export {
                        func = Some(e.index);
                    }
                }
            }
            Payload::ElementSection(r) => insert_at = insert_at.or(Some(r.range().start - 1)),
            Payload::DataCountSection { range, .. } => {
                insert_at = insert_at.or(Some(range.start - 1))
            }
            Payload::CodeSectionStart {
                unchecked_range, ..
            } => insert_at = insert_at.or(Some(unchecked_range.start - 1)),
            _ => {}
        }
    }
    let (func, at) = (func.expect("export"), insert_at.expect("code section"));
    let at = usize::try_from(at).expect("an offset in memory");
    // `range.start` is the section body; back up over the size LEB to the section id.
    let mut id_at = at;
    while module[id_at] & 0x80 != 0 || !matches!(module[id_at], 9 | 10 | 12) {
        id_at -= 1;
    }
    let mut body = vec![];
    leb(func as usize, &mut body);
    let mut out = module[..id_at].to_vec();
    out.extend_from_slice(&section(8, &body));
    out.extend_from_slice(&module[id_at..]);
    out
}

/// Finding 8: an agent whose `decide` has the wrong result type loaded as "ok" and then
/// faulted in every game. The trial run type-checks the exports against the world exactly.
#[test]
fn f08_a_decide_of_the_wrong_type_is_refused_at_load() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bytes = dummy_agent(
        |t| t.replace("budget: budget) -> action;", "budget: budget) -> string;"),
        false,
    );
    let path = write_temp(dir.path(), "wrong-type.wasm", &bytes);
    let (code, _, stderr) = validate(&path);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("fails its trial run"), "{stderr}");
    assert!(stderr.contains("expected `u32` found `string`"), "{stderr}");
}

/// Finding 8: a core start function that traps made every game fault. The trial run
/// instantiates once under the limits, so the file is refused at load with the reason.
#[test]
fn f08_a_start_function_that_traps_is_refused_at_load() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bytes = dummy_agent(|t| t, true);
    let path = write_temp(dir.path(), "start-traps.wasm", &bytes);
    let (code, _, stderr) = validate(&path);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("fails its trial run (TRAP"), "{stderr}");
    // The same refusal when a match loads it: no game is played with it.
    let out = croupier()
        .args(["match", "durak"])
        .arg(&path)
        .arg(hostile_as("ok"))
        .args(["--games", "2"])
        .env("CROUPIER_CACHE", dir.path().join("cache"))
        .output()
        .expect("match");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fails its trial run"));
}

/// Finding 9: when the epoch deadline stopped pure wasm code, the decision's fuel was
/// recorded as the few dozen units of the stale counter, skewing fuel per decision. Such a
/// decision is now recorded as of unknown fuel and left out of the mean.
#[test]
fn f09_a_timed_out_decision_does_not_skew_fuel_per_decision() {
    let limits = Limits {
        fuel_per_decision: 1 << 40,
        millis_per_decision: 100,
        ..test_limits()
    };
    let (s, records) = play(limits, vec![hostile_as("loop"), hostile_as("ok")], 1);
    assert_eq!(
        s.agents[0].faults_by_verdict.get("TIMEOUT"),
        Some(&1),
        "{s:?}"
    );
    let seat = records[0]["faults"][0]["seat"].as_u64().expect("seat") as usize;
    let calls = &records[0]["calls"][seat];
    assert_eq!(calls["fuel_unknown"], 1, "{calls}");
    // The loop's first decision is its only one: no known fuel, so no mean to skew.
    assert_eq!(s.agents[0].fuel_per_decision, None, "{s:?}");
}

/// Issue #45: a `start` that runs out of fuel was reported as running out "for this
/// decision"; the fault now names the call it happened in.
#[test]
fn a_start_out_of_fuel_says_start_not_decision() {
    let (s, records) = play(
        test_limits(),
        vec![hostile_as("start-loop"), hostile_as("ok")],
        1,
    );
    assert_eq!(
        s.agents[0].faults_by_verdict.get("OUT_OF_FUEL"),
        Some(&1),
        "{s:?}"
    );
    let fault = &records[0]["faults"][0];
    let message = fault["message"].as_str().unwrap_or_default();
    assert!(message.contains("ran out of fuel in `start`"), "{fault}");
}

/// Finding 10: a component exporting two versions of the same game's agent was refused as
/// "more than one game". It is now told what it is.
#[test]
fn f10_two_versions_of_one_agent_are_named_as_such() {
    let bytes = wat(r#"(component (instance $i)
            (export "croupier:agent/durak-agent@0.1.0" (instance $i))
            (export "croupier:agent/durak-agent@0.2.0" (instance $i)))"#);
    let e = check(&Limits::default(), &bytes).err().expect("refused");
    assert!(matches!(e, LoadError::TwoVersions { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("exports the durak agent in more than one contract version (0.1.0, 0.2.0)"),
        "{e}"
    );
}
