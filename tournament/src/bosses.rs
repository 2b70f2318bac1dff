//! Bosses: fixed agents every entrant is measured against, so that a course can say "beat
//! the medium boss for a pass" and a statement such as "beats cheapest (95%)" means the same
//! in the arena, in its final and in `croupier tournament --bosses`.
//!
//! What a game counts: the entrant against the boss, each by its best seat (a win above a
//! draw above a loss), as the arena's ratings rank the sides of a game. A game the entrant
//! places above the boss scores 1, level ½ (a drawn game, or both sides winning a seat of a
//! free-for-all), below 0. In two seats and in 2 v 2 that is the game's result.
//!
//! The unit is the deal, not the game. A boss is always played in duplicate deals: every
//! deal once per seat rotation, so the rotations of one deal share its cards and nothing
//! makes them independent draws: how they go together depends on the agents (docs/arena.md
//! measures it: close to independent for different agents, strongly opposed for two copies
//! of one). Deals are independent (each from its own seed), so a deal's score, the mean of
//! its rotations (0, ¼, ½, … 1), is the unit. The interval is Wilson's on the number of
//! deals with the summed deal scores ([`stats::wilson_score`]): for scores in [0, 1] its
//! variance p(1 − p) is the largest any such score can have, so it is conservative whatever
//! the rotations' correlation is. The badge is given only when the interval's lower bound
//! is above ½ ([`beats`]): the entrant beats the boss with 95% confidence (one-sided,
//! 97.5%).

use crate::runner::Schedule;
use crate::stats;
use croupier_rules::SeatResult;
use serde::{Deserialize, Serialize};

/// How one game went for the entrant against the boss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Duel {
    /// The entrant's best seat placed above the boss's.
    Won,
    /// Level.
    Drew,
    /// Below.
    Lost,
}

/// How entrant `a` fared against entrant `b` in one game whose seats are `(entrant, result)`:
/// each by its best seat. `None` if either has no seat in it.
pub fn duel<E: PartialEq>(
    seats: impl IntoIterator<Item = (E, SeatResult)>,
    a: &E,
    b: &E,
) -> Option<Duel> {
    let rank = |r: SeatResult| match r {
        SeatResult::Win => 0,
        SeatResult::Draw => 1,
        SeatResult::Loss => 2,
    };
    let (mut best_a, mut best_b) = (None::<u8>, None::<u8>);
    for (e, r) in seats {
        let slot = if &e == a {
            &mut best_a
        } else if &e == b {
            &mut best_b
        } else {
            continue;
        };
        *slot = Some(slot.map_or(rank(r), |x| x.min(rank(r))));
    }
    let (a, b) = (best_a?, best_b?);
    Some(match a.cmp(&b) {
        std::cmp::Ordering::Less => Duel::Won,
        std::cmp::Ordering::Equal => Duel::Drew,
        std::cmp::Ordering::Greater => Duel::Lost,
    })
}

/// Games of an entrant against one boss, counted as [`duel`]s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Games the entrant placed above the boss.
    pub wins: u64,
    /// Games level.
    pub draws: u64,
    /// Games below.
    pub losses: u64,
}

impl Tally {
    /// Counts one game.
    pub fn add(&mut self, d: Duel) {
        match d {
            Duel::Won => self.wins += 1,
            Duel::Drew => self.draws += 1,
            Duel::Lost => self.losses += 1,
        }
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
}

/// What is said of one entrant against one boss.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Statement {
    /// The boss, as configured (`durak/cheapest`, `bosses/teacher.wasm`).
    pub boss: String,
    /// Deals played (each once per seat rotation): the unit of the interval.
    pub deals: u64,
    /// Games played.
    pub games: u64,
    /// Games won, drawn and lost against the boss.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost.
    pub losses: u64,
    /// The mean deal score: wins plus half the draws, over games.
    pub win_rate: f64,
    /// Its 95% interval, Wilson's over the deals.
    pub win_rate_ci95: (f64, f64),
    /// `beats cheapest (95%)` when the interval's lower bound is above ½, else none.
    pub badge: Option<String>,
}

/// Whether an interval whose lower bound is `low` says the entrant beats the boss: strictly
/// above one half.
pub fn beats(low: f64) -> bool {
    low > 0.5
}

/// A boss's short name for a badge: `durak/cheapest` is `cheapest`, `bosses/teacher.wasm`
/// is `teacher`; an agent's `#ARGS` are left out.
pub fn short_name(boss: &str) -> &str {
    let name = boss.split('#').next().unwrap_or(boss);
    let name = name.rsplit(['/', '\\']).next().unwrap_or(name);
    name.strip_suffix(".wasm").unwrap_or(name)
}

/// The badge for an entrant whose interval against `boss` starts at `low`, if it earns one.
pub fn badge(boss: &str, low: f64) -> Option<String> {
    beats(low).then(|| format!("beats {} (95%)", short_name(boss)))
}

/// Games per deal of a boss match in a game of `seats` seats: one per distinct seat
/// rotation of two entrants (2 in two or four seats, 3 in three).
pub fn games_per_deal(seats: usize) -> u64 {
    Schedule::new(2, seats, 1, true).rotations.len() as u64
}

