//! `croupier arena demo`: a temporary arena with every example agent of one game as a
//! team, served on localhost with the ladder running.

use super::common::tokio;
use super::init::write_arena;
use crate::commands::{RulesFlags, game};
use anyhow::{Result, bail};
use clap::Args;
use croupier_arena::config::ArenaConfig;
use croupier_arena::context::Arena;
use croupier_arena::web::{manage, server};
use croupier_host::registry;
use std::path::PathBuf;
use std::sync::Arc;

/// Flags of `croupier arena demo`.
#[derive(Args)]
pub struct DemoArgs {
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

impl DemoArgs {
    /// Runs `arena demo`.
    pub fn execute(&self) -> Result<()> {
        let a = self;
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
                let t = std::env::temp_dir()
                    .join(format!("croupier-arena-demo-{}", std::process::id()));
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
        // Three bosses, weakest first, of those built: badges show within about a minute.
        cfg.bosses.agents = croupier_arena::config::suggested_bosses(kind)
            .iter()
            .filter(|b| agents.iter().any(|e| e.id() == **b))
            .map(|b| b.to_string())
            .collect();
        // Anyone who opens the demo may play (`/play`) against every example agent.
        cfg.play.open = true;
        cfg.spar.house = agents
            .iter()
            .map(|e| e.id().to_string())
            .filter(|n| n != &cfg.ladder.reference)
            .collect();
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
                                    Ok(slot) => {
                                        manage::submit(&arena, slot, bytes).await.map(|_| ())
                                    }
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
}

/// Removes the demo's temporary directory when the demo ends.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
