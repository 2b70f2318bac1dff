//! Matches and tournaments as a library, generic over games: options from presets and
//! `--set`, entrants from names or files, matches with logs, resume and summaries,
//! round-robin tournaments, and reading and replaying logs. Nothing here prints: progress,
//! pairings and watcher reports go to callbacks, and the caller renders the summaries.
//!
//! One way in: a [`MatchArgs`], plain data that the command line fills from its flags, the
//! arena from its config and a test from a helper, given to [`run_match`] or
//! [`run_match_with`] (or to [`run_tournament`]). A builder beside it was a second way to
//! say the same thing, used only by tests.

use crate::runner::{self, Entrant, EntrantTotals, FaultPolicy, GameRecord, Progress, Schedule};
use crate::shard::{Shard, ShardHeader, TournamentOf};
use crate::stats;
use anyhow::{Context, Result, bail};
use croupier_host::Runtime;
use croupier_host::adapters::Adapter;
use croupier_host::limits::Limits;
use croupier_host::loader::{self, GameKind};
use croupier_host::registry;
use croupier_rules::{Game, Rules};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// An error the user can fix (bad agent, preset, option, file): printed as one line, exit 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UserError(pub String);

/// A [`UserError`] as an `anyhow::Error`.
pub fn user(msg: impl Into<String>) -> anyhow::Error {
    UserError(msg.into()).into()
}

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

/// The first line of a run in a log file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogHeader {
    /// The line type: always `match` (game lines are `game`).
    #[serde(rename = "type")]
    pub kind: String,
    /// The game played.
    pub game: GameKind,
    /// The preset the options start from.
    pub rules: String,
    /// Every rule option in force, as (name, value).
    pub options: Vec<(String, String)>,
    /// The master seed.
    pub seed: u64,
    /// Deals to play (`--games`).
    pub deals: u64,
    /// Whether every deal is played once per seat rotation.
    pub duplicate: bool,
    /// The agent arguments as given, in entrant order.
    pub agents: Vec<String>,
    /// The resource limits agents ran under.
    pub limits: Limits,
    /// What happens when an agent faults.
    pub policy: FaultPolicy,
    /// Only in a shard's log (`--shard K/N`): which part this is, and what `merge` checks
    /// the parts against each other with. Absent otherwise, so unsharded logs are unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardHeader>,
    /// Only in a log an arena wrote (`croupier arena export`, a game's log from the arena's
    /// API): the arena's number of the match, which `croupier replay --match` picks by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena_match: Option<u64>,
}

/// A game's line in a log file (without the newline): what `read_log` reads back. A server
/// that hands out single games writes them this way.
pub fn game_line(rec: &GameRecord) -> serde_json::Result<String> {
    serde_json::to_string(&LogGame {
        kind: "game".into(),
        record: rec.clone(),
    })
}

#[derive(Serialize, Deserialize)]
struct LogGame {
    #[serde(rename = "type")]
    kind: String,
    #[serde(flatten)]
    record: GameRecord,
}

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
            }
        })
        .collect()
}

