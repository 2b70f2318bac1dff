//! The sandbox against a hostile guest: every misbehaviour becomes its exact verdict against
//! that agent, and the next game, with a well-behaved agent, completes normally. Every game
//! here is a real Durak game through real sandboxed components.

use crate::common;

use common::{hostile, hostile_as, match_args as args, test_limits};
use croupier_host::Runtime;
use croupier_host::limits::Limits;
use croupier_rules::durak::{self, Durak};
use croupier_tournament::matches::{self, summary::MatchSummary};
use croupier_tournament::runner::{FaultPolicy, GameRecord};
use std::sync::{Arc, Mutex};

/// Plays `mode` against a well-behaved agent, then a clean match on the same engine.
fn verdict_then_clean(mode: &str, limits: Limits) -> (MatchSummary, Vec<String>) {
    let host = Runtime::new(limits, croupier_host::cache::Cache::disabled()).expect("host");
    // The fault messages come straight from the records, not from a log read back.
    let messages = Mutex::new(Vec::new());
    let collect = |rec: &GameRecord| {
        let mut m = messages.lock().expect("messages");
        m.extend(rec.faults.iter().map(|f| f.message.clone()));
    };
    let bad = matches::run_match_with::<Durak>(
        &host,
        &args(vec![hostile_as(mode), hostile_as("ok")], 2, None),
        &collect,
        Arc::new(|_| {}),
    )
    .expect("match with a hostile agent runs");
    let clean = matches::run_match::<Durak>(
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
    (bad, messages.into_inner().expect("messages"))
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
    let host = Runtime::new(test_limits(), croupier_host::cache::Cache::disabled()).expect("host");
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("games.jsonl");
    matches::run_match::<Durak>(
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
    let host = Runtime::new(test_limits(), croupier_host::cache::Cache::disabled()).expect("host");
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("games.jsonl");
    let s = matches::run_match::<Durak>(
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

/// Replays a logged Durak game (classic rules, as `args` plays) and returns the decisions
/// made for `seat` after action index `after`: positions where `seat` was to act with more
/// than one legal action. Also checks that the record's actions replay to the end of the game
/// and that the game's own outcome is the one recorded.
fn decisions_after(rec: &serde_json::Value, seat: u8, after: usize) -> usize {
    use croupier_rules::{Game, Rules, SeatResult};
    let opts = durak::Options::preset("classic").expect("preset");
    let seed = rec["seed"].as_u64().expect("seed");
    let mut game = Durak::new(&opts, seed).expect("deal");
    let mut legal = Vec::new();
    let mut made = 0;
    let actions = rec["actions"].as_array().expect("actions");
    for (i, code) in actions.iter().enumerate() {
        let to_act = game
            .to_act()
            .expect("the game goes on while actions are logged");
        game.legal_actions(&mut legal);
        if i >= after && to_act == seat && legal.len() > 1 {
            made += 1;
        }
        let code = code.as_u64().expect("code") as u32;
        let a = Durak::decode_action(code).expect("decodes");
        game.apply(a).expect("a logged action replays");
    }
    assert_eq!(
        game.to_act(),
        None,
        "the logged game is not finished: {rec}"
    );
    let outcome = game.outcome().expect("outcome");
    let results: Vec<SeatResult> = serde_json::from_value(rec["results"].clone()).expect("results");
    assert_eq!(results, outcome.results, "{rec}");
    assert!(!outcome.aborted, "{rec}");
    made
}

#[test]
fn fallback_policy_keeps_playing() {
    // An illegal answer does not kill the instance: the host plays the first legal action
    // for that decision and keeps asking the agent.
    let host = Runtime::new(test_limits(), croupier_host::cache::Cache::disabled()).expect("host");
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("illegal.jsonl");
    let mut a = args(
        vec![hostile_as("illegal"), hostile_as("ok")],
        4,
        Some(log.clone()),
    );
    a.policy = FaultPolicy::Fallback;
    let s = matches::run_match::<Durak>(&host, &a).expect("match");
    assert_eq!(
        s.agents[0].faults_by_verdict,
        [("ILLEGAL_ACTION".to_string(), 4)].into_iter().collect(),
        "one illegal answer per game"
    );
    assert_eq!(s.agents[0].faults, 4);
    assert_eq!(s.agents[1].faults, 0);
    assert_eq!(s.aborted, 0);
    assert_eq!(s.agents[0].wins + s.agents[0].losses + s.agents[0].draws, 4);
    let recs = records(&log);
    assert_eq!(recs.len(), 4);
    for r in &recs {
        assert!(r["forfeit"].is_null(), "fallback forfeited: {r}");
        let faults = r["faults"].as_array().expect("faults");
        assert_eq!(faults.len(), 1, "{r}");
        let seat = faults[0]["seat"].as_u64().expect("seat") as u8;
        assert_eq!(
            r["seats"][seat as usize], 0,
            "the fault is the hostile agent's"
        );
        // The instance lives on: it was asked again after its illegal answer.
        let asked = r["calls"][seat as usize]["decisions"]
            .as_u64()
            .expect("calls");
        assert!(asked >= 2, "not asked again after the fault: {r}");
        let at = faults[0]["at"].as_u64().expect("at") as usize;
        assert!(decisions_after(r, seat, at + 1) >= 1, "{r}");
    }
}

#[test]
fn fallback_policy_plays_on_for_a_trapped_instance() {
    // A panic kills the instance at its first decision; the host plays the first legal
    // action for that seat until the game ends, and counts one fault per game.
    let host = Runtime::new(test_limits(), croupier_host::cache::Cache::disabled()).expect("host");
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("trap.jsonl");
    let mut a = args(
        vec![hostile_as("panic"), hostile_as("ok")],
        4,
        Some(log.clone()),
    );
    a.policy = FaultPolicy::Fallback;
    let s = matches::run_match::<Durak>(&host, &a).expect("match");
    assert_eq!(
        s.agents[0].faults_by_verdict,
        [("TRAP".to_string(), 4)].into_iter().collect(),
        "one trap per game, not one per decision played for the dead instance"
    );
    assert_eq!(s.agents[0].faults, 4);
    assert_eq!(s.agents[1].faults, 0);
    assert!(s.agents[1].faults_by_verdict.is_empty());
    assert_eq!(s.aborted, 0);
    let recs = records(&log);
    assert_eq!(recs.len(), 4);
    for r in &recs {
        assert!(r["forfeit"].is_null(), "fallback forfeited: {r}");
        assert_eq!(r["aborted"], false, "{r}");
        let faults = r["faults"].as_array().expect("faults");
        assert_eq!(faults.len(), 1, "one fault per trapped game: {r}");
        assert_eq!(faults[0]["verdict"], "TRAP", "{r}");
        let seat = faults[0]["seat"].as_u64().expect("seat") as u8;
        assert_eq!(
            r["seats"][seat as usize], 0,
            "the fault is the hostile agent's"
        );
        // The dead instance was asked once; every later decision of its seat was the host's.
        assert_eq!(r["calls"][seat as usize]["decisions"], 1, "{r}");
        let at = faults[0]["at"].as_u64().expect("at") as usize;
        let actions = r["actions"].as_array().expect("actions").len();
        assert!(actions > at + 1, "no actions after the fault at {at}: {r}");
        // The host decided for the trapped seat after the fault, and the game reached the
        // outcome its rules give (checked by replaying the actions).
        assert!(
            decisions_after(r, seat, at + 1) >= 1,
            "nobody played for the trapped seat: {r}"
        );
        let results = r["results"].as_array().expect("results");
        assert!(results.iter().any(|x| x == "Win") || results.iter().any(|x| x == "Draw"));
    }
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
    let host =
        Runtime::new(Limits::default(), croupier_host::cache::Cache::disabled()).expect("host");
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
        matches::run_match::<Durak>(&host, &a).expect("match");
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
    matches::run_match::<Durak>(&host, &a).expect("match");
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

/// Host calls at the `spin` agent's first decision (k times as many at its k-th): about
/// 100 ms of wall time on the 2-core development machine (2 M calls took 55 ms), five times
/// the 20 ms decision limit below and a twentieth of the limit plus the 2 s bank. Each
/// decision overruns by more than the last, so the bank is empty after about six decisions
/// here, after about twenty on a machine five times faster, and a game asks that seat about
/// thirty times.
const SPIN_CALLS: u64 = 3_500_000;

/// One game of `spin` (every decision overruns the limit, each by more than the last) against
/// a quiet agent, under `bank`: the hostile seat's decisions asked, its fault from the log,
/// and the match's wall time.
fn spin_game(bank: Option<u32>) -> (u64, serde_json::Value, std::time::Duration) {
    let limits = Limits {
        fuel_per_decision: u64::MAX / 4,
        millis_per_decision: 20,
        time_bank_millis: bank,
        ..test_limits()
    };
    let host = Runtime::new(limits, croupier_host::cache::Cache::disabled()).expect("host");
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("bank.jsonl");
    let t = std::time::Instant::now();
    let s = matches::run_match::<Durak>(
        &host,
        &args(
            vec![hostile_as(&format!("spin={SPIN_CALLS}")), hostile_as("ok")],
            1,
            Some(log.clone()),
        ),
    )
    .expect("match");
    let elapsed = t.elapsed();
    assert_eq!(
        s.agents[0].faults_by_verdict,
        [("TIMEOUT".to_string(), 1)].into_iter().collect(),
        "bank {bank:?}: the spinning agent must time out, and nothing else"
    );
    let recs = records(&log);
    let r = &recs[0];
    let faults = r["faults"].as_array().expect("faults");
    assert_eq!(faults.len(), 1, "{r}");
    let seat = faults[0]["seat"].as_u64().expect("seat") as usize;
    assert_eq!(r["seats"][seat], 0);
    let asked = r["calls"][seat]["decisions"].as_u64().expect("decisions");
    (asked, faults[0].clone(), elapsed)
}

#[test]
fn time_bank_extends_the_deadline_then_runs_out() {
    // Without a bank, one spinning decision is already past the 20 ms limit: this is what
    // makes the next run's extra decisions the bank's doing.
    let (asked, fault, control) = spin_game(None);
    assert_eq!(
        asked, 1,
        "without a bank the first decision times out: {fault}"
    );
    assert_eq!(fault["verdict"], "TIMEOUT");
    assert!(
        !fault["message"].as_str().unwrap_or("").contains("bank"),
        "{fault}"
    );

    // With a 2 s bank, the first decisions overrun into the bank and are played; once the
    // bank is empty the next overrun is a TIMEOUT (never a host error), which ends the game.
    let (asked, fault, elapsed) = spin_game(Some(2000));
    assert!(
        asked >= 2,
        "the bank bought no extra decision: asked {asked}, {fault}"
    );
    assert_eq!(fault["verdict"], "TIMEOUT", "{fault}");
    let message = fault["message"].as_str().unwrap_or("");
    assert!(
        message.contains("the time bank is empty")
            || message.contains("ran past the wall-clock deadline"),
        "{fault}"
    );
    // The whole bank was spent before the timeout: at least 2 s of overrun.
    assert!(
        elapsed >= std::time::Duration::from_millis(2000),
        "{elapsed:?}"
    );
    // And not much more: the bank bounds the game's overrun whatever the machine's speed.
    // The spinning seat's wall time is at most the bank plus the 20 ms limit per decision
    // (about 30 decisions); the rest (loading, the other seat) took `control` without a
    // bank. 2 s of slack on top, and `control` once more: the two runs are seconds
    // apart, and on a machine shared with other builds the loading alone varied by a second
    // (one run took 7.86 s against a bound of 7.24 s that counted `control` once). A bank
    // that never drained would let decision k run to its k·100 ms until one alone passed
    // the 2 s: about 20 s here.
    let bound = 2 * control + std::time::Duration::from_millis(2000 + 30 * 20 + 2000);
    assert!(
        elapsed < bound,
        "the bank did not bound the overrun: {elapsed:?} (bound {bound:?}), asked {asked}"
    );
}

/// One thread plays on the caller's thread; more play on threads of their own. The arena's
/// worker plays thousands of short matches one after another on one thread, and a thread
/// created per match (a cold allocator heap, fresh stack pages) cost it a quarter of its
/// games per second.
#[test]
fn one_thread_plays_on_the_callers_thread() {
    let host = Runtime::new(test_limits(), croupier_host::cache::Cache::disabled()).expect("host");
    let on = |threads: usize| {
        let ids = Mutex::new(Vec::new());
        let mut a = args(vec![hostile_as("ok"), hostile_as("random")], 6, None);
        a.seed = 3;
        a.threads = threads;
        // Progress is called by the thread that played the game.
        let played_on = |_: &GameRecord| ids.lock().expect("ids").push(std::thread::current().id());
        matches::run_match_with::<Durak>(&host, &a, &played_on, Arc::new(|_| {}))
            .expect("match runs");
        ids.into_inner().expect("ids")
    };
    let me = std::thread::current().id();
    let one = on(1);
    assert_eq!(one.len(), 6);
    assert!(
        one.iter().all(|id| *id == me),
        "one thread: {one:?}, caller {me:?}"
    );
    let two = on(2);
    assert_eq!(two.len(), 6);
    assert!(
        two.iter().all(|id| *id != me),
        "two threads: {two:?}, caller {me:?}"
    );
}
