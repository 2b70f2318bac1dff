//! `croupier new GAME NAME`: a ready agent crate in `./NAME` that builds and plays unchanged.

use anyhow::{Context, Result};
use croupier_host::loader::GameKind;
use std::path::{Path, PathBuf};

pub mod c;
pub mod js;
pub mod python;
mod templates;

use templates::{first_opponent, new_files};

/// The language of a new agent project (`croupier new --lang`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// A Rust crate on croupier-sdk.
    #[default]
    Rust,
    /// A Python project on the `croupier` module (built with componentize-py).
    Python,
    /// A C project (Debian's clang, lld and wasi-libc).
    C,
    /// A JavaScript project on the `croupier` SDK module (esbuild, componentize-qjs).
    Js,
    /// A TypeScript project on the same SDK (tsc first).
    Ts,
}

/// Creates an agent project in `lang`; returns its directory.
pub fn create_lang(lang: Lang, game: GameKind, name: &str, parent: &Path) -> Result<PathBuf> {
    match lang {
        Lang::Rust => create(game, name, parent),
        Lang::Python => {
            let dir = new_dir(name, parent)?;
            python::create(game, name, &dir)?;
            Ok(dir)
        }
        Lang::C => {
            let dir = new_dir(name, parent)?;
            c::create(game, name, &dir)?;
            Ok(dir)
        }
        Lang::Js | Lang::Ts => {
            let dir = new_dir(name, parent)?;
            js::create(game, name, &dir, lang == Lang::Ts)?;
            Ok(dir)
        }
    }
}

/// The SDK this binary was built with (agents must speak the same contract).
fn sdk_path() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sdk");
    p.canonicalize().unwrap_or(p)
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// Creates the crate; returns its directory.
pub fn create(game: GameKind, name: &str, parent: &Path) -> Result<PathBuf> {
    let dir = new_dir(name, parent)?;
    std::fs::create_dir_all(dir.join("src"))
        .with_context(|| format!("cannot create {}", dir.display()))?;
    write_crate(game, name, &dir)?;
    Ok(dir)
}

/// Checks the name and that `parent/name` does not exist yet, then creates it.
fn new_dir(name: &str, parent: &Path) -> Result<PathBuf> {
    if !valid_name(name) {
        anyhow::bail!(crate::errors::user(format!(
            "agent name `{name}`: use lower-case letters, digits and dashes, starting with a letter"
        )));
    }
    let dir = parent.join(name);
    if dir.exists() {
        anyhow::bail!(crate::errors::user(format!(
            "{}: already exists; choose another name or remove it",
            dir.display()
        )));
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

fn write_crate(game: GameKind, name: &str, dir: &Path) -> Result<()> {
    let cargo = format!(
        r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

[package.metadata.croupier]
game = "{game}"
name = "{name}"

[lib]
crate-type = ["cdylib", "rlib"]

[dependencies]
croupier-sdk = {{ path = "{sdk}", features = ["{game}"] }}

# A crate of its own, not part of any surrounding workspace.
[workspace]

# `croupier build` uses this profile for the wasm build.
[profile.agent]
inherits = "release"
lto = true
codegen-units = 1
panic = "abort"
strip = "debuginfo"
"#,
        sdk = sdk_path().display().to_string().replace('\\', "/"),
    );
    let readme = format!(
        r#"# {name}

```sh
croupier build .
croupier match {game} target/agents/{game}/{name}.wasm {opponent} --games 200
```

A {game} agent for Croupier. The strategy is in `src/lib.rs`: `decide` receives what this seat
may know (`Observation`) and the legal actions, and returns one of them.

- `croupier build .` compiles the crate to WebAssembly and encodes it as a component in
  `target/agents/{game}/{name}.wasm`.
- `croupier validate target/agents/{game}/{name}.wasm` checks it loads.
- `croupier agents` lists example agents to play against; `croupier match --help` lists the
  options (rules presets, seeds, threads, `--json`, `--log`).
- Illegal actions, panics, endless loops and memory bombs lose the game (see the Croupier
  README, "Limits and verdicts").
"#,
        opponent = first_opponent(game),
    );
    std::fs::write(dir.join("Cargo.toml"), cargo)?;
    std::fs::write(dir.join("src/lib.rs"), new_files(game).rust_lib)?;
    std::fs::write(dir.join("README.md"), readme)?;
    std::fs::write(dir.join(".gitignore"), "/target\n")?;
    Ok(())
}
