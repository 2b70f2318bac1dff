//! Sparring: the house agents a team may spar against (each build its own id, so a stored
//! spar names what it played), and the spar matches a team asks for, capped per hour in the
//! same statement that queues them. Bosses are house agents too: the boss matches the
//! ladder has queued and the board has not counted yet are read here.

use super::matches::{MatchRow, NewMatch};
use super::states::MatchState;
use super::{Db, DbError};

impl Db {
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

    /// Queues a spar match `team` asked for (its version first, then the opponent's, or a
    /// house agent as `-id`), unless it has asked for `cap` since `since_ms`, the arena is
    /// frozen for its final, the opponent is a version of `team` itself, or either team is
    /// withdrawn: `None` then. The checks and the insert are one statement, so two requests
    /// at once are counted one after the other (on SQLite, where a write holds the database;
    /// the server also serialises them, see `manage::spar`), and a withdrawal that lands
    /// between the handler's checks and the insert still stops it.
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
                   AND NOT EXISTS (SELECT 1 FROM teams WHERE id = $6 AND withdrawn IS NOT NULL)
                   AND NOT EXISTS (SELECT 1 FROM versions v JOIN teams t ON t.id = v.team_id
                                   WHERE v.id = $9 AND (v.team_id = $6 OR t.withdrawn IS NOT NULL))
                 RETURNING id";
        let against = m.entrants.get(1).copied().unwrap_or(0);
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
            .bind(against)
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

    /// The boss matches from id `from` on (what the board has not counted: waiting, being
    /// played, or done above its watermark), each as (version, house agent id, deals,
    /// whether it waits to be leased). The queue's few dozen matches, read through the
    /// primary key.
    pub async fn boss_matches_from(
        &self,
        from: i64,
    ) -> Result<Vec<(i64, i64, u64, bool)>, DbError> {
        let q = "SELECT id, kind, seed, deals, duplicate, entrants, state, created_ms, done_ms
                 FROM matches WHERE id >= $1 AND kind = 'boss'";
        let rows: Vec<MatchRow> =
            on_pool!(self, p => sqlx::query_as::<_, MatchRow>(q).bind(from).fetch_all(p).await?);
        let mut out = Vec::new();
        for m in rows {
            let ids = m.entrant_ids()?;
            let version = ids.iter().copied().find(|&v| v > 0);
            let boss = ids.iter().copied().find(|&v| v < 0);
            if let (Some(v), Some(b)) = (version, boss) {
                out.push((v, -b, m.deals as u64, m.state == MatchState::Queued));
            }
        }
        Ok(out)
    }
}
