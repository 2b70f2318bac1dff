//! What the pages and the JSON API show, computed once for both: the leaderboard rows, a
//! team with what the asker may see of it, and a stored game as the viewer takes it.
//! Private parts (a version's smoke log, a seat's view) are filtered here, by who asks.

use crate::auth::Who;
use crate::context::Arena;
use crate::store::db::states::{MatchKind, MatchState, SeatOutcome, VersionStatus};
use crate::validate;
use crate::web::errors::AppError;
use serde::{Deserialize, Serialize};

pub mod bosses;

/// One row of the leaderboard.
#[derive(Clone, Debug, Serialize)]
pub struct BoardRow {
    /// 1 for the top; `null` for a version that has played no rated game yet ("placement"):
    /// its rating is the prior's, which says nothing, so it is listed after every ranked one.
    pub rank: Option<usize>,
    /// The team's id.
    pub team_id: i64,
    /// The team's name.
    pub team: String,
    /// The version that plays (the team's latest valid one).
    pub version: i64,
    /// μ.
    pub mu: f64,
    /// σ.
    pub sigma: f64,
    /// μ − 3σ: what the table is sorted by.
    pub conservative: f64,
    /// Games played by this version.
    pub games: u64,
    /// Its win rate.
    pub win_rate: f64,
    /// The rate's 95% Wilson interval.
    pub win_rate_ci95: (f64, f64),
    /// Faulted games by verdict.
    pub faults: std::collections::BTreeMap<String, u64>,
    /// Why the version is out of matchmaking, if it is.
    pub suspended: Option<String>,
    /// When its rating last changed (ms since the epoch), 0 if never.
    pub changed_ms: i64,
    /// Against each boss (`bosses.agents`, weakest first): win rate, 95% interval over
    /// deals, and the badge when its lower bound is above one half. Unrated.
    pub bosses: Vec<croupier_tournament::bosses::Statement>,
}

/// A team the organiser withdrew, listed under the leaderboard instead of in it.
#[derive(Clone, Debug, Serialize)]
pub struct WithdrawnRow {
    /// The team's id.
    pub team_id: i64,
    /// The team's name.
    pub team: String,
    /// The organiser's reason (may be empty).
    pub reason: String,
}

/// The withdrawn teams, by id.
pub async fn withdrawn_rows(arena: &Arena) -> Result<Vec<WithdrawnRow>, AppError> {
    Ok(arena
        .db
        .teams()
        .await?
        .into_iter()
        .filter_map(|t| {
            t.withdrawn.map(|reason| WithdrawnRow {
                team_id: t.id,
                team: t.name,
                reason,
            })
        })
        .collect())
}

/// The leaderboard: each team's latest valid version, by μ − 3σ; withdrawn teams are left
/// out ([`withdrawn_rows`]).
pub async fn board_rows(arena: &Arena) -> Result<Vec<BoardRow>, AppError> {
    let mut entries = arena.db.board_entries().await?;
    entries.retain(|e| e.withdrawn.is_none());
    let board = arena
        .board
        .read()
        .map_err(|_| AppError::Internal("board lock".into()))?;
    let mut rows: Vec<BoardRow> = entries
        .into_iter()
        .map(|e| {
            let st = board.versions.get(&e.version_id);
            let (mu, sigma) = st.map_or((25.0, 25.0 / 3.0), |s| (s.mu, s.sigma));
            let (win_rate, ci) = st.map_or((0.0, (0.0, 1.0)), |s| s.win_rate());
            BoardRow {
                rank: None,
                team_id: e.team_id,
                team: e.name,
                version: e.number,
                mu,
                sigma,
                conservative: mu - 3.0 * sigma,
                games: st.map_or(0, |s| s.games),
                win_rate,
                win_rate_ci95: ci,
                faults: st.map(|s| s.faults.clone()).unwrap_or_default(),
                suspended: st.and_then(|s| s.suspended.clone()),
                changed_ms: st.map_or(0, |s| s.changed_ms),
                bosses: bosses::statements(arena, &board, e.version_id),
            }
        })
        .collect();
    // Played versions by μ − 3σ; unplayed ones after them, by team.
    rows.sort_by(|a, b| {
        (a.games == 0)
            .cmp(&(b.games == 0))
            .then(b.conservative.total_cmp(&a.conservative))
            .then(a.team_id.cmp(&b.team_id))
    });
    for (i, r) in rows.iter_mut().enumerate() {
        r.rank = (r.games > 0).then_some(i + 1);
    }
    Ok(rows)
}

