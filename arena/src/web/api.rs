//! The JSON API's handlers (`/api/...`), thin over [`crate::web::views`] and [`crate::web::manage`];
//! described in `assets/openapi.json`, served at `/api/openapi.json`.

use crate::auth::Who;
use crate::context::Arena;
use crate::web::errors::{AppError, Object};
use crate::web::identity::{Peer, require_admin, submitting_team};
use crate::web::manage::{self, NewTeam, TeamToken, read_capped};
use crate::web::views::{LeaderboardJson, SeatQuery, TeamJson, game_doc, team_json};
use axum::Json;
use axum::extract::{Path, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// What `GET /api/arena` gives.
#[derive(serde::Serialize)]
pub struct ArenaJson {
    /// The arena's title.
    pub title: String,
    /// Its game.
    pub game: String,
    /// Its rules preset.
    pub rules: String,
    /// Whether submissions are closed for the final.
    pub frozen: bool,
    /// When uploads close by themselves (`final.deadline`, RFC 3339), if set.
    pub deadline: Option<String>,
    /// Why uploads are closed now, if they are (the final, or the deadline).
    pub closed: Option<String>,
    /// The upload caps.
    pub uploads: crate::config::Uploads,
}

/// `GET /api/arena`: the game and the upload caps, so that `croupier submit` can refuse a
/// file over the cap before sending it (a server that answers 413 mid-body leaves the client
/// with a broken pipe, not the answer).
pub async fn arena_info(State(arena): State<Arc<Arena>>) -> Result<Json<ArenaJson>, AppError> {
    Ok(Json(ArenaJson {
        title: arena.cfg.title.clone(),
        game: arena.cfg.game.clone(),
        rules: arena.cfg.rules.clone(),
        frozen: arena.frozen_now().await?,
        deadline: arena.cfg.final_.deadline.clone(),
        closed: arena.uploads_closed().await?,
        uploads: arena.cfg.uploads.clone(),
    }))
}

/// `GET /api/leaderboard`: the table, with the arena's title and totals.
pub async fn leaderboard(
    State(arena): State<Arc<Arena>>,
) -> Result<Json<LeaderboardJson>, AppError> {
    Ok(Json(crate::web::views::leaderboard_json(&arena).await?))
}

/// `GET /api/events`: the live events as server-sent events ([`crate::events`]), starting
/// with hello, the current board and live; 503 when too many streams are open, 429 when the
/// caller's share is full (its address's without a sign-in, its team's with one), naming the
/// limit.
pub async fn events(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Peer(peer): Peer,
) -> Result<Response, AppError> {
    use crate::events::{Refused, Share};
    use axum::response::sse::{Event, KeepAlive, Sse};
    let share = match who {
        Who::Public => Share::Address(peer),
        Who::Team(id) => Share::Team(id),
        Who::Admin => Share::Organiser,
    };
    let sub = arena.events.subscribe(share).map_err(|why| match why {
        Refused::Server | Refused::Anonymous => AppError::Unavailable {
            message: why.to_string(),
            retry_after: 30,
        },
        Refused::Address | Refused::Team => AppError::TooMany {
            message: why.to_string(),
            retry_after: 30,
        },
    })?;
    // Every stream starts with hello, board and live, so a client reads the state without
    // waiting for a change (and the API's fuzzer reads three events, then stops). Nobody
    // listened until now, so the last ones were forgotten: build them once; sent to every
    // stream, this one included, and kept for the next.
    if arena.events.last("board").is_none()
        && let Ok(board) = crate::web::views::leaderboard_json(&arena).await
    {
        arena.events.send_if_changed("board", &board);
    }
    if arena.events.last("live").is_none()
        && let Ok(live) = crate::web::views::live_json(&arena, &mut Default::default()).await
    {
        arena.events.send_if_changed("live", &live);
    }
    let stream = futures_util::stream::unfold(sub, |mut sub| async move {
        let m = sub.next().await?;
        let e = Event::default().event(m.name).data(&*m.data);
        Some((Ok::<_, std::convert::Infallible>(e), sub))
    });
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response())
}

