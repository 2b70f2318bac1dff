//! `croupier build`: agent crates (and Python agents) into components.

use crate::build_route;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

/// Build agent crates into components (default: every crate in example-agents/).
#[derive(Args)]
pub struct BuildCommand {
    /// Agent crate directories.
    dirs: Vec<PathBuf>,
    /// Write components to DIR/<game>/<name>.wasm (default: <target>/agents).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Show cargo's output.
    #[arg(long, short)]
    verbose: bool,
}

impl BuildCommand {
    /// Builds and prints one line per component.
    pub fn execute(&self) -> Result<()> {
        let all = self.dirs.is_empty();
        let dirs = if all {
            build_route::example_dirs()
        } else {
            self.dirs.clone()
        };
        // Building every example tolerates a missing componentize-py (with a warning);
        // naming a Python agent explicitly does not.
        let built = build_route::build_any(&dirs, self.out.as_deref(), self.verbose, all)?;
        for b in built {
            println!(
                "built {}/{} ({} KB): {}",
                b.game,
                b.name,
                b.size / 1024,
                b.path.display()
            );
        }
        Ok(())
    }
}
