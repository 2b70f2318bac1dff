//! The commands behind the CLI, generic over games: options from presets and `--set`,
//! agents from names or files, matches with logs and summaries, tournaments, replays, soaks.

use crate::adapters::Adapter;
use crate::cache::Cache;
use crate::ledger;
use crate::limits::Limits;
use crate::loader::{self, GameKind, LoadedComponent};
use crate::player::{PlayerFactory, StartInfo, StartRules, WasmFactory};
use crate::registry;
use crate::runner::{self, Entrant, EntrantTotals, FaultPolicy, GameRecord, Progress, Schedule};
use crate::sandbox;
use crate::stats;
use anyhow::{Context, Result, bail};
use croupier_rules::Game;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use wasmtime::Engine;

/// An error the user can fix (bad agent, preset, option, file): printed as one line, exit 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UserError(pub String);

pub fn user(msg: impl Into<String>) -> anyhow::Error {
    UserError(msg.into()).into()
}

/// The rule options of a command line.
#[derive(Clone, Debug, Default)]
pub struct RulesArgs {
    pub rules: Option<String>,
    pub players: Option<usize>,
    pub set: Vec<String>,
}

/// Options from a preset, `--players` and every `--set NAME=VALUE`, validated.
pub fn options<G: Game>(args: &RulesArgs) -> Result<(String, G::Options)> {
    let preset = match &args.rules {
        Some(r) => r.clone(),
        None => G::presets()
            .first()
            .map(|p| p.name.to_string())
            .context("game has no presets")?,
    };
    let mut opts = G::preset(&preset).map_err(|e| user(format!("--rules: {e}")))?;
    if let Some(n) = args.players {
        G::set_players(&mut opts, n).map_err(|e| user(format!("--players: {e}")))?;
    }
    for kv in &args.set {
        let Some((k, v)) = kv.split_once('=') else {
            return Err(user(format!("--set `{kv}`: expected NAME=VALUE")));
        };
        G::set_option(&mut opts, k.trim(), v.trim()).map_err(|e| user(format!("--set: {e}")))?;
    }
    G::validate(&opts).map_err(|e| user(format!("rules `{preset}`: {e}")))?;
    Ok((preset, opts))
}

/// The engine and cache every command shares.
#[derive(Clone)]
pub struct Host {
    pub engine: Engine,
    pub cache: Cache,
    pub limits: Limits,
}

impl Host {
    pub fn new(limits: Limits, use_cache: bool) -> Result<Host> {
        let engine = crate::engine::shared(&limits)?;
        let cache = if use_cache {
            match Cache::default_dir().map(Cache::at) {
                Some(Ok(c)) => c,
                Some(Err(why)) => {
                    eprintln!("warning: compiled-agent cache disabled: {why}");
                    Cache::disabled()
                }
                None => Cache::disabled(),
            }
        } else {
            Cache::disabled()
        };
        Ok(Host {
            engine,
            cache,
            limits,
        })
    }

    /// Loads an agent argument for game `G`, checking its world, linking it and giving it
    /// a trial run under `opts`.
    pub fn entrant<G: Adapter>(&self, spec: &str, opts: &G::Options) -> Result<Entrant<G>> {
        let agent = registry::resolve(spec).map_err(|e| user(e.to_string()))?;
        let loaded = loader::load(&self.engine, &self.cache, &self.limits, &agent.path)
            .map_err(|e| user(e.to_string()))?;
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
        let factory = self.factory::<G>(&loaded, opts, &agent.args)?;
        Ok(Entrant {
            name: spec.to_string(),
            args: agent.args,
            factory,
        })
    }

