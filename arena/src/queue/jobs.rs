//! The server's side of the match queue: leasing a job, extending its lease, and accepting
//! the games a worker reports (the embedded worker and remote workers alike; see
//! [`crate::queue::worker`]).
//!
//! A report is accepted only under the lease that holds the match, in the transaction that
//! stores it ([`crate::store::db::Db::store_games`]); a game already stored stays as it was; and a
//! match is done only when every game of its schedule is stored. Every reported game is
//! checked against the schedule the server derives from the match itself (index, deal,
//! rotation, seed, seating, one result per seat) and replayed through the rules (every action
//! legal, the rules' result unless a fault ended the game) as it is made compact
//! ([`croupier_tournament::compact`]); its versions and teams come from the database, never
//! from the worker.

use crate::context::Arena;
use crate::queue::to_new_game;
pub use crate::queue::{
    Job, JobEntrant, JobError, LeaseRef, Leased, MatchInfo, Report, ReportOutcome, ReportOutcomes,
    Reports,
};
use crate::store::db::DbError;
use crate::store::db::games::Stored;
use crate::store::db::matches::MatchRow;
use croupier_tournament::runner::GameRecord;

/// What the server knows of match `id`: from the leased matches it remembers, else from the
/// database (a report from another machine, a stored game to show).
pub async fn match_info(arena: &Arena, id: i64) -> Result<MatchInfo, JobError> {
    if let Some(info) = arena.leased_match(id) {
        return Ok(info);
    }
    let row = arena
        .db
        .match_row(id)
        .await?
        .ok_or_else(|| JobError::Bad(format!("there is no match {id}")))?;
    match_info_of(arena, &row).await
}

/// What the server knows of a stored match row: its entrants' teams and hashes from the database (or the
/// arena's memory of them).
pub async fn match_info_of(arena: &Arena, row: &MatchRow) -> Result<MatchInfo, JobError> {
    let mut entrants = Vec::new();
    for id in row.entrant_ids()? {
        let e = arena
            .entrant(id)
            .await?
            .ok_or_else(|| DbError::Corrupt(format!("match {}: no version {id}", row.id)))?;
        entrants.push(e);
    }
    Ok(MatchInfo::of_row(row, entrants))
}

/// The lease a worker holds for this long without a heartbeat.
pub fn lease_ms(arena: &Arena) -> u64 {
    arena.cfg.ladder.lease_seconds.saturating_mul(1000)
}

/// The common part of one claim's lease names: unique across workers and restarts (each
/// match's lease adds its id, [`crate::store::db::Db::claim`]).
fn lease_prefix(worker: &str) -> String {
    let r = crate::auth::random_u64().unwrap_or_else(|_| crate::now_ms() as u64);
    format!("{worker}-{r:016x}")
}

/// Leases up to `max` matches to `worker` in one statement, as jobs with the games they
/// still lack; none if nothing is waiting.
pub async fn lease(arena: &Arena, worker: &str, max: usize) -> Result<Vec<Job>, JobError> {
    let ms = lease_ms(arena);
    let rows = arena
        .db
        .claim(&lease_prefix(worker), crate::now_ms() + ms as i64, max)
        .await?;
    let mut jobs = Vec::with_capacity(rows.len());
    let mut rows = rows.into_iter();
    while let Some(row) = rows.next() {
        let (id, lease) = (row.id, row.lease.clone().unwrap_or_default());
        match job_of(arena, row, ms).await {
            Ok(job) => jobs.push(job),
            Err(e) => {
                // The matches claimed but not handed out go back to the queue at once, not
                // when their leases expire; the jobs built already still go out.
                for (id, lease) in std::iter::once((id, lease))
                    .chain(rows.map(|r| (r.id, r.lease.unwrap_or_default())))
                {
                    let _ = arena.db.release(id, &lease).await;
                }
                if jobs.is_empty() {
                    return Err(e);
                }
                tracing::warn!("arena: a batched lease stopped short: {e}");
                break;
            }
        }
    }
    Ok(jobs)
}

/// The job for a match just claimed.
async fn job_of(arena: &Arena, row: MatchRow, ms: u64) -> Result<Job, JobError> {
    let lease = row
        .lease
        .clone()
        .ok_or_else(|| DbError::Corrupt(format!("match {}: claimed without a lease", row.id)))?;
    let info = match_info_of(arena, &row).await?;
    let games = info.schedule(&arena.cfg)?.games();
    // Games are stored only under a lease, so a match leased for the first time has none:
    // one query fewer for almost every match.
    let stored = if row.attempts == 1 {
        Vec::new()
    } else {
        arena.db.stored_indices(row.id).await?
    };
    let todo = (0..games)
        .filter(|i| stored.binary_search(&(*i as i64)).is_err())
        .collect();
    arena.remember_leased(&info);
    Ok(Job {
        match_id: row.id,
        lease,
        lease_ms: ms,
        seed: info.seed,
        deals: info.deals,
        duplicate: info.duplicate,
        entrants: info.entrants,
        todo,
    })
}

