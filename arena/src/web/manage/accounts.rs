//! Teams and workers: adding them with their tokens, a new token for a leaked one, finding
//! one by name, removing a worker, and taking a team out of the ladder and back. Only a
//! token's SHA-256 is stored; the token itself is returned once, to be shown once.

use crate::auth::{self, hex};
use crate::context::Arena;
use crate::web::errors::AppError;
use serde::{Deserialize, Serialize};

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

/// A team's name as it would be stored ([`shown_text`]), or why it is refused: what an
/// import checks for every line before it adds any team.
pub fn team_name(name: &str) -> Result<String, AppError> {
    checked_name(name, "team")
}

/// A name the organiser gives a team or a worker, normalised ([`shown_text`]), or why it
/// is refused.
fn checked_name(name: &str, what: &str) -> Result<String, AppError> {
    match shown_text(name) {
        Some(name) if !name.is_empty() && name.chars().count() <= 64 => Ok(name),
        _ => Err(AppError::BadRequest(format!(
            "a {what} name is 1 to 64 characters, without control or invisible formatting characters"
        ))),
    }
}

/// Text the organiser sets that others read (a name, a reason), as it is stored: Unicode
/// NFKC (so a full-width or ligature spelling is the plain one), trimmed; `None` if it holds
/// a control character or a format character (general category Cf: zero-width spaces and
/// joiners, bidirectional overrides and isolates, the soft hyphen, tags). Those are invisible
/// on a page, so "Al\u{200b}pha" would show as a second "Alpha" on the board, and a
/// right-to-left override would reorder what follows it.
pub fn shown_text(text: &str) -> Option<String> {
    use unicode_normalization::UnicodeNormalization;
    let text: String = text.nfkc().collect();
    let text = text.trim();
    (!text.chars().any(|c| c.is_control() || is_format(c))).then(|| text.to_string())
}

/// Unicode's general category Cf (format characters), as of Unicode 16.
fn is_format(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x0600..=0x0605 | 0x061C | 0x06DD | 0x070F | 0x0890..=0x0891 | 0x08E2
        | 0x180E | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F
        | 0xFEFF | 0xFFF9..=0xFFFB | 0x110BD | 0x110CD | 0x13430..=0x1343F
        | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A | 0xE0001 | 0xE0020..=0xE007F)
}

/// A random hash to insert a row with before its token (which holds the row's id) exists.
fn placeholder_hash() -> Result<Vec<u8>, AppError> {
    let r = auth::random_u64().map_err(|e| AppError::Internal(e.to_string()))?;
    Ok(auth::hash(&hex(&r.to_le_bytes())))
}

/// Whom a token is issued to: a team or a worker (`identity::Holder` is who holds a checked one).
#[derive(Clone, Copy)]
enum TokenFor {
    Team,
    Worker,
}

/// Gives `id` a fresh token and stores only its hash: the token, to be shown once.
async fn issue(
    arena: &Arena,
    holder: TokenFor,
    id: i64,
    name: &str,
) -> Result<TeamToken, AppError> {
    let token = match holder {
        TokenFor::Team => auth::team_token(id),
        TokenFor::Worker => auth::worker_token(id),
    }
    .map_err(|e| AppError::Internal(e.to_string()))?;
    let hash = auth::hash(&token);
    match holder {
        TokenFor::Team => arena.db.set_team_token(id, &hash).await?,
        TokenFor::Worker => arena.db.set_worker_token(id, &hash).await?,
    };
    crate::web::identity::forget_known_tokens(arena).await;
    Ok(TeamToken {
        id,
        name: name.to_string(),
        token,
    })
}

/// Adds a team (the organiser only).
pub async fn add_team(arena: &Arena, name: &str) -> Result<TeamToken, AppError> {
    let name = checked_name(name, "team")?;
    // The id is needed in the token, so insert with a placeholder hash, then set it.
    let id = arena
        .db
        .add_team(&name, &placeholder_hash()?)
        .await?
        .ok_or_else(|| AppError::Conflict(format!("a team named `{name}` exists")))?;
    issue(arena, TokenFor::Team, id, &name).await
}

/// Adds a worker (the organiser only): its token opens the worker API and nothing else.
pub async fn add_worker(arena: &Arena, name: &str) -> Result<TeamToken, AppError> {
    let name = checked_name(name, "worker")?;
    let id = arena
        .db
        .add_worker(&name, &placeholder_hash()?)
        .await?
        .ok_or_else(|| AppError::Conflict(format!("a worker named `{name}` exists")))?;
    issue(arena, TokenFor::Worker, id, &name).await
}