/// Reads the records of an earlier run of the same match from a log, for `--resume`: adds
/// them to `tally` one at a time and returns the indices played, or `None` when the log
/// holds no run of this match (or does not exist). Cuts a torn last line so that appending
/// continues cleanly.
fn read_resume(
    path: &Path,
    header: &LogHeader,
    tally: &mut Tally,
) -> Result<Option<BTreeSet<u64>>> {
    let Ok(file) = std::fs::File::open(path) else {
        return Ok(None);
    };
    // The latest matching run wins: an earlier one in the same file is forgotten.
    let mut run = Tally::new(&header.agents);
    let mut done: BTreeSet<u64> = BTreeSet::new();
    let mut in_run = false;
    let mut found = false;
    let mut good_len = 0u64;
    let mut pos = 0u64;
    let mut reader = std::io::BufReader::new(file);
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader
            .read_line(&mut line)
            .with_context(|| format!("{}: cannot read the log", path.display()))?;
        if n == 0 {
            break;
        }
        pos += n as u64;
        if !line.ends_with('\n') {
            break; // torn write: dropped below
        }
        good_len = pos;
        let v: serde_json::Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => bail!(user(format!("{}: line is not JSON: {e}", path.display()))),
        };
        match v.get("type").and_then(|t| t.as_str()) {
            Some("match") => {
                let h: LogHeader = serde_json::from_value(v)
                    .with_context(|| format!("{}: bad match header", path.display()))?;
                in_run = h == *header;
                if in_run {
                    found = true;
                    run = Tally::new(&header.agents);
                    done.clear();
                }
            }
            Some("game") if in_run => {
                let g: LogGame = serde_json::from_value(v)
                    .with_context(|| format!("{}: bad game record", path.display()))?;
                if done.insert(g.record.index) {
                    run.add(&g.record);
                }
            }
            _ => {}
        }
    }
    let len = std::fs::metadata(path)?.len();
    if good_len < len {
        let f = std::fs::OpenOptions::new().write(true).open(path)?;
        f.set_len(good_len)?;
    }
    if !found {
        return Ok(None);
    }
    *tally = run;
    Ok(Some(done))
}

/// `croupier match` as a library call: plays the games, writes the log, returns the totals.
pub fn run_match<G: Adapter>(host: &Runtime, args: &MatchArgs) -> Result<MatchSummary, MatchError> {
    run_match_with::<G>(host, args, &(), std::sync::Arc::new(|_| {}))
}

/// [`run_match`] with a progress callback (once per finished game, from the worker that
/// played it; a closure `Fn(&GameRecord)` will do) and a place for the watcher's reports
/// (`--watch`: a swap, a refused build).
pub fn run_match_with<G: Adapter>(
    host: &Runtime,
    args: &MatchArgs,
    progress: &dyn Progress,
    report: crate::watch::Report,
) -> Result<MatchSummary, MatchError> {
    Ok(play_match::<G>(host, args, None, progress, report)?)
}

