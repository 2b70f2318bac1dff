//! Every stored game as match logs (`croupier arena export`): for research after the
//! course, in the format `croupier match --log` writes and `croupier replay` reads.
//!
//! One run per done match, in match order: the match's header (its seed, deals, rules,
//! limits, its entrants as `team vN`, and `arena_match`, the arena's number of it), then
//! its games with a replay, in game order. A game whose replay the storage budget dropped
//! is left out and counted. The agents' logs are private to their teams, so they are
//! written only when asked for.

use crate::context::Arena;
use crate::queue::JobError;
use crate::store::db::matches::MatchRow;
use croupier_rules::Rules;
use croupier_tournament::matches::log::LogHeader;
use std::collections::HashMap;
use std::io::Write;

/// Why an export stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Reading the games.
    #[error(transparent)]
    Job(#[from] JobError),
    /// Reading the database.
    #[error(transparent)]
    Db(#[from] crate::store::db::DbError),
    /// Writing the log.
    #[error("writing the log: {0}")]
    Io(#[from] std::io::Error),
}

/// What an export wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Exported {
    /// Matches written (each a run with its header).
    pub matches: u64,
    /// Games written.
    pub games: u64,
    /// Games left out: the storage budget dropped their replays.
    pub pruned: u64,
}

/// Each entrant as `team vN`, as the pages name them; `known` keeps names across matches.
pub async fn agent_names(
    arena: &Arena,
    ids: &[i64],
    known: &mut HashMap<i64, String>,
) -> Result<Vec<String>, JobError> {
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(n) = known.get(id) {
            out.push(n.clone());
            continue;
        }
        let house = if *id < 0 {
            arena.db.house_agent_by_id(-id).await?
        } else {
            None
        };
        if let Some((name, _)) = house {
            let name = format!("{name} (house)");
            known.insert(*id, name.clone());
            out.push(name);
            continue;
        }
        let name = match arena.db.version(*id).await? {
            Some(v) => {
                let teams = arena.team_names([v.team_id]).await?;
                format!(
                    "{} v{}",
                    teams.get(&v.team_id).cloned().unwrap_or_default(),
                    v.number
                )
            }
            None => format!("version {id}"),
        };
        known.insert(*id, name.clone());
        out.push(name);
    }
    Ok(out)
}

/// The header of a stored match's log, as `croupier match` would write it for the match's
/// seed and deals under the arena's rules and limits.
pub fn header(arena: &Arena, m: &MatchRow, agents: Vec<String>) -> Result<LogHeader, JobError> {
    let (preset, options) = croupier_tournament::with_game!(arena.cfg.kind(), G => {
        let (p, o) = croupier_tournament::matches::setup::options::<G>(&arena.cfg.rules_args())
            .map_err(|e| JobError::Rules(format!("{e:#}")))?;
        (p, o.option_pairs())
    });
    Ok(LogHeader {
        kind: "match".into(),
        game: arena.cfg.kind(),
        rules: preset,
        options,
        seed: m.seed as u64,
        deals: m.deals as u64,
        duplicate: m.duplicate != 0,
        agents,
        limits: arena.cfg.limits.clone(),
        policy: croupier_tournament::runner::FaultPolicy::Forfeit,
        shard: None,
        arena_match: Some(m.id as u64),
    })
}

/// Writes every done match's games to `out`, with the agents' logs if `logs`.
pub async fn export(
    arena: &Arena,
    out: &mut (dyn Write + Send),
    logs: bool,
) -> Result<Exported, ExportError> {
    let mut done = Exported::default();
    let mut names = HashMap::new();
    for m in arena.db.done_matches().await? {
        let rows = arena.db.games_of_match(m.id).await?;
        let (kept, pruned): (Vec<_>, Vec<_>) = rows.into_iter().partition(|r| !r.replay_pruned());
        done.pruned += pruned.len() as u64;
        if kept.is_empty() {
            continue;
        }
        let info = crate::queue::jobs::match_info_of(arena, &m).await?;
        let records = info.records(&arena.cfg, &kept)?;
        let agents = agent_names(arena, &m.entrant_ids()?, &mut names).await?;
        let h = header(arena, &m, agents)?;
        serde_json::to_writer(&mut *out, &h).map_err(std::io::Error::from)?;
        out.write_all(b"\n")?;
        for (row, mut rec) in kept.iter().zip(records) {
            if logs && let Some(l) = &row.logs {
                rec.logs = serde_json::from_str(l).map_err(|e| {
                    JobError::Db(crate::store::db::DbError::Corrupt(format!(
                        "match {} game {}: the stored logs: {e}",
                        m.id, row.game_index
                    )))
                })?;
            }
            let line =
                croupier_tournament::matches::log::game_line(&rec).map_err(std::io::Error::from)?;
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
            done.games += 1;
        }
        done.matches += 1;
    }
    Ok(done)
}
