//! Server-rendered pages: leaderboard, team, game, final, sign-in, upload and admin.
//!
//! maud escapes every interpolated value, so team names, log lines and messages are text,
//! never markup. No page has inline script or style (the CSP forbids both): behaviour is
//! in `/static/app.js` (live leaderboard) and `/static/viewer.js` (replays), and works
//! without a JavaScript build chain.

use crate::auth::Who;
use crate::context::Arena;
use crate::store::db::states::{MatchState, VersionStatus};
use crate::web::errors::{AppError, PageError};
use crate::web::session::{self, CSRF_FIELD, Viewer};
use crate::web::views::{self, SeatQuery, when};
use crate::web::{identity, manage};
use axum::extract::{Form, FromRequest, Multipart, Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{DOCTYPE, Markup, PreEscaped, html};
use serde::Deserialize;
use std::sync::Arc;

type PageResult = Result<Response, PageError>;

/// The hidden field that carries the session's CSRF token in every form (nothing for a
/// Bearer-token client, which needs none).
fn csrf_input(v: &Viewer) -> Markup {
    html! { @if let Some(c) = &v.csrf { input type="hidden" name=(CSRF_FIELD) value=(c); } }
}

fn layout(arena: &Arena, v: &Viewer, title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · " (arena.cfg.title) }
                link rel="stylesheet" href="/static/style.css";
            }
            body {
                header {
                    nav {
                        a href="/" { strong { (arena.cfg.title) } }
                        " "
                        span.muted { (arena.cfg.game) " · " (arena.cfg.rules) }
                        span.spacer {}
                        @match &v.who {
                            Who::Team(id) => {
                                span #signed-in { "signed in as team " strong { (v.team.as_deref().unwrap_or("?")) } }
                                a href={ "/teams/" (id) } { "my team" }
                                a href="/submit" { "upload" }
                                form.inline method="post" action="/logout" { (csrf_input(v)) button { "sign out" } }
                            }
                            Who::Admin => {
                                span #signed-in { "signed in as " strong { "the organiser" } }
                                a href="/admin" { "admin" }
                                form.inline method="post" action="/logout" { (csrf_input(v)) button { "sign out" } }
                            }
                            Who::Public => { a href="/login" { "sign in" } }
                        }
                    }
                }
                @if v.dropped {
                    p.notice #signed-out {
                        "This browser's sign-in no longer works (the token was replaced, or the team removed), so it was signed out. "
                        a href="/login" { "Sign in" } " with the token your organiser gave you."
                    }
                }
                main { (body) }
            }
        }
    }
}

fn page(markup: Markup) -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        markup.into_string(),
    )
        .into_response()
}

fn faults_text(f: &std::collections::BTreeMap<String, u64>) -> String {
    if f.is_empty() {
        return "–".into();
    }
    f.iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `/`: the leaderboard and the matches being played, kept current by `/static/app.js`.
pub async fn leaderboard(State(arena): State<Arc<Arena>>, v: Viewer) -> PageResult {
    let rows = views::board_rows(&arena).await?;
    let withdrawn = views::withdrawn_rows(&arena).await?;
    let games = arena.board.read().map(|b| b.games).unwrap_or(0);
    let final_played = arena.db.meta("final_json").await?.is_some();
    // The list as the live events last sent it: building it here would cost the page a
    // few dozen queries, and the page's own stream brings it within a second.
    let live: Option<views::LiveJson> = arena
        .events
        .last("live")
        .and_then(|l| serde_json::from_str(&l).ok());
    let body = html! {
        h1 { "Leaderboard" }
        p.muted {
            span #games { (games) } " games rated. Ranked by μ − 3σ (Weng-Lin); win rates with 95% Wilson intervals."
            @if arena.is_frozen() { " Submissions are closed." }
            @else if arena.past_deadline().is_some() { " Submissions closed at the deadline." }
            @if final_played { " " a href="/final" { "The final table." } }
        }
        table #leaderboard {
            thead { tr {
                th { "#" } th { "team" } th { "version" } th { "rating μ ± σ" } th { "μ − 3σ" }
                th { "games" } th { "win rate (95% CI)" } th { "faults" } th { "changed" }
            } }
            tbody {
                @for r in &rows {
                    tr class=[r.suspended.as_ref().map(|_| "suspended")] {
                        td { @match r.rank { Some(n) => (n), None => "–" } }
                        td { a href={ "/teams/" (r.team_id) } { (r.team) } }
                        td { "v" (r.version) }
                        td { (format!("{:.2} ± {:.2}", r.mu, r.sigma)) }
                        td { (format!("{:.2}", r.conservative)) }
                        td { (r.games) }
                        td { @if r.rank.is_some() { (format!("{:.1}% ({:.1}–{:.1})", 100.0 * r.win_rate, 100.0 * r.win_rate_ci95.0, 100.0 * r.win_rate_ci95.1)) } @else { span.placement { "placement" } } }
                        td { (faults_text(&r.faults)) @if r.suspended.is_some() { " (suspended)" } }
                        td { (when(r.changed_ms)) }
                    }
                }
            }
        }
        @if rows.is_empty() { p { "No valid agents yet." } }
        h2 { "Playing now" }
        (live_list(&live))
        @if !withdrawn.is_empty() {
            h2 { "Withdrawn" }
            ul #withdrawn { @for w in &withdrawn {
                li { a href={ "/teams/" (w.team_id) } { (w.team) } @if !w.reason.is_empty() { ": " (w.reason) } }
            } }
        }
        script src="/static/app.js" {}
    };
    Ok(page(layout(&arena, &v, "Leaderboard", body)))
}