/// The statement for `tally` against `boss`, whose deals each hold `games_per_deal` games.
pub fn statement(boss: &str, tally: &Tally, games_per_deal: u64) -> Statement {
    let games = tally.games();
    let k = games_per_deal.max(1);
    let deals = games / k;
    let rate = if games == 0 {
        0.0
    } else {
        (tally.wins as f64 + tally.draws as f64 / 2.0) / games as f64
    };
    // The deals' scores sum to the games' score over k: the same mean, counted per deal.
    let points = tally.wins as f64 + tally.draws as f64 / 2.0;
    let score = if games == 0 {
        0.0
    } else {
        points * deals as f64 / games as f64
    };
    let ci = stats::wilson_score(score, deals);
    Statement {
        boss: boss.to_string(),
        deals,
        games,
        wins: tally.wins,
        draws: tally.draws,
        losses: tally.losses,
        win_rate: rate,
        win_rate_ci95: ci,
        badge: if deals == 0 { None } else { badge(boss, ci.0) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use SeatResult::{Draw, Loss, Win};

    /// The threshold itself, on the numbers around it.
    #[test]
    fn beats_is_strictly_above_one_half() {
        assert!(!beats(0.5));
        assert!(beats(0.5 + f64::EPSILON));
        assert!(!beats(0.5 - f64::EPSILON / 2.0));
        assert!(!beats(0.0));
        assert!(beats(1.0));
        assert_eq!(badge("durak/cheapest", 0.5), None);
        assert_eq!(
            badge("durak/cheapest", 0.500_001).as_deref(),
            Some("beats cheapest (95%)")
        );
    }

    /// Every deal won: three deals leave the lower bound at 3 / (3 + z²) ≈ 0.4385, four
    /// lift it to 4 / (4 + z²) ≈ 0.5101. The badge comes at the fourth deal, not before,
    /// and not at eight games of four deals counted as if they were eight trials' worth.
    #[test]
    fn the_badge_comes_with_the_fourth_deal_won() {
        let z2 = 1.959_963_984_540_054_f64.powi(2);
        // Every deal won, both rotations: (deals, badge).
        for (deals, earned) in [(3u64, false), (4, true)] {
            let t = Tally {
                wins: 2 * deals,
                draws: 0,
                losses: 0,
            };
            let s = statement("durak/cheapest", &t, 2);
            assert_eq!((s.deals, s.games), (deals, 2 * deals));
            let low = deals as f64 / (deals as f64 + z2);
            assert!((s.win_rate_ci95.0 - low).abs() < 1e-12, "{s:?}");
            let badge = earned.then(|| "beats cheapest (95%)".to_string());
            assert_eq!(s.badge, badge, "{deals} deals");
        }
        // Counted per game, three deals' six straight wins would have been a badge already.
        assert!(beats(stats::wilson(6, 6).0));
    }

    /// Draws count half; the interval is over deals, so it is wider than over games.
    #[test]
    fn draws_count_half_and_deals_are_the_unit() {
        let t = Tally {
            wins: 30,
            draws: 20,
            losses: 50,
        };
        let s = statement("bosses/teacher.wasm", &t, 2);
        assert_eq!((s.deals, s.games), (50, 100));
        assert!((s.win_rate - 0.4).abs() < 1e-12);
        let (lo, hi) = s.win_rate_ci95;
        let (glo, ghi) = stats::wilson_score(40.0, 100);
        assert!(lo < glo && hi > ghi, "{s:?}");
        assert_eq!((lo, hi), stats::wilson_score(20.0, 50));
        assert_eq!(s.badge, None);
        let none = statement("x", &Tally::default(), 2);
        assert_eq!(
            (none.deals, none.win_rate_ci95, none.badge),
            (0, (0.0, 1.0), None)
        );
    }

    #[test]
    fn a_duel_compares_best_seats() {
        // 2 v 2: A B A B, B's side wins.
        let seats = [(0, Loss), (1, Win), (0, Loss), (1, Win)];
        assert_eq!(duel(seats, &0, &1), Some(Duel::Lost));
        assert_eq!(duel(seats, &1, &0), Some(Duel::Won));
        // A free-for-all where both have a winning seat: level.
        let seats = [(0, Win), (1, Win), (0, Loss), (1, Win)];
        assert_eq!(duel(seats, &0, &1), Some(Duel::Drew));
        assert_eq!(duel([(0, Draw), (1, Loss)], &0, &1), Some(Duel::Won));
        assert_eq!(duel([(0, Win)], &0, &1), None);
    }

    #[test]
    fn short_names_and_rotations() {
        assert_eq!(short_name("durak/cheapest"), "cheapest");
        assert_eq!(short_name("durak/ismcts#iters=200"), "ismcts");
        assert_eq!(short_name("bosses/teacher.wasm"), "teacher");
        assert_eq!(short_name("plain"), "plain");
        assert_eq!(games_per_deal(2), 2);
        assert_eq!(games_per_deal(4), 2);
        assert_eq!(games_per_deal(3), 3);
    }
}
