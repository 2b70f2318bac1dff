//! The arena's database: SQLite embedded (WAL) by default, PostgreSQL for several machines.
//!
//! One type, [`Db`], holds one of two concrete pools. sqlx's `Any` driver rewrites
//! placeholders wrongly for PostgreSQL, so every query here is written once, with `$N`
//! placeholders that both drivers take, and run on whichever pool is open (`on_pool!`).
//! The one exception is storing a batch of games (`insert::InsertGames`), the ladder's
//! hottest write, which each database does its own fastest way.
//! Each database has its own migrations folder, embedded in the binary.
//!
//! This file holds what every table shares: [`Db`] and [`DbError`], opening and closing,
//! the pool macros, and the `meta` table. Each table (or concern) has its file, which adds
//! its methods to [`Db`] in an `impl Db` block of its own, so a caller writes
//! `arena.db.claim(..)` whichever file holds it, and keeps its row types beside them:
//! [`teams`], [`workers`], [`versions`], [`matches`] (queueing and reading), [`leases`]
//! (claiming, beating, giving back), [`games`] (storing under a lease) with [`insert`] (the
//! batch insert per database), [`seats`], [`checkpoint`] (the ratings'), [`spars`] (house
//! agents, spar matches and the boss matches not yet counted) and [`retention`] (what the
//! storage budget reads and drops). A table's file imports this one, never the reverse,
//! and no table's file imports one that imports it back (`scripts/import-cycles.py`). The words a state column holds are enums
//! in [`states`], a leaf every table may use: rows decode into them on both databases, and a
//! word they do not know is a [`DbError::Decode`] naming the column and the word.
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
    Query(sqlx::Error),
    /// A stored value does not decode.
    #[error("database: {0}")]
    Corrupt(String),
    /// A column's value is not one its type knows: a state this server never writes (a
    /// newer server's, a hand edit), or a value of another type.
    #[error("database: column {column}: {reason}")]
    Decode {
        /// The column, as the query named it.
        column: String,
        /// What was wrong, with the value (`invalid value "x" for enum MatchState`).
        reason: String,
    },
}

impl From<sqlx::Error> for DbError {
    /// A decode error names its column apart, so that an unknown state reads as one
    /// (`column state: invalid value "paused" for enum MatchState`) rather than as a failed
    /// query.
    fn from(e: sqlx::Error) -> DbError {
        match e {
            sqlx::Error::ColumnDecode { index, source } => DbError::Decode {
                column: index.trim_matches('"').to_string(),
                reason: source.to_string(),
            },
            e => DbError::Query(e),
        }
    }
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

// The tables, each adding its methods to `Db` in its own `impl Db` block; declared after the
// macros above, which they use. A table's file may import this one, never the reverse.
pub mod checkpoint;
pub mod games;
pub mod insert;
pub mod leases;
pub mod matches;
pub mod retention;
pub mod seats;
pub mod spars;
pub mod states;
pub mod teams;
#[cfg(test)]
mod testdb;
pub mod versions;
pub mod workers;

// Queries the ladder runs for every match it stores, whatever the number of matches played
// (`matches.rs`, `leases.rs`, `games.rs`, `seats.rs` mark theirs): each must find its rows
// through an index: `state <> 'done'` read every match ever played (18 ms at 200 000 matches,
// which 2-deal matches reach in ten minutes), and the 2-deal ladder slowed from 40% to 18% of
// `croupier match` within a minute. The test `per_match_queries_never_scan_a_table` checks
// each plan.

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
                let db = Db::Postgres(pool);
                db.key_names().await?;
                Ok(db)
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
                let db = Db::Sqlite { pool, read };
                db.key_names().await?;
                Ok(db)
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

    /// The value of `key` in the `meta` table, set to `value` first if it has none: what two
    /// processes that both make it agree on.
    pub async fn meta_or_insert(&self, key: &str, value: &str) -> Result<String, DbError> {
        let q = "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING";
        on_pool!(self, p => { sqlx::query(q).bind(key).bind(value).execute(p).await?; });
        Ok(self.meta(key).await?.unwrap_or_else(|| value.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::games::{COUNT_GAMES, FINISH, HOLDER};
    use super::leases::{CLAIM_SQLITE, LEASABLE};
    use super::matches::{DONE_BELOW, PENDING};
    use super::seats::SEATS_BETWEEN;
    use super::testdb::open;
    use super::*;

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
