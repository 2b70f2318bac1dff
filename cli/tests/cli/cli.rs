//! The command line end to end: JSON summary, game log, replay, resume after a crash.

use crate::common;

use common::{croupier, hostile_as};
use serde_json::Value;

fn run_json(extra: &[&str]) -> Value {
    run_json_seeded("11", extra)
}

fn run_json_seeded(seed: &str, extra: &[&str]) -> Value {
    let out = croupier()
        .args(["match", "durak"])
        .arg(hostile_as("random"))
        .arg(hostile_as("ok"))
        .args(["--games", "30", "--seed", seed, "--quiet", "--json", "-"])
        .args(extra)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let start = text.find('{').expect("json");
    serde_json::from_str(&text[start..]).expect("parse json")
}

#[test]
fn json_summary_has_the_documented_fields() {
    let v = run_json(&[]);
    assert_eq!(v["game"], "durak");
    assert_eq!(v["rules"], "classic");
    assert_eq!(v["seed"], 11);
    assert_eq!(v["games"], 30);
    let agents = v["agents"].as_array().expect("agents");
    assert_eq!(agents.len(), 2);
    assert!(
        agents[0]["name"]
            .as_str()
            .expect("name")
            .ends_with("#random")
    );
    assert!(agents[1]["name"].as_str().expect("name").ends_with("#ok"));
    for a in agents {
        let sum = a["wins"].as_u64().unwrap_or(0)
            + a["losses"].as_u64().unwrap_or(0)
            + a["draws"].as_u64().unwrap_or(0);
        assert_eq!(sum, 30);
        assert_eq!(a["faults"], 0);
    }
    // Two-player games: one side's wins are the other's losses.
    assert_eq!(agents[0]["wins"], agents[1]["losses"]);
    // Every decision asked is counted for the agent that was asked, with the fuel it burnt.
    let asked: u64 = agents
        .iter()
        .map(|a| a["decisions"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(Some(asked), v["decisions"].as_u64());
    for a in agents {
        let fuel = a["fuel_per_decision"].as_f64().unwrap_or(0.0);
        assert!(fuel > 0.0, "{a}");
    }
}

fn wilson95(k: u64, n: u64) -> (f64, f64) {
    let z = 1.959_963_984_540_054_f64;
    let (n, p) = (n as f64, k as f64 / n as f64);
    let d = 1.0 + z * z / n;
    let c = (p + z * z / (2.0 * n)) / d;
    let h = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / d;
    ((c - h).max(0.0), (c + h).min(1.0))
}

/// `--json FILE` writes every field the README documents, each with a value that agrees with
/// the others: rates from counts, intervals around rates, Elo from the score, the limits and
/// options the match ran with.
#[test]
fn json_file_has_every_documented_field_with_a_sane_value() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("summary.json");
    let out = croupier()
        .args(["match", "durak"])
        .arg(hostile_as("random"))
        .arg(hostile_as("ok"))
        .args([
            "--games", "30", "--seed", "11", "--quiet", "--millis", "1500", "--json",
        ])
        .arg(&path)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("json file")).expect("json");
    assert_eq!(v["game"], "durak", "{v}");
    assert_eq!(v["rules"], "classic", "{v}");
    assert_eq!(v["seed"], 11, "{v}");
    assert_eq!(v["games"], 30, "{v}");
    // Every option of the rules, as name/value pairs.
    let options = v["options"].as_array().expect("options");
    assert!(options.len() >= 3, "{v}");
    for o in options {
        let pair = o.as_array().expect("an option is a pair");
        assert_eq!(pair.len(), 2, "{o}");
        assert!(
            pair.iter()
                .all(|x| x.as_str().is_some_and(|t| !t.is_empty())),
            "{o}"
        );
    }
    // The limits the match ran with, the one set on the command line included.
    let limits = &v["limits"];
    assert_eq!(limits["fuel_per_decision"], 200_000_000, "{limits}");
    assert_eq!(limits["millis_per_decision"], 1500, "{limits}");
    assert_eq!(limits["memory_mib"], 64, "{limits}");
    assert_eq!(limits["log_bytes_per_game"], 65536, "{limits}");
    assert!(
        limits["start_fuel"].as_u64().is_some_and(|f| f > 0),
        "{limits}"
    );
    assert!(
        limits
            .as_object()
            .expect("limits")
            .contains_key("time_bank_millis"),
        "{limits}"
    );
    let agents = v["agents"].as_array().expect("agents");
    assert_eq!(agents.len(), 2);
    let mut elo = Vec::new();
    let mut score = Vec::new();
    for a in agents {
        let n = |k: &str| a[k].as_u64().unwrap_or_else(|| panic!("{k} in {a}"));
        let f = |k: &str| a[k].as_f64().unwrap_or_else(|| panic!("{k} in {a}"));
        assert!(
            a["name"]
                .as_str()
                .is_some_and(|s| s.contains("hostile.wasm#")),
            "{a}"
        );
        let (games, wins, losses, draws) = (n("games"), n("wins"), n("losses"), n("draws"));
        assert_eq!(games, 30, "{a}");
        assert_eq!(wins + losses + draws, games, "{a}");
        assert_eq!(n("faults"), 0, "{a}");
        assert_eq!(a["faults_by_verdict"], serde_json::json!({}), "{a}");
        let rate = f("win_rate");
        assert!((rate - wins as f64 / games as f64).abs() < 1e-9, "{a}");
        let ci = a["win_rate_ci95"].as_array().expect("ci95");
        assert_eq!(ci.len(), 2, "{a}");
        let (lo, hi) = (ci[0].as_f64().expect("lo"), ci[1].as_f64().expect("hi"));
        assert!(0.0 <= lo && lo <= rate && rate <= hi && hi <= 1.0, "{a}");
        let (wlo, whi) = wilson95(wins, games);
        assert!(
            (lo - wlo).abs() < 1e-9 && (hi - whi).abs() < 1e-9,
            "not Wilson's: {a}"
        );
        assert!(n("decisions") > 0, "{a}");
        assert!(f("fuel_per_decision") > 0.0, "{a}");
        // The costliest decision: at least the mean, within the default limit.
        let max = f("fuel_max");
        assert!(max >= f("fuel_per_decision") && max <= 200e6, "{a}");
        elo.push(f("elo"));
        score.push((wins as f64 + draws as f64 / 2.0) / games as f64);
    }
    assert!(
        agents[0]["wins"] != agents[1]["wins"],
        "a test with a tie shows little: {v}"
    );
    // Two agents: the Elo difference is the one implied by the first agent's score rate.
    let s = score[0].clamp(0.001, 0.999);
    let implied = 400.0 * (s / (1.0 - s)).log10();
    assert!(
        (elo[0] - elo[1] - implied).abs() < 1e-6,
        "Elo {elo:?}, score {score:?}"
    );
    assert!((elo[0] + elo[1]).abs() < 1e-6, "Elo {elo:?}");
    assert_eq!(elo[0] > 0.0, score[0] > 0.5, "Elo {elo:?}, score {score:?}");
}

