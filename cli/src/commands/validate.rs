//! `croupier validate`: which world and version a component implements, or exactly why it
//! cannot load.

use super::with_game;
use anyhow::Result;
use clap::Args;
use croupier_host::cache::CacheOutcome;
use croupier_host::limits::Limits;
use croupier_host::{loader, registry};
use croupier_tournament::matches;

/// Say which world and version a component implements, or exactly why it cannot load.
#[derive(Args)]
pub struct ValidateCommand {
    /// A .wasm file or an example agent name.
    agent: String,
}

impl ValidateCommand {
    /// Loads, links and trial-runs the agent, then prints one line.
    pub fn execute(&self) -> Result<()> {
        let host = super::runtime(Limits::default(), true)?;
        let spec = registry::resolve(&self.agent).map_err(|e| matches::user(e.to_string()))?;
        let loaded = loader::load(&host.engine, &host.cache, &host.limits, &spec.path)
            .map_err(|e| matches::user(e.to_string()))?;
        // Linking and a trial run are the last checks: they prove the host can
        // instantiate it and that its exports have the world's exact types.
        with_game!(loaded.game, G => host.factory_default::<G>(&loaded).map(drop))
            .map_err(|e| matches::user(e.to_string()))?;
        println!(
            "{}: ok: {} agent, {}/{}-agent@{} ({}, {} KB, loaded in {:.1} ms, {})",
            spec.path.display(),
            loaded.game,
            loader::PACKAGE,
            loaded.game,
            loaded.version,
            loaded.language.as_deref().unwrap_or("unknown language"),
            loaded.size / 1024,
            loaded.load_time.as_secs_f64() * 1e3,
            match loaded.cache {
                CacheOutcome::Hit => "from the compile cache",
                _ => "compiled",
            }
        );
        Ok(())
    }
}
