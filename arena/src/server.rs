//! The HTTP server: small handlers, typed extractors, one shared [`Arena`], and errors
//! turned into responses in one place ([`AppError`]), as in axum's examples.
//!
//! Every response carries a strict Content-Security-Policy: scripts and styles only from
//! `/static`, nothing inline, no framing. Pages escape every interpolated value (maud).
//! Request bodies are capped at [`SMALL_BODY`] except on the two upload routes, which are
//! capped at the arena's `uploads.max_bytes` before anything is buffered.

use crate::auth::{self, Claim, Who};
use crate::context::Arena;
use crate::validate;
use axum::Json;
use axum::Router;
use axum::extract::{DefaultBodyLimit, FromRequestParts, Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header, request::Parts};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use croupier_rules::Rules;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use tower_http::set_header::SetResponseHeaderLayer;

/// The body cap of every route but the uploads: forms and JSON are small.
pub const SMALL_BODY: usize = 64 << 10;

/// Room for a multipart form's headers around the file.
const MULTIPART_SLACK: usize = 16 << 10;

/// The Content-Security-Policy of every response.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                       connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// The name of the cookie a signed-in browser holds its token in.
pub const COOKIE: &str = "croupier_token";

/// Everything a handler can fail with, and the status it becomes.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// No token, or a token that is not valid: 401.
    #[error("{0}")]
    Unauthorized(String),
    /// A valid token without the right: 403.
    #[error("{0}")]
    Forbidden(String),
    /// 404.
    #[error("{0}")]
    NotFound(String),
    /// 400.
    #[error("{0}")]
    BadRequest(String),
    /// 409: the name is taken, or the arena is frozen.
    #[error("{0}")]
    Conflict(String),
    /// 413.
    #[error("the upload is larger than this arena's cap of {0} bytes")]
    TooLarge(u64),
    /// 429, with Retry-After in seconds.
    #[error("{message}")]
    TooMany {
        /// What limit was hit.
        message: String,
        /// Seconds until a request would be accepted.
        retry_after: u64,
    },
    /// 500: the server's fault; the message is logged, the client gets a short one.
    #[error("{0}")]
    Internal(String),
}

impl From<crate::db::DbError> for AppError {
    fn from(e: crate::db::DbError) -> AppError {
        AppError::Internal(e.to_string())
    }
}

impl AppError {
    /// The status code.
    pub fn status(&self) -> StatusCode {
        match self {
            AppError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            AppError::Forbidden(_) => StatusCode::FORBIDDEN,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AppError::Conflict(_) => StatusCode::CONFLICT,
            AppError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::TooMany { .. } => StatusCode::TOO_MANY_REQUESTS,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The message a client is shown (internal details stay in the server's log).
    pub fn public_message(&self) -> String {
        match self {
            AppError::Internal(m) => {
                eprintln!("arena: internal error: {m}");
                "internal error (logged on the server)".into()
            }
            e => e.to_string(),
        }
    }

    fn headers(&self) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let AppError::TooMany { retry_after, .. } = self
            && let Ok(v) = HeaderValue::from_str(&retry_after.to_string())
        {
            h.insert(header::RETRY_AFTER, v);
        }
        if let AppError::Unauthorized(_) = self {
            h.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        h
    }
}

/// JSON errors, for the API: `{"error": "..."}`.
impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let body = Json(serde_json::json!({ "error": self.public_message() }));
        (self.status(), self.headers(), body).into_response()
    }
}

/// An [`AppError`] on a page: the same status, as a page.
#[derive(Debug)]
pub struct PageError(pub AppError);

impl<E: Into<AppError>> From<E> for PageError {
    fn from(e: E) -> PageError {
        PageError(e.into())
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let status = self.0.status();
        let page = crate::pages::error_page(status, &self.0.public_message());
        (status, self.0.headers(), page).into_response()
    }
}

/// The token a request presents: `Authorization: Bearer T`, or the sign-in cookie.
fn presented(parts: &Parts) -> Option<String> {
    if let Some(v) = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    {
        return Some(v.strip_prefix("Bearer ").unwrap_or(v).trim().to_string());
    }
    let cookies = parts.headers.get_all(header::COOKIE);
    for c in cookies.iter().filter_map(|v| v.to_str().ok()) {
        for kv in c.split(';') {
            if let Some((k, v)) = kv.trim().split_once('=')
                && k == COOKIE
                && !v.is_empty()
            {
                return Some(v.to_string());
            }
        }
    }
    None
}

/// Refused tokens one client address may present per minute before every token it presents
/// is refused unread (429). A token is 256 random bits, so this is not what keeps guessing
/// out; it keeps a client that tries tokens in a loop from costing the database a lookup
/// per try, and makes such a client visible. Behind a reverse proxy every client has the
/// proxy's address: the limit is then shared, which only slows a flood further.
pub const FAILED_TOKENS_PER_MINUTE: u32 = 20;

/// The client's address, when the server was started with it (`serve` is).
pub fn peer(parts: &Parts) -> Option<std::net::IpAddr> {
    parts
        .extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0.ip())
}