#[test]
fn log_replays_and_resume_finishes_the_same_match() {
    let dir = tempfile::tempdir().expect("tempdir");
    let full = dir.path().join("full.jsonl");
    let full_json = run_json(&["--log", full.to_str().expect("path")]);

    // Replay a logged game as a spectator: public events only.
    let out = croupier()
        .arg("replay")
        .arg(&full)
        .args(["--game", "3"])
        .output()
        .expect("replay");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("game 3"), "{text}");
    assert!(text.contains("leads"), "{text}");
    assert!(text.contains("result:"), "{text}");

    // A crash after 12 games, in the middle of writing the 13th line.
    let log = std::fs::read_to_string(&full).expect("log");
    let lines: Vec<&str> = log.lines().collect();
    let mut torn = lines[..13].join("\n");
    torn.push('\n');
    torn.push_str(&lines[13][..lines[13].len() / 2]);
    let partial = dir.path().join("partial.jsonl");
    std::fs::write(&partial, torn).expect("write");
    let resumed = run_json(&["--log", partial.to_str().expect("path"), "--resume"]);
    assert_eq!(
        resumed["agents"], full_json["agents"],
        "resumed totals differ"
    );
    let after = std::fs::read_to_string(&partial).expect("log");
    assert_eq!(
        after.lines().count(),
        31,
        "header + 30 games, torn line dropped"
    );
    assert_eq!(after, log, "the resumed log is the uninterrupted log");
}

/// A log can hold several runs (`--log` appends). `--resume` counts only the games of the
/// run it resumes, even when another run (here another seed) was appended after it.
#[test]
fn resume_counts_only_its_own_run_in_a_shared_log() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = |name: &str| dir.path().join(name);
    let full_json = run_json(&["--log", path("a.jsonl").to_str().expect("path")]);
    let other_json = run_json_seeded("12", &["--log", path("b.jsonl").to_str().expect("path")]);
    assert_ne!(
        full_json["agents"], other_json["agents"],
        "the two seeds must give different totals, or the test shows nothing"
    );
    let a = std::fs::read_to_string(path("a.jsonl")).expect("log a");
    let b = std::fs::read_to_string(path("b.jsonl")).expect("log b");
    // Seed 11 stopped after 12 games, then a whole seed-12 run appended to the same file.
    let mut shared: String = a.lines().take(13).map(|l| format!("{l}\n")).collect();
    shared.push_str(&b);
    std::fs::write(path("shared.jsonl"), &shared).expect("write");
    let shared_path = path("shared.jsonl");
    let resumed = run_json(&["--log", shared_path.to_str().expect("path"), "--resume"]);
    assert_eq!(
        resumed["agents"], full_json["agents"],
        "the appended seed-12 run was counted into the resumed seed-11 run"
    );
    let after = std::fs::read_to_string(&shared_path).expect("log");
    let added: Vec<&str> = after[shared.len()..].lines().collect();
    let games: Vec<u64> = added
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).expect("json line"))
        .filter(|r| r["type"] == "game")
        .map(|r| r["index"].as_u64().expect("index"))
        .collect();
    assert_eq!(
        games.len(),
        18,
        "the 18 missing games are played: {games:?}"
    );
    // The seed-12 run, resumed from the same file, is complete: nothing more to play.
    let again = run_json_seeded(
        "12",
        &["--log", shared_path.to_str().expect("path"), "--resume"],
    );
    assert_eq!(again["agents"], other_json["agents"]);
}

