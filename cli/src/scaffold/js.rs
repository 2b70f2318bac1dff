//! `croupier new GAME NAME --lang js|ts`: a ready JavaScript or TypeScript agent project.
//!
//! The project carries its own copy of the SDK (`croupier/`, compiled into this binary so a
//! project never depends on where a source tree is) and is an ordinary npm package: `npm
//! test` runs its tests with Node's built-in runner, with no dependency to install. A
//! TypeScript project type-checks against the SDK's JSDoc types (`allowJs`); the two Node
//! modules the tests use are declared in `types/node-test.d.ts`, so `tsc` needs nothing
//! from the network either.

use anyhow::{Context, Result};
use croupier_host::loader::GameKind;
use std::path::Path;

/// The SDK's files that every game shares (`sdk/js/croupier/`), relative to the folder that
/// holds `croupier/`; the contract's types from `jco types` come along for TypeScript users
/// to read. Each game's own files are in its module of `croupier_tournament::games`.
const SHARED_SDK_FILES: &[(&str, &str)] = &[
    (
        "croupier/index.js",
        include_str!("../../../sdk/js/croupier/index.js"),
    ),
    (
        "croupier/wit/interfaces/croupier-agent-common.d.ts",
        include_str!("../../../sdk/js/croupier/wit/interfaces/croupier-agent-common.d.ts"),
    ),
    (
        "croupier/wit/interfaces/croupier-agent-host.d.ts",
        include_str!("../../../sdk/js/croupier/wit/interfaces/croupier-agent-host.d.ts"),
    ),
];

/// Every file of the SDK: the shared ones, then each game's.
pub fn sdk_files() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    SHARED_SDK_FILES.iter().chain(
        GameKind::ALL
            .into_iter()
            .flat_map(|game| super::templates::new_files(game).js_sdk),
    )
}

/// The agent module, per game and language, and the test (JavaScript).
fn sources(game: GameKind, typescript: bool) -> (&'static str, &'static str) {
    let new = super::templates::new_files(game);
    (
        if typescript { new.ts_app } else { new.js_app },
        new.js_test,
    )
}

/// The TypeScript test is the JavaScript one with its two untyped helpers typed (the rest is
/// inferred), so the two cannot drift apart; cli/tests/cli/js.rs type-checks the result strictly.
fn typed_test(js: &str) -> String {
    js.replace(
        "function decide(obs, legal) {",
        "function decide(obs: Observation, legal: Action[]): Action {",
    )
    .replace("const c = (t) =>", "const c = (t: string) =>")
}

/// Just enough of Node's types for the tests (`npm install -D @types/node` gives them all).
const NODE_TEST_TYPES: &str = r#"// The parts of Node's test runner and assert that the tests use, so that `tsc` needs no
// download. For all of Node's types: `npm install -D @types/node` and delete this file.
declare module 'node:test' {
  export function test(name: string, fn: () => void | Promise<void>): void;
}
declare module 'node:assert/strict' {
  const assert: {
    equal(actual: unknown, expected: unknown, message?: string): void;
    notEqual(actual: unknown, expected: unknown, message?: string): void;
    deepEqual(actual: unknown, expected: unknown, message?: string): void;
    ok(value: unknown, message?: string): void;
    throws(fn: () => unknown, expected?: RegExp, message?: string): void;
  };
  export default assert;
}
"#;

/// The project's `tsconfig.json`: strict, the SDK read through `allowJs`, and `tsc` alone
/// (as `npm test` runs it) emitting into `build/test/` for Node.
const TSCONFIG: &str = r#"{
  "compilerOptions": {
    "strict": true,
    "allowJs": true,
    "skipLibCheck": true,
    "target": "es2022",
    "module": "es2022",
    "moduleResolution": "bundler",
    "lib": ["es2022"],
    "types": [],
    "rootDir": ".",
    "outDir": "build/test"
  },
  "include": ["*.ts", "types/*.d.ts"]
}
"#;

