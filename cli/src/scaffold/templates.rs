//! Each game's templates and names for `croupier new`, from its module in
//! `croupier_tournament::games`: a leaf that the scaffold and every language's part import.

use croupier_host::loader::GameKind;
use croupier_tournament::games::{Presentation, Scaffold};
use croupier_tournament::with_game;

/// What `croupier new` writes for `game` (its module in `croupier_tournament::games`).
pub fn new_files(game: GameKind) -> &'static Scaffold {
    with_game!(game, G => G::NEW)
}

/// The example agent a new project's README plays against first.
pub fn first_opponent(game: GameKind) -> &'static str {
    with_game!(game, G => G::FIRST_OPPONENT)
}
