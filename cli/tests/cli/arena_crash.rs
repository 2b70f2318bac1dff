//! A crash loses nothing: `kill -9` of a real `croupier arena serve` in the middle of a
//! match, then a restart on the same directory and database. Games stored before the kill
//! stay byte for byte; no game is stored twice; every done match holds exactly its
//! schedule's games; and the interrupted match, finished by the restarted server from its
//! seed, is the same game for game as the match played in one go by the tournament library.
//! On SQLite, and on PostgreSQL (a server the test starts, as in arena_postgres.rs).
//!
//! Also the lease rule underneath, at the database level: a worker whose lease expired and
//! was taken over stores nothing.

use crate::common::arena as arena_common;
use crate::common::postgres;

use arena_common::{
    ArenaDir, CRASH_TEAMS, Server, all_matches, assert_nothing_lost, games_of, get, interrupted,
    late_lease_stores_nothing, observer, runtime, settled, snapshot, states_round_trip,
    storage_refuses_what_the_handlers_refuse, wait_until,
};
use croupier_arena::config::ArenaConfig;
use croupier_arena::store::db::Db;
use croupier_arena::store::db::states::MatchState;
use postgres::Postgres;
use std::time::Duration;

/// Deals per ladder match. With `durak/fuzzy` at a table a 2 v 2 game takes a few
/// milliseconds, so a match (every deal in both seat rotations: 500 games) takes seconds and
/// its first batch of stored games (64) comes well before its end: room to kill it between.
const DEALS: i64 = 250;

/// The lease of the crash test's matches: far longer than the test waits for the restarted
/// server to finish the interrupted one.
const LONG_LEASE: i64 = 900;

fn kill9_mid_match_loses_nothing(database: Option<&str>) {
    let dir = ArenaDir::init_on("durak", "teams", database, |cfg| {
        if let Some(l) = cfg.get_mut("ladder").and_then(|l| l.as_table_mut()) {
            l.insert("deals".into(), toml::Value::Integer(DEALS));
            // A long lease: the restarted server must take its dead worker's match back at
            // once (issue #44), not after the lease runs out.
            l.insert("lease_seconds".into(), toml::Value::Integer(LONG_LEASE));
        }
    });
    let cfg = ArenaConfig::load(dir.path()).expect("arena.toml");
    let rt = runtime();
    let db = rt.block_on(observer(dir.path(), database));
    let mut server = dir.serve_teams(&CRASH_TEAMS, database);
    // Kill as soon as a match is part stored: its first batch is in, its last is not. A
    // match without `durak/fuzzy` plays in a blink, so it may finish between the look and
    // the kill; then the server is started again and the next match is tried.
    let mut attempts = 0;
    let (row, stored) = loop {
        wait_until(Duration::from_secs(240), "a match part stored", || {
            rt.block_on(interrupted(&db, &cfg)).is_some()
        });
        server.kill9();
        rt.block_on(settled(&db));
        // What the kill left: a match still leased (its worker died holding it), with some
        // of its games stored and not all.
        if let Some(left) = rt.block_on(interrupted(&db, &cfg)) {
            break left;
        }
        attempts += 1;
        assert!(
            attempts < 5,
            "no kill landed inside a match: {}",
            server.stderr()
        );
        server = Server::start(dir.path(), database);
    };
    let n = games_of(&cfg, &row);
    eprintln!(
        "killed the server with match {} at {stored} of {n} games stored",
        row.id
    );
    let before = rt.block_on(snapshot(&db));
    assert!(!before.is_empty());
    let done_before = rt
        .block_on(all_matches(&db))
        .iter()
        .filter(|m| m.state == MatchState::Done)
        .count();

    // The restart: the server takes back the match its dead worker held, at once, and
    // finishes it; other matches go on meanwhile. Well before the lease would run out.
    let server = Server::start(dir.path(), database);
    let limit = Duration::from_secs(240);
    assert!(limit.as_secs() * 2 < LONG_LEASE as u64);
    wait_until(limit, "the interrupted match and another done", || {
        let all = rt.block_on(all_matches(&db));
        let done = all.iter().filter(|m| m.state == MatchState::Done).count();
        all.iter()
            .any(|m| m.id == row.id && m.state == MatchState::Done)
            && done >= done_before + 2
    });
    drop(server);
    rt.block_on(settled(&db));
    assert!(
        rt.block_on(all_matches(&db))
            .iter()
            .find(|m| m.id == row.id)
            .is_some_and(|m| m.state == MatchState::Done)
    );

    assert_nothing_lost(&rt, &db, &cfg, dir.path(), &row, &before);
    rt.block_on(db.close());
}