/// The client's address as an extractor (`None` when the server runs without it).
pub struct Peer(pub Option<std::net::IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for Peer {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Peer, Self::Rejection> {
        Ok(Peer(peer(parts)))
    }
}

/// Whom a checked token belongs to: a caller of the pages and API, or a worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Holder {
    /// A team or the organiser.
    Who(Who),
    /// A worker, by id: the worker API only.
    Worker(i64),
}

/// Checks a presented token, counting a refusal against the client's address.
pub async fn identify_from(
    arena: &Arena,
    ip: Option<std::net::IpAddr>,
    token: &str,
) -> Result<Holder, AppError> {
    let now = crate::now_ms();
    if let (Some(ip), Ok(map)) = (ip, arena.failed_tokens.lock())
        && let Some((start, n)) = map.get(&ip)
        && now - start < 60_000
        && *n >= FAILED_TOKENS_PER_MINUTE
    {
        let wait = ((start + 60_000 - now) as u64).div_ceil(1000).max(1);
        return Err(AppError::TooMany {
            message: format!(
                "{FAILED_TOKENS_PER_MINUTE} refused tokens in a minute from this address: try again in {wait} s"
            ),
            retry_after: wait,
        });
    }
    let who = identify_any(arena, token).await;
    if let (Err(AppError::Unauthorized(_)), Some(ip)) = (&who, ip)
        && let Ok(mut map) = arena.failed_tokens.lock()
    {
        // Old windows go when the map grows, so a spray of addresses cannot fill memory.
        if map.len() > 10_000 {
            map.retain(|_, (start, _)| now - *start < 60_000);
        }
        let e = map.entry(ip).or_insert((now, 0));
        if now - e.0 >= 60_000 {
            *e = (now, 0);
        }
        e.1 += 1;
    }
    who
}

/// A team's or the organiser's token: who it belongs to; 401 for a token that is not
/// valid, 403 for a worker's (the worker API only).
pub fn only_who(h: Holder) -> Result<Who, AppError> {
    match h {
        Holder::Who(w) => Ok(w),
        Holder::Worker(_) => Err(AppError::Forbidden(
            "a worker token is only for the worker API".into(),
        )),
    }
}

/// Checks a token: whom it belongs to, or 401.
async fn identify_any(arena: &Arena, token: &str) -> Result<Holder, AppError> {
    let bad = || AppError::Unauthorized("the token is not valid".into());
    let (stored, holder) = match auth::claim(token).ok_or_else(bad)? {
        Claim::Admin => {
            let stored = arena.db.meta("admin_token_sha256").await?.ok_or_else(bad)?;
            (
                hex_decode(&stored).ok_or_else(bad)?,
                Holder::Who(Who::Admin),
            )
        }
        Claim::Worker(id) => {
            let w = arena.db.worker(id).await?.ok_or_else(bad)?;
            (w.token_hash, Holder::Worker(id))
        }
        Claim::Team(id) => {
            let team = arena.db.team(id).await?.ok_or_else(bad)?;
            (team.token_hash, Holder::Who(Who::Team(id)))
        }
    };
    if auth::matches(token, &stored) {
        Ok(holder)
    } else {
        Err(bad())
    }
}

/// Hex to bytes.
pub fn hex_decode(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Bytes to hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl FromRequestParts<Arc<Arena>> for Who {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, arena: &Arc<Arena>) -> Result<Who, AppError> {
        match presented(parts) {
            None => Ok(Who::Public),
            Some(t) => only_who(identify_from(arena, peer(parts), &t).await?),
        }
    }
}