/// The matches being played now (`/static/app.js` keeps it current from the live events;
/// before the first, a page says that it comes).
fn live_list(live: &Option<views::LiveJson>) -> Markup {
    let empty = views::LiveJson::default();
    let l = live.as_ref().unwrap_or(&empty);
    html! {
        ul #live data-playing=(l.playing) {
            @for m in &l.matches {
                li { "match " (m.id) " (" (m.kind.as_str()) "): " (m.agents.join(" v ")) ", game " (m.games) " of " (m.of) }
            }
        }
        p.muted #live-none hidden[!l.matches.is_empty()] {
            @if live.is_some() { "No match is being played." } @else { "The matches being played appear here as they start (live; reload without JavaScript)." }
        }
    }
}

/// A line chart of (time, value) points as inline SVG, drawn on the server.
fn chart(points: &[(i64, i64, f64)]) -> Markup {
    let (w, h, pad) = (640.0, 180.0, 24.0);
    if points.len() < 2 {
        return html! { p.muted { "Not enough rated games for a chart yet." } };
    }
    let (t0, t1) = (points[0].0 as f64, points[points.len() - 1].0 as f64);
    let (lo, hi) = points
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.2), b.max(p.2)));
    let span_t = (t1 - t0).max(1.0);
    let span_v = (hi - lo).max(1e-9);
    let path: String = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let x = pad + (p.0 as f64 - t0) / span_t * (w - 2.0 * pad);
            let y = h - pad - (p.2 - lo) / span_v * (h - 2.0 * pad);
            format!("{}{x:.1},{y:.1}", if i == 0 { "M" } else { " L" })
        })
        .collect();
    html! {
        svg.chart viewBox={ "0 0 " (w) " " (h) } role="img" aria-label="rating over time" {
            text x="2" y="14" { (format!("{hi:.1}")) }
            text x="2" y=(h - 4.0) { (format!("{lo:.1}")) }
            path d=(path) fill="none" stroke="#2563eb" stroke-width="2" {}
        }
    }
}

