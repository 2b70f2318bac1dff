//! The arena's database: SQLite embedded (WAL) by default, PostgreSQL for several machines.
//!
//! One type, [`Db`], holds one of two concrete pools. sqlx's `Any` driver rewrites
//! placeholders wrongly for PostgreSQL, so every query here is written once, with `$N`
//! placeholders that both drivers take, and run on whichever pool is open (`on_pool!`).
//! The one exception is storing a batch of games (`InsertGames`), the ladder's hottest
//! write, which each database does its own fastest way.
//! Each database has its own migrations folder, embedded in the binary.
//!
//! What the schema guarantees: a game is stored once, keyed by (match, game index), in
//! the same transaction that checks the writer still holds the match's lease; a match is
//! done only when its holder says so; a worker that dies leaves a lease that expires and
//! returns the match to the queue, where it is played again from its seed.
//!
//! A write with `RETURNING` is always read with `fetch_all`, never `fetch_one` or
//! `fetch_optional`: sqlx's SQLite driver answers those after the first row, before the
//! statement has finished and its implicit transaction has committed (sqlx issues 2099 and
//! 3430), so the read-only connections (pages) could miss a write that had already returned.

use serde::Serialize;
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

/// A database error, naming what was being done.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The database could not be opened or migrated.
    #[error("database {url}: {reason}")]
    Open {
        /// Where (a file or a URL without its password).
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// A query failed.
    #[error("database: {0}")]
    Query(#[from] sqlx::Error),
    /// A stored value does not decode.
    #[error("database: {0}")]
    Corrupt(String),
}

/// One of the two databases.
#[derive(Clone, Debug)]
pub enum Db {
    /// The embedded default: a file in the arena's directory.
    Sqlite {
        /// The one connection every write (and every read that decides a write) goes
        /// through: two writers on two connections make SQLite's busy handler sleep.
        pool: SqlitePool,
        /// Read-only connections for the pages and the API (`on_read_pool!`). In WAL mode
        /// a reader neither waits for the writer nor holds it up; behind the one writing
        /// connection, a team page's five queries queued behind the ladder's batch inserts
        /// (p99 65 ms with 10⁶ stored games and the ladder playing).
        read: SqlitePool,
    },
    /// A PostgreSQL server.
    Postgres(PgPool),
}

/// Runs `$body` with `$p` bound to whichever pool `$db` holds: the same query text and the
/// same row types on both.
macro_rules! on_pool {
    ($db:expr, $p:ident => $body:expr) => {
        match $db {
            Db::Sqlite { pool: $p, .. } => $body,
            Db::Postgres($p) => $body,
        }
    };
}

/// As [`on_pool!`], for a read that only shows data (a page or the API): SQLite's read-only
/// connections, PostgreSQL's one pool. A read here sees every write committed before it
/// started, so a page shown after a write that returned shows that write.
macro_rules! on_read_pool {
    ($db:expr, $p:ident => $body:expr) => {
        match $db {
            Db::Sqlite { read: $p, .. } => $body,
            Db::Postgres($p) => $body,
        }
    };
}

/// Runs `$body` inside a write transaction `$tx` on whichever pool `$db` holds. SQLite's
/// starts with `BEGIN IMMEDIATE`: a deferred transaction that reads first and writes later
/// fails at once with SQLITE_BUSY_SNAPSHOT when another writer committed in between, which
/// no busy timeout can wait out.
macro_rules! in_write_tx {
    ($db:expr, $tx:ident => $body:expr) => {
        match $db {
            Db::Sqlite { pool: p, .. } => {
                let mut $tx = p.begin_with("BEGIN IMMEDIATE").await?;
                $body
            }
            Db::Postgres(p) => {
                let mut $tx = p.begin().await?;
                $body
            }
        }
    };
}

/// A team as stored.
#[derive(Clone, Debug, Serialize, sqlx::FromRow)]
pub struct TeamRow {
    /// Its id.
    pub id: i64,
    /// Its name, as given by the organiser.
    pub name: String,
    /// SHA-256 of its token.
    #[serde(skip)]
    pub token_hash: Vec<u8>,
    /// When it was added.
    pub created_ms: i64,
    /// Why the organiser took it out of the ladder (possibly empty); `None` while it plays.
    pub withdrawn: Option<String>,
    /// The version number it chose for the final; `None`: its latest valid version.
    pub final_entry: Option<i64>,
}

/// A team on the leaderboard: its latest valid version ([`Db::board_entries`]).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct BoardEntry {
    /// The team's id.
    pub team_id: i64,
    /// Its name.
    pub name: String,
    /// The version's id.
    pub version_id: i64,
    /// Its number within the team.
    pub number: i64,
    /// Why the organiser withdrew the team, if it did.
    pub withdrawn: Option<String>,
}

/// The saved ratings board ([`Db::load_checkpoint`], `crate::ratings`).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct CheckpointRow {
    /// Every match below this id is counted in `body`.
    pub applied_upto: i64,
    /// Games counted.
    pub games: i64,
    /// The board, as `Board::save` writes it.
    pub body: String,
}

/// A worker as stored.
#[derive(Clone, Debug, Serialize, sqlx::FromRow)]
pub struct WorkerRow {
    /// Its id.
    pub id: i64,
    /// Its name, as given by the organiser.
    pub name: String,
    /// SHA-256 of its token.
    #[serde(skip)]
    pub token_hash: Vec<u8>,
    /// When it was added.
    pub created_ms: i64,
    /// When it last leased, beat or reported.
    pub seen_ms: Option<i64>,
}

/// One uploaded version of a team's agent.
#[derive(Clone, Debug, Serialize, sqlx::FromRow)]
pub struct VersionRow {
    /// Its id.
    pub id: i64,
    /// The team.
    pub team_id: i64,
    /// 1 for the team's first upload, then 2, 3, ...
    pub number: i64,
    /// SHA-256 of the file: where it is stored.
    pub sha256: String,
    /// Its size.
    pub bytes: i64,
    /// When it was uploaded.
    pub uploaded_ms: i64,
    /// `queued`, `compiling` or `smoke` while it is checked, then `valid` or `refused`.
    pub status: String,
    /// Why it was refused, or what its smoke match gave.
    pub message: String,
    /// The smoke match (JSON), team and organiser only.
    #[serde(skip)]
    pub smoke: Option<String>,
}

/// A match to play, as a worker leases it.
#[derive(Clone, Debug, Serialize, sqlx::FromRow)]
pub struct MatchRow {
    /// Its id.
    pub id: i64,
    /// `ladder` or `placement`.
    pub kind: String,
    /// The match seed (a u64's bits).
    pub seed: i64,
    /// Deals.
    pub deals: i64,
    /// 1 when every deal is played once per seat rotation.
    pub duplicate: i64,
    /// JSON array of version ids.
    pub entrants: String,
    /// `queued`, `leased` or `done`.
    pub state: String,
    /// When it was queued.
    pub created_ms: i64,
    /// When it was done.
    pub done_ms: Option<i64>,
    /// Times it has been leased, the lease just taken included; only a claim reads it (0
    /// elsewhere).
    #[sqlx(default)]
    pub attempts: i64,
    /// The lease it is held under; only a claim reads it (`None` elsewhere).
    #[sqlx(default)]
    pub lease: Option<String>,
}

impl MatchRow {
    /// The entrants' version ids.
    pub fn entrant_ids(&self) -> Result<Vec<i64>, DbError> {
        serde_json::from_str(&self.entrants)
            .map_err(|e| DbError::Corrupt(format!("match {}: entrants: {e}", self.id)))
    }
}

/// One stored game.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct GameRow {
    /// The match.
    pub match_id: i64,
    /// The game's index in it.
    pub game_index: i64,
    /// The record (JSON, without logs); empty when the game is stored compactly.
    pub record: String,
    /// The record in compact form (`croupier_tournament::compact`), for games stored since
    /// migration 0003.
    pub compact: Option<Vec<u8>>,
    /// The logs (JSON), if any agent logged and the storage budget kept them.
    pub logs: Option<String>,
    /// When it finished.
    pub finished_ms: i64,
    /// When the storage budget dropped its logs, or its replay too ([`GameRow::replay_pruned`]).
    pub pruned_ms: Option<i64>,
}

impl GameRow {
    /// Whether the storage budget dropped this game's replay (its results stay).
    pub fn replay_pruned(&self) -> bool {
        self.compact.is_none() && self.record.is_empty()
    }
}

/// One seat of one stored game: what ratings and tables are computed from.
#[derive(Clone, Debug, Serialize, sqlx::FromRow)]
pub struct SeatRow {
    /// The match.
    pub match_id: i64,
    /// The game.
    pub game_index: i64,
    /// The seat.
    pub seat: i64,
    /// The version in the seat.
    pub version_id: i64,
    /// Its team.
    pub team_id: i64,
    /// `win`, `loss` or `draw`.
    pub result: String,
    /// 0 for the game's best placed entrant.
    pub place: i64,
    /// The seat's first fault's verdict.
    pub fault: Option<String>,
    /// When the game finished.
    pub finished_ms: i64,
}

/// A seat of a game about to be stored.
#[derive(Clone, Debug)]
pub struct NewSeat {
    /// The seat.
    pub seat: i64,
    /// The version in it.
    pub version_id: i64,
    /// Its team.
    pub team_id: i64,
    /// `win`, `loss` or `draw`.
    pub result: &'static str,
    /// Placement in the game, 0 best.
    pub place: i64,
    /// First fault's verdict.
    pub fault: Option<String>,
}

/// A game about to be stored.
#[derive(Clone, Debug)]
pub struct NewGame {
    /// Its index in the match.
    pub index: i64,
    /// The record without logs (JSON); empty when `compact` holds it.
    pub record: String,
    /// The record in compact form (`croupier_tournament::compact`).
    pub compact: Option<Vec<u8>>,
    /// The logs (JSON), if any.
    pub logs: Option<String>,
    /// Its seats.
    pub seats: Vec<NewSeat>,
}

/// A match to queue ([`Db::queue_matches`]).
#[derive(Clone, Debug)]
pub struct NewMatch {
    /// `ladder`, `placement`, `spar` or `final`.
    pub kind: &'static str,
    /// Its master seed.
    pub seed: u64,
    /// Deals in it.
    pub deals: u64,
    /// Every deal once per seat rotation.
    pub duplicate: bool,
    /// The versions playing, in schedule order.
    pub entrants: Vec<i64>,
}

