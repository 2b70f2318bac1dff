//! What a match is asked to be, and what it is set up from: [`MatchArgs`] (the one way in,
//! plain data), the rule options from a preset and settings ([`options`]), and an entrant from
//! an agent's name or file ([`entrant`]).

use super::error::{EntrantError, OptionsError};
use crate::runner::{Entrant, FaultPolicy};
use crate::shard::Shard;
use croupier_host::Runtime;
use croupier_host::adapters::Adapter;
use croupier_host::loader;
use croupier_host::registry;
use croupier_rules::{Game, Rules};
use std::path::PathBuf;

/// The rule settings of a match, as a command line or a config gives them.
#[derive(Clone, Debug, Default)]
pub struct RulesArgs {
    /// A preset by name; the game's first by default.
    pub rules: Option<String>,
    /// The number of seats, when the game lets it vary.
    pub players: Option<usize>,
    /// `NAME=VALUE` option settings, applied in order.
    pub set: Vec<String>,
}

/// Options from the preset `rules`, `players` and every `set` item `NAME=VALUE`, validated;
/// with the preset's name.
pub fn options<G: Game>(args: &RulesArgs) -> Result<(String, G::Options), OptionsError> {
    let preset = match &args.rules {
        Some(r) => r.clone(),
        None => G::Options::presets()
            .first()
            .map(|p| p.name.to_string())
            .ok_or(OptionsError::NoPresets)?,
    };
    let mut opts = G::Options::preset(&preset).map_err(|e| OptionsError::Rules(e.to_string()))?;
    if let Some(n) = args.players {
        opts.set_players(n)
            .map_err(|e| OptionsError::Players(e.to_string()))?;
    }
    for kv in &args.set {
        let Some((k, v)) = kv.split_once('=') else {
            return Err(OptionsError::SetSyntax(kv.clone()));
        };
        opts.set_option(k.trim(), v.trim())
            .map_err(|e| OptionsError::Set(e.to_string()))?;
    }
    opts.validate().map_err(|e| OptionsError::Invalid {
        preset: preset.clone(),
        reason: e.to_string(),
    })?;
    Ok((preset, opts))
}

/// Loads an agent argument (an example agent's name or a file, with `#ARGS`) for game `G`:
/// checks its world, links it and gives it a trial run under `opts`.
pub fn entrant<G: Adapter>(
    host: &Runtime,
    spec: &str,
    opts: &G::Options,
) -> Result<Entrant<G>, EntrantError> {
    let agent = registry::resolve(spec).map_err(EntrantError::Unknown)?;
    let loaded = host.load(&agent.path).map_err(EntrantError::Load)?;
    if loaded.game != G::KIND {
        return Err(EntrantError::Load(loader::LoadError::WrongGame {
            path: agent.path.clone(),
            found: loaded.game,
            expected: G::KIND,
        }));
    }
    let factory = host
        .factory::<G>(&loaded, opts, &agent.args)
        .map_err(EntrantError::Load)?;
    Ok(Entrant {
        name: spec.to_string(),
        args: agent.args,
        factory,
    })
}

/// A match as plain data, the one way in: what `croupier match` fills from its flags (named
/// beside each field), the arena from its config and a test from a helper.
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

#[cfg(test)]
mod tests {
    use super::*;
    use croupier_rules::durak::Durak;

    fn with(rules: Option<&str>, players: Option<usize>, set: &[&str]) -> RulesArgs {
        RulesArgs {
            rules: rules.map(Into::into),
            players,
            set: set.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Each bad setting is refused as the error of its own field.
    #[test]
    fn a_bad_setting_is_refused_by_its_field() {
        let refused = |args: RulesArgs| options::<Durak>(&args).err();
        assert!(
            matches!(refused(with(Some("nope"), None, &[])), Some(OptionsError::Rules(m)) if m.contains("`nope`"))
        );
        assert!(matches!(
            refused(with(None, Some(1000), &[])),
            Some(OptionsError::Players(_))
        ));
        assert_eq!(
            refused(with(None, None, &["transfer"])),
            Some(OptionsError::SetSyntax("transfer".into()))
        );
        assert!(
            matches!(refused(with(None, None, &["colour=red"])), Some(OptionsError::Set(m)) if m.contains("`colour`"))
        );
        // Nine players is a number of seats, but not one this preset's deck deals to.
        assert!(matches!(
            refused(with(Some("classic"), Some(9), &[])),
            Some(OptionsError::Invalid { preset, .. }) if preset == "classic"
        ));
        let (preset, _) = options::<Durak>(&RulesArgs::default()).expect("the first preset");
        assert_eq!(preset, "classic");
    }
}
