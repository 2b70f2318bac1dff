//! Seats: one row per seat of each stored game, what the ratings, the team pages and the
//! match pages are computed from.

use super::states::{MatchKind, SeatOutcome};
use super::{Db, DbError};
use serde::Serialize;

/// One seat of one stored game: what ratings and tables are computed from.
#[derive(Clone, Debug, Serialize, sqlx::FromRow)]
pub struct SeatRow {
    /// The match.
    pub match_id: i64,
    /// The game.
    pub game_index: i64,
    /// The seat.
    pub seat: i64,
    /// The version in the seat.
    pub version_id: i64,
    /// Its team.
    pub team_id: i64,
    /// Won, lost or drawn.
    pub result: SeatOutcome,
    /// 0 for the game's best placed entrant.
    pub place: i64,
    /// The seat's first fault's verdict.
    pub fault: Option<String>,
    /// When the game finished.
    pub finished_ms: i64,
    /// Its match's kind, where the query reads it (the board's, [`Db::seats_between`]);
    /// `None` elsewhere.
    #[sqlx(default)]
    #[serde(skip)]
    pub kind: Option<MatchKind>,
}

/// The seats the board takes next: the ladder's, which the ratings count, and the bosses',
/// which [`crate::ratings::Board::apply`] counts apart by their kind (one statement, not two,
/// per match stored). Run per match stored: it must find its rows through an index (`mod.rs`).
pub(super) const SEATS_BETWEEN: &str = "SELECT s.match_id, s.game_index, s.seat, s.version_id, s.team_id, s.result, s.place, s.fault, g.finished_ms, m.kind
                 FROM game_seats s JOIN games g ON g.match_id = s.match_id AND g.game_index = s.game_index
                 JOIN matches m ON m.id = s.match_id
                 WHERE s.match_id >= $1 AND s.match_id < $2 AND m.kind NOT IN ('final', 'spar')
                 ORDER BY s.match_id, s.game_index, s.seat";

impl Db {
    /// Seats of every game of matches with id in `[from, to)`, in (match, game, seat) order.
    pub async fn seats_between(&self, from: i64, to: i64) -> Result<Vec<SeatRow>, DbError> {
        Ok(
            on_pool!(self, p => sqlx::query_as::<_, SeatRow>(SEATS_BETWEEN).bind(from).bind(to).fetch_all(p).await?),
        )
    }

    /// Every seat of one team's latest `limit` games, newest game first: one query, so a
    /// team page costs the same with ten games stored or a million.
    pub async fn recent_games_of_team(
        &self,
        team: i64,
        limit: i64,
    ) -> Result<Vec<SeatRow>, DbError> {
        // The games first (read off the (team, match, game) index, no sort), then their
        // seats: 0.2 ms on 90 000 games where filtering the seats by a subquery on the old
        // (team, match) index took 0.7 ms (sqlite3's timer).
        let q = "WITH recent AS (SELECT DISTINCT match_id, game_index FROM game_seats WHERE team_id = $1
                                 ORDER BY match_id DESC, game_index DESC LIMIT $2)
                 SELECT s.match_id, s.game_index, s.seat, s.version_id, s.team_id, s.result, s.place, s.fault, g.finished_ms
                 FROM recent r
                 JOIN game_seats s ON s.match_id = r.match_id AND s.game_index = r.game_index
                 JOIN games g ON g.match_id = r.match_id AND g.game_index = r.game_index
                 ORDER BY s.match_id DESC, s.game_index DESC, s.seat";
        Ok(
            on_read_pool!(self, p => sqlx::query_as::<_, SeatRow>(q).bind(team).bind(limit).fetch_all(p).await?),
        )
    }

    /// Every seat of the given games (for listing opponents).
    pub async fn seats_of_game(&self, match_id: i64, index: i64) -> Result<Vec<SeatRow>, DbError> {
        let q = "SELECT s.match_id, s.game_index, s.seat, s.version_id, s.team_id, s.result, s.place, s.fault, g.finished_ms
                 FROM game_seats s JOIN games g ON g.match_id = s.match_id AND g.game_index = s.game_index
                 WHERE s.match_id = $1 AND s.game_index = $2 ORDER BY s.seat";
        Ok(
            on_read_pool!(self, p => sqlx::query_as::<_, SeatRow>(q).bind(match_id).bind(index).fetch_all(p).await?),
        )
    }

    /// Every stored seat of a match, by game and seat.
    pub async fn seats_of_match(&self, match_id: i64) -> Result<Vec<SeatRow>, DbError> {
        let q = "SELECT s.match_id, s.game_index, s.seat, s.version_id, s.team_id, s.result, s.place, s.fault, g.finished_ms
                 FROM game_seats s JOIN games g ON g.match_id = s.match_id AND g.game_index = s.game_index
                 WHERE s.match_id = $1 ORDER BY s.game_index, s.seat";
        Ok(
            on_read_pool!(self, p => sqlx::query_as::<_, SeatRow>(q).bind(match_id).fetch_all(p).await?),
        )
    }
}
