//! A worker's report in binary: what `croupier arena worker` sends to
//! `POST /api/worker/report` with `Content-Type:` [`CONTENT_TYPE`], and several of them to
//! `POST /api/worker/reports` ([`REPORTS_CONTENT_TYPE`]). The server still takes JSON bodies
//! too (older workers, `curl`); both decode to the same [`Report`] and [`Reports`].
//!
//! Why a second encoding: a remote worker reports every game it plays, about a kilobyte of
//! JSON per Durak game, and writing it out (numbers as text, every field named) plus pushing
//! it through the loopback stack took 10 ms of CPU per 1000 games on the worker's own core:
//! 6.5% of what the games themselves cost (`scripts/bench-arena.sh`, part 6). The same
//! record in [postcard] (varints, fields in order) takes 351 bytes instead of 969 (a
//! 2 v 2 Durak game of the example agents), and writing it costs about 2 µs less a game.
//!
//! The format is postcard over mirrors of the record's types, written out here field by
//! field. postcard does not name fields, so a field that JSON leaves out when empty
//! (`skip_serializing_if` on the records' own types) would shift every field after it; the
//! mirrors have none. Each conversion destructures the whole record, so a field added to
//! [`GameRecord`] does not compile here until the wire carries it. A later layout gets a new
//! content type, and the server keeps reading this one.
//!
//! Threat model: the body comes from a worker, which holds a worker token but is not trusted
//! to be well-formed. Decoding is bounded by the body (capped by
//! [`crate::queue::report_cap`] before it is read): postcard checks every length
//! against the bytes left and serde pre-allocates at most a bounded amount, so a lying
//! length is an error, never a large allocation. Bytes after the report are refused. What
//! the games say is then checked against the match's schedule as for JSON
//! ([`crate::queue::jobs::accept`]).

use crate::queue::{Report, Reports};
use croupier_host::sandbox::{CallStats, LogLine};
use croupier_host::verdict::Verdict;
use croupier_rules::SeatResult;
use croupier_tournament::runner::{GameRecord, SeatFault};
use serde::{Deserialize, Serialize};

/// The content type of a report in this encoding.
pub const CONTENT_TYPE: &str = "application/x-croupier-report-v1";

/// The content type of [`Reports`] (several reports in one call) in this encoding.
pub const REPORTS_CONTENT_TYPE: &str = "application/x-croupier-reports-v1";

/// Why a binary report could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// Not a body in this encoding (truncated, a bad length, an unknown variant).
    #[error("not a {kind} body: {reason}")]
    Malformed {
        /// The content type it was read as.
        kind: &'static str,
        /// What postcard found.
        reason: String,
    },
    /// Bytes after the body's end.
    #[error("not a {kind} body: {extra} bytes after its end")]
    Trailing {
        /// The content type it was read as.
        kind: &'static str,
        /// How many.
        extra: usize,
    },
}

/// Encodes a report.
pub fn encode(report: Report) -> Result<Vec<u8>, WireError> {
    // Sized for a typical game up front: growing by doubling copied the buffer several times.
    let buf = Vec::with_capacity(64 + 512 * report.games.len());
    write(&WireReport::from(report), buf, CONTENT_TYPE)
}

/// Decodes a report, refusing anything but exactly one.
pub fn decode(bytes: &[u8]) -> Result<Report, WireError> {
    read::<WireReport>(bytes, CONTENT_TYPE).map(Report::from)
}

/// Encodes several reports.
pub fn encode_reports(x: Reports) -> Result<Vec<u8>, WireError> {
    let games: usize = x.reports.iter().map(|r| r.games.len()).sum();
    let wire: Vec<WireReport> = x.reports.into_iter().map(WireReport::from).collect();
    write(
        &wire,
        Vec::with_capacity(64 + 512 * games),
        REPORTS_CONTENT_TYPE,
    )
}

/// Decodes several reports, refusing anything after them.
pub fn decode_reports(bytes: &[u8]) -> Result<Reports, WireError> {
    let wire = read::<Vec<WireReport>>(bytes, REPORTS_CONTENT_TYPE)?;
    Ok(Reports {
        reports: wire.into_iter().map(Report::from).collect(),
    })
}

fn write<T: Serialize>(value: &T, buf: Vec<u8>, kind: &'static str) -> Result<Vec<u8>, WireError> {
    postcard::to_extend(value, buf).map_err(|e| WireError::Malformed {
        kind,
        reason: e.to_string(),
    })
}

fn read<'a, T: Deserialize<'a>>(bytes: &'a [u8], kind: &'static str) -> Result<T, WireError> {
    let (value, rest) =
        postcard::take_from_bytes::<T>(bytes).map_err(|e| WireError::Malformed {
            kind,
            reason: e.to_string(),
        })?;
    if !rest.is_empty() {
        return Err(WireError::Trailing {
            kind,
            extra: rest.len(),
        });
    }
    Ok(value)
}

#[derive(Serialize, Deserialize)]
struct WireReport {
    match_id: i64,
    lease: String,
    done: bool,
    games: Vec<WireGame>,
}

