//! Sharded matches and tournaments: `--shard K/N` plays a contiguous run of whole deals, and
//! [`merge`] puts the parts' logs back together into the unsharded run's log and summary.
//!
//! Game `i` depends only on the seed and `i`, so a part's records are exactly the unsharded
//! run's records of its games. The merged summary is computed by the same code as a run's
//! ([`crate::matches`]'s tally and round robin), from the records in game order, so the
//! table, the JSON and the log come out as the unsharded run's, byte for byte (except the
//! JSON's `elapsed_seconds`: a merge plays nothing, so it is 0).

use crate::matches::log::{self, LogHeader};
use crate::matches::round_robin::{self, RoundRobin, TournamentSummary};
use crate::matches::summary::{self, MatchSummary};
use crate::runner::GameRecord;
pub use crate::shard::{Shard, ShardError, ShardHeader, TournamentOf};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why parts cannot be merged. Every message names the part file at fault.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A log could not be read.
    #[error("{0}")]
    Log(String),
    /// A log written without `--shard`.
    #[error(
        "{path}: not a shard's log: its header has no `shard` (write parts with --shard K/N --log FILE)"
    )]
    NotAPart {
        /// The log.
        path: PathBuf,
    },
    /// A part whose match differs from the first part's.
    #[error(
        "{path}: not a part of the same match as {reference}: `{field}` is {here} here, {there} there"
    )]
    Mismatch {
        /// The odd part.
        path: PathBuf,
        /// The part it was compared with.
        reference: PathBuf,
        /// The header field that differs (`seed`, `agents`, `limits.fuel_per_decision`…).
        field: String,
        /// Its value in `path`.
        here: String,
        /// Its value in `reference`.
        there: String,
    },
    /// Two files are the same part.
    #[error("{first} and {second} are both shard {index}/{count}")]
    Duplicate {
        /// The first file given with this part.
        first: PathBuf,
        /// The second.
        second: PathBuf,
        /// The part.
        index: u64,
        /// How many parts.
        count: u64,
    },
    /// A part nobody gave.
    #[error("shard {index}/{count} is missing: none of the parts given ({given}) is it")]
    Missing {
        /// The part.
        index: u64,
        /// How many parts.
        count: u64,
        /// The files given.
        given: String,
    },
    /// A part whose range of games does not follow the previous part's.
    #[error(
        "{path}: shard {index}/{count} holds games {first}..{end}, expected {want_first}..{want_end}"
    )]
    Range {
        /// The part.
        path: PathBuf,
        /// Its index.
        index: u64,
        /// How many parts.
        count: u64,
        /// Its first game.
        first: u64,
        /// One past its last game.
        end: u64,
        /// The first game it should hold.
        want_first: u64,
        /// One past the last game it should hold.
        want_end: u64,
    },
    /// A part that lacks some of its games: it was interrupted.
    #[error(
        "{path}: shard {index}/{count} lacks {missing} of its {expected} games{pairing} (game {first_missing} first): finish it with --resume"
    )]
    Incomplete {
        /// The part.
        path: PathBuf,
        /// Its index.
        index: u64,
        /// How many parts.
        count: u64,
        /// Games it lacks.
        missing: u64,
        /// Games it should hold.
        expected: u64,
        /// The first game it lacks.
        first_missing: u64,
        /// ` in pairing A vs B` for a tournament, or nothing.
        pairing: String,
    },
    /// A record of a game that is not the part's.
    #[error("{path}: game {game} is not one of shard {index}/{count}'s games ({first}..{end})")]
    Stray {
        /// The part.
        path: PathBuf,
        /// The game.
        game: u64,
        /// The part's index.
        index: u64,
        /// How many parts.
        count: u64,
        /// Its first game.
        first: u64,
        /// One past its last game.
        end: u64,
    },
    /// A tournament part without one of the pairings: it was interrupted before it.
    #[error("{path}: the pairing {a} vs {b} is missing: finish the shard with --resume")]
    MissingPairing {
        /// The part.
        path: PathBuf,
        /// The pairing's first agent.
        a: String,
        /// Its second agent.
        b: String,
    },
}

