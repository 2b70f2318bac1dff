//! The storage budget: what the database keeps of played games (`[storage]` in arena.toml).
//!
//! Threat model: an agent controls what it logs, and a fast ladder plays thousands of games
//! a minute. Three short log lines a decision cost 3.3 KB a game, about 20 GB an hour for
//! one chatty team; a silent agent's game costs about 0.35 KB. Nothing an agent does may
//! make the database grow without a bound the organiser set. So:
//! - a game's logs are cut to `log_bytes_per_game` per agent when the game is stored
//!   ([`keep_logs`]), whatever the runtime allowed while it played;
//! - the retention rule ([`prune`]): a done match older than `keep_hours` loses its replays
//!   and logs unless it is one in `keep_one_in` (a sample, by match id) or a final;
//! - the budget: while the games' estimated size ([`Usage::bytes`]) is over `budget_mb`,
//!   the oldest logs go, then the oldest replays (finals' never);
//! - the results (one row a seat) are what the ratings are made of and are never dropped.
//!   If they alone fill the budget, the ladder pauses ([`Usage::full`]) until the organiser
//!   raises the budget: the disk never fills behind the organiser's back.
//!
//! - the pace ([`pace`]): the ladder stores rated games no faster than what is left of the
//!   budget spread over the time left until `final.deadline` (or `plan_days`), so a fast
//!   ladder does not fill the budget on the first day and pause for the rest of the course.
//!
//! The server applies this at start and every `prune_seconds`; `croupier arena prune DIR`
//! applies it at once. Each step is a short statement on a bounded range, so the ladder's
//! writes wait for at most one of them.

use crate::config::Storage;
use crate::store::db::retention::GameBytes;
use crate::store::db::{Db, DbError};
use croupier_host::limits::LOG_LINE_OVERHEAD;
use croupier_host::sandbox::LogLine;
use serde::Serialize;

/// Bytes one stored game costs beside its replay and logs (its row and its key in the
/// table's index), measured on SQLite: see docs/scale.md.
pub const GAME_ROW_BYTES: i64 = 40;

/// Bytes one seat's result costs (its row and two indexes), measured likewise.
pub const SEAT_ROW_BYTES: i64 = 60;

/// Matches the retention rule handles in one statement; games dropped in one statement by
/// the budget.
const RULE_CHUNK: i64 = 256;
const BUDGET_CHUNK: i64 = 2048;

/// A game's logs as stored: each agent's lines in order until `cap` bytes (each line
/// charged its text, its level and [`LOG_LINE_OVERHEAD`]), then one line that says what
/// was cut. An agent's log is never moved into another's budget.
pub fn keep_logs(logs: &[(u8, Vec<LogLine>)], cap: u32) -> Vec<(u8, Vec<LogLine>)> {
    let cap = cap as usize;
    logs.iter()
        .map(|(seat, lines)| {
            let mut used = 0usize;
            let mut kept = Vec::new();
            let mut cut = 0usize;
            let mut cut_bytes = 0usize;
            for l in lines {
                let cost = l.text.len() + l.level.len() + LOG_LINE_OVERHEAD;
                if cut == 0 && used + cost <= cap {
                    used += cost;
                    kept.push(l.clone());
                } else {
                    cut += 1;
                    cut_bytes += l.text.len();
                }
            }
            if cut > 0 {
                kept.push(LogLine {
                    level: "warn".into(),
                    text: format!(
                        "[arena] {cut} more lines ({cut_bytes} bytes) not kept: storage.log_bytes_per_game is {cap}"
                    ),
                    at: lines.last().and_then(|l| l.at),
                });
            }
            (*seat, kept)
        })
        .collect()
}

/// What the stored games take against the budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// The games' estimated size: replays and logs as stored, plus [`GAME_ROW_BYTES`] a
    /// game and [`SEAT_ROW_BYTES`] a seat.
    pub bytes: i64,
    /// The results' part of it (rows of games and seats), which is never dropped.
    pub results: i64,
    /// The budget, `storage.budget_mb` in bytes.
    pub budget: i64,
    /// The database's size on disk ([`Db::file_bytes`]): freed space is reused by new
    /// games, so it stops growing rather than shrinks.
    pub file_bytes: i64,
    /// What the games hold.
    pub games: GameBytes,
    /// The results alone fill the budget: the ladder pauses.
    pub full: bool,
}

