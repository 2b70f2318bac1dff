//! `croupier-bench`: the speed figures of BENCHMARKS.md, in one run.
//!
//! Sandboxed agents beside the same SDK agents linked natively (`native.rs`), instantiation,
//! cold start, whole matches on 1 and 2 threads, the rules engines alone, and wall time per
//! unit of fuel (`figures.rs`). A binary of its own so that `croupier` links no example agent
//! and no wasmtime of its own. It reads the components `scripts/setup.sh` built, and compiles
//! in a child process through the `croupier` beside it.

mod figures;
mod measure;
mod search;

use anyhow::{Context, Result};
use clap::Parser;
use std::path::PathBuf;

// As `croupier`'s: the figures are of the allocator users run.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Print speed figures: sandbox vs native per decision, instantiation, cold start, whole
/// matches on 1 and 2 threads, rules engines alone, wall time per unit of fuel.
#[derive(Parser)]
#[command(name = "croupier-bench", version)]
struct Args {
    /// Fewer rounds and games (a rough look in a few seconds).
    #[arg(long)]
    quick: bool,
    /// Also write the figures as JSON to FILE (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Run one section only: `fuel` (wall time per unit of fuel, the reasoning behind the
    /// default deadline), `match` (source A's match on 1 and 2 threads, sandboxed and
    /// native), `search` (the search agents' playouts per second, sandboxed and native) or
    /// `boundary` (decisions sandboxed and native, the section to profile with callgrind).
    #[arg(long, value_name = "SECTION", value_parser = ["fuel", "match", "search", "boundary"])]
    only: Option<String>,
    /// Make instances on demand instead of from the pool, in an engine otherwise as played:
    /// for valgrind (`--only boundary --no-pool` under callgrind), which cannot reserve the
    /// pool's address space.
    #[arg(long)]
    no_pool: bool,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let figures = figures::run(args.quick, args.only.as_deref(), args.no_pool)?;
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&figures)?;
        if path.as_os_str() == "-" {
            println!("{text}");
        } else {
            std::fs::write(path, text + "\n")
                .with_context(|| format!("{}: cannot write the figures", path.display()))?;
        }
    }
    Ok(())
}