/// `--duplicate`: every deal is played once per rotation, and each replay of a deal starts
/// from the same deal (the same seed) with the seats rotated.
/// The match library names a bad setting by its field (`rules`, `set`, `resume`); what a
/// person sees names the flag they typed, in one line.
#[test]
fn a_bad_setting_is_named_by_its_flag() {
    let refused = |cmd: &str, args: &[&str]| {
        let out = croupier()
            .args([cmd, "durak"])
            .arg(hostile_as("ok"))
            .args(["--games", "1", "--quiet"])
            .args(args)
            .output()
            .expect("run");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
        err
    };
    for (args, start) in [
        (&["--rules", "nope"][..], "error: --rules: "),
        (&["--players", "1000"], "error: --players: "),
        (
            &["--set", "transfer"],
            "error: --set `transfer`: expected NAME=VALUE",
        ),
        (&["--set", "colour=red"], "error: --set: "),
        (&["--resume"], "error: --resume needs --log FILE"),
    ] {
        let e = refused("match", args);
        assert!(e.starts_with(start), "{args:?}: {e}");
    }
    let e = refused("tournament", &[]);
    assert!(e.contains("at least two agents"), "{e}");
}

#[test]
fn duplicate_plays_every_deal_in_every_rotation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("dup.jsonl");
    let v = run_json(&["--duplicate", "--log", log.to_str().expect("path")]);
    assert_eq!(v["games"], 60);
    assert_eq!(v["deals"], 30);
    let records: Vec<Value> = std::fs::read_to_string(&log)
        .expect("log")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("json line"))
        .filter(|r| r["type"] == "game")
        .collect();
    assert_eq!(records.len(), 60);
    let mut by_deal: std::collections::BTreeMap<u64, Vec<&Value>> = Default::default();
    for r in &records {
        by_deal
            .entry(r["deal"].as_u64().expect("deal"))
            .or_default()
            .push(r);
    }
    let rotations = 2; // two agents, two seats
    assert_eq!(by_deal.len(), 30, "deals");
    assert_eq!(records.len(), by_deal.len() * rotations);
    let mut seeds = std::collections::BTreeSet::new();
    for (deal, games) in &by_deal {
        assert_eq!(games.len(), rotations, "deal {deal}");
        let seed = &games[0]["seed"];
        assert!(
            games.iter().all(|g| g["seed"] == *seed),
            "deal {deal} is dealt differently in its rotations: {:?}",
            games.iter().map(|g| &g["seed"]).collect::<Vec<_>>()
        );
        let rots: std::collections::BTreeSet<u64> = games
            .iter()
            .map(|g| g["rotation"].as_u64().expect("rotation"))
            .collect();
        assert_eq!(rots.len(), rotations, "deal {deal}: rotations {rots:?}");
        assert_ne!(
            games[0]["seats"], games[1]["seats"],
            "deal {deal}: same seats"
        );
        seeds.insert(seed.as_u64().expect("seed"));
    }
    // And different deals are different deals.
    assert_eq!(seeds.len(), 30);
}

#[test]
fn help_documents_every_flag() {
    let out = croupier().args(["match", "--help"]).output().expect("help");
    let text = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--rules",
        "--players",
        "--set",
        "--games",
        "--seed",
        "--threads",
        "--duplicate",
        "--json",
        "--log",
        "--resume",
        "--fuel",
        "--millis",
        "--memory",
        "--on-fault",
    ] {
        assert!(text.contains(flag), "missing {flag}");
    }
}

#[test]
fn soak_checks_every_game_exactly_by_default_and_on_a_sample_when_asked() {
    for (game, rules) in [("durak", "teams"), ("toepen", "cafe"), ("uno", "house")] {
        for extra in [None, Some("--sample")] {
            let out = croupier()
                .args([
                    "soak", game, "--rules", rules, "--games", "40", "--seed", "7",
                ])
                .args(extra)
                .output()
                .expect("run soak");
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "{game} {rules} {extra:?}: {text}");
            assert!(text.contains("40 games in"), "{text}");
            assert!(text.contains("\n0 violations"), "{text}");
        }
    }
}

