//! Teams: who plays, their tokens (stored as SHA-256), their choice for the final, and
//! the organiser's withdrawal, which also drops the withdrawn team's queued matches.

use super::matches::MatchRow;
use super::{Db, DbError};
use serde::Serialize;

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

impl Db {
    /// Adds a team; `None` if the name, or a name that reads the same
    /// ([`crate::names::name_key`]), is taken: both are unique columns, so two requests at
    /// once cannot both add look-alikes.
    pub async fn add_team(&self, name: &str, token_hash: &[u8]) -> Result<Option<i64>, DbError> {
        let q = "INSERT INTO teams (name, name_key, token_hash, created_ms) VALUES ($1, $2, $3, $4)
                 ON CONFLICT DO NOTHING RETURNING id";
        let key = crate::names::name_key(name);
        let now = crate::now_ms();
        Ok(
            on_pool!(self, p => sqlx::query_scalar(q).bind(name).bind(&key).bind(token_hash).bind(now).fetch_all(p).await?.into_iter().next()),
        )
    }

    /// Gives every team and worker stored before migration 0010 its name's key. A key that an
    /// older row already holds stays NULL on the later row (the two names were added before
    /// look-alikes were refused): that is logged, and both keep working.
    pub(super) async fn key_names(&self) -> Result<(), DbError> {
        for table in ["teams", "workers"] {
            let q = format!("SELECT id, name FROM {table} WHERE name_key IS NULL ORDER BY id");
            let rows: Vec<(i64, String)> = on_pool!(self, p => sqlx::query_as(sqlx::AssertSqlSafe(q.as_str())).fetch_all(p).await?);
            for (id, name) in rows {
                let key = crate::names::name_key(&name);
                let q = format!(
                    "UPDATE {table} SET name_key = $1 WHERE id = $2
                     AND NOT EXISTS (SELECT 1 FROM {table} WHERE name_key = $1)"
                );
                let n = on_pool!(self, p => sqlx::query(sqlx::AssertSqlSafe(q.as_str())).bind(&key).bind(id).execute(p).await?.rows_affected());
                if n == 0 {
                    tracing::warn!(
                        "{table} `{name}` reads the same as an older one (Unicode TS #39); both stay"
                    );
                }
            }
        }
        Ok(())
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
}

#[cfg(test)]
mod tests {
    use super::super::states::{MatchKind, VersionStatus};
    use super::super::testdb::open;

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
            db.set_version_status(v, VersionStatus::Valid, "", None)
                .await
                .expect("valid");
            latest.push((team, v));
        }
        let [(_, va), (_, vb), (c, vc)] = latest[..] else {
            panic!("three teams")
        };
        let held = db
            .queue_match(MatchKind::Ladder, 1, 1, false, &[va, vc])
            .await
            .expect("q");
        db.claim("w1", i64::MAX, 1).await.expect("claim");
        let with_c = db
            .queue_match(MatchKind::Ladder, 2, 1, false, &[vc, vb])
            .await
            .expect("q");
        let placement = db
            .queue_match(MatchKind::Placement, 3, 1, false, &[va, vc])
            .await
            .expect("q");
        let without = db
            .queue_match(MatchKind::Ladder, 4, 1, false, &[va, vb])
            .await
            .expect("q");
        let last = db
            .queue_match(MatchKind::Final, 5, 1, false, &[va, vb, vc])
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
}
