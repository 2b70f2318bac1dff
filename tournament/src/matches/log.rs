//! The log format and its I/O: a run is a header line ([`LogHeader`]) and one line per
//! game ([`game_line`]); [`log_header`] says what a match writes, [`write_runs`] writes runs
//! as a match would, and [`read_log`] reads a log back, run by run.

use super::error::{LogError, OptionsError};
use super::setup::{MatchArgs, options};
use crate::runner::{FaultPolicy, GameRecord};
use crate::shard::ShardHeader;
use croupier_host::adapters::Adapter;
use croupier_host::limits::Limits;
use croupier_host::loader::GameKind;
use croupier_rules::Rules;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;

/// The first line of a run in a log file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogHeader {
    /// The line type: always `match` (game lines are `game`).
    #[serde(rename = "type")]
    pub kind: String,
    /// The game played.
    pub game: GameKind,
    /// The preset the options start from.
    pub rules: String,
    /// Every rule option in force, as (name, value).
    pub options: Vec<(String, String)>,
    /// The master seed.
    pub seed: u64,
    /// Deals to play (`--games`).
    pub deals: u64,
    /// Whether every deal is played once per seat rotation.
    pub duplicate: bool,
    /// The agent arguments as given, in entrant order.
    pub agents: Vec<String>,
    /// The resource limits agents ran under.
    pub limits: Limits,
    /// What happens when an agent faults.
    pub policy: FaultPolicy,
    /// Only in a shard's log (`--shard K/N`): which part this is, and what `merge` checks
    /// the parts against each other with. Absent otherwise, so unsharded logs are unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardHeader>,
    /// Only in a log an arena wrote (`croupier arena export`, a game's log from the arena's
    /// API): the arena's number of the match, which `croupier replay --match` picks by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena_match: Option<u64>,
}

/// A game's line in a log file (without the newline): what `read_log` reads back. A server
/// that hands out single games writes them this way.
pub fn game_line(rec: &GameRecord) -> serde_json::Result<String> {
    serde_json::to_string(&LogGame {
        kind: "game".into(),
        record: rec.clone(),
    })
}

/// A game's line as it is written and read.
#[derive(Serialize, Deserialize)]
pub(crate) struct LogGame {
    #[serde(rename = "type")]
    pub(crate) kind: String,
    #[serde(flatten)]
    pub(crate) record: GameRecord,
}

/// The header a match writes to its log, without running it: the same as
/// `croupier match` (and each pairing of `croupier tournament`) writes for these arguments.
pub fn log_header<G: Adapter>(
    limits: &Limits,
    args: &MatchArgs,
) -> Result<LogHeader, OptionsError> {
    let (preset, opts) = options::<G>(&args.rules)?;
    Ok(LogHeader {
        kind: "match".into(),
        game: G::KIND,
        rules: preset,
        options: opts.option_pairs(),
        seed: args.seed,
        deals: args.games,
        duplicate: args.duplicate,
        agents: args.agents.clone(),
        limits: limits.clone(),
        policy: args.policy,
        shard: None,
        arena_match: None,
    })
}

/// Writes runs exactly as a run writes its log: per run, its header line and one line per
/// game. `merge` and the arena's final (played by workers) write their logs with it.
pub fn write_runs(
    runs: &[(LogHeader, Vec<GameRecord>)],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    for (header, records) in runs {
        serde_json::to_writer(&mut *out, header)?;
        out.write_all(b"\n")?;
        for rec in records {
            out.write_all(game_line(rec)?.as_bytes())?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

/// The header and records of a log file, grouped by run.
pub fn read_log(path: &Path) -> Result<Vec<(LogHeader, Vec<GameRecord>)>, LogError> {
    let text = std::fs::read_to_string(path).map_err(|error| LogError::Read {
        path: path.into(),
        error,
    })?;
    let at = || path.to_path_buf();
    let mut runs: Vec<(LogHeader, Vec<GameRecord>)> = Vec::new();
    for (no, content) in text.lines().enumerate() {
        if content.trim().is_empty() {
            continue;
        }
        let line = no + 1;
        let v: serde_json::Value =
            serde_json::from_str(content).map_err(|error| LogError::NotJson {
                path: at(),
                line,
                error,
            })?;
        match v.get("type").and_then(|t| t.as_str()) {
            Some("match") => {
                let h: LogHeader = serde_json::from_value(v).map_err(|error| LogError::Header {
                    path: at(),
                    line,
                    error,
                })?;
                runs.push((h, Vec::new()));
            }
            Some("game") => {
                let g: LogGame = serde_json::from_value(v).map_err(|error| LogError::Game {
                    path: at(),
                    line,
                    error,
                })?;
                match runs.last_mut() {
                    Some(run) => run.1.push(g.record),
                    None => return Err(LogError::Orphan { path: at(), line }),
                }
            }
            _ => return Err(LogError::LineType { path: at(), line }),
        }
    }
    if runs.is_empty() {
        return Err(LogError::Empty { path: at() });
    }
    Ok(runs)
}
