//! Workers on other machines (here, other processes) play the ladder over HTTP with worker
//! tokens, on PostgreSQL (a server the test starts) and on SQLite: one `croupier arena serve`
//! with no worker of its own and three `croupier arena worker`s. One worker is killed by its
//! PID (`kill -9`) while it holds a part-stored match. Then: its lease expires and another
//! worker finishes the match; games stored before the kill stay byte for byte; no game is
//! stored twice; every done match holds exactly its schedule's games; the interrupted match
//! equals the same match played in one go; and a late report under the dead worker's lease
//! is refused with 409. Then the final is played by the workers (`arena final --workers`)
//! and its table and log are byte-identical to the final played in one process.
//!
//! Also the worker API's edges, through real HTTP: which tokens open it (and what a worker
//! token does not open), a report of a game that is not the match's or was not played by
//! the rules (400), a report that says "done" early (the match stays open), and an agent
//! asked for by a name that is not a content hash. And, through the library, that the
//! scheduler keeps a lease batch waiting for each lease a remote worker may have in flight.

use crate::common;
use crate::common::arena as arena_common;
use crate::common::postgres;

use arena_common::{
    ArenaDir, CRASH_TEAMS, Server, WorkerProc, all_matches, assert_nothing_lost, forged, get,
    interrupted, observer, post, runtime, snapshot, submit, wait_until,
};
use common::example_agent;
use croupier_arena::config::ArenaConfig;
use croupier_arena::queue::worker::Job;
use croupier_arena::store::db::states::{MatchKind, MatchState, VersionStatus};
use postgres::Postgres;
use std::time::Duration;

/// As in arena_crash.rs: a match with `durak/fuzzy` (500 games) takes seconds, and its
/// first report (64 games) comes well before its end.
const DEALS: i64 = 250;

fn json(v: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&v).expect("json")
}

