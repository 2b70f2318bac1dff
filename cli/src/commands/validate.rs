//! `croupier validate`: which world and version a component implements, or exactly why it
//! cannot load; and how close loading it came to each load limit, so that a slow machine
//! warns before an arena refuses the agent.

use super::with_game;
use anyhow::Result;
use clap::Args;
use croupier_host::cache::{Cache, CacheOutcome};
use croupier_host::limits::Limits;
use croupier_host::{loader, registry};

/// Say which world and version a component implements, or exactly why it cannot load.
#[derive(Args)]
pub struct ValidateCommand {
    /// A .wasm file or an example agent name.
    agent: String,
    /// Compile even if the compile cache holds the file, and reuse none of the functions it
    /// keeps, to measure what compiling it from nothing costs against the compile limits
    /// (the new artifact replaces the cached one).
    #[arg(long)]
    recompile: bool,
}

impl ValidateCommand {
    /// Loads, links and trial-runs the agent, then prints one line: what it is, and what
    /// loading it used of each load limit (one line, so that a script or a test can read it
    /// and no text from the file can start another).
    pub fn execute(&self) -> Result<()> {
        let host = super::runtime(Limits::default(), true)?;
        let spec =
            registry::resolve(&self.agent).map_err(|e| crate::errors::user(e.to_string()))?;
        // With --recompile the file is compiled as if the cache were empty (no compiled
        // functions either); what it compiled is then stored for the next load.
        let read_cache = if self.recompile {
            Cache::disabled()
        } else {
            host.cache.clone()
        };
        let mut loaded = loader::load(&host.engine, &read_cache, &host.limits, &spec.path)
            .map_err(|e| crate::errors::user(e.to_string()))?;
        if self.recompile
            && let Ok(bytes) = std::fs::read(&spec.path)
        {
            let artifact = loaded.component.serialize().unwrap_or_default();
            if !artifact.is_empty() {
                loaded.cache = host.cache.store(&host.engine, &bytes, &artifact);
            }
        }
        // Linking and a trial run are the last checks: they prove the host can
        // instantiate it and that its exports have the world's exact types.
        with_game!(loaded.game, G => host.factory_default::<G>(&loaded).map(drop))
            .map_err(|e| crate::errors::user(e.to_string()))?;
        println!(
            "{}: ok: {} agent, {}/{}-agent@{} ({}, {} KB, loaded in {:.1} ms, {}); {}",
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
            },
            margins(&loaded, &host.limits)
        );
        Ok(())
    }
}

/// `load limits: file 18% of 64 MiB; code 9.3 MiB; compiled in …` : the share of each load
/// limit this load used.
fn margins(loaded: &loader::LoadedComponent, limits: &Limits) -> String {
    let mib = |b: u64| b as f64 / f64::from(1u32 << 20);
    let file = format!(
        "load limits: file {}% of {:.0} MiB; code {:.1} MiB",
        (100.0 * loaded.size as f64 / limits.max_file_bytes.max(1) as f64).round(),
        mib(limits.max_file_bytes),
        mib(loaded.code_bytes),
    );
    match &loaded.compile {
        Some(report) => format!("{file}; {report}"),
        None => format!(
            "{file}; compile limits {} s CPU, {} s wall, {} MiB (from the cache: run with --recompile to measure the compile)",
            limits.compile_cpu_limit(loaded.code_bytes).as_secs(),
            limits.compile_wall(loaded.code_bytes).as_secs(),
            limits.compile_memory_mib
        ),
    }
}
