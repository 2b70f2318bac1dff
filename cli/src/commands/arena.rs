//! `croupier arena`: make, serve, staff and close a competition server (the `croupier-arena`
//! crate does the work; this file turns flags into calls and prints what the organiser
//! must keep).

use super::{LimitFlags, RulesFlags, game};
use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use croupier_arena::config::ArenaConfig;
use croupier_arena::context::Arena;
use croupier_arena::{auth, manage, server};
use croupier_host::registry;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Run a competition: uploads, a ladder, ratings, pages and replays.
#[derive(Args)]
pub struct ArenaCommand {
    #[command(subcommand)]
    cmd: ArenaSub,
}

#[derive(Subcommand)]
enum ArenaSub {
    /// Write DIR/arena.toml (commented) and the database, and print the organiser's token once.
    Init(InitArgs),
    /// Serve the arena in DIR, with its ladder running, until Ctrl-C or SIGTERM.
    Serve(ServeArgs),
    /// Teams: `team add DIR NAME` prints the new team's token once; `team import DIR
    /// CLASS.csv --tokens FILE` adds a whole class.
    #[command(subcommand)]
    Team(TeamSub),
    /// A temporary arena with every example agent of one game as a team, served on
    /// localhost with the ladder running: the quickest way to see it all.
    Demo(DemoArgs),
    /// Play ladder matches on this machine for the server at --server, with a worker token:
    /// as many machines as you like (no database credentials needed).
    Worker(super::arena_worker::WorkerArgs),
    /// Worker tokens: `workers add DIR NAME` prints the new worker's token once.
    #[command(subcommand)]
    Workers(WorkersSub),
    /// Close submissions and play the final: a full round robin of each team's latest valid
    /// version with duplicate deals; writes DIR/final/final.{html,csv,json}.
    Final(FinalArgs),
    /// Undo a trial or mistaken final: uploads and the ladder open again (a running server
    /// sees it at once), /final shows nothing, and the final's unfinished matches leave the
    /// queue; its finished games stay, apart from the ladder's.
    Reopen {
        /// The arena's directory.
        dir: PathBuf,
        /// A PostgreSQL URL instead of SQLite in DIR.
        #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
        database: Option<String>,
    },
    /// Apply the storage budget ([storage] in arena.toml) now: the retention rule, then the
    /// oldest logs and replays while the games take more than the budget. The server does
    /// it by itself every storage.prune_seconds.
    Prune {
        /// The arena's directory.
        dir: PathBuf,
        /// A PostgreSQL URL instead of SQLite in DIR.
        #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
        database: Option<String>,
    },
    /// Write every stored game as match logs (one run per match), for research: `croupier
    /// replay FILE --match N --game I` shows one. Games whose replays the storage budget
    /// dropped are left out and counted.
    Export {
        /// The arena's directory.
        dir: PathBuf,
        /// The log to write (must not exist yet).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Include the agents' logs (private to each team: mind who gets the file).
        #[arg(long)]
        logs: bool,
        /// A PostgreSQL URL instead of SQLite in DIR.
        #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
        database: Option<String>,
    },
}

