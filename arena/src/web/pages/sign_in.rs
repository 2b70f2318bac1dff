//! Signing in and out with a team's or the organiser's token: the form, the POST that
//! checks the token and sets the session cookie, and the POST that ends the session.

use super::*;

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
