//! What the pages and the JSON API change, done once for both: uploads (rate, size cap,
//! store, check), new teams and workers with their tokens, a new token for a leaked one,
//! removing a worker, and taking a team out of the ladder and back (those in
//! `manage/accounts.rs`).
//!
//! Tokens: only their SHA-256 is stored, and every request looks its token up, so a new
//! token or a removed worker locks the old token out at the next request, with no cache to
//! wait out. The pages ask for a tick before doing either (a misplaced click would lock a
//! team out until the organiser hands it the new token); a page elsewhere, even on the same
//! site, cannot do it at all ([`crate::web::session`]: this origin and the session's CSRF token).
//!
//! A withdrawn team (a student who left the course, a team disqualified) plays no new match,
//! leaves the ranking and cannot upload; its games stay, since other teams' ratings were
//! earned against them, and its pages stay readable. The reason is the organiser's text, at
//! most [`MAX_REASON_CHARS`] characters, shown (escaped) on the leaderboard and team page.
//!
//! A spar ([`spar`]) is a practice match a team asks for against another team or a house
//! agent: unrated, played before ladder matches, capped per team per hour.
//!
//! Limits and why: an upload's size is capped before its body is buffered (a hostile client
//! cannot make the server hold more than the cap), uploads per team per hour are capped and
//! counted from the moment they are admitted ([`begin_upload`]), one team has at most
//! `uploads.in_flight` uploads being sent or checked, and at most two checks run at once
//! (each compiles untrusted code in a limited child process), one per team, so that a team's
//! slow uploads wait behind each other and not in front of another team's ([`crate::turns`]).

use crate::context::Arena;
use crate::store::db::states::{MatchKind, VersionStage, VersionStatus};
use crate::validate;
use crate::web::errors::AppError;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

mod accounts;
pub use accounts::{
    MAX_REASON_CHARS, NewTeam, Standing, TeamToken, Withdrawal, add_team, add_worker, name_clash,
    new_team_token, new_worker_token, reinstate_team, remove_worker, shown_text, team_name,
    team_named, team_names, withdraw_team, worker_named,
};

/// An upload under way, counted against its team's hourly cap from the moment it was
/// accepted for reading ([`begin_upload`]) and against its in-flight cap until it is answered.
/// Dropping it (answered, refused, or the client gone) gives both back; an upload that was
/// stored counts from then on through its stored version.
pub struct UploadSlot {
    arena: Arc<Arena>,
    team: i64,
    stored: bool,
}

impl UploadSlot {
    /// The upload is now a stored version, which the hourly count reads from the database.
    fn stored(&mut self) {
        if !self.stored {
            self.stored = true;
            if let Ok(mut open) = self.arena.uploads_open.lock()
                && let Some(e) = open.get_mut(&self.team)
            {
                e.0 = e.0.saturating_sub(1);
            }
        }
    }
}

impl Drop for UploadSlot {
    fn drop(&mut self) {
        if let Ok(mut open) = self.arena.uploads_open.lock()
            && let Some(e) = open.get_mut(&self.team)
        {
            if !self.stored {
                e.0 = e.0.saturating_sub(1);
            }
            e.1 = e.1.saturating_sub(1);
            if *e == (0, 0) {
                open.remove(&self.team);
            }
        }
    }
}

/// Admits an upload before its body is read: refused (409) once the arena is frozen for its
/// final or `final.deadline` has passed, (403) for a withdrawn team, and (429) past the team's hourly cap, counting the
/// uploads still being read, or past its in-flight cap. The check and the count are one step
/// under [`Arena::upload_gate`], so uploads sent at once are counted one after another.
pub async fn begin_upload(arena: &Arc<Arena>, team: i64) -> Result<UploadSlot, AppError> {
    if let Some(why) = arena.uploads_closed().await? {
        return Err(AppError::Conflict(why));
    }
    check_active(arena, team).await?;
    let _gate = arena.upload_gate.lock().await;
    let now = crate::now_ms();
    let stored = arena.db.uploads_since(team, now - HOUR_MS).await?;
    let (reading, open) = arena
        .uploads_open
        .lock()
        .map(|m| m.get(&team).copied().unwrap_or((0, 0)))
        .map_err(|e| AppError::Internal(e.to_string()))?;
    let caps = &arena.cfg.uploads;
    if open >= caps.in_flight {
        return Err(AppError::TooMany {
            message: format!(
                "{open} uploads of this team are still being sent or checked (the cap is {}): wait for their verdicts",
                caps.in_flight
            ),
            retry_after: 10,
        });
    }
    let cap = caps.per_hour as usize;
    if stored.len() + reading as usize >= cap {
        // The oldest stored upload of the hour leaves it first; with only uploads still being
        // read in the way, a minute is a fair guess.
        let wait = stored
            .len()
            .checked_sub(cap.saturating_sub(reading as usize))
            .and_then(|i| stored.get(i))
            .map_or(60, |&oldest| seconds_until_an_hour_after(oldest, now));
        return Err(AppError::TooMany {
            message: format!("{cap} submissions per hour: try again in {wait} s"),
            retry_after: wait,
        });
    }
    let mut m = arena
        .uploads_open
        .lock()
        .map_err(|e| AppError::Internal(e.to_string()))?;
    let e = m.entry(team).or_insert((0, 0));
    *e = (e.0 + 1, e.1 + 1);
    Ok(UploadSlot {
        arena: arena.clone(),
        team,
        stored: false,
    })
}

