//! `croupier tournament`: a round robin of matches and a Bradley–Terry ranking.

use super::{MatchCmd, game, runtime, with_game};
use crate::render::{table, write_json};
use anyhow::Result;
use croupier_tournament::matches::{self, Pairing};

/// Plays every pairing, printing each as it ends, then the ranking; writes the JSON.
pub fn execute(m: &MatchCmd) -> Result<()> {
    let host = runtime(m.limits(), !m.no_cache)?;
    let args = m.args();
    let mut show = |p: &Pairing| {
        println!(
            "{:>24} vs {:<24} {:>5}-{:<5} ({} draws)",
            p.a, p.b, p.a_wins, p.b_wins, p.draws
        );
    };
    let summary = with_game!(game(&m.game)?, G => {
        matches::run_tournament_with::<G>(&host, &args, &(), &mut show)
    })?;
    println!(
        "\n{} ({}) round robin · {} games per pairing · seed {}",
        summary.game, summary.rules, m.games, m.seed
    );
    print!("{}", table(&summary.ranking));
    println!("(Elo: Bradley–Terry fit over all pairings, mean 0)");
    if let Some(path) = &m.json {
        write_json(path, &summary)?;
    }
    Ok(())
}
