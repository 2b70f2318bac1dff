//! `/play`: a signed-in team (or the organiser, or anyone in an open arena such as `arena
//! demo`) plays one seat against the bosses, the house agents or the team's own valid
//! versions. Thin handlers over [`crate::play`] (the games) and [`crate::web::play`] (their
//! pages).
//!
//! Who owns a game decides who may see it: a team's games are its own, a visitor's are bound
//! to the nonce in its `croupier_visitor` cookie, and every request names the game's random
//! id as well. A visitor's requests carry no session, so they are checked here against CSRF
//! (origin and [`play::visitor_token`]); a signed-in browser's pass the session layer's
//! check first.

use super::{PageResult, layout, page};
use crate::auth::Who;
use crate::context::Arena;
use crate::play::{Owner, SeatAgent, new_seed, setup};
use crate::store::db::states::VersionStatus;
use crate::web::errors::AppError;
use crate::web::play::{self, ActBody, Offer, StateJson};
use crate::web::session::{Viewer, cookie};
use axum::Json;
use axum::extract::{Form, FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use maud::html;
use std::collections::HashMap;
use std::sync::Arc;

/// Who asks, as the owner of games: extracted from the request's viewer and headers, so a
/// handler names it as an argument (a visitor without its cookie is refused; only `GET /play`
/// mints one, through [`asker`]).
pub struct Asker {
    /// The viewer, for the page's layout.
    viewer: Viewer,
    /// The request's headers, for a visitor's CSRF check.
    headers: HeaderMap,
    owner: Owner,
    /// The team, for its own versions.
    team: Option<i64>,
    /// The CSRF token the page's script sends; `None` for a Bearer client.
    csrf: Option<String>,
    /// A visitor's: its requests are checked here, not by the session layer.
    visitor: bool,
    /// A new visitor's cookie, to set with the page.
    set_cookie: Option<HeaderValue>,
}

impl FromRequestParts<Arc<Arena>> for Asker {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, arena: &Arc<Arena>) -> Result<Asker, AppError> {
        let v = Viewer::from_request_parts(parts, arena).await?;
        asker(arena, &v, &parts.headers, false).await
    }
}

async fn asker(
    arena: &Arena,
    v: &Viewer,
    headers: &HeaderMap,
    mint: bool,
) -> Result<Asker, AppError> {
    let (owner, team) = match &v.who {
        Who::Team(id) => (Owner::Team(*id), Some(*id)),
        Who::Admin => (Owner::Organiser, None),
        Who::Public if arena.cfg.play.open => {
            let (nonce, set_cookie) =
                match cookie(headers, play::VISITOR_COOKIE).filter(|n| n.len() == 32) {
                    Some(n) => (n, None),
                    None if mint => {
                        let n = crate::auth::hex(
                            &crate::auth::random_bytes::<16>()
                                .map_err(|e| AppError::Internal(e.to_string()))?,
                        );
                        let set = format!(
                            "{}={n}; Path=/; HttpOnly; SameSite=Strict; Max-Age=86400",
                            play::VISITOR_COOKIE
                        );
                        let v = HeaderValue::from_str(&set)
                            .map_err(|e| AppError::Internal(e.to_string()))?;
                        (n, Some(v))
                    }
                    None => {
                        return Err(AppError::Forbidden(
                            "open /play first: this browser has no visitor's cookie".into(),
                        ));
                    }
                };
            let csrf = play::visitor_token(&arena.csrf_key, &nonce);
            return Ok(Asker {
                viewer: v.clone(),
                headers: headers.clone(),
                owner: Owner::Visitor(nonce),
                team: None,
                csrf: Some(csrf),
                visitor: true,
                set_cookie,
            });
        }
        Who::Public => {
            return Err(AppError::Unauthorized(
                "sign in with your team's token to play".into(),
            ));
        }
    };
    Ok(Asker {
        viewer: v.clone(),
        headers: headers.clone(),
        owner,
        team,
        csrf: v.csrf.clone(),
        visitor: false,
        set_cookie: None,
    })
}

