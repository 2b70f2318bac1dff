//! What the host refuses to load, and how it says so; the compile cache; the command line's
//! errors. Components here are written in WAT so each refusal is tested on exactly the
//! defect it names.

mod common;

use common::{croupier, hostile};
use croupier_host::Runtime as Host;
use croupier_host::cache::{Cache, CacheOutcome};
use croupier_host::limits::Limits;
use croupier_host::loader::{self, GameKind, LoadError};
use croupier_rules::durak::Durak;
use std::path::Path;

fn host() -> Host {
    Host::new(Limits::default(), croupier_host::cache::Cache::disabled()).expect("host")
}

fn load_bytes(bytes: &[u8]) -> Result<loader::LoadedComponent, LoadError> {
    let h = host();
    loader::check_and_compile(
        &h.engine,
        &Cache::disabled(),
        &h.limits,
        Path::new("agent.wasm"),
        bytes,
    )
}

fn wat(text: &str) -> Vec<u8> {
    wat::parse_str(text).expect("valid WAT")
}

#[test]
fn empty_file_is_refused() {
    let e = load_bytes(b"").err().expect("refused");
    assert!(matches!(e, LoadError::Empty { .. }));
    assert!(e.to_string().starts_with("agent.wasm: the file is empty"));
}

#[test]
fn text_file_is_not_wasm() {
    let e = load_bytes(b"fn main() {}").err().expect("refused");
    assert!(matches!(e, LoadError::NotWasm { .. }), "{e}");
    assert!(e.to_string().contains("not a WebAssembly file"));
}

#[test]
fn core_module_is_not_a_component() {
    let e = load_bytes(&wat("(module (func (export \"decide\")))"))
        .err()
        .expect("refused");
    assert!(matches!(e, LoadError::CoreModule { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("core WebAssembly module, not a component")
    );
}

#[test]
fn component_without_an_agent_world_is_refused() {
    let e = load_bytes(&wat("(component)")).err().expect("refused");
    assert!(matches!(e, LoadError::NoWorld { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("croupier:agent/durak-agent@0.1.0|0.2.0|0.3.0"),
        "{msg}"
    );
    assert!(msg.contains("no exports"), "{msg}");
}

#[test]
fn unknown_version_is_refused_with_what_is_supported() {
    let e = load_bytes(&wat(
        r#"(component (instance $i) (export "croupier:agent/durak-agent@0.9.0" (instance $i)))"#,
    ))
    .err()
    .expect("refused");
    assert!(matches!(e, LoadError::Version { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("version 0.9.0") && msg.contains("supported: 0.1.0, 0.2.0, 0.3.0"),
        "{msg}"
    );
}

#[test]
fn capability_imports_are_refused() {
    for import in [
        "wasi:filesystem/types@0.2.0",
        "wasi:sockets/tcp@0.2.0",
        "wasi:clocks/wall-clock@0.2.0",
        "wasi:cli/environment@0.2.0",
        "croupier:agent/toepen-types@0.1.0",
    ] {
        let e = load_bytes(&wat(&format!(
            r#"(component
                 (import "{import}" (instance))
                 (instance $i)
                 (export "croupier:agent/durak-agent@0.1.0" (instance $i)))"#
        )))
        .err()
        .expect("refused");
        assert!(matches!(e, LoadError::Capability { .. }), "{import}: {e}");
        assert!(e.to_string().contains(import), "{e}");
    }
}

#[test]
fn right_name_wrong_shape_cannot_link() {
    let h = host();
    let loaded = loader::check_and_compile(
        &h.engine,
        &Cache::disabled(),
        &h.limits,
        Path::new("hollow.wasm"),
        &wat(r#"(component (instance $i) (export "croupier:agent/durak-agent@0.1.0" (instance $i)))"#),
    )
    .expect("names check out");
    assert_eq!(loaded.game, GameKind::Durak);
    let e = h
        .factory_default::<Durak>(&loaded)
        .err()
        .expect("cannot link")
        .to_string();
    assert!(e.starts_with("hollow.wasm: cannot be linked"), "{e}");
}

#[test]
fn wrong_game_is_refused_by_name() {
    let out = croupier()
        .args(["match", "toepen"])
        .arg(hostile())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is a durak agent, but this is a toepen match"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
}

#[test]
fn cache_hits_and_recovers_from_corruption() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = Cache::at(dir.path()).expect("cache");
    let h = host();
    let bytes = std::fs::read(hostile()).expect("hostile");
    let load = || {
        loader::check_and_compile(&h.engine, &cache, &h.limits, Path::new("h.wasm"), &bytes)
            .expect("loads")
    };
    assert_eq!(load().cache, CacheOutcome::Compiled);
    assert_eq!(load().cache, CacheOutcome::Hit);
    // Flip bytes in the middle of every entry: it must be recompiled, never trusted.
    for entry in std::fs::read_dir(dir.path()).expect("list").flatten() {
        let mut data = std::fs::read(entry.path()).expect("read");
        let mid = data.len() / 2;
        data[mid] ^= 0xFF;
        data[mid + 1] ^= 0x55;
        std::fs::write(entry.path(), data).expect("write");
    }
    let loaded = load();
    assert_eq!(loaded.cache, CacheOutcome::Replaced);
    // The recompiled component really works.
    assert!(h.factory_default::<Durak>(&loaded).is_ok());
    assert_eq!(load().cache, CacheOutcome::Hit);
}

fn cli_error(args: &[&str]) -> String {
    let out = croupier().args(args).output().expect("run");
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    err
}

#[test]
fn cli_errors_name_the_culprit() {
    let h = hostile();
    let h = h.to_str().expect("utf-8 path");
    assert!(
        cli_error(&["match", "durak", "no-such-agent"]).contains("unknown agent `no-such-agent`")
    );
    assert!(cli_error(&["match", "durak", h, "--rules", "nope"]).contains("unknown preset `nope`"));
    let e = cli_error(&["match", "durak", h, "--set", "bout_cap=lots"]);
    assert!(e.contains("bout_cap") && e.contains("lots"), "{e}");
    let e = cli_error(&["match", "durak", h, "--set", "colour=red"]);
    assert!(e.contains("unknown option `colour`"), "{e}");
    let e = cli_error(&["match", "durak", h, "--rules", "teams", "--players", "3"]);
    assert!(e.contains("teams") || e.contains("num_players"), "{e}");
    assert!(cli_error(&["match", "chess", h]).contains("unknown game `chess`"));
    let e = cli_error(&["validate", "Cargo.toml"]);
    assert!(e.contains("Cargo.toml: not a WebAssembly file"), "{e}");
    let e = cli_error(&["replay", "/no/such/log.jsonl"]);
    assert!(e.contains("/no/such/log.jsonl: cannot read the log"), "{e}");
}

#[test]
fn validate_reports_world_and_version() {
    let out = croupier()
        .arg("validate")
        .arg(hostile())
        .output()
        .expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("ok: durak agent, croupier:agent/durak-agent@0.3.0 (Rust"),
        "{text}"
    );
}