#[test]
fn kill9_mid_match_loses_nothing_on_sqlite() {
    kill9_mid_match_loses_nothing(None);
}

#[test]
fn kill9_mid_match_loses_nothing_on_postgres() {
    let Some(pg) = Postgres::start_or_skip("the PostgreSQL crash test") else {
        return;
    };
    kill9_mid_match_loses_nothing(Some(&pg.url));
}

/// `settled` waits for another client's statement still running (as a dead server's COMMIT
/// is), and for nothing once it is done: the crash tests read only after it.
#[test]
fn settled_waits_for_a_busy_backend_on_postgres() {
    let Some(pg) = Postgres::start_or_skip("the PostgreSQL settle test") else {
        return;
    };
    let rt = runtime();
    rt.block_on(async {
        let tmp = tempfile::tempdir().expect("temp dir");
        let db = observer(tmp.path(), Some(&pg.url)).await;
        let other = sqlx::PgPool::connect(&pg.url).await.expect("connect");
        let busy = tokio::spawn(async move {
            sqlx::query("SELECT pg_sleep(1.5)")
                .execute(&other)
                .await
                .expect("sleep");
        });
        // Until the other backend is inside its statement.
        let t0 = std::time::Instant::now();
        loop {
            let n: i64 = match &db {
                Db::Postgres(p) => sqlx::query_scalar(
                    "SELECT COUNT(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' AND state = 'active'",
                )
                .fetch_one(p)
                .await
                .expect("activity"),
                Db::Sqlite { .. } => unreachable!("a PostgreSQL observer"),
            };
            if n > 0 {
                break;
            }
            assert!(t0.elapsed() < Duration::from_secs(30), "the sleep never started");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let start = std::time::Instant::now();
        settled(&db).await;
        assert!(
            start.elapsed() >= Duration::from_millis(500),
            "settled returned after {:?} while another backend was busy",
            start.elapsed()
        );
        busy.await.expect("the sleeping task");
        let start = std::time::Instant::now();
        settled(&db).await;
        assert!(start.elapsed() < Duration::from_secs(5), "settled waited for nobody");
        db.close().await;
    });
}

#[test]
fn a_late_lease_stores_nothing_on_sqlite() {
    let rt = runtime();
    rt.block_on(async {
        let tmp = tempfile::tempdir().expect("temp dir");
        let db = Db::open(tmp.path(), None).await.expect("open");
        assert!(matches!(db, Db::Sqlite { .. }));
        late_lease_stores_nothing(&db).await;
        db.close().await;
    });
}

/// Issue #64's refusals at the database level, on SQLite (`arena_postgres.rs`: PostgreSQL).
#[test]
fn storage_refuses_what_the_handlers_refuse_on_sqlite() {
    let rt = runtime();
    rt.block_on(async {
        let tmp = tempfile::tempdir().expect("temp dir");
        let db = Db::open(tmp.path(), None).await.expect("open");
        storage_refuses_what_the_handlers_refuse(&db).await;
        db.close().await;
    });
}

/// The state enums through SQLite, as `arena_postgres.rs` runs them through PostgreSQL.
#[test]
fn states_round_trip_on_sqlite() {
    let rt = runtime();
    rt.block_on(async {
        let tmp = tempfile::tempdir().expect("temp dir");
        let db = Db::open(tmp.path(), None).await.expect("open");
        states_round_trip(&db).await;
        db.close().await;
    });
}

/// What a restarted server shows of the ratings: the table and every team's versions and
/// head-to-head records, as the API gives them.
fn ratings_shown(url: &str) -> serde_json::Value {
    let board = arena_common::board(url);
    let teams: Vec<serde_json::Value> = board["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| {
            let t = get(&format!("{url}/api/teams/{}", row["team_id"]), None).json();
            serde_json::json!({ "versions": t["versions"], "head_to_head": t["head_to_head"] })
        })
        .collect();
    serde_json::json!({ "games": board["games"], "rows": board["rows"], "teams": teams })
}

/// Runs one statement on the arena's database, whichever it is.
async fn execute(db: &Db, q: &'static str) {
    match db {
        Db::Sqlite { pool, .. } => drop(sqlx::query(q).execute(pool).await.expect(q)),
        Db::Postgres(pool) => drop(sqlx::query(q).execute(pool).await.expect(q)),
    }
}