/// The worker API's answers to the wrong tokens and to malformed reports, with a job leased
/// by hand (no worker process runs yet).
fn api_edges(url: &str, worker: &str, team: &str, admin: &str) {
    // Only a worker's token opens the worker API, and a worker's token opens nothing else.
    assert_eq!(get(&format!("{url}/api/worker/config"), None).status, 401);
    assert_eq!(
        get(&format!("{url}/api/worker/config"), Some(team)).status,
        403
    );
    assert_eq!(
        get(&format!("{url}/api/worker/config"), Some(admin)).status,
        403
    );
    let forged = forged(worker);
    assert_eq!(
        get(&format!("{url}/api/worker/config"), Some(&forged)).status,
        401,
        "a token that is not the worker's"
    );
    assert_eq!(get(&format!("{url}/api/teams/1"), Some(worker)).status, 403);
    assert_eq!(get(&format!("{url}/admin"), Some(worker)).status, 403);
    let cfg = get(&format!("{url}/api/worker/config"), Some(worker));
    assert_eq!(cfg.status, 200, "{}", cfg.body);
    assert_eq!(cfg.json()["game"], "durak");

    // Agents by content hash only: anything else never becomes a path.
    let bad = get(
        &format!("{url}/api/worker/agents/..%2Farena.toml"),
        Some(worker),
    );
    assert_eq!(bad.status, 400, "{}", bad.body);
    let none = get(
        &format!("{url}/api/worker/agents/{}", "0".repeat(64)),
        Some(worker),
    );
    assert_eq!(none.status, 404, "{}", none.body);

    // Lease a job by hand (the scheduler queues matches once a worker is heard from).
    let lease = post(
        &format!("{url}/api/worker/lease"),
        Some(worker),
        "application/json",
        b"{}",
    );
    let lease = if lease.status == 204 {
        post(
            &format!("{url}/api/worker/lease"),
            Some(worker),
            "application/json",
            b"{}",
        )
    } else {
        lease
    };
    assert_eq!(lease.status, 200, "{}", lease.body);
    let job: Job = serde_json::from_str(&lease.body).expect("a job");
    assert_eq!(job.todo.len() as i64, 2 * DEALS, "{job:?}");
    for e in &job.entrants {
        let a = get(
            &format!("{url}/api/worker/agents/{}", e.sha256),
            Some(worker),
        );
        assert_eq!(a.status, 200);
    }

    // A made-up game: wrong seating for its index, then an index past the schedule.
    let game = |index: u64, seats: serde_json::Value| {
        serde_json::json!({
            "index": index, "deal": index / 2, "rotation": index % 2,
            "seed": croupier_tournament::runner::game_seed(job.seed, index / 2),
            "seats": seats, "actions": [], "results": ["Win", "Loss", "Win", "Loss"],
            "scores": [0, 0, 0, 0], "summary": "", "aborted": false, "faults": [],
            "forfeit": null, "decisions": 0, "teams": null, "builds": [], "logs": [], "calls": []
        })
    };
    let report = |games: Vec<serde_json::Value>, done: bool, lease: &str| {
        post(
            &format!("{url}/api/worker/report"),
            Some(worker),
            "application/json",
            &json(serde_json::json!({
                "match_id": job.match_id, "lease": lease, "done": done, "games": games
            })),
        )
    };
    let wrong_seats = report(
        vec![game(0, serde_json::json!([1, 0, 1, 0]))],
        false,
        &job.lease,
    );
    assert_eq!(wrong_seats.status, 400, "{}", wrong_seats.body);
    assert!(wrong_seats.body.contains("seating"), "{}", wrong_seats.body);
    // The same game in the binary encoding the workers send: read, then checked alike.
    let binary = croupier_arena::queue::report_wire::encode(croupier_arena::queue::jobs::Report {
        match_id: job.match_id,
        lease: job.lease.clone(),
        done: false,
        games: vec![
            serde_json::from_value(game(0, serde_json::json!([1, 0, 1, 0]))).expect("a record"),
        ],
    })
    .expect("encodes");
    let wire = croupier_arena::queue::report_wire::CONTENT_TYPE;
    let url_report = format!("{url}/api/worker/report");
    let r = post(&url_report, Some(worker), wire, &binary);
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains("seating"), "{}", r.body);
    // Cut short: refused with what it is not, and nothing stored.
    let r = post(&url_report, Some(worker), wire, &binary[..binary.len() - 3]);
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains(wire), "{}", r.body);
    // Neither encoding: 415, naming both.
    let r = post(&url_report, Some(worker), "text/plain", &binary);
    assert_eq!(r.status, 415, "{}", r.body);
    assert!(
        r.body.contains("application/json") && r.body.contains(wire),
        "{}",
        r.body
    );
    let past = report(
        vec![game(2 * DEALS as u64, serde_json::json!([0, 1, 0, 1]))],
        false,
        &job.lease,
    );
    assert_eq!(past.status, 400, "{}", past.body);
    // The right game, but not played: every report is replayed through the rules, so a
    // result with no actions (and no fault to explain it) and an action that is not legal
    // are refused, and nothing is stored.
    let unplayed = report(
        vec![game(0, serde_json::json!([0, 1, 0, 1]))],
        false,
        &job.lease,
    );
    assert_eq!(unplayed.status, 400, "{}", unplayed.body);
    assert!(unplayed.body.contains("rules"), "{}", unplayed.body);
    let mut illegal = game(0, serde_json::json!([0, 1, 0, 1]));
    illegal["actions"] = serde_json::json!([u32::MAX]);
    let illegal = report(vec![illegal], false, &job.lease);
    assert_eq!(illegal.status, 400, "{}", illegal.body);
    assert!(illegal.body.contains("not legal"), "{}", illegal.body);
    // "Done" with nothing stored: refused as incomplete, the match stays leased.
    let early = report(vec![], true, &job.lease);
    assert_eq!(early.status, 200, "{}", early.body);
    assert!(early.body.contains("Incomplete"), "{}", early.body);
    // Under a lease that is not the match's: 409.
    let other = report(vec![], false, "w1-0000000000000000");
    assert_eq!(other.status, 409, "{}", other.body);
    // Heartbeat, then give the job back for the workers.
    let lref = json(serde_json::json!({"match_id": job.match_id, "lease": job.lease}));
    let beat = post(
        &format!("{url}/api/worker/heartbeat"),
        Some(worker),
        "application/json",
        &lref,
    );
    assert_eq!(beat.status, 200, "{}", beat.body);
    let give_back = |match_id: i64, lease: &str| {
        let lref = json(serde_json::json!({"match_id": match_id, "lease": lease}));
        let back = post(
            &format!("{url}/api/worker/release"),
            Some(worker),
            "application/json",
            &lref,
        );
        assert_eq!(back.status, 204, "{}", back.body);
    };
    give_back(job.match_id, &job.lease);
    // Several at once, as `croupier arena worker` asks: distinct matches, no more than the
    // cap whatever is asked, each under its own lease; given back for the workers.
    let lease_url = format!("{url}/api/worker/lease");
    let lease_max = |max: usize| -> croupier_arena::queue::jobs::Leased {
        let ask = json(serde_json::json!({ "max": max }));
        let r = post(&lease_url, Some(worker), "application/json", &ask);
        assert_eq!(r.status, 200, "{}", r.body);
        serde_json::from_str(&r.body).expect("jobs")
    };
    let leased = lease_max(99);
    let n = leased.jobs.len();
    assert!(
        (1..=croupier_arena::web::worker_api::MAX_LEASE_BATCH).contains(&n),
        "{n} jobs"
    );
    let mut ids: Vec<i64> = leased.jobs.iter().map(|j| j.match_id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "a match handed out twice: {ids:?}");
    for j in &leased.jobs {
        give_back(j.match_id, &j.lease);
    }
    let bad = post(
        &lease_url,
        Some(worker),
        "application/json",
        b"{\"max\": -1}",
    );
    assert_eq!(bad.status, 400, "{}", bad.body);

    // Several reports in one call: each gets the outcome it would get alone, in order, and
    // one refused report costs the others nothing.
    let two = lease_max(2);
    let (a, b) = match two.jobs.as_slice() {
        [a, b, ..] => (a.clone(), b.clone()),
        jobs => panic!("two jobs were asked for, {} came", jobs.len()),
    };
    let reports_url = format!("{url}/api/worker/reports");
    let x = post(
        &reports_url,
        Some(worker),
        "application/json",
        &json(serde_json::json!({
            "reports": [
                {"match_id": a.match_id, "lease": "w1-0000000000000000", "done": true, "games": []},
                {"match_id": b.match_id, "lease": b.lease, "done": true, "games": []},
                {"match_id": i64::MAX, "lease": b.lease, "done": true, "games": []},
            ]
        })),
    );
    assert_eq!(x.status, 200, "{}", x.body);
    let x: croupier_arena::queue::jobs::ReportOutcomes =
        serde_json::from_str(&x.body).expect("outcomes");
    use croupier_arena::queue::jobs::ReportOutcome;
    use croupier_arena::store::db::games::Stored;
    assert_eq!(x.outcomes.len(), 3, "{x:?}");
    assert_eq!(x.outcomes[0], ReportOutcome::Stored(Stored::LeaseLost));
    assert!(
        matches!(
            x.outcomes[1],
            ReportOutcome::Stored(Stored::Incomplete { stored: 0, .. })
        ),
        "{x:?}"
    );
    assert!(
        matches!(&x.outcomes[2], ReportOutcome::Refused(why) if why.contains("no match")),
        "{x:?}"
    );
    // The binary form the workers send: a game with the wrong seating is refused as a lone
    // report's would be.
    let bad_game: croupier_tournament::runner::GameRecord =
        serde_json::from_value(game(0, serde_json::json!([1, 0, 1, 0]))).expect("a record");
    let binary =
        croupier_arena::queue::report_wire::encode_reports(croupier_arena::queue::jobs::Reports {
            reports: vec![croupier_arena::queue::jobs::Report {
                match_id: job.match_id,
                lease: job.lease.clone(),
                done: false,
                games: vec![bad_game],
            }],
        })
        .expect("encodes");
    let xwire = croupier_arena::queue::report_wire::REPORTS_CONTENT_TYPE;
    let r = post(&reports_url, Some(worker), xwire, &binary);
    assert_eq!(r.status, 200, "{}", r.body);
    let r: croupier_arena::queue::jobs::ReportOutcomes =
        serde_json::from_str(&r.body).expect("outcomes");
    assert!(
        matches!(&r.outcomes[..], [ReportOutcome::Refused(why)] if why.contains("seating")),
        "{r:?}"
    );
    let r = post(
        &reports_url,
        Some(worker),
        xwire,
        &binary[..binary.len() - 1],
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains(xwire), "{}", r.body);
    let r = post(&reports_url, Some(worker), wire, &binary);
    assert_eq!(r.status, 415, "a lone report's type: {}", r.body);
    // Past the cap: refused whole, nothing stored.
    let many: Vec<_> = (0..=croupier_arena::web::worker_api::MAX_REPORTS_PER_CALL)
        .map(|_| serde_json::json!({"match_id": b.match_id, "lease": b.lease, "done": false, "games": []}))
        .collect();
    let r = post(
        &reports_url,
        Some(worker),
        "application/json",
        &json(serde_json::json!({"reports": many})),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains("at most"), "{}", r.body);
    for j in &two.jobs {
        give_back(j.match_id, &j.lease);
    }
}