impl Usage {
    fn of(g: GameBytes, budget: i64, file_bytes: i64) -> Usage {
        let results = g.games * GAME_ROW_BYTES + g.seats * SEAT_ROW_BYTES;
        let bytes = results + g.replays + g.logs;
        Usage {
            bytes,
            results,
            budget,
            file_bytes,
            games: g,
            full: results >= budget,
        }
    }
}

/// What one application of the budget did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Pruned {
    /// Games whose replays and logs the retention rule dropped.
    pub by_rule: u64,
    /// Games whose logs the budget dropped.
    pub logs: u64,
    /// Games whose replays the budget dropped.
    pub replays: u64,
    /// Bytes of replays and logs freed by the budget.
    pub freed: i64,
    /// The usage afterwards.
    pub after: Usage,
    /// Rated games a second the ladder may store so that the results fit the budget until
    /// the plan's end ([`pace`]); none when it plays at full speed.
    pub pace: Option<f64>,
    /// When it ran.
    pub at_ms: i64,
}

/// Results bytes a game is taken to cost before any is stored: two-seat games are 160,
/// four-seat ones 280.
const FIRST_GAME_BYTES: i64 = GAME_ROW_BYTES + 4 * SEAT_ROW_BYTES;

/// The share of the budget the pace plans the results to take by the plan's end: the rest
/// holds the replays and logs of the latest games (two days of a chatty agent's logs at the
/// default pace, docs/scale.md).
const RESULTS_SHARE: (i64, i64) = (3, 4);

/// Rated games a second that fit what is left of the results' share of the budget into the
/// time until `end_ms`, at the results' measured cost per game; `None` without an end or
/// past it.
pub fn pace(u: &Usage, now: i64, end_ms: Option<i64>) -> Option<f64> {
    let end = end_ms.filter(|e| *e > now)?;
    let per_game = if u.games.games > 0 {
        (u.results as f64 / u.games.games as f64).max(1.0)
    } else {
        FIRST_GAME_BYTES as f64
    };
    let share = u.budget / RESULTS_SHARE.1 * RESULTS_SHARE.0;
    let left = (share - u.results).max(0) as f64;
    Some(left / per_game / ((end - now) as f64 / 1000.0))
}

/// When the budget's plan ends: none with `plan_days = 0` (full speed), else
/// `final.deadline` if it is still ahead, else `plan_days` after the first pass (kept in
/// `meta`).
pub async fn plan_end(
    db: &Db,
    cfg: &Storage,
    deadline_ms: Option<i64>,
    now: i64,
) -> Result<Option<i64>, DbError> {
    if cfg.plan_days == 0 {
        return Ok(None);
    }
    if let Some(d) = deadline_ms.filter(|d| *d > now) {
        return Ok(Some(d));
    }
    let start: i64 = db
        .meta_or_insert(PLAN_START, &now.to_string())
        .await?
        .parse()
        .unwrap_or(now);
    Ok(Some(start + i64::from(cfg.plan_days) * 86_400_000))
}

/// The meta key of when the budget's plan started.
const PLAN_START: &str = "storage_plan_start_ms";

/// The pace as of now, from a count of the stored games (before the ladder starts, and
/// after each pass).
pub async fn pace_now(
    db: &Db,
    cfg: &Storage,
    deadline_ms: Option<i64>,
    now: i64,
) -> Result<Option<f64>, DbError> {
    let u = Usage::of(db.game_bytes().await?, budget_bytes(cfg), 0);
    Ok(pace(&u, now, plan_end(db, cfg, deadline_ms, now).await?))
}

fn budget_bytes(cfg: &Storage) -> i64 {
    i64::try_from(cfg.budget_mb)
        .unwrap_or(i64::MAX)
        .saturating_mul(1 << 20)
}

/// The meta key of the match below which the retention rule has been applied.
const RULE_UPTO: &str = "storage_rule_upto";

