//! `croupier-bench` runs: what the figures rest on holds. The timings themselves are the
//! benchmark's business (BENCHMARKS.md), never a test's.
//!
//! Needs `target/release/croupier` (the bench compiles agents in a child process through it)
//! and the example agents built (`scripts/setup.sh`), as `scripts/test.sh` has them.

/// `croupier-bench --only search`: each search agent, sandboxed and linked natively, makes the
/// same choices from the same seed at every decision point (the bench refuses to time them
/// otherwise, since the two would be doing different work), and every figure docs quote is
/// there. Run with `--quick`: the timings themselves are the benchmark's business.
#[test]
fn search_agents_choose_as_they_do_natively() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("search.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_croupier-bench"))
        .args(["--only", "search", "--quick", "--json"])
        .arg(&json)
        .output()
        .expect("run croupier-bench");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let figures: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(&json).expect("bench JSON")).expect("JSON");
    let value = |name: &str| {
        figures
            .iter()
            .find(|f| f["name"] == name)
            .and_then(|f| f["value"].as_f64())
            .unwrap_or_else(|| panic!("no figure `{name}` in {figures:?}"))
    };
    for spec in ["durak/ismcts", "toepen/search", "uno/search"] {
        assert!(value(&format!("{spec}: playouts/s native")) > 0.0);
        assert!(value(&format!("{spec}: sandboxed speed / native")) > 0.0);
    }
    assert!(value("levers: none of the three") > 0.0);
}
