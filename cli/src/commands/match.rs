//! `croupier match`: N games between agents, and a table per agent.

use super::{MatchCmd, game, with_game};
use anyhow::Result;
use croupier_host::driver::{self, Host};

/// Plays the match the flags describe and prints its table.
pub fn execute(m: &MatchCmd) -> Result<()> {
    let host = Host::new(m.limits(), !m.no_cache)?;
    let args = m.args();
    with_game!(game(&m.game)?, G => driver::run_match::<G>(&host, &args).map(drop))
}