/// A soak run in parts (`--first`) checks exactly the games of one whole run: the decisions
/// of the parts add up to the whole run's, and the parts name their ranges.
#[test]
fn soak_in_parts_checks_the_same_games_as_one_run() {
    let decisions = |args: &[&str]| -> (u64, String) {
        let out = croupier()
            .args(["soak", "toepen", "--rules", "plain", "--seed", "11"])
            .args(args)
            .output()
            .expect("run soak");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(out.status.success(), "{args:?}: {text}");
        let n = text
            .split(", ")
            .find_map(|part| part.strip_suffix(" decisions"))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no decision count in {text}"));
        (n, text)
    };
    // What each game of the soak is, from the rules crate: game `i` of seed 11 is the
    // checked random game of seed `derive(11, i)`. Its decisions say which game was played.
    let per_game: Vec<u64> = {
        use croupier_rules::Rules;
        use croupier_rules::check::{CheckConfig, soak};
        use croupier_rules::toepen::{self, Toepen};
        let opts = toepen::Options::preset("plain").expect("plain");
        let cfg = CheckConfig {
            illegal_samples: None,
            legal_samples: None,
            ..Default::default()
        };
        (0..41)
            .map(|i| {
                let t = soak::<Toepen>(&opts, 11, i, 1, &cfg);
                assert!(t.violations.is_empty(), "{:?}", t.violations);
                t.decisions
            })
            .collect()
    };
    let games = |r: std::ops::Range<usize>| -> u64 { per_game[r].iter().sum() };
    // The checks below can tell these ranges from the same ranges shifted by one game
    // (decisions per game vary, from 184 to 220 here).
    assert_ne!(games(0..30), games(1..31));
    assert_ne!(games(12..30), games(13..31));
    let dir = tempfile::tempdir().expect("tempdir");
    let ledger = dir.path().join("ledger.jsonl");
    let ledger_arg = ledger.to_str().expect("utf-8 path");
    let (whole, text) = decisions(&["--games", "30"]);
    assert!(text.contains("toepen (plain): 30 games in"), "{text}");
    assert_eq!(whole, games(0..30), "the whole run is not games 0..30");
    let (a, _) = decisions(&["--games", "12", "--record", ledger_arg]);
    let (b, text) = decisions(&[
        "--first",
        "12",
        "--games",
        "18",
        "--threads",
        "1",
        "--record",
        ledger_arg,
    ]);
    assert!(text.contains("(games 12..30): 18 games in"), "{text}");
    assert_eq!(a, games(0..12), "the first part is not games 0..12");
    assert_eq!(b, games(12..30), "--first 12 did not check games 12..30");
    assert_eq!(
        a + b,
        whole,
        "the parts play other games than the whole run"
    );
    // The ledger holds one line per part, with what is needed to put the parts together.
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&ledger)
        .expect("ledger written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["first"], 12);
    assert_eq!(lines[1]["games"], 18);
    assert_eq!(lines[1]["decisions"], b);
    assert_eq!(lines[1]["check"], "exact");
    assert_eq!(lines[1]["preset"], "plain");
    assert_eq!(lines[1]["violations"], 0);
    assert_eq!(lines[0]["decisions"], a);
    assert_eq!(lines[0]["first"], 0);
    assert_eq!(lines[0]["games"], 12);
    assert_eq!(lines[0]["seed"], 11);
    assert_eq!(lines[1]["seed"], 11);
    // `croupier ledger` puts the two parts together as one run of 30 games.
    let out = croupier()
        .args(["ledger", ledger_arg])
        .output()
        .expect("run ledger");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("toepen plain (seed 11, exact check): games 0..30 checked without a gap"),
        "{text}"
    );
    assert!(text.contains(&format!("{whole} decisions")), "{text}");
    // `--next` goes on where the ledger ends, up to `--until`, then has nothing left to do.
    let (c, text) = decisions(&[
        "--next", "--until", "40", "--games", "25", "--record", ledger_arg,
    ]);
    assert!(text.contains("(games 30..40): 10 games in"), "{text}");
    assert_eq!(c, games(30..40), "--next did not check games 30..40");
    let (forty, _) = decisions(&["--games", "40"]);
    assert_eq!(whole + c, forty, "--next played other games than one run");
    let out = croupier()
        .args(["soak", "toepen", "--rules", "plain", "--seed", "11"])
        .args(["--next", "--until", "40", "--record", ledger_arg])
        .output()
        .expect("run soak");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("nothing left to check, games 0..40 are in"),
        "{text}"
    );
    let lines = std::fs::read_to_string(&ledger)
        .expect("ledger")
        .lines()
        .count();
    assert_eq!(lines, 3, "a run with nothing to check records nothing");
    // Another seed is another soak: it starts at game 0.
    let out = croupier()
        .args([
            "soak", "toepen", "--rules", "plain", "--seed", "12", "--games", "3",
        ])
        .args(["--next", "--record", ledger_arg])
        .output()
        .expect("run soak");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("toepen (plain): 3 games in"), "{text}");
    // --next without a ledger to continue is refused by the command line.
    let out = croupier()
        .args(["soak", "toepen", "--next"])
        .output()
        .expect("run soak");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--record"));
    // A ledger that cannot be written fails before any game is played.
    let out = croupier()
        .args(["soak", "toepen", "--games", "5", "--record"])
        .arg(dir.path().join("no/such/dir/ledger.jsonl"))
        .output()
        .expect("run soak");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("--record") && err.contains("ledger.jsonl"),
        "{err}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("games in"));
}

/// The soak ledger in the repository (docs/soak-ledger.jsonl).
fn committed_ledger() -> std::path::PathBuf {
    common::repo().join("docs/soak-ledger.jsonl")
}

