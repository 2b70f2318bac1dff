//! `croupier tournament`: a round robin of matches and a Bradley–Terry ranking.

use super::{MatchCmd, game, runtime, with_game};
use crate::render::{table, write_json};
use anyhow::Result;
use croupier_tournament::matches::round_robin::{self, Pairing, TournamentSummary};

/// Plays every pairing, printing each as it ends, then the ranking; writes the JSON.
pub fn execute(m: &MatchCmd) -> Result<()> {
    let host = runtime(m.limits(), !m.no_cache)?;
    let args = m.args();
    let summary = with_game!(game(&m.game)?, G => {
        round_robin::run_tournament_with::<G>(&host, &args, &(), &mut print_pairing)
    })
    .map_err(crate::errors::of_match)?;
    print_ranking(&summary);
    if let Some(path) = &m.json {
        write_json(path, &summary)?;
    }
    Ok(())
}

/// One finished pairing's line.
pub fn print_pairing(p: &Pairing) {
    println!(
        "{:>24} vs {:<24} {:>5}-{:<5} ({} draws)",
        p.a, p.b, p.a_wins, p.b_wins, p.draws
    );
}

/// The ranking after the pairings: `merge` prints it too, so that it is the same text.
pub fn print_ranking(summary: &TournamentSummary) {
    println!(
        "\n{} ({}) round robin · {} games per pairing · seed {}",
        summary.game, summary.rules, summary.games_per_pairing, summary.seed
    );
    print!("{}", table(&summary.ranking));
    println!("(Elo: Bradley–Terry fit over all pairings, mean 0)");
}
