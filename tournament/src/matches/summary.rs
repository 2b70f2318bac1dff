//! A match's totals, counted game by game as records arrive (`Tally`), and the summary
//! computed from them ([`MatchSummary`]): the same for a run, a resumed run and `merge`.

use super::log::LogHeader;
use crate::runner::{self, EntrantTotals, GameRecord};
use crate::stats;
use croupier_host::limits::Limits;
use croupier_host::loader::GameKind;
use serde::{Deserialize, Serialize};

/// One agent's line of a summary.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AgentSummary {
    /// The agent argument as given.
    pub name: String,
    /// Games counted for this agent: one per game and side it played.
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Games lost.
    pub losses: u64,
    /// Games neither won nor lost.
    pub draws: u64,
    /// Faults of this agent, in every seat it played.
    pub faults: u64,
    /// Faults counted by verdict name (e.g. `TIMEOUT`).
    pub faults_by_verdict: std::collections::BTreeMap<String, u64>,
    /// Wins over games, from 0 to 1.
    pub win_rate: f64,
    /// The 95% Wilson confidence interval of `win_rate`, as (low, high).
    pub win_rate_ci95: (f64, f64),
    /// Elo difference against the field implied by the score rate (wins + draws/2); only in a
    /// two-agent match. In a tournament's ranking, the Bradley–Terry rating (Elo scale, mean 0).
    pub elo: Option<f64>,
    /// Decisions this agent was asked, and the mean fuel per decision (`None` for a native
    /// agent or none asked): what a strategy costs, the same on every machine.
    #[serde(default)]
    pub decisions: u64,
    /// Mean fuel (roughly, WebAssembly instructions) per decision whose fuel is known; `None` for a
    /// native agent or when no decision was asked.
    #[serde(default)]
    pub fuel_per_decision: Option<f64>,
    /// The most fuel one decision burnt, in any game (`None` as for `fuel_per_decision`):
    /// the agent's margin to the per-decision limit.
    #[serde(default)]
    pub fuel_max: Option<u64>,
}

/// What `--json` writes.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatchSummary {
    /// The game played.
    pub game: GameKind,
    /// The preset the options start from.
    pub rules: String,
    /// Every rule option in force, as (name, value).
    pub options: Vec<(String, String)>,
    /// The master seed.
    pub seed: u64,
    /// Games played, resumed ones included.
    pub games: u64,
    /// Deals asked for (`--games`).
    pub deals: u64,
    /// Whether every deal was played once per seat rotation.
    pub duplicate: bool,
    /// The resource limits agents ran under.
    pub limits: Limits,
    /// One line per agent, in the order given.
    pub agents: Vec<AgentSummary>,
    /// Decisions asked of all agents (forced moves are not asked).
    pub decisions: u64,
    /// Games that did not end by the rules (the engine's safety limit or a rules-engine error).
    pub aborted: u64,
    /// Wall-clock time of this run's games, in seconds.
    pub elapsed_seconds: f64,
    /// Games played by this run (the others were resumed from the log); not in the JSON.
    #[serde(skip)]
    pub played: u64,
}

/// Running totals of a match, updated as each game ends, so that nothing per game is kept
/// in memory (a 10⁶-game match holds no more than a 10-game one).
pub(crate) struct Tally {
    totals: Vec<EntrantTotals>,
    games: u64,
    decisions: u64,
    aborted: u64,
}

impl Tally {
    pub(crate) fn new(names: &[String]) -> Tally {
        Tally {
            totals: names
                .iter()
                .map(|n| EntrantTotals {
                    name: n.clone(),
                    ..Default::default()
                })
                .collect(),
            games: 0,
            decisions: 0,
            aborted: 0,
        }
    }

    pub(crate) fn add(&mut self, r: &GameRecord) {
        runner::tally(&mut self.totals, r);
        self.games += 1;
        self.decisions += r.decisions;
        self.aborted += u64::from(r.aborted);
    }
}

/// A match's summary from its header and the tally of its records: the one place a match's
/// table and JSON are computed, for a run and for `merge` alike.
pub(crate) fn match_summary(
    header: &LogHeader,
    tally: Tally,
    elapsed_seconds: f64,
    played: u64,
) -> MatchSummary {
    let (games, decisions, aborted) = (tally.games, tally.decisions, tally.aborted);
    MatchSummary {
        game: header.game,
        rules: header.rules.clone(),
        options: header.options.clone(),
        seed: header.seed,
        games,
        deals: header.deals,
        duplicate: header.duplicate,
        limits: header.limits.clone(),
        agents: summarise(&header.agents, tally),
        decisions,
        aborted,
        elapsed_seconds,
        played,
    }
}

fn summarise(names: &[String], tally: Tally) -> Vec<AgentSummary> {
    let totals = tally.totals;
    let two = names.len() == 2;
    totals
        .into_iter()
        .map(|t| {
            let (lo, hi) = stats::wilson(t.wins, t.games);
            let score = if t.games == 0 {
                0.5
            } else {
                (t.wins as f64 + t.draws as f64 / 2.0) / t.games as f64
            };
            AgentSummary {
                win_rate: if t.games == 0 {
                    0.0
                } else {
                    t.wins as f64 / t.games as f64
                },
                win_rate_ci95: (lo, hi),
                elo: (two && t.games > 0).then(|| stats::elo_from_score(score) / 2.0),
                name: t.name,
                games: t.games,
                wins: t.wins,
                losses: t.losses,
                draws: t.draws,
                faults: t.faults,
                faults_by_verdict: t.faults_by_verdict,
                decisions: t.decisions,
                fuel_per_decision: (t.fuel_decisions > 0 && t.fuel > 0)
                    .then(|| t.fuel as f64 / t.fuel_decisions as f64),
                fuel_max: (t.fuel_max > 0).then_some(t.fuel_max),
            }
        })
        .collect()
}

/// A match's summary from its log header and every record, as the run that wrote them
/// computes it (less the wall time, which a log does not hold).
pub fn summary_of_run(header: &LogHeader, records: &[GameRecord]) -> MatchSummary {
    let mut tally = Tally::new(&header.agents);
    for r in records {
        tally.add(r);
    }
    match_summary(header, tally, 0.0, 0)
}
