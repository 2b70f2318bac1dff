//! JavaScript and TypeScript agents: a directory whose `agent.toml` says `language = "js"` or
//! `"ts"`, built by `croupier build`.
//!
//! The route (measured and decided in docs/languages.md):
//! 1. TypeScript only: `tsc --noEmit` type-checks the agent (its own `tsconfig.json` if it has
//!    one, else strict defaults), so a type error stops the build with tsc's own
//!    `file(line,col)` message instead of losing games later.
//! 2. A generated entry module hands the world's `host` import to the SDK
//!    (`globalThis.croupierHost`) and re-exports the agent's `durakAgent` (`toepenAgent`,
//!    `unoAgent`). The SDK never imports `croupier:agent/…` itself, so the agent's module
//!    also runs under plain Node for its unit tests.
//! 3. esbuild bundles the entry, the agent and the SDK (whatever they import relatively) into
//!    one ES module and strips TypeScript; the world's imports stay external.
//! 4. An engine makes the bundle a component with every WASI import stubbed out at build
//!    time, so the component imports nothing but the world and the host's capability check
//!    stays exactly as strict: QuickJS (componentize-qjs, the default: 1.6 MB, under a second
//!    to build) or SpiderMonkey (componentize-js, `engine = "spidermonkey"`: 12 MB, 20-60 s to
//!    build, and the one that passes `u64` values exactly, as BigInt).
//!
//! Every tool is an npm package pinned in [`NPM_PACKAGES`] (`scripts/setup.sh --all` and
//! `scripts/test.sh` install them globally). A missing tool fails the build naming the
//! package to install. Step 4 is kept per content (`crate::build_cache`): an unchanged
//! bundle is not made into a component twice, in this folder or any other.

use crate::componentize::{Built, Manifest, wit_dir};
use anyhow::{Context, Result, bail};
use croupier_host::loader::GameKind;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The npm packages of the route, pinned; `scripts/setup.sh --all` installs exactly these
/// (a unit test keeps the two in step). jco 1.34, not 1.35: 1.35's `jco types` cannot read
/// WIT files (its embedded wasm-tools gets no file access). preview2-shim is named because
/// componentize-js imports it without declaring it, so a global install lacks it.
pub const NPM_PACKAGES: &str = "componentize-qjs@0.4.5 esbuild@0.28.2 typescript@5.9.3 \
                                @bytecodealliance/componentize-js@0.23.0 @bytecodealliance/jco@1.34.0 \
                                @bytecodealliance/preview2-shim@0.25.0";

/// Which JavaScript engine runs inside the component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// QuickJS through componentize-qjs: small, fast to build and to instantiate; `u64`
    /// values reach JavaScript as numbers (exact below 2^53).
    QuickJs,
    /// SpiderMonkey through componentize-js: `u64` values as exact BigInts, at 7x the size
    /// and a slower start.
    SpiderMonkey,
}

/// A JavaScript or TypeScript agent directory.
#[derive(Clone, Debug)]
pub struct JsAgent {
    pub dir: PathBuf,
    pub game: GameKind,
    pub name: String,
    pub typescript: bool,
    /// The entry module, relative to `dir` (`app.js`, `app.ts`).
    pub module: String,
    pub engine: Engine,
}

impl JsAgent {
    /// The language recorded in the component's producers section.
    pub fn language(&self) -> &'static str {
        if self.typescript {
            "TypeScript"
        } else {
            "JavaScript"
        }
    }
}

/// The name the world's export has in JavaScript (componentize's camelCase of
/// `durak-agent`).
pub fn export_name(game: GameKind) -> &'static str {
    croupier_tournament::with_game!(game, G => <G as croupier_tournament::games::Presentation>::JS_EXPORT)
}

/// Reads `agent.toml` if it declares a JavaScript or TypeScript agent.
pub fn read_js(dir: &Path) -> Result<Option<JsAgent>> {
    let Some(m) = crate::componentize::read_manifest(dir)? else {
        return Ok(None);
    };
    let typescript = match m.language.as_deref() {
        Some("js" | "javascript") => false,
        Some("ts" | "typescript") => true,
        _ => return Ok(None),
    };
    Ok(Some(from_manifest(m, typescript)?))
}