/// One of these tests at a time. Each runs a server, three workers that keep a core busy
/// each and (on PostgreSQL) the database, all on the test machine: side by side on two cores
/// the load reached 15, and PostgreSQL could not hand a connection out within the pools' 10 s
/// (`PoolTimedOut`). In a real deployment the workers have machines of their own.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn three_workers_one_killed(database: Option<&str>) {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = ArenaDir::init_on("durak", "teams", database, |cfg| {
        if let Some(l) = cfg.get_mut("ladder").and_then(|l| l.as_table_mut()) {
            l.insert("deals".into(), toml::Value::Integer(DEALS));
            // No worker in the server: every game is played by the worker processes.
            l.insert("threads".into(), toml::Value::Integer(0));
            l.insert("lease_seconds".into(), toml::Value::Integer(3));
        }
    });
    let cfg = ArenaConfig::load(dir.path()).expect("arena.toml");
    let teams = CRASH_TEAMS;
    let tokens: Vec<String> = teams
        .iter()
        .map(|(name, _)| dir.add_team(name, database))
        .collect();
    let worker_tokens: Vec<String> = (1..=3)
        .map(|i| dir.add_worker(&format!("box{i}"), database))
        .collect();
    let rt = runtime();
    let db = rt.block_on(observer(dir.path(), database));

    let server = Server::start(dir.path(), database);
    let url = server.url.clone();
    for ((_, agent), token) in teams.iter().zip(&tokens) {
        let r = submit(&url, token, &example_agent(agent));
        assert_eq!(r.status, 201, "{agent}: {}", r.body);
    }
    api_edges(&url, &worker_tokens[0], &tokens[0], &dir.admin);

    let caches = tempfile::tempdir().expect("temp dir");
    let mut workers: Vec<WorkerProc> = worker_tokens
        .iter()
        .enumerate()
        .map(|(i, t)| {
            WorkerProc::start(
                &url,
                t,
                &caches.path().join(format!("w{i}")),
                &format!("box{}", i + 1),
            )
        })
        .collect();

    // Kill the worker holding a part-stored match. Lease names start with `w<worker id>-`.
    let mut attempts = 0;
    let (row, lease, victim) = loop {
        wait_until(Duration::from_secs(240), "a match part stored", || {
            rt.block_on(interrupted(&db, &cfg)).is_some()
        });
        let found = rt.block_on(async {
            let (row, _) = interrupted(&db, &cfg).await?;
            let lease = db.lease_of(row.id).await.expect("lease")?;
            Some((row, lease))
        });
        if let Some((row, lease)) = found
            && let Some(id) = lease
                .strip_prefix('w')
                .and_then(|r| r.split('-').next())
                .and_then(|n| n.parse::<usize>().ok())
            && (1..=3).contains(&id)
        {
            workers[id - 1].kill9();
            // The kill landed inside the match if it is still leased and part stored.
            if rt.block_on(db.lease_of(row.id)).expect("lease").as_deref() == Some(&lease) {
                break (row, lease, id - 1);
            }
            workers[id - 1] = WorkerProc::start(
                &url,
                &worker_tokens[id - 1],
                &caches.path().join(format!("w{}", id - 1)),
                &format!("box{id}"),
            );
        }
        attempts += 1;
        assert!(attempts < 5, "no kill landed inside a match");
    };
    let before = rt.block_on(snapshot(&db));
    let stored = before.keys().filter(|(m, _)| *m == row.id).count();
    eprintln!(
        "killed worker box{} holding match {} at {stored} games stored",
        victim + 1,
        row.id
    );
    let done_before = rt
        .block_on(all_matches(&db))
        .iter()
        .filter(|m| m.state == MatchState::Done)
        .count();

    // The two others go on; the dead worker's lease expires and its match is finished.
    wait_until(
        Duration::from_secs(cfg.ladder.lease_seconds + 240),
        "the interrupted match and two more done",
        || {
            let all = rt.block_on(all_matches(&db));
            let done = all.iter().filter(|m| m.state == MatchState::Done).count();
            all.iter()
                .any(|m| m.id == row.id && m.state == MatchState::Done)
                && done >= done_before + 2
        },
    );
    // A late report under the dead worker's lease: refused, nothing stored.
    let late = post(
        &format!("{url}/api/worker/report"),
        Some(&worker_tokens[victim]),
        "application/json",
        &json(serde_json::json!({
            "match_id": row.id, "lease": lease, "done": true, "games": []
        })),
    );
    assert_eq!(late.status, 409, "{}", late.body);
    let beat = post(
        &format!("{url}/api/worker/heartbeat"),
        Some(&worker_tokens[victim]),
        "application/json",
        &json(serde_json::json!({"match_id": row.id, "lease": lease})),
    );
    assert_eq!(beat.status, 409, "{}", beat.body);
    // The final, played by the two workers that live: the same table and the same log, byte
    // for byte, as the final played in one process from the same seed.
    let final_by = |how: &[&str]| {
        let mut cmd = common::croupier();
        cmd.args(["arena", "final"])
            .arg(dir.path())
            .args(["--deals", "3", "--seed", "9"])
            .args(how);
        if let Some(db) = database {
            cmd.args(["--database", db]);
        }
        let out = cmd.output().expect("run croupier arena final");
        assert!(
            out.status.success(),
            "arena final {how:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let read = |f: &str| std::fs::read(dir.path().join("final").join(f)).expect("final file");
        (read("final.json"), read("final.jsonl"))
    };
    let (json_w, log_w) = final_by(&["--workers"]);
    let (json_1, log_1) = final_by(&["--threads", "2"]);
    assert!(
        String::from_utf8_lossy(&json_w).contains("alpha"),
        "{}",
        String::from_utf8_lossy(&json_w)
    );
    assert_eq!(
        String::from_utf8_lossy(&json_w),
        String::from_utf8_lossy(&json_1),
        "the final's table differs between the workers and one process"
    );
    assert!(
        log_w == log_1,
        "the final's log differs between the workers and one process"
    );
    let finals = rt
        .block_on(all_matches(&db))
        .iter()
        .filter(|m| m.kind == MatchKind::Final && m.state == MatchState::Done)
        .count();
    assert_eq!(
        finals, 3,
        "one final match per pairing, played by the workers"
    );

    let logs: Vec<String> = workers.iter().map(WorkerProc::log).collect();
    drop(workers);
    drop(server);
    assert_nothing_lost(&rt, &db, &cfg, dir.path(), &row, &before);
    // Every worker that lived played: the games are spread over the machines.
    let all = rt.block_on(all_matches(&db));
    assert!(
        all.iter().filter(|m| m.state == MatchState::Done).count() >= 3,
        "{logs:?}"
    );
    rt.block_on(db.close());
}

