//! An agent written in Python (componentize-py) runs in the same sandbox, under the same
//! limits, with no capability beyond the game world.
//!
//! The test needs componentize-py (`scripts/setup.sh` installs it). Without it the test
//! FAILS, naming the install command: a test that did not run must not count as passed.
//! To skip it on purpose, on a machine where componentize-py cannot be installed, set
//! `CROUPIER_REQUIRE_PYTHON=0`; the test then says on stderr that it did not run.

use crate::common;

use common::conformance::assert_twins;
use common::{croupier, hostile, hostile_as, new_project, repo, test_agents_dir};
use std::path::PathBuf;
/// The componentize-py that `scripts/setup.sh` installs (cli/src/componentize.rs pins it).
const COMPONENTIZE_PY: &str = "componentize-py==0.25.1";

/// Whether componentize-py can be run (as `croupier build` checks it).
fn have_componentize_py() -> bool {
    std::process::Command::new("componentize-py")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether `test` can run: componentize-py is installed, or its absence fails the test
/// unless `CROUPIER_REQUIRE_PYTHON=0` (common/require.rs).
fn can_run(test: &str) -> bool {
    let missing = (!have_componentize_py()).then(|| {
        format!("componentize-py is not installed (`pip install {COMPONENTIZE_PY}`, or scripts/setup.sh)")
    });
    common::require::or_skip("CROUPIER_REQUIRE_PYTHON", missing, test)
}

#[test]
fn python_agent_builds_validates_and_plays() {
    if !can_run("the Python agent test") {
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

/// One Python agent per game plays the strategy of a Rust example agent; against the same
/// fixed opponents under the same seed, the two must play byte-identical games (the same
/// actions, results and scores, game by game). The Python port draws its random numbers from
/// the SDK's port of the Rust generator, so throw-ins (Durak) and colours (UNO) match too.
#[test]
fn python_agents_play_the_same_games_as_their_rust_twins() {
    if !can_run("the Python conformance test") {
        return;
    }
    let out = test_agents_dir();
    let mut cmd = croupier();
    cmd.arg("build");
    for dir in [
        "python-agents/durak-lowest",
        "python-agents/toepen-reasoning",
        "python-agents/uno-primary",
        "example-agents/durak-cheapest",
        "example-agents/toepen-reasoning",
        "example-agents/toepen-random",
        "example-agents/uno-primary",
        "example-agents/uno-greedy",
    ] {
        cmd.arg(repo().join(dir));
    }
    let status = cmd.arg("--out").arg(&out).status().expect("build");
    assert!(status.success());
    let wasm = |id: &str| -> PathBuf { out.join(format!("{id}.wasm")) };
    let durak_opponent = format!("{}#random", hostile().display());
    let cases: [(&str, &str, &str, String, u32); 3] = [
        ("durak", "cheapest", "python-lowest", durak_opponent, 20),
        (
            "toepen",
            "reasoning",
            "python-reasoning",
            wasm("toepen/random").display().to_string(),
            8,
        ),
        (
            "uno",
            "primary",
            "python-primary",
            wasm("uno/greedy").display().to_string(),
            8,
        ),
    ];
    for (game, rust, python, opponent, games) in cases {
        assert_twins(
            game,
            &wasm(&format!("{game}/{rust}")),
            &wasm(&format!("{game}/{python}")),
            &opponent,
            games,
            python,
        );
    }
}

/// `croupier new GAME NAME --lang python` writes a project whose README's first command
/// builds it, whose unit tests pass with plain Python, and whose agent plays legally.
#[test]
fn new_python_project_tests_builds_and_plays() {
    if !can_run("the `croupier new --lang python` test") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    for game in ["durak", "toepen", "uno"] {
        let name = format!("my-{game}");
        let project = new_project(dir.path(), game, &name, &["--lang", "python"]);
        let readme = std::fs::read_to_string(project.join("README.md")).expect("readme");
        let first = readme
            .lines()
            .skip_while(|l| !l.starts_with("```"))
            .nth(1)
            .expect("a code line");
        assert_eq!(first, "croupier build . --out agents");
        let test = std::process::Command::new("python3")
            .args(["-m", "unittest", "-q"])
            .current_dir(&project)
            .output()
            .expect("python3");
        assert!(
            test.status.success(),
            "{game}: {}",
            String::from_utf8_lossy(&test.stderr)
        );
        let status = croupier()
            .args(["build", ".", "--out", "agents"])
            .current_dir(&project)
            .status()
            .expect("build");
        assert!(status.success(), "the new project must build unchanged");
        let wasm = project.join(format!("agents/{game}/{name}.wasm"));
        let opponent = if game == "durak" {
            hostile_as("random")
        } else {
            // Against itself: the hostile agent is a Durak agent.
            wasm.display().to_string()
        };
        let m = croupier()
            .args(["match", game])
            .arg(&wasm)
            .arg(&opponent)
            .args(["--games", "4", "--quiet", "--json", "-"])
            .output()
            .expect("match");
        assert!(m.status.success(), "{}", String::from_utf8_lossy(&m.stderr));
        let text = String::from_utf8_lossy(&m.stdout);
        let v: serde_json::Value =
            serde_json::from_str(&text[text.find('{').expect("json")..]).expect("json");
        assert_eq!(v["games"], 4);
        assert_eq!(v["agents"][0]["faults"], 0, "{game}: {text}");
    }
}

/// The build is hermetic (cli/src/componentize.rs): a module in the user's Python
/// environment is not on the agent's module path, so the component, and the key it is kept
/// under, depend on the agent's folder alone. Without it, componentize-py adds
/// `$VIRTUAL_ENV`'s site-packages, the import below succeeds, and a kept component could
/// outlive a change to that environment.
#[test]
fn the_python_build_sees_nothing_of_the_users_environment() {
    if !can_run("the hermetic Python build test") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let site = dir.path().join("venv/lib/python3/site-packages");
    std::fs::create_dir_all(&site).expect("mkdir");
    std::fs::write(site.join("croupier_leak.py"), "LEAK = 1\n").expect("write");
    let project = new_project(dir.path(), "durak", "leaky", &["--lang", "python"]);
    let app = project.join("app.py");
    let text = std::fs::read_to_string(&app).expect("app.py");
    std::fs::write(&app, format!("import croupier_leak\n{text}")).expect("write");
    let build = croupier()
        .args(["build", ".", "--out", "agents"])
        .current_dir(&project)
        .env("VIRTUAL_ENV", dir.path().join("venv"))
        // Its own cache: the build must really run, not find a component kept before.
        .env("CROUPIER_CACHE", dir.path().join("cache"))
        .output()
        .expect("build");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&build.stdout),
        String::from_utf8_lossy(&build.stderr)
    );
    assert!(
        !build.status.success(),
        "the build found croupier_leak: {said}"
    );
    assert!(said.contains("croupier_leak"), "{said}");
}
