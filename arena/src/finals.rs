//! The final tournament: submissions are frozen, the version every team chose (its latest
//! valid one unless it chose another, `manage::set_entry`)
//! plays every other in a full round robin with duplicate deals, and the table (win rates
//! with 95% Wilson intervals, Bradley–Terry Elo, and Weng-Lin ratings computed with τ = 0
//! in game order) is published as a page, CSV and JSON.
//!
//! It runs through `croupier-tournament`'s round robin, so it is the same computation as
//! `croupier tournament` on the same files and seed, and its log (`final/final.jsonl`)
//! replays with `croupier replay`. Played [`Venue::Workers`], each pairing becomes a match
//! in the arena's queue (with the seed the round robin gives it) that the workers play, and
//! the table is computed from the stored games by the same code: the same table, bit for
//! bit, on any number of workers.

use crate::context::Arena;
use crate::ratings::{Board, Rules};
use crate::store::db::states::{MatchKind, MatchState, VersionStatus};
use anyhow::{Context, Result};
use croupier_tournament::bosses::Statement;
use croupier_tournament::matches::bosses::{Boss, run_bosses};
use croupier_tournament::matches::{MatchArgs, log, round_robin};
use croupier_tournament::runner::{FaultPolicy, GameRecord};
use maud::{Markup, html};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::sync::atomic::Ordering;

/// One team's line of the final table.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FinalRow {
    /// 1 for the winner.
    pub rank: usize,
    /// The team.
    pub team: String,
    /// The version that played.
    pub version: i64,
    /// Games played.
    pub games: u64,
    /// Won.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost.
    pub losses: u64,
    /// Faulted games.
    pub faults: u64,
    /// Win rate.
    pub win_rate: f64,
    /// Its 95% Wilson interval.
    pub win_rate_ci95: (f64, f64),
    /// Bradley–Terry Elo over all pairings.
    pub elo: f64,
    /// Weng-Lin μ (τ = 0, games in order).
    pub mu: f64,
    /// Weng-Lin σ.
    pub sigma: f64,
    /// Against each boss (`bosses.agents`, weakest first), as `croupier tournament
    /// --bosses` says it: win rate, 95% interval over deals, badge.
    #[serde(default)]
    pub bosses: Vec<Statement>,
}

/// The published final.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FinalTable {
    /// The arena's title.
    pub title: String,
    /// Game.
    pub game: String,
    /// Rules preset.
    pub rules: String,
    /// The tournament's seed.
    pub seed: u64,
    /// Deals per pairing (each played in every seat rotation).
    pub deals: u64,
    /// The table, by Elo.
    pub rows: Vec<FinalRow>,
    /// Each pairing: (team a, team b, a's wins, b's wins, draws, games).
    pub pairings: Vec<(String, String, u64, u64, u64, u64)>,
    /// The bosses every entry played, `deals` deals each, weakest first.
    #[serde(default)]
    pub bosses: Vec<String>,
}

/// Where the final's games are played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Venue {
    /// In this process, on this many threads.
    Here {
        /// Threads.
        threads: usize,
    },
    /// By the arena's workers (the running server's and `croupier arena worker`s): each
    /// pairing is queued as a match of kind `final`, leased before any ladder match.
    Workers,
}

/// The final's matches once queued, kept in `meta` so that an interrupted `arena final`
/// run again with the same seed, deals and entrants waits for them instead of queuing more.
#[derive(Serialize, Deserialize, PartialEq)]
struct Queued {
    seed: u64,
    deals: u64,
    versions: Vec<i64>,
    matches: Vec<i64>,
}

