//! Leases: a worker claims a batch of matches in one statement, beats to keep them, gives
//! them back when the platform fails, and a lease that runs out returns its match to the
//! queue, where the next claim takes it.

use super::matches::MatchRow;
use super::states::MatchKind;
use super::{Db, DbError};

/// Leases the oldest leasable matches ([`Db::claim`]).
/// Run per match stored: it must find its rows through an index (`mod.rs`).
pub(super) const CLAIM_SQLITE: &str = "UPDATE matches SET state = 'leased', lease = $1 || '-' || CAST(id AS TEXT),
                lease_expires_ms = $2, attempts = attempts + 1
            WHERE id IN (SELECT id FROM matches
                         WHERE state = 'queued' OR (state = 'leased' AND lease_expires_ms < $3)
                         ORDER BY kind <> 'final', kind <> 'spar', id LIMIT $4)
            RETURNING id, kind, seed, deals, duplicate, entrants, state, created_ms, done_ms, attempts, lease";

/// The same on PostgreSQL, which also skips rows another transaction is claiming.
pub(super) const CLAIM_POSTGRES: &str = "UPDATE matches SET state = 'leased', lease = $1 || '-' || CAST(id AS TEXT),
                lease_expires_ms = $2, attempts = attempts + 1
            WHERE id IN (SELECT id FROM matches
                         WHERE state = 'queued' OR (state = 'leased' AND lease_expires_ms < $3)
                         ORDER BY kind <> 'final', kind <> 'spar', id LIMIT $4 FOR UPDATE SKIP LOCKED)
            RETURNING id, kind, seed, deals, duplicate, entrants, state, created_ms, done_ms, attempts, lease";

/// Matches a worker can lease now.
/// Run per match stored: it must find its rows through an index (`mod.rs`).
pub(super) const LEASABLE: &str = "SELECT COUNT(*) FROM matches WHERE state = 'queued' OR (state = 'leased' AND lease_expires_ms < $1)";

impl Db {
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
        rows.sort_by_key(|r| (r.kind != MatchKind::Final, r.id));
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
}
