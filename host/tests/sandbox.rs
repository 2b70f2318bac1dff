//! The sandbox against a hostile guest: every misbehaviour becomes its exact verdict against
//! that agent, and the next game, with a well-behaved agent, completes normally. Every game
//! here is a real Durak game through real sandboxed components.

mod common;

use common::{hostile, hostile_as};
use croupier_host::driver::{self, Host, MatchArgs, MatchSummary, RulesArgs};
use croupier_host::limits::Limits;
use croupier_host::runner::FaultPolicy;
use croupier_rules::durak::Durak;
use std::path::PathBuf;

fn args(agents: Vec<String>, games: u64, log: Option<PathBuf>) -> MatchArgs {
    MatchArgs {
        agents,
        rules: RulesArgs::default(),
        games,
        seed: 7,
        threads: 2,
        duplicate: false,
        json: None,
        log,
        resume: false,
        policy: FaultPolicy::Forfeit,
        progress: false,
        quiet: true,
        watch: false,
    }
}

fn test_limits() -> Limits {
    Limits {
        // Small enough that a busy loop ends fast; a normal decision uses ~10^4.
        fuel_per_decision: 20_000_000,
        start_fuel: 20_000_000,
        millis_per_decision: 2_000,
        memory_mib: 16,
        log_bytes_per_game: 4096,
        time_bank_millis: None,
        ..Limits::default()
    }
}

/// Plays `mode` against a well-behaved agent, then a clean match on the same engine.
fn verdict_then_clean(mode: &str, limits: Limits) -> (MatchSummary, Vec<String>) {
    let host = Host::new(limits, false).expect("host");
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("games.jsonl");
    let bad = driver::run_match::<Durak>(
        &host,
        &args(
            vec![hostile_as(mode), hostile_as("ok")],
            2,
            Some(log.clone()),
        ),
    )
    .expect("match with a hostile agent runs");
    let messages = std::fs::read_to_string(&log)
        .expect("log")
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .flat_map(|v| {
            v.get("faults")
                .and_then(|f| f.as_array().cloned())
                .unwrap_or_default()
        })
        .filter_map(|f| f.get("message").and_then(|m| m.as_str()).map(String::from))
        .collect();
    let clean = driver::run_match::<Durak>(
        &host,
        &args(vec![hostile_as("ok"), hostile_as("random")], 10, None),
    )
    .expect("clean match runs");
    assert_eq!(clean.games, 10);
    for a in &clean.agents {
        assert_eq!(a.faults, 0, "the next games must be clean: {a:?}");
    }
    assert_eq!(
        clean.agents[0].wins + clean.agents[0].losses + clean.agents[0].draws,
        10
    );
    (bad, messages)
}

fn assert_verdict(mode: &str, verdict: &str, limits: Limits) -> Vec<String> {
    let (s, messages) = verdict_then_clean(mode, limits);
    let hostile = &s.agents[0];
    assert_eq!(s.games, 2);
    assert_eq!(
        hostile.faults_by_verdict.get(verdict).copied(),
        Some(2),
        "mode {mode}: expected {verdict} twice, got {:?}",
        hostile.faults_by_verdict
    );
    assert_eq!(
        hostile.faults, 2,
        "mode {mode}: {:?}",
        hostile.faults_by_verdict
    );
    assert_eq!(hostile.losses, 2, "a fault forfeits the game");
    assert_eq!(s.agents[1].wins, 2);
    assert_eq!(s.agents[1].faults, 0);
    messages
}

#[test]
fn busy_loop_runs_out_of_fuel() {
    assert_verdict("loop", "OUT_OF_FUEL", test_limits());
}

#[test]
fn busy_loop_in_start_runs_out_of_fuel() {
    assert_verdict("start-loop", "OUT_OF_FUEL", test_limits());
}

#[test]
fn slow_loop_times_out() {
    // Plenty of fuel: only the wall clock can stop a loop of cheap host calls.
    let limits = Limits {
        fuel_per_decision: u64::MAX / 4,
        millis_per_decision: 50,
        ..test_limits()
    };
    assert_verdict("slow", "TIMEOUT", limits);
}

#[test]
fn memory_bomb_hits_the_memory_limit() {
    let m = assert_verdict("memory", "MEMORY", test_limits());
    assert!(m.iter().all(|m| m.contains("limit is 16384 KiB")), "{m:?}");
}

#[test]
fn deep_recursion_overflows_the_stack() {
    assert_verdict("stack", "STACK_OVERFLOW", test_limits());
}

#[test]
fn shadow_stack_overflow_traps() {
    let m = assert_verdict("shadow-stack", "TRAP", test_limits());
    assert!(m.iter().all(|m| m.contains("out of bounds")), "{m:?}");
}

#[test]
fn panic_traps() {
    let m = assert_verdict("panic", "TRAP", test_limits());
    assert!(m.iter().all(|m| m.contains("unreachable")), "{m:?}");
}

#[test]
fn panic_in_start_traps() {
    assert_verdict("start-panic", "TRAP", test_limits());
}

#[test]
fn abort_traps() {
    assert_verdict("abort", "TRAP", test_limits());
}

#[test]
fn card_not_held_is_an_illegal_action() {
    let m = assert_verdict("illegal", "ILLEGAL_ACTION", test_limits());
    assert!(m.iter().all(|m| m.contains("is not legal now")), "{m:?}");
}

#[test]
fn garbage_answer_is_malformed() {
    let m = assert_verdict("malformed", "MALFORMED_ACTION", test_limits());
    assert!(m.iter().all(|m| m.contains("0xdeadbeef")), "{m:?}");
}

