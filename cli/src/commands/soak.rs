//! `croupier soak`: random games with every rules invariant checked in every state.

use super::{RulesFlags, game, threads, with_game};
use anyhow::Result;
use clap::Args;
use croupier_host::driver;
use std::path::PathBuf;
use std::process::ExitCode;

/// Play random games checking every rules invariant in every state.
#[derive(Args)]
pub struct SoakCommand {
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
}

impl SoakCommand {
    /// Runs the soak; exit code 1 when it finds a violation.
    pub fn execute(&self) -> Result<ExitCode> {
        let r = self.rules.args();
        let args = driver::SoakArgs {
            start: if self.next {
                driver::SoakStart::Next { until: self.until }
            } else {
                driver::SoakStart::At(self.first)
            },
            games: self.games,
            seed: self.seed,
            threads: threads(self.threads),
            sample: self.sample,
            progress: !self.quiet,
            record: self.record.clone(),
        };
        let violations = with_game!(game(&self.game)?, G => driver::soak::<G>(&r, &args))?;
        Ok(if violations > 0 {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    }
}
