//! `croupier new`: a ready agent crate to start from.

use super::game;
use anyhow::Result;
use clap::{Args, ValueEnum};

/// The language of a new agent project.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Lang {
    /// A Rust crate using the croupier SDK.
    #[default]
    Rust,
    /// A C project (clang, wit-bindgen c, wasm-tools; see scripts/setup.sh).
    C,
}

/// Create a ready agent crate in ./NAME: a simple legal strategy to start from.
#[derive(Args)]
pub struct NewCommand {
    /// durak, toepen or uno.
    game: String,
    /// The crate's name (lower-case, digits, dashes).
    name: String,
    /// The agent's language.
    #[arg(long, value_enum, default_value_t = Lang::Rust)]
    lang: Lang,
}

impl NewCommand {
    /// Writes the crate and says what to do next.
    pub fn execute(&self) -> Result<()> {
        let (game, parent) = (game(&self.game)?, std::path::Path::new("."));
        let dir = match self.lang {
            Lang::Rust => crate::scaffold::create(game, &self.name, parent)?,
            Lang::C => crate::scaffold::c::create(game, &self.name, parent)?,
        };
        println!("created {}", dir.display());
        println!(
            "next: cd {} && croupier build .   (see its README.md)",
            dir.display()
        );
        Ok(())
    }
}
