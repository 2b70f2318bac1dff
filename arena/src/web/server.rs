//! The HTTP server: small handlers, typed extractors, one shared [`Arena`], and errors
//! turned into responses in one place ([`AppError`]), as in axum's examples. This file holds
//! only the router and `serve`: handlers are in [`crate::web::pages`], [`crate::web::api`] and
//! [`crate::web::worker_api`], over [`crate::web::views`] and [`crate::web::manage`].
//!
//! Every response carries a strict Content-Security-Policy: scripts and styles only from
//! `/static`, nothing inline, no framing. Pages escape every interpolated value (maud).
//! Request bodies are capped at [`SMALL_BODY`] except on the two upload routes, which are
//! capped at the arena's `uploads.max_bytes` before anything is buffered. A request that
//! does not finish within [`REQUEST_TIMEOUT`] gets 408, and an upload whose body stalls for
//! `uploads.idle_seconds` too, so a client that trickles bytes holds nothing for long.
//! Responses are gzipped for clients that ask.

use crate::context::Arena;
use crate::web::errors::AppError;
use crate::web::manage::check_version;
pub use crate::web::request_limits::{REQUEST_TIMEOUT, SMALL_BODY};
use crate::web::{api, pages, worker_api};
use axum::Router;
use axum::extract::{DefaultBodyLimit, Path};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use std::sync::Arc;
use tower_http::compression::CompressionLayer;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::{RequestBodyTimeoutLayer, TimeoutLayer};

/// Room for a multipart form's headers around the file.
const MULTIPART_SLACK: usize = 16 << 10;

/// The name the server's own worker leases under.
const EMBEDDED: &str = "embedded";

/// The Content-Security-Policy of every response.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                       connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// The server's routes.
pub fn router(arena: Arc<Arena>) -> Router {
    let cap = arena.cfg.uploads.max_bytes as usize;
    let uploads = Router::new()
        .route("/api/submit", post(api::submit))
        .route("/submit", post(pages::submit_form))
        .layer(DefaultBodyLimit::disable())
        .layer(tower_http::limit::RequestBodyLimitLayer::new(
            cap + MULTIPART_SLACK,
        ))
        .layer(RequestBodyTimeoutLayer::new(
            std::time::Duration::from_secs(u64::from(arena.cfg.uploads.idle_seconds)),
        ))
        // Outside the body limit, so an announced length over the cap gets this server's
        // own 413 (JSON or a page, naming the cap in MiB), not the layer's plain text.
        .layer(axum::middleware::from_fn_with_state(
            arena.cfg.uploads.max_bytes,
            announced_length,
        ));
    let timeout = || TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, REQUEST_TIMEOUT);
    let app = Router::new()
        .route("/", get(pages::leaderboard))
        .route("/teams/{id}", get(pages::team))
        .route("/teams/{id}/versions/{n}", get(pages::version))
        .route("/entry", post(pages::set_entry))
        .route("/spar", post(pages::spar))
        .route("/matches/{id}", get(pages::match_page))
        .route("/games/{m}/{g}", get(pages::game))
        .route("/final", get(pages::final_page))
        .route(
            "/play",
            get(pages::play::play_page).post(pages::play::start),
        )
        .route("/play/{id}", get(pages::play::game_page))
        .route("/play/{id}/replay", get(pages::play::replay))
        .route("/play/{id}/log", get(pages::play::log))
        .route(
            "/login",
            get(pages::sign_in::login_form).post(pages::sign_in::login),
        )
        .route("/logout", post(pages::sign_in::logout))
        .route("/submit", get(pages::submit_page))
        .route("/admin", get(pages::admin::admin))
        .route("/admin/teams", post(pages::admin::admin_add_team))
        .route(
            "/admin/teams/{id}/token",
            post(pages::admin::admin_team_token),
        )
        .route(
            "/admin/teams/{id}/withdraw",
            post(pages::admin::admin_withdraw_team),
        )
        .route(
            "/admin/teams/{id}/reinstate",
            post(pages::admin::admin_reinstate_team),
        )
        .route("/admin/workers", post(pages::admin::admin_add_worker))
        .route(
            "/admin/workers/{id}/token",
            post(pages::admin::admin_worker_token),
        )
        .route(
            "/admin/workers/{id}/remove",
            post(pages::admin::admin_remove_worker),
        )
        .route("/static/{file}", get(static_file))
        .route("/api/arena", get(api::arena_info))
        .route("/api/leaderboard", get(api::leaderboard))
        .route("/api/events", get(api::events))
        .route("/api/teams/{id}/versions/{n}", get(api::version))
        .route("/api/teams/{id}", get(api::team))
        .route("/api/games/{m}/{g}", get(api::game))
        .route("/api/games/{m}/{g}/log", get(api::game_log))
        .route(
            "/api/admin/teams",
            get(api::admin_teams).post(api::add_team),
        )
        .route("/api/admin/teams/{id}/token", post(api::team_token))
        .route("/api/admin/teams/{id}/withdraw", post(api::withdraw_team))
        .route("/api/admin/teams/{id}/reinstate", post(api::reinstate_team))
        .route("/api/team/entry", post(api::set_entry))
        .route("/api/team/spar", post(api::spar))
        .route("/api/matches/{id}", get(api::match_))
        .route("/api/admin/workers", post(api::add_worker))
        .route("/api/admin/workers/{id}/token", post(api::worker_token))
        .route("/api/admin/workers/{id}", delete(api::remove_worker))
        .route("/api/final", get(api::final_table))
        .route("/api/openapi.json", get(api::openapi))
        .route("/api/play/{id}", get(pages::play::state))
        .route("/api/play/{id}/act", post(pages::play::act))
        .route("/api/play/{id}/leave", post(pages::play::leave))
        .layer(DefaultBodyLimit::max(SMALL_BODY))
        .layer(timeout())
        .merge(uploads)
        .merge(worker_api::routes(&arena).layer(timeout()))
        .fallback(crate::web::errors::no_route)
        // Every error in the API's or the pages' own form, whatever answered it.
        .layer(axum::middleware::from_fn(crate::web::errors::uniform))
        // Sessions and CSRF, before any handler (session.rs).
        .layer(axum::middleware::from_fn_with_state(
            arena.clone(),
            crate::web::session::layer,
        ))
        // Pages, JSON and replays for browsers that ask (`Accept-Encoding: gzip`); a worker
        // asks for none, so its binary reports and agents go as they are.
        .layer(CompressionLayer::new());
    secure_headers(app).with_state(arena)
}