/// The leaderboard, with the arena's title and totals.
#[derive(Serialize)]
pub struct LeaderboardJson {
    /// The arena's title.
    pub title: String,
    /// Game and rules.
    pub game: String,
    /// The rules preset.
    pub rules: String,
    /// Games stored.
    pub games: u64,
    /// Whether submissions are closed.
    pub frozen: bool,
    /// The rows.
    pub rows: Vec<BoardRow>,
    /// Teams the organiser withdrew: not ranked, not matched.
    pub withdrawn: Vec<WithdrawnRow>,
}

/// A version as the team page and API show it.
#[derive(Clone, Debug, Serialize)]
pub struct VersionJson {
    /// Its number within the team.
    pub number: i64,
    /// SHA-256 of the file.
    pub sha256: String,
    /// Size in bytes.
    pub bytes: i64,
    /// Uploaded at (ms).
    pub uploaded_ms: i64,
    /// `queued`, `compiling` or `smoke` while it is checked, then `valid` or `refused`.
    pub status: VersionStatus,
    /// The verdict's message.
    pub message: String,
    /// The smoke match (team and organiser only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smoke: Option<validate::Smoke>,
    /// Its rating and games, once it has played.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<crate::ratings::VersionStats>,
}

fn version_view(
    v: &crate::store::db::versions::VersionRow,
    private: bool,
    board: &crate::ratings::Board,
) -> VersionJson {
    VersionJson {
        number: v.number,
        sha256: v.sha256.clone(),
        bytes: v.bytes,
        uploaded_ms: v.uploaded_ms,
        status: v.status,
        message: v.message.clone(),
        smoke: if private {
            v.smoke
                .as_deref()
                .and_then(|s| serde_json::from_str(s).ok())
        } else {
            None
        },
        stats: board.versions.get(&v.id).cloned(),
    }
}

/// Version `number` of team `team`, with what the asker may see of it.
pub async fn version_json(
    arena: &Arena,
    team: i64,
    number: i64,
    who: &Who,
) -> Result<VersionJson, AppError> {
    let v = arena
        .db
        .version_of(team, number)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("team {team} has no version {number}")))?;
    let board = arena
        .board
        .read()
        .map_err(|_| AppError::Internal("board lock".into()))?;
    Ok(version_view(&v, who.may_see(team), &board))
}

/// The leaderboard as `GET /api/leaderboard` and the live `board` event give it.
pub async fn leaderboard_json(arena: &Arena) -> Result<LeaderboardJson, AppError> {
    let rows = board_rows(arena).await?;
    let withdrawn = withdrawn_rows(arena).await?;
    let games = arena.board.read().map(|b| b.games).unwrap_or(0);
    Ok(LeaderboardJson {
        title: arena.cfg.title.clone(),
        game: arena.cfg.game.clone(),
        rules: arena.cfg.rules.clone(),
        games,
        frozen: arena.is_frozen(),
        rows,
        withdrawn,
    })
}

/// The matches being played now, with their agents named (`known` keeps names between calls).
pub async fn live_json(
    arena: &Arena,
    known: &mut std::collections::HashMap<i64, String>,
) -> Result<LiveJson, AppError> {
    let (rows, playing) = arena.db.live_matches().await?;
    let mut matches = Vec::with_capacity(rows.len());
    for m in rows {
        let ids = m.entrant_ids()?;
        let agents = crate::web::export::agent_names(arena, &ids, known).await?;
        let of = games_in(arena, &m).await?;
        matches.push(LiveMatch {
            id: m.id,
            kind: m.kind,
            agents,
            games: arena.db.games_stored(m.id).await?,
            of,
        });
    }
    Ok(LiveJson {
        matches,
        playing: playing as u64,
    })
}

/// The matches being played now.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LiveJson {
    /// The oldest first, at most [`crate::store::db::matches::LIVE_SHOWN`].
    pub matches: Vec<LiveMatch>,
    /// How many are being played (more than are listed when the list is cut).
    pub playing: u64,
}

