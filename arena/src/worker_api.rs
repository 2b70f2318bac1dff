//! The worker API: what `croupier arena worker` on another machine calls, with a worker token
//! (`Authorization: Bearer worker-ID-…`) and nothing else.
//!
//! | route | does |
//! |---|---|
//! | `GET /api/worker/config` | the arena's config: game, rules, limits (what every game is played under) |
//! | `POST /api/worker/lease` | the next job, waiting up to [`LONG_POLL`] for one; 204 if none |
//! | `POST /api/worker/heartbeat` | extends a lease; 409 once it is lost |
//! | `POST /api/worker/report` | stores games of a job, and with `done` ends it; 409 under a lost lease |
//! | `POST /api/worker/release` | gives a job back unscored (the worker's platform failed) |
//! | `GET /api/worker/agents/{sha256}` | an agent's component, by content hash |
//!
//! Limits and why: a report carries at most [`crate::worker::BATCH`] games, so its body is
//! capped at what that many games can weigh with every seat's log full
//! ([`report_cap`]); a token that is not a worker's gets 401 or 403 here, and a worker's token
//! gets 403 everywhere else.

use crate::context::Arena;
use crate::errors::AppError;
use crate::identity::{self, Holder};
use crate::jobs::{self, MatchInfo};
use crate::jobs::{LeaseRef, Report};
use axum::extract::{DefaultBodyLimit, FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a lease request waits for a match before it answers 204: long enough that an
/// idle worker asks rarely, short enough to stay under any proxy's idle timeout.
pub const LONG_POLL: Duration = Duration::from_secs(10);

/// A request from a worker, by id: only a worker's token, and only in the header (a worker
/// is a program, never a browser with a cookie).
pub struct WorkerId(pub i64);

impl FromRequestParts<Arc<Arena>> for WorkerId {
    type Rejection = AppError;

    async fn from_request_parts(
        parts: &mut Parts,
        arena: &Arc<Arena>,
    ) -> Result<WorkerId, AppError> {
        let bad = || AppError::Unauthorized("a worker token is needed".into());
        let token = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .ok_or_else(bad)?;
        match identity::identify_from(arena, identity::peer(parts), token).await? {
            Holder::Worker(id) => Ok(WorkerId(id)),
            Holder::Who(_) => Err(AppError::Forbidden(
                "this is the worker API: it takes a worker token".into(),
            )),
        }
    }
}

/// The most seats any game has (Durak's six).
const MAX_SEATS: usize = 6;

/// The body of every worker call but a report: a lease reference.
const SMALL: usize = 16 << 10;

/// The largest report body: a batch of games, every seat's log at its cap (each line costs
/// 16 bytes more as JSON), plus a generous 1 MiB per game for the record itself.
pub fn report_cap(arena: &Arena) -> usize {
    let l = &arena.cfg.limits;
    let log = l.log_bytes_per_game as usize + 16 * l.log_lines_per_game as usize;
    crate::worker::BATCH * (MAX_SEATS * log + (1 << 20))
}

/// The worker API's routes.
pub fn routes(arena: &Arena) -> Router<Arc<Arena>> {
    Router::new()
        .route("/api/worker/config", get(config))
        .route("/api/worker/lease", post(lease))
        .route("/api/worker/heartbeat", post(heartbeat))
        .route("/api/worker/release", post(release))
        .route("/api/worker/agents/{sha}", get(agent))
        .layer(DefaultBodyLimit::max(SMALL))
        .route(
            "/api/worker/report",
            post(report).layer(DefaultBodyLimit::max(report_cap(arena))),
        )
}

async fn config(State(arena): State<Arc<Arena>>, _w: WorkerId) -> Json<crate::config::ArenaConfig> {
    Json(arena.cfg.clone())
}

async fn lease(State(arena): State<Arc<Arena>>, w: WorkerId) -> Result<Response, AppError> {
    arena.db.worker_seen(w.0).await?;
    let name = format!("w{}", w.0);
    let until = Instant::now() + LONG_POLL;
    loop {
        if let Some(job) = jobs::lease(&arena, &name).await? {
            return Ok(Json(job).into_response());
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(StatusCode::NO_CONTENT.into_response());
        }
        // Woken when the scheduler queues a match; the timeout covers a wake-up missed
        // between the claim and the wait, and matches whose lease expires.
        tokio::select! {
            _ = arena.changed.notified() => {}
            _ = tokio::time::sleep(left.min(Duration::from_millis(500))) => {}
        }
    }
}

async fn heartbeat(
    State(arena): State<Arc<Arena>>,
    w: WorkerId,
    Json(l): Json<LeaseRef>,
) -> Result<StatusCode, AppError> {
    arena.db.worker_seen(w.0).await?;
    if jobs::heartbeat(&arena, l.match_id, &l.lease).await? {
        Ok(StatusCode::OK)
    } else {
        Err(lost(l.match_id))
    }
}

fn lost(id: i64) -> AppError {
    AppError::Conflict(format!(
        "match {id}: this lease is no longer held (it expired, or the match is done)"
    ))
}

async fn report(
    State(arena): State<Arc<Arena>>,
    _w: WorkerId,
    Json(r): Json<Report>,
) -> Result<Response, AppError> {
    let info = MatchInfo::load(&arena, r.match_id).await?;
    match jobs::accept(&arena, &info, &r.lease, &r.games, r.done).await? {
        crate::db::Stored::LeaseLost => Err(lost(r.match_id)),
        stored => Ok(Json(stored).into_response()),
    }
}

async fn release(
    State(arena): State<Arc<Arena>>,
    _w: WorkerId,
    Json(l): Json<LeaseRef>,
) -> Result<StatusCode, AppError> {
    arena.db.release(l.match_id, &l.lease).await?;
    arena.changed.notify_waiters();
    Ok(StatusCode::NO_CONTENT)
}

async fn agent(
    State(arena): State<Arc<Arena>>,
    _w: WorkerId,
    Path(sha): Path<String>,
) -> Result<Response, AppError> {
    // Checked before it becomes a path: a name from a request never walks the disk.
    if !crate::validate::is_sha256(&sha) {
        return Err(AppError::BadRequest(format!(
            "`{}` is not a content hash",
            sha.chars().take(80).collect::<String>()
        )));
    }
    let path = arena.agent_path(&sha);
    let bytes = tokio::fs::read(&path)
        .await
        .map_err(|_| AppError::NotFound(format!("no agent {sha}")))?;
    Ok(([(header::CONTENT_TYPE, "application/wasm")], bytes).into_response())
}
