//! What the arena's `/play` and `croupier play --web`'s local server share: the pages' parts
//! (the form that picks the seats, the game's page that `/static/play.js` fills, the replay),
//! the JSON the page reads, the finished game's log, and [`PlayError`] as a status.
//!
//! Threat model: the game's page shows only what [`crate::play`] sends it, which is built
//! from the person's own observation; `/static/play.js` builds the DOM with `textContent`
//! only (agent names and action texts are agent- or user-controlled). Every request that
//! changes a game (start, act, leave) is checked against CSRF by its caller: the arena's
//! session layer for a signed-in browser, [`visitor_token`] for a visitor of an open arena,
//! the local server's own token for `croupier play --web`.

use crate::play::{Finished, PlayError, PlayState};
use crate::web::errors::AppError;
use croupier_tournament::replay::{ReplayDoc, doc_json, replay_doc};
use maud::{Markup, PreEscaped, html};
use serde::Deserialize;

/// The cookie that holds a visitor's nonce in an open arena (its games are bound to it).
pub const VISITOR_COOKIE: &str = "croupier_visitor";

impl From<PlayError> for AppError {
    fn from(e: PlayError) -> AppError {
        use croupier_tournament::human::ActError;
        let m = e.to_string();
        match e {
            PlayError::NotFound(_) => AppError::NotFound(m),
            PlayError::TooMany(_) => AppError::TooMany {
                message: m,
                retry_after: 60,
            },
            PlayError::Full(_) => AppError::Unavailable {
                message: m,
                retry_after: 60,
            },
            PlayError::Act(ActError::NotOffered { .. }) => AppError::Unprocessable(m),
            PlayError::Act(_) | PlayError::Going => AppError::Conflict(m),
            PlayError::Private(_) => AppError::Forbidden(m),
            PlayError::Setup(_) => AppError::Unprocessable(m),
        }
    }
}

/// The body of `POST /api/play/{id}/act`: the action's text as offered, and the move count
/// the page showed when it was chosen.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActBody {
    /// The action, e.g. `beat 0 9S`.
    pub action: String,
    /// The page's move count.
    #[serde(deserialize_with = "whole_number")]
    pub moves: u64,
}

/// A count sent as JSON: any whole number at least 0, `7` or `7.0` alike, as JSON Schema's
/// `integer` allows (a client may write every number as a float). One past `u64` is read as
/// `u64::MAX`, which no game reaches, so the action is refused as sent at the wrong move;
/// anything else is refused as the wrong shape.
fn whole_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let n = serde_json::Number::deserialize(d)?;
    n.as_u64()
        .or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                // `as` saturates: a float past u64::MAX becomes u64::MAX.
                .map(|f| f as u64)
        })
        .ok_or_else(|| serde::de::Error::custom(format!("`{n}` is not a move count")))
}

/// One agent the form offers for a seat: the form's value and the name shown.
#[derive(Clone, Debug)]
pub struct Offer {
    /// The form's value.
    pub value: String,
    /// What the person reads.
    pub label: String,
}

/// The seats a start form asked for: the person's seat, and each other seat's offer value.
pub fn chosen_seats(
    form: &std::collections::HashMap<String, String>,
    seats: usize,
) -> Result<(usize, Vec<Option<String>>), AppError> {
    let seat: usize = form
        .get("seat")
        .and_then(|s| s.parse().ok())
        .filter(|s| *s < seats)
        .ok_or_else(|| {
            AppError::BadRequest(format!(
                "`seat`: choose your seat, 0 to {}",
                seats.saturating_sub(1)
            ))
        })?;
    let mut out = Vec::with_capacity(seats);
    for s in 0..seats {
        if s == seat {
            out.push(None);
            continue;
        }
        let v = form
            .get(&format!("p{s}"))
            .filter(|v| !v.is_empty())
            .ok_or_else(|| AppError::BadRequest(format!("`p{s}`: choose who plays seat {s}")))?;
        out.push(Some(v.clone()));
    }
    Ok((seat, out))
}

/// The form that starts a game: the person's seat and who plays each other seat.
pub fn pick_form(seats: usize, offers: &[Offer], csrf: Option<&str>) -> Markup {
    html! {
        form #play-form method="post" action="/play" {
            @if let Some(c) = csrf { input type="hidden" name="csrf" value=(c); }
            p {
                label { "your seat "
                    select #play-seat name="seat" {
                        @for s in 0..seats { option value=(s) { "P" (s) } }
                    }
                }
            }
            p.muted { "Who plays the other seats (the one you sit in is yours):" }
            ol.play-seats start="0" {
                @for s in 0..seats {
                    li { label { "P" (s) " "
                        select name={ "p" (s) } {
                            @for o in offers { option value=(o.value) { (o.label) } }
                        }
                    } }
                }
            }
            button #play-start { "deal" }
        }
    }
}

/// The game's page: `/static/play.js` fills it from `GET /api/play/{id}` and plays from it.
pub fn game_body(id: &str, csrf: &str, turn_seconds: u32) -> Markup {
    html! {
        div #play data-game=(id) data-csrf=(csrf) {
            noscript { "Playing needs JavaScript." }
        }
        p.muted {
            "You have " (turn_seconds / 60) " minutes for each decision. Leaving this page (or reloading it) ends the game; it is never rated."
        }
        link rel="stylesheet" href="/static/viewer.css";
        link rel="stylesheet" href="/static/play.css";
        script src="/static/viewer.js" {}
        script src="/static/play.js" {}
    }
}

