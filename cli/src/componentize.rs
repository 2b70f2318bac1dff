//! `croupier build`: an agent crate becomes a component in one command.
//!
//! The route: `cargo build --target wasm32-unknown-unknown` (a core module that imports only
//! the world's own interfaces, ~16 KB for a small agent), then `wit-component` encodes it as a
//! component using the WIT type information the SDK's bindings embedded in it. Measured in
//! docs/wasmtime.md#guest-routes as the leanest Rust route: `wasm32-wasip2` would add 13 WASI
//! imports that the host refuses by design.

use anyhow::{Context, Result, bail};
use croupier_host::loader::GameKind;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::build_cache::{scratch, write_whole};

pub const WASM_TARGET: &str = "wasm32-unknown-unknown";

/// One agent crate to build.
#[derive(Clone, Debug)]
pub struct AgentCrate {
    pub dir: PathBuf,
    pub package: String,
    pub game: GameKind,
    /// Short name: `cheapest` for `durak-cheapest`.
    pub name: String,
}

/// A built component.
#[derive(Clone, Debug)]
pub struct Built {
    pub game: GameKind,
    pub name: String,
    pub path: PathBuf,
    pub size: usize,
}

/// Reads an agent crate's manifest: its game comes from `[package.metadata.croupier] game`
/// or the package name's prefix (`durak-cheapest`).
pub fn read_crate(dir: &Path) -> Result<AgentCrate> {
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).with_context(|| {
        format!(
            "{}: cannot read the agent crate's manifest",
            manifest.display()
        )
    })?;
    let value: toml::Value =
        toml::from_str(&text).with_context(|| format!("{}: not valid TOML", manifest.display()))?;
    let package = value
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
        .with_context(|| format!("{}: no [package] name", manifest.display()))?
        .to_string();
    let meta = value
        .get("package")
        .and_then(|p| p.get("metadata"))
        .and_then(|m| m.get("croupier"));
    let meta_str = |k: &str| meta.and_then(|m| m.get(k)).and_then(|v| v.as_str());
    let game_name = meta_str("game")
        .map(str::to_string)
        .or_else(|| package.split('-').next().map(str::to_string))
        .unwrap_or_default();
    let game = GameKind::parse(&game_name).with_context(|| {
        format!(
            "{}: cannot tell the game of `{package}`: set [package.metadata.croupier] game to {}",
            manifest.display(),
            GameKind::names_listed()
        )
    })?;
    let name = meta_str("name").map(str::to_string).unwrap_or_else(|| {
        package
            .strip_prefix(&format!("{}-", game.name()))
            .unwrap_or(&package)
            .to_string()
    });
    Ok(AgentCrate {
        dir: dir.to_path_buf(),
        package,
        game,
        name,
    })
}

#[derive(serde::Deserialize)]
struct Metadata {
    workspace_root: PathBuf,
    target_directory: PathBuf,
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

fn metadata(dir: &Path) -> Result<Metadata> {
    let out = cargo()
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--manifest-path",
        ])
        .arg(dir.join("Cargo.toml"))
        .output()
        .context("cannot run cargo")?;
    if !out.status.success() {
        bail!(
            "{}: cargo metadata failed: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    serde_json::from_slice(&out.stdout).context("cannot parse cargo metadata")
}

/// Whether `rustc` has the wasm target's standard library.
fn has_wasm_std(rustc: &OsStr) -> bool {
    Command::new(rustc)
        .args(["--print", "target-libdir", "--target", WASM_TARGET])
        .output()
        .is_ok_and(|out| {
            out.status.success() && Path::new(String::from_utf8_lossy(&out.stdout).trim()).is_dir()
        })
}

/// Which Rust builds the agents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgentRust {
    /// The `RUSTC` of the environment, which has the wasm target.
    Inherited,
    /// The `rustc` on the PATH, with `RUSTC` taken out of the agents' cargo.
    OnPath,
    /// rustup's `rustc` (`rustup which rustc`), where the one on the PATH comes first and
    /// has no wasm target (Debian's `/usr/bin/rustc` before `~/.cargo/bin`).
    Rustup(PathBuf),
}