/// Queues the final's pairings (once) and waits until the workers have played them all;
/// returns each pairing's run (header and records, in game order), as `croupier tournament`
/// writes them.
async fn on_workers(
    arena: &Arena,
    args: &MatchArgs,
    versions: &[i64],
) -> Result<Vec<(log::LogHeader, Vec<GameRecord>)>> {
    let plan = round_robin::round_robin_plan(args.seed, versions.len());
    let earlier: Option<Queued> = arena
        .db
        .meta("final_matches")
        .await?
        .and_then(|j| serde_json::from_str(&j).ok());
    let ids = match earlier {
        Some(q) if q.seed == args.seed && q.deals == args.games && q.versions == versions => {
            q.matches
        }
        _ => {
            let mut ids = Vec::new();
            for (pseed, i, j) in &plan {
                let id = arena
                    .db
                    .queue_match(
                        MatchKind::Final,
                        *pseed,
                        args.games,
                        true,
                        &[versions[*i], versions[*j]],
                    )
                    .await?;
                ids.push(id);
            }
            let q = Queued {
                seed: args.seed,
                deals: args.games,
                versions: versions.to_vec(),
                matches: ids.clone(),
            };
            arena
                .db
                .set_meta("final_matches", &serde_json::to_string(&q)?)
                .await?;
            ids
        }
    };
    let started = std::time::Instant::now();
    let mut said = std::time::Instant::now();
    loop {
        let mut done = Some(0);
        for id in &ids {
            match arena.db.match_row(*id).await {
                Ok(row) => {
                    done = done
                        .map(|d| d + usize::from(row.is_some_and(|m| m.state == MatchState::Done)))
                }
                // The wait can last hours beside busy workers; a pool that could not hand
                // out a connection in time (seen on a loaded 2-core machine, and a known
                // sqlx failure mode) is asked again at the next poll instead of ending the
                // final. Any other error ends it.
                Err(crate::store::db::DbError::Query(sqlx::Error::PoolTimedOut)) => {
                    tracing::warn!("final: the database did not answer in time; asking again");
                    done = None;
                    break;
                }
                Err(e) => return Err(e.into()),
            }
        }
        if done == Some(ids.len()) {
            break;
        }
        if said.elapsed() >= std::time::Duration::from_secs(10) {
            tracing::info!(
                "final: {} of {} matches played by the workers after {} s (is `croupier arena serve` running, with workers?)",
                done.map_or("?".to_string(), |d| d.to_string()),
                ids.len(),
                started.elapsed().as_secs()
            );
            said = std::time::Instant::now();
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    let mut runs = Vec::new();
    for ((pseed, i, j), id) in plan.iter().zip(&ids) {
        let mut m = args.clone();
        m.agents = vec![args.agents[*i].clone(), args.agents[*j].clone()];
        m.seed = *pseed;
        let header = croupier_tournament::with_game!(arena.cfg.kind(), G => log::log_header::<G>(&arena.runtime.limits, &m))?;
        let mut records = Vec::new();
        let rows = arena.db.games_of_match(*id).await?;
        let info = crate::queue::jobs::match_info(arena, *id).await?;
        let stored = info.records(&arena.cfg, &rows)?;
        for (g, mut rec) in rows.iter().zip(stored) {
            if let Some(logs) = &g.logs {
                rec.logs = serde_json::from_str(logs).with_context(|| {
                    format!("match {id} game {}: the stored logs", g.game_index)
                })?;
            }
            records.push(rec);
        }
        records.sort_by_key(|r| r.index);
        runs.push((header, records));
    }
    Ok(runs)
}

/// What [`reopen`] undid.
#[derive(Debug, Default)]
pub struct Reopened {
    /// Whether the arena was frozen.
    pub was_frozen: bool,
    /// Whether a final table was published (now withdrawn from `/final`).
    pub had_table: bool,
    /// Final matches not finished, taken out of the queue (their stored games with them).
    pub dropped_matches: u64,
}

/// Undoes a trial or mistaken final: uploads and the ladder open again (a running server
/// sees it at its next upload or scheduling round), `/final` shows nothing, and the final's
/// unfinished matches leave the queue. The final's finished games stay in the database,
/// apart from the ladder's (the ratings never count them), and its files in `final/` stay on
/// disk until the next final replaces them. A passed `final.deadline` still closes uploads.
pub async fn reopen(arena: &Arena) -> Result<Reopened> {
    let was_frozen = arena.db.meta("frozen").await?.is_some();
    let had_table = arena.db.meta("final_json").await?.is_some();
    let dropped_matches = arena.db.drop_unfinished_finals().await?;
    arena.db.delete_meta("final_json").await?;
    arena.db.delete_meta("frozen").await?;
    arena.frozen.store(false, Ordering::Relaxed);
    Ok(Reopened {
        was_frozen,
        had_table,
        dropped_matches,
    })
}

/// Freezes the arena and plays the final: `deals` deals per pairing from `seed`. Writes
/// `final/final.{json,csv,html,jsonl}` in the arena's directory and keeps the table for the
/// server's `/final`.
pub async fn run(
    arena: &std::sync::Arc<Arena>,
    deals: u64,
    seed: u64,
    venue: Venue,
) -> Result<FinalTable> {
    arena.db.set_meta("frozen", "1").await?;
    arena.frozen.store(true, Ordering::Relaxed);
    let teams = arena.db.teams().await?;
    let versions = arena.db.versions().await?;
    let mut entries = Vec::new();
    // A withdrawn team is not in the final.
    // Each team's chosen version, if it chose a valid one, else its latest valid one.
    for t in teams.iter().filter(|t| t.withdrawn.is_none()) {
        let valid = || {
            versions
                .iter()
                .filter(|v| v.team_id == t.id && v.status == VersionStatus::Valid)
        };
        let chosen = t.final_entry.and_then(|n| valid().find(|v| v.number == n));
        if let Some(v) = chosen.or_else(|| valid().max_by_key(|v| v.number)) {
            entries.push((t.name.clone(), v.number, v.sha256.clone(), t.id, v.id));
        }
    }
    if entries.len() < 2 {
        anyhow::bail!(
            "the final needs at least two teams with a valid version; this arena has {}",
            entries.len()
        );
    }
    let dir = arena.dir.join("final");
    std::fs::create_dir_all(&dir).with_context(|| format!("{}", dir.display()))?;
    // One file per team, so two teams that uploaded the same file are still two entrants.
    let mut paths = Vec::new();
    for (_, _, sha, id, _) in &entries {
        let p = dir.join(format!("team{id}.wasm"));
        std::fs::copy(arena.agent_path(sha), &p).with_context(|| format!("{}", p.display()))?;
        paths.push(p.display().to_string());
    }
    let log = dir.join("final.jsonl");
    let _ = std::fs::remove_file(&log);
    let args = MatchArgs {
        agents: paths.clone(),
        rules: arena.cfg.rules_args(),
        games: deals,
        seed,
        threads: match venue {
            Venue::Here { threads } => threads,
            Venue::Workers => 1,
        },
        duplicate: true,
        log: Some(log.clone()),
        resume: false,
        policy: FaultPolicy::Forfeit,
        watch: false,
        shard: None,
    };
    let against = final_bosses(arena, &args, venue).await?;
    let summary = match venue {
        Venue::Here { .. } => {
            let a = arena.clone();
            tokio::task::spawn_blocking(move || {
                croupier_tournament::with_game!(a.cfg.kind(), G => round_robin::run_tournament::<G>(&a.runtime, &args))
            })
            .await??
        }
        Venue::Workers => {
            let versions: Vec<i64> = entries.iter().map(|e| e.4).collect();
            let runs = on_workers(arena, &args, &versions).await?;
            // The log `croupier tournament` would have written, then its table from it.
            let mut out = std::io::BufWriter::new(
                std::fs::File::create(&log).with_context(|| format!("{}", log.display()))?,
            );
            log::write_runs(&runs, &mut out)?;
            out.flush()?;
            round_robin::tournament_of_runs(seed, &paths, &runs)?
        }
    };
    // Weng-Lin over the final's games in log order, with no added uncertainty.
    let mut board = Board::default();
    let runs = log::read_log(&log)?;
    let mut rows = Vec::new();
    for (match_no, (header, records)) in runs.iter().enumerate() {
        let match_no = match_no as i64 + 1;
        let ids: Vec<i64> = header
            .agents
            .iter()
            .map(|a| paths.iter().position(|p| p == a).map_or(-1, |i| i as i64))
            .collect();
        for rec in records {
            for s in crate::queue::seats_of(rec, &ids, &ids) {
                rows.push(crate::store::db::seats::SeatRow {
                    match_id: match_no,
                    game_index: rec.index as i64,
                    seat: s.seat,
                    version_id: s.version_id,
                    team_id: s.team_id,
                    result: s.result,
                    place: s.place,
                    fault: s.fault,
                    finished_ms: 0,
                    kind: None,
                });
            }
        }
    }
    board.apply(
        &rows,
        i64::MAX,
        Rules {
            tau: 0.0,
            suspend_after: 0,
        },
        &|v| v,
    );
    let name_of = |spec: &str| paths.iter().position(|p| p == spec).map(|i| &entries[i]);
    let mut table: Vec<FinalRow> = summary
        .ranking
        .iter()
        .filter_map(|s| {
            let i = paths.iter().position(|p| *p == s.name)?;
            let (team, version, _, _, _) = &entries[i];
            let st = board.versions.get(&(i as i64));
            Some(FinalRow {
                rank: 0,
                team: team.clone(),
                version: *version,
                games: s.games,
                wins: s.wins,
                draws: s.draws,
                losses: s.losses,
                faults: s.faults,
                win_rate: s.win_rate,
                win_rate_ci95: s.win_rate_ci95,
                elo: s.elo.unwrap_or(0.0),
                mu: st.map_or(25.0, |s| s.mu),
                sigma: st.map_or(25.0 / 3.0, |s| s.sigma),
                bosses: against.get(i).cloned().unwrap_or_default(),
            })
        })
        .collect();
    table.sort_by(|a, b| b.elo.total_cmp(&a.elo).then(a.team.cmp(&b.team)));
    for (i, r) in table.iter_mut().enumerate() {
        r.rank = i + 1;
    }
    let pairings = summary
        .pairings
        .iter()
        .map(|p| {
            let n = |s: &str| name_of(s).map_or_else(|| s.to_string(), |e| e.0.clone());
            (n(&p.a), n(&p.b), p.a_wins, p.b_wins, p.draws, p.games)
        })
        .collect();
    let f = FinalTable {
        title: arena.cfg.title.clone(),
        game: arena.cfg.game.clone(),
        rules: arena.cfg.rules.clone(),
        seed,
        deals,
        rows: table,
        pairings,
        bosses: arena.bosses.iter().map(|b| b.name.clone()).collect(),
    };
    let json = serde_json::to_string_pretty(&f)?;
    std::fs::write(dir.join("final.json"), &json)?;
    std::fs::write(dir.join("final.csv"), csv(&f))?;
    std::fs::write(dir.join("final.html"), standalone_html(&f))?;
    arena.db.set_meta("final_json", &json).await?;
    Ok(f)
}

/// Every entry against every boss, as `croupier tournament --bosses` plays it on the same
/// files and seed (each boss played by the build the arena stored), in this process: the
/// final's deals against each boss, in duplicate deals. Per entry, in `args.agents` order.
async fn final_bosses(
    arena: &std::sync::Arc<Arena>,
    args: &MatchArgs,
    venue: Venue,
) -> Result<Vec<Vec<Statement>>> {
    if arena.bosses.is_empty() {
        return Ok(Vec::new());
    }
    let bosses: Vec<Boss> = arena
        .bosses
        .iter()
        .map(|b| Boss {
            name: b.name.clone(),
            agent: arena.agent_path(&b.sha256).display().to_string(),
        })
        .collect();
    let mut args = args.clone();
    args.log = None;
    if venue == Venue::Workers {
        // The workers played the round robin; the bosses are played here, on every core.
        args.threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    }
    let a = arena.clone();
    let summary = tokio::task::spawn_blocking(move || {
        croupier_tournament::with_game!(a.cfg.kind(), G => run_bosses::<G>(&a.runtime, &args, &bosses, &(), &mut |_| {}))
    })
    .await??;
    Ok(summary.agents.into_iter().map(|a| a.bosses).collect())
}

/// One boss cell of a table (the final's, the leaderboard's, a team's): `62.5% (51.2–72.7)`,
/// then the badge if the interval's lower bound is above one half.
pub fn boss_cell(s: &Statement) -> Markup {
    html! {
        td.boss {
            @if s.deals == 0 { span.muted { "–" } } @else {
                (format!("{:.1}% ({:.1}–{:.1})", 100.0 * s.win_rate, 100.0 * s.win_rate_ci95.0, 100.0 * s.win_rate_ci95.1))
                " " span.muted { (s.deals) " deals" }
                @if let Some(b) = &s.badge { " " span.badge { (b) } }
            }
        }
    }
}

/// The table as CSV, one team per line. Team names are quoted, with quotes doubled, and a
/// leading `=`, `+`, `-` or `@` is prefixed with `'` so a spreadsheet does not run it.
pub fn csv(f: &FinalTable) -> String {
    let cell = |s: &str| {
        let s = if s.starts_with(['=', '+', '-', '@']) {
            format!("'{s}")
        } else {
            s.to_string()
        };
        format!("\"{}\"", s.replace('"', "\"\""))
    };
    let mut out = String::from(
        "rank,team,version,games,wins,draws,losses,faults,win_rate,ci95_low,ci95_high,elo,mu,sigma",
    );
    // Five columns per boss, named by its short name.
    for b in &f.bosses {
        let n = croupier_tournament::bosses::short_name(b);
        for col in ["deals", "win_rate", "ci95_low", "ci95_high", "badge"] {
            out.push(',');
            out.push_str(&cell(&format!("vs_{n}_{col}")));
        }
    }
    out.push('\n');
    for r in &f.rows {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{:.4},{:.4},{:.4},{:.1},{:.3},{:.3}",
            r.rank,
            cell(&r.team),
            r.version,
            r.games,
            r.wins,
            r.draws,
            r.losses,
            r.faults,
            r.win_rate,
            r.win_rate_ci95.0,
            r.win_rate_ci95.1,
            r.elo,
            r.mu,
            r.sigma
        ));
        for b in &r.bosses {
            out.push_str(&format!(
                ",{},{:.4},{:.4},{:.4},{}",
                b.deals,
                b.win_rate,
                b.win_rate_ci95.0,
                b.win_rate_ci95.1,
                cell(b.badge.as_deref().unwrap_or(""))
            ));
        }
        out.push('\n');
    }
    out
}