impl Asker {
    /// A visitor's state-changing request must come from the page and carry its token.
    fn check(&self, form: Option<&str>) -> Result<(), AppError> {
        match (&self.csrf, self.visitor) {
            (Some(expected), true) => play::check_csrf(&self.headers, form, expected),
            _ => Ok(()),
        }
    }
}

/// An agent the form offers, with what it becomes and whether its seat's log is the asker's.
struct Offered {
    offer: Offer,
    agent: SeatAgent,
    mine: bool,
}

/// The bosses (weakest first), the house agents that are not bosses, then the asking team's
/// valid versions, newest first. A boss's value is `house:` and its name, like any house
/// agent's: one agent is offered once.
async fn offers(arena: &Arena, a: &Asker) -> Result<Vec<Offered>, AppError> {
    let bosses = arena.bosses.iter().map(|h| (h, "boss"));
    let house = arena
        .house
        .iter()
        .filter(|h| !arena.bosses.iter().any(|b| b.name == h.name))
        .map(|h| (h, "house"));
    let mut out: Vec<Offered> = bosses
        .chain(house)
        .map(|(h, what)| Offered {
            offer: Offer {
                value: format!("house:{}", h.name),
                label: format!("{} ({what})", h.name),
            },
            agent: SeatAgent::Stored {
                name: h.name.clone(),
                sha256: h.sha256.clone(),
                path: arena.agent_path(&h.sha256),
            },
            mine: false,
        })
        .collect();
    if let Some(team) = a.team {
        let name = arena
            .team_names([team])
            .await?
            .get(&team)
            .cloned()
            .unwrap_or_else(|| format!("team {team}"));
        let mut versions = arena.db.versions_of(team).await?;
        versions.retain(|v| v.status == VersionStatus::Valid);
        versions.sort_by_key(|v| -v.number);
        out.extend(versions.into_iter().map(|v| Offered {
            offer: Offer {
                value: format!("v{}", v.number),
                label: format!("{name} v{} (yours)", v.number),
            },
            agent: SeatAgent::Stored {
                name: format!("{name} v{}", v.number),
                path: arena.agent_path(&v.sha256),
                sha256: v.sha256,
            },
            mine: true,
        }));
    }
    Ok(out)
}

/// The arena's table: how many seats.
fn seats(arena: &Arena) -> Result<usize, AppError> {
    use croupier_rules::Rules;
    croupier_tournament::with_game!(arena.cfg.kind(), G => croupier_tournament::matches::setup::options::<G>(&arena.cfg.rules_args()).map(|(_, o)| o.seats()))
        .map_err(|e| AppError::Internal(e.to_string()))
}

fn with_cookie(mut r: Response, a: &Asker) -> Response {
    if let Some(c) = &a.set_cookie {
        r.headers_mut().append(header::SET_COOKIE, c.clone());
    }
    r
}