/// `/teams/{id}`: versions, verdicts, rating chart, head to head, recent games; the smoke
/// logs for the team itself and the organiser.
pub async fn team(State(arena): State<Arc<Arena>>, v: Viewer, Path(id): Path<i64>) -> PageResult {
    let t = views::team_json(&arena, id, &v.who).await?;
    let mine = v.who.may_see(id);
    let latest_valid = t.versions.iter().find(|v| v.status == VersionStatus::Valid);
    // The teams this one may spar against (its own page only).
    let others: Vec<String> = if matches!(v.who, Who::Team(me) if me == id) {
        views::board_rows(&arena)
            .await?
            .into_iter()
            .filter(|r| r.team_id != id)
            .map(|r| r.team)
            .collect()
    } else {
        Vec::new()
    };
    let body = html! {
        h1 { "Team " (t.name) }
        @if let Some(why) = &t.withdrawn {
            p.error #withdrawn { "Withdrawn from the ladder by the organiser" @if !why.is_empty() { ": " (why) } ". It plays no new games and takes no uploads." }
        }
        @if let Some(v) = latest_valid {
            @if let Some(why) = v.stats.as_ref().and_then(|s| s.suspended.as_ref()) {
                p.error #suspended { "Version " (v.number) " is suspended from the ladder: " (why) ". Upload a fixed version to play again." }
            }
        }
        @if matches!(v.who, Who::Team(me) if me == id) && latest_valid.is_some() {
            (entry_form(&t, &v, arena.is_frozen()))
            @if !arena.is_frozen() { (spar_form(&arena, &v, &others)) }
        }
        @if let Who::Team(me) = v.who {
            @if me != id && latest_valid.is_some() && t.withdrawn.is_none() && !arena.is_frozen() {
                form #spar method="post" action="/spar" {
                    (csrf_input(&v))
                    input type="hidden" name="against" value=(t.name);
                    button #spar-button { "spar against " (t.name) }
                    span.muted { " unrated, with your latest valid version" }
                }
            }
        }
        div #team-live data-team=(id) {
            h2 { "Rating over time (μ − 3σ)" }
            (chart(&t.history))
            h2 { "Versions" }
            table #versions {
                thead { tr { th { "version" } th { "uploaded" } th { "size" } th { "status" } th { "verdict" } th { "games" } th { "rating" } } }
                tbody {
                    @for v in &t.versions {
                        tr {
                            td { a href={ "/teams/" (id) "/versions/" (v.number) } { "v" (v.number) } }
                            td { (when(v.uploaded_ms)) }
                            td { (v.bytes) " B" }
                            td class={ "status-" (v.status.as_str()) } { (v.status.as_str()) }
                            td.message {
                                (v.message)
                                @if let Some(s) = &v.smoke {
                                    @if mine && !s.log.is_empty() {
                                        details { summary { "agent log of the smoke game" }
                                            pre.log { @for l in &s.log { (l.level) ": " (l.text) "\n" } }
                                        }
                                    }
                                }
                            }
                            td { (v.stats.as_ref().map_or(0, |s| s.games)) }
                            td { @if let Some(s) = &v.stats { (format!("{:.2} ± {:.2}", s.mu, s.sigma)) } @else { "–" } }
                        }
                    }
                }
            }
            h2 { "Head to head" }
            @if t.head_to_head.is_empty() { p.muted { "No games yet." } } @else {
                table #head-to-head {
                    thead { tr { th { "against" } th { "won" } th { "drawn" } th { "lost" } } }
                    tbody { @for (o, w, d, l) in &t.head_to_head { tr { td { (o) } td { (w) } td { (d) } td { (l) } } } }
                }
            }
            h2 { "Recent games" }
            table #games {
                thead { tr { th { "game" } th { "version" } th { "against" } th { "result" } th { "fault" } th { "finished" } } }
                tbody {
                    @for g in &t.games {
                        tr {
                            td { a href={ "/games/" (g.match_id) "/" (g.game) } { "match " (g.match_id) " game " (g.game) } }
                            td { "v" (g.version) }
                            td { (g.opponents.join(", ")) }
                            td class={ "result-" (g.result.as_str()) } { (g.result.as_str()) }
                            td { (g.fault.as_deref().unwrap_or("–")) }
                            td { (when(g.finished_ms)) }
                        }
                    }
                }
            }
        }
        script src="/static/app.js" {}
    };
    Ok(page(layout(&arena, &v, &format!("Team {}", t.name), body)))
}

/// `/games/{m}/{g}`: the replay viewer; `?seat=N` shows that seat's private view and log to
/// its team and the organiser.
pub async fn game(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Path((m, g)): Path<(i64, i64)>,
    Query(q): Query<SeatQuery>,
) -> PageResult {
    let (doc, _, rec) = views::game_doc(&arena, m, g, q.seat, &v.who).await?;
    let json = croupier_tournament::replay::doc_json(&doc)
        .map_err(|e| AppError::Internal(format!("{e:#}")))?;
    let seats = arena.db.seats_of_game(m, g).await?;
    let body = html! {
        h1 { "Match " (m) ", game " (g) }
        p {
            a href={ "/api/games/" (m) "/" (g) "/log" } { "download (open with croupier replay)" }
            " · view: "
            a href={ "/games/" (m) "/" (g) } { "spectator" }
            @for s in &seats {
                @if v.who.may_see(s.team_id) {
                    " · " a href={ "/games/" (m) "/" (g) "?seat=" (s.seat) } { "seat " (s.seat) }
                }
            }
        }
        p.muted { "Result: " (rec.summary) }
        div #replay {}
        script #replay-doc type="application/json" { (PreEscaped(json)) }
        link rel="stylesheet" href="/static/viewer.css";
        script src="/static/viewer.js" {}
    };
    Ok(page(layout(
        &arena,
        &v,
        &format!("Match {m} game {g}"),
        body,
    )))
}

/// `/final`: the final table, once played.
pub async fn final_page(State(arena): State<Arc<Arena>>, v: Viewer) -> PageResult {
    let Some(j) = arena.db.meta("final_json").await? else {
        return Err(AppError::NotFound("the final has not been played".into()).into());
    };
    let f: crate::finals::FinalTable =
        serde_json::from_str(&j).map_err(|e| AppError::Internal(format!("final_json: {e}")))?;
    let body = crate::finals::table_markup(&f);
    Ok(page(layout(&arena, &v, "Final", body)))
}

/// `/login`: the sign-in form, with its CSRF token bound to a nonce cookie (see
/// [`crate::web::session`]).
pub async fn login_form(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    headers: HeaderMap,
) -> PageResult {
    let (nonce, set) = session::login_nonce(&headers)?;
    let body = html! {
        h1 { "Sign in" }
        @if let Some(team) = &v.team {
            p.muted { "This browser is signed in as team " strong { (team) } ". Signing in again replaces that." }
        }
        form method="post" action="/login" {
            input type="hidden" name=(CSRF_FIELD) value=(session::login_csrf(&arena.csrf_key, &nonce));
            label { "token " input type="password" name="token" autocomplete="off" required; }
            button { "sign in" }
        }
        p.muted { "Your organiser gave your team a token. It is stored in a cookie on this browser only." }
    };
    let mut r = page(layout(&arena, &v, "Sign in", body));
    if let Some(set) = set {
        r.headers_mut().append(header::SET_COOKIE, set);
    }
    Ok(r)
}

