//! Conformance of agents written in other languages: the same strategy, under the same seed
//! against the same opponents, must play byte-identical games to its Rust twin.

use super::croupier;
use std::path::Path;

/// What a game record says about play: everything but the agents' names, build hashes, logs
/// and fuel (which differ between languages by nature), as canonical JSON text.
pub fn play_of(record: &serde_json::Value) -> String {
    const PLAY: [&str; 14] = [
        "index",
        "deal",
        "rotation",
        "seed",
        "seats",
        "actions",
        "results",
        "scores",
        "summary",
        "aborted",
        "faults",
        "forfeit",
        "decisions",
        "teams",
    ];
    let play: serde_json::Map<String, serde_json::Value> = PLAY
        .iter()
        .map(|k| (k.to_string(), record[*k].clone()))
        .collect();
    serde_json::to_string(&play).expect("json")
}

/// Plays `agent` against `opponent` with `--log` and returns each game's play.
pub fn records(game: &str, agent: &Path, opponent: &str, games: u32, log: &Path) -> Vec<String> {
    let _ = std::fs::remove_file(log);
    let out = croupier()
        .args(["match", game])
        .arg(agent)
        .arg(opponent)
        .args([
            "--games",
            &games.to_string(),
            "--seed",
            "7",
            "--quiet",
            "--log",
        ])
        .arg(log)
        .output()
        .expect("match");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(log).expect("log");
    let plays: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a JSON line"))
        .filter(|v| v["type"] == "game")
        .map(|v| play_of(&v))
        .collect();
    assert_eq!(plays.len(), games as usize, "{text}");
    plays
}

/// Plays `rust` and then `twin` against `opponent` (`games` games, seed 7) and requires the
/// same play, game by game; `twin_name` names the twin in the failure.
pub fn assert_twins(
    game: &str,
    rust: &Path,
    twin: &Path,
    opponent: &str,
    games: u32,
    twin_name: &str,
) {
    let logs = tempfile::tempdir().expect("tempdir");
    let r = records(game, rust, opponent, games, &logs.path().join("rust.jsonl"));
    let t = records(game, twin, opponent, games, &logs.path().join("twin.jsonl"));
    for (i, (r, t)) in r.iter().zip(&t).enumerate() {
        assert_eq!(
            r,
            t,
            "{game}: game {i} differs between {} (Rust) and {twin_name}",
            rust.display()
        );
    }
}
