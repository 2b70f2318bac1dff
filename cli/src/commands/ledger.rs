//! `croupier ledger`: what the recorded parts of a long soak add up to.

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Sum up a soak ledger (`soak --record`): which games of each soak its parts checked, and
/// what they found.
#[derive(Args)]
pub struct LedgerCommand {
    /// The ledger file (one JSON line per part).
    file: PathBuf,
}

impl LedgerCommand {
    /// Prints the summary; exit code 1 when a recorded part found a violation.
    pub fn execute(&self) -> Result<ExitCode> {
        let records = crate::soak_ledger::read(&self.file)?;
        print!("{}", crate::soak_ledger::summary(&records));
        Ok(if records.iter().any(|r| r.violations > 0) {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    }
}
