//! `croupier`: run card-game agents as sandboxed WebAssembly components.

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use croupier_host::driver::{self, Host, MatchArgs, RulesArgs, UserError};
use croupier_host::limits::Limits;
use croupier_host::loader::{self, GameKind};
use croupier_host::runner::FaultPolicy;
use croupier_host::verdict::Verdict;
use croupier_host::{componentize, registry};
use croupier_rules::durak::Durak;
use croupier_rules::toepen::Toepen;
use croupier_rules::uno::Uno;
use std::path::PathBuf;
use std::process::ExitCode;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "croupier",
    version,
    about = "Runs card-game agents (Durak, Toepen, UNO) as sandboxed WebAssembly components",
    after_help = "Agents are .wasm component files or built example agents by name (durak/cheapest); \
                  `croupier agents` lists them. Append #ARGS to pass text to an agent: durak/ismcts#iters=200."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play N games between agents and print a table per agent.
    Match(MatchCmd),
    /// Round robin: every pair of agents plays a match; prints a ranking.
    Tournament(MatchCmd),
    /// Say which world and version a component implements, or exactly why it cannot load.
    Validate {
        /// A .wasm file or an example agent name.
        agent: String,
    },
    /// List the example agents that are built, with their game and language.
    Agents,
    /// Show a logged game move by move, as a spectator saw it.
    Replay {
        /// A log written by `match --log`.
        file: PathBuf,
        /// The game's index in the run (default: the first game of the last run).
        #[arg(long)]
        game: Option<u64>,
        /// Show what this seat saw (its private events too) instead of the public view.
        #[arg(long)]
        seat: Option<u8>,
    },
    /// Play random games checking every rules invariant in every state.
    Soak {
        /// durak, toepen or uno.
        game: String,
        #[command(flatten)]
        rules: RulesFlags,
        /// Number of games.
        #[arg(long, default_value_t = 10_000)]
        games: u64,
        /// Start at game K of the seed's sequence, to run a long soak in parts: `--first
        /// 500000 --games 500000` after `--games 500000` checks the same games as `--games
        /// 1000000`.
        #[arg(long, value_name = "K", default_value_t = 0)]
        first: u64,
        /// Continue the soak in the --record ledger: start at its first game no part has
        /// checked and check up to --games games, stopping short of games already checked.
        /// Run the same command again to go on (one runner per soak at a time).
        #[arg(long, requires = "record", conflicts_with = "first")]
        next: bool,
        /// With --next: the soak's whole size; games from N on are left alone, and once
        /// 0..N are checked the command says so and checks nothing.
        #[arg(long, value_name = "N", requires = "next")]
        until: Option<u64>,
        /// Master seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Check legal actions on a sample per state (one listed action and four others of
        /// the action space, drawn at random) instead of all of them: 2.5–4× faster, for a
        /// quick look. By default every action of the action space is tried in every state.
        #[arg(long)]
        sample: bool,
        /// The default (every action in every state); kept so older commands still run.
        #[arg(long, hide = true, conflicts_with = "sample")]
        full: bool,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Append the result as one JSON line to FILE: a ledger of the parts of a long soak
        /// (game, options, seed, range, decisions, violations, time).
        #[arg(long, value_name = "FILE")]
        record: Option<PathBuf>,
    },
    /// Sum up a soak ledger (`soak --record`): which games of each soak its parts checked,
    /// and what they found.
    Ledger {
        /// The ledger file (one JSON line per part).
        file: PathBuf,
    },
    /// Print speed figures: sandbox vs native per decision, instantiation, cold start,
    /// whole matches on 1 and 2 threads, rules engines alone.
    Bench {
        /// Fewer rounds and games (a rough look in a few seconds).
        #[arg(long)]
        quick: bool,
        /// Also write the figures as JSON to FILE (`-` for stdout).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Run one section only: `fuel` (wall time per unit of fuel, the reasoning behind
        /// the default deadline).
        #[arg(long, value_name = "SECTION", value_parser = ["fuel"])]
        only: Option<String>,
    },
    /// Play a game yourself in the terminal against agents.
    Play {
        /// durak, toepen or uno.
        game: String,
        /// Agents for the other seats (they repeat in turn to fill the table).
        #[arg(long = "vs", required = true, num_args = 1.., value_name = "AGENT")]
        vs: Vec<String>,
        #[command(flatten)]
        rules: RulesFlags,
        /// Your seat.
        #[arg(long, default_value_t = 0)]
        seat: u8,
        /// Seed of the deal (default: from the clock).
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Create a ready agent crate in ./NAME: a simple legal strategy to start from.
    New {
        /// durak, toepen or uno.
        game: String,
        /// The crate's name (lower-case, digits, dashes).
        name: String,
    },
    /// Internal: validate and compile a component read from stdin, in a child process under
    /// resource limits (see the loader's module documentation).
    #[command(name = "compile-agent", hide = true)]
    CompileAgent {
        /// The memory limit (MiB) of the engine the artifact is for.
        #[arg(long)]
        memory: u32,
    },
    /// Build agent crates into components (default: every crate in example-agents/).
    Build {
        /// Agent crate directories.
        dirs: Vec<PathBuf>,
        /// Write components to DIR/<game>/<name>.wasm (default: <target>/agents).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Show cargo's output.
        #[arg(long, short)]
        verbose: bool,
    },
}