/// A match being played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveMatch {
    /// The match.
    pub id: i64,
    /// `ladder`, `placement`, `spar`, `final` or `boss`.
    pub kind: MatchKind,
    /// Its agents (`team vN`), in schedule order.
    pub agents: Vec<String>,
    /// Games stored so far.
    pub games: i64,
    /// Games it plays.
    pub of: i64,
}

/// A match as `GET /api/matches/{id}` and its page show it.
#[derive(Clone, Debug, Serialize)]
pub struct MatchJson {
    /// The match.
    pub id: i64,
    /// `ladder`, `placement`, `spar`, `final` or `boss`.
    pub kind: MatchKind,
    /// `queued`, `leased` (being played) or `done`.
    pub state: MatchState,
    /// Its agents, in schedule order (`team vN`, `name (house)`).
    pub agents: Vec<String>,
    /// Games it plays.
    pub of: i64,
    /// Per agent: games won, drawn, lost so far.
    pub totals: Vec<[u64; 3]>,
    /// The games stored so far.
    pub games: Vec<MatchGame>,
}

/// One stored game of a match.
#[derive(Clone, Debug, Serialize)]
pub struct MatchGame {
    /// The game's index.
    pub game: i64,
    /// Per seat: the agent (an index into [`MatchJson::agents`]), its result, its fault.
    pub seats: Vec<MatchSeat>,
}

/// One seat of a stored game.
#[derive(Clone, Debug, Serialize)]
pub struct MatchSeat {
    /// Index into [`MatchJson::agents`].
    pub agent: usize,
    /// `win`, `loss` or `draw`.
    pub result: SeatOutcome,
    /// The verdict of its first fault.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
}

/// The games match `m` plays, by its schedule.
async fn games_in(arena: &Arena, m: &crate::store::db::matches::MatchRow) -> Result<i64, AppError> {
    let info = crate::queue::jobs::match_info_of(arena, m).await?;
    Ok(info.schedule(&arena.cfg)?.games() as i64)
}

/// Match `id`, with its games so far.
pub async fn match_json(arena: &Arena, id: i64) -> Result<MatchJson, AppError> {
    let m = arena
        .db
        .match_row(id)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("no match {id}")))?;
    let ids = m.entrant_ids()?;
    let agents = crate::web::export::agent_names(arena, &ids, &mut Default::default()).await?;
    let of = games_in(arena, &m).await?;
    let mut totals = vec![[0u64; 3]; ids.len()];
    let mut games: Vec<MatchGame> = Vec::new();
    for s in arena.db.seats_of_match(id).await? {
        let agent = ids.iter().position(|&v| v == s.version_id).unwrap_or(0);
        // A team game has an agent in several seats: its result counts once a game.
        let counted = games
            .last()
            .is_some_and(|g| g.game == s.game_index && g.seats.iter().any(|x| x.agent == agent));
        if !counted && let Some(t) = totals.get_mut(agent) {
            match s.result {
                SeatOutcome::Win => t[0] += 1,
                SeatOutcome::Draw => t[1] += 1,
                SeatOutcome::Loss => t[2] += 1,
            }
        }
        let seat = MatchSeat {
            agent,
            result: s.result,
            fault: s.fault,
        };
        match games.last_mut() {
            Some(g) if g.game == s.game_index => g.seats.push(seat),
            _ => games.push(MatchGame {
                game: s.game_index,
                seats: vec![seat],
            }),
        }
    }
    Ok(MatchJson {
        id,
        kind: m.kind,
        state: m.state,
        agents,
        of,
        totals,
        games,
    })
}

/// One game in a team's list.
#[derive(Clone, Debug, Serialize)]
pub struct TeamGame {
    /// The match.
    pub match_id: i64,
    /// The game's index in it.
    pub game: i64,
    /// The team's version in it.
    pub version: i64,
    /// The team's result.
    pub result: SeatOutcome,
    /// The team's first fault's verdict.
    pub fault: Option<String>,
    /// The other teams in the game, by name.
    pub opponents: Vec<String>,
    /// Finished at (ms).
    pub finished_ms: i64,
}