/// The server's routes.
pub fn router(arena: Arc<Arena>) -> Router {
    let cap = arena.cfg.uploads.max_bytes as usize;
    let uploads = Router::new()
        .route("/api/submit", post(api_submit))
        .route("/submit", post(crate::pages::submit_form))
        .layer(DefaultBodyLimit::disable())
        .layer(tower_http::limit::RequestBodyLimitLayer::new(
            cap + MULTIPART_SLACK,
        ));
    Router::new()
        .route("/", get(crate::pages::leaderboard))
        .route("/teams/{id}", get(crate::pages::team))
        .route("/games/{m}/{g}", get(crate::pages::game))
        .route("/final", get(crate::pages::final_page))
        .route(
            "/login",
            get(crate::pages::login_form).post(crate::pages::login),
        )
        .route("/logout", post(crate::pages::logout))
        .route("/submit", get(crate::pages::submit_page))
        .route("/admin", get(crate::pages::admin))
        .route("/admin/teams", post(crate::pages::admin_add_team))
        .route("/static/{file}", get(static_file))
        .route("/api/leaderboard", get(api_leaderboard))
        .route("/api/teams/{id}", get(api_team))
        .route("/api/games/{m}/{g}", get(api_game))
        .route("/api/games/{m}/{g}/log", get(api_game_log))
        .route("/api/admin/teams", post(api_add_team))
        .route("/api/final", get(api_final))
        .route("/api/openapi.json", get(api_openapi))
        .layer(DefaultBodyLimit::max(SMALL_BODY))
        .merge(uploads)
        .merge(crate::worker_api::routes(&arena))
        .layer(SetResponseHeaderLayer::overriding(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ))
        .with_state(arena)
}

async fn static_file(Path(file): Path<String>) -> Result<Response, AppError> {
    let (body, ty): (&'static str, &str) = match file.as_str() {
        "style.css" => (
            include_str!("../assets/style.css"),
            "text/css; charset=utf-8",
        ),
        "app.js" => (
            include_str!("../assets/app.js"),
            "text/javascript; charset=utf-8",
        ),
        "viewer.js" => (
            croupier_tournament::replay::VIEWER_JS,
            "text/javascript; charset=utf-8",
        ),
        "viewer.css" => (
            croupier_tournament::replay::VIEWER_CSS,
            "text/css; charset=utf-8",
        ),
        _ => return Err(AppError::NotFound(format!("no static file `{file}`"))),
    };
    Ok((
        [
            (header::CONTENT_TYPE, ty),
            (header::CACHE_CONTROL, "max-age=300"),
        ],
        body,
    )
        .into_response())
}

/// One row of the leaderboard.
#[derive(Clone, Debug, Serialize)]
pub struct BoardRow {
    /// 1 for the top.
    pub rank: usize,
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
}