/// The sign-in form (its `csrf` field was checked before the handler runs).
#[derive(Deserialize)]
pub struct LoginForm {
    token: String,
}

/// `POST /login`: checks the token and keeps it in an HttpOnly, SameSite=Strict cookie.
pub async fn login(
    State(arena): State<Arc<Arena>>,
    identity::Peer(ip): identity::Peer,
    Form(f): Form<LoginForm>,
) -> PageResult {
    let token = f.token.trim();
    let who = identity::only_who(identity::identify_from(&arena, ip, token).await?)?;
    let to = match who {
        Who::Team(id) => format!("/teams/{id}"),
        _ => "/admin".into(),
    };
    let cookie = format!(
        "{}={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=2592000",
        identity::COOKIE
    );
    let mut r = Redirect::to(&to).into_response();
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        r.headers_mut().insert(header::SET_COOKIE, v);
    }
    Ok(r)
}

/// `POST /logout`: drops the cookie (a signed-in browser's form carries its CSRF token).
pub async fn logout() -> Response {
    let mut r = Redirect::to("/").into_response();
    r.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_static(session::CLEAR_SESSION),
    );
    r
}

/// `/submit`: the upload form.
pub async fn submit_page(State(arena): State<Arc<Arena>>, v: Viewer) -> PageResult {
    let Who::Team(_) = v.who else {
        return Err(
            AppError::Unauthorized("sign in with your team's token to upload".into()).into(),
        );
    };
    let body = html! {
        h1 { "Upload a version" }
        @if let Some(why) = arena.uploads_closed().await? { p.error #closed { (why) "." } }
        @else if let Some(d) = &arena.cfg.final_.deadline { p #deadline { "Uploads close at " (d) "." } }
        p #uploading-as { "Uploading as team " strong { (v.team.as_deref().unwrap_or("?")) } "." }
        form #upload method="post" action="/submit" enctype="multipart/form-data" {
            (csrf_input(&v))
            label { "agent component (.wasm) " input #agent-file type="file" name="agent" accept=".wasm" required; }
            button #upload-button { "upload" }
        }
        p.muted {
            "Up to " (arena.cfg.uploads.max_bytes) " bytes, " (arena.cfg.uploads.per_hour)
            " uploads an hour. It is checked at once and plays a smoke match against " (arena.cfg.ladder.reference) "."
        }
    };
    Ok(page(layout(&arena, &v, "Upload", body)))
}

/// `POST /submit` (multipart): the same checks as the API, then the verdict as a page. A
/// signed-in browser's form must carry its `csrf` field before the file.
pub async fn submit_form(State(arena): State<Arc<Arena>>, v: Viewer, req: Request) -> PageResult {
    let mut pending = req.extensions().get::<session::PendingCsrf>().cloned();
    let team = identity::submitting_team(&v.who)?;
    let slot = manage::begin_upload(&arena, team).await?;
    let cap = arena.cfg.uploads.max_bytes;
    let mut form = Multipart::from_request(req, &arena)
        .await
        .map_err(|e| AppError::BadRequest(format!("not a multipart form: {e}")))?;
    let idle = arena.cfg.uploads.idle_seconds;
    let mut bytes = None;
    while let Some(field) = form
        .next_field()
        .await
        .map_err(|e| upload_error(e, cap, idle))?
    {
        if field.name() == Some(CSRF_FIELD)
            && let Some(p) = &pending
        {
            let value = field.text().await.map_err(|e| upload_error(e, cap, idle))?;
            if !p.matches(&value) {
                return Err(session::stale_form().into());
            }
            pending = None;
        } else if field.name() == Some("agent") {
            if pending.is_some() {
                return Err(session::stale_form().into());
            }
            let b = field
                .bytes()
                .await
                .map_err(|e| upload_error(e, cap, idle))?;
            if b.len() as u64 > cap {
                return Err(AppError::TooLarge(cap).into());
            }
            bytes = Some(b.to_vec());
        }
    }
    let bytes = bytes.ok_or_else(|| AppError::BadRequest("the form has no `agent` file".into()))?;
    // The check goes on by itself; the version's page shows its stages as they come.
    let to = match manage::store(&arena, slot, bytes).await? {
        manage::Stored::Same(out) => format!("/teams/{team}/versions/{}?unchanged=1", out.version),
        manage::Stored::New(n) => {
            let to = format!("/teams/{team}/versions/{}", n.v.number);
            drop(n.check(&arena));
            to
        }
    };
    Ok(Redirect::to(&to).into_response())
}

/// What a version's stage or verdict says, as a heading.
fn stage_title(status: VersionStatus, unchanged: bool) -> &'static str {
    match (status, unchanged) {
        (VersionStatus::Valid | VersionStatus::Refused, true) => "unchanged",
        (VersionStatus::Valid, false) => "accepted",
        (VersionStatus::Refused, false) => "refused",
        (VersionStatus::Compiling, _) => "compiling",
        (VersionStatus::Smoke, _) => "smoke match",
        // `checking`, what older servers wrote, is checked again from the queue at start.
        (VersionStatus::Queued | VersionStatus::Checking, _) => "queued",
    }
}

/// `/teams/{id}/versions/{n}`: one version: its check's stage as it changes (`/static/app.js`
/// follows the live events), then its verdict and, for its team, its log in the smoke game.
pub async fn version(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Path((id, n)): Path<(i64, i64)>,
    Query(q): Query<VersionQuery>,
) -> PageResult {
    let t = arena.team_names([id]).await?;
    let name = t.get(&id).cloned().unwrap_or_default();
    let ver = views::version_json(&arena, id, n, &v.who).await?;
    let done = ver.status.is_verdict();
    let unchanged = q.unchanged.is_some();
    let body = html! {
        section #version data-team=(id) data-version=(n) data-state=(ver.status.as_str()) {
            h1 { "Version " (n) ": " span #state { (stage_title(ver.status, unchanged)) } }
            p.muted { "Team " a href={ "/teams/" (id) } { (name) } ", uploaded " (when(ver.uploaded_ms)) ", " (ver.bytes) " B, SHA-256 " code { (ver.sha256) } }
            @if unchanged {
                p #unchanged { "This file is byte for byte version " (n) ", which is kept, with its rating: no new version was made." }
            }
            @if done {
                p #verdict class=(if ver.status == VersionStatus::Valid { "ok" } else { "error" }) { (ver.message) }
                @if let Some(s) = &ver.smoke {
                    @if !s.log.is_empty() {
                        h2 { "Your agent's log in the smoke game" }
                        pre.log { @for l in &s.log { (l.level) ": " (l.text) "\n" } }
                    }
                }
            } @else {
                p #stages.muted { "Queued, then compiled, then a smoke match against " (arena.cfg.ladder.reference) ". This page follows it." }
            }
            p { a href={ "/teams/" (id) } { "to the team page" } }
        }
        script src="/static/app.js" {}
    };
    Ok(page(layout(&arena, &v, &format!("Version {n}"), body)))
}

/// `?unchanged=1`: the upload was identical to this version.
#[derive(Deserialize)]
pub struct VersionQuery {
    unchanged: Option<String>,
}

fn upload_error(e: axum::extract::multipart::MultipartError, cap: u64, idle: u32) -> AppError {
    if crate::web::errors::stalled(&e) {
        crate::web::errors::stalled_upload(idle)
    } else if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        AppError::TooLarge(cap)
    } else {
        AppError::BadRequest(format!("reading the upload: {}", e.body_text()))
    }
}

