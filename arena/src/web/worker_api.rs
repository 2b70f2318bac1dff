//! The worker API: what `croupier arena worker` on another machine calls, with a worker token
//! (`Authorization: Bearer worker-ID-…`) and nothing else.
//!
//! | route | does |
//! |---|---|
//! | `GET /api/worker/config` | the arena's config: game, rules, limits (what every game is played under) |
//! | `POST /api/worker/lease` | the next job, waiting up to [`LONG_POLL`] for one; 204 if none; with `{"max": n}`, up to n jobs at once |
//! | `POST /api/worker/heartbeat` | extends a lease; 409 once it is lost |
//! | `POST /api/worker/report` | stores games of a job, and with `done` ends it; 409 under a lost lease; the body is JSON or [`crate::queue::report_wire`]'s binary |
//! | `POST /api/worker/reports` | several reports in one call, each stored as a lone one would be: one outcome per report |
//! | `POST /api/worker/release` | gives a job back unscored (the worker's platform failed) |
//! | `GET /api/worker/agents/{sha256}` | an agent's component, by content hash |
//!
//! Limits and why: a report carries at most [`crate::queue::BATCH`] games, so its body is
//! capped at what that many games can weigh with every seat's log full ([`report_cap`]);
//! several reports in one call at twice that, with at most [`MAX_GAMES_PER_CALL`] games in
//! at most [`MAX_REPORTS_PER_CALL`] reports. A token that is not a worker's gets 401 or 403
//! here, and a worker's token gets 403 everywhere else.

use crate::context::Arena;
use crate::queue::jobs;
use crate::queue::{LeaseRef, Report, ReportOutcome, ReportOutcomes, Reports};
pub use crate::queue::{MAX_GAMES_PER_CALL, MAX_LEASE_BATCH, MAX_REPORTS_PER_CALL, report_cap};
use crate::web::errors::AppError;
use crate::web::identity::{self, Holder};
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, FromRequest, FromRequestParts, Path, Request, State};
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

/// The body of every worker call but a report: a lease reference.
const SMALL: usize = 16 << 10;

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
            post(report).layer(DefaultBodyLimit::max(report_cap(&arena.cfg))),
        )
        .route(
            "/api/worker/reports",
            post(reports).layer(DefaultBodyLimit::max(2 * report_cap(&arena.cfg))),
        )
}

async fn config(State(arena): State<Arc<Arena>>, _w: WorkerId) -> Json<crate::config::ArenaConfig> {
    Json(arena.cfg.clone())
}

/// A lease request's body: `{}` for one job, answered as the job itself (as workers before
/// batches ask), or `{"max": n}` for up to `n` (at most [`MAX_LEASE_BATCH`]), answered as
/// [`crate::queue::Leased`].
#[derive(Debug, Default, serde::Deserialize)]
pub struct LeaseAsk {
    /// How many jobs at most.
    #[serde(default)]
    pub max: Option<usize>,
}

async fn lease(
    State(arena): State<Arc<Arena>>,
    w: WorkerId,
    body: Bytes,
) -> Result<Response, AppError> {
    let ask: LeaseAsk = if body.iter().all(u8::is_ascii_whitespace) {
        LeaseAsk::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| AppError::BadRequest(format!("lease: not a lease request: {e}")))?
    };
    arena.worker_seen(w.0).await?;
    let name = format!("w{}", w.0);
    let until = Instant::now() + LONG_POLL;
    // Up to `max` jobs from what is waiting now, in one statement: a batch never waits for
    // more once it has one.
    let max = ask.max.unwrap_or(1).clamp(1, MAX_LEASE_BATCH);
    loop {
        // Listening before claiming, so that a match queued in between wakes the wait.
        let queued = arena.queued.notified();
        tokio::pin!(queued);
        queued.as_mut().enable();
        let mut jobs = jobs::lease(&arena, &name, max).await?;
        if !jobs.is_empty() {
            if ask.max.is_none() {
                return Ok(Json(jobs.swap_remove(0)).into_response());
            }
            return Ok(Json(crate::queue::Leased { jobs }).into_response());
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(StatusCode::NO_CONTENT.into_response());
        }
        // Woken when this server queues a match or one is given back; the timeout covers
        // matches queued by another process (`arena final`, another server on the same
        // PostgreSQL) and leases that expire.
        tokio::select! {
            _ = queued => {}
            _ = tokio::time::sleep(left.min(Duration::from_millis(500))) => {}
        }
    }
}