/// What the merged parts add up to.
#[derive(Debug)]
pub enum MergedSummary {
    /// A match's summary, as `croupier match` computes it.
    Match(MatchSummary),
    /// A tournament's summary, as `croupier tournament` computes it.
    Tournament(TournamentSummary),
}

/// Merged parts: the unsharded run's log (its runs, in order) and summary.
#[derive(Debug)]
pub struct Merged {
    /// One run per match (one, or one per tournament pairing): its header without `shard`,
    /// and every game in index order.
    pub runs: Vec<(LogHeader, Vec<GameRecord>)>,
    /// The summary, computed from `runs` as the unsharded run computes it.
    pub summary: MergedSummary,
    /// How many parts were merged.
    pub parts: u64,
}

impl Merged {
    /// Writes the log exactly as the unsharded run writes it: per run, its header line and
    /// one line per game.
    pub fn write_log(&self, out: &mut dyn Write) -> std::io::Result<()> {
        log::write_runs(&self.runs, out)
    }
}

/// One run of a part: its header and its games by index (the first record of an index
/// wins, as `--resume` counts them).
struct Run {
    header: LogHeader,
    shard: ShardHeader,
    records: BTreeMap<u64, GameRecord>,
}

/// A part's log: every distinct run, the latest of equal headers winning (as `--resume`
/// continues the latest).
struct Part {
    path: PathBuf,
    shard: ShardHeader,
    runs: Vec<Run>,
}

fn read_part(path: &Path) -> Result<Part, MergeError> {
    let runs = log::read_log(path).map_err(|e| MergeError::Log(e.to_string()))?;
    let mut out: Vec<Run> = Vec::new();
    for (header, records) in runs {
        let Some(shard) = header.shard.clone() else {
            return Err(MergeError::NotAPart { path: path.into() });
        };
        if shard.index >= shard.count {
            return Err(MergeError::Log(format!(
                "{}: its header names shard {}/{}, which does not exist",
                path.display(),
                shard.index,
                shard.count
            )));
        }
        let mut by_index = BTreeMap::new();
        for r in records {
            by_index.entry(r.index).or_insert(r);
        }
        out.retain(|r| r.header != header);
        out.push(Run {
            header,
            shard,
            records: by_index,
        });
    }
    let Some(last) = out.last() else {
        return Err(MergeError::Log(format!(
            "{}: no match in this log",
            path.display()
        )));
    };
    let shard = last.shard.clone();
    if let Some(other) = out
        .iter()
        .find(|r| (r.shard.index, r.shard.count) != (shard.index, shard.count))
    {
        return Err(mismatch(
            path,
            path,
            &key(&other.header),
            &key(&last.header),
        ));
    }
    Ok(Part {
        path: path.into(),
        shard,
        runs: out,
    })
}

/// A run's header as the parts must agree on it: everything but which part it is.
fn key(h: &LogHeader) -> serde_json::Value {
    let mut h = h.clone();
    if let Some(s) = h.shard.as_mut() {
        (s.index, s.first, s.end) = (0, 0, 0);
    }
    serde_json::to_value(&h).unwrap_or_default()
}

/// The first field where two header values differ, with both values.
fn first_difference(
    here: &serde_json::Value,
    there: &serde_json::Value,
    at: &str,
) -> Option<(String, String, String)> {
    use serde_json::Value::Object;
    if here == there {
        return None;
    }
    if let (Object(a), Object(b)) = (here, there) {
        let null = serde_json::Value::Null;
        for name in a.keys().chain(b.keys()) {
            let sub = if at.is_empty() {
                name.clone()
            } else {
                format!("{at}.{name}")
            };
            let d = first_difference(
                a.get(name).unwrap_or(&null),
                b.get(name).unwrap_or(&null),
                &sub,
            );
            if d.is_some() {
                return d;
            }
        }
    }
    let show = |v: &serde_json::Value| {
        let s = v.to_string();
        if s.chars().count() > 120 {
            format!("{}…", s.chars().take(120).collect::<String>())
        } else {
            s
        }
    };
    Some((at.to_string(), show(here), show(there)))
}

