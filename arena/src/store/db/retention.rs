//! What the storage budget (`crate::store::storage`) reads and drops: the size of the
//! stored games and of the database, and the retention rule's updates, which drop logs and
//! replays but never a game's seats (the results the ratings are made of).

use super::{Db, DbError};
use serde::Serialize;

impl Db {
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