fn from_manifest(m: Manifest, typescript: bool) -> Result<JsAgent> {
    let manifest = m.dir.join("agent.toml");
    let engine = match m.engine.as_deref() {
        None | Some("quickjs") => Engine::QuickJs,
        Some("spidermonkey") => Engine::SpiderMonkey,
        Some(other) => bail!(
            "{}: [agent] engine must be quickjs or spidermonkey, not `{other}`",
            manifest.display()
        ),
    };
    let module = m
        .module
        .unwrap_or_else(|| if typescript { "app.ts" } else { "app.js" }.into());
    // The entry is joined to the directory: keep it inside, so an agent.toml cannot make the
    // build bundle some other file of the machine.
    if Path::new(&module).is_absolute() || module.split(['/', '\\']).any(|p| p == "..") {
        bail!(
            "{}: [agent] module must be a path inside the agent's directory, not `{module}`",
            manifest.display()
        );
    }
    if !m.dir.join(&module).is_file() {
        bail!(
            "{}: [agent] module `{module}` does not exist in {}",
            manifest.display(),
            m.dir.display()
        );
    }
    Ok(JsAgent {
        dir: m.dir,
        game: m.game,
        name: m.name,
        typescript,
        module,
        engine,
    })
}

fn tool(name: &str) -> Command {
    // CROUPIER_ESBUILD etc. let a machine point at a tool outside the PATH.
    let var = format!("CROUPIER_{}", name.to_uppercase().replace('-', "_"));
    Command::new(std::env::var_os(var).unwrap_or_else(|| name.into()))
}

fn runs(name: &str, arg: &str) -> bool {
    tool(name)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Where npm installs global packages (`npm root -g`), for the SpiderMonkey engine's
/// library; `CROUPIER_NODE_MODULES` overrides it.
fn node_modules() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CROUPIER_NODE_MODULES") {
        return Some(PathBuf::from(p));
    }
    let out = Command::new("npm").args(["root", "-g"]).output().ok()?;
    out.status
        .success()
        .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

const COMPONENTIZE_JS: &str = "@bytecodealliance/componentize-js";

/// The tools that building `agent` needs and cannot find, each with its npm package.
pub fn missing_for(agent: &JsAgent) -> Vec<&'static str> {
    let mut missing = Vec::new();
    if !runs("node", "--version") {
        missing.push("node (apt-get install nodejs npm)");
    }
    if !runs("esbuild", "--version") {
        missing.push("esbuild");
    }
    if agent.typescript && !runs("tsc", "--version") {
        missing.push("typescript (tsc)");
    }
    match agent.engine {
        Engine::QuickJs if !runs("componentize-qjs", "--help") => missing.push("componentize-qjs"),
        Engine::SpiderMonkey
            if !node_modules().is_some_and(|r| r.join(COMPONENTIZE_JS).is_dir()) =>
        {
            missing.push("@bytecodealliance/componentize-js")
        }
        _ => {}
    }
    missing
}

/// Runs one step; a failure names the step, the file and the tool's own output.
fn run(mut cmd: Command, what: &str, file: &Path) -> Result<String> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let out = cmd
        .output()
        .with_context(|| format!("{}: cannot run {program} ({what})", file.display()))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        bail!(
            "{}: {program} failed ({what}, {}):\n{}",
            file.display(),
            out.status,
            text.trim_end()
        );
    }
    Ok(text)
}

