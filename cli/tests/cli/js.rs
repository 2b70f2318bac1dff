//! Agents written in JavaScript and TypeScript (esbuild, then componentize-qjs or
//! componentize-js) run in the same sandbox, under the same limits, with no capability
//! beyond the game world; what goes wrong inside one reaches the student's log.
//!
//! The tests need node, npm and the pinned npm packages (`scripts/setup.sh` installs them).
//! Without them they FAIL, naming what is missing: a test that did not run must not count as
//! passed. To skip them on purpose set `CROUPIER_REQUIRE_JS=0`; they then say on stderr that
//! they did not run.

use crate::common;

use common::conformance::assert_twins;
use common::{croupier, example_agent, hostile_as, repo, test_agents_dir};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The tools the tests run, as `croupier build` looks for them (cli/src/js_agent.rs).
fn missing_tools() -> Vec<&'static str> {
    let runs = |t: &str, arg: &str| {
        Command::new(t)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let mut missing: Vec<&'static str> = [
        ("node", "--version"),
        ("npm", "--version"),
        ("esbuild", "--version"),
        ("tsc", "--version"),
        ("jco", "--version"),
        ("componentize-qjs", "--help"),
    ]
    .into_iter()
    .filter(|(t, a)| !runs(t, a))
    .map(|(t, _)| t)
    .collect();
    let spidermonkey = Command::new("npm")
        .args(["root", "-g"])
        .output()
        .ok()
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .is_some_and(|root| root.join("@bytecodealliance/componentize-js").is_dir());
    if !spidermonkey {
        missing.push("@bytecodealliance/componentize-js");
    }
    missing
}

/// Whether `test` can run: the tools are installed, or their absence fails the test unless
/// `CROUPIER_REQUIRE_JS=0` (common/require.rs).
fn can_run(test: &str) -> bool {
    let missing = missing_tools();
    let missing = (!missing.is_empty()).then(|| {
        format!(
            "{} not installed (scripts/setup.sh installs them)",
            missing.join(", ")
        )
    });
    common::require::or_skip("CROUPIER_REQUIRE_JS", missing, test)
}

fn build(dirs: &[PathBuf], out: &Path) -> std::process::Output {
    croupier()
        .arg("build")
        .args(dirs)
        .arg("--out")
        .arg(out)
        .output()
        .expect("croupier build")
}

fn ok(out: &std::process::Output, what: &str) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{what}: {text}");
    text
}

/// Plays `agent` against `opponent`; returns the `--json` summary.
fn summary(game: &str, agent: &Path, opponent: &str, games: u32) -> serde_json::Value {
    let m = croupier()
        .args(["match", game])
        .arg(agent)
        .arg(opponent)
        .args(["--games", &games.to_string(), "--quiet", "--json", "-"])
        .output()
        .expect("match");
    let text = ok(&m, "match");
    serde_json::from_str(&text[text.find('{').expect("json")..]).expect("json")
}

/// Each example builds into a component that imports nothing but its world, records its
/// language, and plays without a fault.
#[test]
fn js_agents_build_validate_and_play() {
    if !can_run("the JavaScript agent test") {
        return;
    }
    let out = test_agents_dir().join("js");
    ok(
        &build(&[repo().join("js-agents/durak-first")], &out),
        "build",
    );
    let v = croupier()
        .arg("validate")
        .arg(out.join("durak/js-first.wasm"))
        .output()
        .expect("validate");
    let text = ok(&v, "validate");
    // The engine module inside says `Rust` (QuickJS); the component's own language wins.
    assert!(
        text.contains("croupier:agent/durak-agent@0.2.0 (JavaScript"),
        "{text}"
    );
    let s = summary(
        "durak",
        &out.join("durak/js-first.wasm"),
        &hostile_as("random"),
        30,
    );
    assert_eq!(s["games"], 30);
    assert_eq!(s["agents"][0]["faults"], 0, "{s}");
}