#[derive(Args, Clone)]
struct RulesFlags {
    /// Rule preset (durak: classic, perevodnoy, teams; toepen: standard, drinking, cafe,
    /// plain; uno: official, house, two-player). Default: the game's first.
    #[arg(long)]
    rules: Option<String>,
    /// Number of players (seats).
    #[arg(long)]
    players: Option<usize>,
    /// Set one rule option, e.g. --set transfer=true (repeatable).
    #[arg(long = "set", value_name = "OPTION=VALUE")]
    set: Vec<String>,
}

impl RulesFlags {
    fn args(&self) -> RulesArgs {
        RulesArgs {
            rules: self.rules.clone(),
            players: self.players,
            set: self.set.clone(),
        }
    }
}

#[derive(Args, Clone)]
struct MatchCmd {
    /// durak, toepen or uno.
    game: String,
    /// Agents in seat order (.wasm files or example names); fewer than the seats repeat in turn.
    #[arg(required = true)]
    agents: Vec<String>,
    #[command(flatten)]
    rules: RulesFlags,
    /// Number of games (deals; with --duplicate each deal is played once per seat rotation).
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Master seed: the same command and seed replay the same games, whatever --threads is.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Replay every deal with the agents' seats rotated, to take luck out of the comparison.
    #[arg(long)]
    duplicate: bool,
    /// Write a JSON summary to FILE (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Append one JSON line per finished game to FILE (enough to replay it).
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Continue an interrupted run recorded in --log FILE, playing only the missing games.
    #[arg(long)]
    resume: bool,
    /// Keep running and reload an agent whose .wasm changes, from the next game on; a broken
    /// new build is refused and the previous one keeps playing.
    #[arg(long)]
    watch: bool,
    /// Fuel per decision (the deterministic budget).
    #[arg(long, value_name = "N")]
    fuel: Option<u64>,
    /// Wall-clock milliseconds per decision (the backstop).
    #[arg(long, value_name = "MS")]
    millis: Option<u32>,
    /// Memory per agent instance, in MiB.
    #[arg(long, value_name = "MIB")]
    memory: Option<u32>,
    /// Log bytes per agent per game (each line also costs 16 bytes).
    #[arg(long, value_name = "BYTES")]
    log_bytes: Option<u32>,
    /// Log lines per agent per game.
    #[arg(long, value_name = "N")]
    log_lines: Option<u32>,
    /// Wall-clock milliseconds one agent may spend on all its decisions in one game.
    #[arg(long, value_name = "MS")]
    game_millis: Option<u32>,
    /// A per-game time bank in milliseconds, on top of the per-decision limit.
    #[arg(long, value_name = "MS")]
    time_bank: Option<u32>,
    /// What a fault costs: forfeit the game, or let the host play a legal fallback move.
    #[arg(long, value_enum, default_value_t = FaultPolicy::Forfeit)]
    on_fault: FaultPolicy,
    /// Do not use the compiled-component cache.
    #[arg(long)]
    no_cache: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

impl MatchCmd {
    fn limits(&self) -> Limits {
        let mut l = Limits::default();
        if let Some(v) = self.fuel {
            l.fuel_per_decision = v;
        }
        if let Some(v) = self.millis {
            l.millis_per_decision = v;
        }
        if let Some(v) = self.memory {
            l.memory_mib = v;
        }
        if let Some(v) = self.log_bytes {
            l.log_bytes_per_game = v;
        }
        if let Some(v) = self.log_lines {
            l.log_lines_per_game = v;
        }
        if let Some(v) = self.game_millis {
            l.game_millis = v;
        }
        l.time_bank_millis = self.time_bank;
        l
    }