/// The id of the team or worker named `name`.
async fn named(arena: &Arena, holder: TokenFor, name: &str) -> Result<i64, AppError> {
    let id = match holder {
        TokenFor::Team => arena
            .db
            .teams()
            .await?
            .into_iter()
            .find(|t| t.name == name)
            .map(|t| t.id),
        TokenFor::Worker => arena
            .db
            .workers()
            .await?
            .into_iter()
            .find(|w| w.name == name)
            .map(|w| w.id),
    };
    id.ok_or_else(|| AppError::NotFound(format!("no {} named `{name}`", holder.what())))
}

impl TokenFor {
    fn what(self) -> &'static str {
        match self {
            TokenFor::Team => "team",
            TokenFor::Worker => "worker",
        }
    }
}

/// The id of the team named `name`.
pub async fn team_named(arena: &Arena, name: &str) -> Result<i64, AppError> {
    named(arena, TokenFor::Team, name).await
}

/// The id of the worker named `name`.
pub async fn worker_named(arena: &Arena, name: &str) -> Result<i64, AppError> {
    named(arena, TokenFor::Worker, name).await
}

/// The name of team or worker `id`.
async fn name_of(arena: &Arena, holder: TokenFor, id: i64) -> Result<String, AppError> {
    let name = match holder {
        TokenFor::Team => arena.db.team(id).await?.map(|t| t.name),
        TokenFor::Worker => arena.db.worker(id).await?.map(|w| w.name),
    };
    name.ok_or_else(|| AppError::NotFound(format!("no {} {id}", holder.what())))
}

/// A new token for team `id` (the organiser only, when a token leaked): the old one stops
/// working at once, since every request looks its token up, and so does a browser signed in
/// with it.
pub async fn new_team_token(arena: &Arena, id: i64) -> Result<TeamToken, AppError> {
    let name = name_of(arena, TokenFor::Team, id).await?;
    issue(arena, TokenFor::Team, id, &name).await
}

/// A new token for worker `id`: the old one stops working at once, and a worker still
/// running with it stops at its next call.
pub async fn new_worker_token(arena: &Arena, id: i64) -> Result<TeamToken, AppError> {
    let name = name_of(arena, TokenFor::Worker, id).await?;
    issue(arena, TokenFor::Worker, id, &name).await
}

/// The longest reason for a withdrawal: a sentence for the leaderboard, not a letter.
pub const MAX_REASON_CHARS: usize = 200;

/// The body of a withdrawal (`POST /api/admin/teams/{id}/withdraw`).
#[derive(Debug, Default, Deserialize)]
pub struct Withdrawal {
    /// Why, for the leaderboard and the team's page; may be left out.
    #[serde(default)]
    pub reason: String,
}

/// A team's place in the ladder, as a withdrawal or reinstatement answers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Standing {
    /// The team's id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// Why it was withdrawn; `None` when it plays.
    pub withdrawn: Option<String>,
}

/// Takes team `id` out of the ladder, saying why (may be empty). It plays no new
/// match (its waiting ones are dropped; one a worker holds is still played and rated, and
/// one the scheduler was queueing at that instant too), it leaves the ranking and the final,
/// and its uploads are refused. [`reinstate_team`] undoes it.
pub async fn withdraw_team(arena: &Arena, id: i64, reason: &str) -> Result<Standing, AppError> {
    let Some(reason) = shown_text(reason).filter(|r| r.chars().count() <= MAX_REASON_CHARS) else {
        return Err(AppError::BadRequest(format!(
            "a reason is at most {MAX_REASON_CHARS} characters, without control or invisible formatting characters"
        )));
    };
    set_standing(arena, id, Some(&reason)).await
}

/// Puts withdrawn team `id` back in the ladder. Its latest valid version is
/// matched again with the rating it had.
pub async fn reinstate_team(arena: &Arena, id: i64) -> Result<Standing, AppError> {
    set_standing(arena, id, None).await
}

/// Withdraws team `id` (`Some(reason)`) or reinstates it (`None`).
async fn set_standing(arena: &Arena, id: i64, reason: Option<&str>) -> Result<Standing, AppError> {
    let name = name_of(arena, TokenFor::Team, id).await?;
    if !arena.db.set_withdrawn(id, reason).await? {
        return Err(AppError::NotFound(format!("no team {id}")));
    }
    // The scheduler rereads the teams it may match at once instead of within a second.
    arena
        .verdicts
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(Standing {
        id,
        name,
        withdrawn: reason.map(str::to_string),
    })
}

/// Removes worker `id`; its name. Its token stops working at once (a worker still running
/// with it stops at its next call), and the matches it holds are played by others when their
/// leases run out, from their seeds, so nothing is counted twice or lost. Its id is never
/// given to another worker (both databases' ids only grow), so the old token cannot come
/// back to life.
pub async fn remove_worker(arena: &Arena, id: i64) -> Result<String, AppError> {
    let name = name_of(arena, TokenFor::Worker, id).await?;
    if !arena.db.remove_worker(id).await? {
        return Err(AppError::NotFound(format!("no worker {id}")));
    }
    Ok(name)
}