/// Applies the retention rule and then the budget, as of `now`. Safe beside a running
/// server and its workers: only done matches are touched, and each statement is short.
pub async fn prune(
    db: &Db,
    cfg: &Storage,
    deadline_ms: Option<i64>,
    now: i64,
) -> Result<Pruned, DbError> {
    let mut out = Pruned {
        at_ms: now,
        ..Pruned::default()
    };
    // The rule, from where the last run stopped (a later change of `keep_one_in` applies
    // to matches not yet past it).
    let from: i64 = match db.meta(RULE_UPTO).await? {
        Some(v) => v.parse().unwrap_or(0),
        None => 0,
    };
    let cutoff = now - i64::from(cfg.keep_hours) * 3_600_000;
    let upto = db.first_match_kept(from, cutoff).await?;
    let mut a = from;
    while a < upto {
        let b = (a + RULE_CHUNK).min(upto);
        out.by_rule += db
            .prune_matches(a, b, i64::from(cfg.keep_one_in), now)
            .await?;
        db.set_meta(RULE_UPTO, &b.to_string()).await?;
        a = b;
    }
    // The budget: logs first, then replays, oldest first, in done matches only (a match
    // being played needs its stored games to resume).
    let budget = budget_bytes(cfg);
    let mut usage = Usage::of(db.game_bytes().await?, budget, 0);
    let below = db.done_below().await?;
    for replays in [false, true] {
        let mut after = (-1, -1);
        while usage.bytes > budget {
            let Some((last, n, freed)) = db
                .drop_oldest(replays, after, below, BUDGET_CHUNK, now)
                .await?
            else {
                break;
            };
            after = last;
            if replays {
                out.replays += n;
            } else {
                out.logs += n;
            }
            out.freed += freed;
            usage.bytes -= freed;
        }
    }
    out.after = Usage::of(db.game_bytes().await?, budget, db.file_bytes().await?);
    out.pace = pace(&out.after, now, plan_end(db, cfg, deadline_ms, now).await?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> LogLine {
        LogLine {
            level: "info".into(),
            text: text.into(),
            at: Some(1),
        }
    }

    #[test]
    fn logs_are_cut_per_agent_and_say_what_was_cut() {
        let chatty: Vec<LogLine> = (0..100).map(|i| line(&format!("line {i:04}"))).collect();
        let quiet = vec![line("hello")];
        let cost = "line 0000".len() + "info".len() + LOG_LINE_OVERHEAD;
        let kept = keep_logs(&[(0, chatty), (1, quiet.clone())], (cost * 10) as u32);
        assert_eq!(kept[0].1.len(), 11, "ten lines and the note");
        assert_eq!(kept[0].1[9].text, "line 0009");
        assert!(
            kept[0].1[10]
                .text
                .contains("90 more lines (810 bytes) not kept"),
            "{}",
            kept[0].1[10].text
        );
        assert_eq!(kept[1].1, quiet, "the quiet agent keeps its whole log");
        // A log within the cap is kept as it is, with no note.
        let small = keep_logs(&[(2, quiet.clone())], 4096);
        assert_eq!(small[0].1, quiet);
    }

    #[test]
    fn the_results_alone_filling_the_budget_pause_the_ladder() {
        let g = GameBytes {
            games: 10,
            seats: 40,
            replays: 1000,
            logs: 5000,
            pruned: 0,
        };
        let results = 10 * GAME_ROW_BYTES + 40 * SEAT_ROW_BYTES;
        let u = Usage::of(g, results + 1, 0);
        assert_eq!(u.bytes, results + 6000);
        assert!(!u.full);
        assert!(Usage::of(g, results, 0).full);
    }

    #[test]
    fn the_pace_spreads_what_is_left_of_the_budget_over_the_time_left() {
        let g = GameBytes {
            games: 1000,
            seats: 2000,
            replays: 0,
            logs: 0,
            pruned: 0,
        };
        // 160 bytes a game; three quarters of 4 MB less 160 kB is 2.84 MB left, which over
        // 100 s is 177.5 games a second.
        let u = Usage::of(g, 4_000_000, 0);
        let p = pace(&u, 0, Some(100_000)).expect("a pace");
        assert!((p - 177.5).abs() < 1e-9, "{p}");
        assert_eq!(pace(&u, 100_000, Some(100_000)), None, "past the end");
        assert_eq!(pace(&u, 0, None), None, "no plan");
        // Full: nothing more.
        assert_eq!(pace(&Usage::of(g, 1000, 0), 0, Some(1000)), Some(0.0));
    }
}
