//! The soak ledger: one JSON line per `croupier soak --record` run, and the summary that
//! puts the parts of a long soak back together (`croupier ledger FILE`).
//!
//! Why: a 10^6-game UNO soak takes hours, longer than one sitting, so it is run in parts
//! (`--first`). Game `i` of a soak always has seed `derive(seed, i)`, so parts with the same
//! game, options, seed and check cover a set of game indices, and the summary says which
//! indices are covered, by how many parts, and what they found.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// One line of the ledger.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SoakRecord {
    pub game: String,
    pub preset: String,
    /// Every option, so that a part run with other `--set`s does not count for this preset.
    pub options: Vec<(String, String)>,
    pub seed: u64,
    pub first: u64,
    pub games: u64,
    /// `exact` or `sample`.
    pub check: String,
    pub decisions: u64,
    pub aborted: u64,
    pub violations: u64,
    pub first_violations: Vec<String>,
    pub seconds: f64,
    pub threads: u64,
    /// The croupier version that ran the part.
    pub croupier: String,
    /// Unix time at the end of the run.
    pub finished: u64,
}

/// A ledger open for appending.
pub struct Ledger {
    file: std::fs::File,
    path: PathBuf,
}

impl Ledger {
    /// Opens the ledger (before a run, so that a bad path fails at once).
    pub fn open(path: &Path) -> Result<Ledger> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("--record: cannot open {}", path.display()))?;
        Ok(Ledger {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Appends one record as one line (a single write, so a crash leaves whole lines).
    pub fn append(&mut self, rec: &SoakRecord) -> Result<()> {
        let mut line = serde_json::to_string(rec)?;
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .with_context(|| format!("--record: cannot write {}", self.path.display()))
    }
}

/// Reads a ledger; a line that does not parse is an error naming the file and line.
pub fn read(path: &Path) -> Result<Vec<SoakRecord>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read ledger {}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .with_context(|| format!("{} line {}: not a soak record", path.display(), i + 1))
        })
        .collect()
}

/// What the parts of one soak (same game, options, seed and check) add up to.
#[derive(Clone, Debug, PartialEq)]
pub struct Coverage {
    pub game: String,
    pub preset: String,
    pub seed: u64,
    pub check: String,
    pub parts: usize,
    /// Disjoint, sorted ranges of game indices `[from, to)` checked at least once.
    pub ranges: Vec<(u64, u64)>,
    pub decisions: u64,
    pub aborted: u64,
    pub violations: u64,
    pub seconds: f64,
}

impl Coverage {
    /// Games `0..n` with no gap: the size of one whole run these parts amount to.
    pub fn contiguous_from_zero(&self) -> u64 {
        match self.ranges.first() {
            Some(&(0, to)) => to,
            _ => 0,
        }
    }
}

/// Groups records into soaks and merges their ranges.
pub fn coverage<'a>(records: impl IntoIterator<Item = &'a SoakRecord>) -> Vec<Coverage> {
    let mut groups: BTreeMap<SoakKey, Vec<&SoakRecord>> = BTreeMap::new();
    for r in records {
        groups.entry(SoakKey::of(r)).or_default().push(r);
    }
    groups
        .into_iter()
        .map(|(key, parts)| {
            let mut spans: Vec<(u64, u64)> = parts
                .iter()
                .filter(|p| p.games > 0)
                .map(|p| (p.first, p.first.saturating_add(p.games)))
                .collect();
            spans.sort_unstable();
            let mut ranges: Vec<(u64, u64)> = Vec::new();
            for (from, to) in spans {
                match ranges.last_mut() {
                    Some(last) if from <= last.1 => last.1 = last.1.max(to),
                    _ => ranges.push((from, to)),
                }
            }
            Coverage {
                game: key.game.to_string(),
                preset: key.preset.to_string(),
                seed: key.seed,
                check: key.check.to_string(),
                parts: parts.len(),
                ranges,
                decisions: parts.iter().map(|p| p.decisions).sum(),
                aborted: parts.iter().map(|p| p.aborted).sum(),
                violations: parts.iter().map(|p| p.violations).sum(),
                seconds: parts.iter().map(|p| p.seconds).sum(),
            }
        })
        .collect()
}

/// Which soak a record belongs to: game, preset, every option, seed and check. Parts with
/// the same key check games of one sequence (`coverage` groups by it, `--next` looks it up).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SoakKey<'a> {
    pub game: &'a str,
    pub preset: &'a str,
    pub options: &'a [(String, String)],
    pub seed: u64,
    pub check: &'a str,
}

