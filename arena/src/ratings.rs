//! Ratings and tables, computed from the stored results alone.
//!
//! Results are taken in (match, game) order, and only up to the first match that is not
//! done, so the ratings never depend on the order in which workers happened to finish: the
//! same stored games always give the same board. A new match's games wait until every
//! earlier match is done; the ladder plays matches roughly in order, so the wait is short.
//!
//! Weng-Lin (OpenSkill, `skillratings`) rates every game the same way, whatever its shape:
//! each distinct version in a game is one side, ranked by its best seat, so 1 v 1, four seats
//! and 2 v 2 teams (one version per team) all fit. Before every game each side's σ grows by
//! `tau`, so ratings keep following a pool that changes; a final uses `tau = 0`.
//!
//! Boss matches (`bosses` in arena.toml) come through the same rows and are never rated:
//! [`Board::apply`] counts their games in [`Board::bosses`], per version and boss, apart.
//!
//! A board is saved now and then as a checkpoint ([`Board::save`]), so that a restarted
//! server counts only the results stored since, not every game ever played: 18 s before the
//! first page at a million games. The checkpoint is used only if it was computed by the same
//! rules and build, and it holds every float exactly, so a board restored from it and
//! brought up to date is bit for bit the board counted from scratch.

use crate::store::db::seats::SeatRow;
use crate::store::db::states::{MatchKind, SeatOutcome};
use croupier_rules::SeatResult;
use croupier_tournament::bosses::{Tally, duel};
use serde::{Deserialize, Serialize};
use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};
use std::collections::BTreeMap;

/// Points of a rating history kept per version; older points are thinned out past it.
const HISTORY_POINTS: usize = 400;

/// What the board knows of one version.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VersionStats {
    /// The version's team.
    pub team_id: i64,
    /// μ.
    pub mu: f64,
    /// σ.
    pub sigma: f64,
    /// Games played.
    pub games: u64,
    /// Games won (in a team game, games its team won).
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
    /// Matches it played in.
    pub matches: u64,
    /// Faulted games by verdict.
    pub faults: BTreeMap<String, u64>,
    /// Faulted games in a row, up to the latest.
    pub faults_in_a_row: u32,
    /// Why it is out of matchmaking, if it is.
    pub suspended: Option<String>,
    /// When its rating last changed.
    pub changed_ms: i64,
    /// (time, μ − 3σ) after each of its matches.
    pub history: Vec<(i64, f64)>,
    last_match: i64,
    history_match: i64,
}

impl VersionStats {
    fn new(team_id: i64) -> VersionStats {
        let r = WengLinRating::new();
        VersionStats {
            team_id,
            mu: r.rating,
            sigma: r.uncertainty,
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            matches: 0,
            faults: BTreeMap::new(),
            faults_in_a_row: 0,
            suspended: None,
            changed_ms: 0,
            history: Vec::new(),
            last_match: -1,
            history_match: -1,
        }
    }

    /// The conservative rating the table is sorted by.
    pub fn conservative(&self) -> f64 {
        self.mu - 3.0 * self.sigma
    }

    /// Wins over games, and its 95% Wilson interval.
    pub fn win_rate(&self) -> (f64, (f64, f64)) {
        let rate = if self.games == 0 {
            0.0
        } else {
            self.wins as f64 / self.games as f64
        };
        (
            rate,
            croupier_tournament::stats::wilson(self.wins, self.games),
        )
    }
}

/// Wins, draws and losses of one team against another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HeadToHead {
    /// Games the first team placed above the second.
    pub wins: u64,
    /// Games they placed level.
    pub draws: u64,
    /// Games the second placed above the first.
    pub losses: u64,
}