/// `GET /api/teams/{id}/versions/{n}`: one version, with its check's stage or verdict.
pub async fn version(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Path((id, n)): Path<(i64, i64)>,
) -> Result<Json<crate::web::views::VersionJson>, AppError> {
    Ok(Json(
        crate::web::views::version_json(&arena, id, n, &who).await?,
    ))
}

/// `GET /api/teams/{id}`: one team, with what the asker may see of it.
pub async fn team(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Path(id): Path<i64>,
) -> Result<Json<TeamJson>, AppError> {
    Ok(Json(team_json(&arena, id, &who).await?))
}

/// `GET /api/games/{m}/{g}`: a stored game as the viewer takes it (`?seat=N` for a seat's view).
pub async fn game(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Path((m, g)): Path<(i64, i64)>,
    axum::extract::Query(q): axum::extract::Query<SeatQuery>,
) -> Result<Json<croupier_tournament::replay::ReplayDoc>, AppError> {
    Ok(Json(game_doc(&arena, m, g, q.seat, &who).await?.0))
}

/// The game as a log file (`croupier replay FILE` opens it): a header line and the record,
/// without private logs.
pub async fn game_log(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Path((m, g)): Path<(i64, i64)>,
) -> Result<Response, AppError> {
    let (_, header, rec) = game_doc(&arena, m, g, None, &who).await?;
    let mut body = serde_json::to_string(&header).map_err(|e| AppError::Internal(e.to_string()))?;
    body.push('\n');
    let line = croupier_tournament::matches::log::game_line(&rec)
        .map_err(|e| AppError::Internal(e.to_string()))?;
    body.push_str(&line);
    body.push('\n');
    let disposition = format!("attachment; filename=\"match{m}-game{g}.jsonl\"");
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-ndjson".to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        body,
    )
        .into_response())
}

/// `POST /api/submit`: an upload (the raw component as the body), checked at once.
pub async fn submit(
    State(arena): State<Arc<Arena>>,
    who: Who,
    req: Request,
) -> Result<Response, AppError> {
    let team = submitting_team(&who)?;
    let slot = manage::begin_upload(&arena, team).await?;
    let cap = arena.cfg.uploads.max_bytes;
    let bytes = read_capped(req.into_body(), cap, arena.cfg.uploads.idle_seconds).await?;
    let out = manage::submit(&arena, slot, bytes).await?;
    let status = out.status();
    Ok((status, Json(out)).into_response())
}

/// `GET /api/admin/teams`: what the admin page shows (the organiser only).
pub async fn admin_teams(
    State(arena): State<Arc<Arena>>,
    who: Who,
) -> Result<Json<crate::web::views::AdminJson>, AppError> {
    require_admin(&who)?;
    Ok(Json(crate::web::views::admin_json(&arena).await?))
}

/// `POST /api/admin/teams`: a new team and its token, shown once (the organiser only).
pub async fn add_team(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Object(t): Object<NewTeam>,
) -> Result<(StatusCode, Json<TeamToken>), AppError> {
    require_admin(&who)?;
    Ok((
        StatusCode::CREATED,
        Json(manage::add_team(&arena, &t.name).await?),
    ))
}

/// `POST /api/admin/teams/{id}/token`: a new token for the team, shown once; the old one
/// stops working at once (the organiser only).
pub async fn team_token(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Path(id): Path<i64>,
) -> Result<Json<TeamToken>, AppError> {
    require_admin(&who)?;
    Ok(Json(manage::new_team_token(&arena, id).await?))
}

/// `POST /api/admin/teams/{id}/withdraw`: takes the team out of the ladder, with an optional
/// `reason` (the organiser only).
pub async fn withdraw_team(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Path(id): Path<i64>,
    Object(w): Object<manage::Withdrawal>,
) -> Result<Json<manage::Standing>, AppError> {
    require_admin(&who)?;
    Ok(Json(manage::withdraw_team(&arena, id, &w.reason).await?))
}

