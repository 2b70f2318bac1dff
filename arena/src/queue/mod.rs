//! The match queue's data and limits: what a worker is leased and what it reports, what the
//! server knows of a match, what a reported game becomes in the database, and the batch
//! sizes every side of the queue agrees on.
//!
//! A leaf: it knows the configuration, the database's rows and the tournament's records, and
//! nothing of the [`crate::context::Arena`] or of who leases ([`crate::queue::jobs`]), plays
//! ([`crate::queue::worker`]) or serves ([`crate::web::worker_api`]), so those import it and not each
//! other.

pub mod bosses;
pub mod jobs;
pub mod ladder;
pub mod report_wire;
pub mod worker;

use crate::config::ArenaConfig;
use crate::store::db::DbError;
use crate::store::db::games::{GameRow, Stored};
use crate::store::db::insert::{NewGame, NewSeat};
use crate::store::db::matches::MatchRow;
use crate::store::db::states::SeatOutcome;
use croupier_rules::{Game, Rules, SeatResult};
use croupier_tournament::compact::{self, Frame};
use croupier_tournament::runner::{GameRecord, Schedule};
use serde::{Deserialize, Serialize};

/// Games reported per call: one call per game would cost more than the game.
pub const BATCH: usize = 64;

/// Jobs a worker leases ahead of the one it plays after a short match
/// ([`crate::queue::worker::run`]).
pub const MAX_LEASES_AHEAD: usize = 3;

/// The most jobs one lease request hands out: a worker plays them one after the other, and
/// each lease runs while it waits. Eight, not four: with 8-deal matches a batch of four
/// cost the worker's loop 5.1 to 6.3 µs a game against 4.0 to 4.5 with eight (fewer lease
/// calls, and the play thread takes a batch in one hand-off, [`MAX_GROUP`]).
pub const MAX_LEASE_BATCH: usize = 8;

/// The most matches handed to the play thread at once after short ones
/// ([`crate::queue::worker::run`]): a lease batch's worth.
pub const MAX_GROUP: usize = MAX_LEASE_BATCH;

/// The most reports one call to `POST /api/worker/reports` carries.
pub const MAX_REPORTS_PER_CALL: usize = 8;

/// The most games one call to `POST /api/worker/reports` carries: two reports' worth, so its
/// body cap is twice a report's ([`report_cap`]).
pub const MAX_GAMES_PER_CALL: usize = 2 * BATCH;

/// The most seats any game has (Durak's six).
const MAX_SEATS: usize = 6;

/// The largest report body: a batch of games, every seat's log at its cap (each line costs
/// 16 bytes more as JSON), plus a generous 1 MiB per game for the record itself.
pub fn report_cap(cfg: &ArenaConfig) -> usize {
    let l = &cfg.limits;
    let log = l.log_bytes_per_game as usize + 16 * l.log_lines_per_game as usize;
    BATCH * (MAX_SEATS * log + (1 << 20))
}

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

/// Several leased matches, the answer to a lease request that asks for more than one
/// (`{"max": n}`): one call per match was most of a remote worker's overhead with short
/// matches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Leased {
    /// One to `max` jobs.
    pub jobs: Vec<Job>,
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

/// Several reports in one call (`POST /api/worker/reports`): what a remote worker sends
/// when short matches end, where a report call per match was most of what it spent besides
/// playing.
#[derive(Debug, Serialize, Deserialize)]
pub struct Reports {
    /// Reports, each stored as `POST /api/worker/report` stores it, in order.
    pub reports: Vec<Report>,
}

/// How one report of [`Reports`] went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportOutcome {
    /// Stored, or found lost or incomplete, as a single report's answer says.
    Stored(Stored),
    /// Refused, with why (what a single report's 400 or 500 would say).
    Refused(String),
}