fn mismatch(
    path: &Path,
    reference: &Path,
    here: &serde_json::Value,
    there: &serde_json::Value,
) -> MergeError {
    let (field, here, there) = first_difference(here, there, "")
        .unwrap_or_else(|| ("shard".into(), "?".into(), "?".into()));
    MergeError::Mismatch {
        path: path.into(),
        reference: reference.into(),
        field,
        here,
        there,
    }
}

/// Checks that `run` holds exactly its part's games: the range `--shard` gives its part of
/// the header's deals (so the parts tile the match), and every game of it once.
fn check_games(part: &Part, run: &Run) -> Result<(), MergeError> {
    let s = &run.shard;
    let deals = Shard {
        index: s.index,
        count: s.count,
    }
    .deals(run.header.deals);
    // Games per deal: the rotations with --duplicate, else one.
    let per_deal = match run.header.deals {
        0 => 1,
        d => s.total / d,
    };
    let (want_first, want_end) = (deals.start * per_deal, deals.end * per_deal);
    if (s.first, s.end) != (want_first, want_end) || run.header.deals * per_deal != s.total {
        return Err(MergeError::Range {
            path: part.path.clone(),
            index: s.index,
            count: s.count,
            first: s.first,
            end: s.end,
            want_first,
            want_end,
        });
    }
    if let Some(&game) = run
        .records
        .keys()
        .find(|&&i| !(s.first..s.end).contains(&i))
    {
        return Err(MergeError::Stray {
            path: part.path.clone(),
            game,
            index: s.index,
            count: s.count,
            first: s.first,
            end: s.end,
        });
    }
    let expected = s.end - s.first;
    let have = run.records.len() as u64;
    if have < expected {
        let first_missing = (s.first..s.end)
            .find(|i| !run.records.contains_key(i))
            .unwrap_or(s.first);
        return Err(MergeError::Incomplete {
            path: part.path.clone(),
            index: s.index,
            count: s.count,
            missing: expected - have,
            expected,
            first_missing,
            pairing: match &s.tournament {
                Some(_) => format!(" in pairing {}", run.header.agents.join(" vs ")),
                None => String::new(),
            },
        });
    }
    Ok(())
}

