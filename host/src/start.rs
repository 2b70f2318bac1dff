//! What a seat is told at the start of a game, in the forms the contract versions send it: a
//! leaf, so the contract bindings read it without importing the player or the sandbox.

use croupier_rules::{Game, Rules};
use std::sync::Arc;

/// What a seat is told at the start of a game.
#[derive(Clone, Debug)]
pub struct StartInfo {
    /// This seat's number, from 0.
    pub seat: u8,
    /// How many seats the game has.
    pub players: u8,
    /// The match's rule options.
    pub rules: StartRules,
    /// This seat's seed for this game; the agent's `random` import is already seeded from it.
    pub seed: u64,
    /// Free text given after `#` on the command line, e.g. `iters=500`.
    pub args: String,
}

/// A match's rule options in the forms agents are sent them, computed once per match and
/// shared by every seat of every game.
#[derive(Clone, Debug)]
pub struct StartRules {
    /// Every option as (name, value): contract 0.1.0 and native agents.
    pub all: Arc<[(String, String)]>,
    /// The closest preset and the options that differ from it: contract 0.2.0, where a
    /// preset played as it is costs an agent no parsing at all.
    pub preset: Arc<str>,
    /// The options that differ from `preset`, as (name, value); empty when the preset is
    /// played as it is.
    pub overrides: Arc<[(String, String)]>,
}

impl StartRules {
    /// The forms agents are sent for `opts`: every option, and the preset that the fewest
    /// options differ from, with the options that do.
    pub fn new<G: Game>(opts: &G::Options) -> StartRules {
        let all = opts.option_pairs();
        let mut best: Option<(&str, Vec<(String, String)>)> = None;
        for p in G::Options::presets() {
            let Ok(preset) = G::Options::preset(p.name) else {
                continue;
            };
            let base = preset.option_pairs();
            let diff: Vec<(String, String)> = all
                .iter()
                .filter(|kv| !base.contains(kv))
                .cloned()
                .collect();
            if best.as_ref().is_none_or(|(_, d)| diff.len() < d.len()) {
                best = Some((p.name, diff));
            }
        }
        // Every game has presets; without one, the agent gets every option as an override
        // of an empty preset name, which it refuses loudly.
        let (preset, overrides) = best.unwrap_or(("", all.clone()));
        StartRules {
            preset: preset.into(),
            overrides: overrides.into(),
            all: all.into(),
        }
    }
}