/// Extends a lease; false once it is lost.
pub async fn heartbeat(arena: &Arena, id: i64, lease: &str) -> Result<bool, JobError> {
    let until = crate::now_ms() + lease_ms(arena) as i64;
    Ok(arena.db.heartbeat(id, lease, until).await?)
}

/// Stores reported games of match `info` under `lease`; with `done`, ends the match if all
/// its games are stored. On the match's end the ratings catch up and the ladder is woken.
pub async fn accept(
    arena: &Arena,
    info: &MatchInfo,
    lease: &str,
    games: &[GameRecord],
    done: bool,
) -> Result<Stored, JobError> {
    let stored = store(arena, info, lease, games, done).await?;
    if done && stored == Stored::Ok {
        caught_up(arena, &[info.id]).await;
    }
    Ok(stored)
}

/// After matches ended: the ratings catch up and the ladder is woken, once for all of them.
pub async fn caught_up(arena: &Arena, ended: &[i64]) {
    if let Err(e) = arena.update_board().await {
        tracing::error!("arena: updating the ratings after matches {ended:?}: {e}");
    }
    arena.changed.notify_waiters();
}

/// [`accept`] without its catching up.
pub async fn store(
    arena: &Arena,
    info: &MatchInfo,
    lease: &str,
    games: &[GameRecord],
    done: bool,
) -> Result<Stored, JobError> {
    let p = prepare(arena, info, games, done)?;
    let stored = arena
        .db
        .store_games(info.id, lease, &p.rows, p.expected)
        .await?;
    if done && stored == Stored::Ok {
        arena.forget_leased(info.id);
    }
    Ok(stored)
}

/// A report checked and made into rows, ready to store.
struct Prepared {
    rows: Vec<crate::store::db::insert::NewGame>,
    /// With `done`, the games the schedule holds.
    expected: Option<i64>,
}

/// Checks a report's games against the match and makes them rows (the rules replay that
/// makes each game compact is the check), without touching the database.
fn prepare(
    arena: &Arena,
    info: &MatchInfo,
    games: &[GameRecord],
    done: bool,
) -> Result<Prepared, JobError> {
    let schedule = info.schedule(&arena.cfg)?;
    let compact = info.compact(&arena.cfg, games)?;
    let versions: Vec<i64> = info.entrants.iter().map(|e| e.version).collect();
    let teams: Vec<i64> = info.entrants.iter().map(|e| e.team).collect();
    let rows = games
        .iter()
        .zip(compact)
        .map(|(g, c)| {
            to_new_game(
                g,
                &versions,
                &teams,
                Some(c),
                arena.cfg.storage.log_bytes_per_game,
            )
        })
        .collect();
    Ok(Prepared {
        rows,
        expected: done.then_some(schedule.games() as i64),
    })
}

/// Stores several reports, each as [`store`] would and with one result each, without
/// catching up: a worker's reports call. The reports that pass their checks go in one
/// transaction ([`crate::store::db::Db::store_many`]); if it fails they are stored one at a time,
/// so that one report the database refuses costs the others nothing.
pub async fn store_reports(arena: &Arena, reports: &[Report]) -> Vec<Result<Stored, JobError>> {
    // `None` for a report that passed its checks, until the database has answered.
    let mut results: Vec<Option<Result<Stored, JobError>>> = Vec::with_capacity(reports.len());
    let mut ready = Vec::new();
    for (i, r) in reports.iter().enumerate() {
        let prepared = match match_info(arena, r.match_id).await {
            Ok(info) => prepare(arena, &info, &r.games, r.done),
            Err(e) => Err(e),
        };
        match prepared {
            Ok(p) => {
                ready.push((i, p));
                results.push(None);
            }
            Err(e) => results.push(Some(Err(e))),
        }
    }
    let batches: Vec<crate::store::db::games::GameBatch<'_>> = ready
        .iter()
        .map(|(i, p)| crate::store::db::games::GameBatch {
            match_id: reports[*i].match_id,
            lease: &reports[*i].lease,
            games: &p.rows,
            finish: p.expected,
        })
        .collect();
    let stored: Vec<Result<Stored, JobError>> = match arena.db.store_many(&batches).await {
        Ok(all) if all.len() == batches.len() => all.into_iter().map(Ok).collect(),
        together => {
            if let Err(e) = together {
                tracing::warn!(
                    "arena: storing {} reports together: {e}; storing each alone",
                    batches.len()
                );
            }
            let mut each = Vec::with_capacity(batches.len());
            for b in &batches {
                each.push(
                    arena
                        .db
                        .store_games(b.match_id, b.lease, b.games, b.finish)
                        .await
                        .map_err(JobError::from),
                );
            }
            each
        }
    };
    for ((i, _), s) in ready.iter().zip(stored) {
        let r = &reports[*i];
        if r.done && matches!(s, Ok(Stored::Ok)) {
            arena.forget_leased(r.match_id);
        }
        results[*i] = Some(s);
    }
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(JobError::Bad("a report was not stored".into()))))
        .collect()
}
