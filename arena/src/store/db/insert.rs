//! A finished game about to be stored, and how each database inserts a batch of them: the
//! ladder's hottest write, which each does its own fastest way (`games.rs` runs it under the
//! match's lease).

use super::multi_row;
use super::states::SeatOutcome;

/// A seat of a game about to be stored.
#[derive(Clone, Debug)]
pub struct NewSeat {
    /// The seat.
    pub seat: i64,
    /// The version in it.
    pub version_id: i64,
    /// Its team.
    pub team_id: i64,
    /// Won, lost or drawn.
    pub result: SeatOutcome,
    /// Placement in the game, 0 best.
    pub place: i64,
    /// First fault's verdict.
    pub fault: Option<String>,
}

/// A game about to be stored.
#[derive(Clone, Debug)]
pub struct NewGame {
    /// Its index in the match.
    pub index: i64,
    /// The record without logs (JSON); empty when `compact` holds it.
    pub record: String,
    /// The record in compact form (`croupier_tournament::compact`).
    pub compact: Option<Vec<u8>>,
    /// The logs (JSON), if any.
    pub logs: Option<String>,
    /// Its seats.
    pub seats: Vec<NewSeat>,
}

/// Inserting a batch of games and their seats, in one statement per table: each statement is
/// a round trip (to the driver's connection thread for SQLite, to the server for
/// PostgreSQL), which cost more than the inserts themselves. A game already stored is left
/// as it was, seats included (their keys conflict and are skipped).
///
/// The games go in only if `lease` holds the match, tested in the same statement: when every
/// game went in, the lease is known to hold without the separate check that was one more
/// round trip per report ([`Db::store_games`]).
pub(super) trait InsertGames {
    /// The games, under the lease; how many went in.
    async fn insert_games(
        &mut self,
        match_id: i64,
        lease: &str,
        games: &[NewGame],
        now: i64,
    ) -> Result<u64, sqlx::Error>;
    /// Their seats (the caller has made sure of the lease).
    async fn insert_seats(&mut self, match_id: i64, games: &[NewGame]) -> Result<(), sqlx::Error>;
}

