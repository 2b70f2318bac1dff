//! Checking an upload: stored under its SHA-256, loaded by the runtime's loader (size,
//! world, version, imports, a compile in a limited child process), linked and given a trial
//! run, then a short smoke match against the reference agent in the sandbox. The team
//! sees the verdict within seconds: the loader's exact message, or the smoke match's first
//! fault with its verdict and the agent's own log of that game.
//!
//! The stored file's name is its hash, never a name from the upload.

use crate::context::Arena;
use crate::store::db::states::VersionStage;
use croupier_host::adapters::Adapter;
use croupier_host::sandbox::LogLine;
use croupier_rules::Rules;
use croupier_tournament::runner::{self, Entrant, FaultPolicy, GameRecord, Plan, Schedule};
use serde::{Deserialize, Serialize};

pub use crate::store::agents::{is_sha256, sha256_hex, store_agent};

/// What the smoke match showed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Smoke {
    /// Games played.
    pub games: u64,
    /// Games the upload won, drew, lost.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// The upload's first fault: its verdict.
    pub verdict: Option<String>,
    /// The fault's message.
    pub fault: Option<String>,
    /// The upload's log lines in the game it faulted in (or the first game).
    pub log: Vec<LogLine>,
}

/// The verdict on an upload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Whether it may play.
    pub valid: bool,
    /// One line: the refusal, or the smoke match's score.
    pub message: String,
    /// The smoke match, if it ran.
    pub smoke: Option<Smoke>,
}

/// Checks the agent stored under `sha256` for the arena's game. `label` replaces the stored
/// path in messages (e.g. `version 3`), so a team sees its own upload named, not a server path.
/// `stage` is told as the check reaches `compiling` and `smoke` (the team watches them).
pub fn check<G: Adapter>(
    arena: &Arena,
    sha256: &str,
    label: &str,
    stage: &dyn Fn(VersionStage),
) -> Verdict {
    let path = arena.agent_path(sha256);
    let refuse = |message: String| Verdict {
        valid: false,
        message: message.replace(&path.display().to_string(), label),
        smoke: None,
    };
    let opts = match croupier_tournament::matches::setup::options::<G>(&arena.cfg.rules_args()) {
        Ok((_, o)) => o,
        Err(e) => return refuse(format!("the arena's rules: {e:#}")),
    };
    stage(VersionStage::Compiling);
    let loaded = match arena.runtime.load(&path) {
        Ok(l) => l,
        Err(e) => return refuse(e.to_string()),
    };
    if loaded.game != G::KIND {
        return refuse(format!(
            "{label}: a {} agent, but this arena plays {}",
            loaded.game.name(),
            G::NAME
        ));
    }
    let upload = match arena.factory::<G>(sha256, &opts) {
        Ok(f) => f,
        Err(e) => return refuse(e),
    };
    let reference = match arena.factory::<G>(&arena.reference, &opts) {
        Ok(f) => f,
        Err(e) => {
            return refuse(format!(
                "the reference agent cannot play (tell the organiser): {e}"
            ));
        }
    };
    let entrants = [
        Entrant {
            name: label.to_string(),
            args: String::new(),
            factory: upload,
        },
        Entrant {
            name: arena.cfg.ladder.reference.clone(),
            args: String::new(),
            factory: reference,
        },
    ];
    let schedule = Schedule::new(2, opts.seats(), arena.cfg.ladder.smoke_deals, true);
    let plan = Plan {
        options: &opts,
        entrants: &entrants,
        schedule: &schedule,
        // A fixed seed: the same upload always gets the same smoke games.
        seed: 0x5_30CE,
        policy: FaultPolicy::Forfeit,
        threads: 1,
    };
    let todo: Vec<u64> = (0..schedule.games()).collect();
    stage(VersionStage::Smoke);
    let mut records: Vec<GameRecord> = Vec::new();
    let mut sink = |r: GameRecord| -> anyhow::Result<()> {
        records.push(r);
        Ok(())
    };
    if let Err(e) = runner::run(&plan, &todo, &(), &mut sink) {
        return Verdict {
            valid: false,
            message: format!(
                "the server could not run the smoke match (not your agent's fault; upload again): {e:#}"
            ),
            smoke: None,
        };
    }
    let mut smoke = Smoke::default();
    for rec in &records {
        smoke.games += 1;
        let mine: Vec<usize> = (0..rec.seats.len())
            .filter(|&s| rec.seats[s] == 0)
            .collect();
        let result = mine.first().and_then(|&s| rec.results.get(s)).copied();
        match result {
            Some(croupier_rules::SeatResult::Win) => smoke.wins += 1,
            Some(croupier_rules::SeatResult::Draw) => smoke.draws += 1,
            _ => smoke.losses += 1,
        }
        let fault = rec
            .faults
            .iter()
            .find(|f| mine.contains(&(f.seat as usize)));
        if smoke.verdict.is_none()
            && let Some(f) = fault
        {
            smoke.verdict = Some(f.verdict.to_string());
            smoke.fault = Some(format!(
                "game {}: seat {}: {}",
                rec.index, f.seat, f.message
            ));
            smoke.log = seat_log(rec, f.seat);
        }
    }
    if smoke.verdict.is_none()
        && let Some(rec) = records.first()
        && let Some(&s) = rec.seats.iter().position(|&e| e == 0).as_ref()
    {
        smoke.log = seat_log(rec, s as u8);
    }
    match (&smoke.verdict, &smoke.fault) {
        (Some(v), Some(f)) => Verdict {
            valid: false,
            message: format!(
                "smoke match against {}: {v}: {f}",
                arena.cfg.ladder.reference
            ),
            smoke: Some(smoke),
        },
        _ => Verdict {
            valid: true,
            message: format!(
                "smoke match against {}: {} won, {} drawn, {} lost, no faults",
                arena.cfg.ladder.reference, smoke.wins, smoke.draws, smoke.losses
            ),
            smoke: Some(smoke),
        },
    }
}

fn seat_log(rec: &GameRecord, seat: u8) -> Vec<LogLine> {
    rec.logs
        .iter()
        .find(|(s, _)| *s == seat)
        .map(|(_, lines)| lines.clone())
        .unwrap_or_default()
}