/// The answer to [`Reports`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReportOutcomes {
    /// One per report, in order.
    pub outcomes: Vec<ReportOutcome>,
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
#[derive(Clone, Debug)]
pub struct MatchInfo {
    /// The match's id.
    pub id: i64,
    /// Its master seed.
    pub seed: u64,
    /// Its deals.
    pub deals: u64,
    /// Duplicate deals.
    pub duplicate: bool,
    /// The entrants (version, team, component hash), in schedule order.
    pub entrants: Vec<JobEntrant>,
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
            entrants: job.entrants.clone(),
        }
    }

    /// From a stored match row and its entrants.
    pub fn of_row(row: &MatchRow, entrants: Vec<JobEntrant>) -> MatchInfo {
        MatchInfo {
            id: row.id,
            seed: row.seed as u64,
            deals: row.deals as u64,
            duplicate: row.duplicate != 0,
            entrants,
        }
    }

    /// The match's schedule under the arena's rules.
    pub fn schedule(&self, cfg: &ArenaConfig) -> Result<Schedule, JobError> {
        croupier_tournament::with_game!(cfg.kind(), G => {
            let opts = options::<G>(cfg)?;
            Ok(self.schedule_of(&opts))
        })
    }

    /// The match's schedule under options `opts`.
    fn schedule_of<O: Rules>(&self, opts: &O) -> Schedule {
        Schedule::new(
            self.entrants.len(),
            opts.seats(),
            self.deals,
            self.duplicate,
        )
    }

    /// Each entrant's build id as the runner records it: the first 12 hex digits of its
    /// component's SHA-256 (the loader's `build`).
    fn builds(&self) -> Vec<String> {
        self.entrants
            .iter()
            .map(|e| e.sha256.get(..12).unwrap_or(&e.sha256).to_string())
            .collect()
    }

    /// Each reported game in compact form, checked on the way against the match (index,
    /// deal, rotation, seed, seating) and against the rules (every action legal where it
    /// was played; a game no fault ended has the rules' result): a worker cannot report a
    /// game that was not played.
    pub fn compact(
        &self,
        cfg: &ArenaConfig,
        games: &[GameRecord],
    ) -> Result<Vec<Vec<u8>>, JobError> {
        let builds = self.builds();
        croupier_tournament::with_game!(cfg.kind(), G => {
            let opts = options::<G>(cfg)?;
            let schedule = self.schedule_of(&opts);
            let frame = Frame { schedule: &schedule, seed: self.seed, builds: &builds };
            games
                .iter()
                .map(|g| {
                    compact::encode::<G>(&opts, &frame, g)
                        .map_err(|e| JobError::Bad(format!("match {}: {e}", self.id)))
                })
                .collect()
        })
    }

    /// The whole records of stored games of this match (without the agents' logs): decoded
    /// from their compact form, or read from the JSON of rows stored before it existed.
    pub fn records(
        &self,
        cfg: &ArenaConfig,
        rows: &[GameRow],
    ) -> Result<Vec<GameRecord>, JobError> {
        let builds = self.builds();
        croupier_tournament::with_game!(cfg.kind(), G => {
            let opts = options::<G>(cfg)?;
            let schedule = self.schedule_of(&opts);
            let frame = Frame { schedule: &schedule, seed: self.seed, builds: &builds };
            rows.iter()
                .map(|r| {
                    let corrupt = |e: String| {
                        JobError::Db(DbError::Corrupt(format!(
                            "match {} game {}: {e}",
                            self.id, r.game_index
                        )))
                    };
                    match &r.compact {
                        Some(bytes) => compact::decode::<G>(&opts, &frame, r.game_index as u64, bytes)
                            .map_err(|e| corrupt(e.to_string())),
                        None => serde_json::from_str(&r.record).map_err(|e| corrupt(e.to_string())),
                    }
                })
                .collect()
        })
    }
}

/// The arena's rule options for game `G`.
fn options<G: Game>(cfg: &ArenaConfig) -> Result<G::Options, JobError> {
    croupier_tournament::matches::setup::options::<G>(&cfg.rules_args())
        .map(|(_, o)| o)
        .map_err(|e| JobError::Rules(format!("{e:#}")))
}

/// A finished game as rows: the record without logs, the logs apart (they are private, and
/// cut to `log_cap` bytes per agent, `storage.log_bytes_per_game`),
/// and one row per seat with its dense place (0 best: wins, then draws, then losses).
pub fn to_new_game(
    rec: &GameRecord,
    versions: &[i64],
    teams: &[i64],
    compact: Option<Vec<u8>>,
    log_cap: u32,
) -> NewGame {
    let seats = seats_of(rec, versions, teams);
    let logs = &crate::store::storage::keep_logs(&rec.logs, log_cap);
    // With the compact form the JSON is not stored at all: it is what made a game cost
    // 1.4 KB on disk.
    let record = if compact.is_some() {
        String::new()
    } else {
        let mut public = rec.clone();
        public.logs.clear();
        serde_json::to_string(&public).unwrap_or_default()
    };
    NewGame {
        index: rec.index as i64,
        record,
        compact,
        logs: (!logs.is_empty()).then(|| serde_json::to_string(logs).unwrap_or_default()),
        seats,
    }
}

