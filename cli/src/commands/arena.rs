//! `croupier arena`: make, serve, staff and close a competition server. The
//! `croupier-arena` crate does the work; each subcommand's flags and calls are in its own
//! file under `arena/`, and this one only dispatches (and serves).

use anyhow::Result;
use clap::{Args, Subcommand};
use common::{Place, tokio};
use croupier_arena::context::Arena;
use croupier_arena::web::server;
use std::path::PathBuf;

mod common;
mod demo;
mod export;
mod finals;
mod import;
mod init;
mod prune;
mod team;
mod worker;
mod workers;

/// Run a competition: uploads, a ladder, ratings, pages and replays.
#[derive(Args)]
pub struct ArenaCommand {
    #[command(subcommand)]
    cmd: ArenaSub,
}

#[derive(Subcommand)]
enum ArenaSub {
    /// Write DIR/arena.toml (commented) and the database, and print the organiser's token once.
    Init(init::InitArgs),
    /// Serve the arena in DIR, with its ladder running, until Ctrl-C or SIGTERM.
    Serve(ServeArgs),
    /// Teams: `team add DIR NAME` prints the new team's token once; `team import DIR
    /// CLASS.csv --tokens FILE` adds a whole class.
    #[command(subcommand)]
    Team(team::TeamSub),
    /// A temporary arena with every example agent of one game as a team, served on
    /// localhost with the ladder running: the quickest way to see it all.
    Demo(demo::DemoArgs),
    /// Play ladder matches on this machine for the server at --server, with a worker token:
    /// as many machines as you like (no database credentials needed).
    Worker(worker::WorkerArgs),
    /// Worker tokens: `workers add DIR NAME` prints the new worker's token once.
    #[command(subcommand)]
    Workers(workers::WorkersSub),
    /// Close submissions and play the final: a full round robin of each team's latest valid
    /// version with duplicate deals; writes DIR/final/final.{html,csv,json}.
    Final(finals::FinalArgs),
    /// Undo a trial or mistaken final: uploads and the ladder open again (a running server
    /// sees it at once), /final shows nothing, and the final's unfinished matches leave the
    /// queue; its finished games stay, apart from the ladder's.
    Reopen {
        #[command(flatten)]
        at: Place,
    },
    /// Apply the storage budget ([storage] in arena.toml) now: the retention rule, then the
    /// oldest logs and replays while the games take more than the budget. The server does
    /// it by itself every storage.prune_seconds.
    Prune {
        #[command(flatten)]
        at: Place,
    },
    /// Write every stored game as match logs (one run per match), for research: `croupier
    /// replay FILE --match N --game I` shows one. Games whose replays the storage budget
    /// dropped are left out and counted.
    Export {
        #[command(flatten)]
        at: Place,
        /// The log to write (must not exist yet).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Include the agents' logs (private to each team: mind who gets the file).
        #[arg(long)]
        logs: bool,
    },
}

#[derive(Args)]
struct ServeArgs {
    /// The arena's directory.
    dir: PathBuf,
    /// A PostgreSQL URL (postgres://user:pass@host/db) instead of SQLite in DIR.
    #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
    database: Option<String>,
    /// Listen here instead of the config's address (e.g. 127.0.0.1:0 for any free port).
    #[arg(long)]
    listen: Option<String>,
}

impl ArenaCommand {
    /// Runs the subcommand.
    pub fn execute(&self) -> Result<()> {
        match &self.cmd {
            ArenaSub::Init(a) => a.execute(),
            ArenaSub::Serve(a) => tokio()?.block_on(async {
                let arena = Arena::open(&a.dir, a.database.as_deref()).await?;
                server::serve(arena, a.listen.as_deref(), |addr| {
                    println!("arena listening on http://{addr}/ (Ctrl-C stops it)");
                })
                .await
            }),
            ArenaSub::Team(t) => t.execute(),
            ArenaSub::Demo(a) => a.execute(),
            ArenaSub::Worker(a) => worker::run(a),
            ArenaSub::Workers(w) => w.execute(),
            ArenaSub::Final(a) => a.execute(),
            ArenaSub::Reopen { at } => finals::reopen(at),
            ArenaSub::Prune { at } => tokio()?.block_on(prune::prune(at)),
            ArenaSub::Export { at, out, logs } => tokio()?.block_on(export::export(at, out, *logs)),
        }
    }
}
