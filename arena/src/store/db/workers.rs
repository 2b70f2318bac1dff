//! Workers: the machines that play matches over HTTP, each with its own token (stored as
//! SHA-256) that opens only the worker API, and when each was last heard from.

use super::{Db, DbError};
use serde::Serialize;

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

impl Db {
    /// Adds a worker; `None` if the name, or one that reads the same
    /// ([`crate::names::name_key`]), is taken.
    pub async fn add_worker(&self, name: &str, token_hash: &[u8]) -> Result<Option<i64>, DbError> {
        let q =
            "INSERT INTO workers (name, name_key, token_hash, created_ms) VALUES ($1, $2, $3, $4)
                 ON CONFLICT DO NOTHING RETURNING id";
        let key = crate::names::name_key(name);
        let now = crate::now_ms();
        Ok(
            on_pool!(self, p => sqlx::query_scalar(q).bind(name).bind(&key).bind(token_hash).bind(now).fetch_all(p).await?.into_iter().next()),
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
}