/// An hour in ms: the window of the hourly caps.
const HOUR_MS: i64 = 3_600_000;

/// Whole seconds (at least one) until an hour has passed since `oldest` (ms): when the oldest
/// upload or spar of the hour stops counting against an hourly cap (`Retry-After`).
fn seconds_until_an_hour_after(oldest: i64, now: i64) -> u64 {
    ((oldest + HOUR_MS - now).max(0) as u64)
        .div_ceil(1000)
        .max(1)
}

/// Uploads from a team the organiser withdrew are refused before their body is read.
pub async fn check_active(arena: &Arena, team: i64) -> Result<(), AppError> {
    let t = arena
        .db
        .team(team)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("no team {team}")))?;
    match t.withdrawn {
        None => Ok(()),
        Some(why) => Err(AppError::Forbidden(format!(
            "team `{}` was withdrawn from the ladder by the organiser{}: uploads are closed to it",
            t.name,
            if why.is_empty() {
                String::new()
            } else {
                format!(" ({why})")
            }
        ))),
    }
}

/// What a submission gives back.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SubmitJson {
    /// The team.
    pub team: i64,
    /// The new version's number.
    pub version: i64,
    /// SHA-256 of the upload.
    pub sha256: String,
    /// The verdict.
    pub verdict: validate::Verdict,
    /// The file was byte for byte the team's latest version: no version was added, and
    /// `version` is the one kept (with its rating).
    #[serde(default)]
    pub unchanged: bool,
}

/// An upload once stored: the team's latest version again, or a new version to check.
pub enum Stored {
    /// Byte for byte the team's latest version: nothing was added ([`SubmitJson::unchanged`]).
    Same(SubmitJson),
    /// A new version, `queued` for its check.
    New(NewVersion),
}

/// A new version and the upload's place in its team's in-flight cap, held until its verdict.
pub struct NewVersion {
    slot: UploadSlot,
    /// The version.
    pub v: Checking,
}

/// A version to check.
#[derive(Clone, Debug)]
pub struct Checking {
    /// Its id.
    pub id: i64,
    /// Its team.
    pub team: i64,
    /// Its number within the team.
    pub number: i64,
    /// SHA-256 of the file.
    pub sha256: String,
}

impl From<&crate::store::db::versions::VersionRow> for Checking {
    fn from(v: &crate::store::db::versions::VersionRow) -> Checking {
        Checking {
            id: v.id,
            team: v.team_id,
            number: v.number,
            sha256: v.sha256.clone(),
        }
    }
}

impl NewVersion {
    /// Starts the check as a task of its own, which keeps the upload's in-flight place until
    /// the verdict: a client that hangs up (or a form answered at once) leaves the check to
    /// finish, never a version stuck half-checked.
    pub fn check(
        self,
        arena: &Arc<Arena>,
    ) -> tokio::task::JoinHandle<Result<validate::Verdict, AppError>> {
        let a = arena.clone();
        tokio::spawn(async move {
            let NewVersion { slot, v } = self;
            let verdict = check_version(&a, v).await;
            drop(slot);
            verdict
        })
    }
}