/// The headers every response carries: the Content-Security-Policy, `nosniff` and no
/// referrer (the arena's and `croupier play --web`'s alike).
pub fn secure_headers<S: Clone + Send + Sync + 'static>(r: Router<S>) -> Router<S> {
    r.layer(SetResponseHeaderLayer::overriding(
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
}

/// 413 for an upload whose announced length is over the cap, before anything is read.
async fn announced_length(
    axum::extract::State(cap): axum::extract::State<u64>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let announced = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > cap + MULTIPART_SLACK as u64) {
        let e = AppError::TooLarge(cap);
        return if crate::web::errors::is_api(req.uri().path()) {
            e.into_response()
        } else {
            crate::web::errors::PageError(e).into_response()
        };
    }
    next.run(req).await
}

/// A file under `/static/`: the pages' style and scripts, the viewer's and the play page's.
pub async fn static_file(Path(file): Path<String>) -> Result<Response, AppError> {
    let (body, ty): (&'static str, &str) = match file.as_str() {
        "play.js" => (crate::web::play::PLAY_JS, "text/javascript; charset=utf-8"),
        "play.css" => (crate::web::play::PLAY_CSS, "text/css; charset=utf-8"),
        "style.css" => (
            include_str!("../../assets/style.css"),
            "text/css; charset=utf-8",
        ),
        "app.js" => (
            include_str!("../../assets/app.js"),
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

/// Serves the arena on its listen address (or `listen`) until Ctrl-C or SIGTERM, with the ladder's
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
    // The ratings from the stored results (from the saved checkpoint on), before the first
    // page is served.
    arena.update_board().await?;
    // Uploads a killed server left unchecked are checked again.
    // Each waits its turn again: it is `queued` until a check begins.
    for v in arena.db.checking_versions().await? {
        arena
            .db
            .set_version_stage(v.id, crate::store::db::states::VersionStage::Queued)
            .await?;
        let a = arena.clone();
        tokio::spawn(async move {
            let _ = check_version(&a, crate::web::manage::Checking::from(&v)).await;
        });
    }
    // The embedded worker of a server that died held its matches under leases that nobody
    // will beat or end: they go back to the queue now rather than after `lease_seconds`. One
    // server serves an arena, so a lease of this name is never a live one.
    arena.db.release_all_of(EMBEDDED).await?;
    arena.queued.notify_waiters();
    // The ladder's pace before its first match, so a fast ladder does not run unpaced while
    // the first pass of the storage budget works through a backlog.
    arena.set_pace(
        crate::store::storage::pace_now(
            &arena.db,
            &arena.cfg.storage,
            arena.cfg.final_.deadline_ms(),
            crate::now_ms(),
        )
        .await?,
    );
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let sched = tokio::spawn(crate::queue::ladder::scheduler(
        arena.clone(),
        stop_rx.clone(),
    ));
    let pruner = tokio::spawn(apply_storage_budget(arena.clone(), stop_rx.clone()));
    let ticker = tokio::spawn(live_events(arena.clone(), stop_rx.clone()));
    let people = tokio::spawn(arena.play.clone().sweeper(stop_rx.clone()));
    // The embedded worker: the same loop as `croupier arena worker`, on the database.
    // `ladder.threads = 0` leaves the playing to workers on other machines.
    let worker = (arena.cfg.ladder.threads > 0).then(|| {
        let worker = Arc::new(crate::queue::worker::Worker {
            cfg: arena.cfg.clone(),
            linked: arena.linked.clone(),
            threads: arena.cfg.ladder.threads,
            name: EMBEDDED.into(),
        });
        let queue = Arc::new(crate::queue::worker::local::Local {
            arena: arena.clone(),
            name: EMBEDDED.into(),
        });
        tokio::spawn(crate::queue::worker::run(worker, queue, stop_rx))
    });
    ready(local);
    let app = router(arena.clone());
    // With each client's address: the refused-token limit counts per address.
    let app = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
    // The live streams end as the stop begins: a graceful stop waits for every connection.
    let events = arena.clone();
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            stop_signal().await;
            events.events.close();
        })
        .await
        .context("the server stopped")?;
    let _ = stop_tx.send(true);
    let _ = sched.await;
    let _ = pruner.await;
    let _ = ticker.await;
    let _ = people.await;
    if let Some(w) = worker {
        let _ = w.await;
    }
    // The last results, counted and saved, so the next start need not count them again.
    if let Err(e) = arena.update_board().await {
        tracing::error!("arena: counting the last results: {e}");
    }
    arena.checkpoint_board().await;
    arena.db.close().await;
    Ok(())
}

