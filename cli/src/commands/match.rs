//! `croupier match`: N games between agents, and a table per agent.

use super::{MatchCmd, game, runtime, with_game};
use crate::render::{Bar, print_summary, write_json};
use anyhow::Result;
use croupier_tournament::matches;
use croupier_tournament::watch::Report;
use std::sync::Arc;

/// Plays the match the flags describe, prints its table and writes its JSON.
pub fn execute(m: &MatchCmd) -> Result<()> {
    let host = runtime(m.limits(), !m.no_cache)?;
    let args = m.args();
    let bar = Bar::for_games(!m.quiet, m.games);
    // The watcher's reports go to stderr, beside the progress bar.
    let report: Report = Arc::new(|line| eprintln!("{line}"));
    let summary = with_game!(game(&m.game)?, G => {
        matches::run_match_with::<G>(&host, &args, &bar, report)
    });
    bar.finish();
    let summary = summary.map_err(crate::errors::of_match)?;
    print_summary(&summary);
    if let Some(path) = &m.json {
        write_json(path, &summary)?;
    }
    Ok(())
}
