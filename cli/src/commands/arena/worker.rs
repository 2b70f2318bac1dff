//! `croupier arena worker`: play an arena's ladder matches on this machine, pulled over HTTP
//! from the server with a worker token (`croupier arena workers add` makes one). The machine
//! needs no database credentials and no open port; the `croupier-arena` crate's `worker`
//! module does the work.

use anyhow::{Context, Result};
use clap::Args;
use croupier_arena::queue::worker::remote::{Remote, RemoteQueue};
use croupier_arena::queue::worker::{Linked, Worker};
use std::path::PathBuf;
use std::sync::Arc;

/// Flags of `croupier arena worker`.
#[derive(Args)]
pub struct WorkerArgs {
    /// The arena server, e.g. http://10.0.0.5:8080.
    #[arg(long)]
    server: String,
    /// A worker token (from `croupier arena workers add`). Prefer the environment variable:
    /// a flag shows in the process list.
    #[arg(long, env = "CROUPIER_WORKER_TOKEN", hide_env_values = true)]
    token: String,
    /// Threads one match plays on (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Where fetched agents and their compiled code are kept (default: the user's cache
    /// folder, croupier/worker).
    #[arg(long)]
    cache: Option<PathBuf>,
    /// The name in this worker's log lines.
    #[arg(long, default_value = "worker")]
    name: String,
}

fn default_cache() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("croupier").join("worker")
}

/// Runs the worker until Ctrl-C or SIGTERM; the match in play is finished and reported first.
pub fn run(a: &WorkerArgs) -> Result<()> {
    let cache = a.cache.clone().unwrap_or_else(default_cache);
    // One thread runs the loop, the HTTP calls, the reports and the heartbeats: the worker's
    // async side is a few calls per match, and each thread more woke on the core the games
    // need.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let remote = Remote::new(&a.server, &a.token, &cache)?;
    let cfg = rt
        .block_on(remote.config())
        .context("cannot read the arena's config from the server")?;
    let compile = croupier_host::cache::Cache::at(cache.join("compiled"))
        .map_err(|e| anyhow::anyhow!("{}: compile cache: {e}", cache.display()))?;
    let runtime =
        croupier_host::Runtime::new(cfg.limits.clone(), compile).context("the sandbox runtime")?;
    let threads = crate::commands::threads(a.threads);
    println!(
        "worker {}: {} `{}` from {}, {threads} threads (Ctrl-C stops after the match in play)",
        a.name, cfg.game, cfg.rules, a.server
    );
    let worker = Arc::new(Worker {
        cfg,
        linked: Arc::new(Linked::new(runtime)),
        threads,
        name: a.name.clone(),
    });
    let queue = Arc::new(RemoteQueue::new(remote));
    rt.block_on(async {
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            croupier_arena::web::server::stop_signal().await;
            let _ = stop_tx.send(true);
        });
        croupier_arena::queue::worker::run(worker, queue, stop_rx).await
    })
    .with_context(|| format!("worker {} stopped", a.name))
}