/// Stores and records an upload for `team` (the API and the form share this). A file
/// identical to the team's latest version is not stored again: that version and its rating
/// stay. A freeze that began while the body was read refuses it (409).
pub async fn store(
    arena: &Arc<Arena>,
    mut slot: UploadSlot,
    bytes: Vec<u8>,
) -> Result<Stored, AppError> {
    let team = slot.team;
    if bytes.is_empty() {
        return Err(AppError::BadRequest("the upload is empty".into()));
    }
    let dir = arena.dir.join("agents");
    let b = bytes;
    let len = b.len() as i64;
    let sha = tokio::task::spawn_blocking(move || validate::store_agent(&dir, &b))
        .await
        .map_err(|e| AppError::Internal(e.to_string()))?
        .map_err(|e| AppError::Internal(format!("storing an upload: {e}")))?;
    // The same file as the version that plays now: that version stays, with its rating.
    // Only the latest: a file identical to an older version is a change of what plays.
    if let Some(v) = arena.db.latest_version(team).await?
        && v.sha256 == sha
    {
        return same_as(team, v).map(Stored::Same);
    }
    if let Some(why) = arena.past_deadline() {
        return Err(AppError::Conflict(format!(
            "{why}, while this file was being sent"
        )));
    }
    // Under the upload gate, like the count in `begin_upload`: the version's row and the end
    // of its "being read" count change together. Without it, a count could read the database
    // just before this row and the in-memory count just after, and miss this upload in both:
    // twenty uploads sent at once under a cap of twelve stored thirteen, about one run in seven.
    let gate = arena.upload_gate.lock().await;
    // The insert checks the deadline, the freeze and the withdrawal again in its own
    // statement: the checks above could pass a moment before any of them.
    let deadline = arena.cfg.final_.deadline_ms();
    let Some((vid, number)) = arena
        .db
        .add_version_unless_frozen(team, &sha, len, deadline)
        .await?
    else {
        drop(gate);
        if let Some(why) = arena.past_deadline() {
            return Err(AppError::Conflict(format!(
                "{why}, while this file was being sent"
            )));
        }
        check_active(arena, team).await?;
        arena
            .frozen
            .store(true, std::sync::atomic::Ordering::Relaxed);
        return Err(AppError::Conflict(
            "submissions are closed: the final began while this file was being sent".into(),
        ));
    };
    slot.stored();
    drop(gate);
    let v = Checking {
        id: vid,
        team,
        number,
        sha256: sha,
    };
    announce(arena, &v, VersionStatus::Queued, "");
    Ok(Stored::New(NewVersion { slot, v }))
}

/// Stores, records and checks an upload, and answers with its verdict (the API, and
/// `croupier arena` commands that upload).
pub async fn submit(
    arena: &Arc<Arena>,
    slot: UploadSlot,
    bytes: Vec<u8>,
) -> Result<SubmitJson, AppError> {
    match store(arena, slot, bytes).await? {
        Stored::Same(j) => Ok(j),
        Stored::New(n) => {
            let v = n.v.clone();
            let verdict = n
                .check(arena)
                .await
                .map_err(|e| AppError::Internal(e.to_string()))??;
            Ok(SubmitJson {
                team: v.team,
                version: v.number,
                sha256: v.sha256,
                verdict,
                unchanged: false,
            })
        }
    }
}

/// Tells every live page and `croupier submit` where an upload's check is.
fn announce(arena: &Arena, v: &Checking, state: VersionStatus, message: &str) {
    arena.events.send(
        "version",
        &crate::events::VersionEvent {
            team: v.team,
            version: v.number,
            sha256: v.sha256.clone(),
            state,
            message: message.to_string(),
        },
    );
}

impl SubmitJson {
    /// 201 for a new valid version, 200 for a file the team had uploaded (nothing new was
    /// made), 422 for a refused one.
    pub fn status(&self) -> axum::http::StatusCode {
        use axum::http::StatusCode;
        match (self.verdict.valid, self.unchanged) {
            (false, _) => StatusCode::UNPROCESSABLE_ENTITY,
            (true, true) => StatusCode::OK,
            (true, false) => StatusCode::CREATED,
        }
    }
}

/// The answer to an upload identical to the team's version `v`: that version's verdict.
fn same_as(team: i64, v: crate::store::db::versions::VersionRow) -> Result<SubmitJson, AppError> {
    let valid = match v.status {
        VersionStatus::Valid => true,
        VersionStatus::Refused => false,
        VersionStatus::Checking
        | VersionStatus::Queued
        | VersionStatus::Compiling
        | VersionStatus::Smoke => {
            return Err(AppError::Conflict(format!(
                "this file is identical to version {}, which is still being checked",
                v.number
            )));
        }
    };
    let smoke = v
        .smoke
        .as_deref()
        .and_then(|s| serde_json::from_str(s).ok());
    Ok(SubmitJson {
        team,
        version: v.number,
        sha256: v.sha256,
        verdict: validate::Verdict {
            valid,
            message: if valid {
                format!(
                    "identical to version {}, which is kept, with its rating: {}",
                    v.number, v.message
                )
            } else {
                format!(
                    "identical to version {}, refused before: {}",
                    v.number, v.message
                )
            },
            smoke,
        },
        unchanged: true,
    })
}