/// `GET /play`: the form that deals a game.
pub async fn play_page(
    State(arena): State<Arc<Arena>>,
    v: Viewer,
    headers: HeaderMap,
) -> PageResult {
    let a = match asker(&arena, &v, &headers, true).await {
        Ok(a) => a,
        Err(AppError::Unauthorized(m)) => {
            let body = html! { h1 { "Play" } p #play-signin { (m) ": " a href="/login" { "sign in" } "." } };
            return Ok(page(layout(&arena, &v, "Play", body)));
        }
        Err(e) => return Err(e.into()),
    };
    let offers = offers(&arena, &a).await?;
    let forms: Vec<Offer> = offers.into_iter().map(|o| o.offer).collect();
    let going = arena.play.going(&a.owner);
    let body = html! {
        h1 { "Play" }
        p {
            "Play one seat yourself against the bosses and house agents"
            @if a.team.is_some() { " or your team's own versions" }
            ". You see only what your seat may see; the agents play in their sandbox under the arena's limits. Never rated."
        }
        p.muted #play-going { "Games going: " (going) " of " (arena.cfg.play.per_team) " allowed at once." }
        (play::pick_form(seats(&arena)?, &forms, a.csrf.as_deref()))
    };
    Ok(with_cookie(page(layout(&arena, &v, "Play", body)), &a))
}

/// `POST /play`: deals a game and opens its page.
pub async fn start(
    State(arena): State<Arc<Arena>>,
    crate::web::identity::Peer(peer): crate::web::identity::Peer,
    a: Asker,
    Form(form): Form<HashMap<String, String>>,
) -> PageResult {
    a.check(form.get("csrf").map(String::as_str))?;
    let offered = offers(&arena, &a).await?;
    let (seat, chosen) = play::chosen_seats(&form, seats(&arena)?)?;
    let mut agents = Vec::with_capacity(chosen.len());
    let mut may_see = Vec::with_capacity(chosen.len());
    for (s, c) in chosen.iter().enumerate() {
        let Some(value) = c else {
            agents.push(None);
            may_see.push(s == seat);
            continue;
        };
        let o = offered
            .iter()
            .find(|o| &o.offer.value == value)
            .ok_or_else(|| {
                AppError::Unprocessable(format!("`p{s}`: `{value}` is not an agent offered here"))
            })?;
        agents.push(Some(o.agent.clone()));
        may_see.push(o.mine);
    }
    let make = setup(
        arena.linked.clone(),
        arena.cfg.kind(),
        arena.cfg.rules_args(),
        agents,
        new_seed()?,
        arena.cfg.limits.clone(),
    );
    let id = arena
        .play
        .start_from(a.owner.clone(), peer, may_see, make)
        .await?;
    Ok(Redirect::to(&format!("/play/{id}")).into_response())
}

/// `GET /play/{id}`: the game's page, which `/static/play.js` plays from.
pub async fn game_page(
    State(arena): State<Arc<Arena>>,
    a: Asker,
    Path(id): Path<String>,
) -> PageResult {
    arena.play.state(&id, &a.owner)?;
    let body = play::game_body(
        &id,
        a.csrf.as_deref().unwrap_or(""),
        arena.cfg.play.turn_seconds,
    );
    Ok(page(layout(&arena, &a.viewer, "Your game", body)))
}

/// `GET /api/play/{id}`: what the person's seat may see now, and the actions offered.
pub async fn state(
    State(arena): State<Arc<Arena>>,
    a: Asker,
    Path(id): Path<String>,
) -> Result<StateJson, AppError> {
    Ok(Json(arena.play.state(&id, &a.owner)?))
}

/// `POST /api/play/{id}/act`: plays the person's action if it is one of those offered.
pub async fn act(
    State(arena): State<Arc<Arena>>,
    a: Asker,
    Path(id): Path<String>,
    Json(body): Json<ActBody>,
) -> Result<StateJson, AppError> {
    a.check(None)?;
    Ok(Json(arena.play.act(
        &id,
        &a.owner,
        &body.action,
        body.moves,
    )?))
}

/// `POST /api/play/{id}/leave`: ends the game (the page is being left).
pub async fn leave(
    State(arena): State<Arc<Arena>>,
    a: Asker,
    Path(id): Path<String>,
) -> Result<StatusCode, AppError> {
    a.check(None)?;
    arena.play.leave(&id, &a.owner)?;
    Ok(StatusCode::NO_CONTENT)
}

/// Which seat's view a replay shows.
#[derive(serde::Deserialize)]
pub struct SeatParam {
    seat: Option<u8>,
}

/// `GET /play/{id}/replay[?seat=N]`: the finished game in the replay viewer.
pub async fn replay(
    State(arena): State<Arc<Arena>>,
    a: Asker,
    Path(id): Path<String>,
    Query(q): Query<SeatParam>,
) -> PageResult {
    let f = arena.play.finished(&id, &a.owner)?;
    let doc = play::replay_of(&f, play::person_seat(&f), q.seat)?;
    let body = play::replay_body(&id, &f, &doc)?;
    Ok(page(layout(&arena, &a.viewer, "Your game", body)))
}

/// `GET /play/{id}/log`: the finished game as a log file for `croupier replay`.
pub async fn log(State(arena): State<Arc<Arena>>, a: Asker, Path(id): Path<String>) -> PageResult {
    let f = arena.play.finished(&id, &a.owner)?;
    Ok(play::log_response(&id, &f)?)
}
