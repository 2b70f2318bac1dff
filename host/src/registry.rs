//! Where agents are found: example agents by name (`durak/cheapest`), anything else by path.

use crate::loader::GameKind;
use std::path::{Path, PathBuf};

/// An agent as given on the command line: `NAME_OR_PATH[#ARGS]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentSpec {
    /// As typed, without the args.
    pub name: String,
    /// The agent file it resolved to.
    pub path: PathBuf,
    /// The text after `#`, passed to the agent at the start of each game; empty when none.
    pub args: String,
}

/// Why an agent argument names nothing usable.
#[derive(Debug, thiserror::Error)]
#[error(
    "unknown agent `{name}`: no such file, and no built example agent of that name (built: {known}); build the examples with `croupier build`"
)]
pub struct UnknownAgent {
    /// The name as given.
    pub name: String,
    /// The example agents that are built, or `none`.
    pub known: String,
}

/// Directories searched for example agents, in order: `$CROUPIER_AGENTS`, `agents/` next to
/// the `croupier` binary's target directory, `share/croupier/agents` of the prefix it is
/// installed in (where `pip install croupier` puts them: `bin/croupier` beside
/// `share/croupier/agents/`), and the workspace's `target/agents`.
pub fn agent_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("CROUPIER_AGENTS") {
        dirs.push(PathBuf::from(d));
    }
    if let Ok(exe) = std::env::current_exe()
        && let Some(profile_dir) = exe.parent()
        && let Some(target) = profile_dir.parent()
    {
        dirs.push(target.join("agents"));
        dirs.push(target.join("share/croupier/agents"));
    }
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/agents"));
    dirs.dedup();
    dirs
}

/// One built example agent.
#[derive(Clone, Debug)]
pub struct Example {
    /// The game it plays.
    pub game: GameKind,
    /// Its name within the game: the file name without `.wasm`.
    pub name: String,
    /// The built component file.
    pub path: PathBuf,
}

impl Example {
    /// Its name as typed on the command line: `game/name`, e.g. `durak/cheapest`.
    pub fn id(&self) -> String {
        format!("{}/{}", self.game, self.name)
    }
}

/// Every built example agent, first directory wins for a name.
pub fn examples() -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    for dir in agent_dirs() {
        for game in GameKind::ALL {
            let Ok(entries) = std::fs::read_dir(dir.join(game.name())) else {
                continue;
            };
            let mut found: Vec<Example> = entries
                .flatten()
                .filter_map(|e| {
                    let p = e.path();
                    let name = p.file_stem()?.to_str()?.to_string();
                    (p.extension()? == "wasm").then_some(Example {
                        game,
                        name,
                        path: p.clone(),
                    })
                })
                .collect();
            found.sort_by(|a, b| a.name.cmp(&b.name));
            for ex in found {
                if !out.iter().any(|o| o.id() == ex.id()) {
                    out.push(ex);
                }
            }
        }
    }
    out
}

/// Resolves `NAME_OR_PATH[#ARGS]`: an existing file wins, then a built example agent.
pub fn resolve(spec: &str) -> Result<AgentSpec, UnknownAgent> {
    let (name, args) = match spec.split_once('#') {
        Some((n, a)) => (n, a),
        None => (spec, ""),
    };
    let as_path = Path::new(name);
    if as_path.is_file() {
        return Ok(AgentSpec {
            name: name.to_string(),
            path: as_path.to_path_buf(),
            args: args.to_string(),
        });
    }
    let all = examples();
    if let Some(ex) = all.iter().find(|e| e.id() == name.to_ascii_lowercase()) {
        return Ok(AgentSpec {
            name: name.to_string(),
            path: ex.path.clone(),
            args: args.to_string(),
        });
    }
    Err(UnknownAgent {
        name: name.to_string(),
        known: if all.is_empty() {
            "none".into()
        } else {
            all.iter().map(Example::id).collect::<Vec<_>>().join(", ")
        },
    })
}