/// Writes a one-file JavaScript Durak agent whose `decide` body is `body`, with the SDK of
/// this source tree; returns its directory.
fn one_file_agent(root: &Path, name: &str, body: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let sdk = repo().join("sdk/js/croupier/durak.js");
    std::fs::write(
        dir.join("agent.toml"),
        format!("[agent]\ngame = \"durak\"\nname = \"{name}\"\nlanguage = \"js\"\n"),
    )
    .expect("write");
    std::fs::write(
        dir.join("app.js"),
        format!(
            "import * as durak from {sdk:?};\n\
             class A extends durak.Agent {{ decide(obs, legal, ctx) {{ {body} }} }}\n\
             export const durakAgent = durak.export(A);\n",
            sdk = sdk.display().to_string()
        ),
    )
    .expect("write");
    dir
}

/// What goes wrong inside a JavaScript agent reaches the student: an exception's message and
/// the use of the missing clock land in the game's log before the fault, and a module that
/// does not export the world's name is refused at build time, naming it.
#[test]
fn js_faults_are_explained_in_the_log_and_at_build() {
    if !can_run("the JavaScript fault test") {
        return;
    }
    let root = tempfile::tempdir().expect("tempdir");
    let out = root.path().join("agents");
    for (name, body, needle) in [
        (
            "thrower",
            "throw new RangeError('my own bug ' + legal.length);",
            "RangeError: my own bug",
        ),
        (
            "clock",
            "return Date.now() > 0 ? legal[0] : legal[1];",
            "no clock in the sandbox",
        ),
    ] {
        let dir = one_file_agent(root.path(), name, body);
        ok(&build(&[dir], &out), name);
        let log = root.path().join(format!("{name}.jsonl"));
        let m = croupier()
            .args(["match", "durak"])
            .arg(out.join(format!("durak/{name}.wasm")))
            .arg(hostile_as("random"))
            .args(["--games", "2", "--quiet", "--log"])
            .arg(&log)
            .output()
            .expect("match");
        ok(&m, name);
        let text = std::fs::read_to_string(&log).expect("log");
        assert!(text.contains(needle), "{name}: {text}");
        assert!(text.contains("\"error\""), "{name}: {text}");
    }

    let dir = one_file_agent(root.path(), "unexported", "return legal[0];");
    std::fs::write(dir.join("app.js"), "export const somethingElse = 1;\n").expect("write");
    let b = build(&[dir], &out);
    assert!(!b.status.success());
    let err = String::from_utf8_lossy(&b.stderr);
    assert!(err.contains("must export `durakAgent`"), "{err}");
}

/// The SDK's own unit tests, on plain Node (`node --test sdk/js/test/`): cards, card sets,
/// the generator against the Python and Rust numbers, action texts, and an exported agent
/// driven with raw host values.
#[test]
fn sdk_unit_tests_pass_on_node() {
    if !can_run("the JavaScript SDK's unit tests") {
        return;
    }
    let out = Command::new("node")
        .args(["--test", "sdk/js/test/"])
        .current_dir(repo())
        .output()
        .expect("node --test");
    let text = ok(&out, "node --test sdk/js/test/");
    assert!(text.contains("# fail 0"), "{text}");
}

/// The TypeScript types the SDK ships (`sdk/js/croupier/wit/`) are what the pinned
/// `jco types` makes of `wit/v0.2` today: a contract change without `scripts/js-types.sh`
/// fails here.
#[test]
fn shipped_wit_types_are_jco_types_of_the_contract() {
    if !can_run("the WIT types test") {
        return;
    }
    let fresh = tempfile::tempdir().expect("tempdir");
    let out = Command::new(repo().join("scripts/js-types.sh"))
        .arg(fresh.path())
        .output()
        .expect("scripts/js-types.sh");
    ok(&out, "scripts/js-types.sh");
    let committed = repo().join("sdk/js/croupier/wit");
    let mut files = Vec::new();
    let mut stack = vec![fresh.path().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("read").flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                files.push(e.path());
            }
        }
    }
    assert!(files.len() >= 11, "{files:?}");
    for f in files {
        let rel = f.strip_prefix(fresh.path()).expect("inside");
        let old = std::fs::read_to_string(committed.join(rel))
            .unwrap_or_else(|_| panic!("sdk/js/croupier/wit/{} is missing", rel.display()));
        let new = std::fs::read_to_string(&f).expect("read");
        assert!(
            old == new,
            "sdk/js/croupier/wit/{} is stale: run scripts/js-types.sh",
            rel.display()
        );
    }
}