/// One match's games for [`Db::store_many`].
#[derive(Clone, Copy, Debug)]
pub struct GameBatch<'a> {
    /// The match.
    pub match_id: i64,
    /// The lease its worker holds.
    pub lease: &'a str,
    /// Its games.
    pub games: &'a [NewGame],
    /// With `Some(n)`, the match is done once all `n` games of its schedule are stored.
    pub finish: Option<i64>,
}

/// What storing a batch of games found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub enum Stored {
    /// Stored (games already there were left as they were).
    Ok,
    /// The writer no longer holds the match's lease: nothing was stored.
    LeaseLost,
    /// The games were stored, but the match was not ended: it lacks some of its games.
    Incomplete {
        /// Games stored.
        stored: i64,
        /// Games its schedule holds.
        expected: i64,
    },
}

/// `head` followed by `rows` tuples of `width` anonymous placeholders (`?`, bound in order),
/// then `tail`. The text holds only placeholders, never values.
fn multi_row(head: &str, width: usize, rows: usize, tail: &str) -> String {
    let mut sql = String::with_capacity(head.len() + rows * (width * 3 + 4) + tail.len());
    sql.push_str(head);
    for r in 0..rows {
        sql.push_str(if r == 0 { "(" } else { ", (" });
        for c in 0..width {
            sql.push_str(if c == 0 { "?" } else { ", ?" });
        }
        sql.push(')');
    }
    sql.push_str(tail);
    sql
}

/// Inserting a batch of games and their seats, in one statement per table: each statement is
/// a round trip (to the driver's connection thread for SQLite, to the server for
/// PostgreSQL), which cost more than the inserts themselves. A game already stored is left
/// as it was, seats included (their keys conflict and are skipped).
///
/// The games go in only if `lease` holds the match, tested in the same statement: when every
/// game went in, the lease is known to hold without the separate check that was one more
/// round trip per report ([`Db::store_games`]).
trait InsertGames {
    /// The games, under the lease; how many went in.
    async fn insert_games(
        &mut self,
        match_id: i64,
        lease: &str,
        games: &[NewGame],
        now: i64,
    ) -> Result<u64, sqlx::Error>;
    /// Their seats (the caller has made sure of the lease).
    async fn insert_seats(&mut self, match_id: i64, games: &[NewGame]) -> Result<(), sqlx::Error>;
}

/// SQLite: multi-row `VALUES` with anonymous placeholders. With numbered ones (`$n`) the
/// driver asks SQLite each one's name, a linear search, so binding a batch of n values cost
/// O(n²): 18% of the SQLite thread's samples in a ladder profile.
impl InsertGames for sqlx::SqliteConnection {
    async fn insert_games(
        &mut self,
        match_id: i64,
        lease: &str,
        games: &[NewGame],
        now: i64,
    ) -> Result<u64, sqlx::Error> {
        if games.is_empty() {
            return Ok(0);
        }
        // `INSERT ... SELECT` needs its `WHERE` before `ON CONFLICT` (SQLite's parser).
        let game_q = multi_row(
            "INSERT INTO games (match_id, game_index, record, compact, logs, finished_ms)
             SELECT * FROM (VALUES ",
            6,
            games.len(),
            ") WHERE EXISTS (SELECT 1 FROM matches WHERE id = ? AND lease = ? AND state = 'leased')
             ON CONFLICT (match_id, game_index) DO NOTHING",
        );
        let mut q = sqlx::query(sqlx::AssertSqlSafe(game_q.as_str()));
        for g in games {
            q = q
                .bind(match_id)
                .bind(g.index)
                .bind(&g.record)
                .bind(g.compact.as_deref())
                .bind(g.logs.as_deref())
                .bind(now);
        }
        let done = q.bind(match_id).bind(lease).execute(&mut *self).await?;
        Ok(done.rows_affected())
    }

    async fn insert_seats(&mut self, match_id: i64, games: &[NewGame]) -> Result<(), sqlx::Error> {
        let seats: usize = games.iter().map(|g| g.seats.len()).sum();
        if seats == 0 {
            return Ok(());
        }
        let seat_q = multi_row(
            "INSERT INTO game_seats (match_id, game_index, seat, version_id, team_id, result, place, fault) VALUES ",
            8,
            seats,
            " ON CONFLICT (match_id, game_index, seat) DO NOTHING",
        );
        let mut q = sqlx::query(sqlx::AssertSqlSafe(seat_q.as_str()));
        for g in games {
            for s in &g.seats {
                q = q
                    .bind(match_id)
                    .bind(g.index)
                    .bind(s.seat)
                    .bind(s.version_id)
                    .bind(s.team_id)
                    .bind(s.result)
                    .bind(s.place)
                    .bind(s.fault.as_deref());
            }
        }
        q.execute(&mut *self).await?;
        Ok(())
    }
}

/// PostgreSQL: one array per column, spread by `UNNEST`, so the statement's text is the
/// same for every batch. A multi-row `VALUES` of 64 games (2 048 parameters for the seats)
/// took PostgreSQL 1.8 s to parse and 1 s to run on a loaded 2-core machine, a new text
/// for every batch size, and starved every other client of the server.
impl InsertGames for sqlx::PgConnection {
    async fn insert_games(
        &mut self,
        match_id: i64,
        lease: &str,
        games: &[NewGame],
        now: i64,
    ) -> Result<u64, sqlx::Error> {
        if games.is_empty() {
            return Ok(0);
        }
        let game_q = "INSERT INTO games (match_id, game_index, record, compact, logs, finished_ms)
            SELECT $1, u.game_index, u.record, u.compact, u.logs, $2
            FROM UNNEST($3::BIGINT[], $4::TEXT[], $5::BYTEA[], $6::TEXT[]) AS u(game_index, record, compact, logs)
            WHERE EXISTS (SELECT 1 FROM matches WHERE id = $1 AND lease = $7 AND state = 'leased')
            ON CONFLICT (match_id, game_index) DO NOTHING";
        let done = sqlx::query(game_q)
            .bind(match_id)
            .bind(now)
            .bind(games.iter().map(|g| g.index).collect::<Vec<i64>>())
            .bind(
                games
                    .iter()
                    .map(|g| g.record.as_str())
                    .collect::<Vec<&str>>(),
            )
            .bind(
                games
                    .iter()
                    .map(|g| g.compact.as_deref())
                    .collect::<Vec<Option<&[u8]>>>(),
            )
            .bind(
                games
                    .iter()
                    .map(|g| g.logs.as_deref())
                    .collect::<Vec<Option<&str>>>(),
            )
            .bind(lease)
            .execute(&mut *self)
            .await?;
        Ok(done.rows_affected())
    }

    async fn insert_seats(&mut self, match_id: i64, games: &[NewGame]) -> Result<(), sqlx::Error> {
        let seats: Vec<(i64, &NewSeat)> = games
            .iter()
            .flat_map(|g| g.seats.iter().map(move |s| (g.index, s)))
            .collect();
        if seats.is_empty() {
            return Ok(());
        }
        let seat_q = "INSERT INTO game_seats (match_id, game_index, seat, version_id, team_id, result, place, fault)
            SELECT $1, u.* FROM UNNEST($2::BIGINT[], $3::BIGINT[], $4::BIGINT[], $5::BIGINT[], $6::TEXT[], $7::BIGINT[], $8::TEXT[])
                AS u(game_index, seat, version_id, team_id, result, place, fault)
            ON CONFLICT (match_id, game_index, seat) DO NOTHING";
        sqlx::query(seat_q)
            .bind(match_id)
            .bind(seats.iter().map(|(i, _)| *i).collect::<Vec<i64>>())
            .bind(seats.iter().map(|(_, s)| s.seat).collect::<Vec<i64>>())
            .bind(
                seats
                    .iter()
                    .map(|(_, s)| s.version_id)
                    .collect::<Vec<i64>>(),
            )
            .bind(seats.iter().map(|(_, s)| s.team_id).collect::<Vec<i64>>())
            .bind(seats.iter().map(|(_, s)| s.result).collect::<Vec<&str>>())
            .bind(seats.iter().map(|(_, s)| s.place).collect::<Vec<i64>>())
            .bind(
                seats
                    .iter()
                    .map(|(_, s)| s.fault.as_deref())
                    .collect::<Vec<Option<&str>>>(),
            )
            .execute(&mut *self)
            .await?;
        Ok(())
    }
}

// Queries the ladder runs for every match it stores, whatever the number of matches played.
// Each must find its rows through an index: `state <> 'done'` read every match ever played
// (18 ms at 200 000 matches, which 2-deal matches reach in ten minutes), and the 2-deal
// ladder slowed from 40% to 18% of `croupier match` within a minute. The test
// `per_match_queries_never_scan_a_table` checks each plan.

/// Matches not yet done.
const PENDING: &str = "SELECT COUNT(*) FROM matches WHERE state IN ('queued', 'leased')";
/// The id below which every match is done.
const DONE_BELOW: &str =
    "SELECT COALESCE((SELECT MIN(id) FROM matches WHERE state IN ('queued', 'leased')),
                                 (SELECT MAX(id) FROM matches) + 1, 1)";
/// Whether a lease still holds its match (checked before its games are stored).
const HOLDER: &str =
    "SELECT COUNT(*) FROM matches WHERE id = $1 AND lease = $2 AND state = 'leased'";
/// Games stored of a match.
const COUNT_GAMES: &str = "SELECT COUNT(*) FROM games WHERE match_id = $1";
/// Ends a match held under a lease if all its games are stored: the check and the end in
/// one statement, since the count is read only to say why when it is not.
const FINISH: &str = "UPDATE matches SET state = 'done', lease = NULL, done_ms = $1
                      WHERE id = $2 AND lease = $3 AND (SELECT COUNT(*) FROM games WHERE match_id = $2) >= $4";
/// The seats the ratings take next.
const SEATS_BETWEEN: &str = "SELECT s.match_id, s.game_index, s.seat, s.version_id, s.team_id, s.result, s.place, s.fault, g.finished_ms
                 FROM game_seats s JOIN games g ON g.match_id = s.match_id AND g.game_index = s.game_index
                 JOIN matches m ON m.id = s.match_id
                 WHERE s.match_id >= $1 AND s.match_id < $2 AND m.kind NOT IN ('final', 'spar')
                 ORDER BY s.match_id, s.game_index, s.seat";