/// Checks a stored version (`queued`) and records its verdict; at most two checks run at
/// once, one per team ([`crate::turns`]: a team's uploads wait behind its own). Each stage (`compiling`, `smoke`) is stored as the version's status as it is
/// reached, so that every server's pages show it, and sent as a `version` event.
pub async fn check_version(arena: &Arc<Arena>, v: Checking) -> Result<validate::Verdict, AppError> {
    let _turn = arena.checks.take(v.team).await;
    let a = arena.clone();
    let label = format!("version {}", v.number);
    let handle = tokio::runtime::Handle::current();
    let checking = v.clone();
    let verdict = tokio::task::spawn_blocking(move || {
        let stage = |s: VersionStage| {
            // A stage that cannot be stored is still announced: the verdict is what counts.
            let _ = handle.block_on(a.db.set_version_stage(checking.id, s));
            announce(&a, &checking, s.into(), "");
        };
        croupier_tournament::with_game!(a.cfg.kind(), G => validate::check::<G>(&a, &checking.sha256, &label, &stage))
    })
    .await
    .map_err(|e| AppError::Internal(e.to_string()))?;
    let smoke = verdict
        .smoke
        .as_ref()
        .and_then(|s| serde_json::to_string(s).ok());
    let status = if verdict.valid {
        VersionStatus::Valid
    } else {
        VersionStatus::Refused
    };
    arena
        .db
        .set_version_status(v.id, status, &verdict.message, smoke.as_deref())
        .await?;
    announce(arena, &v, status, &verdict.message);
    arena
        .verdicts
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    arena.changed.notify_waiters();
    Ok(verdict)
}

/// Reads a body up to `cap` bytes; 413 past it, without buffering more than the cap.
pub async fn read_capped(
    body: axum::body::Body,
    cap: u64,
    idle_seconds: u32,
) -> Result<Vec<u8>, AppError> {
    match axum::body::to_bytes(body, cap as usize).await {
        Ok(b) => Ok(b.to_vec()),
        Err(e) if crate::web::errors::stalled(&e) => {
            Err(crate::web::errors::stalled_upload(idle_seconds))
        }
        Err(e) => {
            let too_large = std::error::Error::source(&e)
                .is_some_and(|s| s.is::<http_body_util::LengthLimitError>())
                || e.to_string().contains("length limit");
            if too_large {
                Err(AppError::TooLarge(cap))
            } else {
                Err(AppError::BadRequest(format!("reading the upload: {e}")))
            }
        }
    }
}

/// What a team enters in the final ([`set_entry`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Entry {
    /// The team's id.
    pub team: i64,
    /// The version number it chose; `None`: its latest valid version.
    pub version: Option<i64>,
}

/// Team `team` chooses version `number` (one of its valid ones) for the final, or its latest
/// valid version with `None`. Refused with 409 once the arena is frozen for the final, and
/// 422 for a version that is not one of the team's valid ones.
pub async fn set_entry(arena: &Arena, team: i64, number: Option<i64>) -> Result<Entry, AppError> {
    if let Some(n) = number {
        let versions = arena.db.versions_of(team).await?;
        match versions.iter().find(|v| v.number == n) {
            Some(v) if v.status == VersionStatus::Valid => {}
            Some(v) => {
                return Err(AppError::Unprocessable(format!(
                    "version {n} is {}: only a valid version can enter the final",
                    v.status
                )));
            }
            None => {
                return Err(AppError::Unprocessable(format!(
                    "this team has no version {n} (it has {})",
                    versions.len()
                )));
            }
        }
    }
    if arena.frozen_now().await? || !arena.db.set_final_entry(team, number).await? {
        return Err(AppError::Conflict(
            "the final has begun: its entries are fixed".into(),
        ));
    }
    Ok(Entry {
        team,
        version: number,
    })
}

/// The body of `POST /api/team/spar`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SparRequest {
    /// Another team's name, or a house agent's (`durak/cheapest`).
    pub against: String,
}

/// A spar match asked for.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Sparring {
    /// The match.
    #[serde(rename = "match")]
    pub match_id: i64,
    /// The team's version that plays.
    pub version: i64,
    /// Who it plays against (`beta v3`, `durak/cheapest (house)`).
    pub against: String,
    /// The match's page, where its games appear as they are played.
    pub url: String,
}

