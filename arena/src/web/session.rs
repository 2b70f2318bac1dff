//! Browser sessions: the sign-in cookie, what keeps another page from using it (CSRF), and
//! what a browser with a cookie that no longer works is shown.
//!
//! Threat model. A signed-in browser sends its cookie with every request to the arena,
//! whichever page makes the request. `SameSite=Strict` keeps other *sites* out, but not
//! another port of the same host, nor a sibling subdomain such as the course's JupyterHub:
//! those are the same site. So every state-changing request a browser could have made on its
//! own (one with no `Authorization` header: it rides on the cookie, or it is the sign-in
//! form) passes two checks here, before any handler runs:
//! 1. *It comes from this arena's own origin*: `Sec-Fetch-Site: same-origin`, or, from a
//!    browser that does not send that header, an `Origin` equal to the host the request was
//!    sent to (`Host`, or `X-Forwarded-Host` from a reverse proxy). A request with neither
//!    header is refused: every browser of the last five years sends one on a POST.
//! 2. *It carries the session's CSRF token*: a form's hidden `csrf` field, or the
//!    `X-Csrf-Token` header. The token is HMAC-SHA256 of the session's own token under a key
//!    kept in the database ([`Arena::csrf_key`]), so a page that cannot read the arena's pages (the
//!    same-origin policy; the CSP forbids framing) cannot know it.
//!
//! The sign-in form has no session yet. Its token is bound to a random nonce the form's page
//! sets in a cookie scoped to `/login`, so a page elsewhere cannot post its own team's token
//! into a victim's browser and sign the victim in to the attacker's team (sign-in CSRF).
//! Every page also says who is signed in, so a browser signed in to the wrong team shows it.
//!
//! A request with a Bearer token is not exposed to CSRF (a browser never adds that header by
//! itself) and passes unchecked, as do requests with neither a cookie nor a form to sign in:
//! they carry no authority to borrow.
//!
//! A cookie whose token no longer works (rotated after a leak, a removed team) is dropped:
//! the request goes on as a visitor's, the response clears the cookie, and the page says
//! why. A 401 on every page, the sign-in form included, left no way out but clearing cookies.

use crate::auth::{self, Who};
use crate::context::Arena;
use crate::web::errors::{AppError, PageError};
use crate::web::identity::{self, Holder};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, header, request::Parts};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// The name of a form's CSRF field.
pub const CSRF_FIELD: &str = "csrf";

/// The header a script's request carries the CSRF token in.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// The cookie that holds the sign-in form's nonce (scoped to `/login`).
pub const LOGIN_COOKIE: &str = "croupier_login";

/// The largest form body the check reads: the same cap as every small route's body.
const FORM_CAP: usize = crate::web::request_limits::SMALL_BODY;

/// A signed-in browser, found from its cookie.
#[derive(Clone, Debug)]
pub struct Session {
    /// Who the cookie's token belongs to.
    pub who: Who,
    /// The team's name, to say on every page who is signed in.
    pub team: Option<String>,
    /// The session's CSRF token, for the page's forms.
    pub csrf: String,
}

/// Marks a request whose cookie no longer worked and was dropped.
#[derive(Clone, Copy, Debug)]
struct Dropped;

/// A multipart form's CSRF token, checked by its handler as the form is read (the check
/// here does not buffer an upload): the `csrf` field must come before the file.
#[derive(Clone, Debug)]
pub struct PendingCsrf(pub String);

impl PendingCsrf {
    /// Whether `value` (a form's `csrf` field) is the expected token.
    pub fn matches(&self, value: &str) -> bool {
        equal(value, &self.0)
    }
}

/// What a page knows of the browser asking for it.
#[derive(Clone, Debug)]
pub struct Viewer {
    /// Who is asking.
    pub who: Who,
    /// The signed-in team's name.
    pub team: Option<String>,
    /// The CSRF token for the page's forms; `None` without a cookie session (a Bearer
    /// token needs none).
    pub csrf: Option<String>,
    /// The browser's cookie no longer worked and was dropped with this response.
    pub dropped: bool,
}

impl FromRequestParts<Arc<Arena>> for Viewer {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, arena: &Arc<Arena>) -> Result<Viewer, AppError> {
        let dropped = parts.extensions.get::<Dropped>().is_some();
        if let Some(s) = parts.extensions.get::<Session>() {
            return Ok(Viewer {
                who: s.who.clone(),
                team: s.team.clone(),
                csrf: Some(s.csrf.clone()),
                dropped,
            });
        }
        let who = Who::from_request_parts(parts, arena).await?;
        let team = match &who {
            Who::Team(id) => arena.db.team(*id).await?.map(|t| t.name),
            _ => None,
        };
        Ok(Viewer {
            who,
            team,
            csrf: None,
            dropped,
        })
    }
}

/// Who a request comes from: its Bearer token, checked; else its browser session (found by
/// [`layer`]); else a visitor.
impl FromRequestParts<Arc<Arena>> for Who {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, arena: &Arc<Arena>) -> Result<Who, AppError> {
        if let Some(v) = parts.headers.get(header::AUTHORIZATION) {
            let v = v.to_str().unwrap_or("");
            let token = v.strip_prefix("Bearer ").unwrap_or(v).trim();
            return identity::only_who(
                identity::identify_from(arena, identity::peer(parts), token).await?,
            );
        }
        Ok(parts
            .extensions
            .get::<Session>()
            .map_or(Who::Public, |s| s.who.clone()))
    }
}

