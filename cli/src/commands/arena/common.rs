//! What the `croupier arena` subcommands share: where the arena is ([`Place`], the
//! directory and `--database` pair most of them take), the async runtime they block on, and
//! issuing a token to a team or a worker. A leaf: the subcommands import it, it imports none.

use anyhow::{Context, Result};
use clap::Args;
use croupier_arena::context::Arena;
use croupier_arena::web::manage;
use std::path::PathBuf;
use std::sync::Arc;

/// Where an arena is: its directory, and its database when that is not SQLite in it.
#[derive(Args)]
pub struct Place {
    /// The arena's directory.
    pub dir: PathBuf,
    /// A PostgreSQL URL instead of SQLite in DIR.
    #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
    pub database: Option<String>,
}

impl Place {
    /// Opens the arena's database and configuration.
    pub async fn open(&self) -> Result<Arc<Arena>> {
        Ok(Arena::open(&self.dir, self.database.as_deref()).await?)
    }
}

/// The runtime a subcommand's database calls run on.
pub fn tokio() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Who a new token is for.
pub enum TokenFor {
    /// A team.
    Team,
    /// A worker.
    Worker,
}

/// Adds a team or a worker and prints its token, once: only its hash is kept.
pub fn add_with_token(at: &Place, name: &str, who: TokenFor) -> Result<()> {
    tokio()?.block_on(async {
        let arena = at.open().await?;
        let (t, what, give) = match who {
            TokenFor::Team => (manage::add_team(&arena, name).await, "team", "the team"),
            TokenFor::Worker => (
                manage::add_worker(&arena, name).await,
                "worker",
                "`croupier arena worker` in CROUPIER_WORKER_TOKEN",
            ),
        };
        let t = t.map_err(|e| anyhow::anyhow!("{}: {e}", at.dir.display()))?;
        println!(
            "{what} {} `{}` added. Its token (shown only now; give it to {give}):",
            t.id, t.name
        );
        println!("{}", t.token);
        arena.db.close().await;
        Ok(())
    })
}

/// A new token for a team or a worker, printed once.
pub fn new_token(at: &Place, name: &str, who: TokenFor) -> Result<()> {
    tokio()?.block_on(async {
        let arena = at.open().await?;
        let (t, what) = match who {
            TokenFor::Team => (
                async { manage::new_team_token(&arena, manage::team_named(&arena, name).await?).await }
                    .await,
                "team",
            ),
            TokenFor::Worker => (
                async {
                    manage::new_worker_token(&arena, manage::worker_named(&arena, name).await?)
                        .await
                }
                .await,
                "worker",
            ),
        };
        let t = t.map_err(|e| anyhow::anyhow!("{}: {e}", at.dir.display()))?;
        println!(
            "{what} {} `{}` has a new token; the old one no longer works. The new one (shown only now):",
            t.id,
            croupier_host::text::escape(&t.name)
        );
        println!("{}", t.token);
        arena.db.close().await;
        Ok(())
    })
}
