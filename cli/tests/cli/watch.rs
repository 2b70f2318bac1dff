//! Hot swap: a changed .wasm plays from the next game on; a broken build is refused and the
//! previous version keeps playing; the host never restarts.

use crate::common;

use common::{croupier, example_agent, hostile, hostile_as};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// The games of the log: for each, the build, the log lines and the decisions asked of the
/// watched agent (the first agent argument), wherever the rotation seated it.
fn games_in(log: &std::path::Path) -> Vec<(String, Vec<String>, u64)> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "game")
        .filter_map(|v| {
            let seats = v["seats"].as_array()?;
            let seat = seats.iter().position(|e| *e == 0)?;
            let build = v["builds"][seat].as_str()?.to_string();
            let lines = v["logs"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|l| l[0] == seat)
                .flat_map(|l| l[1].as_array().cloned().unwrap_or_default())
                .map(|line| line["text"].as_str().unwrap_or("").to_string())
                .collect();
            let decisions = v["calls"][seat]["decisions"].as_u64().unwrap_or(0);
            Some((build, lines, decisions))
        })
        .collect()
}

fn builds_in(log: &std::path::Path) -> Vec<String> {
    games_in(log).into_iter().map(|(b, _, _)| b).collect()
}

fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Replaces a file atomically, as a build tool would.
fn replace(path: &std::path::Path, bytes: &[u8]) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).expect("write");
    std::fs::rename(&tmp, path).expect("rename");
}

#[test]
fn watch_swaps_a_new_build_and_refuses_a_broken_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let agent = dir.path().join("mine.wasm");
    let v1 = std::fs::read(hostile()).expect("hostile");
    std::fs::write(&agent, &v1).expect("copy");
    let log = dir.path().join("games.jsonl");
    let stderr_path = dir.path().join("stderr.txt");
    let mut child = croupier()
        .args(["match", "durak"])
        .arg(format!("{}#random", agent.display()))
        .arg(hostile_as("ok"))
        .args([
            "--watch",
            "--games",
            "100000000",
            "--threads",
            "1",
            "--quiet",
            "--log",
        ])
        .arg(&log)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr_path).expect("stderr file"))
        .spawn()
        .expect("spawn");

    wait_for("games with the first build", || builds_in(&log).len() >= 20);
    let first = builds_in(&log)[0].clone();

    // A broken build: refused, and the first build keeps playing.
    replace(&agent, b"this is not a component");
    wait_for("the refusal", || {
        std::fs::read_to_string(&stderr_path)
            .unwrap_or_default()
            .contains("refused the new build")
    });
    let n = builds_in(&log).len();
    wait_for("more games after the refusal", || {
        builds_in(&log).len() >= n + 20
    });
    assert!(builds_in(&log)[n..].iter().all(|b| *b == first));

    // A good new build, and a different agent: `durak/cheapest` in place of the hostile
    // agent. The hostile agent in `random` mode logs every pick; cheapest logs nothing.
    let old_games = builds_in(&log).len();
    let v2 = std::fs::read(example_agent("durak/cheapest")).expect("cheapest");
    assert_ne!(v1, v2);
    replace(&agent, &v2);
    wait_for("20 games with the second build", || {
        let b = builds_in(&log);
        b.iter().filter(|b| **b != first).count() >= 20
    });
    let _ = child.kill();
    let _ = child.wait();
    let err = std::fs::read_to_string(&stderr_path).expect("stderr");
    assert!(err.contains("not a WebAssembly file"), "{err}");
    assert!(err.contains("replaced by"), "{err}");
    // Every game is played by one build or the other; the swap happens once, between games,
    // and the new build plays every game after it.
    let games = games_in(&log);
    let swap = games
        .iter()
        .position(|(b, _, _)| *b != first)
        .expect("a game with the new build");
    assert!(swap >= old_games, "swapped before the file changed");
    let second = games[swap].0.clone();
    assert!(!second.is_empty());
    assert!(
        games[swap..].iter().all(|(b, _, _)| *b == second),
        "the old build came back"
    );
    // The old build behaved as the hostile agent (a logged pick per decision), the new one
    // as cheapest (no log at all).
    // One pick logged per decision asked (a game can leave an agent no choice to make, so
    // the count, not mere presence, is what shows the old code ran).
    for (i, (_, lines, decisions)) in games[..swap].iter().enumerate() {
        assert!(
            lines.len() as u64 == *decisions && lines.iter().all(|l| l.starts_with("picked ")),
            "game {i}, first build: {decisions} decisions, {lines:?}"
        );
    }
    assert!(
        games[..swap].iter().any(|(_, _, d)| *d > 0),
        "the first build made decisions"
    );
    for (i, (_, lines, _)) in games[swap..].iter().enumerate() {
        assert!(
            lines.is_empty(),
            "game {}, second build: {lines:?}",
            swap + i
        );
    }
    // The process never restarted: one match header in the log.
    let headers = std::fs::read_to_string(&log)
        .expect("log")
        .lines()
        .filter(|l| l.contains("\"type\":\"match\""))
        .count();
    assert_eq!(headers, 1);
}
