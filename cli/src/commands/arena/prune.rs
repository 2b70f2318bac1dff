//! `croupier arena prune DIR`: the storage budget (`[storage]` in arena.toml) applied now,
//! beside a running server or without one. The server applies it by itself every
//! `storage.prune_seconds`; this is for an organiser who has just lowered the budget, or
//! wants to see what it does.

use super::common::Place;
use anyhow::{Context, Result};
use croupier_arena::config::ArenaConfig;
use croupier_arena::store::db::Db;
use croupier_arena::web::errors::mib;

/// Applies the budget to the arena in `dir` and says what it dropped and what is left.
pub async fn prune(at: &Place) -> Result<()> {
    let (dir, database) = (at.dir.as_path(), at.database.as_deref());
    let cfg = ArenaConfig::load(dir)?;
    let db = Db::open(dir, database)
        .await
        .with_context(|| format!("{}: cannot open the arena's database", dir.display()))?;
    let deadline = cfg.final_.deadline_ms();
    let done = croupier_arena::store::storage::prune(
        &db,
        &cfg.storage,
        deadline,
        croupier_arena::now_ms(),
    )
    .await
    .with_context(|| format!("{}: applying the storage budget", dir.display()));
    db.close().await;
    let done = done?;
    let u = &done.after;
    let size = |b: i64| mib(b.max(0) as u64);
    println!(
        "{}: {} games by the retention rule (replays and logs dropped); by the budget, the logs of {} and the replays of {} ({} freed)",
        dir.display(),
        done.by_rule,
        done.logs,
        done.replays,
        size(done.freed)
    );
    println!(
        "games take {} of {} ({} games, {} of logs, {} of replays, {} pruned); the database file is {}",
        size(u.bytes),
        size(u.budget),
        u.games.games,
        size(u.games.logs),
        size(u.games.replays),
        u.games.pruned,
        size(u.file_bytes)
    );
    if let Some(p) = done.pace {
        println!(
            "the ladder is paced to {p:.1} rated games a second so that the results fit the budget until the plan's end"
        );
    }
    if u.full {
        println!(
            "the results alone fill storage.budget_mb: the ladder stays paused until it is raised (and the server restarted)"
        );
    }
    Ok(())
}
