//! Who is asking: the token a request presents (bearer header or sign-in cookie), checked
//! against the stored hashes, and the role checks the pages and the API share.
//!
//! Threat model: tokens are 256 random bits, stored only as SHA-256 and compared in constant
//! time ([`crate::auth`]). A client that presents refused tokens in a loop is slowed per
//! address (`security.refused_tokens_per_minute`, [`FAILED_TOKENS_PER_MINUTE`] by default) so that it cannot cost a database lookup per try.
//! The guard limits the cost of refused requests, never the holders of valid tokens: behind
//! a reverse proxy or a classroom NAT every client shares one address, and a guard that
//! refused every token from an address let one student with a junk token in a loop lock
//! out the organiser and stall the workers' reports. Past the limit, a token is checked
//! against an in-memory set of every valid token's hash (read from the database at most
//! once a second, and at once after this server issues a token): a valid one goes on as
//! usual, anything else gets 429 without a lookup. A token issued by another process (the
//! CLI) is seen within a second.

use crate::auth::{self, Claim, Who, hex_decode};
use crate::context::Arena;
use crate::web::errors::AppError;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;

/// The name of the cookie a signed-in browser holds its token in.
pub const COOKIE: &str = "croupier_token";

/// The default of `security.refused_tokens_per_minute`: refused tokens one client address may
/// present per minute before every unknown token it presents is refused unread (429). A token
/// is 256 random bits, so this is not what keeps guessing out; it keeps a client that tries
/// tokens in a loop from costing the database a lookup per try, and makes such a client
/// visible. Valid tokens from the same address still pass (behind a reverse proxy every
/// client has the proxy's address).
pub const FAILED_TOKENS_PER_MINUTE: u32 = crate::config::DEFAULT_REFUSED_TOKENS_PER_MINUTE;

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
    let limit = arena.cfg.security.refused_tokens_per_minute;
    let over_limit = match (ip, arena.failed_tokens.lock()) {
        (Some(ip), Ok(map)) => map.get(&ip).and_then(|(start, n)| {
            (now - start < 60_000 && *n >= limit)
                .then(|| ((start + 60_000 - now) as u64).div_ceil(1000).max(1))
        }),
        _ => None,
    };
    if let Some(wait) = over_limit
        && !known_valid(arena, token).await?
    {
        return Err(AppError::TooMany {
            message: format!(
                "{limit} refused tokens in a minute from this address: try again in {wait} s"
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

/// Whether `token` is one of the arena's valid tokens, by its hash, against the set of every
/// valid token's hash. The set is read again on a miss when it is over a second old, so a
/// flood costs at most three queries a second; the lock serialises the reads, so a valid
/// token that arrives during one waits for it rather than being refused.
async fn known_valid(arena: &Arena, token: &str) -> Result<bool, AppError> {
    let h = auth::hash(token);
    let mut known = arena.known_tokens.lock().await;
    let now = crate::now_ms();
    if known.1.contains(&h) || now.saturating_sub(known.0) < 1000 {
        return Ok(known.1.contains(&h));
    }
    let mut set: std::collections::HashSet<Vec<u8>> = Default::default();
    if let Some(stored) = arena.db.meta("admin_token_sha256").await?
        && let Some(b) = hex_decode(&stored)
    {
        set.insert(b);
    }
    set.extend(arena.db.teams().await?.into_iter().map(|t| t.token_hash));
    set.extend(arena.db.workers().await?.into_iter().map(|w| w.token_hash));
    *known = (now, set);
    Ok(known.1.contains(&h))
}

/// Makes the next over-the-limit check read the valid tokens again: called when this server
/// issues a token, so that the new one passes at once.
pub async fn forget_known_tokens(arena: &Arena) {
    arena.known_tokens.lock().await.0 = i64::MIN;
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