/// `/admin`: teams, and a form that adds one and shows its token once.
pub async fn admin(State(arena): State<Arc<Arena>>, v: Viewer) -> PageResult {
    identity::require_admin(&v.who)?;
    Ok(page(admin_markup(&arena, &v, None).await?))
}

/// `n` and the noun, in the plural unless `n` is 1 ("1 team", "2 matches").
fn plural(n: i64, noun: &str) -> String {
    match (n, noun.ends_with("ch")) {
        (1, _) => format!("{n} {noun}"),
        (_, true) => format!("{n} {noun}es"),
        (_, false) => format!("{n} {noun}s"),
    }
}

/// What the admin page says on top after an action.
enum Notice {
    /// A token, shown this once: `what` (`Team`, `Worker`) `t` `done`.
    Token {
        what: &'static str,
        done: Issued,
        t: manage::TeamToken,
    },
    /// A worker removed, by name.
    Removed(String),
    /// A team withdrawn or reinstated.
    Standing(manage::Standing),
}

async fn admin_markup(
    arena: &Arena,
    v: &Viewer,
    notice: Option<Notice>,
) -> Result<Markup, AppError> {
    let crate::web::views::AdminJson {
        teams,
        workers,
        games: stored,
        pending,
        frozen,
        storage,
    } = crate::web::views::admin_json(arena).await?;
    let now = crate::now_ms();
    // An action that locks someone out asks for a tick first (no script needed).
    let confirm =
        html! { label { input type="checkbox" name="confirm" value="yes" required; " sure" } };
    let csrf = csrf_input(v);
    let body = html! {
        h1 { "Admin" }
        @match &notice {
            Some(Notice::Token { what, done, t }) => div.notice #new-token {
                p { (what) " " strong { (t.name) } " " (done.says()) ". Its token, shown only this once:" }
                pre { code { (t.token) } }
            },
            Some(Notice::Removed(name)) => div.notice #removed {
                p { "Worker " strong { (name) } " removed: its token no longer works, and the matches it held go to other workers when their leases run out." }
            },
            Some(Notice::Standing(t)) => div.notice #standing {
                @match &t.withdrawn {
                    Some(_) => p { "Team " strong { (t.name) } " withdrawn: it plays no new games, leaves the ranking and takes no uploads. Its games stay." },
                    None => p { "Team " strong { (t.name) } " is back in the ladder." },
                }
            },
            None => {}
        }
        p { (plural(teams.len() as i64, "team")) " · " (plural(stored, "game")) " stored · " (plural(pending, "match")) " waiting" @if frozen { " · frozen for the final" } }
        form method="post" action="/admin/teams" {
            (csrf)
            label { "new team " input type="text" name="name" maxlength="64" required; }
            button { "add" }
        }
        table #teams { thead { tr { th { "id" } th { "team" } th { "added" } th { "token" } th { "ladder" } } }
            tbody { @for t in &teams { tr {
                td { (t.id) } td { a href={ "/teams/" (t.id) } { (t.name) } } td { (when(t.created_ms)) }
                td { form.act method="post" action={ "/admin/teams/" (t.id) "/token" } { (csrf) (confirm) button { "new token" } } }
                td { @match &t.withdrawn {
                    Some(why) => {
                        "withdrawn" @if !why.is_empty() { ": " (why) } " "
                        form.act method="post" action={ "/admin/teams/" (t.id) "/reinstate" } { (csrf) button { "reinstate" } }
                    },
                    None => form.act method="post" action={ "/admin/teams/" (t.id) "/withdraw" } {
                        (csrf)
                        input type="text" name="reason" placeholder="reason (shown to all)" maxlength=(manage::MAX_REASON_CHARS);
                        (confirm) button { "withdraw" }
                    },
                } }
            } } }
        }
        h2 { "Storage" }
        (storage_markup(&storage))
        h2 { "Workers" }
        p.muted { "Each runs " code { "croupier arena worker" } " on a machine of its own with its token; a new token or removing it locks the old token out at once." }
        form method="post" action="/admin/workers" {
            (csrf)
            label { "new worker " input type="text" name="name" maxlength="64" required; }
            button { "add" }
        }
        table #workers { thead { tr { th { "id" } th { "worker" } th { "last heard from" } th { "token" } } }
            tbody { @for w in &workers { tr {
                td { (w.id) } td { (w.name) }
                td { @match w.seen_ms { Some(ms) => { ((now - ms).max(0) / 1000) " s ago" }, None => "never" } }
                td {
                    form.act method="post" action={ "/admin/workers/" (w.id) "/token" } { (csrf) (confirm) button { "new token" } }
                    form.act method="post" action={ "/admin/workers/" (w.id) "/remove" } { (csrf) (confirm) button { "remove" } }
                }
            } } }
        }
    };
    Ok(layout(arena, v, "Admin", body))
}

