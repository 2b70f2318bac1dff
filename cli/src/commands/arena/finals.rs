//! `croupier arena final` and `croupier arena reopen`: close submissions and play the
//! final, or undo it.

use super::common::{Place, tokio};
use anyhow::Result;
use clap::Args;

/// Flags of `croupier arena final`.
#[derive(Args)]
pub struct FinalArgs {
    #[command(flatten)]
    at: Place,
    /// Deals per pairing (each played in every seat rotation).
    #[arg(long, default_value_t = 100)]
    deals: u64,
    /// The final's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads (default: all cores).
    #[arg(long, conflicts_with = "workers")]
    threads: Option<usize>,
    /// Let the arena's workers play the final (the running server's own and every
    /// `croupier arena worker`): each pairing is queued as a match, played before any ladder
    /// match; this command waits for them. The table is the same as in one process.
    #[arg(long)]
    workers: bool,
}

impl FinalArgs {
    /// Runs `arena final` and prints its table.
    pub fn execute(&self) -> Result<()> {
        let a = self;
        tokio()?.block_on(async {
            let arena = a.at.open().await?;
            let venue = if a.workers {
                croupier_arena::finals::Venue::Workers
            } else {
                croupier_arena::finals::Venue::Here {
                    threads: crate::commands::threads(a.threads),
                }
            };
            let f = croupier_arena::finals::run(&arena, a.deals, a.seed, venue).await?;
            println!(
                "final: {} teams, {} deals per pairing, seed {}",
                f.rows.len(),
                f.deals,
                f.seed
            );
            println!(
                "{:>3}  {:<24} {:>6} {:>7} {:>16} {:>6}",
                "#", "team", "games", "win %", "95% CI", "Elo"
            );
            for r in &f.rows {
                println!(
                    "{:>3}  {:<24} {:>6} {:>6.1}% {:>7.1}–{:<7.1} {:>6.0}",
                    r.rank,
                    croupier_host::text::escape(&r.team),
                    r.games,
                    100.0 * r.win_rate,
                    100.0 * r.win_rate_ci95.0,
                    100.0 * r.win_rate_ci95.1,
                    r.elo
                );
            }
            // Against each boss: the statement, and the badge when the interval earns it.
            for r in f.rows.iter().filter(|r| !r.bosses.is_empty()) {
                for b in &r.bosses {
                    println!(
                        "     {:<24} vs {:<20} {:>5.1}% ({:.1}–{:.1}) {}",
                        croupier_host::text::escape(&r.team),
                        b.boss,
                        100.0 * b.win_rate,
                        100.0 * b.win_rate_ci95.0,
                        100.0 * b.win_rate_ci95.1,
                        b.badge.as_deref().unwrap_or("")
                    );
                }
            }
            println!(
                "written: {}",
                a.at.dir
                    .join("final")
                    .join("final.{html,csv,json}")
                    .display()
            );
            arena.db.close().await;
            Ok(())
        })
    }
}

/// `arena reopen`: uploads and the ladder open again, and the final's unfinished matches
/// leave the queue.
pub fn reopen(at: &Place) -> Result<()> {
    tokio()?.block_on(async {
        let arena = at.open().await?;
        let r = croupier_arena::finals::reopen(&arena).await?;
        arena.db.close().await;
        if !r.was_frozen && !r.had_table {
            println!("{}: no final to undo; uploads were open", at.dir.display());
            return Ok(());
        }
        println!(
            "{}: reopened: uploads and the ladder go on{}{}",
            at.dir.display(),
            if r.had_table { "; /final shows nothing until the next final" } else { "" },
            if r.dropped_matches > 0 {
                format!("; {} unfinished final matches left the queue", r.dropped_matches)
            } else {
                String::new()
            }
        );
        if let Some(why) = arena.past_deadline() {
            println!("note: {why}: uploads stay closed until final.deadline in arena.toml is moved and the server restarted");
        }
        Ok(())
    })
}