impl<'a> SoakKey<'a> {
    fn of(r: &'a SoakRecord) -> SoakKey<'a> {
        SoakKey {
            game: &r.game,
            preset: &r.preset,
            options: &r.options,
            seed: r.seed,
            check: &r.check,
        }
    }
}

/// For `soak --next`: the first game of the soak that no part has checked (the end of the
/// games checked from 0 without a gap), and where the next checked range after it starts,
/// if any, so that a part can fill a gap without checking games twice.
pub fn next_unchecked(records: &[SoakRecord], key: &SoakKey) -> (u64, Option<u64>) {
    let mine = records.iter().filter(|r| SoakKey::of(r) == *key);
    let Some(c) = coverage(mine).pop() else {
        return (0, None);
    };
    let from = c.contiguous_from_zero();
    let next = c.ranges.iter().map(|r| r.0).find(|&a| a > from);
    (from, next)
}

/// The summary `croupier ledger` prints.
pub fn summary(records: &[SoakRecord]) -> String {
    let mut s = String::new();
    for c in coverage(records) {
        let ranges: Vec<String> = c.ranges.iter().map(|(a, b)| format!("{a}..{b}")).collect();
        s.push_str(&format!(
            "{} {} (seed {}, {} check): games 0..{} checked without a gap; covered {} in {} part(s); {} decisions, {} aborted by a safety limit, {} violations, {:.1} h of checking\n",
            c.game,
            c.preset,
            c.seed,
            c.check,
            c.contiguous_from_zero(),
            ranges.join(", "),
            c.parts,
            c.decisions,
            c.aborted,
            c.violations,
            c.seconds / 3600.0
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(first: u64, games: u64, seed: u64) -> SoakRecord {
        SoakRecord {
            game: "uno".into(),
            preset: "official".into(),
            options: vec![("num_players".into(), "4".into())],
            seed,
            first,
            games,
            check: "exact".into(),
            decisions: games * 10,
            aborted: 0,
            violations: 0,
            first_violations: Vec::new(),
            seconds: 1.0,
            threads: 2,
            croupier: "0.1.0".into(),
            finished: 0,
        }
    }

    #[test]
    fn parts_merge_into_ranges_and_a_gap_stops_the_contiguous_count() {
        let recs = [
            part(50, 50, 1),
            part(0, 50, 1),
            part(200, 10, 1),
            part(0, 7, 2),
        ];
        let c = coverage(&recs);
        assert_eq!(c.len(), 2, "another seed is another soak");
        assert_eq!(c[0].ranges, vec![(0, 100), (200, 210)]);
        assert_eq!(c[0].contiguous_from_zero(), 100);
        assert_eq!(c[0].parts, 3);
        assert_eq!(c[0].decisions, 1100);
        assert_eq!(c[1].contiguous_from_zero(), 7);
        let text = summary(&recs);
        assert!(
            text.contains("games 0..100 checked without a gap"),
            "{text}"
        );
        assert!(text.contains("0..100, 200..210"), "{text}");
    }

    #[test]
    fn next_unchecked_fills_the_first_gap_of_this_soak_only() {
        let recs = [part(0, 50, 1), part(80, 20, 1), part(0, 500, 2)];
        let opts = recs[0].options.clone();
        let key = |seed| SoakKey {
            game: "uno",
            preset: "official",
            options: &opts,
            seed,
            check: "exact",
        };
        assert_eq!(next_unchecked(&recs, &key(1)), (50, Some(80)));
        assert_eq!(next_unchecked(&recs, &key(2)), (500, None));
        assert_eq!(
            next_unchecked(&recs, &key(3)),
            (0, None),
            "a soak not begun"
        );
        let sampled = SoakKey {
            check: "sample",
            ..key(1)
        };
        assert_eq!(next_unchecked(&recs, &sampled), (0, None), "another check");
        let gap_filled = [part(0, 50, 1), part(80, 20, 1), part(50, 30, 1)];
        assert_eq!(next_unchecked(&gap_filled, &key(1)), (100, None));
    }

    #[test]
    fn other_options_are_another_soak() {
        let mut other = part(50, 50, 1);
        other.options[0].1 = "3".into();
        let c = coverage(&[part(0, 50, 1), other]);
        assert_eq!(c.len(), 2);
        assert!(c.iter().all(|c| c.contiguous_from_zero() <= 50));
    }
}