/// A team as the API shows it.
#[derive(Clone, Debug, Serialize)]
pub struct TeamJson {
    /// Id.
    pub id: i64,
    /// Name.
    pub name: String,
    /// Why the organiser withdrew it from the ladder, if it did.
    pub withdrawn: Option<String>,
    /// The version number it enters in the final; `None`: its latest valid version.
    pub final_entry: Option<i64>,
    /// Versions, newest first.
    pub versions: Vec<VersionJson>,
    /// Latest games, newest first.
    pub games: Vec<TeamGame>,
    /// Against each opponent team: (opponent, wins, draws, losses).
    pub head_to_head: Vec<(String, u64, u64, u64)>,
    /// μ − 3σ over time of the team's versions: (ms, version, value).
    pub history: Vec<(i64, i64, f64)>,
    /// Its valid versions against the bosses, newest first (`bosses::of_team`).
    pub bosses: Vec<bosses::VersionBosses>,
}

/// Everything about one team that `who` may see.
pub async fn team_json(arena: &Arena, id: i64, who: &Who) -> Result<TeamJson, AppError> {
    let team = arena
        .db
        .team(id)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("no team {id}")))?;
    let private = who.may_see(id);
    let versions = arena.db.versions_of(id).await?;
    // Only this team's versions are numbered on its page: its own list has them all.
    let number: std::collections::HashMap<i64, i64> =
        versions.iter().map(|v| (v.id, v.number)).collect();
    let seats = arena.db.recent_games_of_team(id, 50).await?;
    // Head to head against each opponent: this team's pairs are one range of the map.
    let head_to_head: Vec<(i64, crate::ratings::HeadToHead)> = arena
        .board
        .read()
        .map_err(|_| AppError::Internal("board lock".into()))?
        .head_to_head
        .range((id, i64::MIN)..=(id, i64::MAX))
        .map(|(&(_, b), h)| (b, *h))
        .collect();
    let names = arena
        .team_names(
            seats
                .iter()
                .map(|s| s.team_id)
                .chain(head_to_head.iter().map(|h| h.0)),
        )
        .await?;
    let mut games: Vec<TeamGame> = Vec::new();
    for one in seats.chunk_by(|x, y| (x.match_id, x.game_index) == (y.match_id, y.game_index)) {
        let Some(mine) = one.iter().find(|o| o.team_id == id) else {
            continue;
        };
        let mut opponents: Vec<String> = one
            .iter()
            .filter(|o| o.team_id != id)
            .map(|o| names.get(&o.team_id).cloned().unwrap_or_default())
            .collect();
        opponents.dedup();
        games.push(TeamGame {
            match_id: mine.match_id,
            game: mine.game_index,
            version: number.get(&mine.version_id).copied().unwrap_or(0),
            result: mine.result,
            fault: one
                .iter()
                .filter(|o| o.team_id == id)
                .find_map(|o| o.fault.clone()),
            opponents,
            finished_ms: mine.finished_ms,
        });
    }
    let board = arena
        .board
        .read()
        .map_err(|_| AppError::Internal("board lock".into()))?;
    let against_bosses = bosses::of_team(arena, &board, &versions);
    let versions = versions
        .iter()
        .map(|v| version_view(v, private, &board))
        .collect::<Vec<_>>();
    let mut history: Vec<(i64, i64, f64)> = versions
        .iter()
        .flat_map(|v| {
            v.stats
                .iter()
                .flat_map(move |s| s.history.iter().map(move |(t, r)| (*t, v.number, *r)))
        })
        .collect();
    history.sort_by_key(|a| a.0);
    let head_to_head = head_to_head
        .into_iter()
        .map(|(b, h)| {
            (
                names.get(&b).cloned().unwrap_or_default(),
                h.wins,
                h.draws,
                h.losses,
            )
        })
        .collect();
    Ok(TeamJson {
        id,
        name: team.name,
        withdrawn: team.withdrawn,
        final_entry: team.final_entry,
        versions,
        games,
        head_to_head,
        history,
        bosses: against_bosses,
    })
}

/// A seat query: `?seat=N` asks for that seat's private view.
#[derive(Debug, Deserialize)]
pub struct SeatQuery {
    /// The seat.
    pub seat: Option<u8>,
}

