//! Who sits where: an entrant of a match, its player made and started in one seat, and the
//! seats' teams. What the runner ([`crate::runner`]) and a person's game ([`crate::human`])
//! both seat their agents with; a leaf, so that neither imports the other for it.

use croupier_host::player::{Player, PlayerFactory, StartInfo, StartRules};
use croupier_host::sandbox::MakeError;
use croupier_host::verdict::Fault;
use croupier_rules::Game;
use std::sync::Arc;

/// One agent argument of a match.
pub struct Entrant<G: Game> {
    /// As given on the command line (`durak/cheapest`, `./my.wasm#iters=100`).
    pub name: String,
    /// The agent arguments (the text after `#`), sent at the start of each game.
    pub args: String,
    /// Makes the entrant's player for each game; under `--watch`, switches to a new build when the
    /// file changes.
    pub factory: Arc<dyn PlayerFactory<G>>,
}

/// Each seat's team, and what a record keeps of them: the list, only when every seat has one.
pub(crate) fn seat_teams<G: Game>(game: &G) -> (Vec<Option<u8>>, Option<Vec<u8>>) {
    let teams: Vec<Option<u8>> = (0..game.num_players() as u8)
        .map(|s| game.team_of(s))
        .collect();
    let all = teams
        .iter()
        .all(Option::is_some)
        .then(|| teams.iter().map(|t| t.unwrap_or(0)).collect());
    (teams, all)
}

/// Makes `entrant`'s player and starts it in `seat` of `players` with `seed`: the agent's
/// fault when it cannot start, or `Err` saying what the host ran out of. The runner, a
/// person's game and the learning environments (`croupier-learn`) all seat agents with it.
pub fn start_player<G: Game>(
    entrant: &Entrant<G>,
    seat: usize,
    players: usize,
    rules: &StartRules,
    seed: u64,
) -> Result<Result<Box<dyn Player<G>>, Fault>, String> {
    match entrant.factory.make(seed) {
        Ok(mut p) => Ok(p
            .start(&StartInfo {
                seat: seat as u8,
                players: players as u8,
                rules: rules.clone(),
                seed,
                args: entrant.args.clone(),
            })
            .map(|()| p)),
        Err(MakeError::Agent(f)) => Ok(Err(f)),
        Err(MakeError::Host(reason)) => Err(reason),
    }
}
