//! An agent written in Python (componentize-py) runs in the same sandbox, under the same
//! limits, with no capability beyond the game world.
//!
//! The test needs componentize-py (`scripts/setup.sh` installs it). Without it the test
//! FAILS, naming the install command: a test that did not run must not count as passed.
//! To skip it on purpose, on a machine where componentize-py cannot be installed, set
//! `CROUPIER_REQUIRE_PYTHON=0`; the test then says on stderr that it did not run.

mod common;

use common::{croupier, hostile_as, repo, test_agents_dir};
/// The componentize-py that `scripts/setup.sh` installs (cli/src/componentize.rs pins it).
const COMPONENTIZE_PY: &str = "componentize-py==0.25.1";

/// Whether componentize-py can be run (as `croupier build` checks it).
fn have_componentize_py() -> bool {
    std::process::Command::new("componentize-py")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether a missing componentize-py fails the test: always, unless
/// `CROUPIER_REQUIRE_PYTHON=0` opts out.
fn python_required(var: Option<&std::ffi::OsStr>) -> bool {
    var.is_none_or(|v| v != "0")
}

#[test]
fn only_an_explicit_zero_lets_the_python_test_skip() {
    assert!(python_required(None));
    assert!(python_required(Some("1".as_ref())));
    assert!(python_required(Some("".as_ref())));
    assert!(!python_required(Some("0".as_ref())));
}

#[test]
fn python_agent_builds_validates_and_plays() {
    if !have_componentize_py() {
        let msg = format!(
            "componentize-py is not installed, so the Python agent test cannot run: install it with `pip install {COMPONENTIZE_PY}` (or run scripts/setup.sh)"
        );
        if python_required(std::env::var_os("CROUPIER_REQUIRE_PYTHON").as_deref()) {
            panic!("{msg}; to skip this test on purpose set CROUPIER_REQUIRE_PYTHON=0");
        }
        eprintln!("SKIPPED (CROUPIER_REQUIRE_PYTHON=0): {msg}. The Python agent test did NOT run.");
        return;
    }
    let out = test_agents_dir();
    let status = croupier()
        .arg("build")
        .arg(repo().join("python-agents/durak-lowest"))
        .arg("--out")
        .arg(&out)
        .status()
        .expect("build");
    assert!(status.success());
    let wasm = out.join("durak/python-lowest.wasm");

    // The capability check passed (no WASI imports) and the language is recorded.
    let v = croupier()
        .arg("validate")
        .arg(&wasm)
        .output()
        .expect("validate");
    let text = String::from_utf8_lossy(&v.stdout);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    assert!(
        text.contains("croupier:agent/durak-agent@0.2.0 (Python"),
        "{text}"
    );

    let m = croupier()
        .args(["match", "durak"])
        .arg(&wasm)
        .arg(hostile_as("random"))
        .args(["--games", "40", "--quiet", "--json", "-"])
        .output()
        .expect("match");
    assert!(m.status.success(), "{}", String::from_utf8_lossy(&m.stderr));
    let text = String::from_utf8_lossy(&m.stdout);
    let v: serde_json::Value =
        serde_json::from_str(&text[text.find('{').expect("json")..]).expect("json");
    assert_eq!(v["games"], 40);
    assert_eq!(v["agents"][0]["faults"], 0, "{text}");
    // It plays on purpose, not at random: it beats the random agent.
    assert!(
        v["agents"][0]["wins"].as_u64().unwrap_or(0) > v["agents"][1]["wins"].as_u64().unwrap_or(0),
        "{text}"
    );
}