/// The storage budget on the admin page: what the games take, what the last pass dropped,
/// and whether the ladder is paused for want of room.
fn storage_markup(s: &views::StorageJson) -> Markup {
    let c = &s.config;
    let mib = |b: i64| crate::web::errors::mib(b.max(0) as u64);
    html! {
        div #storage {
            p.muted {
                "Budget " (c.budget_mb) " MiB. Logs kept up to " (c.log_bytes_per_game) " bytes per agent per game; games of the last "
                (c.keep_hours) " hours keep their replays and logs, older matches one in " (c.keep_one_in)
                " (the others keep their results). Applied every " (c.prune_seconds) " s, or now with "
                code { "croupier arena prune DIR" } "."
            }
            @match &s.last {
                None => p { "The first pass is running." },
                Some(p) => {
                    @if p.after.full {
                        p.notice #storage-full { strong { "The ladder is paused:" } " the results alone fill the budget. Raise "
                            code { "storage.budget_mb" } " in arena.toml and restart the server." }
                    }
                    p {
                        "Games take " strong { (mib(p.after.bytes)) } " of " (mib(p.after.budget))
                        " (" (plural(p.after.games.games, "game")) ", " (mib(p.after.games.logs)) " of logs, "
                        (mib(p.after.games.replays)) " of replays, " (plural(p.after.games.pruned, "game")) " pruned); the database file is "
                        (mib(p.after.file_bytes)) "."
                    }
                    p.muted {
                        "Last pass " (when(p.at_ms)) ": " (p.by_rule) " games lost their replays by the retention rule; "
                        "the budget dropped the logs of " (p.logs) " and the replays of " (p.replays) "."
                    }
                },
            }
        }
    }
}

/// The add-team and add-worker forms.
#[derive(Deserialize)]
pub struct AddTeamForm {
    name: String,
}