/// The leaderboard: each team's latest valid version, by μ − 3σ.
pub async fn board_rows(arena: &Arena) -> Result<Vec<BoardRow>, AppError> {
    let teams = arena.db.teams().await?;
    let versions = arena.db.versions().await?;
    let mut latest = std::collections::BTreeMap::new();
    for v in versions.iter().filter(|v| v.status == "valid") {
        latest.insert(v.team_id, v.clone());
    }
    let board = arena
        .board
        .read()
        .map_err(|_| AppError::Internal("board lock".into()))?;
    let mut rows: Vec<BoardRow> = teams
        .iter()
        .filter_map(|t| {
            let v = latest.get(&t.id)?;
            let st = board.versions.get(&v.id);
            let (mu, sigma) = st.map_or((25.0, 25.0 / 3.0), |s| (s.mu, s.sigma));
            let (win_rate, ci) = st.map_or((0.0, (0.0, 1.0)), |s| s.win_rate());
            Some(BoardRow {
                rank: 0,
                team_id: t.id,
                team: t.name.clone(),
                version: v.number,
                mu,
                sigma,
                conservative: mu - 3.0 * sigma,
                games: st.map_or(0, |s| s.games),
                win_rate,
                win_rate_ci95: ci,
                faults: st.map(|s| s.faults.clone()).unwrap_or_default(),
                suspended: st.and_then(|s| s.suspended.clone()),
                changed_ms: st.map_or(0, |s| s.changed_ms),
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        b.conservative
            .total_cmp(&a.conservative)
            .then(a.team_id.cmp(&b.team_id))
    });
    for (i, r) in rows.iter_mut().enumerate() {
        r.rank = i + 1;
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
}

async fn api_leaderboard(
    State(arena): State<Arc<Arena>>,
) -> Result<Json<LeaderboardJson>, AppError> {
    let rows = board_rows(&arena).await?;
    let games = arena.board.read().map(|b| b.games).unwrap_or(0);
    Ok(Json(LeaderboardJson {
        title: arena.cfg.title.clone(),
        game: arena.cfg.game.clone(),
        rules: arena.cfg.rules.clone(),
        games,
        frozen: arena.is_frozen(),
        rows,
    }))
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
    /// `checking`, `valid` or `refused`.
    pub status: String,
    /// The verdict's message.
    pub message: String,
    /// The smoke match (team and organiser only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smoke: Option<validate::Smoke>,
    /// Its rating and games, once it has played.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<crate::ratings::VersionStats>,
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
    pub result: String,
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
    /// Versions, newest first.
    pub versions: Vec<VersionJson>,
    /// Latest games, newest first.
    pub games: Vec<TeamGame>,
    /// Against each opponent team: (opponent, wins, draws, losses).
    pub head_to_head: Vec<(String, u64, u64, u64)>,
    /// μ − 3σ over time of the team's versions: (ms, version, value).
    pub history: Vec<(i64, i64, f64)>,
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
    let names = arena.db.team_names().await?;
    let number: std::collections::HashMap<i64, i64> = arena
        .db
        .versions()
        .await?
        .into_iter()
        .map(|v| (v.id, v.number))
        .collect();
    let seats = arena.db.recent_games_of_team(id, 50).await?;
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
            result: mine.result.clone(),
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
    let versions = versions
        .into_iter()
        .map(|v| VersionJson {
            number: v.number,
            sha256: v.sha256.clone(),
            bytes: v.bytes,
            uploaded_ms: v.uploaded_ms,
            status: v.status.clone(),
            message: v.message.clone(),
            smoke: if private {
                v.smoke
                    .as_deref()
                    .and_then(|s| serde_json::from_str(s).ok())
            } else {
                None
            },
            stats: board.versions.get(&v.id).cloned(),
        })
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
    let head_to_head = board
        .head_to_head
        .iter()
        .filter(|((a, _), _)| *a == id)
        .map(|((_, b), h)| {
            (
                names.get(b).cloned().unwrap_or_default(),
                h.wins,
                h.draws,
                h.losses,
            )
        })
        .collect();
    Ok(TeamJson {
        id,
        name: team.name,
        versions,
        games,
        head_to_head,
        history,
    })
}

async fn api_team(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Path(id): Path<i64>,
) -> Result<Json<TeamJson>, AppError> {
    Ok(Json(team_json(&arena, id, &who).await?))
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
        croupier_tournament::matches::LogHeader,
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
    let mut rec: croupier_tournament::runner::GameRecord = serde_json::from_str(&row.record)
        .map_err(|e| AppError::Internal(format!("match {m} game {g}: {e}")))?;
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
    let names = arena.db.team_names().await?;
    let ids = mrow.entrant_ids()?;
    let mut agents = Vec::new();
    for id in &ids {
        let v = arena.db.version(*id).await?;
        agents.push(match v {
            Some(v) => format!(
                "{} v{}",
                names.get(&v.team_id).cloned().unwrap_or_default(),
                v.number
            ),
            None => format!("version {id}"),
        });
    }
    let (preset, options) = croupier_tournament::with_game!(arena.cfg.kind(), G => {
        let (p, o) = croupier_tournament::matches::options::<G>(&arena.cfg.rules_args())
            .map_err(|e| AppError::Internal(format!("{e:#}")))?;
        (p, o.option_pairs())
    });
    let header = croupier_tournament::matches::LogHeader {
        kind: "match".into(),
        game: arena.cfg.kind(),
        rules: preset,
        options,
        seed: mrow.seed as u64,
        deals: mrow.deals as u64,
        duplicate: mrow.duplicate != 0,
        agents,
        limits: arena.cfg.limits.clone(),
        policy: croupier_tournament::runner::FaultPolicy::Forfeit,
        shard: None,
    };
    let doc = croupier_tournament::with_game!(arena.cfg.kind(), G => {
        croupier_tournament::replay::replay_doc::<G>(&header, &rec, seat)
            .map_err(|e| AppError::Internal(format!("match {m} game {g}: {e:#}")))
    })?;
    Ok((doc, header, rec))
}

async fn api_game(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Path((m, g)): Path<(i64, i64)>,
    axum::extract::Query(q): axum::extract::Query<SeatQuery>,
) -> Result<Json<croupier_tournament::replay::ReplayDoc>, AppError> {
    Ok(Json(game_doc(&arena, m, g, q.seat, &who).await?.0))
}

/// The game as a log file (`croupier replay FILE` opens it): a header line and the record,
/// without private logs.
async fn api_game_log(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Path((m, g)): Path<(i64, i64)>,
) -> Result<Response, AppError> {
    let (_, header, rec) = game_doc(&arena, m, g, None, &who).await?;
    let mut body = serde_json::to_string(&header).map_err(|e| AppError::Internal(e.to_string()))?;
    body.push('\n');
    let line = croupier_tournament::matches::game_line(&rec)
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

/// The team a submission is for: 401 without a token, 403 for the organiser's.
pub fn submitting_team(who: &Who) -> Result<i64, AppError> {
    match who {
        Who::Team(id) => Ok(*id),
        Who::Admin => Err(AppError::Forbidden(
            "uploads are made with a team's token".into(),
        )),
        Who::Public => Err(AppError::Unauthorized(
            "a team token is needed to submit".into(),
        )),
    }
}

/// The rate limit: 429 with the seconds until the oldest upload of the hour leaves it.
pub async fn check_rate(arena: &Arena, team: i64) -> Result<(), AppError> {
    let hour = 3_600_000;
    let now = crate::now_ms();
    let recent = arena.db.uploads_since(team, now - hour).await?;
    let cap = arena.cfg.uploads.per_hour as usize;
    if recent.len() >= cap {
        let oldest = recent[recent.len() - cap];
        let wait = ((oldest + hour - now).max(0) as u64).div_ceil(1000).max(1);
        return Err(AppError::TooMany {
            message: format!("{cap} submissions per hour: try again in {wait} s"),
            retry_after: wait,
        });
    }
    Ok(())
}

/// What a submission gives back.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SubmitJson {
    /// The team.
    pub team: i64,
    /// The new version's number.
    pub version: i64,
    /// SHA-256 of the upload.
    pub sha256: String,
    /// The verdict.
    pub verdict: validate::Verdict,
}

/// Stores, records and checks an upload for `team` (the API and the form share this).
pub async fn submit(arena: &Arc<Arena>, team: i64, bytes: Vec<u8>) -> Result<SubmitJson, AppError> {
    if bytes.is_empty() {
        return Err(AppError::BadRequest("the upload is empty".into()));
    }
    let dir = arena.dir.join("agents");
    let b = bytes;
    let len = b.len() as i64;
    let sha = tokio::task::spawn_blocking(move || validate::store_agent(&dir, &b))
        .await
        .map_err(|e| AppError::Internal(e.to_string()))?
        .map_err(|e| AppError::Internal(format!("storing an upload: {e}")))?;
    let (vid, number) = arena.db.add_version(team, &sha, len).await?;
    let verdict = check_version(arena, vid, &sha, number).await?;
    Ok(SubmitJson {
        team,
        version: number,
        sha256: sha,
        verdict,
    })
}

/// Checks a stored version and records its verdict; at most two checks run at once.
pub async fn check_version(
    arena: &Arc<Arena>,
    vid: i64,
    sha: &str,
    number: i64,
) -> Result<validate::Verdict, AppError> {
    let _turn = arena
        .checks
        .acquire()
        .await
        .map_err(|e| AppError::Internal(e.to_string()))?;
    let a = arena.clone();
    let sha2 = sha.to_string();
    let label = format!("version {number}");
    let verdict = tokio::task::spawn_blocking(move || {
        croupier_tournament::with_game!(a.cfg.kind(), G => validate::check::<G>(&a, &sha2, &label))
    })
    .await
    .map_err(|e| AppError::Internal(e.to_string()))?;
    let smoke = verdict
        .smoke
        .as_ref()
        .and_then(|s| serde_json::to_string(s).ok());
    arena
        .db
        .set_version_status(
            vid,
            if verdict.valid { "valid" } else { "refused" },
            &verdict.message,
            smoke.as_deref(),
        )
        .await?;
    arena.changed.notify_waiters();
    Ok(verdict)
}

async fn api_submit(
    State(arena): State<Arc<Arena>>,
    who: Who,
    req: Request,
) -> Result<Response, AppError> {
    let team = submitting_team(&who)?;
    if arena.is_frozen() {
        return Err(AppError::Conflict(
            "submissions are closed: the final has begun".into(),
        ));
    }
    check_rate(&arena, team).await?;
    let cap = arena.cfg.uploads.max_bytes;
    let bytes = read_capped(req.into_body(), cap).await?;
    let out = submit(&arena, team, bytes).await?;
    let status = if out.verdict.valid {
        StatusCode::CREATED
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    Ok((status, Json(out)).into_response())
}

/// Reads a body up to `cap` bytes; 413 past it, without buffering more than the cap.
pub async fn read_capped(body: axum::body::Body, cap: u64) -> Result<Vec<u8>, AppError> {
    match axum::body::to_bytes(body, cap as usize).await {
        Ok(b) => Ok(b.to_vec()),
        Err(e) => {
            let too_large = std::error::Error::source(&e)
                .is_some_and(|s| s.is::<http_body_util::LengthLimitError>())
                || e.to_string().contains("length limit");
            if too_large {
                Err(AppError::TooLarge(cap))
            } else {
                Err(AppError::BadRequest(format!("reading the upload: {e}")))
            }
        }
    }
}

/// A new team's name.
#[derive(Debug, Deserialize)]
pub struct NewTeam {
    /// The name (1 to 64 characters, any text: it is escaped wherever shown).
    pub name: String,
}

/// A new team or worker and its token, shown once.
#[derive(Debug, Serialize, Deserialize)]
pub struct TeamToken {
    /// The team's id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// Its token: shown once, stored only as a hash.
    pub token: String,
}

/// A name the organiser gives a team or a worker, trimmed, or why it is refused.
fn checked_name<'a>(name: &'a str, what: &str) -> Result<&'a str, AppError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 64 || name.chars().any(char::is_control) {
        return Err(AppError::BadRequest(format!(
            "a {what} name is 1 to 64 characters, without control characters"
        )));
    }
    Ok(name)
}

/// A random hash to insert a row with before its token (which holds the row's id) exists.
fn placeholder_hash() -> Result<Vec<u8>, AppError> {
    let r = auth::random_u64().map_err(|e| AppError::Internal(e.to_string()))?;
    Ok(auth::hash(&hex(&r.to_le_bytes())))
}

/// Adds a team (the organiser only).
pub async fn add_team(arena: &Arena, name: &str) -> Result<TeamToken, AppError> {
    let name = checked_name(name, "team")?;
    // The id is needed in the token, so insert with a placeholder hash, then set it.
    let id = arena
        .db
        .add_team(name, &placeholder_hash()?)
        .await?
        .ok_or_else(|| AppError::Conflict(format!("a team named `{name}` exists")))?;
    let token = auth::team_token(id).map_err(|e| AppError::Internal(e.to_string()))?;
    arena.db.set_team_token(id, &auth::hash(&token)).await?;
    Ok(TeamToken {
        id,
        name: name.to_string(),
        token,
    })
}

/// Adds a worker (the organiser only): its token opens the worker API and nothing else.
pub async fn add_worker(arena: &Arena, name: &str) -> Result<TeamToken, AppError> {
    let name = checked_name(name, "worker")?;
    let id = arena
        .db
        .add_worker(name, &placeholder_hash()?)
        .await?
        .ok_or_else(|| AppError::Conflict(format!("a worker named `{name}` exists")))?;
    let token = auth::worker_token(id).map_err(|e| AppError::Internal(e.to_string()))?;
    arena.db.set_worker_token(id, &auth::hash(&token)).await?;
    Ok(TeamToken {
        id,
        name: name.to_string(),
        token,
    })
}

/// Organiser routes: 401 without a token, 403 with a team's.
pub fn require_admin(who: &Who) -> Result<(), AppError> {
    match who {
        Who::Admin => Ok(()),
        Who::Team(_) => Err(AppError::Forbidden("this is for the organiser".into())),
        Who::Public => Err(AppError::Unauthorized(
            "the organiser's token is needed".into(),
        )),
    }
}

async fn api_add_team(
    State(arena): State<Arc<Arena>>,
    who: Who,
    Json(t): Json<NewTeam>,
) -> Result<(StatusCode, Json<TeamToken>), AppError> {
    require_admin(&who)?;
    Ok((StatusCode::CREATED, Json(add_team(&arena, &t.name).await?)))
}

/// The API described (OpenAPI 3.1): every `/api/` route and what it answers.
pub const OPENAPI: &str = include_str!("../assets/openapi.json");

async fn api_openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}