/// Type-checks a TypeScript agent: with its own `tsconfig.json`, else strictly, module by
/// module from the entry (the SDK is JavaScript with JSDoc types, read through `allowJs`).
fn type_check(agent: &JsAgent) -> Result<()> {
    let mut tsc = tool("tsc");
    tsc.current_dir(&agent.dir).arg("--noEmit");
    if agent.dir.join("tsconfig.json").is_file() {
        tsc.args(["-p", "."]);
    } else {
        tsc.args([
            "--strict",
            "--allowJs",
            "--skipLibCheck",
            "--target",
            "es2022",
            "--module",
            "es2022",
            "--moduleResolution",
            "bundler",
            "--lib",
            "es2022",
        ])
        .arg(&agent.module);
    }
    run(tsc, "type-checking", &agent.dir.join(&agent.module)).map(|_| ())
}

/// The SpiderMonkey step: componentize-js's library, called from Node with every WASI
/// feature disabled (then the component imports no WASI at all; measured).
const SPIDERMONKEY_SCRIPT: &str = r#"
import { pathToFileURL } from 'node:url';
import { writeFileSync } from 'node:fs';
const [root, source, wit, world, out] = process.argv.slice(2);
const lib = pathToFileURL(`${root}/@bytecodealliance/componentize-js/src/componentize.js`);
const { componentize } = await import(lib.href);
const { component } = await componentize({
  sourcePath: source, witPath: wit, worldName: world,
  disableFeatures: ['stdio', 'random', 'clocks', 'http', 'fetch-event'],
});
writeFileSync(out, component);
"#;

/// Builds a JavaScript or TypeScript agent into `out/<game>/<name>.wasm`; intermediate files
/// (the entry and the bundle) go to `DIR/build/`.
pub fn build_js(agent: &JsAgent, out: &Path) -> Result<Built> {
    let missing = missing_for(agent);
    if !missing.is_empty() {
        bail!(
            "cannot build the {} agent {}: missing {} (install: npm install -g {NPM_PACKAGES}; or run scripts/setup.sh --all)",
            agent.language(),
            agent.dir.display(),
            missing.join(", ")
        );
    }
    let entry_module = agent.dir.join(&agent.module);
    if agent.typescript {
        type_check(agent)?;
    }
    let world = agent.game.name();
    let export = export_name(agent.game);
    let build = agent.dir.join("build");
    let _turn = crate::build_cache::lock(&build)?;
    let absolute = std::fs::canonicalize(&entry_module)
        .with_context(|| format!("cannot read {}", entry_module.display()))?;
    let entry = build.join("entry.js");
    // The path as a JSON string is a valid JavaScript string literal, whatever it holds.
    let quoted = serde_json::to_string(&absolute.to_string_lossy())?;
    std::fs::write(
        &entry,
        format!(
            "// Generated by `croupier build`: the world's host import for the SDK, and the\n\
             // agent's export.\n\
             import * as host from 'croupier:agent/host@0.2.0';\n\
             globalThis.croupierHost = host;\n\
             export {{ {export} }} from {quoted};\n"
        ),
    )
    .with_context(|| format!("cannot write {}", entry.display()))?;

    let bundle = build.join("bundle.js");
    let mut esbuild = tool("esbuild");
    esbuild
        .arg(&entry)
        .args([
            "--bundle",
            "--format=esm",
            "--platform=neutral",
            "--target=es2022",
            "--external:croupier:*",
            "--log-level=warning",
        ])
        .arg(format!("--outfile={}", bundle.display()));
    run(esbuild, "bundling", &entry_module).map_err(|e| {
        if e.to_string().contains("No matching export") {
            e.context(format!(
                "{}: the module must export `{export}`, e.g. `export const {export} = {world}.export(MyAgent);`",
                entry_module.display()
            ))
        } else {
            e
        }
    })?;

    let out_dir = out.join(world);
    std::fs::create_dir_all(&out_dir)
        .with_context(|| format!("cannot create {}", out_dir.display()))?;
    let path = out_dir.join(format!("{}.wasm", agent.name));
    // The engine's step is the slow one (SpiderMonkey: 20-60 s); it reads the bundle, the
    // WIT, the engine and the pinned tools, and nothing else.
    let wit = wit_dir()?;
    let bundled =
        std::fs::read(&bundle).with_context(|| format!("cannot read {}", bundle.display()))?;
    let engine = format!("{:?}", agent.engine);
    let mut inputs = vec![
        &bundled[..],
        engine.as_bytes(),
        world.as_bytes(),
        NPM_PACKAGES.as_bytes(),
        SPIDERMONKEY_SCRIPT.as_bytes(),
    ];
    inputs.extend(crate::componentize::wit_parts());
    let key = crate::build_cache::key(&inputs);
    let made = build.join("made.wasm");
    crate::build_cache::component(&key, &made, || match agent.engine {
        Engine::QuickJs => {
            let mut qjs = tool("componentize-qjs");
            qjs.arg("--wit")
                .arg(&wit)
                .args(["-n", world, "--stub-wasi", "--sync", "--js"])
                .arg(&bundle)
                .arg("-o")
                .arg(&made);
            run(qjs, "making the component (QuickJS)", &entry_module).map(|_| ())
        }
        Engine::SpiderMonkey => {
            let root = node_modules().context("cannot find npm's global node_modules")?;
            let script = build.join("componentize-spidermonkey.mjs");
            std::fs::write(&script, SPIDERMONKEY_SCRIPT)
                .with_context(|| format!("cannot write {}", script.display()))?;
            let mut node = tool("node");
            node.arg(&script)
                .arg(root)
                .arg(&bundle)
                .arg(&wit)
                .arg(world)
                .arg(&made);
            run(node, "making the component (SpiderMonkey)", &entry_module).map(|_| ())
        }
    })?;
    crate::componentize::with_language(&made, path, agent.game, &agent.name, agent.language())
}

