//! C and C++ agents: a directory whose `agent.toml` says `language = "c"` (or `"c++"`),
//! built by `croupier build`.
//!
//! The route: wit-bindgen's C generator (the `wit-bindgen-c` crate, run in this process) writes
//! the game world's bindings, Debian's clang compiles every `*.c` (and clang++ every `*.cpp`,
//! `*.cc`, `*.cxx`, against Debian's libc++ for WASI) of the directory with them for
//! `wasm32-wasi`, against Debian's wasi-libc, linked as a reactor (its `_initialize` runs the
//! static constructors when the component starts), and wit-component (the library behind
//! `wasm-tools component new`, also in this process) encodes the module as a component. So a
//! C student needs Debian's packages and nothing built from source. No adapter: the module
//! imports nothing but the world. wasi-libc's stdio, clock, environment and files would import
//! WASI; `sdk/c/croupier_wasi.c`, compiled into every agent, answers those calls inside the
//! agent instead (stdout and stderr into the agent's log; no clock, files or entropy). A
//! module that still reaches for WASI fails here, naming the function, before the host's
//! capability check would refuse it.

use crate::componentize::{Built, wit_dir};
use anyhow::{Context, Result, bail};
use croupier_host::loader::GameKind;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The C SDK: the Rust SDK's random stream (`sdk/c/croupier_rng.h`), compiled into the binary.
const RNG_H: &str = include_str!("../../sdk/c/croupier_rng.h");

/// The WASI functions libc and libc++ reach for, answered inside the agent so that the
/// component imports no WASI (`sdk/c/croupier_wasi.c` says how each behaves, and why).
const WASI_C: &str = include_str!("../../sdk/c/croupier_wasi.c");

/// What C++ needs beyond C.
const LIBCXX: &str = "apt-get install libc++-dev-wasm32";

/// The Debian packages the route needs beyond this binary: the compiler, the wasm linker,
/// wasi-libc, compiler-rt's wasm32 builtins and libc++ for WASI (C++ agents only).
pub const APT: &str =
    "apt-get install clang lld wasi-libc libclang-rt-dev-wasm32 libc++-dev-wasm32";

/// The programs the route runs, each with the command that installs it.
pub const TOOLS: [(&str, &str); 2] = [("clang", APT), ("wasm-ld", APT)];

/// A C agent directory.
#[derive(Clone, Debug)]
pub struct CAgent {
    pub dir: PathBuf,
    pub game: GameKind,
    pub name: String,
}