/// Leases the oldest leasable matches ([`Db::claim`]).
const CLAIM_SQLITE: &str = "UPDATE matches SET state = 'leased', lease = $1 || '-' || CAST(id AS TEXT),
                lease_expires_ms = $2, attempts = attempts + 1
            WHERE id IN (SELECT id FROM matches
                         WHERE state = 'queued' OR (state = 'leased' AND lease_expires_ms < $3)
                         ORDER BY kind <> 'final', kind <> 'spar', id LIMIT $4)
            RETURNING id, kind, seed, deals, duplicate, entrants, state, created_ms, done_ms, attempts, lease";
/// The same on PostgreSQL, which also skips rows another transaction is claiming.
const CLAIM_POSTGRES: &str = "UPDATE matches SET state = 'leased', lease = $1 || '-' || CAST(id AS TEXT),
                lease_expires_ms = $2, attempts = attempts + 1
            WHERE id IN (SELECT id FROM matches
                         WHERE state = 'queued' OR (state = 'leased' AND lease_expires_ms < $3)
                         ORDER BY kind <> 'final', kind <> 'spar', id LIMIT $4 FOR UPDATE SKIP LOCKED)
            RETURNING id, kind, seed, deals, duplicate, entrants, state, created_ms, done_ms, attempts, lease";
/// Live matches listed on the board (the count says how many more there are).
pub const LIVE_SHOWN: i64 = 20;
/// Matches a worker can lease now.
const LEASABLE: &str = "SELECT COUNT(*) FROM matches WHERE state = 'queued' OR (state = 'leased' AND lease_expires_ms < $1)";

/// The most matches [`Db::queue_matches`] puts in one statement: at seven values each, far
/// under SQLite's 32 766 bound parameters, for a queue topped up for hundreds of workers.
const QUEUE_CHUNK: usize = 512;

/// SQLite connections that serve pages: one per core is what can run at once, and a few
/// more cover the ones waiting on the disk.
const READERS: u32 = 4;

fn hide_password(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}://…@{}", &url[..s], &url[at + 1..]),
        _ => url.to_string(),
    }
}

impl Db {
    /// Opens (creating it if need be) and migrates the database: `DIR/arena.db` unless
    /// `url` names a PostgreSQL server.
    pub async fn open(dir: &Path, url: Option<&str>) -> Result<Db, DbError> {
        match url {
            Some(u) if u.starts_with("postgres://") || u.starts_with("postgresql://") => {
                let open = |reason: String| DbError::Open {
                    url: hide_password(u),
                    reason,
                };
                // A minute, not sqlx's 30 s or the 10 s this was: on a loaded 2-core machine
                // a new connection has taken over 10 s to reach PostgreSQL while the old ones
                // went on, and `arena final` failed with `PoolTimedOut` after its games were
                // played (CI, `three_workers_one_killed_on_postgres`). A command had better
                // wait; a server's request is cut at `server::REQUEST_TIMEOUT` anyway.
                let pool = PgPoolOptions::new()
                    .max_connections(8)
                    .acquire_timeout(Duration::from_secs(60))
                    .connect(u)
                    .await
                    .map_err(|e| open(e.to_string()))?;
                sqlx::migrate!("migrations/postgres")
                    .run(&pool)
                    .await
                    .map_err(|e| open(format!("migrating: {e}")))?;
                Ok(Db::Postgres(pool))
            }
            Some(u) => Err(DbError::Open {
                url: hide_password(u),
                reason:
                    "expected a postgres:// URL (the default is SQLite in the arena's directory)"
                        .into(),
            }),
            None => {
                let path = dir.join("arena.db");
                let open = |reason: String| DbError::Open {
                    url: path.display().to_string(),
                    reason,
                };
                let opts = SqliteConnectOptions::from_str("sqlite://")
                    .map_err(|e| open(e.to_string()))?
                    .filename(&path)
                    .create_if_missing(true)
                    // WAL: readers (pages) never wait for the writer (the ladder), and a
                    // killed process loses at most uncommitted transactions.
                    .journal_mode(SqliteJournalMode::Wal)
                    .synchronous(SqliteSynchronous::Normal)
                    .busy_timeout(Duration::from_secs(10))
                    .foreign_keys(true);
                // One connection: statements queue in the server instead of in SQLite's lock,
                // whose busy handler sleeps in steps of up to 100 ms (two writers on two
                // connections cut the ladder to a tenth). Every statement here is short.
                let pool = SqlitePoolOptions::new()
                    .max_connections(1)
                    .connect_with(opts.clone())
                    .await
                    .map_err(|e| open(e.to_string()))?;
                sqlx::migrate!("migrations/sqlite")
                    .run(&pool)
                    .await
                    .map_err(|e| open(format!("migrating: {e}")))?;
                // Opened after the migration, read-only: a page can never write.
                let read = SqlitePoolOptions::new()
                    .max_connections(READERS)
                    .connect_with(opts.create_if_missing(false).read_only(true))
                    .await
                    .map_err(|e| open(format!("read-only connection: {e}")))?;
                Ok(Db::Sqlite { pool, read })
            }
        }
    }

    /// Closes the pool, waiting for connections to finish.
    pub async fn close(&self) {
        on_pool!(self, p => p.close().await)
    }

    /// A value of the `meta` table.
    pub async fn meta(&self, key: &str) -> Result<Option<String>, DbError> {
        let q = "SELECT value FROM meta WHERE key = $1";
        Ok(on_pool!(self, p => sqlx::query_scalar(q).bind(key).fetch_optional(p).await?))
    }

    /// Sets a value of the `meta` table.
    pub async fn set_meta(&self, key: &str, value: &str) -> Result<(), DbError> {
        let q = "INSERT INTO meta (key, value) VALUES ($1, $2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value";
        on_pool!(self, p => { sqlx::query(q).bind(key).bind(value).execute(p).await?; });
        Ok(())
    }

    /// Removes `key` from the `meta` table.
    pub async fn delete_meta(&self, key: &str) -> Result<(), DbError> {
        let q = "DELETE FROM meta WHERE key = $1";
        on_pool!(self, p => { sqlx::query(q).bind(key).execute(p).await?; });
        Ok(())
    }

    /// Removes the final's matches that are not done, with any games they stored, in one
    /// transaction: what `arena reopen` leaves of a final that did not finish. How many.
    pub async fn drop_unfinished_finals(&self) -> Result<u64, DbError> {
        let which = "SELECT id FROM matches WHERE kind = 'final' AND state <> 'done'";
        let seats = format!("DELETE FROM game_seats WHERE match_id IN ({which})");
        let games = format!("DELETE FROM games WHERE match_id IN ({which})");
        let matches = "DELETE FROM matches WHERE kind = 'final' AND state <> 'done'";
        let n = on_pool!(self, p => {
            let mut tx = p.begin().await?;
            sqlx::query(sqlx::AssertSqlSafe(seats.as_str())).execute(&mut *tx).await?;
            sqlx::query(sqlx::AssertSqlSafe(games.as_str())).execute(&mut *tx).await?;
            let n = sqlx::query(matches).execute(&mut *tx).await?.rows_affected();
            tx.commit().await?;
            n
        });
        Ok(n)
    }

    /// The value of `key` in the `meta` table, set to `value` first if it has none: what two
    /// processes that both make it agree on.
    pub async fn meta_or_insert(&self, key: &str, value: &str) -> Result<String, DbError> {
        let q = "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING";
        on_pool!(self, p => { sqlx::query(q).bind(key).bind(value).execute(p).await?; });
        Ok(self.meta(key).await?.unwrap_or_else(|| value.to_string()))
    }

    /// Adds a team; `None` if the name is taken.
    pub async fn add_team(&self, name: &str, token_hash: &[u8]) -> Result<Option<i64>, DbError> {
        let q = "INSERT INTO teams (name, token_hash, created_ms) VALUES ($1, $2, $3)
                 ON CONFLICT (name) DO NOTHING RETURNING id";
        let now = crate::now_ms();
        Ok(
            on_pool!(self, p => sqlx::query_scalar(q).bind(name).bind(token_hash).bind(now).fetch_all(p).await?.into_iter().next()),
        )
    }

    /// Replaces a team's token.
    pub async fn set_team_token(&self, id: i64, token_hash: &[u8]) -> Result<bool, DbError> {
        let q = "UPDATE teams SET token_hash = $1 WHERE id = $2";
        let n = on_pool!(self, p => sqlx::query(q).bind(token_hash).bind(id).execute(p).await?.rows_affected());
        Ok(n == 1)
    }

    /// Sets the version (by number) team `id` enters in the final, or its latest with
    /// `None`, unless the arena is frozen, in the same statement as that check (a final in
    /// another process freezes it). Whether the team was there and the arena open.
    pub async fn set_final_entry(&self, id: i64, number: Option<i64>) -> Result<bool, DbError> {
        let q = "UPDATE teams SET final_entry = $1 WHERE id = $2
                 AND NOT EXISTS (SELECT 1 FROM meta WHERE key = 'frozen' AND value = '1')";
        let n = on_pool!(self, p => sqlx::query(q).bind(number).bind(id).execute(p).await?.rows_affected());
        Ok(n == 1)
    }

    /// Takes team `id` out of the ladder (`Some(reason)`) or puts it back (`None`), and
    /// removes the queued matches (not the leased ones) that a withdrawn team's versions
    /// play in, so that it plays no new game; false if there is no such team.
    pub async fn set_withdrawn(&self, id: i64, reason: Option<&str>) -> Result<bool, DbError> {
        let q = "UPDATE teams SET withdrawn = $1 WHERE id = $2";
        let n = on_pool!(self, p => sqlx::query(q).bind(reason).bind(id).execute(p).await?.rows_affected());
        if n != 1 {
            return Ok(false);
        }
        if reason.is_some() {
            let versions: std::collections::HashSet<i64> = self
                .versions_of(id)
                .await?
                .into_iter()
                .map(|v| v.id)
                .collect();
            // Few rows: the scheduler keeps a few dozen matches waiting per worker. The
            // final's are left alone: its entrants were fixed when it began; and so are the
            // spars a team asked for, which play the versions they named.
            let q = "SELECT id, kind, seed, deals, duplicate, entrants, state, created_ms, done_ms
                     FROM matches WHERE state = 'queued' AND kind NOT IN ('final', 'spar')";
            let queued: Vec<MatchRow> =
                on_pool!(self, p => sqlx::query_as::<_, MatchRow>(q).fetch_all(p).await?);
            for m in queued {
                if m.entrant_ids()?.iter().any(|v| versions.contains(v)) {
                    // Still queued: a worker that leased it meanwhile keeps it, and plays it.
                    let q = "DELETE FROM matches WHERE id = $1 AND state = 'queued'";
                    on_pool!(self, p => sqlx::query(q).bind(m.id).execute(p).await.map(drop)?);
                }
            }
        }
        Ok(true)
    }