/// The ledger the README's soak figures come from: every line parses, the parts found no
/// violation, and `croupier ledger` puts each UNO soak together from game 0 without a gap.
#[test]
fn the_committed_soak_ledger_is_whole_and_clean() {
    let ledger = committed_ledger();
    let out = croupier()
        .arg("ledger")
        .arg(&ledger)
        .output()
        .expect("run ledger");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for preset in ["official", "two-player"] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("uno {preset} (seed 2026, exact check)")))
            .unwrap_or_else(|| panic!("no uno {preset} soak in {text}"));
        assert!(line.contains(", 0 violations"), "{line}");
        // The README says both are done at 10⁶.
        assert!(
            line.contains("games 0..1000000 checked without a gap"),
            "{line}"
        );
        // No part lies outside the run that starts at game 0.
        let (_, covered) = line.split_once("covered ").expect("ranges");
        assert!(
            !covered.split(" in ").next().unwrap_or("").contains(','),
            "{line}"
        );
    }
}

/// `croupier … | head -1`: once the reader has gone, croupier ends quietly, killed by
/// SIGPIPE as `cat` would be, not with a panic and a backtrace on stderr.
#[cfg(unix)]
#[test]
fn a_closed_stdout_ends_croupier_quietly() {
    use std::os::unix::process::ExitStatusExt;
    const SIGPIPE: i32 = 13;
    let ledger = committed_ledger();
    let (reader, writer) = std::io::pipe().expect("pipe");
    // No reader from the start, so the first print meets a closed pipe whatever the timing.
    drop(reader);
    let out = croupier()
        .arg("ledger")
        .arg(&ledger)
        .stdout(writer)
        .output()
        .expect("run ledger");
    assert_eq!(out.status.signal(), Some(SIGPIPE), "{:?}", out.status);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// A part whose output nobody reads any more (its pipeline was killed) is still recorded:
/// the ledger line is written before anything is printed.
#[test]
fn a_soak_part_is_recorded_even_when_its_output_is_lost() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ledger = dir.path().join("ledger.jsonl");
    let mut child = croupier()
        .args([
            "soak", "toepen", "--rules", "plain", "--games", "40", "--quiet",
        ])
        .arg("--record")
        .arg(&ledger)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start soak");
    // Closing the read end now makes the soak's first print fail (40 checked games take
    // far longer than this).
    drop(child.stdout.take());
    let status = child.wait().expect("soak ends");
    assert!(!status.success(), "printing to a closed pipe should fail");
    let text = std::fs::read_to_string(&ledger).expect("the part is in the ledger");
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("\"games\":40"), "{text}");
}

/// The words of a text that name a card (`10H`, `QS`), as written by the replay.
fn card_words(text: &str) -> std::collections::BTreeSet<String> {
    text.split(|c: char| {
        c.is_whitespace() || c == ',' || c == ':' || c == ';' || c == '(' || c == ')'
    })
    // ASCII words only: `Card::from_str` panics on a word that starts with a multi-byte
    // character, such as the header's `·`.
    .filter(|w| w.is_ascii() && w.parse::<croupier_rules::Card>().is_ok())
    .map(String::from)
    .collect()
}

