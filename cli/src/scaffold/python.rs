//! Python agents: the `croupier` SDK module (compiled into this binary, so a build never
//! depends on where the source tree is) and `croupier new --lang python`.

use anyhow::{Context, Result};
use croupier_host::loader::GameKind;
use std::path::{Path, PathBuf};

/// The SDK's files that every game shares (`sdk/python/croupier/`), relative to the folder
/// that holds `croupier/`; each game's own file is in its module of
/// `croupier_tournament::games`.
const SHARED_SDK_FILES: &[(&str, &str)] = &[(
    "croupier/__init__.py",
    include_str!("../../../sdk/python/croupier/__init__.py"),
)];

/// Every file of the SDK: the shared ones, then each game's.
pub fn sdk_files() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    SHARED_SDK_FILES.iter().chain(
        GameKind::ALL
            .into_iter()
            .flat_map(|game| super::templates::new_files(game).python_sdk),
    )
}

/// Writes the SDK into `dir` (as `dir/croupier/`) and returns `dir`, for componentize-py's
/// module path.
pub fn write_sdk(dir: &Path) -> Result<PathBuf> {
    for (rel, text) in sdk_files() {
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

/// Writes a Python agent project into `dir` (which the caller made and checked is new).
pub fn create(game: GameKind, name: &str, dir: &Path) -> Result<()> {
    let manifest = format!(
        "# A Croupier agent in Python: `croupier build .` makes it a component (componentize-py).\n\
         [agent]\ngame = \"{game}\"\nname = \"{name}\"\nlanguage = \"python\"\n\
         # The module that holds the agent (app.py).\nmodule = \"app\"\n"
    );
    let opponent = super::templates::first_opponent(game);
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
    std::fs::write(
        dir.join("app.py"),
        super::templates::new_files(game).python_app,
    )?;
    std::fs::write(
        dir.join("test_app.py"),
        super::templates::new_files(game).python_test,
    )?;
    std::fs::write(dir.join("README.md"), readme)?;
    std::fs::write(dir.join(".gitignore"), "/agents\n__pycache__/\n")?;
    write_sdk(dir)?;
    Ok(())
}