/// The seat rows of a game: version, team, result, place and first fault per seat.
pub fn seats_of(rec: &GameRecord, versions: &[i64], teams: &[i64]) -> Vec<NewSeat> {
    let order = |r: SeatResult| match r {
        SeatResult::Win => 0,
        SeatResult::Draw => 1,
        SeatResult::Loss => 2,
    };
    let mut classes: Vec<i64> = rec.results.iter().map(|r| order(*r)).collect();
    classes.sort_unstable();
    classes.dedup();
    rec.results
        .iter()
        .enumerate()
        .map(|(s, r)| {
            let entrant = rec.seats.get(s).copied().unwrap_or(0);
            NewSeat {
                seat: s as i64,
                version_id: versions.get(entrant).copied().unwrap_or(0),
                team_id: teams.get(entrant).copied().unwrap_or(0),
                result: SeatOutcome::from(*r),
                place: classes.iter().position(|c| *c == order(*r)).unwrap_or(0) as i64,
                fault: rec
                    .faults
                    .iter()
                    .find(|f| f.seat as usize == s)
                    .map(|f| f.verdict.to_string()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use croupier_host::kind::GameKind;
    use croupier_rules::GameRng;
    use croupier_rules::durak::Durak;

    /// Game `index` of `info`'s match, played by random legal moves as the runner records it.
    fn played(cfg: &ArenaConfig, info: &MatchInfo, index: u64) -> GameRecord {
        let opts = options::<Durak>(cfg).expect("rules");
        let schedule = info.schedule_of(&opts);
        let (deal, rotation) = schedule.game(index);
        let seats = schedule.rotations[rotation].clone();
        let seed = croupier_tournament::runner::game_seed(info.seed, deal);
        let mut game = Durak::new(&opts, seed).expect("deal");
        let (mut rng, mut legal, mut actions) = (GameRng::new(index), Vec::new(), Vec::new());
        while game.to_act().is_some() {
            game.legal_actions(&mut legal);
            let a = legal[rng.below(legal.len())];
            game.apply(a).expect("legal");
            actions.push(Durak::encode_action(a));
        }
        let o = game.outcome().expect("over").clone();
        GameRecord {
            index,
            deal,
            rotation,
            seed,
            builds: seats
                .iter()
                .map(|&e| info.entrants[e].sha256[..12].to_string())
                .collect(),
            seats,
            actions,
            results: o.results,
            scores: o.scores,
            summary: o.summary,
            aborted: o.aborted,
            faults: Vec::new(),
            forfeit: None,
            decisions: 0,
            teams: Some(vec![0, 1, 0, 1]),
            logs: Vec::new(),
            calls: vec![Default::default(); 4],
        }
    }

    /// A game stored compactly and a game stored as JSON before migration 0003 read back
    /// as the same record.
    #[test]
    fn compact_rows_and_json_rows_read_back_alike() {
        let cfg = ArenaConfig::new(GameKind::Durak, "teams");
        let entrant = |v: i64, c: char| JobEntrant {
            version: v,
            team: v,
            sha256: std::iter::repeat_n(c, 64).collect(),
        };
        let info = MatchInfo {
            id: 3,
            seed: 11,
            deals: 2,
            duplicate: true,
            entrants: vec![entrant(1, 'a'), entrant(2, 'b')],
        };
        let recs: Vec<GameRecord> = (0..4).map(|i| played(&cfg, &info, i)).collect();
        let compact = info.compact(&cfg, &recs).expect("compact");
        let row = |i: usize, record: String, compact: Option<Vec<u8>>| GameRow {
            match_id: 3,
            game_index: i as i64,
            record,
            compact,
            logs: None,
            finished_ms: 0,
            pruned_ms: None,
        };
        let rows: Vec<GameRow> = recs
            .iter()
            .zip(compact)
            .enumerate()
            .map(|(i, (r, c))| {
                if i % 2 == 0 {
                    row(i, String::new(), Some(c))
                } else {
                    row(i, serde_json::to_string(r).expect("json"), None)
                }
            })
            .collect();
        assert_eq!(info.records(&cfg, &rows).expect("records"), recs);
    }
}
