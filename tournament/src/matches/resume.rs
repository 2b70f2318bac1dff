//! Resuming a match: the latest earlier run of the same match in its log, counted again,
//! and the torn last line of an interrupted write cut off.

use super::error::LogError;
use super::log::{LogGame, LogHeader};
use super::summary::Tally;
use std::collections::BTreeSet;
use std::io::BufRead;
use std::path::Path;

/// Reads the records of an earlier run of the same match from a log, for `resume`: adds
/// them to `tally` one at a time and returns the indices played, or `None` when the log
/// holds no run of this match (or does not exist). Cuts a torn last line so that appending
/// continues cleanly.
pub(crate) fn read_resume(
    path: &Path,
    header: &LogHeader,
    tally: &mut Tally,
) -> Result<Option<BTreeSet<u64>>, LogError> {
    let Ok(file) = std::fs::File::open(path) else {
        return Ok(None);
    };
    let at = || path.to_path_buf();
    let read = |error| LogError::Read { path: at(), error };
    // The latest matching run wins: an earlier one in the same file is forgotten.
    let mut run = Tally::new(&header.agents);
    let mut done: BTreeSet<u64> = BTreeSet::new();
    let mut in_run = false;
    let mut found = false;
    let mut good_len = 0u64;
    let mut pos = 0u64;
    let mut reader = std::io::BufReader::new(file);
    let mut content = String::new();
    for line in 1.. {
        content.clear();
        let n = reader.read_line(&mut content).map_err(read)?;
        if n == 0 {
            break;
        }
        pos += n as u64;
        if !content.ends_with('\n') {
            break; // torn write: dropped below
        }
        good_len = pos;
        let v: serde_json::Value =
            serde_json::from_str(&content).map_err(|error| LogError::NotJson {
                path: at(),
                line,
                error,
            })?;
        match v.get("type").and_then(|t| t.as_str()) {
            Some("match") => {
                let h: LogHeader = serde_json::from_value(v).map_err(|error| LogError::Header {
                    path: at(),
                    line,
                    error,
                })?;
                in_run = h == *header;
                if in_run {
                    found = true;
                    run = Tally::new(&header.agents);
                    done.clear();
                }
            }
            Some("game") if in_run => {
                let g: LogGame = serde_json::from_value(v).map_err(|error| LogError::Game {
                    path: at(),
                    line,
                    error,
                })?;
                if done.insert(g.record.index) {
                    run.add(&g.record);
                }
            }
            _ => {}
        }
    }
    let len = std::fs::metadata(path).map_err(read)?.len();
    if good_len < len {
        let cut = |error| LogError::Cut { path: at(), error };
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(cut)?;
        f.set_len(good_len).map_err(cut)?;
    }
    if !found {
        return Ok(None);
    }
    *tally = run;
    Ok(Some(done))
}
