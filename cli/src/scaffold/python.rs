//! Python agents: the `croupier` SDK module (compiled into this binary, so a build never
//! depends on where the source tree is) and `croupier new --lang python`.

use anyhow::{Context, Result};
use croupier_host::loader::GameKind;
use std::path::{Path, PathBuf};

/// The SDK's files (`sdk/python/croupier/`), relative to the folder that holds `croupier/`.
pub const SDK_FILES: &[(&str, &str)] = &[
    (
        "croupier/__init__.py",
        include_str!("../../../sdk/python/croupier/__init__.py"),
    ),
    (
        "croupier/durak.py",
        include_str!("../../../sdk/python/croupier/durak.py"),
    ),
    (
        "croupier/toepen.py",
        include_str!("../../../sdk/python/croupier/toepen.py"),
    ),
    (
        "croupier/uno.py",
        include_str!("../../../sdk/python/croupier/uno.py"),
    ),
];

/// Writes the SDK into `dir` (as `dir/croupier/`) and returns `dir`, for componentize-py's
/// module path.
pub fn write_sdk(dir: &Path) -> Result<PathBuf> {
    for (rel, text) in SDK_FILES {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(dir.to_path_buf())
}

/// Whether an agent directory carries its own copy of the SDK (`croupier new` writes one so
/// that the student's unit tests import it); the build then uses that copy.
pub fn has_own_sdk(agent_dir: &Path) -> bool {
    agent_dir.join("croupier/__init__.py").is_file()
}

fn app_py(game: GameKind) -> &'static str {
    match game {
        GameKind::Durak => include_str!("python/durak_app.py"),
        GameKind::Toepen => include_str!("python/toepen_app.py"),
        GameKind::Uno => include_str!("python/uno_app.py"),
    }
}

fn test_py(game: GameKind) -> &'static str {
    match game {
        GameKind::Durak => include_str!("python/durak_test.py"),
        GameKind::Toepen => include_str!("python/toepen_test.py"),
        GameKind::Uno => include_str!("python/uno_test.py"),
    }
}

/// Writes a Python agent project into `dir` (which the caller made and checked is new).
pub fn create(game: GameKind, name: &str, dir: &Path) -> Result<()> {
    let manifest = format!(
        "# A Croupier agent in Python: `croupier build .` makes it a component (componentize-py).\n\
         [agent]\ngame = \"{game}\"\nname = \"{name}\"\nlanguage = \"python\"\n\
         # The module that holds the agent (app.py).\nmodule = \"app\"\n"
    );
    let opponent = match game {
        GameKind::Durak => "durak/cheapest",
        GameKind::Toepen => "toepen/random",
        GameKind::Uno => "uno/primary",
    };
    let readme = format!(
        r#"# {name}

```sh
croupier build . --out agents
python3 -m unittest
croupier match {game} agents/{game}/{name}.wasm {opponent} --games 200
```

A {game} agent for Croupier, in Python. The strategy is in `app.py`: `decide` receives what
this seat may know (`obs`), the legal actions and a context (`ctx.rng`, `ctx.log`), and
returns one of the legal actions.

- `croupier build . --out agents` turns the project into a sandboxed WebAssembly component
  with componentize-py (`pip install croupier` brings it; else `pip install
  componentize-py==0.25.1`). The component imports nothing but the game; there is no file system,
  clock, network or `print` inside the sandbox: log with `ctx.log("...")`, the lines go into
  the game record.
- `python3 -m unittest` runs `test_app.py`, which tries the strategy on hand-made
  observations with plain Python.
- `croupier/` is the Croupier SDK (Card, Action and Observation types, helpers, the seeded
  generator). `help(croupier.{game})` in Python shows its documentation. `croupier build`
  uses this copy; delete it to build with the SDK of your `croupier` instead.
- `croupier validate agents/{game}/{name}.wasm` checks that it loads; `croupier agents`
  lists example agents to play against.
- Illegal actions, exceptions, endless loops and memory bombs lose the game.
"#
    );
    std::fs::write(dir.join("agent.toml"), manifest)?;
    std::fs::write(dir.join("app.py"), app_py(game))?;
    std::fs::write(dir.join("test_app.py"), test_py(game))?;
    std::fs::write(dir.join("README.md"), readme)?;
    std::fs::write(dir.join(".gitignore"), "/agents\n__pycache__/\n")?;
    write_sdk(dir)?;
    Ok(())
}
