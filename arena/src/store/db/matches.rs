//! Matches: queued in batches by the ladder, one by one by the final, read by the pages and
//! the ratings; and the id below which every match is done, where the ratings stop. Leasing
//! them is `leases.rs`; a team's spar matches are `spars.rs`.

use super::states::{MatchKind, MatchState};
use super::{Db, DbError, multi_row};
use serde::Serialize;

/// A match to play, as a worker leases it.
#[derive(Clone, Debug, Serialize, sqlx::FromRow)]
pub struct MatchRow {
    /// Its id.
    pub id: i64,
    /// `ladder`, `placement`, `spar`, `final` or `boss`.
    pub kind: MatchKind,
    /// The match seed (a u64's bits).
    pub seed: i64,
    /// Deals.
    pub deals: i64,
    /// 1 when every deal is played once per seat rotation.
    pub duplicate: i64,
    /// JSON array of version ids.
    pub entrants: String,
    /// `queued`, `leased` or `done`.
    pub state: MatchState,
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

/// A match to queue ([`Db::queue_matches`]).
#[derive(Clone, Debug)]
pub struct NewMatch {
    /// Why it is queued ([`Db::queue_spar`] stores `spar` whatever this says).
    pub kind: MatchKind,
    /// Its master seed.
    pub seed: u64,
    /// Deals in it.
    pub deals: u64,
    /// Every deal once per seat rotation.
    pub duplicate: bool,
    /// The versions playing, in schedule order.
    pub entrants: Vec<i64>,
}

/// Matches not yet done.
/// Run per match stored: it must find its rows through an index (`mod.rs`).
pub(super) const PENDING: &str = "SELECT COUNT(*) FROM matches WHERE state IN ('queued', 'leased')";

/// The id below which every match is done.
/// Run per match stored: it must find its rows through an index (`mod.rs`).
pub(super) const DONE_BELOW: &str =
    "SELECT COALESCE((SELECT MIN(id) FROM matches WHERE state IN ('queued', 'leased')),
                                 (SELECT MAX(id) FROM matches) + 1, 1)";

/// Live matches listed on the board (the count says how many more there are).
pub const LIVE_SHOWN: i64 = 20;

/// The most matches [`Db::queue_matches`] puts in one statement: at seven values each, far
/// under SQLite's 32 766 bound parameters, for a queue topped up for hundreds of workers.
const QUEUE_CHUNK: usize = 512;

impl Db {
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
                        .bind(MatchState::Queued)
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
                    .bind(
                        matches
                            .iter()
                            .map(|m| m.kind.as_str())
                            .collect::<Vec<&str>>(),
                    )
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

    /// Queues a match; returns its id.
    pub async fn queue_match(
        &self,
        kind: MatchKind,
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
}

#[cfg(test)]
mod tests {
    use super::super::testdb::open;
    use super::*;

    /// The ladder's top-up: every match in one statement per chunk, in order, each as
    /// `queue_match` would queue it.
    #[tokio::test]
    async fn matches_queued_together_keep_their_order() {
        let o = open("queue").await;
        let fresh: Vec<NewMatch> = (0..QUEUE_CHUNK as u64 + 3)
            .map(|i| NewMatch {
                kind: if i % 2 == 0 {
                    MatchKind::Ladder
                } else {
                    MatchKind::Placement
                },
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
            assert_eq!(r.state, MatchState::Queued);
        }
        assert_eq!(
            o.db.leasable_matches().await.expect("count"),
            fresh.len() as i64
        );
    }
}
