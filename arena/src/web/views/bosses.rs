//! What the pages and the API show of the bosses: per boss, the statement of
//! [`croupier_tournament::bosses`] (win rate, its 95% interval over deals, and the badge
//! only when the interval's lower bound is above one half), from the board's tallies.

use crate::context::Arena;
use crate::ratings::Board;
use crate::store::db::states::VersionStatus;
use crate::store::db::versions::VersionRow;
use croupier_tournament::bosses::{Statement, statement};
use serde::Serialize;

/// Version `version` (its id) against every boss, weakest boss first.
pub fn statements(arena: &Arena, board: &Board, version: i64) -> Vec<Statement> {
    arena
        .bosses
        .iter()
        .map(|b| {
            let t = board
                .bosses
                .get(&(version, b.id))
                .copied()
                .unwrap_or_default();
            statement(&b.name, &t, arena.boss_deal_games)
        })
        .collect()
}

/// One version of a team against the bosses.
#[derive(Clone, Debug, Serialize)]
pub struct VersionBosses {
    /// Its number within the team.
    pub version: i64,
    /// Against each boss, weakest first.
    pub bosses: Vec<Statement>,
}

/// A team's valid versions that have played a boss, newest first, and its latest valid
/// version whether or not it has yet; empty when the arena has no bosses.
pub fn of_team(arena: &Arena, board: &Board, versions: &[VersionRow]) -> Vec<VersionBosses> {
    if arena.bosses.is_empty() {
        return Vec::new();
    }
    let mut valid: Vec<&VersionRow> = versions
        .iter()
        .filter(|v| v.status == VersionStatus::Valid)
        .collect();
    valid.sort_by_key(|v| std::cmp::Reverse(v.number));
    valid
        .iter()
        .enumerate()
        .map(|(i, v)| (i, v, statements(arena, board, v.id)))
        .filter(|(i, _, s)| *i == 0 || s.iter().any(|s| s.games > 0))
        .map(|(_, v, bosses)| VersionBosses {
            version: v.number,
            bosses,
        })
        .collect()
}