#[test]
fn log_flood_is_faulted() {
    assert_verdict("log-flood", "LOG_FLOOD", test_limits());
}

#[test]
fn huge_output_is_faulted_and_bounded() {
    let host = Host::new(test_limits(), false).expect("host");
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("games.jsonl");
    driver::run_match::<Durak>(
        &host,
        &args(
            vec![hostile_as("huge-output"), hostile_as("ok")],
            1,
            Some(log.clone()),
        ),
    )
    .expect("match");
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(text.contains("LOG_FLOOD"));
    // 4 MiB were sent; the log holds at most the 4 KiB budget of it.
    assert!(text.len() < 16 * 1024, "log is {} bytes", text.len());
}

#[test]
fn the_clock_is_not_there() {
    // wasm32-unknown-unknown has no clock and the host links none: reading it traps.
    assert_verdict("clock", "TRAP", test_limits());
}

fn logged_lines(mode: &str) -> String {
    let host = Host::new(test_limits(), false).expect("host");
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("games.jsonl");
    let s = driver::run_match::<Durak>(
        &host,
        &args(
            vec![hostile_as(mode), hostile_as("ok")],
            1,
            Some(log.clone()),
        ),
    )
    .expect("match");
    assert_eq!(
        s.agents[0].faults, 0,
        "{mode} must not fault: {:?}",
        s.agents[0]
    );
    std::fs::read_to_string(&log).expect("log")
}

#[test]
fn files_env_and_network_are_denied() {
    for mode in ["file", "env", "net"] {
        let text = logged_lines(mode);
        let key = format!("{mode}: denied");
        assert!(text.contains(&key), "{mode}: {text}");
        assert!(!text.contains("ALLOWED"), "{mode}: {text}");
    }
}

#[test]
fn escape_sequences_are_neutralised() {
    let text = logged_lines("escape");
    assert!(!text.contains('\u{1b}'), "raw escape in log");
    // Escaped once by the host (\u{1b}), then JSON-encoded.
    assert!(text.contains("\\\\u{1b}[2J"), "{text}");
    assert!(text.contains("red alert"));
}

#[test]
fn fallback_policy_keeps_playing() {
    let host = Host::new(test_limits(), false).expect("host");
    let mut a = args(vec![hostile_as("illegal"), hostile_as("ok")], 4, None);
    a.policy = FaultPolicy::Fallback;
    let s = driver::run_match::<Durak>(&host, &a).expect("match");
    assert_eq!(
        s.agents[0].faults_by_verdict.get("ILLEGAL_ACTION"),
        Some(&4)
    );
    // Every game was played to its real end, not forfeited.
    assert_eq!(s.aborted, 0);
    assert_eq!(s.agents[0].wins + s.agents[0].losses + s.agents[0].draws, 4);
}

fn records(log: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(log)
        .expect("log")
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v.get("type").and_then(|t| t.as_str()) == Some("game"))
        .collect()
}

#[test]
fn same_seed_same_games_whatever_the_threads() {
    let host = Host::new(Limits::default(), false).expect("host");
    let dir = tempfile::tempdir().expect("tempdir");
    let mut runs = Vec::new();
    for (i, threads) in [1usize, 2, 2].into_iter().enumerate() {
        let log = dir.path().join(format!("run{i}.jsonl"));
        let mut a = args(
            vec![hostile_as("random"), hostile_as("random")],
            40,
            Some(log.clone()),
        );
        a.threads = threads;
        driver::run_match::<Durak>(&host, &a).expect("match");
        runs.push(records(&log));
    }
    assert_eq!(runs[0].len(), 40);
    assert_eq!(runs[0], runs[1], "1 thread and 2 threads differ");
    assert_eq!(runs[1], runs[2], "two runs with the same seed differ");
    // The agents really used randomness: their logged picks differ between games.
    let picks: std::collections::BTreeSet<String> = runs[0]
        .iter()
        .map(|r| r.get("logs").map(|l| l.to_string()).unwrap_or_default())
        .collect();
    assert!(picks.len() > 30);
    // And another seed gives other games.
    let log = dir.path().join("other.jsonl");
    let mut a = args(
        vec![hostile_as("random"), hostile_as("random")],
        40,
        Some(log.clone()),
    );
    a.seed = 8;
    driver::run_match::<Durak>(&host, &a).expect("match");
    assert_ne!(records(&log), runs[0]);
}

#[test]
fn hostile_component_is_a_real_component() {
    let bytes = std::fs::read(hostile()).expect("read");
    assert!(bytes.starts_with(b"\0asm"));
    assert_eq!(
        croupier_host::loader::producers_language(&bytes).as_deref(),
        Some("Rust")
    );
}

#[test]
fn time_bank_extends_the_deadline_then_runs_out() {
    // 30 ms per decision plus a 60 ms bank: the slow loop is stopped at about 90 ms, and the
    // verdict is still TIMEOUT (never a host error).
    let limits = Limits {
        fuel_per_decision: u64::MAX / 4,
        millis_per_decision: 30,
        time_bank_millis: Some(60),
        ..test_limits()
    };
    let host = Host::new(limits, false).expect("host");
    let t = std::time::Instant::now();
    let s = driver::run_match::<Durak>(
        &host,
        &args(vec![hostile_as("slow"), hostile_as("ok")], 1, None),
    )
    .expect("match");
    assert_eq!(s.agents[0].faults_by_verdict.get("TIMEOUT"), Some(&1));
    assert!(
        t.elapsed() >= std::time::Duration::from_millis(85),
        "{:?}",
        t.elapsed()
    );
}
