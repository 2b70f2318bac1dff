//! `croupier new` makes a crate that builds and plays a match unchanged, from another folder.

use crate::common;

use common::{croupier, hostile_as, new_project};

fn new_agent_plays(game: &str, opponent: &[String]) {
    let dir = tempfile::tempdir().expect("tempdir");
    let crate_dir = new_project(dir.path(), game, "my-bot", &[]);
    let readme = std::fs::read_to_string(crate_dir.join("README.md")).expect("readme");
    let first_code = readme
        .lines()
        .skip_while(|l| !l.starts_with("```"))
        .nth(1)
        .expect("a code line");
    assert!(
        (first_code.starts_with("cargo") || first_code.starts_with("croupier"))
            && first_code.contains("build"),
        "{first_code}"
    );
    // Build from the parent folder, not the crate's own (a shared target dir only saves
    // compiling the SDK's dependencies once per test run).
    let target = common::test_agents_dir().join("../scaffold-target");
    let status = croupier()
        .arg("build")
        .arg(&crate_dir)
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(dir.path())
        .status()
        .expect("build");
    assert!(status.success(), "the new crate must build unchanged");
    let wasm = target.join(format!("agents/{game}/my-bot.wasm"));
    assert!(wasm.is_file(), "{}", wasm.display());
    let out = croupier()
        .args(["match", game])
        .arg(&wasm)
        .args(opponent)
        .args(["--games", "20", "--quiet", "--json", "-"])
        .output()
        .expect("match");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value =
        serde_json::from_str(&text[text.find('{').expect("json")..]).expect("json");
    assert_eq!(v["agents"][0]["faults"], 0, "{text}");
    assert_eq!(v["games"], 20);
}

#[test]
fn new_durak_agent_builds_and_plays() {
    new_agent_plays("durak", &[hostile_as("random")]);
}

#[test]
fn new_toepen_agent_builds_and_plays() {
    new_agent_plays("toepen", &[]);
}

#[test]
fn new_uno_agent_builds_and_plays() {
    new_agent_plays("uno", &[]);
}

#[test]
fn new_refuses_bad_names_and_existing_dirs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = croupier()
        .args(["new", "durak", "Bad Name"])
        .current_dir(dir.path())
        .output()
        .expect("new");
    assert_eq!(out.status.code(), Some(2));
    std::fs::create_dir(dir.path().join("taken")).expect("mkdir");
    let out = croupier()
        .args(["new", "durak", "taken"])
        .current_dir(dir.path())
        .output()
        .expect("new");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists"));
}
