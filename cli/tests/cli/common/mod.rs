//! Shared helpers: the hostile test agent is built once per test process, through the real
//! `croupier build` route.

#![allow(dead_code)]

// One test binary holds every module (main.rs), so each helper is compiled once. When each
// test file was a binary of its own, every one that declared `arena` compiled it again,
// about 80 s of a release build each.
#[cfg(feature = "arena")]
pub mod arena;
#[cfg(feature = "arena")]
pub mod chromium;
pub mod conformance;
#[cfg(unix)]
pub mod postgres;
pub mod require;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub fn croupier() -> Command {
    Command::new(env!("CARGO_BIN_EXE_croupier"))
}

/// `croupier new GAME NAME` plus `extra` (`--lang python`), run in `dir`: the project's folder.
pub fn new_project(dir: &Path, game: &str, name: &str, extra: &[&str]) -> PathBuf {
    let out = croupier()
        .args(["new", game, name])
        .args(extra)
        .current_dir(dir)
        .output()
        .expect("run croupier new");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join(name)
}

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Where test components go: beside the croupier binary's target dir.
pub fn test_agents_dir() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_croupier"));
    exe.parent()
        .and_then(|p| p.parent())
        .map(|t| t.join("test-agents"))
        .unwrap_or_else(|| repo().join("target/test-agents"))
}

/// Holds the lock every build of the hostile agent takes, in whichever test process: each
/// mode rebuilds the same crate with another `HOSTILE_MODE`, and a build beside it would
/// overwrite the module it is turning into a component. (cargo-nextest runs every test in a
/// process of its own, so a lock inside one process would not do.)
pub fn hostile_build_lock() -> std::fs::File {
    let dir = test_agents_dir();
    std::fs::create_dir_all(&dir).expect("create the test agents' folder");
    let file = std::fs::File::create(dir.join("hostile.lock")).expect("create hostile.lock");
    file.lock().expect("lock hostile.lock");
    file
}

/// The hostile agent's component, built on first use.
pub fn hostile() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let _turn = hostile_build_lock();
            let out = test_agents_dir();
            let status = croupier()
                .arg("build")
                .arg(repo().join("tests/hostile-agent"))
                .arg("--out")
                .arg(&out)
                .status()
                .expect("run croupier build");
            assert!(status.success(), "building the hostile agent failed");
            out.join("durak/hostile.wasm")
        })
        .clone()
}

/// `hostile.wasm#mode` as an agent argument.
pub fn hostile_as(mode: &str) -> String {
    format!("{}#{mode}", hostile().display())
}

/// A built example agent's component (`durak/cheapest`), where `croupier` finds it:
/// `$CROUPIER_AGENTS`, else `agents/` in the croupier binary's target directory.
pub fn example_agent(id: &str) -> PathBuf {
    let dir = std::env::var_os("CROUPIER_AGENTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let exe = PathBuf::from(env!("CARGO_BIN_EXE_croupier"));
            exe.parent()
                .and_then(|p| p.parent())
                .map(|t| t.join("agents"))
                .unwrap_or_else(|| repo().join("target/agents"))
        });
    let path = dir.join(format!("{id}.wasm"));
    assert!(
        path.exists(),
        "{} is not built: run `croupier build` (scripts/setup.sh) first",
        path.display()
    );
    path
}

/// Limits for the sandbox tests: small enough that a busy loop ends fast (a normal decision
/// uses about 10^4 fuel), a 16 MiB memory limit and a 4 KiB log. The deadline keeps the
/// defaults' 3× margin over the slowest fuel (20 M at 61 ns: 1.2 s), so that fuel, not a busy
/// CI machine, decides which verdict a test sees.
pub fn test_limits() -> croupier_host::limits::Limits {
    croupier_host::limits::Limits {
        fuel_per_decision: 20_000_000,
        start_fuel: 20_000_000,
        millis_per_decision: 4_000,
        memory_mib: 16,
        log_bytes_per_game: 4096,
        time_bank_millis: None,
        ..Default::default()
    }
}

/// A Durak match of `games` games, seed 7, two threads, forfeit on fault.
pub fn match_args(
    agents: Vec<String>,
    games: u64,
    log: Option<PathBuf>,
) -> croupier_tournament::matches::MatchArgs {
    croupier_tournament::matches::MatchArgs {
        agents,
        rules: Default::default(),
        games,
        seed: 7,
        threads: 2,
        duplicate: false,
        log,
        resume: false,
        policy: croupier_tournament::runner::FaultPolicy::Forfeit,
        watch: false,
        shard: None,
    }
}

/// A compile bomb for Cranelift itself: one core function that pushes `values` constants and
/// multiplies them together, so that all of them are live at once and the register allocator
/// and the code generator work on one enormous function (400 000 values, 2 MB: 4 s and 500 MB
/// to compile on the development machine; 800 000, 4 MB: 7 s and 770 MB, growing with the
/// size up to the 32 MiB upload cap). It exports an
/// (empty) agent instance, so it passes the outline checks and reaches the compiler.
pub fn cranelift_bomb(values: usize) -> Vec<u8> {
    let mut body = String::with_capacity(values * 24);
    for i in 0..values {
        body.push_str(&format!("i64.const {} ", (i * 7919) % 1_000_003));
    }
    for _ in 1..values {
        body.push_str("i64.mul ");
    }
    wat::parse_str(format!(
        r#"(component (core module $m (func (export "f") (result i64) {body})) (core instance (instantiate $m)) (instance $i) (export "croupier:agent/durak-agent@0.2.0" (instance $i)))"#
    ))
    .expect("valid WAT")
}

/// A compile bomb of about a kilobyte: each level defines the level below once and
/// instantiates it twice, so the compiler, which flattens the instance graph, makes 2^depth
/// core instances (depth 20: 1.5 s and 380 MB; each level doubles both). It exports an
/// (empty) agent instance, so it passes the outline checks and reaches the compiler.
pub fn fan_out(depth: usize) -> Vec<u8> {
    let mut inner =
        String::from(r#"(core module $m (func (export "f"))) (core instance (instantiate $m))"#);
    for _ in 0..depth {
        inner = format!(
            "(component $inner {inner}) (instance (instantiate $inner)) (instance (instantiate $inner))"
        );
    }
    wat::parse_str(format!(
        r#"(component {inner} (instance $i) (export "croupier:agent/durak-agent@0.2.0" (instance $i)))"#
    ))
    .expect("valid WAT")
}
