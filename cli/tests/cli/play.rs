//! `croupier play` with scripted input: bad input gets a message and a new prompt, never a
//! crash, and the game is played to its end.

use crate::common;

use common::{croupier, hostile_as};
use std::io::Write;
use std::process::Stdio;

fn play(game: &str, vs: &[String], extra: &[&str], input: &str) -> (bool, String, String) {
    let mut child = croupier()
        .args(["play", game, "--seed", "5"])
        .arg("--vs")
        .args(vs)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_string();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().expect("wait");
    let _ = feeder.join();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_person_plays_durak_and_bad_input_is_reprompted() {
    // Nonsense, an out-of-range number and an illegal card first; then always the first action.
    let mut script = String::from("hello\n999\nlead 2C\n");
    script.push_str(&"0\n".repeat(400));
    let (ok, out, err) = play("durak", &[hostile_as("random")], &[], &script);
    assert!(ok, "{err}");
    assert!(out.contains("`hello` is not an action"), "{out}");
    assert!(out.contains("no action 999"), "{out}");
    assert!(
        out.contains("is not a legal action now") || out.contains("is not an action"),
        "{out}"
    );
    assert!(out.contains("your hand (P0)"), "{out}");
    assert!(out.contains("result:"), "{out}");
    // Only what seat 0 may see: never the other hand's private deal.
    assert!(!out.contains("P1 is dealt"), "{out}");
}

#[test]
fn a_person_plays_toepen_by_action_text() {
    let script = "play XX\n".to_string() + &"0\n".repeat(2000);
    // An example agent by name: scripts/test.sh builds the examples before the tests.
    let vs = vec!["toepen/random".to_string()];
    let (ok, out, err) = play("toepen", &vs, &["--rules", "plain"], &script);
    assert!(ok, "{err}");
    assert!(out.contains("`play XX` is not an action"), "{out}");
    assert!(out.contains("result:"), "{out}");
}

#[test]
fn closed_input_is_a_clean_error() {
    let (ok, _, err) = play("durak", &[hostile_as("ok")], &[], "");
    assert!(!ok);
    assert!(err.contains("input closed before the game ended"), "{err}");
}

#[test]
fn a_person_plays_uno() {
    let script = "play R99\n".to_string() + &"0\n".repeat(3000);
    let (ok, out, err) = play(
        "uno",
        &["uno/primary".to_string()],
        &["--rules", "house", "--players", "2"],
        &script,
    );
    assert!(ok, "{err}");
    assert!(out.contains("your hand (P0)"), "{out}");
    assert!(out.contains("`play R99` is not an action"), "{out}");
    assert!(out.contains("result:"), "{out}");
}
