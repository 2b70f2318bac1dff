//! Games: stored once each, keyed by (match, game index), in the transaction that checks the
//! writer still holds the match's lease, and the match ended there when all of its games
//! are in; and the stored games read back for replays and counts.

use super::insert::{InsertGames, NewGame};
use super::{Db, DbError};
use serde::Serialize;

/// One stored game.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct GameRow {
    /// The match.
    pub match_id: i64,
    /// The game's index in it.
    pub game_index: i64,
    /// The record (JSON, without logs); empty when the game is stored compactly.
    pub record: String,
    /// The record in compact form (`croupier_tournament::compact`), for games stored since
    /// migration 0003.
    pub compact: Option<Vec<u8>>,
    /// The logs (JSON), if any agent logged and the storage budget kept them.
    pub logs: Option<String>,
    /// When it finished.
    pub finished_ms: i64,
    /// When the storage budget dropped its logs, or its replay too ([`GameRow::replay_pruned`]).
    pub pruned_ms: Option<i64>,
}

impl GameRow {
    /// Whether the storage budget dropped this game's replay (its results stay).
    pub fn replay_pruned(&self) -> bool {
        self.compact.is_none() && self.record.is_empty()
    }
}

/// One match's games for [`Db::store_many`].
#[derive(Clone, Copy, Debug)]
pub struct GameBatch<'a> {
    /// The match.
    pub match_id: i64,
    /// The lease its worker holds.
    pub lease: &'a str,
    /// Its games.
    pub games: &'a [NewGame],
    /// With `Some(n)`, the match is done once all `n` games of its schedule are stored.
    pub finish: Option<i64>,
}

/// What storing a batch of games found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub enum Stored {
    /// Stored (games already there were left as they were).
    Ok,
    /// The writer no longer holds the match's lease: nothing was stored.
    LeaseLost,
    /// The games were stored, but the match was not ended: it lacks some of its games.
    Incomplete {
        /// Games stored.
        stored: i64,
        /// Games its schedule holds.
        expected: i64,
    },
}

/// Whether a lease still holds its match (checked before its games are stored).
/// Run per match stored: it must find its rows through an index (`mod.rs`).
pub(super) const HOLDER: &str =
    "SELECT COUNT(*) FROM matches WHERE id = $1 AND lease = $2 AND state = 'leased'";

/// Games stored of a match.
/// Run per match stored: it must find its rows through an index (`mod.rs`).
pub(super) const COUNT_GAMES: &str = "SELECT COUNT(*) FROM games WHERE match_id = $1";

/// Ends a match held under a lease if all its games are stored: the check and the end in
/// one statement, since the count is read only to say why when it is not.
/// Run per match stored: it must find its rows through an index (`mod.rs`).
pub(super) const FINISH: &str = "UPDATE matches SET state = 'done', lease = NULL, done_ms = $1
                      WHERE id = $2 AND lease = $3 AND (SELECT COUNT(*) FROM games WHERE match_id = $2) >= $4";

impl Db {
    /// The indices of a match's stored games.
    pub async fn stored_indices(&self, match_id: i64) -> Result<Vec<i64>, DbError> {
        let q = "SELECT game_index FROM games WHERE match_id = $1 ORDER BY game_index";
        Ok(on_pool!(self, p => sqlx::query_scalar(q).bind(match_id).fetch_all(p).await?))
    }

    /// Stores games of a match held under `lease`, and, with `finish` (the number of games
    /// its schedule holds), marks it done if all of them are stored, all in one transaction.
    /// A game already stored is left as it was (the same seed gives the same game, so a
    /// second copy could only be identical).
    pub async fn store_games(
        &self,
        match_id: i64,
        lease: &str,
        games: &[NewGame],
        finish: Option<i64>,
    ) -> Result<Stored, DbError> {
        let mut out = self
            .store_many(&[GameBatch {
                match_id,
                lease,
                games,
                finish,
            }])
            .await?;
        out.pop()
            .ok_or_else(|| DbError::Corrupt("storing one match gave no outcome".into()))
    }