/// The value of cookie `name`, if the request has it.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    for c in headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
    {
        for kv in c.split(';') {
            if let Some((k, v)) = kv.trim().split_once('=')
                && k == name
                && !v.is_empty()
            {
                return Some(v.to_string());
            }
        }
    }
    None
}

/// The CSRF token of a session whose cookie holds `token`.
pub fn session_csrf(key: &[u8; 32], token: &str) -> String {
    auth::hex(&auth::hmac_sha256(
        key,
        format!("session:{token}").as_bytes(),
    ))
}

/// The CSRF token of the sign-in form shown with `nonce`.
pub fn login_csrf(key: &[u8; 32], nonce: &str) -> String {
    auth::hex(&auth::hmac_sha256(key, format!("login:{nonce}").as_bytes()))
}

/// The sign-in page's nonce: the browser's own, or a new one to set with the page.
pub fn login_nonce(headers: &HeaderMap) -> Result<(String, Option<HeaderValue>), AppError> {
    if let Some(n) = cookie(headers, LOGIN_COOKIE).filter(|n| n.len() == 32) {
        return Ok((n, None));
    }
    let n = auth::hex(&auth::random_bytes::<16>().map_err(|e| AppError::Internal(e.to_string()))?);
    let set = format!("{LOGIN_COOKIE}={n}; Path=/login; HttpOnly; SameSite=Strict; Max-Age=86400");
    let v = HeaderValue::from_str(&set).map_err(|e| AppError::Internal(e.to_string()))?;
    Ok((n, Some(v)))
}

