//! `croupier arena init`: write DIR/arena.toml (commented) and the database, and print the
//! organiser's token once.

use super::common::tokio;
use crate::commands::{LimitFlags, RulesFlags, game};
use anyhow::{Context, Result, bail};
use clap::Args;
use croupier_arena::auth;
use croupier_arena::config::ArenaConfig;
use croupier_arena::context::Arena;
use std::path::{Path, PathBuf};

/// Flags of `croupier arena init`.
#[derive(Args)]
pub struct InitArgs {
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

impl InitArgs {
    /// Runs `arena init`.
    pub fn execute(&self) -> Result<()> {
        let a = self;
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
}

/// Writes `dir/arena.toml` and the database (SQLite in `dir`, or `database`) with a new
/// organiser token; returns the token.
pub(super) fn write_arena(dir: &Path, cfg: &ArenaConfig, database: Option<&str>) -> Result<String> {
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