/// Every JavaScript and TypeScript agent under `js-agents/` of this source tree.
pub fn example_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../js-agents");
    crate::componentize::sorted_dirs(&root, |p| p.join("agent.toml").is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_installs_the_pinned_versions() {
        let tools = include_str!("../../scripts/lib/tools.sh");
        for package in NPM_PACKAGES.split_whitespace() {
            assert!(
                tools.contains(package),
                "scripts/lib/tools.sh lacks {package}"
            );
        }
        let py = crate::componentize::COMPONENTIZE_PY;
        assert!(tools.contains(py), "scripts/lib/tools.sh lacks {py}");
        let wheel = include_str!("../../pyproject.toml");
        assert!(
            wheel.contains(&format!("\"{py}\"")),
            "pyproject.toml lacks {py}"
        );
    }

    fn manifest(dir: &Path, body: &str) -> Result<Option<JsAgent>> {
        std::fs::write(dir.join("agent.toml"), body).expect("write");
        read_js(dir)
    }

    #[test]
    fn manifests_are_read_and_bad_ones_named() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("app.ts"), "").expect("write");
        let a = manifest(
            dir.path(),
            "[agent]\ngame = \"uno\"\nname = \"x\"\nlanguage = \"ts\"\n",
        )
        .expect("read")
        .expect("a TS agent");
        assert_eq!(
            (a.module.as_str(), a.engine, a.typescript),
            ("app.ts", Engine::QuickJs, true)
        );
        assert!(
            manifest(
                dir.path(),
                "[agent]\ngame = \"uno\"\nname = \"x\"\nlanguage = \"python\"\n"
            )
            .expect("read")
            .is_none()
        );
        for (body, needle) in [
            ("language = \"js\"\nengine = \"v8\"", "engine must be"),
            (
                "language = \"js\"\nmodule = \"../x.js\"",
                "inside the agent",
            ),
            (
                "language = \"js\"\nmodule = \"/etc/passwd\"",
                "inside the agent",
            ),
            ("language = \"js\"\nmodule = \"nope.js\"", "does not exist"),
        ] {
            let err = manifest(
                dir.path(),
                &format!("[agent]\ngame = \"uno\"\nname = \"x\"\n{body}\n"),
            )
            .expect_err(body)
            .to_string();
            assert!(err.contains(needle), "{body}: {err}");
            assert!(err.contains("agent.toml"), "{err}");
        }
    }
}