/// The one match runner behind [`run_match_with`] and each pairing of a tournament: a match
/// on its own (`tournament` is `None`) or as one pairing, whose shard logs then name the
/// tournament so that `merge` can rebuild its ranking.
fn play_match<G: Adapter>(
    host: &Runtime,
    args: &MatchArgs,
    tournament: Option<&TournamentOf>,
    progress: &dyn Progress,
    report: crate::watch::Report,
) -> Result<MatchSummary> {
    let (_, opts) = options::<G>(&args.rules)?;
    if args.agents.is_empty() {
        bail!(user("give at least one AGENT"));
    }
    let mut entrants: Vec<Entrant<G>> = args
        .agents
        .iter()
        .map(|a| entrant::<G>(host, a, &opts))
        .collect::<Result<_>>()?;
    let _watcher = if args.watch {
        let files = args
            .agents
            .iter()
            .zip(&entrants)
            .map(|(a, e)| {
                let path = registry::resolve(a).map_err(|e| user(e.to_string()))?.path;
                Ok((path, e.factory.clone()))
            })
            .collect::<Result<Vec<_>>>()?;
        let (slots, watcher) = crate::watch::watch::<G>(host.clone(), opts.clone(), report, files);
        for (e, slot) in entrants.iter_mut().zip(slots) {
            e.factory = slot;
        }
        Some(watcher)
    } else {
        None
    };
    let seats = opts.seats();
    let schedule = Schedule::new(entrants.len(), seats, args.games, args.duplicate);
    // A shard plays a contiguous run of whole deals, so the rotations of a duplicate deal
    // stay together and the shards' games are exactly the unsharded games.
    let games = match args.shard {
        Some(shard) => schedule.games_of_deals(shard.deals(args.games)),
        None => 0..schedule.games(),
    };
    let mut header = log_header::<G>(&host.limits, args)?;
    header.shard = args.shard.map(|shard| ShardHeader {
        index: shard.index,
        count: shard.count,
        first: games.start,
        end: games.end,
        total: schedule.games(),
        builds: entrants.iter().map(|e| e.factory.build_id()).collect(),
        tournament: tournament.cloned(),
    });
    let mut tally = Tally::new(&args.agents);
    let mut done = BTreeSet::new();
    let mut fresh = true;
    if args.resume {
        let Some(path) = &args.log else {
            bail!(user("--resume needs --log FILE"));
        };
        match read_resume(path, &header, &mut tally)? {
            Some(d) => {
                done = d;
                fresh = false;
            }
            // Nothing to continue: a missing log (a batch job's first attempt) or a
            // tournament pairing not reached before the interruption starts afresh.
            None if !path.exists() || tournament.is_some() => {}
            None => bail!(user(format!(
                "{}: --resume found no earlier run of this match (same game, rules, seed, games, agents and shard)",
                path.display()
            ))),
        }
    }
    let todo: Vec<u64> = games.filter(|i| !done.contains(i)).collect();
    let mut log = match &args.log {
        Some(path) => {
            let f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| user(format!("{}: cannot open the log: {e}", path.display())))?;
            let mut w = std::io::BufWriter::new(f);
            if fresh {
                serde_json::to_writer(&mut w, &header)?;
                w.write_all(b"\n")?;
                w.flush()?;
            }
            Some(w)
        }
        None => None,
    };
    let log_path = args.log.clone();
    // Each record is written and counted as its game ends, then dropped: a match's memory
    // does not grow with its length (hardening finding 4).
    let mut sink = |rec: GameRecord| -> Result<()> {
        if let Some(w) = log.as_mut() {
            let line = LogGame {
                kind: "game".into(),
                record: rec,
            };
            serde_json::to_writer(&mut *w, &line)?;
            w.write_all(b"\n")?;
            // Flush per game: an interrupted run keeps every game it finished.
            w.flush().with_context(|| {
                format!(
                    "{}: cannot write the log",
                    log_path.as_deref().unwrap_or(Path::new("")).display()
                )
            })?;
            tally.add(&line.record);
        } else {
            tally.add(&rec);
        }
        Ok(())
    };
    let plan = runner::Plan {
        options: &opts,
        entrants: &entrants,
        schedule: &schedule,
        seed: args.seed,
        policy: args.policy,
        threads: args.threads,
    };
    let elapsed = runner::run::<G>(&plan, &todo, progress, &mut sink)?;
    Ok(match_summary(
        &header,
        tally,
        elapsed.as_secs_f64(),
        todo.len() as u64,
    ))
}

/// Why a match ([`run_match`], [`run_match_with`]) did not run to the end.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// Something the caller can fix and should be told in one line: an agent that does not
    /// load or is for another game, an unknown preset or option, a log that cannot be opened,
    /// `resume` without an earlier run.
    #[error(transparent)]
    User(#[from] UserError),
    /// Anything else: the log could not be written, a rules engine failed, a thread panicked.
    #[error(transparent)]
    Run(anyhow::Error),
}

impl From<anyhow::Error> for MatchError {
    fn from(e: anyhow::Error) -> MatchError {
        // The runner reports fixable errors as `UserError`s inside `anyhow`; they get their
        // own variant so that a caller can match on them instead of downcasting.
        match e.downcast::<UserError>() {
            Ok(u) => MatchError::User(u),
            Err(e) => MatchError::Run(e),
        }
    }
}

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
pub fn run_tournament<G: Adapter>(host: &Runtime, args: &MatchArgs) -> Result<TournamentSummary> {
    run_tournament_with::<G>(host, args, &(), &mut |_| {})
}

