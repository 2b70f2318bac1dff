//! `croupier replay`: a logged game move by move, as a spectator (or one seat) saw it, as
//! text or (`--html`) as a self-contained page with the browser viewer.

use super::with_game;
use anyhow::{Context, Result};
use clap::Args;
use croupier_tournament::matches;
use croupier_tournament::replay::{self, ReplayError};
use std::path::PathBuf;

/// Show a logged game move by move, as a spectator saw it.
#[derive(Args)]
pub struct ReplayCommand {
    /// A log written by `match --log`.
    file: PathBuf,
    /// The game's index in the run (default: the first game of the last run).
    #[arg(long)]
    game: Option<u64>,
    /// In a log of many matches (`croupier arena export`), the run of the arena's match N
    /// instead of the last.
    #[arg(long = "match", value_name = "N")]
    arena_match: Option<u64>,
    /// Show what this seat saw (its private events, its hand, its agent's log) instead of
    /// the public view.
    #[arg(long)]
    seat: Option<u8>,
    /// Write the replay as one self-contained HTML page (the browser viewer, with the game
    /// inlined) to OUT.html instead of printing it.
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
}

impl ReplayCommand {
    /// Prints the chosen game.
    pub fn execute(&self) -> Result<()> {
        let file = &self.file;
        let runs = matches::log::read_log(file)?;
        let (header, records) = match (self.arena_match, self.game) {
            (Some(m), _) => runs
                .iter()
                .find(|r| r.0.arena_match == Some(m))
                .ok_or_else(|| {
                    crate::errors::user(format!(
                        "{}: no match {m} in this log (it holds {} runs; only an arena's logs number their matches)",
                        file.display(),
                        runs.len()
                    ))
                })?,
            (None, Some(_)) => runs.last().context("empty log")?,
            (None, None) => runs
                .iter()
                .rev()
                .find(|r| !r.1.is_empty())
                .context("empty log")?,
        };
        let rec = match self.game {
            Some(i) => records.iter().find(|r| r.index == i).ok_or_else(|| {
                crate::errors::user(format!(
                    "{}: no game {i} in the run ({} games logged)",
                    file.display(),
                    records.len()
                ))
            })?,
            None => records.first().ok_or_else(|| {
                crate::errors::user(format!("{}: no games logged", file.display()))
            })?,
        };
        let doc = with_game!(header.game, G => replay::replay_doc::<G>(header, rec, self.seat))
            .map_err(|e| crate::errors::user(format!("{}: {}", file.display(), in_flags(&e))))?;
        match &self.html {
            Some(out) => {
                let page = replay::replay_html(&doc, replay::Assets::Inline)?;
                std::fs::write(out, page).map_err(|e| {
                    crate::errors::user(format!("{}: cannot write the page: {e}", out.display()))
                })
            }
            None => Ok(replay::write_text(&doc, &mut std::io::stdout().lock())?),
        }
    }
}

/// A replay error as the command line says it: the library's `seat` is the `--seat` flag.
fn in_flags(e: &ReplayError) -> String {
    match e {
        ReplayError::Seat { seat, index, last } => {
            format!("--seat {seat}: game {index} has seats 0 to {last}")
        }
        e => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The library names the seat by its field; a person typed `--seat`.
    #[test]
    fn a_seat_error_names_the_flag() {
        let e = ReplayError::Seat {
            seat: 4,
            index: 2,
            last: 3,
        };
        assert_eq!(e.to_string(), "seat 4: game 2 has seats 0 to 3");
        assert_eq!(in_flags(&e), "--seat 4: game 2 has seats 0 to 3");
    }
}
