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

pub mod admin;
pub mod bosses;
pub mod play;
pub mod sign_in;

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
                                a href="/play" { "play" }
                                form.inline method="post" action="/logout" { (csrf_input(v)) button { "sign out" } }
                            }
                            Who::Admin => {
                                span #signed-in { "signed in as " strong { "the organiser" } }
                                a href="/admin" { "admin" }
                                form.inline method="post" action="/logout" { (csrf_input(v)) button { "sign out" } }
                            }
                            Who::Public => {
                                @if arena.cfg.play.open { a href="/play" { "play" } }
                                a href="/login" { "sign in" }
                            }
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
                (bosses::header(&arena))
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
                        @for b in &r.bosses { (bosses::cell(b)) }
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
            (bosses::team_section(&arena, &t))
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

/// `n` and the noun, in the plural unless `n` is 1 ("1 team", "2 matches").
fn plural(n: i64, noun: &str) -> String {
    match (n, noun.ends_with("ch")) {
        (1, _) => format!("{n} {noun}"),
        (_, true) => format!("{n} {noun}es"),
        (_, false) => format!("{n} {noun}s"),
    }
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
