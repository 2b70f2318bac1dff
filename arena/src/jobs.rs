//! The server's side of the match queue: leasing a job, extending its lease, and accepting
//! the games a worker reports (the embedded worker and remote workers alike; see
//! [`crate::worker`]).
//!
//! A report is accepted only under the lease that holds the match, in the transaction that
//! stores it ([`crate::db::Db::store_games`]); a game already stored stays as it was; and a
//! match is done only when every game of its schedule is stored. Every reported game is
//! checked against the schedule the server derives from the match itself (index, deal,
//! rotation, seed, seating, one result per seat), and its versions and teams come from the
//! database, never from the worker.

use crate::context::Arena;
use crate::db::{DbError, MatchRow, Stored};
use crate::ladder::to_new_game;
use croupier_rules::Rules;
use croupier_tournament::runner::{GameRecord, Schedule, game_seed};
use serde::{Deserialize, Serialize};

/// One leased match, as a worker receives it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// The match.
    pub match_id: i64,
    /// The lease: every report names it, and one made after it was lost is refused.
    pub lease: String,
    /// How long the lease lasts without a heartbeat; the worker beats every third of it.
    pub lease_ms: u64,
    /// The match's master seed.
    pub seed: u64,
    /// Deals in the match.
    pub deals: u64,
    /// Every deal once per seat rotation.
    pub duplicate: bool,
    /// The entrants in schedule order.
    pub entrants: Vec<JobEntrant>,
    /// The games not yet stored, by index.
    pub todo: Vec<u64>,
}

impl Job {
    /// The job's lease, as a heartbeat or a release names it.
    pub fn lease_ref(&self) -> LeaseRef {
        LeaseRef {
            match_id: self.match_id,
            lease: self.lease.clone(),
        }
    }
}

/// A lease named in a heartbeat or release.
#[derive(Debug, Serialize, Deserialize)]
pub struct LeaseRef {
    /// The match.
    pub match_id: i64,
    /// The lease.
    pub lease: String,
}

/// A batch of games reported by a worker.
#[derive(Debug, Serialize, Deserialize)]
pub struct Report {
    /// The match.
    pub match_id: i64,
    /// The lease it is held under.
    pub lease: String,
    /// Whether these are its last games.
    pub done: bool,
    /// The games, with their agents' logs.
    pub games: Vec<GameRecord>,
}

/// One entrant of a job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobEntrant {
    /// The version's id.
    pub version: i64,
    /// Its team.
    pub team: i64,
    /// The SHA-256 of its component: how a worker fetches and caches it.
    pub sha256: String,
}

/// Why a job could not be leased or a report accepted.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// The database.
    #[error(transparent)]
    Db(#[from] DbError),
    /// The report names no match, or a game that is not the match's.
    #[error("{0}")]
    Bad(String),
    /// The arena's rules do not build (a broken config: the server would not have started).
    #[error("the arena's rules: {0}")]
    Rules(String),
}

/// What the server knows of a match: enough to check and store its games.
pub struct MatchInfo {
    /// The match's id.
    pub id: i64,
    /// Its master seed.
    pub seed: u64,
    /// Its deals.
    pub deals: u64,
    /// Duplicate deals.
    pub duplicate: bool,
    /// (version, team) per entrant, in schedule order.
    pub entrants: Vec<(i64, i64)>,
}

impl MatchInfo {
    /// From a leased job (the embedded worker: the job was built from the database in this
    /// process).
    pub fn of_job(job: &Job) -> MatchInfo {
        MatchInfo {
            id: job.match_id,
            seed: job.seed,
            deals: job.deals,
            duplicate: job.duplicate,
            entrants: job.entrants.iter().map(|e| (e.version, e.team)).collect(),
        }
    }

    /// From the database (a report from another machine).
    pub async fn load(arena: &Arena, id: i64) -> Result<MatchInfo, JobError> {
        let row = arena
            .db
            .match_row(id)
            .await?
            .ok_or_else(|| JobError::Bad(format!("there is no match {id}")))?;
        let mut entrants = Vec::new();
        for v in row.entrant_ids()? {
            let team = arena.db.version(v).await?.map(|r| r.team_id).unwrap_or(0);
            entrants.push((v, team));
        }
        Ok(Self::of_row(&row, entrants))
    }

    fn of_row(row: &MatchRow, entrants: Vec<(i64, i64)>) -> MatchInfo {
        MatchInfo {
            id: row.id,
            seed: row.seed as u64,
            deals: row.deals as u64,
            duplicate: row.duplicate != 0,
            entrants,
        }
    }