    fn args(&self) -> MatchArgs {
        MatchArgs {
            agents: self.agents.clone(),
            rules: self.rules.args(),
            games: self.games,
            seed: self.seed,
            threads: threads(self.threads),
            duplicate: self.duplicate,
            json: self.json.clone(),
            log: self.log.clone(),
            resume: self.resume,
            policy: self.on_fault,
            progress: !self.quiet,
            quiet: false,
            watch: self.watch,
        }
    }
}

fn threads(t: Option<usize>) -> usize {
    t.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn game(name: &str) -> Result<GameKind> {
    GameKind::parse(name).ok_or_else(|| {
        driver::user(format!(
            "unknown game `{name}`; known games: durak, toepen, uno"
        ))
    })
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Match(m) => {
            let host = Host::new(m.limits(), !m.no_cache)?;
            let args = m.args();
            match game(&m.game)? {
                GameKind::Durak => driver::run_match::<Durak>(&host, &args).map(drop),
                GameKind::Toepen => driver::run_match::<Toepen>(&host, &args).map(drop),
                GameKind::Uno => driver::run_match::<Uno>(&host, &args).map(drop),
            }?;
        }
        Command::Tournament(m) => {
            let host = Host::new(m.limits(), !m.no_cache)?;
            let args = m.args();
            match game(&m.game)? {
                GameKind::Durak => driver::run_tournament::<Durak>(&host, &args).map(drop),
                GameKind::Toepen => driver::run_tournament::<Toepen>(&host, &args).map(drop),
                GameKind::Uno => driver::run_tournament::<Uno>(&host, &args).map(drop),
            }?;
        }
        Command::Validate { agent } => {
            let host = Host::new(Limits::default(), true)?;
            let spec = registry::resolve(&agent).map_err(|e| driver::user(e.to_string()))?;
            let loaded = loader::load(&host.engine, &host.cache, &host.limits, &spec.path)
                .map_err(|e| driver::user(e.to_string()))?;
            // Linking and a trial run are the last checks: they prove the host can
            // instantiate it and that its exports have the world's exact types.
            match loaded.game {
                GameKind::Durak => host.factory_default::<Durak>(&loaded).map(drop),
                GameKind::Toepen => host.factory_default::<Toepen>(&loaded).map(drop),
                GameKind::Uno => host.factory_default::<Uno>(&loaded).map(drop),
            }?;
            println!(
                "{}: ok: {} agent, {}/{}-agent@{} ({}, {} KB, loaded in {:.1} ms, {})",
                spec.path.display(),
                loaded.game,
                loader::PACKAGE,
                loaded.game,
                loaded.version,
                loaded.language.as_deref().unwrap_or("unknown language"),
                loaded.size / 1024,
                loaded.load_time.as_secs_f64() * 1e3,
                match loaded.cache {
                    croupier_host::cache::CacheOutcome::Hit => "from the compile cache",
                    _ => "compiled",
                }
            );
        }
        Command::Agents => {
            let host = Host::new(Limits::default(), true)?;
            let all = registry::examples();
            if all.is_empty() {
                println!("no example agents are built; run `croupier build`");
            }
            println!(
                "{:<24} {:<7} {:<9} {:>8}  file",
                "agent", "game", "language", "size"
            );
            for ex in all {
                let loaded = loader::load(&host.engine, &host.cache, &host.limits, &ex.path);
                let (lang, size, ok) = match &loaded {
                    Ok(l) => (
                        l.language.clone().unwrap_or_else(|| "?".into()),
                        l.size,
                        true,
                    ),
                    Err(_) => (
                        "?".into(),
                        std::fs::metadata(&ex.path).map_or(0, |m| m.len() as usize),
                        false,
                    ),
                };
                println!(
                    "{:<24} {:<7} {:<9} {:>6}KB  {}{}",
                    ex.id(),
                    ex.game,
                    lang,
                    size / 1024,
                    ex.path.display(),
                    if ok {
                        ""
                    } else {
                        "  (does not load: run croupier validate)"
                    }
                );
            }
        }
        Command::Replay {
            file,
            game: idx,
            seat,
        } => {
            let runs = driver::read_log(&file)?;
            let (header, records) = match idx {
                Some(_) => runs.last(),
                None => runs.iter().rev().find(|r| !r.1.is_empty()),
            }
            .context("empty log")?;
            let rec = match idx {
                Some(i) => records.iter().find(|r| r.index == i).ok_or_else(|| {
                    driver::user(format!(
                        "{}: no game {i} in the last run ({} games logged)",
                        file.display(),
                        records.len()
                    ))
                })?,
                None => records
                    .first()
                    .ok_or_else(|| driver::user(format!("{}: no games logged", file.display())))?,
            };
            let mut out = std::io::stdout().lock();
            match header.game {
                GameKind::Durak => driver::replay::<Durak>(header, rec, seat, &mut out),
                GameKind::Toepen => driver::replay::<Toepen>(header, rec, seat, &mut out),
                GameKind::Uno => driver::replay::<Uno>(header, rec, seat, &mut out),
            }?;
        }
        Command::Soak {
            game: g,
            rules,
            games,
            first,
            next,
            until,
            seed,
            threads: t,
            sample,
            full: _,
            quiet,
            record,
        } => {
            let r = rules.args();
            let args = driver::SoakArgs {
                start: if next {
                    driver::SoakStart::Next { until }
                } else {
                    driver::SoakStart::At(first)
                },
                games,
                seed,
                threads: threads(t),
                sample,
                progress: !quiet,
                record,
            };
            let violations = match game(&g)? {
                GameKind::Durak => driver::soak::<Durak>(&r, &args),
                GameKind::Toepen => driver::soak::<Toepen>(&r, &args),
                GameKind::Uno => driver::soak::<Uno>(&r, &args),
            }?;
            if violations > 0 {
                return Ok(ExitCode::from(1));
            }
        }
        Command::Play {
            game: g,
            vs,
            rules,
            seat,
            seed,
        } => {
            let host = Host::new(Limits::default(), true)?;
            let seed = seed.unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_secs())
            });
            let r = rules.args();
            let mut input = std::io::stdin().lock();
            let mut out = std::io::stdout().lock();
            use croupier_host::play::play;
            match game(&g)? {
                GameKind::Durak => play::<Durak>(&host, &r, &vs, seat, seed, &mut input, &mut out),
                GameKind::Toepen => {
                    play::<Toepen>(&host, &r, &vs, seat, seed, &mut input, &mut out)
                }
                GameKind::Uno => play::<Uno>(&host, &r, &vs, seat, seed, &mut input, &mut out),
            }?;
        }
        Command::New { game: g, name } => {
            let dir = croupier_host::scaffold::create(game(&g)?, &name, std::path::Path::new("."))?;
            println!("created {}", dir.display());
            println!(
                "next: cd {} && croupier build .   (see its README.md)",
                dir.display()
            );
        }
        Command::Ledger { file } => {
            let records = croupier_host::ledger::read(&file)?;
            print!("{}", croupier_host::ledger::summary(&records));
            if records.iter().any(|r| r.violations > 0) {
                return Ok(ExitCode::from(1));
            }
        }
        Command::Bench { quick, json, only } => {
            let figures = croupier_host::bench::run(quick, only.as_deref())?;
            if let Some(path) = json {
                driver::write_json(&path, &figures)?;
            }
        }
        Command::CompileAgent { memory } => return Ok(loader::compile_agent_main(memory)),
        Command::Build { dirs, out, verbose } => {
            let all = dirs.is_empty();
            let dirs = if all {
                componentize::example_dirs()
            } else {
                dirs
            };
            // Building every example tolerates a missing componentize-py (with a warning);
            // naming a Python agent explicitly does not.
            let built = componentize::build_any(&dirs, out.as_deref(), verbose, all)?;
            for b in built {
                println!(
                    "built {}/{} ({} KB): {}",
                    b.game,
                    b.name,
                    b.size / 1024,
                    b.path.display()
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    restore_sigpipe();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            if e.downcast_ref::<UserError>().is_some() {
                eprintln!("error: {e}");
            } else {
                eprintln!("error: {e:#}");
            }
            ExitCode::from(2)
        }
    }
}

/// Rust ignores SIGPIPE, so `croupier … | head -1` made every later `println!` panic with a
/// backtrace once `head` had gone. A command-line tool whose reader has gone should end
/// quietly, as `cat` does: the default action does that. Nothing is lost by it, since
/// results, logs and ledgers are written to their files before anything is printed about
/// them; and the default only matters for stdout and stderr, the only pipes this process
/// writes to.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any other thread exists; SIG_DFL is a
    // valid action for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[allow(dead_code)]
fn verdict_help() -> String {
    Verdict::ALL
        .iter()
        .map(|v| format!("{v}: {}", v.meaning()))
        .collect::<Vec<_>>()
        .join("\n")
}
