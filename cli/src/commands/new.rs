//! `croupier new`: a ready agent crate to start from.

use super::game;
use anyhow::Result;
use clap::Args;

/// Create a ready agent project in ./NAME (a Rust crate, or with --lang python, c, js or ts
/// a Python, C, JavaScript or TypeScript project): a simple legal strategy to start from, a README and a test.
#[derive(Args)]
pub struct NewCommand {
    /// durak, toepen or uno.
    game: String,
    /// The project's name (lower-case, digits, dashes).
    name: String,
    /// The language of the project.
    #[arg(long, value_enum, default_value_t)]
    lang: crate::scaffold::Lang,
}

impl NewCommand {
    /// Writes the crate and says what to do next.
    pub fn execute(&self) -> Result<()> {
        let dir = crate::scaffold::create_lang(
            self.lang,
            game(&self.game)?,
            &self.name,
            std::path::Path::new("."),
        )?;
        println!("created {}", dir.display());
        println!(
            "next: cd {} && croupier build .   (see its README.md)",
            dir.display()
        );
        Ok(())
    }
}