    /// The match's schedule under the arena's rules.
    pub fn schedule(&self, arena: &Arena) -> Result<Schedule, JobError> {
        croupier_tournament::with_game!(arena.cfg.kind(), G => {
            let (_, opts) = croupier_tournament::matches::options::<G>(&arena.cfg.rules_args())
                .map_err(|e| JobError::Rules(format!("{e:#}")))?;
            Ok(Schedule::new(self.entrants.len(), opts.seats(), self.deals, self.duplicate))
        })
    }
}

/// The lease a worker holds for this long without a heartbeat.
pub fn lease_ms(arena: &Arena) -> u64 {
    arena.cfg.ladder.lease_seconds.saturating_mul(1000)
}

/// A name for one lease: unique across workers and restarts.
fn lease_name(worker: &str) -> String {
    let r = crate::auth::random_u64().unwrap_or_else(|_| crate::now_ms() as u64);
    format!("{worker}-{r:016x}")
}

/// Leases the next match to `worker`, as a job with the games it still lacks.
pub async fn lease(arena: &Arena, worker: &str) -> Result<Option<Job>, JobError> {
    let lease = lease_name(worker);
    let ms = lease_ms(arena);
    let Some(row) = arena.db.claim(&lease, crate::now_ms() + ms as i64).await? else {
        return Ok(None);
    };
    let mut entrants = Vec::new();
    for id in row.entrant_ids()? {
        let v = arena
            .db
            .version(id)
            .await?
            .ok_or_else(|| DbError::Corrupt(format!("match {}: no version {id}", row.id)))?;
        entrants.push(JobEntrant {
            version: id,
            team: v.team_id,
            sha256: v.sha256,
        });
    }
    let info = MatchInfo::of_row(&row, entrants.iter().map(|e| (e.version, e.team)).collect());
    let games = info.schedule(arena)?.games();
    let stored = arena.db.stored_indices(row.id).await?;
    let todo = (0..games)
        .filter(|i| stored.binary_search(&(*i as i64)).is_err())
        .collect();
    Ok(Some(Job {
        match_id: row.id,
        lease,
        lease_ms: ms,
        seed: info.seed,
        deals: info.deals,
        duplicate: info.duplicate,
        entrants,
        todo,
    }))
}

/// Extends a lease; false once it is lost.
pub async fn heartbeat(arena: &Arena, id: i64, lease: &str) -> Result<bool, JobError> {
    let until = crate::now_ms() + lease_ms(arena) as i64;
    Ok(arena.db.heartbeat(id, lease, until).await?)
}

/// Checks one reported game against the match's schedule.
fn check_game(info: &MatchInfo, schedule: &Schedule, rec: &GameRecord) -> Result<(), JobError> {
    let bad = |why: String| JobError::Bad(format!("match {} game {}: {why}", info.id, rec.index));
    if rec.index >= schedule.games() {
        return Err(bad(format!(
            "the match has {} games, numbered from 0",
            schedule.games()
        )));
    }
    let (deal, rotation) = schedule.game(rec.index);
    if rec.deal != deal || rec.rotation != rotation {
        return Err(bad(format!(
            "is deal {deal} rotation {rotation}, not deal {} rotation {}",
            rec.deal, rec.rotation
        )));
    }
    if rec.seed != game_seed(info.seed, deal) {
        return Err(bad("was dealt from another seed".into()));
    }
    if Some(&rec.seats) != schedule.rotations.get(rotation) {
        return Err(bad("its seating is not the schedule's".into()));
    }
    if rec.results.len() != rec.seats.len() {
        return Err(bad(format!(
            "{} results for {} seats",
            rec.results.len(),
            rec.seats.len()
        )));
    }
    Ok(())
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
    let schedule = info.schedule(arena)?;
    for rec in games {
        check_game(info, &schedule, rec)?;
    }
    let versions: Vec<i64> = info.entrants.iter().map(|e| e.0).collect();
    let teams: Vec<i64> = info.entrants.iter().map(|e| e.1).collect();
    let rows: Vec<_> = games
        .iter()
        .map(|g| to_new_game(g, &versions, &teams))
        .collect();
    let expected = done.then_some(schedule.games() as i64);
    let stored = arena
        .db
        .store_games(info.id, lease, &rows, expected)
        .await?;
    if done && stored == Stored::Ok {
        if let Err(e) = arena.update_board().await {
            eprintln!("arena: updating the ratings after match {}: {e}", info.id);
        }
        arena.changed.notify_waiters();
    }
    Ok(stored)
}