/// Everything computed from the results.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Board {
    /// Per version id.
    pub versions: BTreeMap<i64, VersionStats>,
    /// Per (team, opponent team).
    #[serde(with = "pair_keys")]
    pub head_to_head: BTreeMap<(i64, i64), HeadToHead>,
    /// Matches below this id are counted.
    pub applied_upto: i64,
    /// Rated games counted.
    pub games: u64,
    /// Per (version, house agent id): its games against that boss, never rated
    /// ([`Board::apply`] counts a boss match's games here).
    #[serde(default, with = "pair_keys")]
    pub bosses: BTreeMap<(i64, i64), Tally>,
    /// Boss games counted.
    #[serde(default)]
    pub boss_games: u64,
}

/// How results are turned into ratings.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Rules {
    /// σ added before every game.
    pub tau: f64,
    /// Faulted games in a row that suspend a version.
    pub suspend_after: u32,
}

/// Bumped whenever the way a board is counted changes, so that a checkpoint counted the old
/// way is not carried on the new way.
const CHECKPOINT_FORMAT: u32 = 1;

/// A saved board and what it was counted under.
#[derive(Serialize, Deserialize)]
struct Checkpoint {
    format: u32,
    /// The build that counted it: a new release counts everything again once, in case it
    /// rates differently (a new `skillratings`, a fix) and nobody bumped the format.
    build: String,
    rules: Rules,
    board: Board,
}

/// The build a checkpoint is tied to.
fn build() -> String {
    format!("croupier-arena {}", env!("CARGO_PKG_VERSION"))
}

/// Why a checkpoint was not used.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// Not a checkpoint this build can read.
    #[error("unreadable: {0}")]
    Unreadable(#[from] serde_json::Error),
    /// Counted another way, by another build or under other ladder settings.
    #[error("counted under {0}, not under this build's and arena.toml's")]
    Other(String),
}

impl Board {
    /// The board as a checkpoint. JSON, because the floats' shortest decimal forms read back
    /// to the same bits (serde_json's `float_roundtrip`, on in this crate's Cargo.toml).
    pub fn save(&self, rules: Rules) -> Result<String, serde_json::Error> {
        serde_json::to_string(&Checkpoint {
            format: CHECKPOINT_FORMAT,
            build: build(),
            rules,
            board: self.clone(),
        })
    }

    /// The board saved in `text`, if it was counted by this build under `rules`.
    pub fn restore(text: &str, rules: Rules) -> Result<Board, RestoreError> {
        let c: Checkpoint = serde_json::from_str(text)?;
        let same = c.format == CHECKPOINT_FORMAT
            && c.build == build()
            && c.rules.tau.to_bits() == rules.tau.to_bits()
            && c.rules.suspend_after == rules.suspend_after;
        if !same {
            return Err(RestoreError::Other(format!(
                "format {}, {}, tau {}, suspend_after {}",
                c.format, c.build, c.rules.tau, c.rules.suspend_after
            )));
        }
        Ok(c.board)
    }

    /// Applies the seats of finished games, in (match, game, seat) order, then marks every
    /// match below `upto` as counted.
    pub fn apply(
        &mut self,
        rows: &[SeatRow],
        upto: i64,
        rules: Rules,
        team_of: &dyn Fn(i64) -> i64,
    ) {
        let mut start = 0;
        while start < rows.len() {
            let key = (rows[start].match_id, rows[start].game_index);
            let mut end = start;
            while end < rows.len() && (rows[end].match_id, rows[end].game_index) == key {
                end += 1;
            }
            let game = &rows[start..end];
            // A boss match's game is counted apart and never rated (`Board::bosses`).
            if game[0].kind == Some(MatchKind::Boss) {
                self.apply_boss_game(game);
            } else {
                self.apply_game(game, rules, team_of);
            }
            start = end;
        }
        self.applied_upto = self.applied_upto.max(upto);
    }

