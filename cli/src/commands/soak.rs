//! `croupier soak`: random games with every rules invariant checked in every state.

use super::{RulesFlags, game, threads, with_game};
use crate::errors::{of_options, user};
use crate::render::games_bar;
use crate::soak_ledger as ledger;
use anyhow::Result;
use clap::Args;
use croupier_rules::{Checkable, Rules};
use croupier_tournament::matches::RulesArgs;
use croupier_tournament::matches::setup::options;
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
        let args = SoakArgs {
            start: if self.next {
                SoakStart::Next { until: self.until }
            } else {
                SoakStart::At(self.first)
            },
            games: self.games,
            seed: self.seed,
            threads: threads(self.threads),
            sample: self.sample,
            progress: !self.quiet,
            record: self.record.clone(),
        };
        let violations = with_game!(game(&self.game)?, G => soak::<G>(&r, &args))?;
        Ok(if violations > 0 {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    }
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
pub fn soak<G: Checkable>(rules: &RulesArgs, args: &SoakArgs) -> Result<u64> {
    let &SoakArgs {
        start,
        games,
        seed,
        threads,
        sample,
        progress,
        ..
    } = args;
    let (preset, opts) = options::<G>(rules).map_err(of_options)?;
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
            let option_pairs = opts.option_pairs();
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
            options: opts.option_pairs(),
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