/// Queues a practice match of `team`'s latest valid version against `against`: another
/// team's latest valid version, or a house agent. Unrated, played before ladder matches, at
/// most `spar.per_hour` asked per team in any hour (429 beyond, counted as asked); refused
/// while the arena is frozen for its final (409) and for a withdrawn team (403).
pub async fn spar(arena: &Arena, team: i64, against: &str) -> Result<Sparring, AppError> {
    if arena.is_frozen() {
        return Err(AppError::Conflict(NO_SPAR_IN_FINAL.into()));
    }
    check_active(arena, team).await?;
    let latest_valid = |versions: Vec<crate::store::db::versions::VersionRow>| {
        versions
            .into_iter()
            .find(|v| v.status == VersionStatus::Valid)
    };
    let Some(mine) = latest_valid(arena.db.versions_of(team).await?) else {
        return Err(AppError::Conflict(
            "your team has no valid version to spar with yet: upload one first".into(),
        ));
    };
    let against = shown_text(against).unwrap_or_else(|| against.to_string());
    let against = against.as_str();
    let (them, name) = if let Some(h) = arena.house.iter().find(|h| h.name == against) {
        (-h.id, format!("{} (house)", h.name))
    } else {
        let other = match team_named(arena, against).await {
            Ok(id) => id,
            Err(AppError::NotFound(_)) => {
                let house: Vec<&str> = arena.house.iter().map(|h| h.name.as_str()).collect();
                return Err(AppError::NotFound(format!(
                    "no team or house agent `{against}` (the house agents: {})",
                    house.join(", ")
                )));
            }
            Err(e) => return Err(e),
        };
        if other == team {
            return Err(AppError::BadRequest(SPAR_NOT_SELF.into()));
        }
        let t = arena
            .db
            .team(other)
            .await?
            .ok_or_else(|| AppError::NotFound(format!("no team {other}")))?;
        if t.withdrawn.is_some() {
            return Err(AppError::Conflict(format!(
                "team `{}` was withdrawn from the ladder",
                t.name
            )));
        }
        let Some(v) = latest_valid(arena.db.versions_of(other).await?) else {
            return Err(AppError::Conflict(format!(
                "team `{}` has no valid version yet",
                t.name
            )));
        };
        (v.id, format!("{} v{}", t.name, v.number))
    };
    let now = crate::now_ms();
    let cap = arena.cfg.spar.per_hour;
    // One request at a time past the count: on PostgreSQL two statements at once could both
    // read the count below the cap.
    let _gate = arena.upload_gate.lock().await;
    let m = crate::store::db::matches::NewMatch {
        kind: MatchKind::Spar,
        // From the master seed and the moment it was asked; the seed is stored with the
        // match, so its games replay exactly.
        seed: crate::queue::ladder::match_seed(arena.cfg.ladder.seed ^ SPAR_SALT, now as u64),
        deals: arena.cfg.spar.deals,
        duplicate: true,
        entrants: vec![mine.id, them],
    };
    let Some(id) = arena.db.queue_spar(team, cap, now - HOUR_MS, &m).await? else {
        if arena.db.meta("frozen").await?.is_some() {
            return Err(AppError::Conflict(NO_SPAR_IN_FINAL.into()));
        }
        // The insert refuses a withdrawn side (or a spar against oneself) too, for a
        // withdrawal that landed after the checks above.
        check_active(arena, team).await?;
        if them > 0 {
            let other = arena.db.version(them).await?.map(|v| v.team_id);
            if let Some(t) = other.and_then(|o| (o != team).then_some(o)) {
                if let Some(row) = arena.db.team(t).await?.filter(|r| r.withdrawn.is_some()) {
                    return Err(AppError::Conflict(format!(
                        "team `{}` was withdrawn from the ladder",
                        row.name
                    )));
                }
            } else {
                return Err(AppError::BadRequest(SPAR_NOT_SELF.into()));
            }
        }
        let asked = arena.db.spars_since(team, now - HOUR_MS).await?;
        let wait = asked
            .first()
            .map_or(60, |&oldest| seconds_until_an_hour_after(oldest, now));
        return Err(AppError::TooMany {
            message: format!("{cap} spar matches per hour: try again in {wait} s"),
            retry_after: wait,
        });
    };
    arena.queued.notify_waiters();
    Ok(Sparring {
        match_id: id,
        version: mine.number,
        against: name,
        url: format!("/matches/{id}"),
    })
}

/// Why a team cannot spar against itself.
const SPAR_NOT_SELF: &str = "a spar is against another team or a house agent";

/// Why a spar is refused while the final is played.
const NO_SPAR_IN_FINAL: &str = "the final is being played: no spar matches until it is over";

/// Mixed into the master seed for spars, so a spar never replays a ladder match's deals.
const SPAR_SALT: u64 = 0x5BA2_5BA2_5BA2_5BA2;