/// Puts the logs of a sharded match or tournament (`--shard K/N --log FILE`, given in any
/// order) back together: checks that they are every part of one run exactly once and that
/// each is complete, then returns the unsharded run's log and summary.
pub fn merge(paths: &[PathBuf]) -> Result<Merged, MergeError> {
    let parts: Vec<Part> = paths
        .iter()
        .map(|p| read_part(p))
        .collect::<Result<_, _>>()?;
    let Some(reference) = parts.first() else {
        return Err(MergeError::Log("give the parts' logs to merge".into()));
    };
    // Which runs make up the whole: the match's, or every pairing of the tournament in the
    // order the tournament plays them.
    let wanted: Vec<(Option<(usize, usize)>, serde_json::Value)> = match &reference.shard.tournament
    {
        None => {
            let last = &reference.runs[reference.runs.len() - 1];
            vec![(None, key(&last.header))]
        }
        Some(t) => {
            let mut wanted = Vec::new();
            for (k, (i, j)) in round_robin::pairings(t.agents.len())
                .into_iter()
                .enumerate()
            {
                let agents = vec![t.agents[i].clone(), t.agents[j].clone()];
                let seed = round_robin::pairing_seed(t.seed, k as u64);
                let run = reference
                    .runs
                    .iter()
                    .find(|r| r.header.agents == agents && r.header.seed == seed)
                    .ok_or_else(|| MergeError::MissingPairing {
                        path: reference.path.clone(),
                        a: agents[0].clone(),
                        b: agents[1].clone(),
                    })?;
                wanted.push((Some((i, j)), key(&run.header)));
            }
            wanted
        }
    };
    // Each part's run of each wanted match, with its games checked.
    let mut by_index: BTreeMap<u64, (&Part, Vec<&Run>)> = BTreeMap::new();
    for part in &parts {
        let mut runs = Vec::new();
        for (pairing, want) in &wanted {
            let run = match pairing {
                None => part.runs.last(),
                Some(_) => part.runs.iter().find(|r| {
                    let k = key(&r.header);
                    k["agents"] == want["agents"] && k["seed"] == want["seed"]
                }),
            };
            let Some(run) = run else {
                return Err(match &part.shard.tournament {
                    Some(_) => MergeError::MissingPairing {
                        path: part.path.clone(),
                        a: want["agents"][0].as_str().unwrap_or("?").into(),
                        b: want["agents"][1].as_str().unwrap_or("?").into(),
                    },
                    None => mismatch(&part.path, &reference.path, &serde_json::Value::Null, want),
                });
            };
            let here = key(&run.header);
            if here != *want {
                return Err(mismatch(&part.path, &reference.path, &here, want));
            }
            check_games(part, run)?;
            runs.push(run);
        }
        if let Some((first, _)) = by_index.get(&part.shard.index) {
            return Err(MergeError::Duplicate {
                first: first.path.clone(),
                second: part.path.clone(),
                index: part.shard.index,
                count: part.shard.count,
            });
        }
        by_index.insert(part.shard.index, (part, runs));
    }
    let count = reference.shard.count;
    if let Some(index) = (0..count).find(|k| !by_index.contains_key(k)) {
        return Err(MergeError::Missing {
            index,
            count,
            given: paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    let mut runs = Vec::new();
    let mut robin = reference
        .shard
        .tournament
        .as_ref()
        .map(|t| (t, RoundRobin::new(&t.agents)));
    let mut summary = None;
    for (w, (pairing, _)) in wanted.iter().enumerate() {
        let mut header = by_index[&0].1[w].header.clone();
        header.shard = None;
        let records: Vec<GameRecord> = by_index
            .values()
            .flat_map(|(_, runs)| runs[w].records.values().cloned())
            .collect();
        let s = summary::summary_of_run(&header, &records);
        match (&mut robin, pairing) {
            (Some((_, robin)), Some((i, j))) => {
                robin.add(*i, *j, &s);
            }
            _ => summary = Some(s),
        }
        runs.push((header, records));
    }
    let summary = match (robin, summary) {
        (Some((t, robin)), _) => {
            let (game, rules, deals) = runs
                .first()
                .map(|(h, _)| (h.game, h.rules.clone(), h.deals))
                .ok_or_else(|| MergeError::Log("a tournament without pairings".into()))?;
            MergedSummary::Tournament(robin.finish(game, rules, t.seed, deals))
        }
        (None, Some(s)) => MergedSummary::Match(s),
        (None, None) => return Err(MergeError::Log("no match in the parts".into())),
    };
    Ok(Merged {
        runs,
        summary,
        parts: count,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_tile_the_deals_evenly() {
        for deals in [0u64, 1, 2, 7, 10, 100, 101] {
            for count in 1..=7u64 {
                let mut next = 0;
                for index in 0..count {
                    let r = Shard { index, count }.deals(deals);
                    assert_eq!(r.start, next, "{index}/{count} of {deals}");
                    assert!(r.end - r.start <= deals / count + 1);
                    assert!(r.end - r.start >= deals / count);
                    next = r.end;
                }
                assert_eq!(next, deals, "{count} parts of {deals}");
            }
        }
    }

    #[test]
    fn shard_flag_is_k_of_n_from_zero() {
        let s: Shard = "2/3".parse().expect("2/3");
        assert_eq!((s.index, s.count), (2, 3));
        for bad in ["3/3", "1", "a/3", "1/0", "-1/3", "1/3/4"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
