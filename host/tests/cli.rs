//! The command line end to end: JSON summary, game log, replay, resume after a crash.

mod common;

use common::{croupier, hostile_as};
use serde_json::Value;

fn run_json(extra: &[&str]) -> Value {
    let out = croupier()
        .args(["match", "durak"])
        .arg(hostile_as("random"))
        .arg(hostile_as("ok"))
        .args(["--games", "30", "--seed", "11", "--quiet", "--json", "-"])
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

#[test]
fn duplicate_plays_every_deal_in_every_rotation() {
    let v = run_json(&["--duplicate"]);
    assert_eq!(v["games"], 60);
    assert_eq!(v["deals"], 30);
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
    let dir = tempfile::tempdir().expect("tempdir");
    let ledger = dir.path().join("ledger.jsonl");
    let ledger_arg = ledger.to_str().expect("utf-8 path");
    let (whole, _) = decisions(&["--games", "30"]);
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