/// The table as page content (the server wraps it in its layout).
pub fn table_markup(f: &FinalTable) -> Markup {
    html! {
        h1 { "Final: " (f.title) }
        p.muted { (f.game) " · " (f.rules) " · " (f.deals) " deals per pairing, every seat rotation · seed " (f.seed) }
        @if !f.bosses.is_empty() {
            p.muted { "Against each boss: " (f.deals) " deals, unrated; win rate with draws counted half and its 95% interval over deals; a badge once the interval is above 50%." }
        }
        table #final {
            thead { tr { th { "#" } th { "team" } th { "version" } th { "games" } th { "W" } th { "D" } th { "L" } th { "faults" }
                th { "win rate (95% CI)" } th { "Elo (Bradley–Terry)" } th { "Weng-Lin μ ± σ" }
                @for b in &f.bosses { th title=(b) { "vs " (croupier_tournament::bosses::short_name(b)) " (95% CI)" } } } }
            tbody { @for r in &f.rows { tr {
                td { (r.rank) } td { (r.team) } td { "v" (r.version) } td { (r.games) } td { (r.wins) } td { (r.draws) } td { (r.losses) } td { (r.faults) }
                td { (format!("{:.1}% ({:.1}–{:.1})", 100.0 * r.win_rate, 100.0 * r.win_rate_ci95.0, 100.0 * r.win_rate_ci95.1)) }
                td { (format!("{:.0}", r.elo)) }
                td { (format!("{:.2} ± {:.2}", r.mu, r.sigma)) }
                @for b in &r.bosses { (boss_cell(b)) }
            } } }
        }
        h2 { "Pairings" }
        table { thead { tr { th { "a" } th { "b" } th { "a won" } th { "b won" } th { "drawn" } th { "games" } } }
            tbody { @for p in &f.pairings { tr { td { (p.0) } td { (p.1) } td { (p.2) } td { (p.3) } td { (p.4) } td { (p.5) } } } }
        }
        p { a href="/api/final" { "JSON" } }
    }
}

/// The table as one self-contained HTML file.
pub fn standalone_html(f: &FinalTable) -> String {
    html! {
        (maud::DOCTYPE)
        html lang="en" {
            head { meta charset="utf-8"; title { "Final: " (f.title) } style { (include_str!("../assets/style.css")) } }
            body { main { (table_markup(f)) } }
        }
    }
    .into_string()
}