/// The forms that lock a token out: ticked to confirm.
#[derive(Deserialize)]
pub struct ConfirmForm {
    confirm: Option<String>,
}

impl ConfirmForm {
    fn check(&self) -> Result<(), AppError> {
        self.ticked("the old token stops working")
    }

    /// 400 unless ticked, saying what the tick confirms.
    fn ticked(&self, because: &str) -> Result<(), AppError> {
        match self.confirm.as_deref() {
            Some("yes") => Ok(()),
            _ => Err(AppError::BadRequest(format!(
                "tick the box to confirm: {because}"
            ))),
        }
    }
}

/// The admin page with `notice` on top, as the answer to a form.
async fn admin_after(arena: &Arena, v: &Viewer, status: StatusCode, notice: Notice) -> PageResult {
    Ok((status, page(admin_markup(arena, v, Some(notice)).await?)).into_response())
}

/// Why a token was issued.
#[derive(Clone, Copy)]
enum Issued {
    /// For a new team or worker.
    Added,
    /// In place of one that leaked.
    Renewed,
}

impl Issued {
    fn says(self) -> &'static str {
        match self {
            Issued::Added => "added",
            Issued::Renewed => "has a new token; the old one no longer works",
        }
    }

    fn status(self) -> StatusCode {
        match self {
            Issued::Added => StatusCode::CREATED,
            Issued::Renewed => StatusCode::OK,
        }
    }
}

/// The admin page with a token just issued on top.
async fn issued(
    arena: &Arena,
    v: &Viewer,
    what: &'static str,
    done: Issued,
    t: Result<manage::TeamToken, AppError>,
) -> PageResult {
    let status = done.status();
    admin_after(arena, v, status, Notice::Token { what, done, t: t? }).await
}

/// `POST /admin/teams`.
pub async fn admin_add_team(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Form(f): Form<AddTeamForm>,
) -> PageResult {
    identity::require_admin(&v.who)?;
    let t = manage::add_team(&arena, &f.name).await;
    issued(&arena, &v, "Team", Issued::Added, t).await
}

/// `POST /admin/teams/{id}/token`.
pub async fn admin_team_token(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Path(id): Path<i64>,
    Form(f): Form<ConfirmForm>,
) -> PageResult {
    identity::require_admin(&v.who)?;
    f.check()?;
    let t = manage::new_team_token(&arena, id).await;
    issued(&arena, &v, "Team", Issued::Renewed, t).await
}

/// The withdraw form: a reason, and the tick.
#[derive(Deserialize)]
pub struct WithdrawForm {
    #[serde(default)]
    reason: String,
    #[serde(flatten)]
    tick: ConfirmForm,
}

/// `POST /admin/teams/{id}/withdraw`.
pub async fn admin_withdraw_team(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Path(id): Path<i64>,
    Form(f): Form<WithdrawForm>,
) -> PageResult {
    identity::require_admin(&v.who)?;
    f.tick.ticked("a withdrawn team stops playing")?;
    let t = manage::withdraw_team(&arena, id, &f.reason).await?;
    admin_after(&arena, &v, StatusCode::OK, Notice::Standing(t)).await
}

/// `POST /admin/teams/{id}/reinstate`.
pub async fn admin_reinstate_team(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Path(id): Path<i64>,
) -> PageResult {
    identity::require_admin(&v.who)?;
    let t = manage::reinstate_team(&arena, id).await?;
    admin_after(&arena, &v, StatusCode::OK, Notice::Standing(t)).await
}

/// What the team enters in the final, and (until the final) a form to choose another of its
/// valid versions.
fn entry_form(t: &views::TeamJson, v: &Viewer, frozen: bool) -> Markup {
    let valid: Vec<i64> = t
        .versions
        .iter()
        .filter(|x| x.status == VersionStatus::Valid)
        .map(|x| x.number)
        .collect();
    let latest = valid.first().copied().unwrap_or(0);
    let chosen = t.final_entry.filter(|n| valid.contains(n));
    html! {
        div #entry {
            p {
                "Enters the final: " strong { "v" (chosen.unwrap_or(latest)) }
                @if chosen.is_none() { " (the latest valid version)" } @else { " (chosen)" }
            }
            @if !frozen {
                form method="post" action="/entry" {
                    (csrf_input(v))
                    label { "enter in the final "
                        select name="version" {
                            option value="latest" selected[chosen.is_none()] { "the latest valid version" }
                            @for n in &valid {
                                option value=(n) selected[chosen == Some(*n)] { "v" (n) }
                            }
                        }
                    }
                    " " button { "choose" }
                }
            }
        }
    }
}

/// The final-entry form on a team's own page: `version` is a number or `latest`.
#[derive(Deserialize)]
pub struct EntryForm {
    version: String,
}