    /// A team by id.
    pub async fn team(&self, id: i64) -> Result<Option<TeamRow>, DbError> {
        let q = "SELECT id, name, token_hash, created_ms, withdrawn, final_entry FROM teams WHERE id = $1";
        Ok(
            on_read_pool!(self, p => sqlx::query_as::<_, TeamRow>(q).bind(id).fetch_optional(p).await?),
        )
    }

    /// Every team's name, by id.
    pub async fn team_names(&self) -> Result<std::collections::HashMap<i64, String>, DbError> {
        Ok(self
            .teams()
            .await?
            .into_iter()
            .map(|t| (t.id, t.name))
            .collect())
    }

    /// Every team, by id.
    pub async fn teams(&self) -> Result<Vec<TeamRow>, DbError> {
        let q = "SELECT id, name, token_hash, created_ms, withdrawn, final_entry FROM teams ORDER BY id";
        Ok(on_read_pool!(self, p => sqlx::query_as::<_, TeamRow>(q).fetch_all(p).await?))
    }

    /// Adds a worker; `None` if the name is taken.
    pub async fn add_worker(&self, name: &str, token_hash: &[u8]) -> Result<Option<i64>, DbError> {
        let q = "INSERT INTO workers (name, token_hash, created_ms) VALUES ($1, $2, $3)
                 ON CONFLICT (name) DO NOTHING RETURNING id";
        let now = crate::now_ms();
        Ok(
            on_pool!(self, p => sqlx::query_scalar(q).bind(name).bind(token_hash).bind(now).fetch_all(p).await?.into_iter().next()),
        )
    }

    /// Deletes a worker; false if there was none.
    pub async fn remove_worker(&self, id: i64) -> Result<bool, DbError> {
        let q = "DELETE FROM workers WHERE id = $1";
        let n = on_pool!(self, p => sqlx::query(q).bind(id).execute(p).await?.rows_affected());
        Ok(n == 1)
    }

    /// Replaces a worker's token.
    pub async fn set_worker_token(&self, id: i64, token_hash: &[u8]) -> Result<bool, DbError> {
        let q = "UPDATE workers SET token_hash = $1 WHERE id = $2";
        let n = on_pool!(self, p => sqlx::query(q).bind(token_hash).bind(id).execute(p).await?.rows_affected());
        Ok(n == 1)
    }

    /// A worker by id.
    pub async fn worker(&self, id: i64) -> Result<Option<WorkerRow>, DbError> {
        let q = "SELECT id, name, token_hash, created_ms, seen_ms FROM workers WHERE id = $1";
        Ok(on_pool!(self, p => sqlx::query_as::<_, WorkerRow>(q).bind(id).fetch_optional(p).await?))
    }

    /// Every worker, by id.
    pub async fn workers(&self) -> Result<Vec<WorkerRow>, DbError> {
        let q = "SELECT id, name, token_hash, created_ms, seen_ms FROM workers ORDER BY id";
        Ok(on_pool!(self, p => sqlx::query_as::<_, WorkerRow>(q).fetch_all(p).await?))
    }

    /// Workers heard from since `since_ms`.
    pub async fn active_workers(&self, since_ms: i64) -> Result<i64, DbError> {
        let q = "SELECT COUNT(*) FROM workers WHERE seen_ms >= $1";
        Ok(on_pool!(self, p => sqlx::query_scalar(q).bind(since_ms).fetch_one(p).await?))
    }

    /// Notes that a worker was heard from now.
    pub async fn worker_seen(&self, id: i64) -> Result<(), DbError> {
        let q = "UPDATE workers SET seen_ms = $1 WHERE id = $2";
        on_pool!(self, p => { sqlx::query(q).bind(crate::now_ms()).bind(id).execute(p).await?; });
        Ok(())
    }

    /// Records an upload as the team's next version, `queued` for its check. Returns (id, number).
    pub async fn add_version(
        &self,
        team: i64,
        sha256: &str,
        bytes: i64,
    ) -> Result<(i64, i64), DbError> {
        let q = "INSERT INTO versions (team_id, number, sha256, bytes, uploaded_ms, status)
                 VALUES ($1, (SELECT COALESCE(MAX(number), 0) + 1 FROM versions WHERE team_id = $1), $2, $3, $4, 'queued')
                 RETURNING id, number";
        let now = crate::now_ms();
        let row: (i64, i64) = on_pool!(self, p => sqlx::query_as(q).bind(team).bind(sha256).bind(bytes).bind(now).fetch_all(p).await?.into_iter().next().ok_or(sqlx::Error::RowNotFound)?);
        Ok(row)
    }

    /// Records an upload as the team's next version, `queued` for its check, unless the arena is frozen
    /// for its final: `None` then. One statement, so an upload and `arena final` in another
    /// process cannot both go through: either the version is stored before the freeze, or
    /// it is refused.
    pub async fn add_version_unless_frozen(
        &self,
        team: i64,
        sha256: &str,
        bytes: i64,
    ) -> Result<Option<(i64, i64)>, DbError> {
        let q = "INSERT INTO versions (team_id, number, sha256, bytes, uploaded_ms, status)
                 SELECT $1, (SELECT COALESCE(MAX(number), 0) + 1 FROM versions WHERE team_id = $1), $2, $3, $4, 'queued'
                 WHERE NOT EXISTS (SELECT 1 FROM meta WHERE key = 'frozen')
                 RETURNING id, number";
        let now = crate::now_ms();
        Ok(
            on_pool!(self, p => sqlx::query_as(q).bind(team).bind(sha256).bind(bytes).bind(now).fetch_all(p).await?.into_iter().next()),
        )
    }

    /// A team's latest version, if it has one.
    pub async fn latest_version(&self, team: i64) -> Result<Option<VersionRow>, DbError> {
        let q = "SELECT id, team_id, number, sha256, bytes, uploaded_ms, status, message, smoke
                 FROM versions WHERE team_id = $1 ORDER BY number DESC LIMIT 1";
        Ok(
            on_pool!(self, p => sqlx::query_as::<_, VersionRow>(q).bind(team).fetch_optional(p).await?),
        )
    }

    /// Sets the stage a version's check is at (`queued`, `compiling`, `smoke`).
    pub async fn set_version_stage(&self, id: i64, stage: &str) -> Result<(), DbError> {
        let q = "UPDATE versions SET status = $1 WHERE id = $2";
        on_pool!(self, p => { sqlx::query(q).bind(stage).bind(id).execute(p).await?; });
        Ok(())
    }

    /// Sets a version's verdict.
    pub async fn set_version_status(
        &self,
        id: i64,
        status: &str,
        message: &str,
        smoke: Option<&str>,
    ) -> Result<(), DbError> {
        let q = "UPDATE versions SET status = $1, message = $2, smoke = $3 WHERE id = $4";
        on_pool!(self, p => { sqlx::query(q).bind(status).bind(message).bind(smoke).bind(id).execute(p).await?; });
        Ok(())
    }

    /// A version by id.
    pub async fn version(&self, id: i64) -> Result<Option<VersionRow>, DbError> {
        let q = "SELECT id, team_id, number, sha256, bytes, uploaded_ms, status, message, smoke FROM versions WHERE id = $1";
        Ok(
            on_read_pool!(self, p => sqlx::query_as::<_, VersionRow>(q).bind(id).fetch_optional(p).await?),
        )
    }

    /// Every version, by id.
    pub async fn versions(&self) -> Result<Vec<VersionRow>, DbError> {
        let q = "SELECT id, team_id, number, sha256, bytes, uploaded_ms, status, message, smoke FROM versions ORDER BY id";
        Ok(on_read_pool!(self, p => sqlx::query_as::<_, VersionRow>(q).fetch_all(p).await?))
    }

    /// Version `number` of team `team`.
    pub async fn version_of(&self, team: i64, number: i64) -> Result<Option<VersionRow>, DbError> {
        let q = "SELECT id, team_id, number, sha256, bytes, uploaded_ms, status, message, smoke
                 FROM versions WHERE team_id = $1 AND number = $2";
        Ok(
            on_read_pool!(self, p => sqlx::query_as::<_, VersionRow>(q).bind(team).bind(number).fetch_optional(p).await?),
        )
    }

    /// A team's versions, newest first.
    pub async fn versions_of(&self, team: i64) -> Result<Vec<VersionRow>, DbError> {
        let q = "SELECT id, team_id, number, sha256, bytes, uploaded_ms, status, message, smoke
                 FROM versions WHERE team_id = $1 ORDER BY number DESC";
        Ok(
            on_read_pool!(self, p => sqlx::query_as::<_, VersionRow>(q).bind(team).fetch_all(p).await?),
        )
    }

    /// When a team uploaded since `since_ms`, oldest first (the rate limit).
    pub async fn uploads_since(&self, team: i64, since_ms: i64) -> Result<Vec<i64>, DbError> {
        let q = "SELECT uploaded_ms FROM versions WHERE team_id = $1 AND uploaded_ms > $2 ORDER BY uploaded_ms";
        Ok(on_pool!(self, p => sqlx::query_scalar(q).bind(team).bind(since_ms).fetch_all(p).await?))
    }

    /// Versions whose check has not ended (a server killed while checking them): they are
    /// checked again. `checking` is what servers before the check's stages wrote.
    pub async fn checking_versions(&self) -> Result<Vec<VersionRow>, DbError> {
        let q = "SELECT id, team_id, number, sha256, bytes, uploaded_ms, status, message, smoke
                 FROM versions WHERE status IN ('checking', 'queued', 'compiling', 'smoke') ORDER BY id";
        Ok(on_pool!(self, p => sqlx::query_as::<_, VersionRow>(q).fetch_all(p).await?))
    }