/// Compares two tokens in time that does not depend on where they differ.
fn equal(a: &str, b: &str) -> bool {
    use subtle::ConstantTimeEq;
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

/// Whether the method changes state (everything but GET, HEAD and OPTIONS).
fn changes_state(m: &Method) -> bool {
    !matches!(*m, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// The origin check: the request came from a page of this arena.
pub fn same_origin(h: &HeaderMap) -> Result<(), AppError> {
    let refuse = |why: &str| {
        Err(AppError::Forbidden(format!(
            "refused: {why}. A signed-in form is accepted only from this arena's own pages"
        )))
    };
    if let Some(site) = h.get("sec-fetch-site") {
        return match site.as_bytes() {
            b"same-origin" => Ok(()),
            _ => refuse("the request came from another site or another origin of this site"),
        };
    }
    let Some(origin) = h.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return refuse("the request says neither Origin nor Sec-Fetch-Site");
    };
    let authority = origin.split_once("://").map_or("", |(_, a)| a);
    let ours = [h.get("x-forwarded-host"), h.get(header::HOST)]
        .into_iter()
        .flatten()
        .any(|v| !authority.is_empty() && v.as_bytes().eq_ignore_ascii_case(authority.as_bytes()));
    if ours {
        Ok(())
    } else {
        refuse("the request came from another origin")
    }
}

/// The 403 of a form whose CSRF token is missing or wrong.
pub fn stale_form() -> AppError {
    AppError::Forbidden(
        "this form is out of date or was not sent from this arena's own page: reload the page and send it again".into(),
    )
}

/// Checks the CSRF token a request carries against `expected`: the header, else a form
/// field (an urlencoded form is read here and put back; a multipart form's handler checks
/// it, see [`PendingCsrf`]). JSON with a cookie needs the header.
async fn check_token(mut req: Request, expected: String) -> Result<Request, AppError> {
    if let Some(v) = req.headers().get(CSRF_HEADER) {
        let ok = v.to_str().is_ok_and(|v| equal(v, &expected));
        return if ok { Ok(req) } else { Err(stale_form()) };
    }
    let ty = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if ty.starts_with("multipart/form-data") {
        req.extensions_mut().insert(PendingCsrf(expected));
        return Ok(req);
    }
    if !ty.starts_with("application/x-www-form-urlencoded") {
        return Err(stale_form());
    }
    let (parts, body) = req.into_parts();
    // Bounded in size and in time, like every small request's body.
    let read = axum::body::to_bytes(body, FORM_CAP);
    let bytes = tokio::time::timeout(crate::web::request_limits::REQUEST_TIMEOUT, read)
        .await
        .map_err(|_| AppError::Timeout("the form was not sent in time".into()))?
        .map_err(|_| AppError::BadRequest(format!("a form is at most {} KiB", FORM_CAP >> 10)))?;
    let fields: Vec<(String, String)> = serde_urlencoded::from_bytes(&bytes)
        .map_err(|e| AppError::BadRequest(format!("the form cannot be read: {e}")))?;
    let ok = fields
        .iter()
        .any(|(k, v)| k == CSRF_FIELD && equal(v, &expected));
    if !ok {
        return Err(stale_form());
    }
    Ok(Request::from_parts(parts, axum::body::Body::from(bytes)))
}

/// Finds the session and checks a state-changing browser request; `Ok(true)` when the
/// browser's cookie no longer works and the response must clear it.
async fn guard(arena: &Arena, req: &mut Request) -> Result<bool, AppError> {
    let bearer = req.headers().contains_key(header::AUTHORIZATION);
    let mut dropped = false;
    if !bearer && let Some(token) = cookie(req.headers(), identity::COOKIE) {
        let ip = req
            .extensions()
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|c| c.0.ip());
        match identity::identify_from(arena, ip, &token).await {
            Ok(Holder::Who(who)) => {
                let team = match &who {
                    Who::Team(id) => arena.db.team(*id).await?.map(|t| t.name),
                    _ => None,
                };
                let csrf = session_csrf(&arena.csrf_key, &token);
                req.extensions_mut().insert(Session { who, team, csrf });
            }
            // A worker's token in a cookie, a token no longer valid, or an address past
            // its refused-token limit: the browser goes on as a visitor.
            Ok(Holder::Worker(_)) | Err(AppError::Unauthorized(_) | AppError::TooMany { .. }) => {
                dropped = true;
                req.extensions_mut().insert(Dropped);
            }
            Err(e) => return Err(e),
        }
    }
    Ok(dropped)
}

/// The expected CSRF token of a state-changing browser request, if it needs one.
fn expected_token(arena: &Arena, req: &Request) -> Result<Option<String>, AppError> {
    if !changes_state(req.method()) || req.headers().contains_key(header::AUTHORIZATION) {
        return Ok(None);
    }
    if req.uri().path() == "/login" {
        let nonce = cookie(req.headers(), LOGIN_COOKIE).ok_or_else(|| {
            AppError::Forbidden(
                "open the sign-in page and sign in from there (this browser has no sign-in form open)".into(),
            )
        })?;
        return Ok(Some(login_csrf(&arena.csrf_key, &nonce)));
    }
    Ok(req.extensions().get::<Session>().map(|s| s.csrf.clone()))
}

/// The middleware: the session and the CSRF checks of every request (see the module docs).
pub async fn layer(State(arena): State<Arc<Arena>>, mut req: Request, next: Next) -> Response {
    let api = crate::web::errors::is_api(req.uri().path());
    let checked = async {
        let dropped = guard(&arena, &mut req).await?;
        if let Some(expected) = expected_token(&arena, &req)? {
            same_origin(req.headers())?;
            req = check_token(req, expected).await?;
        }
        Ok::<_, AppError>((req, dropped))
    }
    .await;
    match checked {
        Ok((req, dropped)) => {
            let mut r = next.run(req).await;
            // Unless the answer signs the browser in afresh (a sign-in sent with the old
            // cookie): a clearing header after the new cookie would undo it.
            let signs_in = r
                .headers()
                .get_all(header::SET_COOKIE)
                .iter()
                .any(|v| v.as_bytes().starts_with(identity::COOKIE.as_bytes()));
            if dropped && !signs_in {
                r.headers_mut()
                    .append(header::SET_COOKIE, HeaderValue::from_static(CLEAR_SESSION));
            }
            r
        }
        Err(e) if api => e.into_response(),
        Err(e) => PageError(e).into_response(),
    }
}

/// The header that drops the sign-in cookie.
pub const CLEAR_SESSION: &str = "croupier_token=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0";

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    /// Issue #44: a page on another port of the same host, or a sibling subdomain, is the
    /// same site but not the same origin, and is refused.
    #[test]
    fn only_this_origin_passes() {
        let host = ("host", "arena.example:8080");
        assert!(same_origin(&headers(&[host, ("sec-fetch-site", "same-origin")])).is_ok());
        for site in ["same-site", "cross-site", "none"] {
            let h = headers(&[host, ("sec-fetch-site", site)]);
            assert!(same_origin(&h).is_err(), "{site}");
        }
        assert!(same_origin(&headers(&[host, ("origin", "http://arena.example:8080")])).is_ok());
        for o in [
            "http://arena.example:8081",
            "http://hub.arena.example:8080",
            "http://evil.example",
            "null",
        ] {
            let h = headers(&[host, ("origin", o)]);
            assert!(same_origin(&h).is_err(), "{o}");
        }
        assert!(same_origin(&headers(&[host])).is_err(), "no header at all");
        let proxied = headers(&[
            ("host", "127.0.0.1:8080"),
            ("x-forwarded-host", "arena.example"),
            ("origin", "https://arena.example"),
        ]);
        assert!(same_origin(&proxied).is_ok());
    }

    #[test]
    fn tokens_differ_per_session_and_per_form() {
        let key = [7u8; 32];
        let a = session_csrf(&key, "team-1-aa");
        assert_eq!(a, session_csrf(&key, "team-1-aa"));
        assert_ne!(a, session_csrf(&key, "team-1-ab"));
        assert_ne!(a, session_csrf(&[8u8; 32], "team-1-aa"));
        assert_ne!(login_csrf(&key, "n1"), login_csrf(&key, "n2"));
        assert!(equal(&a, &a.clone()) && !equal(&a, &a[1..]));
    }
}
