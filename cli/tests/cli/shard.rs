//! Sharded matches and tournaments: `--shard K/N` parts put together by `croupier merge`
//! give the unsharded run's table, JSON and log byte for byte; bad sets of parts are refused
//! naming the part; an interrupted part resumes to the same part.

use crate::common;

use common::croupier;
use std::path::{Path, PathBuf};

const MATCH: [&str; 4] = ["match", "durak", "durak/cheapest", "durak/random-lead"];
const TOURNAMENT: [&str; 5] = [
    "tournament",
    "durak",
    "durak/cheapest",
    "durak/random-lead",
    "durak/trump-tosser",
];

/// Runs croupier; its stdout, or a panic with its output.
fn ok(args: &[&str]) -> String {
    let out = croupier().args(args).output().expect("run croupier");
    assert!(
        out.status.success(),
        "croupier {args:?}\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Runs a croupier command that must fail as a user error: its one-line message.
fn refused(args: &[&str]) -> String {
    let out = croupier().args(args).output().expect("run croupier");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "croupier {args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    err
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Equal texts, or a panic showing the first differing line (logs are long).
fn same(a: &str, b: &str, what: &str) {
    if a != b {
        let at = a.lines().zip(b.lines()).position(|(x, y)| x != y);
        let line = at.unwrap_or(a.lines().count().min(b.lines().count()));
        let show = |t: &str| {
            t.lines()
                .nth(line)
                .unwrap_or("(none)")
                .chars()
                .take(300)
                .collect::<String>()
        };
        panic!(
            "{what} differs at line {}: {} lines vs {}\n  {}\n  {}",
            line + 1,
            a.lines().count(),
            b.lines().count(),
            show(a),
            show(b)
        );
    }
}

/// The unsharded run: (stdout, JSON, log).
fn whole(dir: &Path, name: &str, cmd: &[&str], extra: &[&str]) -> (String, String, String) {
    let (json, log) = (
        dir.join(format!("{name}.json")),
        dir.join(format!("{name}.jsonl")),
    );
    let mut args = cmd.to_vec();
    args.extend(extra);
    args.extend(["--quiet", "--json", s(&json), "--log", s(&log)]);
    let out = ok(&args);
    (out, read(&json), read(&log))
}

/// Plays the `n` shards of a run, each into `dir/NAME-K.jsonl`; returns the part files.
fn shards(dir: &Path, name: &str, cmd: &[&str], extra: &[&str], n: u64) -> Vec<PathBuf> {
    (0..n)
        .map(|k| {
            let log = dir.join(format!("{name}-{k}.jsonl"));
            let shard = format!("{k}/{n}");
            let mut args = cmd.to_vec();
            args.extend(extra);
            args.extend(["--quiet", "--shard", &shard, "--log", s(&log)]);
            ok(&args);
            log
        })
        .collect()
}

/// `croupier merge PARTS… --json --log`: (stdout, JSON, log).
fn merge(dir: &Path, parts: &[&PathBuf]) -> (String, String, String) {
    let (json, log) = (dir.join("merged.json"), dir.join("merged.jsonl"));
    let mut args = vec!["merge"];
    args.extend(parts.iter().map(|p| s(p)));
    args.extend(["--json", s(&json), "--log", s(&log)]);
    let out = ok(&args);
    (out, read(&json), read(&log))
}

/// A match's output with its wall-clock figures cut out: the first line's time and rate, and
/// the JSON's `elapsed_seconds`. They are the only parts that differ between two unsharded
/// runs too; everything else must be the same byte for byte.
fn without_time(text: &str) -> String {
    text.lines()
        .map(|l| {
            if l.trim_start().starts_with("\"elapsed_seconds\"") {
                "  \"elapsed_seconds\": T".to_string()
            } else if l.starts_with("durak (") {
                l.rsplit_once(" · ").map_or(l, |(head, _)| head).to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn shards_merge_into_the_unsharded_match_byte_for_byte() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    // 31 games in 3 shards (10 + 10 + 11) and in 4 (7 + 8 + 8 + 8): uneven splits.
    let extra = ["--games", "31", "--seed", "5"];
    let (out, json, log) = whole(d, "whole", &MATCH, &extra);
    assert_eq!(log.lines().count(), 32, "header and 31 games");
    for n in [3, 4] {
        let parts = shards(d, &format!("p{n}"), &MATCH, &extra, n);
        let sizes: Vec<usize> = parts.iter().map(|p| read(p).lines().count() - 1).collect();
        assert_eq!(sizes.iter().sum::<usize>(), 31, "{sizes:?}");
        assert!(sizes.iter().max().unwrap_or(&0) - sizes.iter().min().unwrap_or(&0) <= 1);
        // Parts in any order.
        let mut given: Vec<&PathBuf> = parts.iter().rev().collect();
        given.rotate_left(1);
        let (m_out, m_json, m_log) = merge(d, &given);
        same(
            &m_log,
            &log,
            &format!("{n} shards: the merged log is the unsharded log"),
        );
        same(
            &without_time(&m_json),
            &without_time(&json),
            &format!("{n} shards: JSON"),
        );
        assert!(m_json.contains("\"elapsed_seconds\": 0.0"), "{m_json}");
        same(
            &without_time(&m_out),
            &without_time(&out),
            &format!("{n} shards: table"),
        );
        assert!(m_out.lines().count() >= 3, "{m_out}");
    }
    // With --duplicate a deal's rotations stay in one shard: 7 deals × 2 rotations in 3.
    let dup = ["--games", "7", "--seed", "2", "--duplicate"];
    let (out, json, log) = whole(d, "dup-whole", &MATCH, &dup);
    let parts = shards(d, "dup", &MATCH, &dup, 3);
    for p in &parts {
        let text = read(p);
        let mut deals = std::collections::BTreeMap::<u64, u64>::new();
        for line in text.lines().skip(1) {
            let v: serde_json::Value = serde_json::from_str(line).expect("json");
            *deals.entry(v["deal"].as_u64().expect("deal")).or_default() += 1;
        }
        assert!(
            deals.values().all(|&c| c == 2),
            "{}: {deals:?}",
            p.display()
        );
    }
    let (m_out, m_json, m_log) = merge(d, &parts.iter().collect::<Vec<_>>());
    same(&m_log, &log, "duplicate: log");
    same(
        &without_time(&m_json),
        &without_time(&json),
        "duplicate: JSON",
    );
    same(
        &without_time(&m_out),
        &without_time(&out),
        "duplicate: table",
    );
}

#[test]
fn a_sharded_tournament_merges_byte_for_byte() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    // 7 deals per pairing in 3 shards (2 + 2 + 3), every deal twice.
    let extra = ["--games", "7", "--seed", "3", "--duplicate"];
    let (out, json, log) = whole(d, "whole", &TOURNAMENT, &extra);
    let parts = shards(d, "t", &TOURNAMENT, &extra, 3);
    let (m_out, m_json, m_log) = merge(d, &[&parts[2], &parts[0], &parts[1]]);
    // A tournament's table and JSON hold no wall-clock figure: all three are identical.
    same(&m_log, &log, "log");
    same(&m_json, &json, "JSON");
    same(&m_out, &out, "table");
}

#[test]
fn merge_refuses_missing_duplicated_and_mismatched_parts_naming_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let extra = ["--games", "9", "--seed", "5"];
    let p = shards(d, "part", &MATCH, &extra, 3);
    let merge_err = |parts: &[&Path]| {
        let mut args = vec!["merge"];
        args.extend(parts.iter().map(|p| s(p)));
        refused(&args)
    };

    let err = merge_err(&[&p[0], &p[1]]);
    assert!(err.contains("shard 2/3 is missing"), "{err}");

    let err = merge_err(&[&p[0], &p[1], &p[1], &p[2]]);
    assert!(
        err.contains(&format!("{0} and {0} are both shard 1/3", p[1].display())),
        "{err}"
    );
    let copy = d.join("copy-of-0.jsonl");
    std::fs::copy(&p[0], &copy).expect("copy");
    let err = merge_err(&[&p[0], &p[1], &copy, &p[2]]);
    assert!(
        err.contains(&format!(
            "{} and {} are both shard 0/3",
            p[0].display(),
            copy.display()
        )),
        "{err}"
    );

    // Another seed, other limits, other agents, another split: each named by the part and
    // the field.
    let other = |name: &str, args: &[&str], cmd: &[&str]| {
        let log = d.join(name);
        let mut full = cmd.to_vec();
        full.extend(args);
        full.extend(["--quiet", "--log", s(&log)]);
        ok(&full);
        log
    };
    let cheapest_tosser = ["match", "durak", "durak/cheapest", "durak/trump-tosser"];
    let cases: [(&str, &[&str], &[&str], &str); 4] = [
        (
            "seed-1.jsonl",
            &MATCH,
            &["--seed", "6", "--shard", "1/3"],
            "`seed` is 6 here, 5 there",
        ),
        (
            "fuel-1.jsonl",
            &MATCH,
            &["--seed", "5", "--fuel", "1000000", "--shard", "1/3"],
            "`limits.fuel_per_decision`",
        ),
        (
            "agents-1.jsonl",
            &cheapest_tosser,
            &["--seed", "5", "--shard", "1/3"],
            "`agents`",
        ),
        (
            "split-1.jsonl",
            &MATCH,
            &["--seed", "5", "--shard", "1/4"],
            "`shard.count`",
        ),
    ];
    for (name, cmd, args, field) in cases {
        let mut args = args.to_vec();
        args.extend(["--games", "9"]);
        let part = other(name, &args, cmd);
        let err = merge_err(&[&p[0], &part, &p[2]]);
        let head = format!(
            "{}: not a part of the same match as {}",
            part.display(),
            p[0].display()
        );
        assert!(err.contains(&head) && err.contains(field), "{err}");
    }

    // A part that lacks games (interrupted), and a log written without --shard.
    let text = read(&p[1]);
    let cut = d.join("cut-1.jsonl");
    std::fs::write(
        &cut,
        text.lines()
            .take(2)
            .map(|l| format!("{l}\n"))
            .collect::<String>(),
    )
    .expect("write");
    let err = merge_err(&[&p[0], &cut, &p[2]]);
    assert!(
        err.contains(&format!(
            "{}: shard 1/3 lacks 2 of its 3 games",
            cut.display()
        )),
        "{err}"
    );
    assert!(err.contains("--resume"), "{err}");
    whole(d, "whole", &MATCH, &extra);
    let unsharded = d.join("whole.jsonl");
    let err = merge_err(&[&p[0], &unsharded, &p[2]]);
    assert!(
        err.contains(&format!("{}: not a shard's log", unsharded.display())),
        "{err}"
    );

    // Another build of an agent under the same file name: same header but for `builds`.
    let agent = d.join("agent.wasm");
    std::fs::copy(common::example_agent("durak/cheapest"), &agent).expect("copy");
    let cmd = ["match", "durak", s(&agent), "durak/random-lead"];
    let b0 = other(
        "build-0.jsonl",
        &["--games", "9", "--seed", "5", "--shard", "0/3"],
        &cmd,
    );
    let b2 = other(
        "build-2.jsonl",
        &["--games", "9", "--seed", "5", "--shard", "2/3"],
        &cmd,
    );
    std::fs::copy(common::example_agent("durak/trump-tosser"), &agent).expect("copy");
    let b1 = other(
        "build-1.jsonl",
        &["--games", "9", "--seed", "5", "--shard", "1/3"],
        &cmd,
    );
    let err = merge_err(&[&b0, &b1, &b2]);
    assert!(
        err.contains(&format!("{}: not a part of the same match", b1.display()))
            && err.contains("`shard.builds`"),
        "{err}"
    );

    // The merged log may not replace a part.
    let err = refused(&["merge", s(&p[0]), s(&p[1]), s(&p[2]), "--log", s(&p[1])]);
    assert!(err.contains("would overwrite one of the parts"), "{err}");
}

/// Writes `start` (if any) to `log`, runs `CMD EXTRA --shard SHARD --log LOG --resume`, and
/// checks that the log is then `want`.
fn resumes_to(
    cmd: &[&str],
    extra: &[&str],
    shard: &str,
    log: &Path,
    start: Option<String>,
    want: &str,
) {
    if let Some(text) = start {
        std::fs::write(log, text).expect("write");
    }
    let mut args = cmd.to_vec();
    args.extend(extra);
    args.extend(["--quiet", "--shard", shard, "--log", s(log), "--resume"]);
    ok(&args);
    same(&read(log), want, &format!("{} resumed", log.display()));
}

#[test]
fn an_interrupted_shard_resumes_to_the_same_part() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let extra = ["--games", "12", "--seed", "8"];
    let parts = shards(d, "whole", &MATCH, &extra, 2);
    let part = read(&parts[1]);
    // Killed in the middle of writing its fourth game: the resumed part is the whole part.
    let lines: Vec<&str> = part.lines().collect();
    let mut torn: String = lines[..4].iter().map(|l| format!("{l}\n")).collect();
    torn.push_str(&lines[4][..lines[4].len() / 2]);
    resumes_to(
        &MATCH,
        &extra,
        "1/2",
        &d.join("torn-1.jsonl"),
        Some(torn),
        &part,
    );
    // A batch job's first attempt has no log yet: --resume starts the part.
    resumes_to(&MATCH, &extra, "1/2", &d.join("fresh-1.jsonl"), None, &part);

    // A tournament shard interrupted in its second pairing resumes that pairing and plays
    // the third, which it had not reached.
    let textra = ["--games", "4", "--seed", "4"];
    let tparts = shards(d, "tw", &TOURNAMENT, &textra, 2);
    let tpart = read(&tparts[0]);
    let cut: String = tpart.lines().take(5).map(|l| format!("{l}\n")).collect();
    resumes_to(
        &TOURNAMENT,
        &textra,
        "0/2",
        &d.join("cut-0.jsonl"),
        Some(cut),
        &tpart,
    );
}
