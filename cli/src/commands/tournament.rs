//! `croupier tournament`: a round robin of matches and a Bradley–Terry ranking.

use super::{MatchCmd, game, with_game};
use anyhow::Result;
use croupier_host::driver::{self, Host};

/// Plays every pairing and prints the ranking.
pub fn execute(m: &MatchCmd) -> Result<()> {
    let host = Host::new(m.limits(), !m.no_cache)?;
    let args = m.args();
    with_game!(game(&m.game)?, G => driver::run_tournament::<G>(&host, &args).map(drop))
}
