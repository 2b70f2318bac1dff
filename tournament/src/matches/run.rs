//! Playing a match: entrants loaded, the watcher started, earlier games resumed, the games
//! played through the runner, each logged and counted as it ends, and the summary.

use super::error::{EntrantError, MatchError};
use super::log::{LogGame, log_header};
use super::resume::read_resume;
use super::setup::{MatchArgs, entrant, options};
use super::summary::{MatchSummary, Tally, match_summary};
use crate::runner::{self, Entrant, GameRecord, Progress, Schedule};
use crate::shard::{ShardHeader, TournamentOf};
use croupier_host::Runtime;
use croupier_host::adapters::Adapter;
use croupier_host::registry;
use croupier_rules::Rules;
use serde::Serialize;
use std::collections::BTreeSet;
use std::io::Write;

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
    play_match::<G>(host, args, None, progress, report)
}

/// The one match runner behind [`run_match_with`] and each pairing of a tournament: a match
/// on its own (`tournament` is `None`) or as one pairing, whose shard logs then name the
/// tournament so that `merge` can rebuild its ranking.
pub(crate) fn play_match<G: Adapter>(
    host: &Runtime,
    args: &MatchArgs,
    tournament: Option<&TournamentOf>,
    progress: &dyn Progress,
    report: crate::watch::Report,
) -> Result<MatchSummary, MatchError> {
    let (_, opts) = options::<G>(&args.rules)?;
    if args.agents.is_empty() {
        return Err(MatchError::NoAgents);
    }
    let mut entrants: Vec<Entrant<G>> = args
        .agents
        .iter()
        .map(|a| entrant::<G>(host, a, &opts))
        .collect::<Result<_, _>>()?;
    let _watcher = if args.watch {
        let files = args
            .agents
            .iter()
            .zip(&entrants)
            .map(|(a, e)| {
                let path = registry::resolve(a).map_err(EntrantError::Unknown)?.path;
                Ok((path, e.factory.clone()))
            })
            .collect::<Result<Vec<_>, EntrantError>>()?;
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
            return Err(MatchError::ResumeWithoutLog);
        };
        match read_resume(path, &header, &mut tally)? {
            Some(d) => {
                done = d;
                fresh = false;
            }
            // Nothing to continue: a missing log (a batch job's first attempt) or a
            // tournament pairing not reached before the interruption starts afresh.
            None if !path.exists() || tournament.is_some() => {}
            None => return Err(MatchError::NothingToResume { path: path.clone() }),
        }
    }
    let todo: Vec<u64> = games.filter(|i| !done.contains(i)).collect();
    let write_error = |path: &std::path::Path, error| MatchError::WriteLog {
        path: path.into(),
        error,
    };
    let mut log = match &args.log {
        Some(path) => {
            let f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|error| MatchError::OpenLog {
                    path: path.clone(),
                    error,
                })?;
            let mut w = std::io::BufWriter::new(f);
            if fresh {
                write_line(&mut w, &header).map_err(|e| write_error(path, e))?;
            }
            Some((w, path))
        }
        None => None,
    };
    // Each record is written and counted as its game ends, then dropped: a match's memory
    // does not grow with its length (hardening finding 4).
    let mut sink = |rec: GameRecord| -> Result<(), MatchError> {
        if let Some((w, path)) = log.as_mut() {
            let line = LogGame {
                kind: "game".into(),
                record: rec,
            };
            write_line(w, &line).map_err(|e| write_error(path, e))?;
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
    let elapsed = runner::run(&plan, &todo, progress, &mut sink)?;
    Ok(match_summary(
        &header,
        tally,
        elapsed.as_secs_f64(),
        todo.len() as u64,
    ))
}

/// Writes one line of a log and flushes it: an interrupted run keeps every game it finished.
fn write_line(w: &mut impl Write, value: &impl Serialize) -> std::io::Result<()> {
    serde_json::to_writer(&mut *w, value)?;
    w.write_all(b"\n")?;
    w.flush()
}
