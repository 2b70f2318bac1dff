//! `croupier play --web`: the arena's `/play` pages served on 127.0.0.1 for the one person at
//! this machine, without an arena, a database or a sign-in: the same games ([`crate::play`]),
//! the same page and script ([`crate::web::play`]), agents named as `croupier match` names
//! them.
//!
//! Threat model: the server listens on loopback only, but any web page the person opens can
//! send requests to it. So every request must name this server's own address as its `Host`
//! (a page on another name that resolves here, DNS rebinding, is refused), and every request
//! that changes something comes from its own page and carries the random token that only its
//! pages hold (as the arena's forms do). The person may see every seat's view and log of a
//! finished game: the agents are the person's own files or the example agents.

use crate::linked::Linked;
use crate::play::{Bounds, Games, Owner, SeatAgent, new_seed, setup};
use crate::web::errors::{AppError, PageError};
use crate::web::play::{self, ActBody, Offer, StateJson};
use axum::extract::{DefaultBodyLimit, Form, Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use croupier_host::limits::Limits;
use croupier_host::loader::GameKind;
use croupier_tournament::matches::RulesArgs;
use maud::{DOCTYPE, Markup, html};
use std::collections::HashMap;
use std::sync::Arc;

/// What a local play server offers.
pub struct LocalSetup {
    /// The game.
    pub kind: GameKind,
    /// Its rules.
    pub rules: RulesArgs,
    /// The agents' limits.
    pub limits: Limits,
    /// The agents the form offers, as `croupier match` names them.
    pub agents: Vec<String>,
    /// The linked agents' cache (over the sandbox runtime).
    pub linked: Arc<Linked>,
    /// The games' bounds.
    pub bounds: Bounds,
}

struct Local {
    setup: LocalSetup,
    seats: usize,
    games: Arc<Games>,
    /// The token this server's pages carry.
    token: String,
    /// The address it listens on: the only `Host` it answers.
    authority: String,
    stop: tokio::sync::Notify,
}

type Shared = State<Arc<Local>>;

fn shell(title: &str, body: Markup) -> Response {
    let m = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · croupier play" }
                link rel="stylesheet" href="/static/style.css";
            }
            body { main { (body) } }
        }
    };
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        m.into_string(),
    )
        .into_response()
}

async fn play_page(State(l): Shared) -> Response {
    let offers: Vec<Offer> = l
        .setup
        .agents
        .iter()
        .map(|a| Offer {
            value: a.clone(),
            label: a.clone(),
        })
        .collect();
    shell(
        "Play",
        html! {
            h1 { "Play " (l.setup.kind.name()) }
            p { "Play one seat yourself against agents. You see only what your seat may see; the agents play in their sandbox." }
            (play::pick_form(l.seats, &offers, Some(&l.token)))
            form #quit method="post" action="/quit" {
                input type="hidden" name="csrf" value=(l.token);
                button #quit-button { "quit" }
            }
        },
    )
}