/// One JavaScript or TypeScript agent per game plays the strategy of a Rust example agent;
/// against the same fixed opponents under the same seed, the two must play byte-identical
/// games. Durak's throw-ins and UNO's colours are random: those two run on SpiderMonkey, which
/// passes the 64-bit seed exactly, and draw from the SDK's port of the Rust generator. The
/// Toepen twin draws nothing and runs on QuickJS; the Durak twin is TypeScript.
#[test]
fn js_agents_play_the_same_games_as_their_rust_twins() {
    if !can_run("the JavaScript conformance test") {
        return;
    }
    let out = test_agents_dir().join("js-twins");
    let dirs: Vec<PathBuf> = ["durak-cheapest", "toepen-reasoning", "uno-primary"]
        .iter()
        .map(|d| repo().join("js-agents").join(d))
        .collect();
    ok(&build(&dirs, &out), "build");
    // The TypeScript twin is listed as TypeScript, though SpiderMonkey's build says JavaScript.
    let v = croupier()
        .arg("validate")
        .arg(out.join("durak/ts-cheapest.wasm"))
        .output()
        .expect("validate");
    let shown = ok(&v, "validate");
    assert!(shown.contains("(TypeScript,"), "{shown}");
    let cases = [
        ("durak", "cheapest", "ts-cheapest", hostile_as("random"), 20),
        (
            "toepen",
            "reasoning",
            "js-reasoning",
            example_agent("toepen/random").display().to_string(),
            8,
        ),
        (
            "uno",
            "primary",
            "js-primary",
            example_agent("uno/greedy").display().to_string(),
            8,
        ),
    ];
    for (game, rust, js, opponent, games) in cases {
        assert_twins(
            game,
            &example_agent(&format!("{game}/{rust}")),
            &out.join(format!("{game}/{js}.wasm")),
            &opponent,
            games,
            js,
        );
    }
}

/// `croupier new GAME NAME --lang js|ts` writes a project whose README's first command builds
/// it, whose `npm test` passes with nothing installed, and whose agent plays legally.
#[test]
fn new_js_and_ts_projects_test_build_and_play() {
    if !can_run("the `croupier new --lang js|ts` test") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    for lang in ["js", "ts"] {
        for game in ["durak", "toepen", "uno"] {
            let name = format!("my-{game}-{lang}");
            ok(
                &croupier()
                    .args(["new", game, &name, "--lang", lang])
                    .current_dir(dir.path())
                    .output()
                    .expect("new"),
                "new",
            );
            let project = dir.path().join(&name);
            let readme = std::fs::read_to_string(project.join("README.md")).expect("readme");
            let first = readme
                .lines()
                .skip_while(|l| !l.starts_with("```"))
                .nth(1)
                .expect("a code line");
            assert_eq!(first, "croupier build . --out agents");
            let test = Command::new("npm")
                .args(["test", "--silent"])
                .current_dir(&project)
                .output()
                .expect("npm test");
            let text = ok(&test, &format!("{name}: npm test"));
            assert!(text.contains("# fail 0"), "{name}: {text}");
            ok(
                &croupier()
                    .args(["build", ".", "--out", "agents"])
                    .current_dir(&project)
                    .output()
                    .expect("build"),
                &format!("{name}: the new project must build unchanged"),
            );
            let wasm = project.join(format!("agents/{game}/{name}.wasm"));
            let language = if lang == "ts" {
                "TypeScript"
            } else {
                "JavaScript"
            };
            let v = ok(
                &croupier()
                    .arg("validate")
                    .arg(&wasm)
                    .output()
                    .expect("validate"),
                "validate",
            );
            assert!(v.contains(language), "{name}: {v}");
            // Against itself, but for Durak: the hostile agent is a Durak agent.
            let opponent = if game == "durak" {
                hostile_as("random")
            } else {
                wasm.display().to_string()
            };
            let s = summary(game, &wasm, &opponent, 4);
            assert_eq!(s["games"], 4);
            assert_eq!(s["agents"][0]["faults"], 0, "{name}: {s}");
        }
    }
}
