//! `croupier bench`: the speed figures, side by side, in one run.

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

/// Print speed figures: sandbox vs native per decision, instantiation, cold start, whole
/// matches on 1 and 2 threads, rules engines alone, wall time per unit of fuel.
#[derive(Args)]
pub struct BenchCommand {
    /// Fewer rounds and games (a rough look in a few seconds).
    #[arg(long)]
    quick: bool,
    /// Also write the figures as JSON to FILE (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Run one section only: `fuel` (wall time per unit of fuel, the reasoning behind the
    /// default deadline), `match` (source A's match on 1 and 2 threads, sandboxed and
    /// native) or `search` (the search agents' playouts per second, sandboxed and native).
    #[arg(long, value_name = "SECTION", value_parser = ["fuel", "match", "search"])]
    only: Option<String>,
}

impl BenchCommand {
    /// Runs the benchmarks and prints (and writes) the figures.
    pub fn execute(&self) -> Result<()> {
        let figures = crate::bench::run(self.quick, self.only.as_deref())?;
        if let Some(path) = &self.json {
            crate::render::write_json(path, &figures)?;
        }
        Ok(())
    }
}