/// Reads `agent.toml` if it declares a C or C++ agent (`[agent] language = "c"`, or `"c++"`,
/// `"cpp"`; the sources decide which compiler runs).
pub fn read_c(dir: &Path) -> Result<Option<CAgent>> {
    Ok(crate::componentize::read_manifest(dir)?
        .filter(|m| matches!(m.language.as_deref(), Some("c" | "c++" | "cpp")))
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
            "cannot build the C agent {}: missing {} (install: {APT}; or run scripts/setup.sh --all)",
            agent.dir.display(),
            missing.iter().map(|m| m.0).collect::<Vec<_>>().join(", "),
        );
    }
    let world = agent.game.name();
    let build = agent.dir.join("build");
    // Two builds of one agent at once (two test processes) would write the same files.
    let _turn = crate::build_cache::lock(&build)?;
    let bindings = build.join("bindings");
    std::fs::create_dir_all(&bindings)
        .with_context(|| format!("cannot create {}", bindings.display()))?;

    write_bindings(world, &bindings)?;
    // The SDK's one header sits beside the bindings, so it is on the include path of every
    // build, in this tree or in a project far from it.
    let rng = bindings.join("croupier_rng.h");
    std::fs::write(&rng, RNG_H).with_context(|| format!("cannot write {}", rng.display()))?;

    let wasi = bindings.join("croupier_wasi.c");
    std::fs::write(&wasi, WASI_C).with_context(|| format!("cannot write {}", wasi.display()))?;

    let mut sources: Vec<PathBuf> = std::fs::read_dir(&agent.dir)
        .with_context(|| format!("cannot read {}", agent.dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| is_c(p) || is_cpp(p))
        .collect();
    if sources.is_empty() {
        bail!("{}: no .c or .cpp file to build", agent.dir.display());
    }
    sources.sort();
    let cpp = sources.iter().any(|p| is_cpp(p));
    sources.push(bindings.join(format!("{world}.c")));
    sources.push(wasi);

    // Each file compiles on its own (C with clang, C++ with clang++), so an error names it.
    let objects = build.join("obj");
    std::fs::create_dir_all(&objects)
        .with_context(|| format!("cannot create {}", objects.display()))?;
    let mut linked = Vec::new();
    for (i, src) in sources.iter().enumerate() {
        let stem = src.file_stem().unwrap_or_default().to_string_lossy();
        let obj = objects.join(format!("{i}-{stem}.o"));
        let mut cc = tool(if is_cpp(src) { "clang++" } else { "clang" });
        cc.args(["--target=wasm32-wasi", "-O2", "-Wall", "-c"]);
        if is_cpp(src) {
            // libc++ for WASI is built without exceptions (WebAssembly exception handling is
            // not in this clang); RTTI stays.
            cc.args(["-std=c++20", "-fno-exceptions"]);
        }
        cc.arg(format!("-DCROUPIER_WORLD_H=\"{world}.h\""))
            .arg(format!("-DCROUPIER_STRING_T={world}_string_t"))
            .arg("-I")
            .arg(&bindings)
            .arg(src)
            .arg("-o")
            .arg(&obj);
        run(cc, "compiling", src).map_err(|e| {
            if is_cpp(src) && e.to_string().contains("file not found") {
                e.context(format!("C++ needs libc++ for WASI: {LIBCXX}"))
            } else {
                e
            }
        })?;
        linked.push(obj);
    }
    let module = build.join(format!("{}.core.wasm", agent.name));
    let mut ld = tool(if cpp { "clang++" } else { "clang" });
    ld.args([
        "--target=wasm32-wasi",
        // A reactor: no `main`, and an `_initialize` (static constructors, which C++'s
        // iostreams need) that the component runs once when it is instantiated.
        "-mexec-model=reactor",
        "-Wl,--strip-debug",
    ])
    .args(&linked)
    .arg(bindings.join(format!("{world}_component_type.o")))
    .arg("-o")
    .arg(&module);
    run(ld, "linking", &agent.dir)?;

    let out_dir = out.join(world);
    std::fs::create_dir_all(&out_dir)
        .with_context(|| format!("cannot create {}", out_dir.display()))?;
    let path = out_dir.join(format!("{}.wasm", agent.name));
    let core =
        std::fs::read(&module).with_context(|| format!("cannot read {}", module.display()))?;
    let component = wit_component::ComponentEncoder::default()
        .module(&core)
        .and_then(|e| e.validate(true).encode())
        .with_context(|| format!("{}: cannot encode as a component", module.display()))?;

    let language = if cpp { "C++" } else { "C" };
    crate::componentize::with_language_of(&component, path, agent.game, &agent.name, language)
}

/// The world's C bindings (`<world>.h`, `<world>.c` and `<world>_component_type.o`) into
/// `dir`, as `wit-bindgen c --world <world>` writes them.
fn write_bindings(world: &str, dir: &Path) -> Result<()> {
    use wit_bindgen_core::wit_parser::Resolve;
    let wit = wit_dir()?;
    let mut resolve = Resolve::default();
    let (package, _) = resolve
        .push_path(&wit)
        .with_context(|| format!("{}: cannot read the WIT", wit.display()))?;
    let id = resolve
        .select_world(&[package], Some(world))
        .with_context(|| format!("{}: no world {world}", wit.display()))?;
    let mut files = wit_bindgen_core::Files::default();
    wit_bindgen_c::Opts::default()
        .build()
        .generate(&mut resolve, id, &mut files)
        .with_context(|| format!("{}: generating the C bindings of {world}", wit.display()))?;
    for (name, contents) in files.iter() {
        let file = dir.join(name);
        std::fs::write(&file, contents)
            .with_context(|| format!("cannot write {}", file.display()))?;
    }
    Ok(())
}

fn is_c(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "c")
}

fn is_cpp(p: &Path) -> bool {
    p.extension()
        .is_some_and(|e| e == "cpp" || e == "cc" || e == "cxx")
}

/// Every C agent under `c-agents/` of this source tree.
pub fn example_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../c-agents");
    crate::componentize::sorted_dirs(&root, |p| p.join("agent.toml").is_file())
}
