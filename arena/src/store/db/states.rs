//! The states the database keeps as text, as enums: a version's status, a match's state and
//! kind, a seat's result. Each column is TEXT on both databases and holds one of a fixed set
//! of words; here each word is written once per enum for sqlx (what is stored) and once for
//! serde (what the API and the live events show), and the tests hold the two, and
//! [`as_str`](VersionStatus::as_str), to the same text, which is what existing databases
//! hold: no migration changed a stored word.
//!
//! `#[sqlx(type_name = "text")]`: on PostgreSQL a derived enum otherwise names a PostgreSQL
//! enum type of its own name (`VersionStatus`), which a TEXT column is not, and every read
//! failed with mismatched types; as `text` it matches the column by name (sqlx compares
//! type names without case, so the column's `TEXT` is compatible). On SQLite the derive
//! takes whatever `&str` takes. A stored word an enum does not know (a newer server's
//! state, a hand edit) is no panic: sqlx's decode error names the column and the value,
//! and `DbError::Decode` carries both to the caller.

use serde::{Deserialize, Serialize};

/// A version's check, then its verdict (`versions.status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum VersionStatus {
    /// What servers before the check's stages wrote while checking: checked again at start.
    Checking,
    /// Stored, waiting for a check to begin.
    Queued,
    /// The loader is compiling it.
    Compiling,
    /// It plays its smoke match.
    Smoke,
    /// It may play.
    Valid,
    /// It may not; the message says why.
    Refused,
}

impl VersionStatus {
    /// Every status, in the order a version goes through them (`Checking` first: the old
    /// servers' word for the three stages).
    pub const ALL: [VersionStatus; 6] = [
        VersionStatus::Checking,
        VersionStatus::Queued,
        VersionStatus::Compiling,
        VersionStatus::Smoke,
        VersionStatus::Valid,
        VersionStatus::Refused,
    ];

    /// The stored word, which is also what the API and the pages show.
    pub fn as_str(self) -> &'static str {
        match self {
            VersionStatus::Checking => "checking",
            VersionStatus::Queued => "queued",
            VersionStatus::Compiling => "compiling",
            VersionStatus::Smoke => "smoke",
            VersionStatus::Valid => "valid",
            VersionStatus::Refused => "refused",
        }
    }

    /// Whether the check has ended (valid or refused).
    pub fn is_verdict(self) -> bool {
        matches!(self, VersionStatus::Valid | VersionStatus::Refused)
    }
}

impl std::fmt::Display for VersionStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A stage of a version's check, stored as its status while the check runs: what the check
/// may say of itself, never a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VersionStage {
    /// Waiting for a check to begin (again, after a restart).
    Queued,
    /// The loader is compiling it.
    Compiling,
    /// It plays its smoke match.
    Smoke,
}

impl From<VersionStage> for VersionStatus {
    fn from(s: VersionStage) -> VersionStatus {
        match s {
            VersionStage::Queued => VersionStatus::Queued,
            VersionStage::Compiling => VersionStatus::Compiling,
            VersionStage::Smoke => VersionStatus::Smoke,
        }
    }
}

/// Where a match is in the queue (`matches.state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum MatchState {
    /// Waiting for a worker.
    Queued,
    /// A worker holds it under a lease.
    Leased,
    /// Every game of its schedule is stored.
    Done,
}

impl MatchState {
    /// Every state, in queue order.
    pub const ALL: [MatchState; 3] = [MatchState::Queued, MatchState::Leased, MatchState::Done];

    /// The stored word, which is also what the API and the pages show.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchState::Queued => "queued",
            MatchState::Leased => "leased",
            MatchState::Done => "done",
        }
    }
}