    /// The largest match id, 0 before the first (the next ladder match's number is one past).
    pub async fn last_match_id(&self) -> Result<u64, DbError> {
        let q = "SELECT COALESCE(MAX(id), 0) FROM matches";
        let id: i64 = on_pool!(self, p => sqlx::query_scalar(q).fetch_one(p).await?);
        Ok(u64::try_from(id).unwrap_or(0))
    }

    /// Queues several matches in one statement: the ladder tops the queue up by a lease
    /// batch's worth at a time, and a statement (and a commit) each was a round trip to the
    /// database thread per match. Their ids are not returned: the ladder needs none.
    pub async fn queue_matches(&self, matches: &[NewMatch]) -> Result<(), DbError> {
        for chunk in matches.chunks(QUEUE_CHUNK) {
            self.queue_chunk(chunk).await?;
        }
        Ok(())
    }

    async fn queue_chunk(&self, matches: &[NewMatch]) -> Result<(), DbError> {
        let now = crate::now_ms();
        let entrants = matches
            .iter()
            .map(|m| serde_json::to_string(&m.entrants))
            .collect::<Result<Vec<String>, _>>()
            .map_err(|e| DbError::Corrupt(e.to_string()))?;
        match self {
            Db::Sqlite { pool, .. } => {
                let q = multi_row(
                    "INSERT INTO matches (kind, seed, deals, duplicate, entrants, state, created_ms) VALUES ",
                    7,
                    matches.len(),
                    "",
                );
                let mut q = sqlx::query(sqlx::AssertSqlSafe(q.as_str()));
                for (m, e) in matches.iter().zip(&entrants) {
                    q = q
                        .bind(m.kind)
                        .bind(m.seed as i64)
                        .bind(m.deals as i64)
                        .bind(i64::from(m.duplicate))
                        .bind(e.as_str())
                        .bind("queued")
                        .bind(now);
                }
                q.execute(pool).await?;
            }
            Db::Postgres(pool) => {
                let q = "INSERT INTO matches (kind, seed, deals, duplicate, entrants, state, created_ms)
                         SELECT u.kind, u.seed, u.deals, u.duplicate, u.entrants, 'queued', $6
                         FROM UNNEST($1::TEXT[], $2::BIGINT[], $3::BIGINT[], $4::BIGINT[], $5::TEXT[])
                            WITH ORDINALITY AS u(kind, seed, deals, duplicate, entrants, n)
                         ORDER BY u.n";
                sqlx::query(q)
                    .bind(matches.iter().map(|m| m.kind).collect::<Vec<&str>>())
                    .bind(matches.iter().map(|m| m.seed as i64).collect::<Vec<i64>>())
                    .bind(matches.iter().map(|m| m.deals as i64).collect::<Vec<i64>>())
                    .bind(
                        matches
                            .iter()
                            .map(|m| i64::from(m.duplicate))
                            .collect::<Vec<i64>>(),
                    )
                    .bind(entrants.iter().map(String::as_str).collect::<Vec<&str>>())
                    .bind(now)
                    .execute(pool)
                    .await?;
            }
        }
        Ok(())
    }

    /// The id of house agent `name` built as `sha256`, recorded now if it is new. A rebuilt
    /// agent gets a new id, so a stored spar always names the build it played.
    pub async fn house_agent(&self, name: &str, sha256: &str) -> Result<i64, DbError> {
        let q = "INSERT INTO house_agents (name, sha256) VALUES ($1, $2) ON CONFLICT (name, sha256) DO NOTHING";
        on_pool!(self, p => { sqlx::query(q).bind(name).bind(sha256).execute(p).await?; });
        let q = "SELECT id FROM house_agents WHERE name = $1 AND sha256 = $2";
        Ok(on_pool!(self, p => sqlx::query_scalar(q).bind(name).bind(sha256).fetch_one(p).await?))
    }

    /// A house agent's name and hash by id.
    pub async fn house_agent_by_id(&self, id: i64) -> Result<Option<(String, String)>, DbError> {
        let q = "SELECT name, sha256 FROM house_agents WHERE id = $1";
        Ok(on_read_pool!(self, p => sqlx::query_as(q).bind(id).fetch_optional(p).await?))
    }

    /// Queues a spar match `team` asked for, unless it has asked for `cap` since `since_ms`
    /// or the arena is frozen for its final: `None` then. The count and the insert are one
    /// statement, so two requests at once are counted one after the other (on SQLite, where
    /// a write holds the database; the server also serialises them, see `manage::spar`).
    pub async fn queue_spar(
        &self,
        team: i64,
        cap: u32,
        since_ms: i64,
        m: &NewMatch,
    ) -> Result<Option<i64>, DbError> {
        let q = "INSERT INTO matches (kind, seed, deals, duplicate, entrants, state, created_ms, requested_by)
                 SELECT 'spar', $1, $2, $3, $4, 'queued', $5, $6
                 WHERE (SELECT COUNT(*) FROM matches WHERE requested_by = $6 AND created_ms > $7) < $8
                   AND NOT EXISTS (SELECT 1 FROM meta WHERE key = 'frozen')
                 RETURNING id";
        let entrants =
            serde_json::to_string(&m.entrants).map_err(|e| DbError::Corrupt(e.to_string()))?;
        let now = crate::now_ms();
        Ok(on_pool!(self, p => sqlx::query_scalar(q)
            .bind(m.seed as i64)
            .bind(m.deals as i64)
            .bind(i64::from(m.duplicate))
            .bind(&entrants)
            .bind(now)
            .bind(team)
            .bind(since_ms)
            .bind(i64::from(cap))
            .fetch_all(p)
            .await?
            .into_iter()
            .next()))
    }

    /// When `team` asked for spar matches since `since_ms`, oldest first (the hourly cap).
    pub async fn spars_since(&self, team: i64, since_ms: i64) -> Result<Vec<i64>, DbError> {
        let q = "SELECT created_ms FROM matches WHERE requested_by = $1 AND created_ms > $2 ORDER BY created_ms";
        Ok(on_pool!(self, p => sqlx::query_scalar(q).bind(team).bind(since_ms).fetch_all(p).await?))
    }

    /// Queues a match; returns its id.
    pub async fn queue_match(
        &self,
        kind: &str,
        seed: u64,
        deals: u64,
        duplicate: bool,
        entrants: &[i64],
    ) -> Result<i64, DbError> {
        let q = "INSERT INTO matches (kind, seed, deals, duplicate, entrants, state, created_ms)
                 VALUES ($1, $2, $3, $4, $5, 'queued', $6) RETURNING id";
        let entrants =
            serde_json::to_string(entrants).map_err(|e| DbError::Corrupt(e.to_string()))?;
        let now = crate::now_ms();
        Ok(on_pool!(self, p => sqlx::query_scalar(q)
            .bind(kind)
            .bind(seed as i64)
            .bind(deals as i64)
            .bind(i64::from(duplicate))
            .bind(&entrants)
            .bind(now)
            .fetch_all(p)
            .await?
            .into_iter()
            .next()
            .ok_or(sqlx::Error::RowNotFound)?))
    }

    /// Matches not yet done.
    pub async fn pending_matches(&self) -> Result<i64, DbError> {
        Ok(on_read_pool!(self, p => sqlx::query_scalar(PENDING).fetch_one(p).await?))
    }

    /// The latest valid version of each team, as (team, version) in team order: the ladder's
    /// pool. The scheduler asks after every match, so only these rows travel, not every
    /// version ever uploaded.
    pub async fn latest_valid_versions(&self) -> Result<Vec<(i64, i64)>, DbError> {
        // Not a withdrawn team's: this is what the ladder matches.
        let q = "SELECT v.team_id, MAX(v.id) FROM versions v JOIN teams t ON t.id = v.team_id
                 WHERE v.status = 'valid' AND t.withdrawn IS NULL
                 GROUP BY v.team_id ORDER BY v.team_id";
        Ok(on_pool!(self, p => sqlx::query_as::<_, (i64, i64)>(q).fetch_all(p).await?))
    }

    /// The leaderboard's entries: each team with a valid version, its name and its latest
    /// valid version (id and number), in team order. Only these four columns of one row per
    /// team travel: the board read every team and every version with its smoke log.
    pub async fn board_entries(&self) -> Result<Vec<BoardEntry>, DbError> {
        let q = "SELECT t.id AS team_id, t.name, v.id AS version_id, v.number, t.withdrawn
                 FROM (SELECT team_id, MAX(id) AS id FROM versions WHERE status = 'valid' GROUP BY team_id) l
                 JOIN teams t ON t.id = l.team_id
                 JOIN versions v ON v.id = l.id
                 ORDER BY t.id";
        Ok(on_read_pool!(self, p => sqlx::query_as::<_, BoardEntry>(q).fetch_all(p).await?))
    }

    /// Matches a worker can lease now: queued, or leased under a lease that has run out (the
    /// same test as [`Db::claim`]'s).
    pub async fn leasable_matches(&self) -> Result<i64, DbError> {
        Ok(
            on_pool!(self, p => sqlx::query_scalar(LEASABLE).bind(crate::now_ms()).fetch_one(p).await?),
        )
    }

    /// Leases up to `max` of the oldest matches that are queued, or whose lease has
    /// expired, until `expires_ms`, each under its own lease `{prefix}-{id}`. The final's
    /// matches go first (the ladder is frozen by then, so they are a fixed set); the rest
    /// strictly by age. Not placement matches first: the ratings take matches in id order
    /// and wait at the oldest one not done ([`Db::done_below`]), so an older ladder match
    /// passed over by a stream of placement matches held the ratings still, the new
    /// versions' placement never ended (it is counted from the ratings), and the ladder
    /// played placement matches forever without rating them (a four-seat Toepen ladder).
    ///
    /// One statement, so two workers never hold the same match, and a batch costs one round
    /// trip: claiming one match at a time, with a last claim to find the queue empty, was 2.5
    /// statements per match ended and the most common statement the server ran. In lease
    /// order.
    pub async fn claim(
        &self,
        prefix: &str,
        expires_ms: i64,
        max: usize,
    ) -> Result<Vec<MatchRow>, DbError> {
        let now = crate::now_ms();
        let max = i64::try_from(max).unwrap_or(i64::MAX);
        let q = match self {
            Db::Sqlite { .. } => CLAIM_SQLITE,
            Db::Postgres(_) => CLAIM_POSTGRES,
        };
        let mut rows = on_pool!(self, p => sqlx::query_as::<_, MatchRow>(q)
            .bind(prefix)
            .bind(expires_ms)
            .bind(now)
            .bind(max)
            .fetch_all(p)
            .await?);
        // RETURNING's order is not the subquery's.
        rows.sort_by_key(|r| (r.kind != "final", r.id));
        Ok(rows)
    }