/// A server killed while the ladder plays starts again from its saved ratings checkpoint
/// and counts only the matches done since; what it then shows is exactly what counting every
/// result from scratch shows (the checkpoint, tampered with so that it no longer agrees with
/// the stored games, is refused, which forces the full count).
fn a_restart_counts_from_the_checkpoint(database: Option<&str>) {
    let dir = ArenaDir::init_on("durak", "teams", database, |cfg| {
        if let Some(l) = cfg.get_mut("ladder").and_then(|l| l.as_table_mut()) {
            l.insert("deals".into(), toml::Value::Integer(2));
            l.insert("checkpoint_seconds".into(), toml::Value::Integer(1));
        }
    });
    let teams = [
        ("a", "durak/random-lead"),
        ("b", "durak/trump-tosser"),
        ("c", "durak/cheapest"),
    ];
    let rt = runtime();
    let db = rt.block_on(observer(dir.path(), database));
    let mut server = dir.serve_teams(&teams, database);
    // Killed with a checkpoint saved and matches done after it, so that the restart both
    // restores and counts on.
    let mut attempts = 0;
    let saved_upto = loop {
        wait_until(
            Duration::from_secs(240),
            "a checkpoint, then more matches",
            || {
                let c = rt.block_on(db.load_checkpoint()).expect("checkpoint");
                let below = rt.block_on(db.done_below()).expect("done_below");
                c.is_some_and(|c| c.applied_upto >= 5 && below > c.applied_upto + 3)
            },
        );
        server.kill9();
        rt.block_on(settled(&db));
        let c = rt
            .block_on(db.load_checkpoint())
            .expect("checkpoint")
            .expect("saved");
        if rt.block_on(db.done_below()).expect("done_below") > c.applied_upto {
            break c.applied_upto;
        }
        attempts += 1;
        assert!(attempts < 5, "every kill landed on a fresh checkpoint");
        server = Server::start(dir.path(), database);
    };
    // From here nothing plays, so the two starts below see the same results.
    let path = dir.path().join("arena.toml");
    let mut cfg: toml::Table = std::fs::read_to_string(&path)
        .expect("arena.toml")
        .parse()
        .expect("toml");
    if let Some(l) = cfg.get_mut("ladder").and_then(|l| l.as_table_mut()) {
        l.insert("threads".into(), toml::Value::Integer(0));
    }
    std::fs::write(&path, toml::to_string(&cfg).expect("toml")).expect("write arena.toml");

    let mut server = Server::start(dir.path(), database);
    let restored = ratings_shown(&server.url);
    server.wait_said(&format!(
        "ratings from the checkpoint at match {saved_upto} "
    ));
    server.kill9();

    // A checkpoint whose row and body disagree is refused: every result is counted.
    rt.block_on(execute(
        &db,
        "UPDATE board_checkpoint SET games = games + 1",
    ));
    let mut server = Server::start(dir.path(), database);
    let counted = ratings_shown(&server.url);
    server.wait_said("the ratings checkpoint is not used (its row says");
    assert!(restored["games"].as_u64().unwrap_or(0) > 0, "{restored}");
    assert_eq!(restored, counted);

    // A clean stop (SIGTERM) saves the board it counted; a checkpoint that counts a game no longer
    // stored (a database put back from an older copy, say) is refused too.
    server.terminate();
    let c = rt
        .block_on(db.load_checkpoint())
        .expect("checkpoint")
        .expect("saved at the stop");
    assert_eq!(c.games, restored["games"].as_i64().unwrap_or(-1));
    rt.block_on(execute(
        &db,
        "DELETE FROM game_seats WHERE match_id = (SELECT MIN(match_id) FROM games) AND game_index = 0",
    ));
    rt.block_on(execute(
        &db,
        "DELETE FROM games WHERE match_id = (SELECT MIN(match_id) FROM games) AND game_index = 0",
    ));
    let server = Server::start(dir.path(), database);
    server.wait_said("are stored); counting every result");
    assert_eq!(
        arena_common::games_rated(&server.url),
        restored["games"].as_u64().unwrap_or(0) - 1
    );
    drop(server);
    rt.block_on(db.close());
}

#[test]
fn a_restart_counts_from_the_checkpoint_on_sqlite() {
    a_restart_counts_from_the_checkpoint(None);
}

#[test]
fn a_restart_counts_from_the_checkpoint_on_postgres() {
    let Some(pg) = Postgres::start_or_skip("the PostgreSQL checkpoint test") else {
        return;
    };
    a_restart_counts_from_the_checkpoint(Some(&pg.url));
}