impl From<Report> for WireReport {
    fn from(r: Report) -> WireReport {
        let Report {
            match_id,
            lease,
            done,
            games,
        } = r;
        WireReport {
            match_id,
            lease,
            done,
            games: games.into_iter().map(WireGame::from).collect(),
        }
    }
}

impl From<WireReport> for Report {
    fn from(r: WireReport) -> Report {
        let WireReport {
            match_id,
            lease,
            done,
            games,
        } = r;
        Report {
            match_id,
            lease,
            done,
            games: games.into_iter().map(GameRecord::from).collect(),
        }
    }
}

/// [`GameRecord`], every field always present.
#[derive(Serialize, Deserialize)]
struct WireGame {
    index: u64,
    deal: u64,
    rotation: usize,
    seed: u64,
    seats: Vec<usize>,
    actions: Vec<u32>,
    results: Vec<SeatResult>,
    scores: Vec<i64>,
    summary: String,
    aborted: bool,
    faults: Vec<WireFault>,
    forfeit: Option<u8>,
    decisions: u64,
    teams: Option<Vec<u8>>,
    builds: Vec<String>,
    logs: Vec<(u8, Vec<WireLog>)>,
    calls: Vec<WireCalls>,
}

#[derive(Serialize, Deserialize)]
struct WireFault {
    seat: u8,
    verdict: Verdict,
    message: String,
    at: usize,
}

#[derive(Serialize, Deserialize)]
struct WireLog {
    level: String,
    text: String,
    at: Option<u32>,
}

#[derive(Serialize, Deserialize)]
struct WireCalls {
    decisions: u64,
    fuel: u64,
    fuel_unknown: u64,
    /// Absent from a worker of an older version.
    #[serde(default)]
    fuel_max: u64,
}

impl From<GameRecord> for WireGame {
    fn from(r: GameRecord) -> WireGame {
        let GameRecord {
            index,
            deal,
            rotation,
            seed,
            seats,
            actions,
            results,
            scores,
            summary,
            aborted,
            faults,
            forfeit,
            decisions,
            teams,
            builds,
            logs,
            calls,
        } = r;
        WireGame {
            index,
            deal,
            rotation,
            seed,
            seats,
            actions,
            results,
            scores,
            summary,
            aborted,
            faults: faults.into_iter().map(WireFault::from).collect(),
            forfeit,
            decisions,
            teams,
            builds,
            logs: logs
                .into_iter()
                .map(|(seat, lines)| (seat, lines.into_iter().map(WireLog::from).collect()))
                .collect(),
            calls: calls.into_iter().map(WireCalls::from).collect(),
        }
    }
}

impl From<WireGame> for GameRecord {
    fn from(w: WireGame) -> GameRecord {
        let WireGame {
            index,
            deal,
            rotation,
            seed,
            seats,
            actions,
            results,
            scores,
            summary,
            aborted,
            faults,
            forfeit,
            decisions,
            teams,
            builds,
            logs,
            calls,
        } = w;
        GameRecord {
            index,
            deal,
            rotation,
            seed,
            seats,
            actions,
            results,
            scores,
            summary,
            aborted,
            faults: faults.into_iter().map(SeatFault::from).collect(),
            forfeit,
            decisions,
            teams,
            builds,
            logs: logs
                .into_iter()
                .map(|(seat, lines)| (seat, lines.into_iter().map(LogLine::from).collect()))
                .collect(),
            calls: calls.into_iter().map(CallStats::from).collect(),
        }
    }
}

impl From<SeatFault> for WireFault {
    fn from(f: SeatFault) -> WireFault {
        let SeatFault {
            seat,
            verdict,
            message,
            at,
        } = f;
        WireFault {
            seat,
            verdict,
            message,
            at,
        }
    }
}

impl From<WireFault> for SeatFault {
    fn from(f: WireFault) -> SeatFault {
        let WireFault {
            seat,
            verdict,
            message,
            at,
        } = f;
        SeatFault {
            seat,
            verdict,
            message,
            at,
        }
    }
}

impl From<LogLine> for WireLog {
    fn from(l: LogLine) -> WireLog {
        let LogLine { level, text, at } = l;
        WireLog { level, text, at }
    }
}

impl From<WireLog> for LogLine {
    fn from(l: WireLog) -> LogLine {
        let WireLog { level, text, at } = l;
        LogLine { level, text, at }
    }
}

impl From<CallStats> for WireCalls {
    fn from(c: CallStats) -> WireCalls {
        let CallStats {
            decisions,
            fuel,
            fuel_unknown,
            fuel_max,
        } = c;
        WireCalls {
            decisions,
            fuel,
            fuel_unknown,
            fuel_max,
        }
    }
}

