//! Agents written in C (`c-agents/`, built with clang; the bindings and the component come
//! from wit-bindgen-c and wit-component inside `croupier`) play exactly the
//! games their Rust twins play (`durak/cheapest`, `toepen/reasoning`, `uno/primary`): under
//! the same seed, against the same fixed opponents, the game records agree byte for byte in
//! everything they say about play.
//!
//! The test needs Debian's clang and lld for wasm32, wasi-libc and libc++ for WASI
//! (`scripts/test.sh` installs them), and nothing built from source. Without them it FAILS, naming what is missing: a test that did not run must not
//! count as passed. To skip it on purpose set `CROUPIER_REQUIRE_C=0`; it then says on stderr
//! that it did not run.

use crate::common;

use common::conformance::assert_twins;
use common::{croupier, example_agent, repo, test_agents_dir};
use std::path::{Path, PathBuf};

/// The programs `croupier build` runs for a C agent (cli/src/c_agent.rs).
const TOOLS: [&str; 2] = ["clang", "wasm-ld"];

fn missing_tools() -> Vec<&'static str> {
    TOOLS
        .into_iter()
        .filter(|t| {
            !std::process::Command::new(t)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect()
}

/// What a game record says about play: every line but the agents' files, build hashes and
/// the fuel they burnt (a C and a Rust build of one strategy differ there, and only there).
fn play_record(log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).expect("read the log");
    text.lines()
        .map(|line| {
            let mut v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            if let Some(o) = v.as_object_mut() {
                for k in ["agents", "builds", "calls"] {
                    o.remove(k);
                }
            }
            v.to_string()
        })
        .collect()
}

/// Plays `first` against the fixed opponents; returns the play record.
fn play(
    first: &Path,
    opponents: &[PathBuf],
    rules: &[&str],
    games: &str,
    tag: &str,
) -> Vec<String> {
    let log = test_agents_dir().join(format!("c-conformance-{tag}.jsonl"));
    let _ = std::fs::remove_file(&log);
    let m = croupier()
        .args(["match", "durak"])
        .arg(first)
        .args(opponents)
        .args(rules)
        .args(["--games", games, "--seed", "2026", "--quiet"])
        .arg("--log")
        .arg(&log)
        .output()
        .expect("match");
    assert!(m.status.success(), "{}", String::from_utf8_lossy(&m.stderr));
    play_record(&log)
}

/// Whether the C tests can run: the tools are installed, or their absence fails the test
/// unless `CROUPIER_REQUIRE_C=0` (common/require.rs).
fn tools_or_skip() -> bool {
    let missing = missing_tools();
    let missing = (!missing.is_empty()).then(|| {
        format!(
            "{} not installed (scripts/setup.sh installs them)",
            missing.join(", ")
        )
    });
    common::require::or_skip("CROUPIER_REQUIRE_C", missing, "the C agent test")
}

/// One rule for every tool-dependent test (python, js, c, browser, postgres): only an
/// explicit `0` lets a missing tool pass as skipped.
#[test]
fn only_an_explicit_zero_lets_a_test_skip() {
    use common::require::required;
    assert!(required(None));
    assert!(required(Some("1".as_ref())));
    assert!(required(Some("".as_ref())));
    assert!(!required(Some("0".as_ref())));
}

/// Builds the agent directories (relative to the repository) into `out`.
fn build_into(dirs: &[&str], out: &Path) {
    let b = croupier()
        .arg("build")
        .args(dirs.iter().map(|d| repo().join(d)))
        .arg("--out")
        .arg(out)
        .output()
        .expect("build");
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
}

/// `croupier new GAME NAME --lang c` writes a project that builds as it is and plays every
/// game without a fault.
#[test]
fn c_template_builds_and_plays_every_game() {
    if !tools_or_skip() {
        return;
    }
    let root = test_agents_dir().join("c-new");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).expect("mkdir");
    for game in ["durak", "toepen", "uno"] {
        let name = format!("my-{game}");
        let n = croupier()
            .args(["new", game, &name, "--lang", "c"])
            .current_dir(&root)
            .output()
            .expect("new");
        assert!(n.status.success(), "{}", String::from_utf8_lossy(&n.stderr));
        let dir = root.join(&name);
        for f in ["agent.toml", "agent.c", "Makefile", "README.md"] {
            assert!(dir.join(f).is_file(), "{game}: no {f}");
        }
        let b = croupier()
            .arg("build")
            .arg(&dir)
            .arg("--out")
            .arg(dir.join("build"))
            .output()
            .expect("build");
        assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
        let wasm = dir.join(format!("build/{game}/{name}.wasm"));
        let m = croupier()
            .args(["match", game])
            .arg(&wasm)
            .arg(&wasm)
            .args(["--games", "20", "--quiet", "--json", "-"])
            .output()
            .expect("match");
        assert!(m.status.success(), "{}", String::from_utf8_lossy(&m.stderr));
        let text = String::from_utf8_lossy(&m.stdout);
        let v: serde_json::Value =
            serde_json::from_str(&text[text.find('{').expect("json")..]).expect("json");
        for a in v["agents"].as_array().expect("agents") {
            assert_eq!(a["faults"], 0, "{game}: {text}");
        }
    }
}