/// Stores each report as `POST /api/worker/report` would, with one outcome each (one refused
/// report costs the others nothing), all in one transaction unless that fails
/// ([`jobs::store_reports`]), then catches the ratings up once for all the matches that
/// ended.
async fn reports(
    State(arena): State<Arc<Arena>>,
    _w: WorkerId,
    Wire(x): Wire<Reports>,
) -> Result<Json<ReportOutcomes>, AppError> {
    if x.reports.len() > MAX_REPORTS_PER_CALL {
        return Err(AppError::BadRequest(format!(
            "reports: {} in one call; at most {MAX_REPORTS_PER_CALL}",
            x.reports.len()
        )));
    }
    let games: usize = x.reports.iter().map(|r| r.games.len()).sum();
    if games > MAX_GAMES_PER_CALL {
        return Err(AppError::BadRequest(format!(
            "reports: {games} games in one call; at most {MAX_GAMES_PER_CALL}"
        )));
    }
    let mut outcomes = Vec::with_capacity(x.reports.len());
    let mut ended = Vec::new();
    let stored = jobs::store_reports(&arena, &x.reports).await;
    for (r, stored) in x.reports.iter().zip(stored) {
        outcomes.push(match stored {
            Ok(s) => {
                if r.done && s == crate::store::db::games::Stored::Ok {
                    ended.push(r.match_id);
                }
                ReportOutcome::Stored(s)
            }
            // The message a lone report's error would show (a 500's detail is logged).
            Err(e) => ReportOutcome::Refused(format!(
                "match {}: {}",
                r.match_id,
                AppError::from(e).public_message()
            )),
        });
    }
    if !ended.is_empty() {
        jobs::caught_up(&arena, &ended).await;
    }
    Ok(Json(ReportOutcomes { outcomes }))
}

async fn heartbeat(
    State(arena): State<Arc<Arena>>,
    w: WorkerId,
    Json(l): Json<LeaseRef>,
) -> Result<StatusCode, AppError> {
    arena.worker_seen(w.0).await?;
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

/// A body the worker API takes in JSON or in [`crate::queue::report_wire`]'s binary.
pub trait WireBody: Sized + serde::de::DeserializeOwned {
    /// Its binary content type.
    const CONTENT_TYPE: &'static str;
    /// What it is, for errors.
    const WHAT: &'static str;
    /// Reads the binary form.
    fn decode(bytes: &[u8]) -> Result<Self, crate::queue::report_wire::WireError>;
}

impl WireBody for Report {
    const CONTENT_TYPE: &'static str = crate::queue::report_wire::CONTENT_TYPE;
    const WHAT: &'static str = "report";
    fn decode(bytes: &[u8]) -> Result<Report, crate::queue::report_wire::WireError> {
        crate::queue::report_wire::decode(bytes)
    }
}

impl WireBody for Reports {
    const CONTENT_TYPE: &'static str = crate::queue::report_wire::REPORTS_CONTENT_TYPE;
    const WHAT: &'static str = "list of reports";
    fn decode(bytes: &[u8]) -> Result<Reports, crate::queue::report_wire::WireError> {
        crate::queue::report_wire::decode_reports(bytes)
    }
}

/// A [`WireBody`] read in the encoding its `Content-Type` names: the binary one (what
/// `croupier arena worker` sends) or JSON; 415 for anything else.
pub struct Wire<T>(pub T);

impl<T: WireBody> FromRequest<Arc<Arena>> for Wire<T> {
    type Rejection = Response;

    async fn from_request(req: Request, arena: &Arc<Arena>) -> Result<Wire<T>, Response> {
        let kind = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        // Under the route's body limit: past it, axum's own 413.
        let body = Bytes::from_request(req, arena)
            .await
            .map_err(IntoResponse::into_response)?;
        let media = kind.split(';').next().unwrap_or("").trim();
        let value = if media.eq_ignore_ascii_case(T::CONTENT_TYPE) {
            T::decode(&body).map_err(|e| e.to_string())
        } else if media.eq_ignore_ascii_case("application/json") {
            serde_json::from_slice(&body).map_err(|e| format!("not a JSON {}: {e}", T::WHAT))
        } else {
            return Err(AppError::Unsupported(format!(
                "a {} is `application/json` or `{}`, not `{}`",
                T::WHAT,
                T::CONTENT_TYPE,
                kind.chars().take(80).collect::<String>()
            ))
            .into_response());
        };
        value
            .map(Wire)
            .map_err(|e| AppError::BadRequest(e).into_response())
    }
}

async fn report(
    State(arena): State<Arc<Arena>>,
    _w: WorkerId,
    Wire(r): Wire<Report>,
) -> Result<Response, AppError> {
    let info = jobs::match_info(&arena, r.match_id).await?;
    match jobs::accept(&arena, &info, &r.lease, &r.games, r.done).await? {
        crate::store::db::games::Stored::LeaseLost => Err(lost(r.match_id)),
        stored => Ok(Json(stored).into_response()),
    }
}

async fn release(
    State(arena): State<Arc<Arena>>,
    _w: WorkerId,
    Json(l): Json<LeaseRef>,
) -> Result<StatusCode, AppError> {
    arena.db.release(l.match_id, &l.lease).await?;
    arena.queued.notify_waiters();
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
