//! `croupier new`: a ready agent crate to start from.

use super::game;
use anyhow::Result;
use clap::Args;

/// Create a ready agent crate in ./NAME: a simple legal strategy to start from.
#[derive(Args)]
pub struct NewCommand {
    /// durak, toepen or uno.
    game: String,
    /// The crate's name (lower-case, digits, dashes).
    name: String,
}

impl NewCommand {
    /// Writes the crate and says what to do next.
    pub fn execute(&self) -> Result<()> {
        let dir =
            crate::scaffold::create(game(&self.game)?, &self.name, std::path::Path::new("."))?;
        println!("created {}", dir.display());
        println!(
            "next: cd {} && croupier build .   (see its README.md)",
            dir.display()
        );
        Ok(())
    }
}