#[test]
fn c_cheapest_plays_the_same_games_as_rust_cheapest() {
    if !tools_or_skip() {
        return;
    }
    let out = test_agents_dir().join("c-conformance");
    build_into(
        &[
            "c-agents/durak-cheapest",
            "example-agents/durak-cheapest",
            "example-agents/durak-random-lead",
            "example-agents/durak-trump-tosser",
        ],
        &out,
    );
    let c = out.join("durak/c-cheapest.wasm");
    let rust = out.join("durak/cheapest.wasm");

    // The capability check passed (the world's imports only) and the language is recorded.
    let v = croupier()
        .arg("validate")
        .arg(&c)
        .output()
        .expect("validate");
    let text = String::from_utf8_lossy(&v.stdout);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
    assert!(
        text.contains("croupier:agent/durak-agent@0.2.0 (C"),
        "{text}"
    );

    let opponents = [
        out.join("durak/random-lead.wasm"),
        out.join("durak/trump-tosser.wasm"),
    ];
    // Three players with transfers (every decision kind, random throw-ins), then 2 v 2.
    let three = ["--rules", "perevodnoy", "--players", "3"];
    let teams = ["--rules", "teams"];
    for (rules, games) in [(&three[..], "120"), (&teams[..], "40")] {
        let mut opp = opponents.to_vec();
        if rules == teams {
            opp.push(opponents[0].clone());
        }
        let tag = rules[1];
        let from_c = play(&c, &opp, rules, games, &format!("{tag}-c"));
        let from_rust = play(&rust, &opp, rules, games, &format!("{tag}-rust"));
        assert!(from_c.len() > 1, "no games recorded");
        for (i, (a, b)) in from_c.iter().zip(&from_rust).enumerate() {
            assert_eq!(
                a, b,
                "{tag}: line {i} of the records differs (C, then Rust)"
            );
        }
        assert_eq!(
            from_c.len(),
            from_rust.len(),
            "{tag}: record lengths differ"
        );
    }
}

/// The Toepen and UNO twins, against the Python and JavaScript tests' opponents and seed,
/// and the C++ twin of `durak/cheapest` (libc++ containers and algorithms). `uno/c-primary`
/// and `durak/cpp-cheapest` draw from `croupier_rng.h`, the Rust SDK's stream.
#[test]
fn c_reasoning_and_primary_play_the_same_games_as_their_rust_twins() {
    if !tools_or_skip() {
        return;
    }
    let out = test_agents_dir().join("c-twins");
    build_into(
        &[
            "c-agents/toepen-reasoning",
            "c-agents/uno-primary",
            "c-agents/durak-cheapest-cpp",
        ],
        &out,
    );
    for (game, rust, c, opponent) in [
        ("toepen", "reasoning", "c-reasoning", "toepen/random"),
        ("uno", "primary", "c-primary", "uno/greedy"),
        ("durak", "cheapest", "cpp-cheapest", "durak/random-lead"),
    ] {
        assert_twins(
            game,
            &example_agent(&format!("{game}/{rust}")),
            &out.join(format!("{game}/{c}.wasm")),
            &example_agent(opponent).display().to_string(),
            30,
            c,
        );
    }
}

