//! Every agent against every boss: one match each in duplicate deals, from a seed of its
//! own, counted per deal ([`crate::bosses`]). What `croupier tournament --bosses` and the
//! arena's final both call, so the two say the same of the same files and seed.

use super::error::MatchError;
use super::run::play_match;
use super::setup::{MatchArgs, options};
use crate::bosses::{Statement, Tally, duel, games_per_deal, statement};
use crate::runner::{GameRecord, Progress};
use croupier_host::Runtime;
use croupier_host::adapters::Adapter;
use croupier_host::loader::GameKind;
use croupier_rules::Rules;
use serde::{Deserialize, Serialize};
use std::sync::Mutex;

/// One agent's statements, one per boss in the order given.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AgentBosses {
    /// The agent, as given.
    pub agent: String,
    /// Against each boss.
    pub bosses: Vec<Statement>,
}

/// Every agent against every boss.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BossesSummary {
    /// The game played.
    pub game: GameKind,
    /// The preset the options start from.
    pub rules: String,
    /// The master seed; each (agent, boss) match's seed derives from it.
    pub seed: u64,
    /// Deals per agent and boss, each played once per seat rotation.
    pub deals: u64,
    /// The bosses, as given.
    pub bosses: Vec<String>,
    /// One line per agent, in the order given.
    pub agents: Vec<AgentBosses>,
}

/// A boss: the name it is shown by (and its badge's), and the agent that plays it (an
/// example agent's name or a file). `croupier tournament --bosses` gives the same for both;
/// the arena's final plays the stored build of a boss it names as arena.toml does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Boss {
    /// Shown, e.g. `durak/cheapest`.
    pub name: String,
    /// Played, e.g. `durak/cheapest` or a path.
    pub agent: String,
}

/// The master seed of agent `agent`'s match against boss `boss` (indices as given): apart
/// from a round robin's pairings, which derive from the same seed by their own numbers.
pub fn boss_seed(seed: u64, agent: usize, boss: usize) -> u64 {
    let stream = croupier_rules::GameRng::derive(seed ^ 0xB055_B055_B055_B055, agent as u64);
    croupier_rules::GameRng::derive(stream, boss as u64)
}

/// Plays every agent of `args.agents` against every boss, `args.games` deals each, always in
/// duplicate deals, with no log (the statements are the result). `on_agent` hears each
/// agent's statements as they are complete.
pub fn run_bosses<G: Adapter>(
    host: &Runtime,
    args: &MatchArgs,
    bosses: &[Boss],
    progress: &dyn Progress,
    on_agent: &mut dyn FnMut(&AgentBosses),
) -> Result<BossesSummary, MatchError> {
    if args.agents.is_empty() {
        return Err(MatchError::NoAgents);
    }
    let (preset, opts) = options::<G>(&args.rules)?;
    let k = games_per_deal(opts.seats());
    let mut agents = Vec::new();
    for (i, agent) in args.agents.iter().enumerate() {
        let mut line = AgentBosses {
            agent: agent.clone(),
            bosses: Vec::new(),
        };
        for (j, boss) in bosses.iter().enumerate() {
            let mut m = args.clone();
            m.agents = vec![agent.clone(), boss.agent.clone()];
            m.seed = boss_seed(args.seed, i, j);
            m.duplicate = true;
            m.log = None;
            m.resume = false;
            m.shard = None;
            m.watch = false;
            let tally = Mutex::new(Tally::default());
            let count = |rec: &GameRecord| {
                let seats = rec.seats.iter().copied().zip(rec.results.iter().copied());
                if let (Some(d), Ok(mut t)) = (duel(seats, &0, &1), tally.lock()) {
                    t.add(d);
                }
                progress.game_done(rec);
            };
            play_match::<G>(host, &m, None, &count, std::sync::Arc::new(|_| {}))?;
            let t = tally.into_inner().unwrap_or_default();
            line.bosses.push(statement(&boss.name, &t, k));
        }
        on_agent(&line);
        agents.push(line);
    }
    Ok(BossesSummary {
        game: G::KIND,
        rules: preset,
        seed: args.seed,
        deals: args.games,
        bosses: bosses.iter().map(|b| b.name.clone()).collect(),
        agents,
    })
}
