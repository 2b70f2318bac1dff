//! The ratings checkpoint: the board as of one match, so that a restarted server counts
//! only the results stored since (`crate::ratings`). Derived data: deleting it costs only a
//! slower start.

use super::{Db, DbError};

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

impl Db {
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
}