/// A stored game as the viewer takes it, checked against who asks.
pub async fn game_doc(
    arena: &Arena,
    m: i64,
    g: i64,
    seat: Option<u8>,
    who: &Who,
) -> Result<
    (
        croupier_tournament::replay::ReplayDoc,
        croupier_tournament::matches::log::LogHeader,
        croupier_tournament::runner::GameRecord,
    ),
    AppError,
> {
    let row = arena
        .db
        .game(m, g)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("no game {g} in match {m}")))?;
    let mrow = arena
        .db
        .match_row(m)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("no match {m}")))?;
    if row.replay_pruned() {
        return Err(AppError::Gone(format!(
            "the replay of match {m} game {g} was dropped by the arena's storage budget on {}; its result still counts",
            when(row.pruned_ms.unwrap_or(row.finished_ms))
        )));
    }
    let info = crate::queue::jobs::match_info_of(arena, &mrow).await?;
    let mut rec = info
        .records(&arena.cfg, std::slice::from_ref(&row))?
        .pop()
        .ok_or_else(|| AppError::Internal(format!("match {m} game {g}: no record")))?;
    let seats = arena.db.seats_of_game(m, g).await?;
    if let Some(s) = seat {
        let owner = seats
            .iter()
            .find(|r| r.seat == i64::from(s))
            .ok_or_else(|| AppError::NotFound(format!("no seat {s} in this game")))?;
        if !who.may_see(owner.team_id) {
            return Err(match who {
                Who::Public => AppError::Unauthorized("sign in to see your seat's view".into()),
                _ => AppError::Forbidden(format!("seat {s} is another team's")),
            });
        }
        if let Some(logs) = &row.logs {
            let all: Vec<(u8, Vec<croupier_host::sandbox::LogLine>)> =
                serde_json::from_str(logs).unwrap_or_default();
            rec.logs = all.into_iter().filter(|(x, _)| *x == s).collect();
        }
    }
    let agents =
        crate::web::export::agent_names(arena, &mrow.entrant_ids()?, &mut Default::default())
            .await?;
    let header = crate::web::export::header(arena, &mrow, agents)?;
    let doc = croupier_tournament::with_game!(arena.cfg.kind(), G => {
        croupier_tournament::replay::replay_doc::<G>(&header, &rec, seat)
            .map_err(|e| AppError::Internal(format!("match {m} game {g}: {e:#}")))
    })?;
    Ok((doc, header, rec))
}

/// What the admin page shows: every team, the games stored, the matches waiting, and
/// whether the arena is frozen for the final.
#[derive(Debug, Serialize)]
pub struct AdminJson {
    /// Every team, by id (no token hashes).
    pub teams: Vec<crate::store::db::teams::TeamRow>,
    /// Every worker, by id, with when it was last heard from (no token hashes).
    pub workers: Vec<crate::store::db::workers::WorkerRow>,
    /// Games stored.
    pub games: i64,
    /// Ladder matches waiting to be played.
    pub pending: i64,
    /// Submissions closed for the final.
    pub frozen: bool,
    /// The storage budget and what its last pass found.
    pub storage: StorageJson,
}

/// The storage budget as the admin page shows it.
#[derive(Debug, Serialize)]
pub struct StorageJson {
    /// `[storage]` from arena.toml.
    pub config: crate::config::Storage,
    /// The last pass (at start, then every `prune_seconds`); none yet while the first runs.
    pub last: Option<crate::store::storage::Pruned>,
}

/// A time as people read it: `2026-11-28 16:41:16 UTC`, or `never` for none.
pub fn when(ms: i64) -> String {
    if ms <= 0 {
        return "never".into();
    }
    let secs = ms / 1000;
    let (d, r) = (secs / 86400, secs % 86400);
    // Days since the epoch to a civil date (Howard Hinnant's algorithm).
    let z = d + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        r / 3600,
        r % 3600 / 60,
        r % 60
    )
}

/// The admin view; the caller has checked that the organiser asks.
pub async fn admin_json(arena: &Arena) -> Result<AdminJson, AppError> {
    Ok(AdminJson {
        teams: arena.db.teams().await?,
        workers: arena.db.workers().await?,
        games: arena.db.game_count().await?,
        pending: arena.db.pending_matches().await?,
        frozen: arena.is_frozen(),
        storage: StorageJson {
            config: arena.cfg.storage.clone(),
            last: arena.storage.lock().ok().and_then(|l| *l),
        },
    })
}
