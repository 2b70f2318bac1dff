//! An agent written in Python (componentize-py) runs in the same sandbox, under the same
//! limits, with no capability beyond the game world.
//!
//! Where componentize-py cannot be installed this test says so on stderr and does not count
//! as run; CI sets CROUPIER_REQUIRE_PYTHON=1, which turns a missing tool into a failure.

mod common;

use common::{croupier, hostile_as, repo, test_agents_dir};
use croupier_host::componentize::{COMPONENTIZE_PY, have_componentize_py};

#[test]
fn python_agent_builds_validates_and_plays() {
    if !have_componentize_py() {
        let msg = format!(
            "componentize-py is not installed (pip install {COMPONENTIZE_PY}): the Python agent test did NOT run"
        );
        if std::env::var_os("CROUPIER_REQUIRE_PYTHON").is_some() {
            panic!("{msg}");
        }
        eprintln!("SKIPPED: {msg}");
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