/// [`run_tournament`] with a progress callback (per game, across pairings) and a callback per
/// finished pairing.
pub fn run_tournament_with<G: Adapter>(
    host: &Runtime,
    args: &MatchArgs,
    progress: &dyn Progress,
    on_pairing: &mut dyn FnMut(&Pairing),
) -> Result<TournamentSummary> {
    let n = args.agents.len();
    if n < 2 {
        bail!(user("a tournament needs at least two agents"));
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

/// The header a match writes to its log, without running it: the same as
/// `croupier match` (and each pairing of `croupier tournament`) writes for these arguments.
pub fn log_header<G: Adapter>(limits: &Limits, args: &MatchArgs) -> Result<LogHeader> {
    let (preset, opts) = options::<G>(&args.rules)?;
    Ok(LogHeader {
        kind: "match".into(),
        game: G::KIND,
        rules: preset,
        options: opts.option_pairs(),
        seed: args.seed,
        deals: args.games,
        duplicate: args.duplicate,
        agents: args.agents.clone(),
        limits: limits.clone(),
        policy: args.policy,
        shard: None,
        arena_match: None,
    })
}

/// Writes runs exactly as a run writes its log: per run, its header line and one line per
/// game. `merge` and the arena's final (played by workers) write their logs with it.
pub fn write_runs(
    runs: &[(LogHeader, Vec<GameRecord>)],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    for (header, records) in runs {
        serde_json::to_writer(&mut *out, header)?;
        out.write_all(b"\n")?;
        for rec in records {
            out.write_all(game_line(rec)?.as_bytes())?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
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

/// A round robin's summary from its runs, one per pairing in [`round_robin_plan`] order:
/// the same table and JSON as `croupier tournament` gives when it plays them itself.
pub fn tournament_of_runs(
    seed: u64,
    agents: &[String],
    runs: &[(LogHeader, Vec<GameRecord>)],
) -> Result<TournamentSummary> {
    let plan = round_robin_plan(seed, agents.len());
    if runs.len() != plan.len() {
        bail!(
            "a round robin of {} agents has {} pairings, not {}",
            agents.len(),
            plan.len(),
            runs.len()
        );
    }
    let Some((first, _)) = runs.first() else {
        bail!(user("a tournament needs at least two agents"));
    };
    let mut robin = RoundRobin::new(agents);
    for ((_, i, j), (header, records)) in plan.iter().zip(runs) {
        robin.add(*i, *j, &summary_of_run(header, records));
    }
    Ok(robin.finish(first.game, first.rules.clone(), seed, first.deals))
}

/// The header and records of a log file, grouped by run.
pub fn read_log(path: &Path) -> Result<Vec<(LogHeader, Vec<GameRecord>)>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| user(format!("{}: cannot read the log: {e}", path.display())))?;
    let mut runs: Vec<(LogHeader, Vec<GameRecord>)> = Vec::new();
    for (no, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| {
            user(format!(
                "{}:{}: not a JSON line: {e}",
                path.display(),
                no + 1
            ))
        })?;
        match v.get("type").and_then(|t| t.as_str()) {
            Some("match") => {
                let h: LogHeader = serde_json::from_value(v).map_err(|e| {
                    user(format!(
                        "{}:{}: bad match header: {e}",
                        path.display(),
                        no + 1
                    ))
                })?;
                runs.push((h, Vec::new()));
            }
            Some("game") => {
                let g: LogGame = serde_json::from_value(v).map_err(|e| {
                    user(format!(
                        "{}:{}: bad game record: {e}",
                        path.display(),
                        no + 1
                    ))
                })?;
                match runs.last_mut() {
                    Some(run) => run.1.push(g.record),
                    None => bail!(user(format!(
                        "{}:{}: game record before any match header",
                        path.display(),
                        no + 1
                    ))),
                }
            }
            _ => bail!(user(format!(
                "{}:{}: unknown line type (expected \"match\" or \"game\")",
                path.display(),
                no + 1
            ))),
        }
    }
    if runs.is_empty() {
        bail!(user(format!("{}: no match in this log", path.display())));
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_errors_keep_their_own_variant() {
        let e = MatchError::from(user("--rules: unknown preset `x`"));
        assert!(matches!(&e, MatchError::User(_)), "{e:?}");
        assert_eq!(e.to_string(), "--rules: unknown preset `x`");
        // Context added on the way up does not hide that the caller can fix it.
        let e = MatchError::from(user("bad agent").context("loading"));
        assert!(matches!(e, MatchError::User(_)), "{e:?}");
        let e = MatchError::from(anyhow::anyhow!("disk full"));
        assert!(matches!(e, MatchError::Run(_)), "{e:?}");
    }
}