    /// Links a loaded component for game `G` and gives it one trial run: an instance is
    /// made and `start` is called under the limits, with `opts` and `args` as in a game.
    /// This type-checks every export against the world exactly (the bindings' typed
    /// functions) and runs any core start function, so an agent that could never play (a
    /// `decide` of the wrong type, a start function that traps or loops) is refused here,
    /// with its reason, instead of faulting in every game.
    pub fn factory<G: Adapter>(
        &self,
        loaded: &LoadedComponent,
        opts: &G::Options,
        args: &str,
    ) -> Result<Arc<dyn PlayerFactory<G>>> {
        let link_error = |e: wasmtime::Error| {
            user(
                loader::LoadError::Link {
                    path: loaded.path.clone(),
                    reason: crate::text::escape(&format!("{e:#}")),
                }
                .to_string(),
            )
        };
        let linker = sandbox::linker::<G>(&self.engine)?;
        let pre = linker
            .instantiate_pre(&loaded.component)
            .map_err(link_error)?;
        let pre = G::pre(pre, &loaded.version).map_err(link_error)?;
        let factory = WasmFactory::<G> {
            id: loaded.build.clone(),
            engine: self.engine.clone(),
            pre,
            limits: self.limits.clone(),
        };
        let trial = |f: crate::verdict::Fault| {
            user(
                loader::LoadError::Trial {
                    path: loaded.path.clone(),
                    fault: f,
                }
                .to_string(),
            )
        };
        let mut agent = match factory.make(0) {
            Ok(a) => a,
            Err(sandbox::MakeError::Agent(f)) => return Err(trial(f)),
            Err(sandbox::MakeError::Host(e)) => bail!("the host ran out of resources: {e}"),
        };
        agent
            .start(&StartInfo {
                seat: 0,
                players: G::seats(opts) as u8,
                rules: StartRules::new::<G>(opts),
                seed: 0,
                args: args.to_string(),
            })
            .map_err(trial)?;
        Ok(Arc::new(factory))
    }

    /// [`Host::factory`] under the game's default rules and no agent arguments: what
    /// `croupier validate` checks.
    pub fn factory_default<G: Adapter>(
        &self,
        loaded: &LoadedComponent,
    ) -> Result<Arc<dyn PlayerFactory<G>>> {
        let opts = options::<G>(&RulesArgs::default())?.1;
        self.factory::<G>(loaded, &opts, "")
    }
}

/// Everything `croupier match` needs.
#[derive(Clone, Debug)]
pub struct MatchArgs {
    pub agents: Vec<String>,
    pub rules: RulesArgs,
    pub games: u64,
    pub seed: u64,
    pub threads: usize,
    pub duplicate: bool,
    pub json: Option<PathBuf>,
    pub log: Option<PathBuf>,
    pub resume: bool,
    pub policy: FaultPolicy,
    pub progress: bool,
    pub quiet: bool,
    /// Reload an agent whose file changes, from the next game on (`--watch`).
    pub watch: bool,
}

/// The first line of a run in a log file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogHeader {
    #[serde(rename = "type")]
    pub kind: String,
    pub game: GameKind,
    pub rules: String,
    pub options: Vec<(String, String)>,
    pub seed: u64,
    pub deals: u64,
    pub duplicate: bool,
    pub agents: Vec<String>,
    pub limits: Limits,
    pub policy: FaultPolicy,
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
    pub name: String,
    pub games: u64,
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    pub faults: u64,
    pub faults_by_verdict: std::collections::BTreeMap<String, u64>,
    pub win_rate: f64,
    pub win_rate_ci95: (f64, f64),
    /// Elo difference against the field implied by the score rate (wins + draws/2).
    pub elo: Option<f64>,
    /// Decisions this agent was asked, and the mean fuel per decision (`None` for a native
    /// agent or none asked): what a strategy costs, the same on every machine.
    #[serde(default)]
    pub decisions: u64,
    #[serde(default)]
    pub fuel_per_decision: Option<f64>,
}

/// What `--json` writes.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatchSummary {
    pub game: GameKind,
    pub rules: String,
    pub options: Vec<(String, String)>,
    pub seed: u64,
    pub games: u64,
    pub deals: u64,
    pub duplicate: bool,
    pub limits: Limits,
    pub agents: Vec<AgentSummary>,
    pub decisions: u64,
    pub aborted: u64,
    pub elapsed_seconds: f64,
}

