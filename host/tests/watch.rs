//! Hot swap: a changed .wasm plays from the next game on; a broken build is refused and the
//! previous version keeps playing; the host never restarts.

mod common;

use common::{croupier, hostile, hostile_as};
use std::process::Stdio;
use std::time::{Duration, Instant};

fn builds_in(log: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "game")
        .filter_map(|v| v["builds"][0].as_str().map(String::from))
        .collect()
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

    // A good new build (here: the same agent with one extra byte in a custom section).
    let mut v2 = v1.clone();
    v2.extend_from_slice(&[0, 4, 3, b'n', b'e', b'w']); // custom section "new", empty payload
    replace(&agent, &v2);
    wait_for("games with the second build", || {
        builds_in(&log).last().is_some_and(|b| *b != first)
    });
    let _ = child.kill();
    let _ = child.wait();
    let err = std::fs::read_to_string(&stderr_path).expect("stderr");
    assert!(err.contains("not a WebAssembly file"), "{err}");
    assert!(err.contains("replaced by"), "{err}");
    // The process never restarted: one match header in the log.
    let headers = std::fs::read_to_string(&log)
        .expect("log")
        .lines()
        .filter(|l| l.contains("\"type\":\"match\""))
        .count();
    assert_eq!(headers, 1);
}