/// A one-file Durak agent in C or C++ whose first decision writes to stdout and stderr and
/// tries the clock, a file and the environment.
const STDIO_C: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "durak.h"
static int n;
void exports_croupier_agent_durak_agent_start(exports_croupier_agent_durak_agent_game_info_t *info) {
    exports_croupier_agent_durak_agent_game_info_free(info);
}
exports_croupier_agent_durak_agent_action_t exports_croupier_agent_durak_agent_decide(
    exports_croupier_agent_durak_agent_observation_t *obs, exports_croupier_agent_durak_agent_list_action_t *legal,
    exports_croupier_agent_durak_agent_budget_t *budget) {
    (void)budget;
    if (n++ == 0) {
        FILE *f = fopen("/etc/passwd", "r");
        printf("first: %zu legal, file %s, HOME %s\n", legal->len, f ? "open" : "refused",
               getenv("HOME") ? getenv("HOME") : "unset");
        fprintf(stderr, "clock %s\n", time(NULL) > 1000 ? "read" : "absent");
    }
    uint32_t a = legal->ptr[0];
    exports_croupier_agent_durak_agent_observation_free(obs);
    exports_croupier_agent_durak_agent_list_action_free(legal);
    return a;
}
"#;

const STDIO_CPP: &str = r#"#include <iostream>
#include <string>
#include <vector>
#include "durak.h"
// A static constructor: it runs only if the component calls `_initialize`.
static std::vector<std::string> greetings{"hello", "from", "C++"};
extern "C" {
void exports_croupier_agent_durak_agent_start(exports_croupier_agent_durak_agent_game_info_t *info) {
    exports_croupier_agent_durak_agent_game_info_free(info);
}
exports_croupier_agent_durak_agent_action_t exports_croupier_agent_durak_agent_decide(
    exports_croupier_agent_durak_agent_observation_t *obs, exports_croupier_agent_durak_agent_list_action_t *legal,
    exports_croupier_agent_durak_agent_budget_t *budget) {
    (void)budget;
    std::cout << greetings[0] << " " << greetings[2] << ": " << legal->len << " legal" << std::endl;
    std::cerr << "cerr " << std::string("in") << " one line" << "\n";
    uint32_t a = legal->ptr[0];
    exports_croupier_agent_durak_agent_observation_free(obs);
    exports_croupier_agent_durak_agent_list_action_free(legal);
    return a;
}
}
"#;

/// C's stdio and C++'s iostreams work in the sandbox without a WASI import: stdout and
/// stderr become log lines (a line written in pieces stays one line), and the clock, the
/// files and the environment are simply absent. C++ static constructors run.
#[test]
fn c_and_cpp_stdio_reach_the_log_without_wasi() {
    if !tools_or_skip() {
        return;
    }
    let root = tempfile::tempdir().expect("tempdir");
    let out = root.path().join("agents");
    for (name, language, file, text, needles) in [
        (
            "stdio-c",
            "c",
            "agent.c",
            STDIO_C,
            &[
                r#"{"level":"info","text":"first: 4 legal, file refused, HOME unset""#,
                r#"{"level":"warn","text":"clock absent""#,
            ][..],
        ),
        (
            "stdio-cpp",
            "c++",
            "agent.cpp",
            STDIO_CPP,
            &[
                r#"{"level":"info","text":"hello C++: 4 legal""#,
                r#"{"level":"warn","text":"cerr in one line""#,
            ][..],
        ),
    ] {
        let dir = root.path().join(name);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(
            dir.join("agent.toml"),
            format!("[agent]\ngame = \"durak\"\nname = \"{name}\"\nlanguage = \"{language}\"\n"),
        )
        .expect("write");
        std::fs::write(dir.join(file), text).expect("write");
        let b = croupier()
            .arg("build")
            .arg(&dir)
            .arg("--out")
            .arg(&out)
            .output()
            .expect("build");
        assert!(
            b.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&b.stderr)
        );
        let wasm = out.join(format!("durak/{name}.wasm"));
        let v = croupier()
            .arg("validate")
            .arg(&wasm)
            .output()
            .expect("validate");
        let shown = String::from_utf8_lossy(&v.stdout);
        let lang = if language == "c" { "(C," } else { "(C++," };
        assert!(
            v.status.success() && shown.contains(lang),
            "{name}: {shown}"
        );
        let log = root.path().join(format!("{name}.jsonl"));
        let m = croupier()
            .args(["match", "durak"])
            .arg(&wasm)
            .arg(example_agent("durak/cheapest"))
            .args(["--games", "1", "--seed", "1", "--quiet", "--log"])
            .arg(&log)
            .output()
            .expect("match");
        assert!(
            m.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&m.stderr)
        );
        let text = std::fs::read_to_string(&log).expect("log");
        for needle in needles {
            assert!(text.contains(needle), "{name}: no {needle} in {text}");
        }
    }
}