/// Running totals of a match, updated as each game ends, so that nothing per game is kept
/// in memory (a 10⁶-game match holds no more than a 10-game one).
struct Tally {
    totals: Vec<EntrantTotals>,
    games: u64,
    decisions: u64,
    aborted: u64,
}

impl Tally {
    fn new(names: &[String]) -> Tally {
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

    fn add(&mut self, r: &GameRecord) {
        runner::tally(&mut self.totals, r);
        self.games += 1;
        self.decisions += r.decisions;
        self.aborted += u64::from(r.aborted);
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

/// Renders the per-agent table.
pub fn table(agents: &[AgentSummary]) -> String {
    let w = agents
        .iter()
        .map(|a| a.name.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let mut s = format!(
        "{:<w$}  {:>6} {:>6} {:>6} {:>6}  {:>6}  {:>15}  {:>6}  {:>9}  faults\n",
        "agent", "games", "wins", "losses", "draws", "win%", "95% CI", "Elo", "fuel/dec"
    );
    for a in agents {
        let faults = if a.faults == 0 {
            "0".to_string()
        } else {
            a.faults_by_verdict
                .iter()
                .map(|(k, v)| format!("{k}×{v}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        s += &format!(
            "{:<w$}  {:>6} {:>6} {:>6} {:>6}  {:>5.1}%  {:>6.1}% – {:>5.1}%  {:>6}  {:>9}  {}\n",
            a.name,
            a.games,
            a.wins,
            a.losses,
            a.draws,
            100.0 * a.win_rate,
            100.0 * a.win_rate_ci95.0,
            100.0 * a.win_rate_ci95.1,
            a.elo
                .map(|e| format!("{e:+.0}"))
                .unwrap_or_else(|| "-".into()),
            a.fuel_per_decision
                .map(human_count)
                .unwrap_or_else(|| "-".into()),
            faults
        );
    }
    s
}

/// `950`, `12.3k`, `4.56M`: fuel figures span six orders of magnitude between agents.
fn human_count(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.2}G", x / 1e9),
        x if x >= 1e6 => format!("{:.2}M", x / 1e6),
        x if x >= 1e4 => format!("{:.1}k", x / 1e3),
        x => format!("{x:.0}"),
    }
}

/// A progress bar over `len` games on stderr (hidden when stderr is not a terminal).
fn games_bar(len: u64) -> indicatif::ProgressBar {
    let b = indicatif::ProgressBar::new(len);
    b.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} {pos}/{len} games [{elapsed_precise}] {bar:30} {rate} eta {eta}",
        )
        .map(|style| {
            style.with_key(
                "rate",
                |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.0} games/s", state.per_sec());
                },
            )
        })
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    b.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    b
}

struct Bar(Option<indicatif::ProgressBar>);

impl Progress for Bar {
    fn game_done(&self, _: &GameRecord) {
        if let Some(b) = &self.0 {
            b.inc(1);
        }
    }
}

/// Reads the records of an earlier run of the same match from a log, for `--resume`: adds
/// them to `tally` one at a time and returns the indices played. Cuts a torn last line so
/// that appending continues cleanly.
fn read_resume(path: &Path, header: &LogHeader, tally: &mut Tally) -> Result<BTreeSet<u64>> {
    let Ok(file) = std::fs::File::open(path) else {
        return Ok(BTreeSet::new());
    };
    // The latest matching run wins: an earlier one in the same file is forgotten.
    let mut run = Tally::new(&header.agents);
    let mut done: BTreeSet<u64> = BTreeSet::new();
    let mut in_run = false;
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
    if done.is_empty() && !in_run {
        bail!(user(format!(
            "{}: --resume found no earlier run of this match (same game, rules, seed, games and agents)",
            path.display()
        )));
    }
    *tally = run;
    Ok(done)
}