/// Checks that the wasm target's standard library is installed, and says which Rust has it.
///
/// Why not simply the `RUSTC` we were given: the host may be built with a Rust that has no
/// wasm32 standard library. wasmtime 49 needs rustc 1.96; where rustup has only 1.95, the
/// set-up builds the host with Debian's `rustc-web` (`RUSTC=/usr/bin/rustc`,
/// scripts/lib/tools.sh), and that `RUSTC` reaches us from the scripts and through cargo's
/// tests. Passed on, it would build the agents too and fail for want of `core` for wasm32,
/// so the agents build with rustup's toolchain and its wasm32 target instead. A `RUSTC` that
/// has the target is kept.
pub fn check_target() -> Result<AgentRust> {
    if std::env::var_os("RUSTC").is_some_and(|r| has_wasm_std(&r)) {
        return Ok(AgentRust::Inherited);
    }
    if has_wasm_std(OsStr::new("rustc")) {
        return Ok(AgentRust::OnPath);
    }
    let rustup = Command::new("rustup")
        .args(["which", "rustc"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
        .filter(|rustc| has_wasm_std(rustc.as_os_str()));
    match rustup {
        Some(rustc) => Ok(AgentRust::Rustup(rustc)),
        None => bail!(
            "the Rust target {WASM_TARGET} is not installed: run `rustup target add {WASM_TARGET}`"
        ),
    }
}

/// Builds the crates in `dirs` into components, one cargo invocation per workspace and game
/// (an agent's SDK must carry only its own game's world, and Cargo unifies features within
/// one invocation).
/// Components go to `out/<game>/<name>.wasm` (default: `<target>/agents`).
pub fn build(dirs: &[PathBuf], out: Option<&Path>, verbose: bool) -> Result<Vec<Built>> {
    let rust = check_target()?;
    let crates: Vec<AgentCrate> = dirs.iter().map(|d| read_crate(d)).collect::<Result<_>>()?;
    let mut groups: BTreeMap<(PathBuf, PathBuf, &'static str), Vec<AgentCrate>> = BTreeMap::new();
    for c in crates {
        let m = metadata(&c.dir)?;
        groups
            .entry((m.workspace_root, m.target_directory, c.game.name()))
            .or_default()
            .push(c);
    }
    let mut built = Vec::new();
    for ((root, target, _), crates) in groups {
        let manifest = root.join("Cargo.toml");
        let has_agent_profile = std::fs::read_to_string(&manifest)
            .map(|t| t.contains("[profile.agent]"))
            .unwrap_or(false);
        let profile = if has_agent_profile {
            "agent"
        } else {
            "release"
        };
        let mut cmd = cargo();
        match &rust {
            AgentRust::Inherited => {}
            AgentRust::OnPath => {
                cmd.env_remove("RUSTC");
            }
            AgentRust::Rustup(rustc) => {
                cmd.env("RUSTC", rustc);
            }
        }
        cmd.args([
            "build",
            "--target",
            WASM_TARGET,
            "--profile",
            profile,
            "--manifest-path",
        ])
        .arg(&manifest);
        for c in &crates {
            cmd.args(["-p", &c.package]);
        }
        if !verbose {
            cmd.arg("--quiet");
        }
        let status = cmd.status().context("cannot run cargo build")?;
        if !status.success() {
            bail!(
                "building {} failed (cargo exit {status})",
                crates
                    .iter()
                    .map(|c| c.package.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        for c in crates {
            let module = target
                .join(WASM_TARGET)
                .join(profile)
                .join(format!("{}.wasm", c.package.replace('-', "_")));
            let bytes = std::fs::read(&module).with_context(|| {
                format!(
                    "{}: no wasm output (is the crate's lib `crate-type = [\"cdylib\", \"rlib\"]`?)",
                    module.display()
                )
            })?;
            let component = wit_component::ComponentEncoder::default()
                .module(&bytes)
                .and_then(|e| e.validate(true).encode())
                .with_context(|| {
                    format!(
                        "{}: cannot encode as a component (does it call croupier_sdk::export_{}!?)",
                        module.display(),
                        c.game
                    )
                })?;
            let out_dir = out
                .map(Path::to_path_buf)
                .unwrap_or_else(|| target.join("agents"))
                .join(c.game.name());
            std::fs::create_dir_all(&out_dir)
                .with_context(|| format!("cannot create {}", out_dir.display()))?;
            let path = out_dir.join(format!("{}.wasm", c.name));
            write_whole(&path, &component)?;
            built.push(Built {
                game: c.game,
                name: c.name,
                path,
                size: component.len(),
            });
        }
    }
    Ok(built)
}

/// A Python agent directory: `agent.toml` names the game, the agent and the module.
#[derive(Clone, Debug)]
pub struct PythonAgent {
    pub dir: PathBuf,
    pub game: GameKind,
    pub name: String,
    pub module: String,
}

/// The componentize-py release this host is tested with.
pub const COMPONENTIZE_PY: &str = "componentize-py==0.25.1";

/// What an agent directory's `agent.toml` declares (Python and C agents have one; a Rust
/// agent is a crate).
#[derive(Clone, Debug)]
pub struct Manifest {
    pub dir: PathBuf,
    pub game: GameKind,
    pub name: String,
    /// `[agent] language`, lower-cased; absent in the first Python agents.
    pub language: Option<String>,
    /// `[agent] module`: Python's module name, JavaScript's entry file.
    pub module: Option<String>,
    /// `[agent] engine` (JavaScript: quickjs or spidermonkey).
    pub engine: Option<String>,
}

/// Reads `agent.toml`, if the directory has one.
pub fn read_manifest(dir: &Path) -> Result<Option<Manifest>> {
    let manifest = dir.join("agent.toml");
    if !manifest.is_file() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&manifest)
        .with_context(|| format!("{}: cannot read", manifest.display()))?;
    let value: toml::Value =
        toml::from_str(&text).with_context(|| format!("{}: not valid TOML", manifest.display()))?;
    let field = |k: &str| {
        value
            .get("agent")
            .and_then(|a| a.get(k))
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    let game = field("game")
        .and_then(|g| GameKind::parse(&g))
        .with_context(|| {
            format!(
                "{}: [agent] game must be {}",
                manifest.display(),
                GameKind::names_listed()
            )
        })?;
    let name = field("name")
        .with_context(|| format!("{}: [agent] name is missing", manifest.display()))?;
    Ok(Some(Manifest {
        dir: dir.to_path_buf(),
        game,
        name,
        language: field("language").map(|l| l.to_ascii_lowercase()),
        module: field("module"),
        engine: field("engine").map(|e| e.to_ascii_lowercase()),
    }))
}

/// Reads `agent.toml` of a Python agent, if the directory has one.
pub fn read_python(dir: &Path) -> Result<Option<PythonAgent>> {
    Ok(read_manifest(dir)?
        .filter(|m| m.language.as_deref().is_none_or(|l| l == "python"))
        .map(|m| PythonAgent {
            dir: m.dir,
            game: m.game,
            name: m.name,
            module: m.module.unwrap_or_else(|| "app".into()),
        }))
}

/// Whether componentize-py can be run.
pub fn have_componentize_py() -> bool {
    componentize_py_version().is_some()
}

/// What `componentize-py --version` says, when it can be run.
fn componentize_py_version() -> Option<String> {
    let out = Command::new("componentize-py")
        .arg("--version")
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The WIT files of [`wit_dir`], inside this binary.
const FILES: [(&str, &str); 4] = [
    ("durak.wit", include_str!("../../wit/v0.2/durak.wit")),
    ("host.wit", include_str!("../../wit/v0.2/host.wit")),
    ("toepen.wit", include_str!("../../wit/v0.2/toepen.wit")),
    ("uno.wit", include_str!("../../wit/v0.2/uno.wit")),
];

/// Every WIT file's name and text, as inputs of a [`crate::build_cache::key`].
pub fn wit_parts() -> Vec<&'static [u8]> {
    FILES
        .iter()
        .flat_map(|(n, t)| [n.as_bytes(), t.as_bytes()])
        .collect()
}

/// The contract the other languages' toolchains build against: 0.2.0, whose observation is
/// a typed record. (0.3.0 sends it as bytes that only the Rust SDK decodes; the host serves
/// both, see docs/versioning.md.)
///
/// The files are inside this binary and written out on first use, once per content, to a
/// folder of the temp dir: an installed `croupier` (`pip install croupier`) has no source
/// tree to read them from.
pub fn wit_dir() -> Result<PathBuf> {
    let key = crate::build_cache::key(&wit_parts());
    let dir = std::env::temp_dir().join(format!("croupier-wit-{}", &key[..16]));
    // Checked, not trusted: the temp dir is shared, and a folder someone else left there
    // under this name must not change what an agent is built against.
    let same = |d: &Path| {
        FILES
            .iter()
            .all(|(n, t)| std::fs::read(d.join(n)).is_ok_and(|b| b == t.as_bytes()))
    };
    if same(&dir) {
        return Ok(dir);
    }
    // Written beside, then renamed: another process sees the whole folder or none.
    let part = scratch(&dir);
    let _ = std::fs::remove_dir_all(&part);
    std::fs::create_dir_all(&part).with_context(|| format!("cannot create {}", part.display()))?;
    for (name, text) in FILES {
        let file = part.join(name);
        std::fs::write(&file, text).with_context(|| format!("cannot write {}", file.display()))?;
    }
    if std::fs::rename(&part, &dir).is_ok() || same(&dir) {
        let _ = std::fs::remove_dir_all(&part);
        return Ok(dir);
    }
    // The name is taken by something else: this process's own copy.
    Ok(part)
}

/// Builds a Python agent with componentize-py. `--stub-wasi` leaves the component with the
/// world's own imports only (the host would refuse WASI); the host's `random` import is the
/// agent's randomness. The language is recorded in the producers section.
///
/// The build is hermetic: componentize-py sees the agent's folder, the SDK and the WIT, and
/// none of the user's Python environment (it would otherwise add the site-packages of
/// `$VIRTUAL_ENV`, pipenv or `python3`; `VIRTUAL_ENV` points it at an empty one instead).
/// So the same folder makes the same agent on every machine, and the component can be
/// kept per content (`crate::build_cache`): the key covers everything the step reads.
pub fn build_python(agent: &PythonAgent, out: &Path) -> Result<Built> {
    let Some(version) = componentize_py_version() else {
        bail!(
            "componentize-py is not installed: run `pip install {COMPONENTIZE_PY}` to build {}",
            agent.dir.display()
        );
    };
    let out_dir = out.join(agent.game.name());
    std::fs::create_dir_all(&out_dir)
        .with_context(|| format!("cannot create {}", out_dir.display()))?;
    let path = out_dir.join(format!("{}.wasm", agent.name));
    let made = scratch(&path);
    // The `croupier` module: the agent's own copy if it has one (inside its folder, so in
    // the key), else this binary's.
    let own_sdk = crate::scaffold::python::has_own_sdk(&agent.dir);
    let tree = crate::build_cache::key_of_tree(&agent.dir, Some(out))?;
    let mut inputs: Vec<&[u8]> = vec![
        b"python",
        version.as_bytes(),
        agent.game.name().as_bytes(),
        agent.module.as_bytes(),
        tree.as_bytes(),
        if own_sdk { b"own sdk" } else { b"this sdk" },
    ];
    if !own_sdk {
        for (name, text) in crate::scaffold::python::sdk_files() {
            inputs.extend([name.as_bytes(), text.as_bytes()]);
        }
    }
    inputs.extend(wit_parts());
    let key = crate::build_cache::key(&inputs);
    // This process's own folder for the SDK and the empty environment.
    let work = out.join(format!(".python-build.{}", std::process::id()));
    let made_it = crate::build_cache::component(&key, &made, || {
        // Made only when componentize-py runs: a kept component needs neither.
        let _ = std::fs::remove_dir_all(&work);
        let env = work.join("env");
        let site = env.join("lib/site-packages");
        std::fs::create_dir_all(&site)
            .with_context(|| format!("cannot create {}", site.display()))?;
        let mut cmd = Command::new("componentize-py");
        cmd.arg("-d")
            .arg(wit_dir()?)
            .args(["-w", agent.game.name(), "componentize", &agent.module, "-p"])
            .arg(&agent.dir);
        if !own_sdk {
            let sdk = crate::scaffold::python::write_sdk(&work.join("sdk"))?;
            cmd.arg("-p").arg(sdk);
        }
        let status = cmd
            .arg("-o")
            .arg(&made)
            .arg("--stub-wasi")
            .env("VIRTUAL_ENV", &env)
            .status()
            .context("cannot run componentize-py")?;
        if !status.success() {
            bail!(
                "componentize-py failed for {} ({status})",
                agent.dir.display()
            );
        }
        Ok(())
    });
    let _ = std::fs::remove_dir_all(&work);
    made_it?;
    with_language(&made, path, agent.game, &agent.name, "Python")
}

/// Records `language` in the component a tool wrote to `made` (where `croupier agents` and
/// `validate` read it), writes the result to `path` whole, and describes it.
pub fn with_language(
    made: &Path,
    path: PathBuf,
    game: GameKind,
    name: &str,
    language: &str,
) -> Result<Built> {
    let bytes = std::fs::read(made).with_context(|| format!("cannot read {}", made.display()))?;
    if made != path {
        let _ = std::fs::remove_file(made);
    }
    with_language_of(&bytes, path, game, name, language)
}

/// [`with_language`] for a component already in memory.
pub fn with_language_of(
    bytes: &[u8],
    path: PathBuf,
    game: GameKind,
    name: &str,
    language: &str,
) -> Result<Built> {
    // Replaced, not merged: componentize-js already says `JavaScript` at the top, and a merge
    // would list a TypeScript agent as `JavaScript, TypeScript`.
    let (bytes, old) = without_own_producers(bytes)
        .with_context(|| format!("{}: cannot read its producers section", path.display()))?;
    let mut producers = wasm_metadata::Producers::empty();
    for (field, values) in old.iter().flat_map(|p| p.iter()) {
        if field != "language" {
            for (n, v) in values.iter() {
                producers.add(field, n, v);
            }
        }
    }
    producers.add("language", language, "");
    let bytes = producers
        .add_to_wasm(&bytes)
        .with_context(|| format!("{}: cannot record the language", path.display()))?;
    write_whole(&path, &bytes)?;
    Ok(Built {
        game,
        name: name.to_string(),
        path,
        size: bytes.len(),
    })
}

/// The component without its own (outermost) producers section, and that section; nested
/// modules keep theirs.
fn without_own_producers(bytes: &[u8]) -> Result<(Vec<u8>, Option<wasm_metadata::Producers>)> {
    let mut depth = 0usize;
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        match payload? {
            wasmparser::Payload::ModuleSection { .. }
            | wasmparser::Payload::ComponentSection { .. } => depth += 1,
            wasmparser::Payload::End(_) => depth = depth.saturating_sub(1),
            wasmparser::Payload::CustomSection(c) if depth == 0 && c.name() == "producers" => {
                let old = wasm_metadata::Producers::from_bytes(c.data(), c.data_offset())?;
                // The section is its id (0), its size as LEB128, then `range`.
                let range = c.range();
                let range = usize::try_from(range.start)?..usize::try_from(range.end)?;
                let mut size = Vec::new();
                crate::policy_embed::leb(range.len() as u64, &mut size);
                let start = range.start.checked_sub(1 + size.len());
                let Some(start) =
                    start.filter(|&s| bytes[s] == 0 && bytes[s + 1..range.start] == size[..])
                else {
                    anyhow::bail!("an unexpected producers section header");
                };
                let mut out = bytes[..start].to_vec();
                out.extend_from_slice(&bytes[range.end..]);
                return Ok((out, Some(old)));
            }
            _ => {}
        }
    }
    Ok((bytes.to_vec(), None))
}

/// Where components go by default: `agents/` in the croupier binary's target directory.
pub fn default_out() -> PathBuf {
    croupier_host::registry::agent_dirs()
        .into_iter()
        .find(|d| std::env::var_os("CROUPIER_AGENTS").is_none_or(|e| Path::new(&e) != d))
        .unwrap_or_else(|| PathBuf::from("target/agents"))
}

/// The directories in `root` that `keep` accepts, sorted; none if `root` cannot be read.
pub fn sorted_dirs(root: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| keep(p)).collect())
        .unwrap_or_default();
    dirs.sort();
    dirs
}

/// An agent crate builds a `cdylib` and is not marked `[package.metadata.croupier] library`.
pub fn is_agent_crate(dir: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
        return false;
    };
    let Ok(value) = toml::from_str::<toml::Value>(&text) else {
        return true; // let the build report the broken manifest
    };
    let library = value
        .get("package")
        .and_then(|p| p.get("metadata"))
        .and_then(|m| m.get("croupier"))
        .and_then(|c| c.get("library"))
        .and_then(|l| l.as_bool())
        .unwrap_or(false);
    let cdylib = value
        .get("lib")
        .and_then(|l| l.get("crate-type"))
        .and_then(|t| t.as_array())
        .is_some_and(|a| a.iter().any(|v| v.as_str() == Some("cdylib")));
    cdylib && !library
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: a TypeScript agent built on SpiderMonkey was listed as `JavaScript`,
    /// because componentize-js's own `language` was merged with ours, not replaced.
    #[test]
    fn the_recorded_language_replaces_the_engines() {
        // An empty component whose producers section says JavaScript and names its tool.
        let empty = [0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00];
        let mut theirs = wasm_metadata::Producers::empty();
        theirs.add("language", "JavaScript", "");
        theirs.add("processed-by", "ComponentizeJS", "0.23.0");
        let bytes = theirs.add_to_wasm(&empty).expect("add");
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.wasm");
        let made = dir.path().join("made.wasm");
        std::fs::write(&made, &bytes).expect("write");
        with_language(&made, path.clone(), GameKind::Durak, "a", "TypeScript").expect("record");
        assert!(!made.exists(), "the tool's file is left behind");
        let out = std::fs::read(&path).expect("read");
        let p = wasm_metadata::Producers::from_wasm(&out)
            .expect("parse")
            .expect("a producers section");
        let names = |field: &str| -> Vec<String> {
            p.get(field)
                .map(|f| f.iter().map(|(n, _)| n.clone()).collect())
                .unwrap_or_default()
        };
        assert_eq!(names("language"), ["TypeScript"]);
        assert_eq!(names("processed-by"), ["ComponentizeJS"]);
    }
}