async fn api_final(State(arena): State<Arc<Arena>>) -> Result<Response, AppError> {
    match arena.db.meta("final_json").await? {
        Some(j) => Ok(([(header::CONTENT_TYPE, "application/json")], j).into_response()),
        None => Err(AppError::NotFound("the final has not been played".into())),
    }
}

/// Serves the arena on its listen address (or `listen`) until Ctrl-C, with the ladder's
/// scheduler and one worker running inside. `ready` is called with the bound address.
pub async fn serve(
    arena: Arc<Arena>,
    listen: Option<&str>,
    ready: impl FnOnce(std::net::SocketAddr),
) -> anyhow::Result<()> {
    use anyhow::Context;
    let addr = listen.unwrap_or(&arena.cfg.listen).to_string();
    let listener = tokio::net::TcpListener::bind(&addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let local = listener.local_addr()?;
    // The ratings from every stored result, before the first page is served.
    arena.update_board().await?;
    // Uploads a killed server left unchecked are checked again.
    for v in arena.db.checking_versions().await? {
        let a = arena.clone();
        tokio::spawn(async move {
            let _ = check_version(&a, v.id, &v.sha256, v.number).await;
        });
    }
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let sched = tokio::spawn(crate::ladder::scheduler(arena.clone(), stop_rx.clone()));
    // The embedded worker: the same loop as `croupier arena worker`, on the database.
    // `ladder.threads = 0` leaves the playing to workers on other machines.
    let worker = (arena.cfg.ladder.threads > 0).then(|| {
        let worker = Arc::new(crate::worker::Worker {
            cfg: arena.cfg.clone(),
            linked: arena.linked.clone(),
            threads: arena.cfg.ladder.threads,
            name: "embedded".into(),
        });
        let queue = Arc::new(crate::worker::Local {
            arena: arena.clone(),
            name: "embedded".into(),
        });
        tokio::spawn(crate::worker::run(worker, queue, stop_rx))
    });
    ready(local);
    let app = router(arena.clone());
    // With each client's address: the refused-token limit counts per address.
    let app = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .context("the server stopped")?;
    let _ = stop_tx.send(true);
    let _ = sched.await;
    if let Some(w) = worker {
        let _ = w.await;
    }
    arena.db.close().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The `/api/` paths routed in these files: every string literal that starts so.
    fn routed(source: &str) -> Vec<String> {
        // Spelt in two parts so that this line is not itself a match.
        let needle = concat!('"', "/ap", "i/");
        let mut out = Vec::new();
        let mut rest = source;
        while let Some(i) = rest.find(needle) {
            let tail = &rest[i + 1..];
            let end = tail.find('"').unwrap_or(tail.len());
            out.push(tail[..end].to_string());
            rest = &tail[end..];
        }
        out
    }

    #[test]
    fn every_api_route_is_in_the_openapi_document_and_back() {
        let doc: serde_json::Value = serde_json::from_str(super::OPENAPI).expect("valid JSON");
        let mut documented: Vec<String> = doc["paths"]
            .as_object()
            .expect("paths")
            .keys()
            .cloned()
            .collect();
        let mut routes = routed(include_str!("server.rs"));
        routes.extend(routed(include_str!("worker_api.rs")));
        routes.sort();
        routes.dedup();
        documented.sort();
        assert_eq!(routes, documented, "routes and docs/openapi differ");
    }
}