    /// The lease a match is held under, if it is leased.
    pub async fn lease_of(&self, id: i64) -> Result<Option<String>, DbError> {
        let q = "SELECT lease FROM matches WHERE id = $1 AND state = 'leased'";
        Ok(on_pool!(self, p => sqlx::query_scalar::<_, Option<String>>(q).bind(id).fetch_optional(p).await?).flatten())
    }

    /// Extends a lease; false if it is no longer held.
    pub async fn heartbeat(&self, id: i64, lease: &str, expires_ms: i64) -> Result<bool, DbError> {
        let q = "UPDATE matches SET lease_expires_ms = $1 WHERE id = $2 AND lease = $3 AND state = 'leased'";
        let n = on_pool!(self, p => sqlx::query(q).bind(expires_ms).bind(id).bind(lease).execute(p).await?.rows_affected());
        Ok(n == 1)
    }

    /// Gives a leased match back to the queue (the platform failed, not an agent).
    pub async fn release(&self, id: i64, lease: &str) -> Result<(), DbError> {
        let q = "UPDATE matches SET state = 'queued', lease = NULL, lease_expires_ms = NULL
                 WHERE id = $1 AND lease = $2 AND state = 'leased'";
        on_pool!(self, p => { sqlx::query(q).bind(id).bind(lease).execute(p).await?; });
        Ok(())
    }

    /// Gives back every match leased under a name that starts with `worker` and a dash, at
    /// once: a restarted server's matches that its own earlier worker held when it died,
    /// which would otherwise wait out their leases while the ratings, counted in match
    /// order, wait for them. How many went back.
    pub async fn release_all_of(&self, worker: &str) -> Result<u64, DbError> {
        let q = "UPDATE matches SET state = 'queued', lease = NULL, lease_expires_ms = NULL
                 WHERE state = 'leased' AND lease LIKE $1";
        let pattern = format!("{}-%", worker.replace(['%', '_'], ""));
        Ok(on_pool!(self, p => sqlx::query(q).bind(pattern).execute(p).await?.rows_affected()))
    }

    /// The indices of a match's stored games.
    pub async fn stored_indices(&self, match_id: i64) -> Result<Vec<i64>, DbError> {
        let q = "SELECT game_index FROM games WHERE match_id = $1 ORDER BY game_index";
        Ok(on_pool!(self, p => sqlx::query_scalar(q).bind(match_id).fetch_all(p).await?))
    }

    /// Stores games of a match held under `lease`, and, with `finish` (the number of games
    /// its schedule holds), marks it done if all of them are stored, all in one transaction.
    /// A game already stored is left as it was (the same seed gives the same game, so a
    /// second copy could only be identical).
    pub async fn store_games(
        &self,
        match_id: i64,
        lease: &str,
        games: &[NewGame],
        finish: Option<i64>,
    ) -> Result<Stored, DbError> {
        let mut out = self
            .store_many(&[GameBatch {
                match_id,
                lease,
                games,
                finish,
            }])
            .await?;
        out.pop()
            .ok_or_else(|| DbError::Corrupt("storing one match gave no outcome".into()))
    }

    /// Stores several matches' games, each as [`Db::store_games`] would and with one outcome
    /// each, in one transaction: a worker's reports call carries up to eight, and one commit
    /// for all of them spares SQLite a commit and its WAL pages, and the server two round trips
    /// to the database, per report. A lost lease or missing games is an outcome that writes
    /// nothing it should not, so it costs the others nothing; an error rolls back all of them,
    /// and the caller stores them one at a time to find which failed.
    pub async fn store_many(&self, batches: &[GameBatch<'_>]) -> Result<Vec<Stored>, DbError> {
        let now = crate::now_ms();
        let outcomes = in_write_tx!(self, tx => {
            let mut outcomes = Vec::with_capacity(batches.len());
            for b in batches {
                // Every game went in only under the lease; fewer (some stored already, or
                // none sent) says nothing either way, and then the lease is read.
                let put = (*tx).insert_games(b.match_id, b.lease, b.games, now).await?;
                if b.games.is_empty() || put != b.games.len() as u64 {
                    let held: i64 = sqlx::query_scalar(HOLDER).bind(b.match_id).bind(b.lease)
                        .fetch_one(&mut *tx).await?;
                    if held != 1 {
                        // Nothing of this match went in: the games' insert tests the lease.
                        outcomes.push(Stored::LeaseLost);
                        continue;
                    }
                }
                (*tx).insert_seats(b.match_id, b.games).await?;
                let mut outcome = Stored::Ok;
                if let Some(expected) = b.finish {
                    // A match is done only with every game of its schedule: a worker that
                    // says "done" early (a bug, a stale build) cannot end it short.
                    let ended = sqlx::query(FINISH).bind(now).bind(b.match_id).bind(b.lease).bind(expected)
                        .execute(&mut *tx).await?.rows_affected();
                    if ended != 1 {
                        // The lease was checked above, in this transaction: games are missing.
                        let stored: i64 = sqlx::query_scalar(COUNT_GAMES).bind(b.match_id)
                            .fetch_one(&mut *tx).await?;
                        outcome = Stored::Incomplete { stored, expected };
                    }
                }
                outcomes.push(outcome);
            }
            tx.commit().await?;
            outcomes
        });
        Ok(outcomes)
    }

    /// A match by id.
    pub async fn match_row(&self, id: i64) -> Result<Option<MatchRow>, DbError> {
        let q = "SELECT id, kind, seed, deals, duplicate, entrants, state, created_ms, done_ms FROM matches WHERE id = $1";
        Ok(
            on_read_pool!(self, p => sqlx::query_as::<_, MatchRow>(q).bind(id).fetch_optional(p).await?),
        )
    }

    /// The matches being played now (leased), the oldest first, at most [`LIVE_SHOWN`], and
    /// how many there are. Through the `(state, id)` index: a few rows, however many matches
    /// were played.
    pub async fn live_matches(&self) -> Result<(Vec<MatchRow>, i64), DbError> {
        let q = "SELECT id, kind, seed, deals, duplicate, entrants, state, created_ms, done_ms
                 FROM matches WHERE state = 'leased' ORDER BY id LIMIT $1";
        let rows = on_read_pool!(self, p => sqlx::query_as::<_, MatchRow>(q).bind(LIVE_SHOWN).fetch_all(p).await?);
        let n = "SELECT COUNT(*) FROM matches WHERE state = 'leased'";
        let count: i64 = on_read_pool!(self, p => sqlx::query_scalar(n).fetch_one(p).await?);
        Ok((rows, count))
    }

    /// Games stored of a match.
    pub async fn games_stored(&self, match_id: i64) -> Result<i64, DbError> {
        Ok(
            on_read_pool!(self, p => sqlx::query_scalar(COUNT_GAMES).bind(match_id).fetch_one(p).await?),
        )
    }

    /// Every match, by id.
    pub async fn matches(&self) -> Result<Vec<MatchRow>, DbError> {
        let q = "SELECT id, kind, seed, deals, duplicate, entrants, state, created_ms, done_ms
                 FROM matches ORDER BY id";
        Ok(on_pool!(self, p => sqlx::query_as::<_, MatchRow>(q).fetch_all(p).await?))
    }

    /// Every match that is done, by id.
    pub async fn done_matches(&self) -> Result<Vec<MatchRow>, DbError> {
        let q = "SELECT id, kind, seed, deals, duplicate, entrants, state, created_ms, done_ms
                 FROM matches WHERE state = 'done' ORDER BY id";
        Ok(on_pool!(self, p => sqlx::query_as::<_, MatchRow>(q).fetch_all(p).await?))
    }

    /// The id below which every match is done: the lowest id of a match not yet done, or
    /// one past the last match. Ratings take matches in id order and stop here, so they never
    /// depend on the order results arrived in.
    pub async fn done_below(&self) -> Result<i64, DbError> {
        Ok(on_pool!(self, p => sqlx::query_scalar(DONE_BELOW).fetch_one(p).await?))
    }

    /// The saved ratings board, if one was saved.
    pub async fn load_checkpoint(&self) -> Result<Option<CheckpointRow>, DbError> {
        let q = "SELECT applied_upto, games, body FROM board_checkpoint WHERE id = 1";
        Ok(on_pool!(self, p => sqlx::query_as::<_, CheckpointRow>(q).fetch_optional(p).await?))
    }

    /// Saves the ratings board, unless the one saved already counts more matches (several
    /// servers on one PostgreSQL each save their own).
    pub async fn save_checkpoint(&self, c: &CheckpointRow) -> Result<(), DbError> {
        let q = "INSERT INTO board_checkpoint (id, applied_upto, games, body, written_ms)
                 VALUES (1, $1, $2, $3, $4)
                 ON CONFLICT (id) DO UPDATE SET applied_upto = excluded.applied_upto,
                     games = excluded.games, body = excluded.body, written_ms = excluded.written_ms
                 WHERE excluded.applied_upto >= board_checkpoint.applied_upto";
        let now = crate::now_ms();
        on_pool!(self, p => {
            sqlx::query(q).bind(c.applied_upto).bind(c.games).bind(&c.body).bind(now).execute(p).await?;
        });
        Ok(())
    }

    /// Games stored in matches below `upto`.
    pub async fn games_below(&self, upto: i64) -> Result<i64, DbError> {
        let q = "SELECT COUNT(*) FROM games WHERE match_id < $1";
        Ok(on_pool!(self, p => sqlx::query_scalar(q).bind(upto).fetch_one(p).await?))
    }

    /// One stored game.
    pub async fn game(&self, match_id: i64, index: i64) -> Result<Option<GameRow>, DbError> {
        let q = "SELECT match_id, game_index, record, compact, logs, finished_ms, pruned_ms FROM games WHERE match_id = $1 AND game_index = $2";
        Ok(
            on_read_pool!(self, p => sqlx::query_as::<_, GameRow>(q).bind(match_id).bind(index).fetch_optional(p).await?),
        )
    }

    /// Every game of a match.
    pub async fn games_of_match(&self, match_id: i64) -> Result<Vec<GameRow>, DbError> {
        let q = "SELECT match_id, game_index, record, compact, logs, finished_ms, pruned_ms FROM games WHERE match_id = $1 ORDER BY game_index";
        Ok(on_pool!(self, p => sqlx::query_as::<_, GameRow>(q).bind(match_id).fetch_all(p).await?))
    }

    /// Seats of every game of matches with id in `[from, to)`, in (match, game, seat) order.
    pub async fn seats_between(&self, from: i64, to: i64) -> Result<Vec<SeatRow>, DbError> {
        Ok(
            on_pool!(self, p => sqlx::query_as::<_, SeatRow>(SEATS_BETWEEN).bind(from).bind(to).fetch_all(p).await?),
        )
    }

    /// Every seat of one team's latest `limit` games, newest game first: one query, so a
    /// team page costs the same with ten games stored or a million.
    pub async fn recent_games_of_team(
        &self,
        team: i64,
        limit: i64,
    ) -> Result<Vec<SeatRow>, DbError> {
        // The games first (read off the (team, match, game) index, no sort), then their
        // seats: 0.2 ms on 90 000 games where filtering the seats by a subquery on the old
        // (team, match) index took 0.7 ms (sqlite3's timer).
        let q = "WITH recent AS (SELECT DISTINCT match_id, game_index FROM game_seats WHERE team_id = $1
                                 ORDER BY match_id DESC, game_index DESC LIMIT $2)
                 SELECT s.match_id, s.game_index, s.seat, s.version_id, s.team_id, s.result, s.place, s.fault, g.finished_ms
                 FROM recent r
                 JOIN game_seats s ON s.match_id = r.match_id AND s.game_index = r.game_index
                 JOIN games g ON g.match_id = r.match_id AND g.game_index = r.game_index
                 ORDER BY s.match_id DESC, s.game_index DESC, s.seat";
        Ok(
            on_read_pool!(self, p => sqlx::query_as::<_, SeatRow>(q).bind(team).bind(limit).fetch_all(p).await?),
        )
    }

