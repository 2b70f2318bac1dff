//! Versions: each upload of a team's agent, its check's stages and verdict, the upload
//! rate's record, and the latest valid version of each team (what the ladder matches and
//! the leaderboard lists).

use super::states::{VersionStage, VersionStatus};
use super::{Db, DbError};
use serde::Serialize;

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
    pub status: VersionStatus,
    /// Why it was refused, or what its smoke match gave.
    pub message: String,
    /// The smoke match (JSON), team and organiser only.
    #[serde(skip)]
    pub smoke: Option<String>,
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

impl Db {
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
    /// for its final, the time is `deadline_ms` or later, or the team is withdrawn: `None`
    /// then. One statement, so an upload and `arena final` in another process (or a
    /// withdrawal) cannot both go through: either the version is stored before, or it is
    /// refused; and no version's upload time is at or past the deadline.
    pub async fn add_version_unless_frozen(
        &self,
        team: i64,
        sha256: &str,
        bytes: i64,
        deadline_ms: Option<i64>,
    ) -> Result<Option<(i64, i64)>, DbError> {
        let q = "INSERT INTO versions (team_id, number, sha256, bytes, uploaded_ms, status)
                 SELECT $1, (SELECT COALESCE(MAX(number), 0) + 1 FROM versions WHERE team_id = $1), $2, $3, $4, 'queued'
                 WHERE NOT EXISTS (SELECT 1 FROM meta WHERE key = 'frozen')
                   AND $4 < $5
                   AND NOT EXISTS (SELECT 1 FROM teams WHERE id = $1 AND withdrawn IS NOT NULL)
                 RETURNING id, number";
        let now = crate::now_ms();
        let deadline = deadline_ms.unwrap_or(i64::MAX);
        Ok(
            on_pool!(self, p => sqlx::query_as(q).bind(team).bind(sha256).bind(bytes).bind(now).bind(deadline).fetch_all(p).await?.into_iter().next()),
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
    pub async fn set_version_stage(&self, id: i64, stage: VersionStage) -> Result<(), DbError> {
        let q = "UPDATE versions SET status = $1 WHERE id = $2";
        let status = VersionStatus::from(stage);
        on_pool!(self, p => { sqlx::query(q).bind(status).bind(id).execute(p).await?; });
        Ok(())
    }

    /// Sets a version's verdict.
    pub async fn set_version_status(
        &self,
        id: i64,
        status: VersionStatus,
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
}