/// Writes a JavaScript (`typescript` false) or TypeScript agent project into `dir`, which
/// the caller made and checked is new.
pub fn create(game: GameKind, name: &str, dir: &Path, typescript: bool) -> Result<()> {
    let (lang, ext, tool) = if typescript {
        ("ts", "ts", "tsc, esbuild and componentize-qjs")
    } else {
        ("js", "js", "esbuild and componentize-qjs")
    };
    let language = if typescript {
        "TypeScript"
    } else {
        "JavaScript"
    };
    let export = crate::js_agent::export_name(game);
    let manifest = format!(
        "# A Croupier agent in {language}: `croupier build .` makes it a component ({tool}).\n\
         [agent]\ngame = \"{game}\"\nname = \"{name}\"\nlanguage = \"{lang}\"\n\
         # The module that exports `{export}`.\nmodule = \"app.{ext}\"\n\
         # The JavaScript engine: quickjs (small and fast to build; the 64-bit seed arrives\n\
         # rounded to a double) or spidermonkey (12 MB, slower to build; the seed is exact).\n\
         engine = \"quickjs\"\n"
    );
    let test = if typescript {
        "tsc -p . && node --test build/test/app.test.js"
    } else {
        "node --test app.test.js"
    };
    let package = format!(
        "{{\n  \"name\": \"{name}\",\n  \"private\": true,\n  \"type\": \"module\",\n  \"scripts\": {{\n    \
         \"build\": \"croupier build . --out agents\",\n    \"test\": \"{test}\"\n  }}\n}}\n"
    );
    let opponent = super::templates::first_opponent(game);
    let types = if typescript {
        "\n- `tsconfig.json` is strict; `croupier build` type-checks with it first. The SDK is\n  \
         JavaScript with JSDoc types, which TypeScript reads (`allowJs`); the contract's own types\n  \
         (from `jco types`) are in `croupier/wit/`."
    } else {
        ""
    };
    let readme = format!(
        r#"# {name}

```sh
croupier build . --out agents
npm test
croupier match {game} agents/{game}/{name}.wasm {opponent} --games 200
```

A {game} agent for Croupier, in {language}. The strategy is in `app.{ext}`: `decide` receives
what this seat may know (`obs`), the legal actions and a context (`ctx.rng`, `ctx.log`), and
returns one of the legal actions.

- `croupier build . --out agents` bundles the project with esbuild and makes it a sandboxed
  WebAssembly component ({tool}; `npm install -g` them, or run Croupier's
  `scripts/setup.sh --all`). The component imports nothing but the game; there is no file system,
  clock, network or `console` inside the sandbox: log with `ctx.log("...")`, the lines go
  into the game record. `Math.random()` is the seeded generator there, so games replay.
- `npm test` tries the strategy on hand-made observations with Node's test runner
  (`app.test.{ext}`); it installs nothing.
- `croupier/` is the Croupier SDK (Card, Action and Observation classes, helpers, the seeded
  generator), documented in its JSDoc comments.{types}
- `croupier validate agents/{game}/{name}.wasm` checks that it loads; `croupier agents`
  lists example agents to play against.
- Illegal actions, exceptions, endless loops and memory bombs lose the game; an exception's
  message and stack go into the game's log.
"#
    );
    let (app, js_test) = sources(game, typescript);
    let app_test = if typescript {
        typed_test(js_test)
    } else {
        js_test.to_string()
    };
    let write = |rel: &str, text: &str| -> Result<()> {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
    };
    write("agent.toml", &manifest)?;
    write(&format!("app.{ext}"), app)?;
    write(&format!("app.test.{ext}"), &app_test)?;
    write("package.json", &package)?;
    write("README.md", &readme)?;
    write(".gitignore", "/agents\n/build\nnode_modules/\n")?;
    if typescript {
        write("tsconfig.json", TSCONFIG)?;
        write("types/node-test.d.ts", NODE_TEST_TYPES)?;
    }
    for (rel, text) in sdk_files() {
        write(rel, text)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file added to the SDK but to no list of its files would be missing from every new
    /// project.
    #[test]
    fn every_sdk_file_is_shipped() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sdk/js");
        let mut on_disk = Vec::new();
        let mut stack = vec![root.join("croupier")];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).expect("sdk/js/croupier") {
                let p = e.expect("entry").path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let rel = p.strip_prefix(&root).expect("under sdk/js");
                    on_disk.push(rel.to_string_lossy().replace('\\', "/"));
                }
            }
        }
        on_disk.sort();
        let mut shipped: Vec<String> = sdk_files().map(|(r, _)| r.to_string()).collect();
        shipped.sort();
        assert_eq!(on_disk, shipped);
    }
}