/// `croupier replay` shows a spectator only the public events and `--seat S` only what seat
/// S saw. The expected views come from the rules engine: the logged game is dealt again from
/// its seed and replayed, and every event's visibility tag says who may see its line.
#[test]
fn replay_shows_each_viewer_only_what_it_may_see() {
    use croupier_rules::durak::{self, Durak};
    use croupier_rules::{Card, Game, Rules};
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("games.jsonl");
    let out = croupier()
        .args(["match", "durak"])
        .arg(hostile_as("random"))
        .arg(hostile_as("ok"))
        .args(["--games", "2", "--seed", "5", "--quiet", "--log"])
        .arg(&log)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = std::fs::read_to_string(&log)
        .expect("log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    let header = &lines[0];
    let rec = lines
        .iter()
        .find(|l| l["type"] == "game" && l["index"] == 1)
        .expect("game 1");

    // The game again, from the record: options, seed, actions.
    let pairs: Vec<(String, String)> =
        serde_json::from_value(header["options"].clone()).expect("options");
    let opts = durak::Options::from_pairs(&pairs).expect("options");
    let mut game = Durak::new(&opts, rec["seed"].as_u64().expect("seed")).expect("deal");
    let dealt: Vec<String> = (0..2u8)
        .map(|s| {
            let hand = game.observe(s).hand;
            assert!(!hand.is_empty());
            let cards: Vec<String> = hand.iter().map(|c: Card| c.to_string()).collect();
            format!("P{s} is dealt {}", cards.join(" "))
        })
        .collect();
    let initial: Vec<std::collections::BTreeSet<String>> = (0..2u8)
        .map(|s| game.observe(s).hand.iter().map(|c| c.to_string()).collect())
        .collect();
    for code in rec["actions"].as_array().expect("actions") {
        let a = Durak::decode_action(code.as_u64().expect("code") as u32).expect("decodes");
        game.apply(a).expect("replays");
    }
    let public_text: String = game
        .events()
        .iter()
        .filter(|e| e.vis.is_public())
        .map(|e| format!("{}\n", e.event))
        .collect();
    let private: Vec<(croupier_rules::Visibility, String)> = game
        .events()
        .iter()
        .filter(|e| !e.vis.is_public())
        .map(|e| (e.vis, e.event.to_string()))
        .collect();
    assert!(
        private
            .iter()
            .filter(|(_, t)| t.contains("is dealt"))
            .count()
            >= 2,
        "{private:?}"
    );

    let replay = |seat: Option<&str>| -> String {
        let mut cmd = croupier();
        cmd.arg("replay").arg(&log).args(["--game", "1"]);
        if let Some(s) = seat {
            cmd.args(["--seat", s]);
        }
        let out = cmd.output().expect("replay");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let has_line = |text: &str, line: &str| text.lines().any(|l| l.trim() == line);

    // The spectator: every public event, no private one, no seat's dealt hand.
    let spectator = replay(None);
    assert!(spectator.contains("result:"), "{spectator}");
    for line in public_text.lines() {
        assert!(
            has_line(&spectator, line),
            "public `{line}` missing:\n{spectator}"
        );
    }
    for (_, line) in &private {
        assert!(
            !has_line(&spectator, line),
            "private `{line}` shown to a spectator:\n{spectator}"
        );
    }
    for line in &dealt {
        assert!(!spectator.contains(line.as_str()), "{spectator}");
    }
    assert!(!spectator.contains("is dealt"), "{spectator}");

    // Cards a seat was dealt or drew in private and never showed in public.
    let public_cards = card_words(&public_text);
    let hidden: Vec<Vec<String>> = (0..2u8)
        .map(|s| {
            let text: String = private
                .iter()
                .filter(|(vis, _)| vis.visible_to(s))
                .map(|(_, t)| format!("{t}\n"))
                .collect();
            card_words(&text)
                .into_iter()
                .filter(|c| !public_cards.contains(c))
                .collect()
        })
        .collect();
    for (s, own_deal) in dealt.iter().enumerate() {
        let other = 1 - s;
        let view = replay(Some(&s.to_string()));
        assert!(view.contains("result:"), "{view}");
        // Its own deal, and every event it may see.
        assert!(
            has_line(&view, own_deal),
            "seat {s} misses its hand `{own_deal}`:\n{view}"
        );
        for line in public_text.lines() {
            assert!(
                has_line(&view, line),
                "seat {s}: public `{line}` missing:\n{view}"
            );
        }
        for (vis, line) in &private {
            assert_eq!(
                has_line(&view, line),
                vis.visible_to(s as u8),
                "seat {s}, `{line}` ({vis:?}):\n{view}"
            );
        }
        // Not the other hand, neither its deal line nor any card of it never played.
        assert!(!view.contains(&format!("P{other} is dealt")), "{view}");
        let words = card_words(&view);
        for c in &hidden[other] {
            assert!(
                !words.contains(c),
                "seat {s} sees P{other}'s hidden {c}:\n{view}"
            );
        }
        if s == 0 {
            for c in &initial[0] {
                assert!(
                    words.contains(c),
                    "seat 0 does not see its own {c}:\n{view}"
                );
            }
        }
    }
    // The check is not vacuous: a hand kept cards to the end of the game.
    assert!(hidden.iter().any(|h| !h.is_empty()), "{hidden:?}");
}

fn run_ok(cmd: &mut std::process::Command) -> String {
    let out = cmd.output().expect("run croupier");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("json file")).expect("json")
}

/// `croupier tournament` end to end: a round robin of three example agents, every pairing
/// played, the games adding up, and the ranking sorted by its Bradley–Terry rating.
#[test]
fn tournament_plays_every_pairing_and_ranks_by_rating() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("tournament.json");
    let agents = ["durak/cheapest", "durak/random-lead", "durak/trump-tosser"];
    run_ok(
        croupier()
            .args(["tournament", "durak"])
            .args(agents)
            .args(["--games", "40", "--seed", "3", "--quiet", "--json"])
            .arg(&path),
    );
    let v = read_json(&path);
    assert_eq!(v["game"], "durak", "{v}");
    assert_eq!(v["rules"], "classic", "{v}");
    assert_eq!(v["seed"], 3, "{v}");
    assert_eq!(v["games_per_pairing"], 40, "{v}");
    let pairings = v["pairings"].as_array().expect("pairings");
    assert_eq!(pairings.len(), 3, "{v}");
    let mut pairs = std::collections::BTreeSet::new();
    let mut wins: std::collections::BTreeMap<String, u64> = Default::default();
    let mut draws: std::collections::BTreeMap<String, u64> = Default::default();
    for p in pairings {
        let (a, b) = (p["a"].as_str().expect("a"), p["b"].as_str().expect("b"));
        assert_ne!(a, b);
        pairs.insert((a.min(b).to_string(), a.max(b).to_string()));
        let n = |k: &str| p[k].as_u64().unwrap_or_else(|| panic!("{k} in {p}"));
        assert_eq!(n("games"), 40, "{p}");
        assert_eq!(n("a_wins") + n("b_wins") + n("draws"), 40, "{p}");
        *wins.entry(a.into()).or_default() += n("a_wins");
        *wins.entry(b.into()).or_default() += n("b_wins");
        *draws.entry(a.into()).or_default() += n("draws");
        *draws.entry(b.into()).or_default() += n("draws");
    }
    assert_eq!(pairs.len(), 3, "every pair once: {pairs:?}");
    let ranking = v["ranking"].as_array().expect("ranking");
    assert_eq!(ranking.len(), 3, "{v}");
    let names: std::collections::BTreeSet<&str> = ranking
        .iter()
        .map(|a| a["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, agents.into_iter().collect(), "{v}");
    let mut elos = Vec::new();
    for a in ranking {
        let name = a["name"].as_str().expect("name");
        let n = |k: &str| a[k].as_u64().unwrap_or_else(|| panic!("{k} in {a}"));
        // Two pairings of 40 games each, and the same wins and draws as its pairings.
        assert_eq!(n("games"), 80, "{a}");
        assert_eq!(n("wins") + n("losses") + n("draws"), 80, "{a}");
        assert_eq!(n("wins"), wins[name], "{a}");
        assert_eq!(n("draws"), draws[name], "{a}");
        let rate = a["win_rate"].as_f64().expect("win_rate");
        assert!((rate - n("wins") as f64 / 80.0).abs() < 1e-9, "{a}");
        elos.push(a["elo"].as_f64().expect("a tournament rates every agent"));
    }
    assert!(
        elos.windows(2).all(|w| w[0] >= w[1]),
        "ranking not sorted by rating: {elos:?}"
    );
    assert!(elos[0] > elos[2], "three agents rated alike: {elos:?}");
    // Bradley–Terry ratings on the Elo scale, mean 0.
    assert!(elos.iter().sum::<f64>().abs() < 1e-6, "{elos:?}");
}

/// A forfeit loses for the whole team: the faulting agent's innocent partner loses with it,
/// and both opponents win.
#[test]
fn a_forfeit_loses_for_the_whole_team() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("teams.jsonl");
    let json = dir.path().join("teams.json");
    // Four agents fill the four seats in order: the panicking agent (entrant 0) and its
    // partner (entrant 2, random) against two quiet ones. Seats rotate every game.
    run_ok(
        croupier()
            .args(["match", "durak"])
            .arg(hostile_as("panic"))
            .arg(hostile_as("ok"))
            .arg(hostile_as("random"))
            .arg(hostile_as("ok"))
            .args(["--rules", "teams", "--games", "8", "--quiet", "--log"])
            .arg(&log)
            .arg("--json")
            .arg(&json),
    );
    let records: Vec<Value> = std::fs::read_to_string(&log)
        .expect("log")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("json line"))
        .filter(|r| r["type"] == "game")
        .collect();
    assert_eq!(records.len(), 8);
    for r in &records {
        let seats: Vec<u64> = serde_json::from_value(r["seats"].clone()).expect("seats");
        let teams: Vec<u64> = serde_json::from_value(r["teams"].clone()).expect("teams");
        let results: Vec<String> = serde_json::from_value(r["results"].clone()).expect("results");
        assert_eq!(seats.len(), 4, "{r}");
        let culprit = r["forfeit"].as_u64().expect("every game is forfeited") as usize;
        assert_eq!(seats[culprit], 0, "the panicking agent forfeits: {r}");
        assert_eq!(r["faults"][0]["verdict"], "TRAP", "{r}");
        let partner = (0..4)
            .find(|&s| s != culprit && teams[s] == teams[culprit])
            .expect("a partner");
        assert_eq!(seats[partner], 2, "{r}");
        for s in 0..4 {
            let expect = if teams[s] == teams[culprit] {
                "Loss"
            } else {
                "Win"
            };
            assert_eq!(results[s], expect, "seat {s} (entrant {}): {r}", seats[s]);
        }
    }
    // The totals: the team of entrants 0 and 2 lost every game, the other team won them.
    let v = read_json(&json);
    let agents = v["agents"].as_array().expect("agents");
    for (e, (wins, losses)) in [(0, 8), (8, 0), (0, 8), (8, 0)].into_iter().enumerate() {
        assert_eq!(agents[e]["wins"], wins, "entrant {e}: {}", agents[e]);
        assert_eq!(agents[e]["losses"], losses, "entrant {e}: {}", agents[e]);
    }
    assert_eq!(
        agents[0]["faults_by_verdict"],
        serde_json::json!({"TRAP": 8})
    );
    assert_eq!(agents[2]["faults"], 0);
}

