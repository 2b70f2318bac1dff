//! What a match is asked to be, and what it is set up from: [`MatchArgs`] (the one way in,
//! plain data), the rule options from a preset and settings ([`options`]), and an entrant from
//! an agent's name or file ([`entrant`]).

use super::error::user;
use crate::runner::{Entrant, FaultPolicy};
use crate::shard::Shard;
use anyhow::{Context, Result};
use croupier_host::Runtime;
use croupier_host::adapters::Adapter;
use croupier_host::loader;
use croupier_host::registry;
use croupier_rules::{Game, Rules};
use std::path::PathBuf;

/// The rule options of a command line.
#[derive(Clone, Debug, Default)]
pub struct RulesArgs {
    /// A preset by name; the game's first by default.
    pub rules: Option<String>,
    /// The number of seats, when the game lets it vary.
    pub players: Option<usize>,
    /// `NAME=VALUE` option settings, applied in order.
    pub set: Vec<String>,
}

/// Options from a preset, `--players` and every `--set NAME=VALUE`, validated.
pub fn options<G: Game>(args: &RulesArgs) -> Result<(String, G::Options)> {
    let preset = match &args.rules {
        Some(r) => r.clone(),
        None => G::Options::presets()
            .first()
            .map(|p| p.name.to_string())
            .context("game has no presets")?,
    };
    let mut opts = G::Options::preset(&preset).map_err(|e| user(format!("--rules: {e}")))?;
    if let Some(n) = args.players {
        opts.set_players(n)
            .map_err(|e| user(format!("--players: {e}")))?;
    }
    for kv in &args.set {
        let Some((k, v)) = kv.split_once('=') else {
            return Err(user(format!("--set `{kv}`: expected NAME=VALUE")));
        };
        opts.set_option(k.trim(), v.trim())
            .map_err(|e| user(format!("--set: {e}")))?;
    }
    opts.validate()
        .map_err(|e| user(format!("rules `{preset}`: {e}")))?;
    Ok((preset, opts))
}

/// Loads an agent argument (an example agent's name or a file, with `#ARGS`) for game `G`:
/// checks its world, links it and gives it a trial run under `opts`.
pub fn entrant<G: Adapter>(rt: &Runtime, spec: &str, opts: &G::Options) -> Result<Entrant<G>> {
    let agent = registry::resolve(spec).map_err(|e| user(e.to_string()))?;
    let loaded = rt.load(&agent.path).map_err(|e| user(e.to_string()))?;
    if loaded.game != G::KIND {
        return Err(user(
            loader::LoadError::WrongGame {
                path: agent.path.clone(),
                found: loaded.game,
                expected: G::KIND,
            }
            .to_string(),
        ));
    }
    let factory = rt
        .factory::<G>(&loaded, opts, &agent.args)
        .map_err(|e| user(e.to_string()))?;
    Ok(Entrant {
        name: spec.to_string(),
        args: agent.args,
        factory,
    })
}

/// Everything `croupier match` needs.
#[derive(Clone, Debug)]
pub struct MatchArgs {
    /// The agent arguments as given: example agent names or files, each with an optional `#ARGS`.
    pub agents: Vec<String>,
    /// The rule options.
    pub rules: RulesArgs,
    /// Deals to play (`--games`); with `duplicate`, each deal is played once per seat rotation.
    pub games: u64,
    /// The master seed: every deal and every agent's seed derives from it.
    pub seed: u64,
    /// Worker threads, at least one; fewer are used when there are fewer games or instance slots.
    pub threads: usize,
    /// Play every deal once per seat rotation (`--duplicate`), so luck of the deal evens out.
    pub duplicate: bool,
    /// The log file (`--log`): a header line, then one JSON line per game, appended.
    pub log: Option<PathBuf>,
    /// Continue the latest run of this match in `log`, playing only the games it lacks
    /// (`--resume`).
    pub resume: bool,
    /// What happens when an agent faults.
    pub policy: FaultPolicy,
    /// Reload an agent whose file changes, from the next game on (`--watch`).
    pub watch: bool,
    /// Play only this part of the games (`--shard K/N`), for `merge` to put back together.
    pub shard: Option<Shard>,
}
