//! `croupier merge`: the logs of a sharded match or tournament (`--shard K/N --log FILE`)
//! put back together into the unsharded run's table, JSON and log.

use crate::errors::user;
use crate::render::{print_summary, write_json};
use anyhow::{Context, Result};
use clap::Args;
use croupier_tournament::merge::{self, MergedSummary};
use std::io::Write;
use std::path::PathBuf;

/// Put the parts of a sharded match or tournament together.
#[derive(Args)]
pub struct MergeCommand {
    /// Every part's log (written with --shard K/N --log FILE), in any order.
    #[arg(required = true)]
    parts: Vec<PathBuf>,
    /// Write the JSON summary to FILE (`-` for stdout), as the unsharded run's --json.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the merged log to FILE (replaced), as the unsharded run's --log.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
}

impl MergeCommand {
    /// Checks the parts, prints the table, writes the JSON and the log.
    pub fn execute(&self) -> Result<()> {
        let merged = merge::merge(&self.parts).map_err(|e| user(e.to_string()))?;
        if let Some(path) = &self.log {
            // Replacing a part with the whole would lose that part.
            let same = |p: &PathBuf| {
                p == path
                    || matches!((p.canonicalize(), path.canonicalize()), (Ok(a), Ok(b)) if a == b)
            };
            if self.parts.iter().any(same) {
                return Err(user(format!(
                    "{}: --log would overwrite one of the parts",
                    path.display()
                )));
            }
            // Written beside the target and renamed, so a crash leaves no half log.
            let tmp = path.with_extension("merging");
            let write = || -> Result<()> {
                let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
                merged.write_log(&mut w)?;
                w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
                std::fs::rename(&tmp, path)?;
                Ok(())
            };
            write().with_context(|| format!("{}: cannot write the merged log", path.display()))?;
        }
        match &merged.summary {
            MergedSummary::Match(s) => {
                print_summary(s);
                if let Some(path) = &self.json {
                    write_json(path, s)?;
                }
            }
            MergedSummary::Tournament(s) => {
                s.pairings.iter().for_each(super::tournament::print_pairing);
                super::tournament::print_ranking(s);
                if let Some(path) = &self.json {
                    write_json(path, s)?;
                }
            }
        }
        std::io::stdout().flush()?;
        Ok(())
    }
}
