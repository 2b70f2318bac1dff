//! `croupier policy export`: a trained policy (a safetensors network, docs/learning.md) into an
//! agent component, checked as any agent is before it is written.

use super::{RulesFlags, game, with_game};
use crate::errors::user;
use crate::policy_embed;
use anyhow::Result;
use clap::{Args, Subcommand};
use croupier_host::limits::Limits;
use croupier_host::{loader, registry};
use croupier_policy::Mlp;
use croupier_rules::encode::{self, Encode};
use std::path::{Path, PathBuf};

/// Turn a trained policy into an agent.
#[derive(Args)]
pub struct PolicyCommand {
    #[command(subcommand)]
    command: PolicySub,
}

#[derive(Subcommand)]
enum PolicySub {
    /// Embed a safetensors network in a policy agent component, checked and ready to play.
    Export(ExportArgs),
}

#[derive(Args)]
struct ExportArgs {
    /// The network: `layers.{i}.weight` and `layers.{i}.bias` (f32), ReLU between layers.
    model: PathBuf,
    /// The game (default: the file's `game` metadata).
    #[arg(long)]
    game: Option<String>,
    #[command(flatten)]
    rules: RulesFlags,
    /// Where to write `GAME/NAME.wasm`.
    #[arg(long, default_value = "agents")]
    out: PathBuf,
    /// The agent's name (default: the model file's name without its extension).
    #[arg(long)]
    name: Option<String>,
    /// The policy agent's component to embed it in (default: the one built beside the
    /// example agents, `croupier build policy/agents/GAME --out target/policy`).
    #[arg(long)]
    template: Option<PathBuf>,
}

impl PolicyCommand {
    /// Runs the subcommand.
    pub fn execute(&self) -> Result<()> {
        match &self.command {
            PolicySub::Export(a) => export(a),
        }
    }
}

fn export(a: &ExportArgs) -> Result<()> {
    let shown = a.model.display();
    let bytes = std::fs::read(&a.model).map_err(|e| user(format!("{shown}: {e}")))?;
    let mlp = Mlp::from_safetensors(&bytes).map_err(|e| user(format!("{shown}: {e}")))?;
    let meta = mlp.metadata();
    let game_name = match (&a.game, meta.get("game")) {
        (Some(g), Some(m)) if g != m => {
            return Err(user(format!(
                "{shown}: trained for {m} (its `game` metadata), not {g}"
            )));
        }
        (Some(g), _) | (None, Some(g)) => g.clone(),
        (None, None) => {
            return Err(user(format!(
                "{shown}: no `game` metadata: say which game with --game"
            )));
        }
    };
    let kind = game(&game_name)?;
    // The rules: the flags, else the file's metadata.
    let mut rules = a.rules.args();
    if rules.rules.is_none() {
        rules.rules = meta.get("rules").cloned();
    }
    if rules.players.is_none() {
        rules.players = meta.get("players").and_then(|p| p.parse().ok());
    }
    if rules.set.is_empty()
        && let Some(o) = meta.get("options")
    {
        rules.set = o
            .split(',')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
    }
    let (obs_len, num_actions) = with_game!(kind, G => shape::<G>(&rules))?;
    if mlp.inputs() != obs_len || mlp.outputs() != num_actions {
        return Err(user(format!(
            "{shown}: the network reads {} values and scores {} actions, but {} under these rules has {obs_len} observation values and {num_actions} actions (docs/learning.md)",
            mlp.inputs(),
            mlp.outputs(),
            kind.name()
        )));
    }
    let template = match &a.template {
        Some(t) => t.clone(),
        None => find_template(kind.name())?,
    };
    let base =
        std::fs::read(&template).map_err(|e| user(format!("{}: {e}", template.display())))?;
    let component = policy_embed::embed(&base, &bytes)
        .map_err(|e| user(format!("{}: {e}", template.display())))?;
    let name = match &a.name {
        Some(n) => n.clone(),
        None => a
            .model
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("policy")
            .to_string(),
    };
    let dir = a.out.join(kind.name());
    std::fs::create_dir_all(&dir).map_err(|e| user(format!("{}: {e}", dir.display())))?;
    let path = dir.join(format!("{name}.wasm"));
    std::fs::write(&path, &component).map_err(|e| user(format!("{}: {e}", path.display())))?;
    // The checks every agent meets: load, link, a trial start under the default limits.
    let host = super::runtime(Limits::default(), true)?;
    let loaded = loader::load(&host.engine, &host.cache, &host.limits, &path)
        .map_err(|e| user(format!("{}: {e}", path.display())))?;
    with_game!(kind, G => host.factory_default::<G>(&loaded).map(drop))
        .map_err(|e| user(e.to_string()))?;
    let sizes: Vec<String> = mlp.sizes().iter().map(usize::to_string).collect();
    println!(
        "{}: ok: {} policy {} ({} multiply-adds a decision), {} KB",
        path.display(),
        kind.name(),
        sizes.join("x"),
        mlp.multiply_adds(),
        component.len() / 1024
    );
    Ok(())
}

/// The observation length and action count of `G` under `rules`.
fn shape<G: Encode>(rules: &croupier_tournament::matches::RulesArgs) -> Result<(usize, usize)> {
    let (_, opts) = croupier_tournament::matches::setup::options::<G>(rules)
        .map_err(crate::errors::of_options)?;
    let len = encode::obs_len::<G>(&opts).map_err(|e| user(e.to_string()))?;
    Ok((len, G::num_actions(&opts)))
}

/// The built policy agent of `game`: `policy/GAME/policy.wasm` beside each folder of example
/// agents (`target/policy` beside `target/agents`; `share/croupier/policy` in a wheel).
fn find_template(game: &str) -> Result<PathBuf> {
    let candidates: Vec<PathBuf> = registry::agent_dirs()
        .iter()
        .filter_map(|d| d.parent().map(Path::to_path_buf))
        .map(|p| p.join("policy").join(game).join("policy.wasm"))
        .collect();
    candidates.iter().find(|p| p.is_file()).cloned().ok_or_else(|| {
        user(format!(
            "no built policy agent for {game} (looked for {}); build it with `croupier build policy/agents/{game} --out target/policy`, or name one with --template",
            candidates
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}