#[derive(Args)]
struct InitArgs {
    /// The arena's directory (made if missing; must not hold an arena.toml yet).
    dir: PathBuf,
    /// The game: durak, toepen or uno.
    #[arg(long)]
    game: String,
    #[command(flatten)]
    rules: RulesFlags,
    #[command(flatten)]
    limits: LimitFlags,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: String,
    /// The arena's title on every page.
    #[arg(long)]
    title: Option<String>,
    /// A PostgreSQL URL instead of SQLite in DIR: the organiser's token is stored there, so
    /// give `serve` the same URL.
    #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
    database: Option<String>,
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

#[derive(Subcommand)]
enum TeamSub {
    /// Add a team; prints its token once (only a hash is stored).
    Add {
        /// The arena's directory.
        dir: PathBuf,
        /// The team's name.
        name: String,
        /// A PostgreSQL URL instead of SQLite in DIR.
        #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
        database: Option<String>,
    },
    /// Give the team a new token, printed once; the old one stops working at once (when
    /// one leaked).
    Token {
        /// The arena's directory.
        dir: PathBuf,
        /// The team's name.
        name: String,
        /// A PostgreSQL URL instead of SQLite in DIR.
        #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
        database: Option<String>,
    },
    /// Take a team out of the ladder (it left the course, or is disqualified): it plays no
    /// new games, leaves the ranking and the final, and its uploads are refused. Its games
    /// stay. A running server sees it within a second.
    Withdraw {
        /// The arena's directory.
        dir: PathBuf,
        /// The team's name.
        name: String,
        /// Why, shown on the leaderboard and the team's page.
        #[arg(long, default_value = "")]
        reason: String,
        /// A PostgreSQL URL instead of SQLite in DIR.
        #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
        database: Option<String>,
    },
    /// Put a withdrawn team back in the ladder, with the rating it had.
    Reinstate {
        /// The arena's directory.
        dir: PathBuf,
        /// The team's name.
        name: String,
        /// A PostgreSQL URL instead of SQLite in DIR.
        #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
        database: Option<String>,
    },
    /// Add a whole class from a CSV file (the team's name first; other columns are kept):
    /// every line is checked first, and each new token goes to the file --tokens names
    /// (made new, readable by you only). Nothing is added if any line is wrong.
    Import {
        /// The arena's directory.
        dir: PathBuf,
        /// The class list (CSV; a first row starting `team` or `name` is a header).
        class: PathBuf,
        /// Where to write each team's token (must not exist yet).
        #[arg(long)]
        tokens: PathBuf,
        /// A PostgreSQL URL instead of SQLite in DIR.
        #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
        database: Option<String>,
    },
    /// List the teams, and which are withdrawn.
    List {
        /// The arena's directory.
        dir: PathBuf,
        /// A PostgreSQL URL instead of SQLite in DIR.
        #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
        database: Option<String>,
    },
}

#[derive(Subcommand)]
enum WorkersSub {
    /// Add a worker; prints its token once (only a hash is stored). The token opens the
    /// worker API only.
    Add {
        /// The arena's directory.
        dir: PathBuf,
        /// The worker's name.
        name: String,
        /// A PostgreSQL URL instead of SQLite in DIR.
        #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
        database: Option<String>,
    },
    /// Give the worker a new token, printed once; the old one stops working at once (a
    /// worker still running with it stops at its next call).
    Token {
        /// The arena's directory.
        dir: PathBuf,
        /// The worker's name.
        name: String,
        /// A PostgreSQL URL instead of SQLite in DIR.
        #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
        database: Option<String>,
    },
    /// Remove a worker: its token stops working at once, and the matches it held are played
    /// by other workers when their leases run out.
    Remove {
        /// The arena's directory.
        dir: PathBuf,
        /// The worker's name.
        name: String,
        /// A PostgreSQL URL instead of SQLite in DIR.
        #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
        database: Option<String>,
    },
    /// List the workers and when each was last heard from.
    List {
        /// The arena's directory.
        dir: PathBuf,
        /// A PostgreSQL URL instead of SQLite in DIR.
        #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
        database: Option<String>,
    },
}

#[derive(Args)]
struct DemoArgs {
    /// The game whose example agents play.
    #[arg(long, default_value = "durak")]
    game: String,
    /// Rule preset (default: the game's first).
    #[arg(long)]
    rules: Option<String>,
    /// Where to listen.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: String,
    /// Keep the arena here instead of a temporary directory.
    #[arg(long)]
    dir: Option<PathBuf>,
}

#[derive(Args)]
struct FinalArgs {
    /// The arena's directory.
    dir: PathBuf,
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
    /// A PostgreSQL URL instead of SQLite in DIR.
    #[arg(long, env = "CROUPIER_DATABASE", hide_env_values = true)]
    database: Option<String>,
}

fn tokio() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

impl ArenaCommand {
    /// Runs the subcommand.
    pub fn execute(&self) -> Result<()> {
        match &self.cmd {
            ArenaSub::Init(a) => init(a),
            ArenaSub::Serve(a) => tokio()?.block_on(async {
                let arena = Arena::open(&a.dir, a.database.as_deref()).await?;
                server::serve(arena, a.listen.as_deref(), |addr| {
                    println!("arena listening on http://{addr}/ (Ctrl-C stops it)");
                })
                .await
            }),
            ArenaSub::Team(TeamSub::Add {
                dir,
                name,
                database,
            }) => add_with_token(dir, database.as_deref(), name, Holder::Team),
            ArenaSub::Export {
                dir,
                out,
                logs,
                database,
            } => tokio()?.block_on(super::arena_export::export(
                dir,
                database.as_deref(),
                out,
                *logs,
            )),
            ArenaSub::Prune { dir, database } => {
                tokio()?.block_on(super::arena_prune::prune(dir, database.as_deref()))
            }
            ArenaSub::Reopen { dir, database } => tokio()?.block_on(async {
                let arena = Arena::open(dir, database.as_deref()).await?;
                let r = croupier_arena::finals::reopen(&arena).await?;
                arena.db.close().await;
                if !r.was_frozen && !r.had_table {
                    println!("{}: no final to undo; uploads were open", dir.display());
                    return Ok(());
                }
                println!(
                    "{}: reopened: uploads and the ladder go on{}{}",
                    dir.display(),
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
            }),
            ArenaSub::Team(TeamSub::Import {
                dir,
                class,
                tokens,
                database,
            }) => tokio()?.block_on(super::arena_import::import(
                dir,
                database.as_deref(),
                class,
                tokens,
            )),
            ArenaSub::Team(TeamSub::List { dir, database }) => tokio()?.block_on(async {
                let arena = Arena::open(dir, database.as_deref()).await?;
                for t in arena.db.teams().await? {
                    let standing = match &t.withdrawn {
                        None => "plays".to_string(),
                        Some(why) if why.is_empty() => "withdrawn".into(),
                        Some(why) => format!("withdrawn: {}", croupier_host::text::escape(why)),
                    };
                    println!(
                        "{}\t{}\t{standing}",
                        t.id,
                        croupier_host::text::escape(&t.name)
                    );
                }
                arena.db.close().await;
                Ok(())
            }),
            ArenaSub::Team(TeamSub::Token {
                dir,
                name,
                database,
            }) => new_token(dir, database.as_deref(), name, Holder::Team),
            ArenaSub::Team(TeamSub::Withdraw {
                dir,
                name,
                reason,
                database,
            }) => standing(dir, database.as_deref(), name, Some(reason)),
            ArenaSub::Team(TeamSub::Reinstate {
                dir,
                name,
                database,
            }) => standing(dir, database.as_deref(), name, None),
            ArenaSub::Workers(WorkersSub::Token {
                dir,
                name,
                database,
            }) => new_token(dir, database.as_deref(), name, Holder::Worker),
            ArenaSub::Workers(WorkersSub::Remove {
                dir,
                name,
                database,
            }) => tokio()?.block_on(async {
                let arena = Arena::open(dir, database.as_deref()).await?;
                let in_dir =
                    |e: croupier_arena::errors::AppError| anyhow::anyhow!("{}: {e}", dir.display());
                let id = manage::worker_named(&arena, name).await.map_err(in_dir)?;
                manage::remove_worker(&arena, id).await.map_err(in_dir)?;
                println!(
                    "worker {id} `{}` removed: its token no longer works",
                    croupier_host::text::escape(name)
                );
                arena.db.close().await;
                Ok(())
            }),
            ArenaSub::Worker(a) => super::arena_worker::run(a),
            ArenaSub::Workers(WorkersSub::Add {
                dir,
                name,
                database,
            }) => add_with_token(dir, database.as_deref(), name, Holder::Worker),
            ArenaSub::Workers(WorkersSub::List { dir, database }) => tokio()?.block_on(async {
                let arena = Arena::open(dir, database.as_deref()).await?;
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
            }),
            ArenaSub::Demo(a) => demo(a),
            ArenaSub::Final(a) => tokio()?.block_on(async {
                let arena = Arena::open(&a.dir, a.database.as_deref()).await?;
                let venue = if a.workers {
                    croupier_arena::finals::Venue::Workers
                } else {
                    croupier_arena::finals::Venue::Here {
                        threads: super::threads(a.threads),
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
                println!(
                    "written: {}",
                    a.dir.join("final").join("final.{html,csv,json}").display()
                );
                arena.db.close().await;
                Ok(())
            }),
        }
    }
}

/// Who a new token is for.
enum Holder {
    Team,
    Worker,
}

/// Adds a team or a worker and prints its token, once: only its hash is kept.
fn add_with_token(dir: &Path, database: Option<&str>, name: &str, who: Holder) -> Result<()> {
    tokio()?.block_on(async {
        let arena = Arena::open(dir, database).await?;
        let (t, what, give) = match who {
            Holder::Team => (manage::add_team(&arena, name).await, "team", "the team"),
            Holder::Worker => (
                manage::add_worker(&arena, name).await,
                "worker",
                "`croupier arena worker` in CROUPIER_WORKER_TOKEN",
            ),
        };
        let t = t.map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
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
fn new_token(dir: &Path, database: Option<&str>, name: &str, who: Holder) -> Result<()> {
    tokio()?.block_on(async {
        let arena = Arena::open(dir, database).await?;
        let (t, what) = match who {
            Holder::Team => (
                async { manage::new_team_token(&arena, manage::team_named(&arena, name).await?).await }
                    .await,
                "team",
            ),
            Holder::Worker => (
                async {
                    manage::new_worker_token(&arena, manage::worker_named(&arena, name).await?)
                        .await
                }
                .await,
                "worker",
            ),
        };
        let t = t.map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
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

/// `arena team withdraw` (`reason` given) and `arena team reinstate` (`None`).
fn standing(dir: &Path, database: Option<&str>, name: &str, reason: Option<&str>) -> Result<()> {
    tokio()?.block_on(async {
        let arena = Arena::open(dir, database).await?;
        let t = async {
            let id = manage::team_named(&arena, name).await?;
            match reason {
                Some(why) => manage::withdraw_team(&arena, id, why).await,
                None => manage::reinstate_team(&arena, id).await,
            }
        }
        .await
        .map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
        let says = match t.withdrawn {
            Some(_) => "withdrawn: it plays no new games, leaves the ranking and takes no uploads",
            None => "is back in the ladder",
        };
        println!(
            "team {} `{}` {says}",
            t.id,
            croupier_host::text::escape(&t.name)
        );
        arena.db.close().await;
        Ok(())
    })
}

fn init(a: &InitArgs) -> Result<()> {
    let kind = game(&a.game)?;
    let (preset, _) = croupier_tournament::with_game!(kind, G => croupier_tournament::matches::setup::options::<G>(&a.rules.args()).map(|(p, _)| (p, ()))).map_err(crate::errors::of_options)?;
    let mut cfg = ArenaConfig::new(kind, &preset);
    cfg.set = a.rules.set.clone();
    if a.rules.players.is_some() {
        bail!(crate::errors::user(
            "--players: set the seats with --set players=N in an arena"
        ));
    }
    cfg.limits = a.limits.limits();
    cfg.listen = a.listen.clone();
    if let Some(t) = &a.title {
        cfg.title = t.clone();
    }
    let token = write_arena(&a.dir, &cfg, a.database.as_deref())?;
    println!("arena written to {}", a.dir.join("arena.toml").display());
    println!("organiser token (shown only now; it signs in to /admin):");
    println!("{token}");
    let db = a
        .database
        .as_ref()
        .map(|_| " --database URL")
        .unwrap_or_default();
    println!(
        "next: croupier arena team add {} NAME{db}; croupier arena serve {}{db}",
        a.dir.display(),
        a.dir.display()
    );
    Ok(())
}

/// Writes `dir/arena.toml` and the database (SQLite in `dir`, or `database`) with a new
/// organiser token; returns the token.
fn write_arena(dir: &Path, cfg: &ArenaConfig, database: Option<&str>) -> Result<String> {
    let path = dir.join("arena.toml");
    if path.exists() {
        bail!(crate::errors::user(format!(
            "{}: exists; an arena is made once (edit the file, or choose another DIR)",
            path.display()
        )));
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("{}: cannot make the directory", dir.display()))?;
    cfg.check(&path)
        .map_err(|e| crate::errors::user(e.to_string()))?;
    std::fs::write(&path, cfg.to_commented_toml())
        .with_context(|| format!("{}: cannot write", path.display()))?;
    let token = auth::admin_token()?;
    let stored = tokio()?.block_on(async {
        let arena = Arena::open(dir, database).await?;
        arena
            .db
            .set_meta("admin_token_sha256", &auth::hex(&auth::hash(&token)))
            .await?;
        arena.db.close().await;
        anyhow::Ok(())
    });
    if stored.is_err() {
        // Without its token the arena cannot be run: take the config back, so that the same
        // command works once the database can be reached.
        let _ = std::fs::remove_file(&path);
    }
    stored?;
    Ok(token)
}

fn demo(a: &DemoArgs) -> Result<()> {
    let kind = game(&a.game)?;
    let agents: Vec<registry::Example> = registry::examples()
        .into_iter()
        .filter(|e| e.game == kind)
        .collect();
    if agents.len() < 2 {
        bail!(crate::errors::user(format!(
            "the demo needs the {} example agents built: run `croupier build`",
            kind.name()
        )));
    }
    let (dir, _keep) = match &a.dir {
        Some(d) => (d.clone(), None),
        None => {
            let t =
                std::env::temp_dir().join(format!("croupier-arena-demo-{}", std::process::id()));
            (t.clone(), Some(TempDir(t)))
        }
    };
    let rules = RulesFlags {
        rules: a.rules.clone(),
        players: None,
        set: Vec::new(),
    };
    let (preset, _) = croupier_tournament::with_game!(kind, G => croupier_tournament::matches::setup::options::<G>(&rules.args()).map(|(p, _)| (p, ()))).map_err(crate::errors::of_options)?;
    let mut cfg = ArenaConfig::new(kind, &preset);
    cfg.title = format!("{} demo arena", kind.name());
    cfg.listen = a.listen.clone();
    // A demo shows the ladder at full speed; a course's pace is for a course.
    cfg.storage.plan_days = 0;
    let admin = write_arena(&dir, &cfg, None)?;
    // Compiled agents first: an interpreted one (Python, 18 MB) takes seconds to compile.
    let mut agents = agents;
    agents.sort_by_key(|e| {
        std::fs::metadata(&e.path)
            .map(|m| m.len())
            .unwrap_or(u64::MAX)
    });
    tokio()?.block_on(async {
        let arena: Arc<Arena> = Arena::open(&dir, None).await?;
        println!(
            "demo arena in {} ({} {})",
            dir.display(),
            kind.name(),
            preset
        );
        println!("organiser token: {admin}");
        let mut teams = Vec::new();
        for e in &agents {
            let t = manage::add_team(&arena, &e.name)
                .await
                .map_err(|x| anyhow::anyhow!("{x}"))?;
            println!("team {:<14} {}", t.name, t.token);
            teams.push((t.id, e.path.clone()));
        }
        // The uploads go in while the server already serves, so the page is up at once and
        // the ladder starts as soon as two agents are valid.
        let uploads = {
            let arena = arena.clone();
            tokio::spawn(async move {
                for (id, path) in teams {
                    match std::fs::read(&path) {
                        Ok(bytes) => {
                            let done = match manage::begin_upload(&arena, id).await {
                                Ok(slot) => manage::submit(&arena, slot, bytes).await.map(|_| ()),
                                Err(e) => Err(e),
                            };
                            if let Err(e) = done {
                                eprintln!("demo: {}: {e}", path.display());
                            }
                        }
                        Err(e) => eprintln!("demo: {}: {e}", path.display()),
                    }
                }
            })
        };
        let served = server::serve(arena, None, |addr| {
            println!("open http://{addr}/ (Ctrl-C stops the demo and removes its directory)");
        })
        .await;
        uploads.abort();
        served
    })
}

/// Removes the demo's temporary directory when the demo ends.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