/// Rebuilds `board` and `live` every [`crate::events::TICK`] while someone listens, until `stop`.
async fn live_events(arena: Arc<Arena>, mut stop: tokio::sync::watch::Receiver<bool>) {
    let mut names = std::collections::HashMap::new();
    loop {
        if arena.events.listening() {
            if let Ok(board) = crate::web::views::leaderboard_json(&arena).await {
                arena.events.send_if_changed("board", &board);
            }
            // A course's versions are a few thousand names; past that the cache starts again.
            if names.len() > 1 << 14 {
                names.clear();
            }
            if let Ok(live) = crate::web::views::live_json(&arena, &mut names).await {
                arena.events.send_if_changed("live", &live);
            }
        } else {
            arena.events.forget();
        }
        tokio::select! {
            _ = stop.changed() => return,
            _ = tokio::time::sleep(crate::events::TICK) => {}
        }
    }
}

/// The storage budget, at start and every `storage.prune_seconds` until `stop`.
async fn apply_storage_budget(arena: Arc<Arena>, mut stop: tokio::sync::watch::Receiver<bool>) {
    loop {
        match arena.apply_storage_budget().await {
            Ok(p) if p.after.full => tracing::warn!(
                "arena: the results alone fill storage.budget_mb ({} MiB): the ladder is paused until it is raised",
                p.after.budget >> 20
            ),
            Ok(_) => {}
            Err(e) => tracing::error!("arena: applying the storage budget: {e}"),
        }
        tokio::select! {
            _ = tokio::time::sleep(std::time::Duration::from_secs(arena.cfg.storage.prune_seconds.into())) => {}
            _ = stop.changed() => return,
        }
    }
}

/// Ctrl-C, or SIGTERM (what systemd, Docker and Kubernetes send to stop a service): either
/// stops the server cleanly, so the last results are counted and the ratings saved.
pub async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
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
        let doc: serde_json::Value =
            serde_json::from_str(crate::web::api::OPENAPI).expect("valid JSON");
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

    /// The states the API shows are the stored words, which the OpenAPI document lists: a
    /// state added to an enum, or a word renamed, must change the document too.
    #[test]
    fn the_openapi_document_lists_every_state_the_api_shows() {
        use crate::store::db::states::{MatchKind, MatchState, VersionStatus};
        let doc: serde_json::Value =
            serde_json::from_str(crate::web::api::OPENAPI).expect("valid JSON");
        let listed = |path: &str, property: &str| -> Vec<String> {
            let schema = &doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]
                ["schema"]["properties"][property]["enum"];
            schema
                .as_array()
                .unwrap_or_else(|| panic!("{path} {property}: no enum"))
                .iter()
                .map(|v| v.as_str().unwrap_or_default().to_string())
                .collect()
        };
        // What serde writes for each, which is what the API sends.
        let shown = |all: &[serde_json::Value]| -> Vec<String> {
            all.iter()
                .map(|v| v.as_str().unwrap_or_default().to_string())
                .collect()
        };
        assert_eq!(
            listed("/api/teams/{id}/versions/{n}", "status"),
            shown(&VersionStatus::ALL.map(|s| serde_json::json!(s)))
        );
        assert_eq!(
            listed("/api/matches/{id}", "kind"),
            shown(&MatchKind::ALL.map(|s| serde_json::json!(s)))
        );
        assert_eq!(
            listed("/api/matches/{id}", "state"),
            shown(&MatchState::ALL.map(|s| serde_json::json!(s)))
        );
    }
}
