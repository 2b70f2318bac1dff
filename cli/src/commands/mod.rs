//! One file per subcommand, as wasmtime's `src/commands/`: each holds its flags (a clap
//! `Args` type) and an `execute` that runs it. Shared here: the rule and match flags several
//! commands take, and the one game dispatcher.

pub mod agents;
#[cfg(feature = "arena")]
pub mod arena;
pub mod build;
pub mod compile_agent;
pub mod ledger;
pub mod r#match;
pub mod merge;
pub mod new;
pub mod play;
pub mod policy;
pub mod replay;
pub mod soak;
#[cfg(feature = "arena")]
pub mod submit;
pub mod tournament;
pub mod validate;

use anyhow::Result;
use clap::{Args, ValueEnum};
use croupier_host::Runtime;
use croupier_host::cache::Cache;
use croupier_host::limits::Limits;
use croupier_host::loader::GameKind;
use croupier_tournament::matches::{MatchArgs, RulesArgs};
use croupier_tournament::merge::Shard;
use croupier_tournament::runner::FaultPolicy;
use std::path::PathBuf;

/// The runtime a command runs agents in: `limits`, and the compile cache unless told not to
/// use it (a cache that cannot be made safe is disabled with a warning).
pub fn runtime(limits: Limits, use_cache: bool) -> Result<Runtime> {
    let cache = if use_cache {
        let (cache, why) = Cache::default_or_disabled();
        if let Some(why) = why {
            eprintln!("warning: compiled-agent cache disabled: {why}");
        }
        cache
    } else {
        Cache::disabled()
    };
    Runtime::new(limits, cache)
}

pub(crate) use croupier_tournament::with_game;

/// A game by its name, or the one-line error that lists the games.
pub fn game(name: &str) -> Result<GameKind> {
    GameKind::parse(name).ok_or_else(|| {
        crate::errors::user(format!(
            "unknown game `{name}`; known games: {}",
            GameKind::ALL.map(GameKind::name).join(", ")
        ))
    })
}

/// `--threads`, by default every core.
pub fn threads(t: Option<usize>) -> usize {
    t.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// What a fault costs (`--on-fault`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum OnFault {
    /// The game ends at once, lost by the faulting agent (its whole team in team play).
    Forfeit,
    /// The host plays the first legal action for it and counts the fault.
    Fallback,
}

#[derive(Args, Clone)]
pub struct RulesFlags {
    /// Rule preset (durak: classic, perevodnoy, teams; toepen: standard, drinking, cafe,
    /// plain; uno: official, house, two-player). Default: the game's first.
    #[arg(long)]
    pub rules: Option<String>,
    /// Number of players (seats).
    #[arg(long)]
    pub players: Option<usize>,
    /// Set one rule option, e.g. --set transfer=true (repeatable).
    #[arg(long = "set", value_name = "OPTION=VALUE")]
    pub set: Vec<String>,
}

impl RulesFlags {
    /// The flags as the match library takes them.
    pub fn args(&self) -> RulesArgs {
        RulesArgs {
            rules: self.rules.clone(),
            players: self.players,
            set: self.set.clone(),
        }
    }
}

#[derive(Args, Clone)]
pub struct MatchCmd {
    /// durak, toepen or uno.
    pub game: String,
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
    pub json: Option<PathBuf>,
    /// Append one JSON line per finished game to FILE (enough to replay it).
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Continue an interrupted run recorded in --log FILE, playing only the missing games
    /// (a missing FILE starts the run).
    #[arg(long)]
    resume: bool,
    /// Play only part K of N (from 0): a contiguous run of whole deals, the same games as in
    /// the unsharded run. Write each part with --log and put them together with `croupier merge`.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Keep running and reload an agent whose .wasm changes, from the next game on; a broken
    /// new build is refused and the previous one keeps playing.
    #[arg(long)]
    watch: bool,
    #[command(flatten)]
    limits: LimitFlags,
    /// What a fault costs: forfeit the game, or let the host play a legal fallback move.
    #[arg(long, value_enum, default_value_t = OnFault::Forfeit)]
    on_fault: OnFault,
    /// Do not use the compiled-component cache.
    #[arg(long)]
    pub no_cache: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

impl MatchCmd {
    /// The limits the flags set, the rest at their defaults.
    pub fn limits(&self) -> Limits {
        self.limits.limits()
    }

    /// The match as the match library takes it.
    pub fn args(&self) -> MatchArgs {
        MatchArgs {
            agents: self.agents.clone(),
            rules: self.rules.args(),
            games: self.games,
            seed: self.seed,
            threads: threads(self.threads),
            duplicate: self.duplicate,
            log: self.log.clone(),
            resume: self.resume,
            policy: match self.on_fault {
                OnFault::Forfeit => FaultPolicy::Forfeit,
                OnFault::Fallback => FaultPolicy::Fallback,
            },
            watch: self.watch,
            shard: self.shard,
        }
    }
}

/// The sandbox limits a command can set; the rest keep their defaults.
#[derive(Args, Clone, Debug, Default)]
pub struct LimitFlags {
    /// Fuel per decision (the deterministic budget).
    #[arg(long, value_name = "N")]
    pub fuel: Option<u64>,
    /// Wall-clock milliseconds per decision (the backstop).
    #[arg(long, value_name = "MS")]
    pub millis: Option<u32>,
    /// Memory per agent instance, in MiB (at most 4096, a 32-bit memory's whole range).
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u32).range(1..=i64::from(Limits::MAX_MEMORY_MIB)))]
    pub memory: Option<u32>,
    /// Log bytes per agent per game (each line also costs 16 bytes).
    #[arg(long, value_name = "BYTES")]
    pub log_bytes: Option<u32>,
    /// Log lines per agent per game.
    #[arg(long, value_name = "N")]
    pub log_lines: Option<u32>,
    /// Fuel one agent may spend on `start` and all its decisions in one game.
    #[arg(long, value_name = "N")]
    pub game_fuel: Option<u64>,
    /// The wall-clock net over one agent's game, in ms (the default is 3× what the game's
    /// fuel can take at the slowest rate measured).
    #[arg(long, value_name = "MS")]
    pub game_millis: Option<u32>,
    /// A per-game time bank in milliseconds, on top of the per-decision limit.
    #[arg(long, value_name = "MS")]
    pub time_bank: Option<u32>,
}

impl LimitFlags {
    /// The limits these flags set, the rest at their defaults.
    pub fn limits(&self) -> Limits {
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
        if let Some(v) = self.game_fuel {
            l.game_fuel = v;
        }
        if let Some(v) = self.game_millis {
            l.game_millis = v;
        }
        l.time_bank_millis = self.time_bank;
        l
    }
}
