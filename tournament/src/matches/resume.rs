//! Resuming a match: the latest earlier run of the same match in its log, counted again,
//! and the torn last line of an interrupted write cut off.

use super::error::user;
use super::log::{LogGame, LogHeader};
use super::summary::Tally;
use anyhow::{Context, Result, bail};
use std::collections::BTreeSet;
use std::io::BufRead;
use std::path::Path;

/// Reads the records of an earlier run of the same match from a log, for `--resume`: adds
/// them to `tally` one at a time and returns the indices played, or `None` when the log
/// holds no run of this match (or does not exist). Cuts a torn last line so that appending
/// continues cleanly.
pub(crate) fn read_resume(
    path: &Path,
    header: &LogHeader,
    tally: &mut Tally,
) -> Result<Option<BTreeSet<u64>>> {
    let Ok(file) = std::fs::File::open(path) else {
        return Ok(None);
    };
    // The latest matching run wins: an earlier one in the same file is forgotten.
    let mut run = Tally::new(&header.agents);
    let mut done: BTreeSet<u64> = BTreeSet::new();
    let mut in_run = false;
    let mut found = false;
    let mut good_len = 0u64;
    let mut pos = 0u64;
    let mut reader = std::io::BufReader::new(file);
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader
            .read_line(&mut line)
            .with_context(|| format!("{}: cannot read the log", path.display()))?;
        if n == 0 {
            break;
        }
        pos += n as u64;
        if !line.ends_with('\n') {
            break; // torn write: dropped below
        }
        good_len = pos;
        let v: serde_json::Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => bail!(user(format!("{}: line is not JSON: {e}", path.display()))),
        };
        match v.get("type").and_then(|t| t.as_str()) {
            Some("match") => {
                let h: LogHeader = serde_json::from_value(v)
                    .with_context(|| format!("{}: bad match header", path.display()))?;
                in_run = h == *header;
                if in_run {
                    found = true;
                    run = Tally::new(&header.agents);
                    done.clear();
                }
            }
            Some("game") if in_run => {
                let g: LogGame = serde_json::from_value(v)
                    .with_context(|| format!("{}: bad game record", path.display()))?;
                if done.insert(g.record.index) {
                    run.add(&g.record);
                }
            }
            _ => {}
        }
    }
    let len = std::fs::metadata(path)?.len();
    if good_len < len {
        let f = std::fs::OpenOptions::new().write(true).open(path)?;
        f.set_len(good_len)?;
    }
    if !found {
        return Ok(None);
    }
    *tally = run;
    Ok(Some(done))
}