#[test]
fn three_workers_one_killed_on_postgres() {
    let Some(pg) = Postgres::start_or_skip("the PostgreSQL worker test") else {
        return;
    };
    three_workers_one_killed(Some(&pg.url));
}

#[test]
fn three_workers_one_killed_on_sqlite() {
    three_workers_one_killed(None);
}

/// Regression: the scheduler kept four matches waiting per remote worker, and one lease call
/// (a batch of four) took them all. The worker's other leases in flight then found none, and
/// its play thread stood idle until results came back and the scheduler woke: 10 to 20% of
/// the time with 8-deal matches (`PARTS=6 scripts/bench-arena.sh`). Now a remote worker
/// heard from has a batch waiting for every lease it may have in flight, and a batch taken
/// is made up as soon as the scheduler is woken.
#[test]
fn a_remote_worker_finds_a_batch_waiting_for_each_lease_it_has_in_flight() {
    use croupier_arena::context::Arena;
    use croupier_arena::queue::{jobs, ladder, worker};
    use croupier_arena::web::worker_api;
    let dir = ArenaDir::init("durak", "teams", |cfg| {
        if let Some(l) = cfg.get_mut("ladder").and_then(|l| l.as_table_mut()) {
            l.insert("threads".into(), toml::Value::Integer(0));
        }
    });
    let want = ((worker::MAX_LEASES_AHEAD + 1) * worker_api::MAX_LEASE_BATCH) as i64;
    runtime().block_on(async {
        let arena = Arena::open(dir.path(), None).await.expect("open the arena");
        for (i, name) in ["a", "b"].into_iter().enumerate() {
            let team = arena.db.add_team(name, &[i as u8; 32]).await.expect("team");
            let team = team.expect("a new team");
            let (v, _) = arena
                .db
                .add_version(team, &format!("{i:064}"), 1)
                .await
                .expect("version");
            arena
                .db
                .set_version_status(v, VersionStatus::Valid, "", None)
                .await
                .expect("verdict");
        }
        let w = arena.db.add_worker("w", &[9; 32]).await.expect("worker");
        arena
            .worker_seen(w.expect("a new worker"))
            .await
            .expect("seen");
        let leasable = |arena: std::sync::Arc<Arena>| async move {
            arena.db.leasable_matches().await.expect("leasable")
        };
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let scheduler = tokio::spawn(ladder::scheduler(arena.clone(), stopped));
        let until = |n: i64, what: &'static str| {
            let arena = arena.clone();
            async move {
                let start = std::time::Instant::now();
                loop {
                    let have = leasable(arena.clone()).await;
                    if have == n {
                        return;
                    }
                    assert!(have < n, "{have} matches waiting, more than {n}");
                    assert!(
                        start.elapsed() < Duration::from_secs(60),
                        "{what}: {have} of {n}"
                    );
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
        };
        until(want, "the queue filled for one remote worker").await;
        let batch = jobs::lease(&arena, "w1", worker_api::MAX_LEASE_BATCH)
            .await
            .expect("lease");
        assert_eq!(
            batch.len(),
            worker_api::MAX_LEASE_BATCH,
            "a whole batch in one claim"
        );
        // What a report that ends a match does.
        arena.changed.notify_waiters();
        until(want, "the queue made up after a batch was taken").await;
        stop.send(true).expect("stop the scheduler");
        arena.changed.notify_waiters();
        scheduler.await.expect("the scheduler ends");
    });
}

/// `croupier arena …` with `args`, then the arena's directory and `name`.
fn arena_cli(dir: &ArenaDir, args: &[&str], name: &str) -> std::process::Output {
    common::croupier()
        .arg("arena")
        .args(args)
        .arg(dir.path())
        .arg(name)
        .output()
        .expect("run croupier arena")
}

/// [`arena_cli`]'s output, which must be a success.
fn manage(dir: &ArenaDir, args: &[&str], name: &str) -> String {
    let out = arena_cli(dir, args, name);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "arena {args:?} {name}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// A leaked token is replaced, or its worker removed, while the server runs: the old token
/// stops working at the next request, and a worker running with a removed token stops by
/// itself with an error that says why (not one failed lease a second for ever).
#[test]
fn a_removed_worker_stops_and_a_new_token_locks_the_old_one_out() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = remote_only_arena();
    let team = dir.add_team("a", None);
    let server = dir.serve_teams(&[("b", "durak/trump-tosser")], None);
    let url = server.url.clone();
    let r = submit(&url, &team, &example_agent("durak/random-lead"));
    assert_eq!(r.status, 201, "{}", r.body);
    let w = dir.add_worker("w", None);
    let v = dir.add_worker("v", None);
    let cache = dir.path().join("cache-w");
    let mut worker = WorkerProc::start(&url, &w, &cache, "w");
    wait_until(Duration::from_secs(120), "the worker plays", || {
        arena_common::games_rated(&url) > 0
    });

    let said = manage(&dir, &["workers", "remove"], "w");
    assert!(said.contains("removed"), "{said}");
    let config = format!("{url}/api/worker/config");
    assert_eq!(get(&config, Some(&w)).status, 401);
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = worker.child.try_wait().expect("wait for the worker") {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the removed worker still runs: {}",
            worker.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(!status.success(), "{}", worker.log());
    // The reader threads may still be copying its last lines.
    wait_until(Duration::from_secs(10), "the worker says why", || {
        worker.log().contains("no longer takes this worker's token")
    });

    // A new token: the old one is refused, the new one opens the worker API.
    assert_eq!(get(&config, Some(&v)).status, 200);
    let said = manage(&dir, &["workers", "token"], "v");
    let fresh = said
        .lines()
        .find(|l| l.starts_with("worker-"))
        .expect("the new token is printed")
        .trim();
    assert_eq!(get(&config, Some(&v)).status, 401);
    assert_eq!(get(&config, Some(fresh)).status, 200);

    // The same for a team: an empty upload is refused as empty with a valid token, as
    // unauthorised with the old one.
    let submit_url = format!("{url}/api/submit");
    let empty = |token: &str| post(&submit_url, Some(token), "application/wasm", b"");
    assert_eq!(empty(&team).status, 400);
    let said = manage(&dir, &["team", "token"], "a");
    let fresh = said
        .lines()
        .find(|l| l.starts_with("team-"))
        .expect("the new token is printed")
        .trim()
        .to_string();
    assert_eq!(empty(&team).status, 401);
    let r = empty(&fresh);
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains("empty"), "{}", r.body);

    // Names that are not there are an error that names them.
    for (args, name) in [(["workers", "remove"], "w"), (["team", "token"], "nobody")] {
        let out = arena_cli(&dir, &args, name);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("`{name}`")), "{err}");
    }
}

