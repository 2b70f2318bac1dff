//! What a part of a sharded match is (`--shard K/N`) and what its log header says of it:
//! plain data that both the runner (which writes parts) and [`crate::merge`] (which reads
//! them) use, kept apart so that neither module imports the other for it.

use serde::{Deserialize, Serialize};
use std::ops::Range;

/// Part `index` of `count` (`--shard K/N`, `0 <= K < N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which part, from 0.
    pub index: u64,
    /// How many parts.
    pub count: u64,
}

/// A `--shard` value that is not `K/N` with `0 <= K < N`.
#[derive(Debug, thiserror::Error)]
#[error("`{0}`: expected K/N with 0 <= K < N, e.g. 0/4 (parts are numbered from 0)")]
pub struct ShardError(String);

impl std::str::FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError(s.to_string());
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u64 = k.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// This part's deals of `deals`: `K·D/N .. (K+1)·D/N`. The parts tile `0..D` without a gap
    /// or an overlap, and their sizes differ by at most one.
    pub fn deals(&self, deals: u64) -> Range<u64> {
        let at = |k: u64| (u128::from(k) * u128::from(deals) / u128::from(self.count)) as u64;
        at(self.index)..at(self.index + 1)
    }
}

/// What a shard's log header adds: which part it is, and what `merge` checks the parts
/// against each other with beyond the header's own fields (seed, agents, rules, limits…).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardHeader {
    /// Which part, from 0.
    pub index: u64,
    /// How many parts.
    pub count: u64,
    /// The part's first game index.
    pub first: u64,
    /// One past the part's last game index.
    pub end: u64,
    /// Games of the whole, unsharded match.
    pub total: u64,
    /// The build of each entrant (a content hash for components): parts played by other
    /// builds of an agent are not one match.
    pub builds: Vec<String>,
    /// The tournament this match is a pairing of, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<TournamentOf>,
}

/// The tournament a pairing's shard belongs to: what its ranking needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentOf {
    /// The tournament's master seed (each pairing's seed derives from it).
    pub seed: u64,
    /// Every agent of the round robin, as given.
    pub agents: Vec<String>,
}