    /// Counts one game of a boss match as the version's [`duel`] with the boss (a house
    /// agent, entrant `-id`). Nothing here touches a rating, a version's games or its
    /// faults: bosses are measured apart. Matches are counted whole (every rotation of each
    /// deal), so a tally's games come in whole deals.
    fn apply_boss_game(&mut self, game: &[SeatRow]) {
        let version = game.iter().map(|s| s.version_id).find(|&v| v > 0);
        let boss = game.iter().map(|s| s.version_id).find(|&v| v < 0);
        let (Some(v), Some(b)) = (version, boss) else {
            return;
        };
        let seats = game.iter().map(|s| (s.version_id, seat_result(s.result)));
        if let Some(d) = duel(seats, &v, &b) {
            self.bosses.entry((v, -b)).or_default().add(d);
            self.boss_games += 1;
        }
    }

    fn apply_game(&mut self, seats: &[SeatRow], rules: Rules, team_of: &dyn Fn(i64) -> i64) {
        let Some(first) = seats.first() else { return };
        let (match_id, at) = (first.match_id, first.finished_ms);
        self.games += 1;
        // Each version's best seat: its place, its result, its first fault.
        let mut sides: BTreeMap<i64, (i64, SeatOutcome, Option<&str>)> = BTreeMap::new();
        for s in seats {
            let e = sides
                .entry(s.version_id)
                .or_insert((s.place, s.result, None));
            if s.place < e.0 {
                e.0 = s.place;
                e.1 = s.result;
            }
            if e.2.is_none() {
                e.2 = s.fault.as_deref();
            }
        }
        for (&v, &(_, result, fault)) in &sides {
            let st = self
                .versions
                .entry(v)
                .or_insert_with(|| VersionStats::new(team_of(v)));
            st.games += 1;
            match result {
                SeatOutcome::Win => st.wins += 1,
                SeatOutcome::Draw => st.draws += 1,
                SeatOutcome::Loss => st.losses += 1,
            }
            if st.last_match != match_id {
                st.matches += 1;
                st.last_match = match_id;
            }
            match fault {
                Some(verdict) => {
                    *st.faults.entry(verdict.to_string()).or_default() += 1;
                    st.faults_in_a_row += 1;
                    // Said once, when it happens: matches queued before it may still add faults.
                    if st.suspended.is_none()
                        && rules.suspend_after > 0
                        && st.faults_in_a_row >= rules.suspend_after
                    {
                        st.suspended = Some(format!(
                            "{} faulted games in a row; the last: {verdict} in match {match_id} game {}",
                            st.faults_in_a_row, first.game_index
                        ));
                    }
                }
                None => st.faults_in_a_row = 0,
            }
        }
        // Head to head between teams, by place.
        let list: Vec<(i64, i64)> = sides.iter().map(|(v, s)| (*v, s.0)).collect();
        for (i, &(va, pa)) in list.iter().enumerate() {
            for &(vb, pb) in &list[i + 1..] {
                let (ta, tb) = (team_of(va), team_of(vb));
                if ta == tb {
                    continue;
                }
                let ab = self.head_to_head.entry((ta, tb)).or_default();
                match pa.cmp(&pb) {
                    std::cmp::Ordering::Less => ab.wins += 1,
                    std::cmp::Ordering::Equal => ab.draws += 1,
                    std::cmp::Ordering::Greater => ab.losses += 1,
                }
                let ba = self.head_to_head.entry((tb, ta)).or_default();
                match pb.cmp(&pa) {
                    std::cmp::Ordering::Less => ba.wins += 1,
                    std::cmp::Ordering::Equal => ba.draws += 1,
                    std::cmp::Ordering::Greater => ba.losses += 1,
                }
            }
        }
        if sides.len() < 2 {
            return;
        }
        let ratings: Vec<[WengLinRating; 1]> = list
            .iter()
            .map(|(v, _)| {
                let st = &self.versions[v];
                [WengLinRating {
                    rating: st.mu,
                    uncertainty: (st.sigma * st.sigma + rules.tau * rules.tau).sqrt(),
                }]
            })
            .collect();
        let teams: Vec<(&[WengLinRating], MultiTeamOutcome)> = ratings
            .iter()
            .zip(&list)
            .map(|(r, (_, place))| (&r[..], MultiTeamOutcome::new(*place as usize + 1)))
            .collect();
        let new = weng_lin_multi_team(&teams, &WengLinConfig::new());
        for ((v, _), r) in list.iter().zip(new) {
            if let (Some(st), Some(r)) = (self.versions.get_mut(v), r.first()) {
                st.mu = r.rating;
                st.sigma = r.uncertainty;
                st.changed_ms = at;
            }
        }
        for (v, _) in &list {
            if let Some(st) = self.versions.get_mut(v) {
                let point = (at, st.conservative());
                // One point per match: its latest game's.
                match st.history.last_mut() {
                    Some(last) if st.history_match == match_id => *last = point,
                    _ => st.history.push(point),
                }
                st.history_match = match_id;
                if st.history.len() > HISTORY_POINTS {
                    // Thin out the older half, keep the recent half whole.
                    let half = st.history.len() / 2;
                    let older: Vec<_> = st.history[..half].iter().step_by(2).copied().collect();
                    let recent: Vec<_> = st.history[half..].to_vec();
                    st.history = older.into_iter().chain(recent).collect();
                }
            }
        }
    }
}