/// A Durak arena whose server plays nothing itself (`ladder.threads = 0`, so every game
/// comes from a remote worker), with 2-deal matches.
fn remote_only_arena() -> ArenaDir {
    ArenaDir::init("durak", "teams", |cfg| {
        if let Some(l) = cfg.get_mut("ladder").and_then(|l| l.as_table_mut()) {
            l.insert("threads".into(), toml::Value::Integer(0));
            l.insert("deals".into(), toml::Value::Integer(2));
        }
    })
}

/// Issue #44: twenty junk tokens a minute from one address locked out every token from that
/// address, the workers' reports and the organiser's pages included, and behind a reverse
/// proxy or a classroom NAT every client shares one address. Here a remote worker on
/// 127.0.0.1 plays and stores games while junk tokens keep arriving from 127.0.0.1, and the
/// organiser's API answers; the junk itself gets 401 or 429, never in.
#[test]
fn a_remote_worker_stores_games_while_junk_tokens_arrive_from_its_address() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = remote_only_arena();
    let server = dir.serve_teams(
        &[("a", "durak/random-lead"), ("b", "durak/trump-tosser")],
        None,
    );
    let url = server.url.clone();
    let w = dir.add_worker("w", None);
    let junk = forged(&w);
    let config = format!("{url}/api/worker/config");
    for _ in 0..croupier_arena::web::identity::FAILED_TOKENS_PER_MINUTE {
        assert_eq!(get(&config, Some(&junk)).status, 401);
    }
    assert_eq!(get(&config, Some(&junk)).status, 429);
    // One junk request every 50 ms for as long as the test runs (at most five minutes).
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flood = {
        let (stop, config, junk) = (stop.clone(), config.clone(), junk.clone());
        std::thread::spawn(move || {
            let mut sent = 0u32;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) && sent < 6000 {
                let status = get(&config, Some(&junk)).status;
                assert!(matches!(status, 401 | 429), "junk got {status}");
                sent += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            sent
        })
    };
    let cache = dir.path().join("cache-w");
    let worker = WorkerProc::start(&url, &w, &cache, "w");
    wait_until(
        Duration::from_secs(120),
        "the worker stores games during the flood",
        || arena_common::games_rated(&url) > 0,
    );
    let before = arena_common::games_rated(&url);
    wait_until(Duration::from_secs(120), "and goes on storing them", || {
        arena_common::games_rated(&url) > before
    });
    assert_eq!(
        get(&format!("{url}/api/admin/teams"), Some(&dir.admin)).status,
        200
    );
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let sent = flood.join().expect("the flood thread");
    assert!(sent > 10, "{sent} junk requests");
    drop(worker);
}
