//! Round robins: every pair of agents plays a match, seats filled in turn and rotated, and
//! the ranking is a Bradley–Terry fit of all pairwise scores. Played here
//! ([`run_tournament`]), or elsewhere by plan ([`round_robin_plan`]) and summed up from the
//! runs ([`tournament_of_runs`]), it gives the same table.

use super::error::MatchError;
use super::log::LogHeader;
use super::run::play_match;
use super::setup::{MatchArgs, options};
use super::summary::{AgentSummary, MatchSummary, summary_of_run};
use crate::runner::{GameRecord, Progress};
use crate::shard::TournamentOf;
use crate::stats;
use croupier_host::Runtime;
use croupier_host::adapters::Adapter;
use croupier_host::loader::GameKind;
use serde::{Deserialize, Serialize};

/// One pairing of a tournament.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Pairing {
    /// The first agent, as given.
    pub a: String,
    /// The second agent, as given.
    pub b: String,
    /// Games the first agent won.
    pub a_wins: u64,
    /// Games the second agent won.
    pub b_wins: u64,
    /// Games neither won.
    pub draws: u64,
    /// Games played in the pairing.
    pub games: u64,
}

/// What `croupier tournament --json` writes.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TournamentSummary {
    /// The game played.
    pub game: GameKind,
    /// The preset the options start from.
    pub rules: String,
    /// The master seed; each pairing's seed derives from it.
    pub seed: u64,
    /// Deals per pairing (`--games`).
    pub games_per_pairing: u64,
    /// Every pairing, in the order played.
    pub pairings: Vec<Pairing>,
    /// Best first, by Bradley–Terry rating.
    pub ranking: Vec<AgentSummary>,
}

/// `croupier tournament`: every pair of agents plays a match (seats filled in turn and
/// rotated); the ranking is a Bradley–Terry fit of all pairwise scores.
pub fn run_tournament<G: Adapter>(
    host: &Runtime,
    args: &MatchArgs,
) -> Result<TournamentSummary, MatchError> {
    run_tournament_with::<G>(host, args, &(), &mut |_| {})
}

/// [`run_tournament`] with a progress callback (per game, across pairings) and a callback per
/// finished pairing.
pub fn run_tournament_with<G: Adapter>(
    host: &Runtime,
    args: &MatchArgs,
    progress: &dyn Progress,
    on_pairing: &mut dyn FnMut(&Pairing),
) -> Result<TournamentSummary, MatchError> {
    let n = args.agents.len();
    if n < 2 {
        return Err(MatchError::TooFewAgents { given: n });
    }
    let (preset, _) = options::<G>(&args.rules)?;
    let of = TournamentOf {
        seed: args.seed,
        agents: args.agents.clone(),
    };
    let mut robin = RoundRobin::new(&args.agents);
    for (k, (i, j)) in pairings(n).into_iter().enumerate() {
        let mut m = args.clone();
        m.agents = vec![args.agents[i].clone(), args.agents[j].clone()];
        m.seed = pairing_seed(args.seed, k as u64);
        let s = play_match::<G>(host, &m, Some(&of), progress, std::sync::Arc::new(|_| {}))?;
        on_pairing(robin.add(i, j, &s));
    }
    Ok(robin.finish(G::KIND, preset, args.seed, args.games))
}