/// A map keyed by pairs as a list of entries: JSON keys are strings only.
/// A stored seat's result as the rules give it.
fn seat_result(r: SeatOutcome) -> SeatResult {
    match r {
        SeatOutcome::Win => SeatResult::Win,
        SeatOutcome::Draw => SeatResult::Draw,
        SeatOutcome::Loss => SeatResult::Loss,
    }
}

mod pair_keys {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::BTreeMap;

    type Map<V> = BTreeMap<(i64, i64), V>;

    pub fn serialize<S: Serializer, V: Serialize>(m: &Map<V>, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(m.iter())
    }

    pub fn deserialize<'de, D: Deserializer<'de>, V: Deserialize<'de>>(
        d: D,
    ) -> Result<Map<V>, D::Error> {
        let entries: Vec<((i64, i64), V)> = Vec::deserialize(d)?;
        Ok(entries.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(m: i64, g: i64, seat: i64, v: i64, place: i64, fault: Option<&str>) -> SeatRow {
        SeatRow {
            match_id: m,
            game_index: g,
            seat,
            version_id: v,
            team_id: v * 10,
            result: if place == 0 {
                SeatOutcome::Win
            } else {
                SeatOutcome::Loss
            },
            place,
            fault: fault.map(String::from),
            finished_ms: m * 1000 + g,
            kind: None,
        }
    }

    const RULES: Rules = Rules {
        tau: 0.1,
        suspend_after: 3,
    };

    /// A boss match's games (entrant `-id`, kind `boss`) go to the bosses' tallies and
    /// change no rating, no version's games and no head to head.
    #[test]
    fn boss_games_are_tallied_and_never_rated() {
        let boss = |m: i64, g: i64, s: i64, v: i64, place: i64| SeatRow {
            kind: Some(MatchKind::Boss),
            ..seat(m, g, s, v, place, None)
        };
        let rated = vec![seat(1, 0, 0, 1, 0, None), seat(1, 0, 1, 2, 1, None)];
        let mut all = rated.clone();
        // Version 1 against boss 7: a win and a loss (one deal, both rotations); version 2
        // against it: a draw (both seats placed level).
        all.extend([boss(2, 0, 0, 1, 0), boss(2, 0, 1, -7, 1)]);
        all.extend([boss(2, 1, 0, -7, 0), boss(2, 1, 1, 1, 1)]);
        all.extend([boss(3, 0, 0, 2, 0), boss(3, 0, 1, -7, 0)]);
        all.extend([seat(4, 0, 0, 2, 0, None), seat(4, 0, 1, 1, 1, None)]);
        let rated: Vec<SeatRow> = rated
            .into_iter()
            .chain([seat(4, 0, 0, 2, 0, None), seat(4, 0, 1, 1, 1, None)])
            .collect();
        let (mut with, mut without) = (Board::default(), Board::default());
        with.apply(&all, 5, RULES, &|v| v * 10);
        without.apply(&rated, 5, RULES, &|v| v * 10);
        assert_eq!(with.versions, without.versions);
        assert_eq!(with.head_to_head, without.head_to_head);
        assert_eq!(with.games, 2);
        assert_eq!(with.boss_games, 3);
        let t = with.bosses[&(1, 7)];
        assert_eq!((t.wins, t.draws, t.losses), (1, 0, 1));
        let t = with.bosses[&(2, 7)];
        assert_eq!((t.wins, t.draws, t.losses), (0, 1, 0));
        assert!(with.versions.keys().all(|&v| v > 0));
    }

    #[test]
    fn the_winner_rises_and_the_board_is_the_same_in_any_batching() {
        let rows: Vec<SeatRow> = (0..20)
            .flat_map(|g| {
                [
                    seat(1 + g / 4, g % 4, 0, 1, 0, None),
                    seat(1 + g / 4, g % 4, 1, 2, 1, None),
                ]
            })
            .collect();
        let team = |v: i64| v * 10;
        let mut once = Board::default();
        once.apply(&rows, 100, RULES, &team);
        let mut parts = Board::default();
        parts.apply(&rows[..14], 3, RULES, &team);
        parts.apply(&rows[14..], 100, RULES, &team);
        let (a, b) = (&once.versions[&1], &once.versions[&2]);
        assert!(a.mu > b.mu, "{} vs {}", a.mu, b.mu);
        assert_eq!((a.wins, b.losses, a.games), (20, 20, 20));
        assert_eq!(once.head_to_head[&(10, 20)].wins, 20);
        assert_eq!(once.head_to_head[&(20, 10)].losses, 20);
        assert_eq!(parts.versions[&1].mu, a.mu);
        assert_eq!(parts.versions[&2].sigma, b.sigma);
    }

    #[test]
    fn faults_in_a_row_suspend_and_a_clean_game_resets_the_count() {
        let team = |v: i64| v * 10;
        let mut b = Board::default();
        let rows = vec![
            seat(1, 0, 0, 1, 1, Some("TIMEOUT")),
            seat(1, 0, 1, 2, 0, None),
            seat(1, 1, 0, 1, 1, Some("TRAP")),
            seat(1, 1, 1, 2, 0, None),
            seat(1, 2, 0, 1, 0, None),
            seat(1, 2, 1, 2, 1, None),
        ];
        b.apply(&rows, 2, RULES, &team);
        assert_eq!(b.versions[&1].faults_in_a_row, 0);
        assert!(b.versions[&1].suspended.is_none());
        let more: Vec<SeatRow> = (0..3)
            .flat_map(|g| {
                [
                    seat(2, g, 0, 1, 1, Some("ILLEGAL")),
                    seat(2, g, 1, 2, 0, None),
                ]
            })
            .collect();
        b.apply(&more, 3, RULES, &team);
        let why = b.versions[&1].suspended.clone().expect("suspended");
        assert!(
            why.contains("3 faulted games in a row") && why.contains("ILLEGAL"),
            "{why}"
        );
        assert_eq!(b.versions[&1].faults["ILLEGAL"], 3);
    }

    /// σ after each of `games` games between two versions of equal strength (they win in
    /// turn, in ladder matches of 16 games), rated under `tau`.
    fn sigmas(tau: f64, games: i64) -> Vec<f64> {
        let rules = Rules {
            tau,
            suspend_after: 0,
        };
        let mut b = Board::default();
        (0..games)
            .map(|g| {
                let (m, i, first) = (1 + g / 16, g % 16, g % 2);
                let rows = [
                    seat(m, i, 0, 1, first, None),
                    seat(m, i, 1, 2, 1 - first, None),
                ];
                b.apply(&rows, m, rules, &|v| v * 10);
                b.versions[&1].sigma
            })
            .collect()
    }

    /// The ladder's `tau` keeps σ from shrinking forever, so a version's rating can still
    /// follow a pool that changes: after hundreds of games σ has settled on a floor and
    /// stays there. The final's `tau = 0` (finals.rs) lets the same games shrink σ further,
    /// below that floor, and it is still shrinking.
    #[test]
    fn the_ladders_tau_keeps_sigma_above_a_floor_that_the_finals_zero_tau_falls_below() {
        let tau = crate::config::ArenaConfig::new(croupier_host::loader::GameKind::Durak, "teams")
            .ladder
            .tau;
        assert!(tau > 0.0, "the ladder's default tau is {tau}");
        let ladder = sigmas(tau, 1000);
        let last = ladder.len() - 1;
        // Settled by game 500: from there on σ never falls more than 2% below it.
        let floor = ladder[499];
        assert!(
            ladder[499..].iter().all(|s| *s >= 0.98 * floor),
            "σ kept moving after 500 games: {} then {}",
            floor,
            ladder[last]
        );
        let start = WengLinRating::new().uncertainty;
        assert!(floor < start / 2.0, "σ never shrank: {floor}");
        let final_ = sigmas(0.0, 1000);
        assert!(
            final_[499] < 0.9 * floor,
            "tau = 0: σ {} after 500 games, the ladder's floor {floor}",
            final_[499]
        );
        assert!(
            final_[last] < 0.9 * final_[499],
            "tau = 0: σ stopped shrinking at {} (500 games) and {} (1000)",
            final_[499],
            final_[last]
        );
    }

    /// A board saved part way, restored and brought up to date, is the board counted in one
    /// go, to the last bit of every float; and a checkpoint counted under other settings is
    /// refused.
    #[test]
    fn a_restored_checkpoint_carries_on_to_the_same_bits() {
        let team = |v: i64| v * 10;
        // Three versions, results spread by a simple generator, faults now and then.
        let mut x: u64 = 7;
        let rows: Vec<SeatRow> = (0..600)
            .flat_map(|g| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let (a, b) = (1 + (x >> 33) % 3, 1 + (x >> 40) % 3);
                let b = if a == b { 1 + a % 3 } else { b };
                let fault = (x >> 50).is_multiple_of(17).then_some("TIMEOUT");
                let first = ((x >> 20) % 2) as i64;
                [
                    seat(1 + g / 8, g % 8, 0, a as i64, first, fault),
                    seat(1 + g / 8, g % 8, 1, b as i64, 1 - first, None),
                ]
            })
            .collect();
        let mut once = Board::default();
        once.apply(&rows, 1000, RULES, &team);
        let half = rows
            .iter()
            .position(|r| r.match_id == 40)
            .expect("match 40");
        let mut part = Board::default();
        part.apply(&rows[..half], 40, RULES, &team);
        let text = part.save(RULES).expect("save");
        let mut restored = Board::restore(&text, RULES).expect("restore");
        assert_eq!(restored, part);
        restored.apply(&rows[half..], 1000, RULES, &team);
        assert_eq!(restored, once);
        for (v, st) in &once.versions {
            let r = &restored.versions[v];
            assert_eq!(
                (r.mu.to_bits(), r.sigma.to_bits()),
                (st.mu.to_bits(), st.sigma.to_bits())
            );
            assert!(
                st.history.len() > 1 && st.matches > 1,
                "version {v}: {st:?}"
            );
        }
        assert!(!once.head_to_head.is_empty());
        let other = Rules { tau: 0.2, ..RULES };
        assert!(matches!(
            Board::restore(&text, other),
            Err(RestoreError::Other(_))
        ));
        let other = Rules {
            suspend_after: 4,
            ..RULES
        };
        assert!(matches!(
            Board::restore(&text, other),
            Err(RestoreError::Other(_))
        ));
        let stale = text.replace(&format!("\"format\":{CHECKPOINT_FORMAT}"), "\"format\":0");
        assert_ne!(stale, text);
        assert!(matches!(
            Board::restore(&stale, RULES),
            Err(RestoreError::Other(_))
        ));
        assert!(matches!(
            Board::restore("{", RULES),
            Err(RestoreError::Unreadable(_))
        ));
    }
}