/// `croupier match`: plays the games, prints the table, writes the JSON and the log.
pub fn run_match<G: Adapter>(host: &Host, args: &MatchArgs) -> Result<MatchSummary> {
    let (preset, opts) = options::<G>(&args.rules)?;
    if args.agents.is_empty() {
        bail!(user("give at least one AGENT"));
    }
    let mut entrants: Vec<Entrant<G>> = args
        .agents
        .iter()
        .map(|a| host.entrant::<G>(a, &opts))
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
        let (slots, watcher) = crate::watch::watch::<G>(host.clone(), opts.clone(), files);
        for (e, slot) in entrants.iter_mut().zip(slots) {
            e.factory = slot;
        }
        Some(watcher)
    } else {
        None
    };
    let seats = G::seats(&opts);
    let schedule = Schedule::new(entrants.len(), seats, args.games, args.duplicate);
    let header = LogHeader {
        kind: "match".into(),
        game: G::KIND,
        rules: preset.clone(),
        options: G::option_pairs(&opts),
        seed: args.seed,
        deals: args.games,
        duplicate: args.duplicate,
        agents: args.agents.clone(),
        limits: host.limits.clone(),
        policy: args.policy,
    };
    let mut tally = Tally::new(&args.agents);
    let mut done = BTreeSet::new();
    if args.resume {
        let Some(path) = &args.log else {
            bail!(user("--resume needs --log FILE"));
        };
        done = read_resume(path, &header, &mut tally)?;
    }
    let todo: Vec<u64> = (0..schedule.games())
        .filter(|i| !done.contains(i))
        .collect();
    let mut log = match &args.log {
        Some(path) => {
            let f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| user(format!("{}: cannot open the log: {e}", path.display())))?;
            let mut w = std::io::BufWriter::new(f);
            if !args.resume {
                serde_json::to_writer(&mut w, &header)?;
                w.write_all(b"\n")?;
                w.flush()?;
            }
            Some(w)
        }
        None => None,
    };
    let bar = if args.progress && todo.len() >= 200 {
        Bar(Some(games_bar(todo.len() as u64)))
    } else {
        Bar(None)
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
    let elapsed = runner::run::<G>(&plan, &todo, &bar, &mut sink)?;
    if let Some(b) = &bar.0 {
        b.finish_and_clear();
    }
    let (games, decisions, aborted) = (tally.games, tally.decisions, tally.aborted);
    let agents = summarise(&args.agents, tally);
    let summary = MatchSummary {
        game: G::KIND,
        rules: preset,
        options: G::option_pairs(&opts),
        seed: args.seed,
        games,
        deals: args.games,
        duplicate: args.duplicate,
        limits: host.limits.clone(),
        agents,
        decisions,
        aborted,
        elapsed_seconds: elapsed.as_secs_f64(),
    };
    if !args.quiet {
        print_summary(&summary, elapsed, todo.len());
    }
    if let Some(path) = &args.json {
        write_json(path, &summary)?;
    }
    Ok(summary)
}

fn print_summary(s: &MatchSummary, elapsed: Duration, played: usize) {
    let rate = played as f64 / elapsed.as_secs_f64().max(1e-9);
    println!(
        "{} ({}) · {} games{} · seed {} · {:.3} s ({:.0} games/s){}",
        s.game,
        s.rules,
        s.games,
        if s.duplicate { " (duplicate)" } else { "" },
        s.seed,
        elapsed.as_secs_f64(),
        rate,
        if s.aborted > 0 {
            format!(" · {} aborted by a safety limit", s.aborted)
        } else {
            String::new()
        }
    );
    print!("{}", table(&s.agents));
}

pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let text = serde_json::to_string_pretty(value)?;
    if path == Path::new("-") {
        println!("{text}");
        return Ok(());
    }
    std::fs::write(path, text + "\n").map_err(|e| {
        user(format!(
            "{}: cannot write the JSON summary: {e}",
            path.display()
        ))
    })
}