/// The seat a finished game's replay is shown from: `asked`, or the person's; refused unless
/// the owner may see it.
pub fn replay_of(f: &Finished, person: u8, asked: Option<u8>) -> Result<ReplayDoc, AppError> {
    let seat = asked.unwrap_or(person);
    if !f.may_see.get(usize::from(seat)).copied().unwrap_or(false) {
        return Err(PlayError::Private(format!(
            "seat {seat}: its view and its agent's log are its own team's"
        ))
        .into());
    }
    croupier_tournament::with_game!(f.header.game, G => replay_doc::<G>(&f.header, &f.record, Some(seat)))
        .map_err(|e| AppError::Internal(e.to_string()))
}

/// The person's seat in a finished game (the seat whose entrant is the person, entrant 0).
pub fn person_seat(f: &Finished) -> u8 {
    f.record.seats.iter().position(|&e| e == 0).unwrap_or(0) as u8
}

/// A finished game's replay page body: the viewer, and links to the other seats the owner
/// may see.
pub fn replay_body(id: &str, f: &Finished, doc: &ReplayDoc) -> Result<Markup, AppError> {
    let json = doc_json(doc).map_err(|e| AppError::Internal(e.to_string()))?;
    let person = person_seat(f);
    Ok(html! {
        h1 { "Your game" }
        p {
            a href={ "/play/" (id) "/log" } { "download (open with croupier replay)" }
            " · view: "
            @for (s, ok) in f.may_see.iter().enumerate() {
                @if *ok {
                    a.seat-view href={ "/play/" (id) "/replay?seat=" (s) } {
                        "P" (s) @if s == usize::from(person) { " (you)" } @else { " (its log)" }
                    }
                    " "
                }
            }
            " · " a href="/play" { "play again" }
        }
        p.muted #play-result { "Result: " (f.record.summary) }
        div #replay {}
        script #replay-doc type="application/json" { (PreEscaped(json)) }
        link rel="stylesheet" href="/static/viewer.css";
        script src="/static/viewer.js" {}
    })
}

/// A finished game as a log file for `croupier replay`, with the agents' logs of the seats
/// the owner may see only.
pub fn log_file(f: &Finished) -> Result<String, AppError> {
    let mut rec = f.record.clone();
    rec.logs
        .retain(|(s, _)| f.may_see.get(usize::from(*s)).copied().unwrap_or(false));
    let mut body =
        serde_json::to_string(&f.header).map_err(|e| AppError::Internal(e.to_string()))?;
    body.push('\n');
    body.push_str(
        &croupier_tournament::matches::log::game_line(&rec)
            .map_err(|e| AppError::Internal(e.to_string()))?,
    );
    body.push('\n');
    Ok(body)
}

/// A finished game's log file as a download.
pub fn log_response(id: &str, f: &Finished) -> Result<axum::response::Response, AppError> {
    use axum::response::IntoResponse;
    let disposition = format!("attachment; filename=\"play-{id}.jsonl\"");
    Ok((
        [
            (
                axum::http::header::CONTENT_TYPE,
                "application/x-ndjson".to_string(),
            ),
            (axum::http::header::CONTENT_DISPOSITION, disposition),
        ],
        log_file(f)?,
    )
        .into_response())
}

/// The CSRF token of a visitor's games in an open arena: bound to the visitor's nonce as the
/// sign-in form's is to its own ([`crate::web::session::login_csrf`]).
pub fn visitor_token(key: &[u8; 32], nonce: &str) -> String {
    crate::auth::hex(&crate::auth::hmac_sha256(
        key,
        format!("visitor:{nonce}").as_bytes(),
    ))
}

/// Checks a request that changes a game and rides on no session: it comes from this
/// server's own page (`Origin` or `Sec-Fetch-Site`) and carries `expected` in the
/// `X-Csrf-Token` header or the form's `csrf` field.
pub fn check_csrf(
    headers: &axum::http::HeaderMap,
    form: Option<&str>,
    expected: &str,
) -> Result<(), AppError> {
    use subtle::ConstantTimeEq;
    crate::web::session::same_origin(headers)?;
    let sent = headers
        .get(crate::web::session::CSRF_HEADER)
        .and_then(|v| v.to_str().ok())
        .or(form)
        .unwrap_or("");
    if sent.len() == expected.len() && bool::from(sent.as_bytes().ct_eq(expected.as_bytes())) {
        Ok(())
    } else {
        Err(crate::web::session::stale_form())
    }
}

/// What `GET /api/play/{id}` answers.
pub type StateJson = axum::Json<PlayState>;

/// The play page's script and style sheet, for the servers' `/static/`.
pub const PLAY_JS: &str = include_str!("../../assets/play.js");

/// The play page's style sheet.
pub const PLAY_CSS: &str = include_str!("../../assets/play.css");

#[cfg(test)]
mod tests {
    use super::ActBody;

    /// schemathesis sends `9409.0` for a schema's integer, as JSON Schema allows.
    #[test]
    fn a_move_count_is_a_whole_number_however_it_is_written() {
        let read = |moves: &str| {
            serde_json::from_str::<ActBody>(&format!(r#"{{"action": "pass", "moves": {moves}}}"#))
                .map(|b| b.moves)
        };
        assert_eq!(read("7").ok(), Some(7));
        assert_eq!(read("9409.0").ok(), Some(9409));
        assert_eq!(read("3539907581736010645504").ok(), Some(u64::MAX));
        for bad in ["7.5", "-1", "\"7\"", "null"] {
            assert!(read(bad).is_err(), "{bad}");
        }
    }
}
