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
/// is refused: an invisible character, a length outside 1 to 64, or letters of scripts that
/// Unicode TS #39 flags together ([`crate::names::mixed_scripts`]). Each refusal names the
/// name and what is wrong with it.
fn checked_name(name: &str, what: &str) -> Result<String, AppError> {
    let shown = croupier_host::text::escape(name);
    let Some(normal) = shown_text(name) else {
        let c = crate::names::first_invisible(name).map_or(0, |c| c as u32);
        return Err(AppError::BadRequest(format!(
            "the {what} name `{shown}` holds U+{c:04X}, a character a reader cannot see: \
             a {what} name is 1 to 64 visible characters"
        )));
    };
    if normal.is_empty() || normal.chars().count() > 64 {
        return Err(AppError::BadRequest(format!(
            "the {what} name `{shown}` is not 1 to 64 characters long"
        )));
    }
    if let Some(why) = crate::names::mixed_scripts(&normal) {
        return Err(AppError::BadRequest(format!(
            "the {what} name `{shown}` is refused: {why}"
        )));
    }
    Ok(normal)
}

pub use crate::names::shown_text;

/// Why `name` cannot be added beside `existing` (their names, as stored): the same name, or
/// one that reads the same (TS #39's skeleton); `None` if it may.
pub fn name_clash<'a>(
    name: &str,
    existing: impl IntoIterator<Item = &'a str>,
    what: &str,
) -> Option<String> {
    let key = crate::names::name_key(name);
    let other = existing
        .into_iter()
        .find(|&e| e == name || crate::names::name_key(e) == key)?;
    let (name, other) = (
        croupier_host::text::escape(name),
        croupier_host::text::escape(other),
    );
    Some(if name == other {
        format!("a {what} named `{name}` exists")
    } else {
        format!(
            "the {what} name `{name}` reads the same as the existing {what} `{other}` \
             (Unicode TS #39 confusables): choose a name that looks different"
        )
    })
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
    add(arena, TokenFor::Team, name).await
}

/// Adds a worker (the organiser only): its token opens the worker API and nothing else.
pub async fn add_worker(arena: &Arena, name: &str) -> Result<TeamToken, AppError> {
    add(arena, TokenFor::Worker, name).await
}

/// The names of every team, as stored.
pub async fn team_names(arena: &Arena) -> Result<Vec<String>, AppError> {
    names(arena, TokenFor::Team).await
}

/// The names of every team or every worker, as stored.
async fn names(arena: &Arena, holder: TokenFor) -> Result<Vec<String>, AppError> {
    Ok(match holder {
        TokenFor::Team => arena
            .db
            .teams()
            .await?
            .into_iter()
            .map(|t| t.name)
            .collect(),
        TokenFor::Worker => arena
            .db
            .workers()
            .await?
            .into_iter()
            .map(|w| w.name)
            .collect(),
    })
}

/// Adds a team or a worker named `name` and issues its token.
async fn add(arena: &Arena, holder: TokenFor, name: &str) -> Result<TeamToken, AppError> {
    let what = holder.what();
    let normal = shown_text(name);
    let clash = |names: Vec<String>| {
        let names = names.iter().map(String::as_str);
        normal.as_deref().and_then(|n| name_clash(n, names, what))
    };
    // A look-alike of an existing name is named as such before any other refusal: "Аlpha"
    // beside "Alpha" mixes scripts too, but what the organiser needs to hear is the clash.
    if let Some(why) = clash(names(arena, holder).await?) {
        return Err(AppError::Conflict(why));
    }
    let name = checked_name(name, what)?;
    // The id is needed in the token, so insert with a placeholder hash, then set it. The
    // insert refuses a look-alike too (a unique key), for one added meanwhile.
    let hash = placeholder_hash()?;
    let added = match holder {
        TokenFor::Team => arena.db.add_team(&name, &hash).await?,
        TokenFor::Worker => arena.db.add_worker(&name, &hash).await?,
    };
    let Some(id) = added else {
        let why = clash(names(arena, holder).await?);
        return Err(AppError::Conflict(
            why.unwrap_or_else(|| format!("a {what} named `{name}` exists")),
        ));
    };
    issue(arena, holder, id, &name).await
}

/// The id of the team or worker named `name`, read in the stored form ([`shown_text`]), so
/// " Alpha " and "Ａlpha" find "Alpha"; a name with an invisible character is refused as it
/// is when a team is added.
async fn named(arena: &Arena, holder: TokenFor, name: &str) -> Result<i64, AppError> {
    let Some(name) = shown_text(name) else {
        return Err(checked_name(name, holder.what())
            .err()
            .unwrap_or_else(|| AppError::BadRequest(format!("no {} named that", holder.what()))));
    };
    let name = name.as_str();
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