/// SQLite: multi-row `VALUES` with anonymous placeholders. With numbered ones (`$n`) the
/// driver asks SQLite each one's name, a linear search, so binding a batch of n values cost
/// O(n²): 18% of the SQLite thread's samples in a ladder profile.
impl InsertGames for sqlx::SqliteConnection {
    async fn insert_games(
        &mut self,
        match_id: i64,
        lease: &str,
        games: &[NewGame],
        now: i64,
    ) -> Result<u64, sqlx::Error> {
        if games.is_empty() {
            return Ok(0);
        }
        // `INSERT ... SELECT` needs its `WHERE` before `ON CONFLICT` (SQLite's parser).
        let game_q = multi_row(
            "INSERT INTO games (match_id, game_index, record, compact, logs, finished_ms)
             SELECT * FROM (VALUES ",
            6,
            games.len(),
            ") WHERE EXISTS (SELECT 1 FROM matches WHERE id = ? AND lease = ? AND state = 'leased')
             ON CONFLICT (match_id, game_index) DO NOTHING",
        );
        let mut q = sqlx::query(sqlx::AssertSqlSafe(game_q.as_str()));
        for g in games {
            q = q
                .bind(match_id)
                .bind(g.index)
                .bind(&g.record)
                .bind(g.compact.as_deref())
                .bind(g.logs.as_deref())
                .bind(now);
        }
        let done = q.bind(match_id).bind(lease).execute(&mut *self).await?;
        Ok(done.rows_affected())
    }

    async fn insert_seats(&mut self, match_id: i64, games: &[NewGame]) -> Result<(), sqlx::Error> {
        let seats: usize = games.iter().map(|g| g.seats.len()).sum();
        if seats == 0 {
            return Ok(());
        }
        let seat_q = multi_row(
            "INSERT INTO game_seats (match_id, game_index, seat, version_id, team_id, result, place, fault) VALUES ",
            8,
            seats,
            " ON CONFLICT (match_id, game_index, seat) DO NOTHING",
        );
        let mut q = sqlx::query(sqlx::AssertSqlSafe(seat_q.as_str()));
        for g in games {
            for s in &g.seats {
                q = q
                    .bind(match_id)
                    .bind(g.index)
                    .bind(s.seat)
                    .bind(s.version_id)
                    .bind(s.team_id)
                    .bind(s.result)
                    .bind(s.place)
                    .bind(s.fault.as_deref());
            }
        }
        q.execute(&mut *self).await?;
        Ok(())
    }
}

/// PostgreSQL: one array per column, spread by `UNNEST`, so the statement's text is the
/// same for every batch. A multi-row `VALUES` of 64 games (2 048 parameters for the seats)
/// took PostgreSQL 1.8 s to parse and 1 s to run on a loaded 2-core machine, a new text
/// for every batch size, and starved every other client of the server.
impl InsertGames for sqlx::PgConnection {
    async fn insert_games(
        &mut self,
        match_id: i64,
        lease: &str,
        games: &[NewGame],
        now: i64,
    ) -> Result<u64, sqlx::Error> {
        if games.is_empty() {
            return Ok(0);
        }
        let game_q = "INSERT INTO games (match_id, game_index, record, compact, logs, finished_ms)
            SELECT $1, u.game_index, u.record, u.compact, u.logs, $2
            FROM UNNEST($3::BIGINT[], $4::TEXT[], $5::BYTEA[], $6::TEXT[]) AS u(game_index, record, compact, logs)
            WHERE EXISTS (SELECT 1 FROM matches WHERE id = $1 AND lease = $7 AND state = 'leased')
            ON CONFLICT (match_id, game_index) DO NOTHING";
        let done = sqlx::query(game_q)
            .bind(match_id)
            .bind(now)
            .bind(games.iter().map(|g| g.index).collect::<Vec<i64>>())
            .bind(
                games
                    .iter()
                    .map(|g| g.record.as_str())
                    .collect::<Vec<&str>>(),
            )
            .bind(
                games
                    .iter()
                    .map(|g| g.compact.as_deref())
                    .collect::<Vec<Option<&[u8]>>>(),
            )
            .bind(
                games
                    .iter()
                    .map(|g| g.logs.as_deref())
                    .collect::<Vec<Option<&str>>>(),
            )
            .bind(lease)
            .execute(&mut *self)
            .await?;
        Ok(done.rows_affected())
    }

    async fn insert_seats(&mut self, match_id: i64, games: &[NewGame]) -> Result<(), sqlx::Error> {
        let seats: Vec<(i64, &NewSeat)> = games
            .iter()
            .flat_map(|g| g.seats.iter().map(move |s| (g.index, s)))
            .collect();
        if seats.is_empty() {
            return Ok(());
        }
        let seat_q = "INSERT INTO game_seats (match_id, game_index, seat, version_id, team_id, result, place, fault)
            SELECT $1, u.* FROM UNNEST($2::BIGINT[], $3::BIGINT[], $4::BIGINT[], $5::BIGINT[], $6::TEXT[], $7::BIGINT[], $8::TEXT[])
                AS u(game_index, seat, version_id, team_id, result, place, fault)
            ON CONFLICT (match_id, game_index, seat) DO NOTHING";
        sqlx::query(seat_q)
            .bind(match_id)
            .bind(seats.iter().map(|(i, _)| *i).collect::<Vec<i64>>())
            .bind(seats.iter().map(|(_, s)| s.seat).collect::<Vec<i64>>())
            .bind(
                seats
                    .iter()
                    .map(|(_, s)| s.version_id)
                    .collect::<Vec<i64>>(),
            )
            .bind(seats.iter().map(|(_, s)| s.team_id).collect::<Vec<i64>>())
            .bind(
                seats
                    .iter()
                    .map(|(_, s)| s.result.as_str())
                    .collect::<Vec<&str>>(),
            )
            .bind(seats.iter().map(|(_, s)| s.place).collect::<Vec<i64>>())
            .bind(
                seats
                    .iter()
                    .map(|(_, s)| s.fault.as_deref())
                    .collect::<Vec<Option<&str>>>(),
            )
            .execute(&mut *self)
            .await?;
        Ok(())
    }
}