impl std::fmt::Display for MatchState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a match was queued (`matches.kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum MatchKind {
    /// The ladder's, rated.
    Ladder,
    /// A new version's first matches, rated (the ladder seeds them).
    Placement,
    /// A team asked for it; unrated.
    Spar,
    /// The final's, rated only in the final's own table.
    Final,
    /// A team's latest valid version against a boss (`bosses` in arena.toml); unrated,
    /// counted in the bosses' own table.
    Boss,
}

impl MatchKind {
    /// Every kind.
    pub const ALL: [MatchKind; 5] = [
        MatchKind::Ladder,
        MatchKind::Placement,
        MatchKind::Spar,
        MatchKind::Final,
        MatchKind::Boss,
    ];

    /// The stored word, which is also what the API and the pages show.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchKind::Ladder => "ladder",
            MatchKind::Placement => "placement",
            MatchKind::Spar => "spar",
            MatchKind::Final => "final",
            MatchKind::Boss => "boss",
        }
    }
}

impl std::fmt::Display for MatchKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A seat's result in a stored game (`game_seats.result`). Not `croupier_rules::SeatResult`,
/// whose serde form is `Win`: this one is the stored word, and the API's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "lowercase")]
#[sqlx(type_name = "text", rename_all = "lowercase")]
pub enum SeatOutcome {
    /// Won.
    Win,
    /// Lost.
    Loss,
    /// Drawn.
    Draw,
}

impl SeatOutcome {
    /// Every result.
    pub const ALL: [SeatOutcome; 3] = [SeatOutcome::Win, SeatOutcome::Loss, SeatOutcome::Draw];

    /// The stored word, which is also what the API and the pages show.
    pub fn as_str(self) -> &'static str {
        match self {
            SeatOutcome::Win => "win",
            SeatOutcome::Loss => "loss",
            SeatOutcome::Draw => "draw",
        }
    }
}

impl std::fmt::Display for SeatOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<croupier_rules::SeatResult> for SeatOutcome {
    fn from(r: croupier_rules::SeatResult) -> SeatOutcome {
        match r {
            croupier_rules::SeatResult::Win => SeatOutcome::Win,
            croupier_rules::SeatResult::Loss => SeatOutcome::Loss,
            croupier_rules::SeatResult::Draw => SeatOutcome::Draw,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::games::Stored;
    use super::super::insert::{NewGame, NewSeat};
    use super::super::testdb::{Opened, open};
    use super::super::{Db, DbError};
    use super::*;
    use sqlx::Sqlite;

    /// Writes each of `all` into `table.column` of row `id` as sqlx encodes it, then checks
    /// that the column holds the enum's word (what older servers wrote, and the API shows:
    /// serde's word is the same) and that it decodes back to the same value.
    async fn round_trip<T>(
        o: &Opened,
        table: &str,
        column: &str,
        id: i64,
        all: &[T],
        word: fn(T) -> &'static str,
    ) where
        T: Copy
            + std::fmt::Debug
            + PartialEq
            + Serialize
            + for<'de> Deserialize<'de>
            + sqlx::Type<Sqlite>
            + for<'q> sqlx::Encode<'q, Sqlite>
            + for<'r> sqlx::Decode<'r, Sqlite>
            + Send
            + Unpin,
    {
        let key = if table == "game_seats" {
            "match_id"
        } else {
            "id"
        };
        let set = format!("UPDATE {table} SET {column} = $1 WHERE {key} = $2");
        let get = format!("SELECT {column} FROM {table} WHERE {key} = $1");
        for &v in all {
            sqlx::query(sqlx::AssertSqlSafe(set.as_str()))
                .bind(v)
                .bind(id)
                .execute(&o.write)
                .await
                .expect("write");
            let text: String = sqlx::query_scalar(sqlx::AssertSqlSafe(get.as_str()))
                .bind(id)
                .fetch_one(&o.write)
                .await
                .expect("read text");
            assert_eq!(text, word(v), "{table}.{column}: {v:?} is stored as");
            let back: T = sqlx::query_scalar(sqlx::AssertSqlSafe(get.as_str()))
                .bind(id)
                .fetch_one(&o.write)
                .await
                .expect("read back");
            assert_eq!(back, v, "{table}.{column}");
            let json = serde_json::to_string(&v).expect("json");
            assert_eq!(json, format!("\"{}\"", word(v)), "{v:?} in the API");
            assert_eq!(serde_json::from_str::<T>(&json).expect("from json"), v);
        }
    }

    /// A team with one version, a match of each kind, and a stored game with a seat of each
    /// result: a row for every column that holds a state.
    async fn rows(db: &Db) -> (i64, Vec<i64>) {
        let team = db.add_team("t", b"h").await.expect("team").expect("new");
        let (v, _) = db.add_version(team, "00", 1).await.expect("version");
        let mut ids = Vec::new();
        for kind in MatchKind::ALL {
            ids.push(
                db.queue_match(kind, 1, 1, false, &[v, v, v])
                    .await
                    .expect("queue"),
            );
        }
        let claimed = db.claim("w", i64::MAX, 1).await.expect("claim");
        let lease = claimed[0].lease.clone().expect("leased");
        let game = NewGame {
            index: 0,
            record: "{}".into(),
            compact: None,
            logs: None,
            seats: SeatOutcome::ALL
                .iter()
                .zip(0..)
                .map(|(&result, seat)| NewSeat {
                    seat,
                    version_id: v,
                    team_id: team,
                    result,
                    place: seat,
                    fault: None,
                })
                .collect(),
        };
        let stored = db
            .store_games(claimed[0].id, &lease, &[game], Some(1))
            .await
            .expect("store");
        assert_eq!(stored, Stored::Ok);
        (v, ids)
    }

    /// Every state of every enum goes into its column as its word and comes back as itself;
    /// and the arena's own reads give what its own writes stored.
    #[tokio::test]
    async fn every_state_round_trips_through_sqlite() {
        let o = open("states").await;
        let (v, ids) = rows(&o.db).await;
        round_trip(
            &o,
            "versions",
            "status",
            v,
            &VersionStatus::ALL,
            VersionStatus::as_str,
        )
        .await;
        round_trip(
            &o,
            "matches",
            "kind",
            ids[0],
            &MatchKind::ALL,
            MatchKind::as_str,
        )
        .await;
        round_trip(
            &o,
            "matches",
            "state",
            ids[0],
            &MatchState::ALL,
            MatchState::as_str,
        )
        .await;
        // The final went first (the claim's order), and was played.
        let played =
            o.db.match_row(ids[3])
                .await
                .expect("read")
                .expect("the final");
        assert_eq!(
            (played.kind, played.state),
            (MatchKind::Final, MatchState::Done)
        );
        let seats = o.db.seats_of_match(ids[3]).await.expect("seats");
        let results: Vec<SeatOutcome> = seats.iter().map(|s| s.result).collect();
        assert_eq!(results, SeatOutcome::ALL);
        round_trip(
            &o,
            "game_seats",
            "result",
            ids[3],
            &SeatOutcome::ALL,
            SeatOutcome::as_str,
        )
        .await;
        for stage in [
            VersionStage::Queued,
            VersionStage::Compiling,
            VersionStage::Smoke,
        ] {
            o.db.set_version_stage(v, stage).await.expect("stage");
            let row = o.db.version(v).await.expect("read").expect("the version");
            assert_eq!(row.status, VersionStatus::from(stage));
            assert!(!row.status.is_verdict());
        }
        o.db.set_version_status(v, VersionStatus::Refused, "no", None)
            .await
            .expect("verdict");
        let row = o.db.version(v).await.expect("read").expect("the version");
        assert!(row.status.is_verdict());
        // A row written by `queue_match` alone reads as it was queued.
        let queued = o.db.match_row(ids[1]).await.expect("read");
        let queued = queued.expect("the placement match");
        assert_eq!(
            (queued.kind, queued.state),
            (MatchKind::Placement, MatchState::Queued)
        );
    }

    /// A word no enum knows (a newer server's state, a hand edit) is an error that names the
    /// column and the word, from every read of its row; never a panic, never a default.
    #[tokio::test]
    async fn an_unknown_stored_state_is_an_error_naming_its_column() {
        let o = open("unknown").await;
        let (v, ids) = rows(&o.db).await;
        let set = |q: &'static str, word: &'static str, id: i64| {
            let pool = o.write.clone();
            async move {
                sqlx::query(q)
                    .bind(word)
                    .bind(id)
                    .execute(&pool)
                    .await
                    .expect("hand edit");
            }
        };
        let named = |e: DbError, column: &str, word: &str| {
            let said = e.to_string();
            match e {
                DbError::Decode { column: c, reason } => {
                    assert_eq!(c, column, "{said}");
                    assert!(reason.contains(word), "{said}");
                }
                e => panic!("not a decode error: {e}"),
            }
            assert!(said.contains(column) && said.contains(word), "{said}");
        };
        set("UPDATE versions SET status = $1 WHERE id = $2", "paused", v).await;
        named(
            o.db.version(v).await.expect_err("an unknown status"),
            "status",
            "paused",
        );
        let listed = o.db.versions().await.expect_err("every version is read");
        named(listed, "status", "paused");
        set(
            "UPDATE matches SET kind = $1 WHERE id = $2",
            "friendly",
            ids[1],
        )
        .await;
        named(
            o.db.match_row(ids[1]).await.expect_err("an unknown kind"),
            "kind",
            "friendly",
        );
        set(
            "UPDATE matches SET state = $1 WHERE id = $2",
            "paused",
            ids[2],
        )
        .await;
        named(
            o.db.match_row(ids[2]).await.expect_err("an unknown state"),
            "state",
            "paused",
        );
        set(
            "UPDATE game_seats SET result = $1 WHERE match_id = $2",
            "forfeit",
            ids[3],
        )
        .await;
        let seats =
            o.db.seats_of_match(ids[3])
                .await
                .expect_err("an unknown result");
        named(seats, "result", "forfeit");
        // The rows around them still read.
        let ladder =
            o.db.match_row(ids[0])
                .await
                .expect("read")
                .expect("the ladder's");
        assert_eq!(ladder.kind, MatchKind::Ladder);
    }
}