/// `POST /entry`: the signed-in team's entry in the final; back to its page.
pub async fn set_entry(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Form(f): Form<EntryForm>,
) -> PageResult {
    let Who::Team(team) = v.who else {
        return Err(AppError::Forbidden("sign in as a team to choose its entry".into()).into());
    };
    let number = match f.version.as_str() {
        "latest" => None,
        n => Some(n.parse::<i64>().map_err(|_| {
            AppError::BadRequest(format!("`{n}` is not a version number or `latest`"))
        })?),
    };
    manage::set_entry(&arena, team, number).await?;
    Ok(Redirect::to(&format!("/teams/{team}#entry")).into_response())
}

/// The spar form's field.
#[derive(Deserialize)]
pub struct SparForm {
    against: String,
}

/// `POST /spar`: a practice match against another team or a house agent, then its page.
pub async fn spar(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Form(f): Form<SparForm>,
) -> PageResult {
    let Who::Team(team) = v.who else {
        return Err(AppError::Forbidden("sign in as a team to ask for a spar match".into()).into());
    };
    let s = manage::spar(&arena, team, &f.against).await?;
    Ok(Redirect::to(&s.url).into_response())
}

/// The spar form on the team's own page: a house agent or another team.
fn spar_form(arena: &Arena, v: &Viewer, others: &[String]) -> Markup {
    html! {
        form #spar method="post" action="/spar" {
            (csrf_input(v))
            label { "spar (unrated) against "
                select name="against" {
                    @for h in &arena.house { option value=(h.name) { (h.name) " (house)" } }
                    @for o in others { option value=(o) { (o) } }
                }
            }
            " " button #spar-button { "play" }
            span.muted { " " (arena.cfg.spar.per_hour) " an hour; played before ladder matches." }
        }
    }
}

/// `/matches/{id}`: a match's games and results so far (a spar's page follows it live).
pub async fn match_page(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Path(id): Path<i64>,
) -> PageResult {
    let m = views::match_json(&arena, id).await?;
    let state = match m.state {
        MatchState::Done => "done".to_string(),
        MatchState::Leased => format!("being played: {} of {} games stored", m.games.len(), m.of),
        MatchState::Queued => "waiting for a worker".to_string(),
    };
    let body = html! {
        section #match data-match=(id) data-state=(m.state.as_str()) {
            h1 { "Match " (id) " (" (m.kind.as_str()) ")" }
            p { (m.agents.join(" against ")) }
            p #match-state { (state) }
            table #totals {
                thead { tr { th { "agent" } th { "won" } th { "drawn" } th { "lost" } } }
                tbody { @for (a, t) in m.agents.iter().zip(&m.totals) {
                    tr { td { (a) } td { (t[0]) } td { (t[1]) } td { (t[2]) } }
                } }
            }
            h2 { "Games" }
            table #match-games {
                thead { tr { th { "game" } th { "results" } } }
                tbody { @for g in &m.games {
                    tr {
                        td { a href={ "/games/" (id) "/" (g.game) } { "game " (g.game) } }
                        td { @for (i, seat) in g.seats.iter().enumerate() {
                            @if i > 0 { ", " }
                            (m.agents.get(seat.agent).map_or("?", String::as_str)) " " (seat.result.as_str())
                            @if let Some(f) = &seat.fault { " (" (f) ")" }
                        } }
                    }
                } }
            }
        }
        script src="/static/app.js" {}
    };
    Ok(page(layout(&arena, &v, &format!("Match {id}"), body)))
}

/// `POST /admin/workers`.
pub async fn admin_add_worker(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Form(f): Form<AddTeamForm>,
) -> PageResult {
    identity::require_admin(&v.who)?;
    let t = manage::add_worker(&arena, &f.name).await;
    issued(&arena, &v, "Worker", Issued::Added, t).await
}

/// `POST /admin/workers/{id}/token`.
pub async fn admin_worker_token(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Path(id): Path<i64>,
    Form(f): Form<ConfirmForm>,
) -> PageResult {
    identity::require_admin(&v.who)?;
    f.check()?;
    let t = manage::new_worker_token(&arena, id).await;
    issued(&arena, &v, "Worker", Issued::Renewed, t).await
}

/// `POST /admin/workers/{id}/remove`.
pub async fn admin_remove_worker(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    Path(id): Path<i64>,
    Form(f): Form<ConfirmForm>,
) -> PageResult {
    identity::require_admin(&v.who)?;
    f.check()?;
    let name = manage::remove_worker(&arena, id).await?;
    admin_after(&arena, &v, StatusCode::OK, Notice::Removed(name)).await
}

#[cfg(test)]
mod tests {
    use super::plural;

    /// Regression: the admin page said "1 teams".
    #[test]
    fn counts_read_as_words() {
        assert_eq!(plural(1, "team"), "1 team");
        assert_eq!(plural(2, "team"), "2 teams");
        assert_eq!(plural(0, "game"), "0 games");
        assert_eq!(plural(1, "match"), "1 match");
        assert_eq!(plural(32, "match"), "32 matches");
    }
}