/// The pairings of a round robin of `n` agents, in the order they are played: (i, j), i < j.
pub(crate) fn pairings(n: usize) -> Vec<(usize, usize)> {
    (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect()
}

/// The master seed of a tournament's `k`-th pairing.
pub(crate) fn pairing_seed(seed: u64, k: u64) -> u64 {
    croupier_rules::GameRng::derive(seed, k)
}

/// A round robin's ranking built pairing by pairing from the pairings' match summaries: the
/// one place a tournament's table and JSON are computed, for a run and for `merge` alike.
pub(crate) struct RoundRobin {
    agents: Vec<String>,
    score: Vec<Vec<f64>>,
    games: Vec<Vec<f64>>,
    totals: Vec<AgentSummary>,
    pairings: Vec<Pairing>,
}

impl RoundRobin {
    pub(crate) fn new(agents: &[String]) -> RoundRobin {
        let n = agents.len();
        RoundRobin {
            agents: agents.to_vec(),
            score: vec![vec![0.0; n]; n],
            games: vec![vec![0.0; n]; n],
            totals: Vec::new(),
            pairings: Vec::new(),
        }
    }

    /// Adds the match of agents `i` and `j`; returns its pairing line.
    pub(crate) fn add(&mut self, i: usize, j: usize, s: &MatchSummary) -> &Pairing {
        let (a, b) = (&s.agents[0], &s.agents[1]);
        let pts = |x: &AgentSummary| x.wins as f64 + x.draws as f64 / 2.0;
        let units = s.games as f64;
        self.score[i][j] += pts(a) / a.games.max(1) as f64 * units;
        self.score[j][i] += pts(b) / b.games.max(1) as f64 * units;
        self.games[i][j] += units;
        self.games[j][i] += units;
        for x in [a, b] {
            match self.totals.iter_mut().find(|t| t.name == x.name) {
                Some(t) => {
                    t.games += x.games;
                    t.wins += x.wins;
                    t.losses += x.losses;
                    t.draws += x.draws;
                    t.faults += x.faults;
                    for (v, c) in &x.faults_by_verdict {
                        *t.faults_by_verdict.entry(v.clone()).or_default() += c;
                    }
                }
                None => self.totals.push(x.clone()),
            }
        }
        self.pairings.push(Pairing {
            a: a.name.clone(),
            b: b.name.clone(),
            a_wins: a.wins,
            b_wins: b.wins,
            draws: s.games.saturating_sub(a.wins + b.wins),
            games: s.games,
        });
        &self.pairings[self.pairings.len() - 1]
    }

    /// The ranking: Bradley–Terry over every pairing's scores, best first.
    pub(crate) fn finish(
        self,
        game: GameKind,
        rules: String,
        seed: u64,
        games_per_pairing: u64,
    ) -> TournamentSummary {
        let ratings = stats::bradley_terry(&self.score, &self.games);
        let mut totals = self.totals;
        for t in totals.iter_mut() {
            let (lo, hi) = stats::wilson(t.wins, t.games);
            t.win_rate = t.wins as f64 / t.games.max(1) as f64;
            t.win_rate_ci95 = (lo, hi);
            let idx = self.agents.iter().position(|a| *a == t.name).unwrap_or(0);
            t.elo = Some(ratings[idx]);
        }
        totals.sort_by(|a, b| {
            b.elo
                .unwrap_or(0.0)
                .partial_cmp(&a.elo.unwrap_or(0.0))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        TournamentSummary {
            game,
            rules,
            seed,
            games_per_pairing,
            pairings: self.pairings,
            ranking: totals,
        }
    }
}

/// The master seed of pairing `k` of a round robin from `seed`, and its two agents' indices,
/// in the order `croupier tournament` plays them: what a tournament played elsewhere (the
/// arena's workers) must play to give the same table.
pub fn round_robin_plan(seed: u64, agents: usize) -> Vec<(u64, usize, usize)> {
    pairings(agents)
        .into_iter()
        .enumerate()
        .map(|(k, (i, j))| (pairing_seed(seed, k as u64), i, j))
        .collect()
}

/// A round robin's summary from its runs, one per pairing in [`round_robin_plan`] order:
/// the same table and JSON as `croupier tournament` gives when it plays them itself.
pub fn tournament_of_runs(
    seed: u64,
    agents: &[String],
    runs: &[(LogHeader, Vec<GameRecord>)],
) -> Result<TournamentSummary, MatchError> {
    let plan = round_robin_plan(seed, agents.len());
    if runs.len() != plan.len() {
        return Err(MatchError::Pairings {
            agents: agents.len(),
            pairings: plan.len(),
            runs: runs.len(),
        });
    }
    let Some((first, _)) = runs.first() else {
        return Err(MatchError::TooFewAgents {
            given: agents.len(),
        });
    };
    let mut robin = RoundRobin::new(agents);
    for ((_, i, j), (header, records)) in plan.iter().zip(runs) {
        robin.add(*i, *j, &summary_of_run(header, records));
    }
    Ok(robin.finish(first.game, first.rules.clone(), seed, first.deals))
}
