//! The agent contract, end to end: what an agent is given equals what the host observed,
//! field by field, in every supported contract version.
//!
//! `tests/digest-agents` log a digest of every observation they receive (after the WIT
//! lowering and the SDK's conversion back to the rules crate's type). The test plays real
//! games through the sandbox, then replays each game natively and compares every digest with
//! the host's own `observe(seat)` at that decision. The 0.1.0 and 0.2.0 agents are committed
//! builds (tests/fixtures/v0.1.0 and v0.2.0, built from those versions' SDK), each playing
//! against the current build, so this is also the proof that agents built against an older
//! contract keep loading and playing.

use crate::common;

use common::{croupier, repo, test_agents_dir};
use croupier_rules::durak::Durak;
use croupier_rules::toepen::Toepen;
use croupier_rules::uno::Uno;
use croupier_rules::{Game, Rules};
use croupier_tournament::matches::log::read_log;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The current contract's digest agents, built once through `croupier build`.
fn current(game: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dirs = ["durak", "toepen", "uno"].map(|g| repo().join("tests/digest-agents").join(g));
        let status = croupier()
            .arg("build")
            .args(dirs)
            .arg("--out")
            .arg(test_agents_dir())
            .status()
            .expect("run croupier build");
        assert!(status.success(), "building the digest agents failed");
    });
    test_agents_dir().join(game).join("digest.wasm")
}

/// A committed build of `game`'s digest agent against an older contract version.
fn fixture(version: &str, game: &str) -> PathBuf {
    repo().join(format!("tests/fixtures/v{version}/{game}-digest.wasm"))
}

/// The older versions whose committed builds play against the current one.
const OLDER: [&str; 2] = ["0.1.0", "0.2.0"];

/// Plays `games` games of `a` against `b` with a log, then checks every logged digest;
/// returns how many decisions were compared.
fn play_and_check<G: Game>(game: &str, rules: &str, a: &Path, b: &Path, games: u32) -> usize {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("games.jsonl");
    let out = croupier()
        .args(["match", game])
        .arg(a)
        .arg(b)
        .args([
            "--rules",
            rules,
            "--games",
            &games.to_string(),
            "--seed",
            "11",
        ])
        // Every decision logs a line of 16 bytes; long UNO games need more than the default
        // budget of bytes and lines.
        .args(["--log-bytes", "40000000", "--log-lines", "1000000"])
        .arg("--log")
        .arg(&log)
        .output()
        .expect("run croupier match");
    assert!(
        out.status.success(),
        "match failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut compared = 0;
    for (header, records) in read_log(&log).expect("read the log") {
        let opts = G::Options::from_pairs(&header.options).expect("log options");
        for rec in records {
            assert!(
                rec.faults.is_empty(),
                "game {}: {:?}",
                rec.index,
                rec.faults
            );
            let mut lines: Vec<VecDeque<String>> = vec![VecDeque::new(); rec.seats.len()];
            for (seat, log) in &rec.logs {
                lines[*seat as usize] = log.iter().map(|l| l.text.clone()).collect();
            }
            let mut g = G::new(&opts, rec.seed).expect("deal");
            let mut legal = Vec::new();
            for &code in &rec.actions {
                let seat = g.to_act().expect("a seat to act");
                g.legal_actions(&mut legal);
                if legal.len() > 1 {
                    let want = croupier_sdk::debug_digest(&g.observe(seat));
                    let got = lines[seat as usize].pop_front();
                    assert_eq!(
                        got.as_deref(),
                        Some(want.as_str()),
                        "{game} {rules}, game {}, seat {seat}: the agent saw another observation than the host's:\n{:?}",
                        rec.index,
                        g.observe(seat)
                    );
                    compared += 1;
                }
                let action = G::decode_action(code).expect("a recorded action decodes");
                g.apply(action).expect("a recorded action applies");
            }
            assert!(
                lines.iter().all(VecDeque::is_empty),
                "game {}: the agents logged more decisions than the host asked for",
                rec.index
            );
        }
    }
    compared
}

#[test]
fn durak_observations_arrive_intact_in_every_version() {
    for rules in ["classic", "perevodnoy", "teams"] {
        for v in OLDER {
            let n = play_and_check::<Durak>(
                "durak",
                rules,
                &current("durak"),
                &fixture(v, "durak"),
                12,
            );
            assert!(n > 100, "{rules}, against {v}: only {n} decisions compared");
        }
    }
}

#[test]
fn toepen_observations_arrive_intact_in_every_version() {
    for rules in ["standard", "drinking", "cafe", "plain"] {
        for v in OLDER {
            let n = play_and_check::<Toepen>(
                "toepen",
                rules,
                &current("toepen"),
                &fixture(v, "toepen"),
                8,
            );
            assert!(n > 100, "{rules}, against {v}: only {n} decisions compared");
        }
    }
}

#[test]
fn uno_observations_arrive_intact_in_every_version() {
    for rules in ["house", "official", "two-player"] {
        for v in OLDER {
            let n = play_and_check::<Uno>("uno", rules, &current("uno"), &fixture(v, "uno"), 4);
            assert!(n > 100, "{rules}, against {v}: only {n} decisions compared");
        }
    }
}