/// `POST /api/team/entry` `{"version": N}` or `{"version": null}`: the signed-in team's
/// entry in the final (a team only).
pub async fn set_entry(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Object(e): Object<EntryBody>,
) -> Result<Json<manage::Entry>, AppError> {
    let Who::Team(team) = who else {
        return Err(match who {
            Who::Public => AppError::Unauthorized("a team's token is needed".into()),
            _ => AppError::Forbidden("only a team chooses its entry".into()),
        });
    };
    Ok(Json(manage::set_entry(&arena, team, e.version).await?))
}

/// `POST /api/team/spar` `{"against": NAME}`: a practice match of the signed-in team's latest
/// valid version against another team or a house agent (a team only); 202 with the match.
pub async fn spar(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Object(r): Object<manage::SparRequest>,
) -> Result<Response, AppError> {
    let Who::Team(team) = who else {
        return Err(match who {
            Who::Public => AppError::Unauthorized("a team's token is needed".into()),
            _ => AppError::Forbidden("only a team asks for a spar match".into()),
        });
    };
    let s = manage::spar(&arena, team, &r.against).await?;
    Ok((StatusCode::ACCEPTED, Json(s)).into_response())
}

/// `GET /api/matches/{id}`: a match, its state and its games so far.
pub async fn match_(
    State(arena): State<Arc<Arena>>,
    Path(id): Path<i64>,
) -> Result<Json<crate::web::views::MatchJson>, AppError> {
    Ok(Json(crate::web::views::match_json(&arena, id).await?))
}

/// The body of `POST /api/team/entry`.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntryBody {
    /// A version number of the team's, or null for its latest valid one: required, so that
    /// a body that forgot it is not taken as a choice of the latest.
    #[serde(deserialize_with = "required_nullable")]
    pub version: Option<i64>,
}

/// An `Option` field that must be present, null or not (serde takes a missing `Option` as
/// `None` unless told otherwise).
fn required_nullable<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    <Option<i64> as serde::Deserialize>::deserialize(d)
}

/// `POST /api/admin/teams/{id}/reinstate`: puts a withdrawn team back (the organiser only).
pub async fn reinstate_team(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Path(id): Path<i64>,
) -> Result<Json<manage::Standing>, AppError> {
    require_admin(&who)?;
    Ok(Json(manage::reinstate_team(&arena, id).await?))
}

/// `POST /api/admin/workers`: a new worker and its token, shown once (the organiser only).
pub async fn add_worker(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Object(t): Object<NewTeam>,
) -> Result<(StatusCode, Json<TeamToken>), AppError> {
    require_admin(&who)?;
    Ok((
        StatusCode::CREATED,
        Json(manage::add_worker(&arena, &t.name).await?),
    ))
}

/// `POST /api/admin/workers/{id}/token`: a new token for the worker, shown once; the old one
/// stops working at once (the organiser only).
pub async fn worker_token(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Path(id): Path<i64>,
) -> Result<Json<TeamToken>, AppError> {
    require_admin(&who)?;
    Ok(Json(manage::new_worker_token(&arena, id).await?))
}

/// `DELETE /api/admin/workers/{id}`: removes the worker; its token stops working at once
/// (the organiser only).
pub async fn remove_worker(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Path(id): Path<i64>,
) -> Result<StatusCode, AppError> {
    require_admin(&who)?;
    manage::remove_worker(&arena, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The API described (OpenAPI 3.1): every `/api/` route and what it answers.
pub const OPENAPI: &str = include_str!("../../assets/openapi.json");

/// `GET /api/openapi.json`: this API described.
pub async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}

/// `GET /api/final`: the final tournament's table as JSON, once it has been played.
pub async fn final_table(State(arena): State<Arc<Arena>>) -> Result<Response, AppError> {
    match arena.db.meta("final_json").await? {
        Some(j) => Ok(([(header::CONTENT_TYPE, "application/json")], j).into_response()),
        None => Err(AppError::NotFound("the final has not been played".into())),
    }
}