impl From<WireCalls> for CallStats {
    fn from(c: WireCalls) -> CallStats {
        let WireCalls {
            decisions,
            fuel,
            fuel_unknown,
            fuel_max,
        } = c;
        CallStats {
            decisions,
            fuel,
            fuel_unknown,
            fuel_max,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record with every field away from its default, so that a field the wire dropped
    /// or swapped shows in the round trip.
    fn full_record(index: u64) -> GameRecord {
        GameRecord {
            index,
            deal: index / 2,
            rotation: 1,
            seed: 0xDEAD_BEEF_0000_0001 ^ index,
            seats: vec![0, 1, 0, 1],
            actions: vec![8, 513, 71_939, u32::MAX, 0],
            results: vec![
                SeatResult::Win,
                SeatResult::Loss,
                SeatResult::Draw,
                SeatResult::Loss,
            ],
            scores: vec![-3, 0, i64::MAX, i64::MIN],
            summary: "P2 is the durak <b>\u{1b}[31m".into(),
            aborted: true,
            faults: vec![SeatFault {
                seat: 3,
                verdict: Verdict::OutOfFuel,
                message: "ran out of fuel".into(),
                at: 4,
            }],
            forfeit: Some(3),
            decisions: 74,
            teams: Some(vec![0, 1, 0, 1]),
            builds: vec!["40848aa6a882".into(), "3e4e8cc30fb9".into()],
            logs: vec![(
                1,
                vec![
                    LogLine {
                        level: "warn".into(),
                        text: "trump is \u{2660}".into(),
                        at: Some(7),
                    },
                    LogLine {
                        level: "info".into(),
                        text: String::new(),
                        at: None,
                    },
                ],
            )],
            calls: vec![
                CallStats {
                    decisions: 14,
                    fuel: 43_350,
                    fuel_unknown: 2,
                    fuel_max: 9_100,
                },
                CallStats {
                    decisions: 0,
                    fuel: 0,
                    fuel_unknown: 0,
                    fuel_max: 0,
                },
            ],
        }
    }

    fn report(games: Vec<GameRecord>) -> Report {
        Report {
            match_id: 42,
            lease: "w3-9f2c".into(),
            done: true,
            games,
        }
    }

    #[test]
    fn a_report_comes_back_as_it_was_sent() {
        let games = vec![full_record(0), full_record(1)];
        let bytes = encode(report(games.clone())).expect("encodes");
        let back = decode(&bytes).expect("decodes");
        assert_eq!(back.match_id, 42);
        assert_eq!(back.lease, "w3-9f2c");
        assert!(back.done);
        assert_eq!(back.games, games);
    }

    /// The reason for the format: a game in well under half its JSON.
    #[test]
    fn a_report_is_far_smaller_than_its_json() {
        let mut r = full_record(5);
        r.actions = (0..130)
            .map(|i| if i % 3 == 0 { 8 } else { 9_000 + i })
            .collect();
        r.logs.clear();
        let json = serde_json::to_vec(&report(vec![r.clone()])).expect("json");
        let bin = encode(report(vec![r])).expect("binary");
        assert!(
            bin.len() * 2 <= json.len(),
            "binary {} bytes, JSON {}",
            bin.len(),
            json.len()
        );
    }

    #[test]
    fn several_reports_come_back_as_they_were_sent() {
        let mut second = report(vec![full_record(3)]);
        second.match_id = 43;
        second.done = false;
        let x = Reports {
            reports: vec![report(vec![full_record(0), full_record(1)]), second],
        };
        let bytes = encode_reports(x).expect("encodes");
        let back = decode_reports(&bytes).expect("decodes");
        assert_eq!(back.reports.len(), 2);
        assert_eq!(back.reports[0].games, vec![full_record(0), full_record(1)]);
        assert_eq!(back.reports[1].match_id, 43);
        assert!(!back.reports[1].done);
        assert_eq!(back.reports[1].games, vec![full_record(3)]);
        // Cut anywhere, or read as the other body: an error naming what it was read as.
        for n in 0..bytes.len() {
            let e = decode_reports(&bytes[..n]).expect_err("cut reports were read");
            assert!(e.to_string().contains(REPORTS_CONTENT_TYPE), "{e}");
        }
    }

    #[test]
    fn a_cut_report_is_refused_at_every_length() {
        let bytes = encode(report(vec![full_record(0)])).expect("encodes");
        for n in 0..bytes.len() {
            assert!(
                decode(&bytes[..n]).is_err(),
                "a report cut to {n} of {} bytes was read",
                bytes.len()
            );
        }
    }

    #[test]
    fn bytes_after_a_report_are_refused() {
        let mut bytes = encode(report(vec![])).expect("encodes");
        bytes.push(0);
        assert!(matches!(
            decode(&bytes),
            Err(WireError::Trailing { extra: 1, .. })
        ));
    }

    /// A length prefix that claims far more than the body holds is an error, and serde's
    /// cautious pre-allocation keeps it from reserving that much first.
    #[test]
    fn a_lying_length_is_an_error_not_an_allocation() {
        // match_id 1 (zigzag varint 2), lease "" , done false, then 2^62 games.
        let mut bytes = vec![2, 0, 0];
        bytes.extend([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40]);
        assert!(matches!(decode(&bytes), Err(WireError::Malformed { .. })));
    }
}
