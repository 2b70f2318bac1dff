//! `croupier play`: play a game yourself in the terminal against agents.

use super::{RulesFlags, game, with_game};
use crate::human_seat::play;
use anyhow::Result;
use clap::Args;
use croupier_host::limits::Limits;

/// Play a game yourself in the terminal against agents.
#[derive(Args)]
pub struct PlayCommand {
    /// durak, toepen or uno.
    game: String,
    /// Agents for the other seats (they repeat in turn to fill the table).
    #[arg(long = "vs", required = true, num_args = 1.., value_name = "AGENT")]
    vs: Vec<String>,
    #[command(flatten)]
    rules: RulesFlags,
    /// Your seat.
    #[arg(long, default_value_t = 0)]
    seat: u8,
    /// Seed of the deal (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
}

impl PlayCommand {
    /// Deals and plays one game at the terminal.
    pub fn execute(&self) -> Result<()> {
        let host = super::runtime(Limits::default(), true)?;
        let seed = self.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_secs())
        });
        let r = self.rules.args();
        let mut input = std::io::stdin().lock();
        let mut out = std::io::stdout().lock();
        let (vs, seat) = (&self.vs, self.seat);
        with_game!(game(&self.game)?, G => play::<G>(&host, &r, vs, seat, seed, &mut input, &mut out))
    }
}
