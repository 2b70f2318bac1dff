//! `croupier arena workers`: add a worker, give it a new token, remove it, list them.

use super::common::{Place, TokenFor, add_with_token, new_token, tokio};
use anyhow::Result;
use clap::Subcommand;
use croupier_arena::web::manage;

/// Worker tokens: `workers add DIR NAME` prints the new worker's token once.
#[derive(Subcommand)]
pub enum WorkersSub {
    /// Add a worker; prints its token once (only a hash is stored). The token opens the
    /// worker API only.
    Add {
        #[command(flatten)]
        at: Place,
        /// The worker's name.
        name: String,
    },
    /// Give the worker a new token, printed once; the old one stops working at once (a
    /// worker still running with it stops at its next call).
    Token {
        #[command(flatten)]
        at: Place,
        /// The worker's name.
        name: String,
    },
    /// Remove a worker: its token stops working at once, and the matches it held are played
    /// by other workers when their leases run out.
    Remove {
        #[command(flatten)]
        at: Place,
        /// The worker's name.
        name: String,
    },
    /// List the workers and when each was last heard from.
    List {
        #[command(flatten)]
        at: Place,
    },
}

impl WorkersSub {
    /// Runs the subcommand.
    pub fn execute(&self) -> Result<()> {
        match self {
            WorkersSub::Add { at, name } => add_with_token(at, name, TokenFor::Worker),
            WorkersSub::Token { at, name } => new_token(at, name, TokenFor::Worker),
            WorkersSub::Remove { at, name } => remove(at, name),
            WorkersSub::List { at } => list(at),
        }
    }
}

/// `arena workers remove`: the worker's token stops working at once.
fn remove(at: &Place, name: &str) -> Result<()> {
    tokio()?.block_on(async {
        let arena = at.open().await?;
        let in_dir =
            |e: croupier_arena::web::errors::AppError| anyhow::anyhow!("{}: {e}", at.dir.display());
        let id = manage::worker_named(&arena, name).await.map_err(in_dir)?;
        manage::remove_worker(&arena, id).await.map_err(in_dir)?;
        println!(
            "worker {id} `{}` removed: its token no longer works",
            croupier_host::text::escape(name)
        );
        arena.db.close().await;
        Ok(())
    })
}

/// `arena workers list`: each worker's id, name and when it was last heard from.
fn list(at: &Place) -> Result<()> {
    tokio()?.block_on(async {
        let arena = at.open().await?;
        let now = croupier_arena::now_ms();
        for w in arena.db.workers().await? {
            let seen = match w.seen_ms {
                Some(ms) => format!("seen {} s ago", (now - ms).max(0) / 1000),
                None => "never seen".into(),
            };
            println!("{}\t{}\t{seen}", w.id, croupier_host::text::escape(&w.name));
        }
        arena.db.close().await;
        Ok(())
    })
}