/// The README's source A figures, end to end through the command it shows.
#[test]
fn readme_source_a_figures_hold() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("a.json");
    run_ok(
        croupier()
            .args(["match", "durak", "durak/random-lead", "durak/trump-tosser"])
            .args(["--rules", "teams", "--games", "1000", "--quiet", "--json"])
            .arg(&path),
    );
    let v = read_json(&path);
    assert_eq!(v["seed"], 1, "the README's default seed");
    assert_eq!(v["games"], 1000);
    let row = |i: usize| {
        let a = &v["agents"][i];
        (
            a["name"].as_str().unwrap_or("").to_string(),
            a["games"].as_u64(),
            a["wins"].as_u64(),
            a["losses"].as_u64(),
            a["draws"].as_u64(),
            a["faults"].as_u64(),
        )
    };
    let n = |x: u64| Some(x);
    assert_eq!(
        row(0),
        (
            "durak/random-lead".into(),
            n(1000),
            n(236),
            n(748),
            n(16),
            n(0)
        ),
        "{v}"
    );
    assert_eq!(
        row(1),
        (
            "durak/trump-tosser".into(),
            n(1000),
            n(748),
            n(236),
            n(16),
            n(0)
        ),
        "{v}"
    );
}

/// The JSON document embedded in a replay page.
fn page_doc(page: &str) -> Value {
    let open = "<script type=\"application/json\" id=\"replay-doc\">";
    let start = page.find(open).expect("the document element") + open.len();
    let len = page[start..].find("</script>").expect("its end");
    serde_json::from_str(&page[start..start + len]).expect("the document parses")
}