async fn start(
    State(l): Shared,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Result<Response, PageError> {
    play::check_csrf(&headers, form.get("csrf").map(String::as_str), &l.token)?;
    let (_, chosen) = play::chosen_seats(&form, l.seats)?;
    let mut agents = Vec::with_capacity(chosen.len());
    for (s, c) in chosen.into_iter().enumerate() {
        agents.push(match c {
            None => None,
            Some(a) if l.setup.agents.contains(&a) => Some(SeatAgent::Named(a)),
            Some(a) => {
                return Err(AppError::Unprocessable(format!(
                    "`p{s}`: `{a}` is not an agent offered here"
                ))
                .into());
            }
        });
    }
    let make = setup(
        l.setup.linked.clone(),
        l.setup.kind,
        l.setup.rules.clone(),
        agents,
        new_seed()?,
        l.setup.limits.clone(),
    );
    let id = l
        .games
        .start(Owner::Local, vec![true; l.seats], make)
        .await?;
    Ok(Redirect::to(&format!("/play/{id}")).into_response())
}

async fn game_page(State(l): Shared, Path(id): Path<String>) -> Result<Response, PageError> {
    l.games.state(&id, &Owner::Local)?;
    Ok(shell(
        "Your game",
        play::game_body(&id, &l.token, (l.setup.bounds.turn_ms / 1000) as u32),
    ))
}

async fn state(State(l): Shared, Path(id): Path<String>) -> Result<StateJson, AppError> {
    Ok(Json(l.games.state(&id, &Owner::Local)?))
}

async fn act(
    State(l): Shared,
    headers: HeaderMap,
    Path(id): Path<String>,
    Json(body): Json<ActBody>,
) -> Result<StateJson, AppError> {
    play::check_csrf(&headers, None, &l.token)?;
    Ok(Json(l.games.act(
        &id,
        &Owner::Local,
        &body.action,
        body.moves,
    )?))
}

async fn leave(
    State(l): Shared,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<StatusCode, AppError> {
    play::check_csrf(&headers, None, &l.token)?;
    l.games.leave(&id, &Owner::Local)?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(serde::Deserialize)]
struct SeatParam {
    seat: Option<u8>,
}

async fn replay(
    State(l): Shared,
    Path(id): Path<String>,
    Query(q): Query<SeatParam>,
) -> Result<Response, PageError> {
    let f = l.games.finished(&id, &Owner::Local)?;
    let doc = play::replay_of(&f, play::person_seat(&f), q.seat)?;
    Ok(shell("Your game", play::replay_body(&id, &f, &doc)?))
}

async fn log(State(l): Shared, Path(id): Path<String>) -> Result<Response, PageError> {
    let f = l.games.finished(&id, &Owner::Local)?;
    Ok(play::log_response(&id, &f)?)
}

async fn quit(
    State(l): Shared,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Result<Response, PageError> {
    play::check_csrf(&headers, form.get("csrf").map(String::as_str), &l.token)?;
    l.stop.notify_one();
    Ok(shell(
        "Stopped",
        html! { h1 { "Stopped" } p #stopped { "croupier play has stopped; you may close this page." } },
    ))
}

/// Refuses a request whose `Host` is not this server's own address (DNS rebinding).
async fn own_host(
    State(l): Shared,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !host.eq_ignore_ascii_case(&l.authority) {
        let e = AppError::Forbidden(format!(
            "this server answers only as http://{}/",
            l.authority
        ));
        return if crate::web::errors::is_api(req.uri().path()) {
            e.into_response()
        } else {
            PageError(e).into_response()
        };
    }
    next.run(req).await
}

fn router(l: Arc<Local>) -> Router {
    use crate::web::server::{REQUEST_TIMEOUT, SMALL_BODY};
    let app = Router::new()
        .route("/", get(|| async { Redirect::to("/play") }))
        .route("/play", get(play_page).post(start))
        .route("/play/{id}", get(game_page))
        .route("/play/{id}/replay", get(replay))
        .route("/play/{id}/log", get(log))
        .route("/api/play/{id}", get(state))
        .route("/api/play/{id}/act", post(act))
        .route("/api/play/{id}/leave", post(leave))
        .route("/quit", post(quit))
        .route("/static/{file}", get(crate::web::server::static_file))
        .fallback(crate::web::errors::no_route)
        .layer(DefaultBodyLimit::max(SMALL_BODY))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ))
        .layer(axum::middleware::from_fn(crate::web::errors::uniform))
        .layer(axum::middleware::from_fn_with_state(l.clone(), own_host));
    crate::web::server::secure_headers(app).with_state(l)
}

/// Serves the play pages on `listen` (a loopback address; port 0 for any free one) until
/// the page's "quit", Ctrl-C or SIGTERM. `ready` is called with the bound address.
pub async fn serve(
    setup: LocalSetup,
    listen: &str,
    ready: impl FnOnce(std::net::SocketAddr),
) -> anyhow::Result<()> {
    use anyhow::Context;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("cannot listen on {listen}"))?;
    let addr = listener.local_addr()?;
    if !addr.ip().is_loopback() {
        anyhow::bail!("{listen}: croupier play --web listens on this machine only (127.0.0.1)");
    }
    let seats = {
        use croupier_rules::Rules;
        croupier_tournament::with_game!(setup.kind, G => croupier_tournament::matches::setup::options::<G>(&setup.rules).map(|(_, o)| o.seats()))?
    };
    let token = crate::auth::hex(&crate::auth::random_bytes::<32>()?);
    let local = Arc::new(Local {
        games: Games::new(setup.bounds.clone()),
        setup,
        seats,
        token,
        authority: addr.to_string(),
        stop: tokio::sync::Notify::new(),
    });
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let sweeper = tokio::spawn(local.games.clone().sweeper(stop_rx));
    ready(addr);
    let quit = local.clone();
    axum::serve(listener, router(local.clone()))
        .with_graceful_shutdown(async move {
            tokio::select! {
                _ = crate::web::server::stop_signal() => {}
                _ = quit.stop.notified() => {}
            }
        })
        .await
        .context("the server stopped")?;
    let _ = stop_tx.send(true);
    let _ = sweeper.await;
    Ok(())
}