    /// Every seat of the given games (for listing opponents).
    pub async fn seats_of_game(&self, match_id: i64, index: i64) -> Result<Vec<SeatRow>, DbError> {
        let q = "SELECT s.match_id, s.game_index, s.seat, s.version_id, s.team_id, s.result, s.place, s.fault, g.finished_ms
                 FROM game_seats s JOIN games g ON g.match_id = s.match_id AND g.game_index = s.game_index
                 WHERE s.match_id = $1 AND s.game_index = $2 ORDER BY s.seat";
        Ok(
            on_read_pool!(self, p => sqlx::query_as::<_, SeatRow>(q).bind(match_id).bind(index).fetch_all(p).await?),
        )
    }

    /// Every stored seat of a match, by game and seat.
    pub async fn seats_of_match(&self, match_id: i64) -> Result<Vec<SeatRow>, DbError> {
        let q = "SELECT s.match_id, s.game_index, s.seat, s.version_id, s.team_id, s.result, s.place, s.fault, g.finished_ms
                 FROM game_seats s JOIN games g ON g.match_id = s.match_id AND g.game_index = s.game_index
                 WHERE s.match_id = $1 ORDER BY s.game_index, s.seat";
        Ok(
            on_read_pool!(self, p => sqlx::query_as::<_, SeatRow>(q).bind(match_id).fetch_all(p).await?),
        )
    }

    /// Stored games in all.
    pub async fn game_count(&self) -> Result<i64, DbError> {
        let q = "SELECT COUNT(*) FROM games";
        Ok(on_read_pool!(self, p => sqlx::query_scalar(q).fetch_one(p).await?))
    }

    /// What the stored games hold, for the storage budget: rows of games and seats, and the
    /// bytes of their replays and logs. One pass over the games (a second at 10⁶ games on a
    /// 2-core machine), so it is read when the budget is applied, not for every page.
    pub async fn game_bytes(&self) -> Result<GameBytes, DbError> {
        let q = "SELECT COUNT(*),
                        CAST(COALESCE(SUM(octet_length(record) + COALESCE(octet_length(compact), 0)), 0) AS BIGINT),
                        CAST(COALESCE(SUM(COALESCE(octet_length(logs), 0)), 0) AS BIGINT),
                        CAST(COALESCE(SUM(CASE WHEN pruned_ms IS NULL THEN 0 ELSE 1 END), 0) AS BIGINT)
                 FROM games";
        let seats_q = "SELECT COUNT(*) FROM game_seats";
        let (games, replays, logs, pruned): (i64, i64, i64, i64) =
            on_read_pool!(self, p => sqlx::query_as(q).fetch_one(p).await?);
        let seats: i64 = on_read_pool!(self, p => sqlx::query_scalar(seats_q).fetch_one(p).await?);
        Ok(GameBytes {
            games,
            seats,
            replays,
            logs,
            pruned,
        })
    }

    /// The database's size on disk: SQLite's file (pages in use and free ones, which new
    /// games reuse), or PostgreSQL's `pg_database_size`.
    pub async fn file_bytes(&self) -> Result<i64, DbError> {
        Ok(match self {
            Db::Sqlite { read, .. } => {
                let pages: i64 = sqlx::query_scalar("PRAGMA page_count")
                    .fetch_one(read)
                    .await?;
                let size: i64 = sqlx::query_scalar("PRAGMA page_size")
                    .fetch_one(read)
                    .await?;
                pages * size
            }
            Db::Postgres(p) => {
                sqlx::query_scalar("SELECT pg_database_size(current_database())")
                    .fetch_one(p)
                    .await?
            }
        })
    }

    /// The retention rule on matches `[from, to)`: every game of a match that is not a
    /// final and not one in `keep_one_in` (by match id) loses its logs and its replay.
    /// The caller gives a range of done matches. Games already pruned are left.
    pub async fn prune_matches(
        &self,
        from: i64,
        to: i64,
        keep_one_in: i64,
        now: i64,
    ) -> Result<u64, DbError> {
        let q = "UPDATE games SET record = '', compact = NULL, logs = NULL, pruned_ms = $1
                 WHERE match_id >= $2 AND match_id < $3
                   AND (compact IS NOT NULL OR record <> '' OR logs IS NOT NULL)
                   AND match_id IN (SELECT id FROM matches WHERE id >= $2 AND id < $3
                                    AND kind <> 'final' AND id % $4 <> 0)";
        let done = on_pool!(self, p => sqlx::query(q).bind(now).bind(from).bind(to).bind(keep_one_in).execute(p).await?.rows_affected());
        Ok(done)
    }

    /// The first match, from `from` on, that the retention rule must leave alone: not done,
    /// or done at `cutoff` or later. Matches are done roughly in id order, so the rule
    /// stops at the first recent one rather than skip it.
    pub async fn first_match_kept(&self, from: i64, cutoff: i64) -> Result<i64, DbError> {
        let q = "SELECT COALESCE(
                    (SELECT MIN(id) FROM matches WHERE id >= $1 AND (state <> 'done' OR done_ms >= $2)),
                    (SELECT MAX(id) FROM matches) + 1, $1)";
        Ok(on_pool!(self, p => sqlx::query_scalar(q).bind(from).bind(cutoff).fetch_one(p).await?))
    }

    /// Drops the logs (`replays` false) or the replays and logs (`replays` true) of up to
    /// `limit` of the oldest games after `after` (match, game) that still have them, in
    /// matches below `below` that are not finals. Returns the last game dropped, how many,
    /// and the bytes freed; `None` when there was none.
    pub async fn drop_oldest(
        &self,
        replays: bool,
        after: (i64, i64),
        below: i64,
        limit: i64,
        now: i64,
    ) -> Result<Option<((i64, i64), u64, i64)>, DbError> {
        let (has, bytes, set) = if replays {
            (
                "(compact IS NOT NULL OR record <> '' OR logs IS NOT NULL)",
                "octet_length(record) + COALESCE(octet_length(compact), 0) + COALESCE(octet_length(logs), 0)",
                "record = '', compact = NULL, logs = NULL",
            )
        } else {
            ("logs IS NOT NULL", "octet_length(logs)", "logs = NULL")
        };
        let pick = format!(
            "SELECT match_id, game_index, CAST({bytes} AS BIGINT) FROM games
             WHERE (match_id, game_index) > ($1, $2) AND match_id < $3 AND {has}
               AND match_id NOT IN (SELECT id FROM matches WHERE kind = 'final')
             ORDER BY match_id, game_index LIMIT $4"
        );
        let rows: Vec<(i64, i64, i64)> = on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(pick.as_str()))
            .bind(after.0).bind(after.1).bind(below).bind(limit).fetch_all(p).await?);
        let Some(&(m, g, _)) = rows.last() else {
            return Ok(None);
        };
        let update = format!(
            "UPDATE games SET {set}, pruned_ms = $1
             WHERE (match_id, game_index) > ($2, $3) AND (match_id, game_index) <= ($4, $5)
               AND match_id < $6 AND {has}
               AND match_id NOT IN (SELECT id FROM matches WHERE kind = 'final')"
        );
        let done = on_pool!(self, p => sqlx::query(sqlx::AssertSqlSafe(update.as_str()))
            .bind(now).bind(after.0).bind(after.1).bind(m).bind(g).bind(below).execute(p).await?.rows_affected());
        let freed = rows.iter().map(|r| r.2).sum();
        Ok(Some(((m, g), done, freed)))
    }
}