/// `croupier replay --html`: a real match logged, then one game written as a self-contained
/// page for a spectator and for the seat of an agent whose name (its file's path) carries
/// markup. The page holds the document (one step per action, plus the deal), the viewer's
/// script and style inline, the hostile name only in escaped form, and the seat's own agent
/// log beside the steps it decided; the spectator's page holds no hand and no log.
#[test]
fn replay_html_writes_a_self_contained_viewer() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A directory path that spells `</script><b>` when joined.
    let evil_dir = dir.path().join("a<").join("script><b>x");
    std::fs::create_dir_all(&evil_dir).expect("the filesystem allows <, > in names");
    let evil = evil_dir.join("hostile.wasm");
    std::fs::copy(common::hostile(), &evil).expect("copy the agent");
    let evil_arg = format!("{}#random", evil.display());
    assert!(evil_arg.contains("</script><b>"));
    let log = dir.path().join("games.jsonl");
    run_ok(
        croupier()
            .args(["match", "durak"])
            .arg(&evil_arg)
            .arg(hostile_as("ok"))
            .args(["--games", "2", "--seed", "5", "--quiet", "--log"])
            .arg(&log),
    );
    let rec: Value = std::fs::read_to_string(&log)
        .expect("log")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("json line"))
        .find(|l| l["type"] == "game" && l["index"] == 1)
        .expect("game 1");
    let actions = rec["actions"].as_array().expect("actions").len();
    let seat = rec["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .position(|e| e == 0)
        .expect("the hostile name's seat");

    let page = |seat: Option<usize>| -> String {
        let out = dir.path().join(format!("replay-{seat:?}.html"));
        let mut cmd = croupier();
        cmd.arg("replay")
            .arg(&log)
            .args(["--game", "1", "--html"])
            .arg(&out);
        if let Some(s) = seat {
            cmd.args(["--seat", &s.to_string()]);
        }
        run_ok(&mut cmd);
        std::fs::read_to_string(&out).expect("the page")
    };

    for view in [None, Some(seat)] {
        let html = page(view);
        assert!(html.starts_with("<!DOCTYPE html>"), "{view:?}");
        assert!(
            html.contains("<script>\n// Croupier replay viewer"),
            "the viewer is inline"
        );
        assert!(html.contains("<style>\n/* Croupier replay viewer"));
        assert!(!html.contains("</script><b>"), "the hostile name is raw");
        assert_eq!(html.matches("<script").count(), 2, "{view:?}");
        let doc = page_doc(&html);
        let steps = doc["steps"].as_array().expect("steps");
        assert_eq!(steps.len(), actions + 1, "{view:?}");
        assert_eq!(doc["game"], "durak");
        assert_eq!(doc["index"], 1);
        assert_eq!(doc["players"][seat], evil_arg.as_str(), "read back whole");
        match view {
            None => {
                assert!(doc["viewer"].is_null());
                assert!(steps.iter().all(|s| s["table"]["hand"].is_null()));
                assert_eq!(doc["log"].as_array().expect("log").len(), 0);
            }
            Some(s) => {
                assert_eq!(doc["viewer"], s);
                assert!(steps[0]["table"]["hand"].as_array().expect("hand").len() >= 6);
                // `random` logs the code of its choice at every decision: each line sits
                // at the step its action made.
                let lines = doc["log"].as_array().expect("log");
                assert!(!lines.is_empty(), "the random agent logs");
                for l in lines {
                    let step = l["step"].as_u64().expect("placed") as usize;
                    assert!(step >= 1 && step < steps.len(), "{l}");
                    assert_eq!(steps[step]["actor"], s, "{l}");
                    let code = &rec["actions"][step - 1];
                    assert_eq!(l["text"], format!("picked {code}"), "{l}");
                }
            }
        }
    }

    // A page that cannot be written names its path.
    let out = croupier()
        .arg("replay")
        .arg(&log)
        .args(["--html", "/no/such/dir/replay.html"])
        .output()
        .expect("run");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/no/such/dir/replay.html"), "{err}");
}