    /// Stores several matches' games, each as [`Db::store_games`] would and with one outcome
    /// each, in one transaction: a worker's reports call carries up to eight, and one commit
    /// for all of them spares SQLite a commit and its WAL pages, and the server two round trips
    /// to the database, per report. A lost lease or missing games is an outcome that writes
    /// nothing it should not, so it costs the others nothing; an error rolls back all of them,
    /// and the caller stores them one at a time to find which failed.
    pub async fn store_many(&self, batches: &[GameBatch<'_>]) -> Result<Vec<Stored>, DbError> {
        let now = crate::now_ms();
        let outcomes = in_write_tx!(self, tx => {
            let mut outcomes = Vec::with_capacity(batches.len());
            for b in batches {
                // Every game went in only under the lease; fewer (some stored already, or
                // none sent) says nothing either way, and then the lease is read.
                let put = (*tx).insert_games(b.match_id, b.lease, b.games, now).await?;
                if b.games.is_empty() || put != b.games.len() as u64 {
                    let held: i64 = sqlx::query_scalar(HOLDER).bind(b.match_id).bind(b.lease)
                        .fetch_one(&mut *tx).await?;
                    if held != 1 {
                        // Nothing of this match went in: the games' insert tests the lease.
                        outcomes.push(Stored::LeaseLost);
                        continue;
                    }
                }
                (*tx).insert_seats(b.match_id, b.games).await?;
                let mut outcome = Stored::Ok;
                if let Some(expected) = b.finish {
                    // A match is done only with every game of its schedule: a worker that
                    // says "done" early (a bug, a stale build) cannot end it short.
                    let ended = sqlx::query(FINISH).bind(now).bind(b.match_id).bind(b.lease).bind(expected)
                        .execute(&mut *tx).await?.rows_affected();
                    if ended != 1 {
                        // The lease was checked above, in this transaction: games are missing.
                        let stored: i64 = sqlx::query_scalar(COUNT_GAMES).bind(b.match_id)
                            .fetch_one(&mut *tx).await?;
                        outcome = Stored::Incomplete { stored, expected };
                    }
                }
                outcomes.push(outcome);
            }
            tx.commit().await?;
            outcomes
        });
        Ok(outcomes)
    }

    /// Games stored of a match.
    pub async fn games_stored(&self, match_id: i64) -> Result<i64, DbError> {
        Ok(
            on_read_pool!(self, p => sqlx::query_scalar(COUNT_GAMES).bind(match_id).fetch_one(p).await?),
        )
    }

    /// Games the board counts (the ladder's and the bosses') in matches below `upto`.
    pub async fn games_below(&self, upto: i64) -> Result<i64, DbError> {
        // The games the board counts: the ladder's and the bosses'. A spar's or the final's
        // game counted here made every checkpoint look stale once one was stored.
        let q = "SELECT COUNT(*) FROM games g JOIN matches m ON m.id = g.match_id
                 WHERE g.match_id < $1 AND m.kind NOT IN ('final', 'spar')";
        Ok(on_pool!(self, p => sqlx::query_scalar(q).bind(upto).fetch_one(p).await?))
    }

    /// One stored game.
    pub async fn game(&self, match_id: i64, index: i64) -> Result<Option<GameRow>, DbError> {
        let q = "SELECT match_id, game_index, record, compact, logs, finished_ms, pruned_ms FROM games WHERE match_id = $1 AND game_index = $2";
        Ok(
            on_read_pool!(self, p => sqlx::query_as::<_, GameRow>(q).bind(match_id).bind(index).fetch_optional(p).await?),
        )
    }

    /// Every game of a match.
    pub async fn games_of_match(&self, match_id: i64) -> Result<Vec<GameRow>, DbError> {
        let q = "SELECT match_id, game_index, record, compact, logs, finished_ms, pruned_ms FROM games WHERE match_id = $1 ORDER BY game_index";
        Ok(on_pool!(self, p => sqlx::query_as::<_, GameRow>(q).bind(match_id).fetch_all(p).await?))
    }

    /// Stored games in all.
    pub async fn game_count(&self) -> Result<i64, DbError> {
        let q = "SELECT COUNT(*) FROM games";
        Ok(on_read_pool!(self, p => sqlx::query_scalar(q).fetch_one(p).await?))
    }
}

#[cfg(test)]
mod tests {
    use super::super::insert::NewSeat;
    use super::super::states::{MatchKind, MatchState, SeatOutcome};
    use super::super::testdb::open;
    use super::*;