/// One pairing of a tournament.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Pairing {
    pub a: String,
    pub b: String,
    pub a_wins: u64,
    pub b_wins: u64,
    pub draws: u64,
    pub games: u64,
}

/// What `croupier tournament --json` writes.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TournamentSummary {
    pub game: GameKind,
    pub rules: String,
    pub seed: u64,
    pub games_per_pairing: u64,
    pub pairings: Vec<Pairing>,
    /// Best first, by Bradley–Terry rating.
    pub ranking: Vec<AgentSummary>,
}

/// `croupier tournament`: every pair of agents plays a match (seats filled in turn and
/// rotated); the ranking is a Bradley–Terry fit of all pairwise scores.
pub fn run_tournament<G: Adapter>(host: &Host, args: &MatchArgs) -> Result<TournamentSummary> {
    let n = args.agents.len();
    if n < 2 {
        bail!(user("a tournament needs at least two agents"));
    }
    let (preset, _) = options::<G>(&args.rules)?;
    let mut score = vec![vec![0.0; n]; n];
    let mut games = vec![vec![0.0; n]; n];
    let mut totals: Vec<AgentSummary> = Vec::new();
    let mut pairings = Vec::new();
    let mut k = 0u64;
    for i in 0..n {
        for j in i + 1..n {
            let mut m = args.clone();
            m.agents = vec![args.agents[i].clone(), args.agents[j].clone()];
            m.seed = croupier_rules::GameRng::derive(args.seed, k);
            m.json = None;
            m.quiet = true;
            k += 1;
            let s = run_match::<G>(host, &m)?;
            let (a, b) = (&s.agents[0], &s.agents[1]);
            let pts = |x: &AgentSummary| x.wins as f64 + x.draws as f64 / 2.0;
            let units = s.games as f64;
            score[i][j] += pts(a) / a.games.max(1) as f64 * units;
            score[j][i] += pts(b) / b.games.max(1) as f64 * units;
            games[i][j] += units;
            games[j][i] += units;
            pairings.push(Pairing {
                a: a.name.clone(),
                b: b.name.clone(),
                a_wins: a.wins,
                b_wins: b.wins,
                draws: s.games.saturating_sub(a.wins + b.wins),
                games: s.games,
            });
            if !args.quiet {
                println!(
                    "{:>24} vs {:<24} {:>5}-{:<5} ({} draws)",
                    a.name,
                    b.name,
                    a.wins,
                    b.wins,
                    s.games.saturating_sub(a.wins + b.wins)
                );
            }
            for x in [a, b] {
                match totals.iter_mut().find(|t| t.name == x.name) {
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
                    None => totals.push(x.clone()),
                }
            }
        }
    }
    let ratings = stats::bradley_terry(&score, &games);
    for t in totals.iter_mut() {
        let (lo, hi) = stats::wilson(t.wins, t.games);
        t.win_rate = t.wins as f64 / t.games.max(1) as f64;
        t.win_rate_ci95 = (lo, hi);
        let idx = args.agents.iter().position(|a| *a == t.name).unwrap_or(0);
        t.elo = Some(ratings[idx]);
    }
    totals.sort_by(|a, b| {
        b.elo
            .unwrap_or(0.0)
            .partial_cmp(&a.elo.unwrap_or(0.0))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let summary = TournamentSummary {
        game: G::KIND,
        rules: preset,
        seed: args.seed,
        games_per_pairing: args.games,
        pairings,
        ranking: totals,
    };
    if !args.quiet {
        println!(
            "\n{} ({}) round robin · {} games per pairing · seed {}",
            summary.game, summary.rules, args.games, args.seed
        );
        print!("{}", table(&summary.ranking));
        println!("(Elo: Bradley–Terry fit over all pairings, mean 0)");
    }
    if let Some(path) = &args.json {
        write_json(path, &summary)?;
    }
    Ok(summary)
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

/// `croupier replay`: one logged game move by move, as a spectator (or one seat) saw it.
pub fn replay<G: Game>(
    header: &LogHeader,
    rec: &GameRecord,
    seat: Option<u8>,
    out: &mut dyn Write,
) -> Result<()> {
    let opts = croupier_sdk::options_from_pairs::<G>(&header.options)
        .map_err(|e| user(format!("log options: {e}")))?;
    let mut game = G::new(&opts, rec.seed).map_err(|e| user(e.to_string()))?;
    writeln!(
        out,
        "{} ({}) · game {} · deal {} · seed {}",
        header.game, header.rules, rec.index, rec.deal, rec.seed
    )?;
    for (s, e) in rec.seats.iter().enumerate() {
        writeln!(
            out,
            "  P{s}: {}",
            crate::text::escape(header.agents.get(*e).map(String::as_str).unwrap_or("?"))
        )?;
    }
    let visible = |vis: croupier_rules::Visibility| match seat {
        None => vis.is_public(),
        Some(s) => vis.visible_to(s),
    };
    let mut shown = 0;
    let mut print_new = |game: &G, out: &mut dyn Write| -> Result<()> {
        for ev in &game.events()[shown..] {
            if visible(ev.vis) {
                writeln!(out, "  {}", ev.event)?;
            }
        }
        shown = game.events().len();
        Ok(())
    };
    print_new(&game, out)?;
    for (i, code) in rec.actions.iter().enumerate() {
        let Some(a) = G::decode_action(*code) else {
            bail!(user(format!(
                "game {}: action {i} ({code:#x}) does not decode",
                rec.index
            )));
        };
        game.apply(a).map_err(|e| {
            user(format!(
                "game {}: action {i} does not replay: {e}",
                rec.index
            ))
        })?;
        print_new(&game, out)?;
        for f in rec
            .faults
            .iter()
            .filter(|f| f.at == i + 1 && rec.forfeit.is_none())
        {
            writeln!(
                out,
                "  ! P{} fault {}: {}",
                f.seat,
                f.verdict,
                // Escaped when recorded; again here, since a log file may come from anywhere.
                crate::text::escape(&f.message)
            )?;
        }
    }
    for f in &rec.faults {
        if rec.forfeit.is_some() || f.at == 0 {
            writeln!(
                out,
                "  ! P{} fault {}: {}",
                f.seat,
                f.verdict,
                // Escaped when recorded; again here, since a log file may come from anywhere.
                crate::text::escape(&f.message)
            )?;
        }
    }
    writeln!(out, "result: {}", rec.summary)?;
    Ok(())
}

/// Where a soak starts in the seed's sequence of games.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SoakStart {
    /// Games `K..K + games`: game `i` always has seed `derive(seed, i)`, so a long soak can
    /// be run in parts that check exactly the games one run would.
    At(u64),
    /// At the first game the `record` ledger has no part for (`--next`), stopping short of
    /// games already checked and of game `until`: a long soak resumed by the same command.
    Next { until: Option<u64> },
}

/// What `croupier soak` runs.
pub struct SoakArgs {
    pub start: SoakStart,
    /// At most this many games.
    pub games: u64,
    pub seed: u64,
    pub threads: usize,
    /// Check a sample of the actions per state instead of all of them.
    pub sample: bool,
    pub progress: bool,
    /// Append one JSON line with the result to this file (a ledger of the parts of a long
    /// soak).
    pub record: Option<PathBuf>,
}

/// `croupier soak`: random games with every invariant checked in every state.
pub fn soak<G: Game>(rules: &RulesArgs, args: &SoakArgs) -> Result<u64> {
    let &SoakArgs {
        start,
        games,
        seed,
        threads,
        sample,
        progress,
        ..
    } = args;
    let (preset, opts) = options::<G>(rules)?;
    let check = if sample { "sample" } else { "exact" };
    let (first, games) = match start {
        SoakStart::At(first) => {
            if first.checked_add(games).is_none() {
                return Err(user("--first K plus --games N is past the last game index"));
            }
            (first, games)
        }
        SoakStart::Next { until } => {
            let path = args
                .record
                .as_deref()
                .ok_or_else(|| user("--next needs --record FILE, the ledger to continue"))?;
            let records = if path.exists() {
                ledger::read(path)?
            } else {
                Vec::new()
            };
            let option_pairs = G::option_pairs(&opts);
            let key = ledger::SoakKey {
                game: G::NAME,
                preset: &preset,
                options: &option_pairs,
                seed,
                check,
            };
            let (from, checked_from) = ledger::next_unchecked(&records, &key);
            let stop = [Some(from.saturating_add(games)), checked_from, until]
                .into_iter()
                .flatten()
                .min()
                .unwrap_or(from);
            if stop <= from {
                println!(
                    "{} ({preset}): nothing left to check, games 0..{from} are in {}",
                    G::NAME,
                    path.display()
                );
                return Ok(0);
            }
            (from, stop - from)
        }
    };
    // Opened before the run, so that a bad path fails now and not after hours of checking.
    let mut ledger = args
        .record
        .as_deref()
        .map(ledger::Ledger::open)
        .transpose()?;
    // Exact by default: the issue asks for `legal_actions` to be exact in every state.
    let cfg = croupier_rules::check::CheckConfig {
        illegal_samples: if sample { Some(4) } else { None },
        legal_samples: if sample { Some(1) } else { None },
        ..Default::default()
    };
    let threads = threads.max(1) as u64;
    let start = std::time::Instant::now();
    // Drawn only on a terminal (indicatif hides it elsewhere), so logs stay clean.
    let bar = if progress {
        games_bar(games)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let chunk = games.div_ceil(threads);
    let results: Vec<croupier_rules::check::SoakTotals> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let from = t * chunk;
                let count = chunk.min(games.saturating_sub(from));
                let (opts, cfg, bar) = (&opts, &cfg, &bar);
                s.spawn(move || {
                    croupier_rules::check::soak_reporting::<G>(
                        opts,
                        seed,
                        first + from,
                        count,
                        cfg,
                        &|| bar.inc(1),
                    )
                })
            })
            .collect();
        // The checker catches a game's panic itself; a thread that still fails to join
        // must not silently take its games' totals with it.
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| anyhow::anyhow!("a soak thread panicked; its games are unchecked"))
            })
            .collect::<Result<Vec<_>>>()
    })?;
    bar.finish_and_clear();
    let elapsed = start.elapsed().as_secs_f64();
    let mut t = croupier_rules::check::SoakTotals::default();
    for r in results {
        t.games += r.games;
        t.decisions += r.decisions;
        t.aborted += r.aborted;
        t.violations.extend(r.violations);
    }
    // Recorded before anything is printed: a part can take hours, and a closed stdout (a
    // killed pipeline) must not lose it.
    if let Some(ledger) = ledger.as_mut() {
        let rec = ledger::SoakRecord {
            game: G::NAME.into(),
            preset: preset.clone(),
            options: G::option_pairs(&opts),
            seed,
            first,
            games: t.games,
            check: check.into(),
            decisions: t.decisions,
            aborted: t.aborted,
            violations: t.violations.len() as u64,
            first_violations: t.violations.iter().take(5).map(|v| v.to_string()).collect(),
            seconds: elapsed,
            threads,
            croupier: env!("CARGO_PKG_VERSION").into(),
            finished: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
        };
        ledger.append(&rec)?;
    }
    // A part of a longer run names its range, so the parts can be put together.
    let range = if first > 0 {
        format!(" (games {first}..{})", first + games)
    } else {
        String::new()
    };
    println!(
        "{} ({preset}){range}: {} games in {:.2} s, {:.0} games/s, {} decisions, {} aborted by a safety limit",
        G::NAME,
        t.games,
        elapsed,
        t.games as f64 / elapsed.max(1e-9),
        t.decisions,
        t.aborted
    );
    for v in t.violations.iter().take(5) {
        println!("violation: {v}");
    }
    println!("{} violations", t.violations.len());
    Ok(t.violations.len() as u64)
}
