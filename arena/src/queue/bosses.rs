//! Which boss matches the ladder queues: every team's latest valid version against every
//! boss (`bosses.agents`), in duplicate deals, unrated.
//!
//! The budget, per (version, boss): `bosses.first` deals at once, so a new version's
//! badges show within a minute or two; after that the deals grow with the version's rated
//! games, up to `bosses.share` of them split among the bosses, so the intervals keep
//! narrowing while the version plays (as the square root of its time on the ladder) and a
//! version that sits for weeks is still measured, never more than that share. Of the
//! matches waiting in the queue, at most half are boss matches while the ladder has a match
//! to queue, so a class uploading together (each version owing `first` deals to each boss)
//! slows the ladder by about half for a few minutes and never stops it. (Half of what is
//! queued in each top-up was not that: the scheduler tops up one match at a time, and a
//! boss match took every one of them, three boss games to one rated game in the demo.) The
//! boss games count against the storage budget's pace like any other.

use crate::config::Bosses;
use std::collections::HashMap;

/// The deals (version, boss) should have played once the version has `rated_games` rated
/// games, with `bosses` bosses and `deal_games` games per deal.
pub fn budget(cfg: &Bosses, rated_games: u64, bosses: usize, deal_games: u64) -> u64 {
    let per_boss = cfg.share * rated_games as f64 / bosses.max(1) as f64;
    let grown = (per_boss / deal_games.max(1) as f64).floor() as u64;
    cfg.first.max(grown)
}

/// The pairs (version, boss id) owed a match now, at most `max`, furthest below their
/// budget first (then weakest boss first, then oldest version): one match each, since the
/// next top-up counts it among the open ones. `versions` are (id, rated games); `played`
/// holds each pair's deals counted or already queued.
pub fn due(
    cfg: &Bosses,
    versions: &[(i64, u64)],
    bosses: &[i64],
    played: &HashMap<(i64, i64), u64>,
    deal_games: u64,
    max: usize,
) -> Vec<(i64, i64)> {
    let mut owed: Vec<(f64, usize, i64, i64)> = Vec::new();
    for &(v, rated) in versions {
        let want = budget(cfg, rated, bosses.len(), deal_games);
        for (order, &b) in bosses.iter().enumerate() {
            let have = played.get(&(v, b)).copied().unwrap_or(0);
            if have < want {
                owed.push((have as f64 / want as f64, order, v, b));
            }
        }
    }
    owed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    owed.into_iter().take(max).map(|o| (o.2, o.3)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> Bosses {
        Bosses {
            agents: Vec::new(),
            deals: 8,
            first: 32,
            share: 0.25,
        }
    }

    /// `first` deals at once; then a quarter of the rated games, split among the bosses.
    #[test]
    fn the_budget_starts_at_first_and_grows_with_rated_games() {
        let c = cfg();
        assert_eq!(budget(&c, 0, 3, 2), 32);
        // 0.25 · 600 / 3 bosses / 2 games a deal = 25 deals: still `first`.
        assert_eq!(budget(&c, 600, 3, 2), 32);
        // 0.25 · 6000 / 3 / 2 = 250.
        assert_eq!(budget(&c, 6000, 3, 2), 250);
        let none = Bosses { share: 0.0, ..c };
        assert_eq!(budget(&none, 1_000_000, 3, 2), 32);
    }

    /// Pairs furthest below budget go first, one match each, never more than asked; a pair
    /// at its budget is owed nothing.
    #[test]
    fn the_pairs_furthest_behind_go_first() {
        let c = cfg();
        let mut played = HashMap::new();
        played.insert((1, 10), 32);
        played.insert((1, 11), 8);
        played.insert((2, 10), 16);
        let versions = [(1, 0), (2, 0)];
        let all = due(&c, &versions, &[10, 11], &played, 2, 10);
        assert_eq!(all, vec![(2, 11), (1, 11), (2, 10)]);
        assert_eq!(due(&c, &versions, &[10, 11], &played, 2, 2).len(), 2);
        assert!(due(&c, &versions, &[], &played, 2, 10).is_empty());
    }
}