    /// A game row as a worker's report makes it (the record's text is not read here).
    fn new_game(index: i64) -> NewGame {
        NewGame {
            index,
            record: "{}".into(),
            compact: None,
            logs: None,
            seats: (0..2)
                .map(|seat| NewSeat {
                    seat,
                    version_id: 1,
                    team_id: 1,
                    result: if seat == 0 {
                        SeatOutcome::Win
                    } else {
                        SeatOutcome::Loss
                    },
                    place: seat,
                    fault: None,
                })
                .collect(),
        }
    }

    /// Several matches' reports in one transaction: each gets the outcome it would get
    /// alone, and an error rolls all of them back (the caller then stores them one by one).
    #[tokio::test]
    async fn reports_stored_together_keep_their_own_outcomes() {
        let o = open("many").await;
        let mut ids = Vec::new();
        for _ in 0..4 {
            ids.push(
                o.db.queue_match(MatchKind::Ladder, 1, 1, false, &[1, 2])
                    .await
                    .expect("queue"),
            );
        }
        let rows = o.db.claim("w1-x", i64::MAX, 4).await.expect("claim");
        let lease = |id: i64| -> String {
            rows.iter()
                .find(|r| r.id == id)
                .and_then(|r| r.lease.clone())
                .expect("leased")
        };
        let (l0, l1, l2, l3) = (lease(ids[0]), lease(ids[1]), lease(ids[2]), lease(ids[3]));
        let two = [new_game(0), new_game(1)];
        let batch = |match_id, lease, games, finish| GameBatch {
            match_id,
            lease,
            games,
            finish,
        };
        let out =
            o.db.store_many(&[
                batch(ids[0], &l0, &two, Some(2)),
                batch(ids[1], &l0, &two, Some(2)),
                batch(ids[2], &l2, &two[..1], Some(2)),
            ])
            .await
            .expect("stored");
        assert_eq!(
            out,
            [
                Stored::Ok,
                Stored::LeaseLost,
                Stored::Incomplete {
                    stored: 1,
                    expected: 2
                }
            ]
        );
        let indices = |id| o.db.stored_indices(id);
        let db = &o.db;
        let state = |id| async move {
            let row = db.match_row(id).await.expect("read");
            row.expect("the match").state
        };
        assert_eq!(indices(ids[0]).await.expect("read"), [0, 1]);
        assert_eq!(indices(ids[1]).await.expect("read"), Vec::<i64>::new());
        assert_eq!(indices(ids[2]).await.expect("read"), [0]);
        assert_eq!(state(ids[0]).await, MatchState::Done);
        assert_eq!(state(ids[2]).await, MatchState::Leased);

        // The database refuses one match's games: nothing of the call is kept.
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "CREATE TRIGGER refuse BEFORE INSERT ON games WHEN NEW.match_id = {}
             BEGIN SELECT RAISE(ABORT, 'refused'); END",
            ids[3]
        )))
        .execute(&o.write)
        .await
        .expect("trigger");
        let failed =
            o.db.store_many(&[
                batch(ids[1], &l1, &two, Some(2)),
                batch(ids[3], &l3, &two, Some(2)),
            ])
            .await;
        assert!(failed.is_err(), "{failed:?}");
        assert_eq!(indices(ids[1]).await.expect("read"), Vec::<i64>::new());
        assert_eq!(state(ids[1]).await, MatchState::Leased);
        // Alone, the other one goes in.
        let alone = o.db.store_games(ids[1], &l1, &two, Some(2)).await;
        assert_eq!(alone.expect("stored"), Stored::Ok);
    }
}
