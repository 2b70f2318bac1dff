//! C agents: a directory whose `agent.toml` says `language = "c"`, built by `croupier build`.
//!
//! The route: `wit-bindgen c` writes the game world's bindings, Debian's clang compiles every
//! `*.c` of the directory with them for `wasm32-wasi` against Debian's wasi-libc (for `malloc`,
//! which the bindings need for the lists the host passes in), linked without the WASI start
//! files, and `wasm-tools component new` encodes the module as a component. No adapter: the
//! module imports nothing but the world (wasi-libc's allocator and string functions import no
//! WASI), and a module that does reach for WASI fails here, naming it, before the host's
//! capability check would refuse it.

use crate::componentize::{Built, wit_dir};
use anyhow::{Context, Result, bail};
use croupier_host::loader::GameKind;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The C SDK: the Rust SDK's random stream (`sdk/c/croupier_rng.h`), compiled into the binary.
const RNG_H: &str = include_str!("../../sdk/c/croupier_rng.h");

/// The tools `scripts/setup.sh` installs, with where each comes from.
pub const TOOLS: [(&str, &str); 3] = [
    (
        "clang",
        "apt-get install clang lld wasi-libc libclang-rt-dev-wasm32",
    ),
    (
        "wit-bindgen",
        "cargo install --locked wit-bindgen-cli@0.63.0 --no-default-features --features c",
    ),
    (
        "wasm-tools",
        "cargo install --locked wasm-tools@1.243.0 --no-default-features --features component,validate,print,metadata,parse",
    ),
];

/// A C agent directory.
#[derive(Clone, Debug)]
pub struct CAgent {
    pub dir: PathBuf,
    pub game: GameKind,
    pub name: String,
}

/// Reads `agent.toml` if it declares a C agent (`[agent] language = "c"`).
pub fn read_c(dir: &Path) -> Result<Option<CAgent>> {
    Ok(crate::componentize::read_manifest(dir)?
        .filter(|m| m.language.as_deref() == Some("c"))
        .map(|m| CAgent {
            dir: m.dir,
            game: m.game,
            name: m.name,
        }))
}

fn tool(name: &str) -> Command {
    // CROUPIER_CLANG etc. let a machine point at a differently named binary (clang-14).
    let var = format!("CROUPIER_{}", name.to_uppercase().replace('-', "_"));
    Command::new(std::env::var_os(var).unwrap_or_else(|| name.into()))
}

/// The C tools that cannot be run, with the command that installs each.
pub fn missing_tools() -> Vec<(&'static str, &'static str)> {
    TOOLS
        .iter()
        .filter(|(name, _)| {
            !tool(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .copied()
        .collect()
}

/// Runs one step; a failure names the step, the file and the tool's own output.
fn run(mut cmd: Command, what: &str, file: &Path) -> Result<()> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let out = cmd
        .output()
        .with_context(|| format!("{}: cannot run {program} ({what})", file.display()))?;
    if !out.status.success() {
        bail!(
            "{}: {program} failed ({what}, {}):\n{}{}",
            file.display(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr).trim_end()
        );
    }
    Ok(())
}

/// Builds a C agent into `out/<game>/<name>.wasm`; intermediate files go to `DIR/build/`.
pub fn build_c(agent: &CAgent, out: &Path) -> Result<Built> {
    let missing = missing_tools();
    if !missing.is_empty() {
        bail!(
            "cannot build the C agent {}: missing {} (install: {}; or run scripts/setup.sh)",
            agent.dir.display(),
            missing.iter().map(|m| m.0).collect::<Vec<_>>().join(", "),
            missing.iter().map(|m| m.1).collect::<Vec<_>>().join("; ")
        );
    }
    let world = agent.game.name();
    let build = agent.dir.join("build");
    let bindings = build.join("bindings");
    std::fs::create_dir_all(&bindings)
        .with_context(|| format!("cannot create {}", bindings.display()))?;

    let mut bindgen = tool("wit-bindgen");
    bindgen
        .arg("c")
        .arg("--world")
        .arg(world)
        .arg("--out-dir")
        .arg(&bindings)
        .arg(wit_dir());
    run(bindgen, "generating the C bindings", &wit_dir())?;
    // The SDK's one header sits beside the bindings, so it is on the include path of every
    // build, in this tree or in a project far from it.
    let rng = bindings.join("croupier_rng.h");
    std::fs::write(&rng, RNG_H).with_context(|| format!("cannot write {}", rng.display()))?;

    let mut sources: Vec<PathBuf> = std::fs::read_dir(&agent.dir)
        .with_context(|| format!("cannot read {}", agent.dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    if sources.is_empty() {
        bail!("{}: no .c file to build", agent.dir.display());
    }
    sources.sort();
    let module = build.join(format!("{}.core.wasm", agent.name));
    let mut cc = tool("clang");
    cc.args([
        "--target=wasm32-wasi",
        "-O2",
        "-Wall",
        // No WASI start files: the component's exports are the entry points.
        "-nostartfiles",
        "-Wl,--no-entry",
        "-Wl,--strip-debug",
    ])
    .arg("-I")
    .arg(&bindings)
    .args(&sources)
    .arg(bindings.join(format!("{world}.c")))
    .arg(bindings.join(format!("{world}_component_type.o")))
    .arg("-o")
    .arg(&module);
    run(cc, "compiling and linking", &agent.dir)?;

    let out_dir = out.join(world);
    std::fs::create_dir_all(&out_dir)
        .with_context(|| format!("cannot create {}", out_dir.display()))?;
    let path = out_dir.join(format!("{}.wasm", agent.name));
    let mut new = tool("wasm-tools");
    new.args(["component", "new"])
        .arg(&module)
        .arg("-o")
        .arg(&path);
    run(new, "encoding the component", &module)?;

    crate::componentize::with_language(path, agent.game, &agent.name, "C")
}

/// Every C agent under `c-agents/` of this source tree.
pub fn example_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../c-agents");
    crate::componentize::sorted_dirs(&root, |p| p.join("agent.toml").is_file())
}