/// What the stored games hold ([`Db::game_bytes`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct GameBytes {
    /// Games stored.
    pub games: i64,
    /// Their seats (results).
    pub seats: i64,
    /// Bytes of their replays (compact or JSON records).
    pub replays: i64,
    /// Bytes of their logs.
    pub logs: i64,
    /// Games the budget has pruned (logs, or replay and logs).
    pub pruned: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh arena directory under the system's temp dir, removed on drop.
    struct Dir(std::path::PathBuf);
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A new SQLite arena database in its own directory, with its two pools.
    struct Opened {
        db: Db,
        write: SqlitePool,
        read: SqlitePool,
        // Last, so that the pools are dropped before the directory goes.
        _dir: Dir,
    }

    async fn open(name: &str) -> Opened {
        let d = std::env::temp_dir().join(format!("croupier-db-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("temp dir");
        let dir = Dir(d);
        let db = Db::open(&dir.0, None).await.expect("open");
        let Db::Sqlite { pool, read } = db.clone() else {
            panic!("SQLite by default")
        };
        Opened {
            db,
            write: pool,
            read,
            _dir: dir,
        }
    }

    /// Regression: pages read on the one writing connection, so with 10⁶ stored games a
    /// team page queued behind the ladder's inserts (p99 65 ms). A page's read must finish
    /// while a write transaction is open, which one shared connection can never do.
    #[tokio::test]
    async fn a_page_reads_while_the_writer_holds_a_transaction() {
        let o = open("reader").await;
        o.db.add_team("a", &[0; 32])
            .await
            .expect("team")
            .expect("id");
        let mut tx = o.write.begin_with("BEGIN IMMEDIATE").await.expect("begin");
        sqlx::query("INSERT INTO meta (key, value) VALUES ('held', 'yes')")
            .execute(&mut *tx)
            .await
            .expect("write");
        let teams = tokio::time::timeout(Duration::from_secs(30), o.db.teams())
            .await
            .expect("the read waited for the writer")
            .expect("teams");
        assert_eq!(teams.len(), 1);
        // It sees what was committed, not the open transaction's write.
        let held: Option<String> = sqlx::query_scalar("SELECT value FROM meta WHERE key = 'held'")
            .fetch_optional(&o.read)
            .await
            .expect("read meta");
        assert_eq!(held, None);
        tx.commit().await.expect("commit");
    }

    /// A game row as a worker's report makes it (the record's text is not read here).
    fn new_game(index: i64) -> NewGame {
        NewGame {
            index,
            record: "{}".into(),
            compact: None,
            logs: None,
            seats: (0..2)
                .map(|seat| NewSeat {
                    seat,
                    version_id: 1,
                    team_id: 1,
                    result: if seat == 0 { "win" } else { "loss" },
                    place: seat,
                    fault: None,
                })
                .collect(),
        }
    }

    /// The ladder's top-up: every match in one statement per chunk, in order, each as
    /// `queue_match` would queue it.
    #[tokio::test]
    async fn matches_queued_together_keep_their_order() {
        let o = open("queue").await;
        let fresh: Vec<NewMatch> = (0..QUEUE_CHUNK as u64 + 3)
            .map(|i| NewMatch {
                kind: if i % 2 == 0 { "ladder" } else { "placement" },
                seed: u64::MAX - i,
                deals: 8,
                duplicate: i == 1,
                entrants: vec![1, 2 + i as i64],
            })
            .collect();
        o.db.queue_matches(&fresh).await.expect("queued");
        let rows = o.db.matches().await.expect("read");
        assert_eq!(rows.len(), fresh.len());
        let mut rows = rows;
        rows.sort_by_key(|r| r.id);
        for (r, m) in rows.iter().zip(&fresh) {
            assert_eq!(r.kind, m.kind);
            assert_eq!(r.seed as u64, m.seed);
            assert_eq!(r.deals, 8);
            assert_eq!(r.duplicate != 0, m.duplicate);
            assert_eq!(r.entrant_ids().expect("entrants"), m.entrants);
            assert_eq!(r.state, "queued");
        }
        assert_eq!(
            o.db.leasable_matches().await.expect("count"),
            fresh.len() as i64
        );
    }

    /// A withdrawn team leaves what the ladder matches, and its queued matches go; a match
    /// a worker holds, the final's, and other teams' matches stay. Reinstated, it is matched
    /// again.
    #[tokio::test]
    async fn a_withdrawn_team_is_not_matched_and_its_queued_matches_go() {
        let o = open("withdraw").await;
        let db = &o.db;
        let mut latest = Vec::new();
        for name in ["a", "b", "c"] {
            let team = db.add_team(name, b"h").await.expect("team").expect("new");
            let (v, _) = db.add_version(team, "00", 1).await.expect("version");
            db.set_version_status(v, "valid", "", None)
                .await
                .expect("valid");
            latest.push((team, v));
        }
        let [(_, va), (_, vb), (c, vc)] = latest[..] else {
            panic!("three teams")
        };
        let held = db
            .queue_match("ladder", 1, 1, false, &[va, vc])
            .await
            .expect("q");
        db.claim("w1", i64::MAX, 1).await.expect("claim");
        let with_c = db
            .queue_match("ladder", 2, 1, false, &[vc, vb])
            .await
            .expect("q");
        let placement = db
            .queue_match("placement", 3, 1, false, &[va, vc])
            .await
            .expect("q");
        let without = db
            .queue_match("ladder", 4, 1, false, &[va, vb])
            .await
            .expect("q");
        let last = db
            .queue_match("final", 5, 1, false, &[va, vb, vc])
            .await
            .expect("q");
        assert!(db.set_withdrawn(c, Some("left")).await.expect("withdrawn"));
        assert!(!db.set_withdrawn(999, Some("x")).await.expect("no team"));
        let ids: Vec<i64> = db
            .matches()
            .await
            .expect("read")
            .iter()
            .map(|m| m.id)
            .collect();
        assert!(ids.contains(&held) && ids.contains(&without) && ids.contains(&last));
        assert!(
            !ids.contains(&with_c) && !ids.contains(&placement),
            "{ids:?}"
        );
        let matched = db.latest_valid_versions().await.expect("read");
        assert_eq!(matched, [(1, va), (2, vb)]);
        let team = db.team(c).await.expect("read").expect("team c");
        assert_eq!(team.withdrawn.as_deref(), Some("left"));
        assert!(db.set_withdrawn(c, None).await.expect("reinstated"));
        assert_eq!(db.latest_valid_versions().await.expect("read").len(), 3);
        assert_eq!(db.team(c).await.expect("read").expect("c").withdrawn, None);
    }

    /// Several matches' reports in one transaction: each gets the outcome it would get
    /// alone, and an error rolls all of them back (the caller then stores them one by one).
    #[tokio::test]
    async fn reports_stored_together_keep_their_own_outcomes() {
        let o = open("many").await;
        let mut ids = Vec::new();
        for _ in 0..4 {
            ids.push(
                o.db.queue_match("ladder", 1, 1, false, &[1, 2])
                    .await
                    .expect("queue"),
            );
        }
        let rows = o.db.claim("w1-x", i64::MAX, 4).await.expect("claim");
        let lease = |id: i64| -> String {
            rows.iter()
                .find(|r| r.id == id)
                .and_then(|r| r.lease.clone())
                .expect("leased")
        };
        let (l0, l1, l2, l3) = (lease(ids[0]), lease(ids[1]), lease(ids[2]), lease(ids[3]));
        let two = [new_game(0), new_game(1)];
        let batch = |match_id, lease, games, finish| GameBatch {
            match_id,
            lease,
            games,
            finish,
        };
        let out =
            o.db.store_many(&[
                batch(ids[0], &l0, &two, Some(2)),
                batch(ids[1], &l0, &two, Some(2)),
                batch(ids[2], &l2, &two[..1], Some(2)),
            ])
            .await
            .expect("stored");
        assert_eq!(
            out,
            [
                Stored::Ok,
                Stored::LeaseLost,
                Stored::Incomplete {
                    stored: 1,
                    expected: 2
                }
            ]
        );
        let indices = |id| o.db.stored_indices(id);
        let db = &o.db;
        let state = |id| async move {
            let row = db.match_row(id).await.expect("read");
            row.expect("the match").state
        };
        assert_eq!(indices(ids[0]).await.expect("read"), [0, 1]);
        assert_eq!(indices(ids[1]).await.expect("read"), Vec::<i64>::new());
        assert_eq!(indices(ids[2]).await.expect("read"), [0]);
        assert_eq!(state(ids[0]).await, "done");
        assert_eq!(state(ids[2]).await, "leased");

        // The database refuses one match's games: nothing of the call is kept.
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "CREATE TRIGGER refuse BEFORE INSERT ON games WHEN NEW.match_id = {}
             BEGIN SELECT RAISE(ABORT, 'refused'); END",
            ids[3]
        )))
        .execute(&o.write)
        .await
        .expect("trigger");
        let failed =
            o.db.store_many(&[
                batch(ids[1], &l1, &two, Some(2)),
                batch(ids[3], &l3, &two, Some(2)),
            ])
            .await;
        assert!(failed.is_err(), "{failed:?}");
        assert_eq!(indices(ids[1]).await.expect("read"), Vec::<i64>::new());
        assert_eq!(state(ids[1]).await, "leased");
        // Alone, the other one goes in.
        let alone = o.db.store_games(ids[1], &l1, &two, Some(2)).await;
        assert_eq!(alone.expect("stored"), Stored::Ok);
    }

    /// Regression: `state <> 'done'` read every match ever played, once per match stored.
    /// No query the ladder runs per match may read a whole table, so that a match costs the
    /// same after a million as after ten. SQLite's plan names a full read as `SCAN table`
    /// (or its alias). It cannot see everything: the old `MIN(id) ... WHERE state <> 'done'`
    /// planned as a `SEARCH` of the primary key that walked every done match; the counts
    /// beside it, which had the same filter, are what this test catches.
    #[tokio::test]
    async fn per_match_queries_never_scan_a_table() {
        let o = open("plans").await;
        for q in [
            PENDING,
            DONE_BELOW,
            LEASABLE,
            HOLDER,
            COUNT_GAMES,
            FINISH,
            SEATS_BETWEEN,
            CLAIM_SQLITE,
        ] {
            let params = (1..10).filter(|n| q.contains(&format!("${n}"))).count();
            let mut explain = sqlx::query_as::<_, (i64, i64, i64, String)>(sqlx::AssertSqlSafe(
                format!("EXPLAIN QUERY PLAN {q}"),
            ));
            for _ in 0..params {
                explain = explain.bind(0i64);
            }
            let plan = explain.fetch_all(&o.write).await.expect("explain");
            let scans: Vec<&str> = plan
                .iter()
                .map(|r| r.3.as_str())
                .filter(|d| d.starts_with("SCAN ") && *d != "SCAN CONSTANT ROW")
                .collect();
            assert!(scans.is_empty(), "{q}\nreads a whole table: {scans:?}");
        }
    }

    /// The page connections are opened read-only: nothing shown can write.
    #[tokio::test]
    async fn the_page_connections_cannot_write() {
        let o = open("readonly").await;
        let err = sqlx::query("INSERT INTO meta (key, value) VALUES ('x', 'y')")
            .execute(&o.read)
            .await
            .expect_err("a write on a read-only connection");
        assert!(err.to_string().contains("readonly"), "{err}");
    }
}
