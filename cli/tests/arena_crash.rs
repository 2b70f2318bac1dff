//! A crash loses nothing: `kill -9` of a real `croupier arena serve` in the middle of a
//! match, then a restart on the same directory and database. Games stored before the kill
//! stay byte for byte; no game is stored twice; every done match holds exactly its
//! schedule's games; and the interrupted match, finished by the restarted server from its
//! seed, is the same game for game as the match played in one go by the tournament library.
//! On SQLite, and on PostgreSQL (a server the test starts, as in arena_postgres.rs).
//!
//! Also the lease rule underneath, at the database level: a worker whose lease expired and
//! was taken over stores nothing.

#![cfg(unix)]

mod common;

use common::arena::{
    ArenaDir, CRASH_TEAMS, Server, all_matches, assert_nothing_lost, games_of, interrupted,
    late_lease_stores_nothing, observer, runtime, snapshot, submit, wait_until,
};
use common::example_agent;
use common::postgres::Postgres;
use croupier_arena::config::ArenaConfig;
use croupier_arena::db::Db;
use std::time::Duration;

/// Deals per ladder match. With `durak/ismcts` at a table a 2 v 2 game takes about a tenth
/// of a second, so a match (every deal in both seat rotations: 100 games) takes seconds and
/// its first batch of stored games (64) comes well before its end: room to kill it between.
const DEALS: i64 = 50;

fn kill9_mid_match_loses_nothing(database: Option<&str>) {
    let dir = ArenaDir::init_on("durak", "teams", database, |cfg| {
        if let Some(l) = cfg.get_mut("ladder").and_then(|l| l.as_table_mut()) {
            l.insert("deals".into(), toml::Value::Integer(DEALS));
            // A short lease: the restarted server takes the dead worker's match sooner.
            l.insert("lease_seconds".into(), toml::Value::Integer(5));
        }
    });
    let cfg = ArenaConfig::load(dir.path()).expect("arena.toml");
    let teams = CRASH_TEAMS;
    let tokens: Vec<String> = teams
        .iter()
        .map(|(name, _)| dir.add_team(name, database))
        .collect();
    let rt = runtime();
    let db = rt.block_on(observer(dir.path(), database));

    let mut server = Server::start(dir.path(), database);
    for ((_, agent), token) in teams.iter().zip(&tokens) {
        let r = submit(&server.url, token, &example_agent(agent));
        assert_eq!(r.status, 201, "{agent}: {}", r.body);
    }
    // Kill as soon as a match is part stored: its first batch is in, its last is not. A
    // match without `durak/ismcts` plays in a blink, so it may finish between the look and
    // the kill; then the server is started again and the next match is tried.
    let mut attempts = 0;
    let (row, stored) = loop {
        wait_until(Duration::from_secs(240), "a match part stored", || {
            rt.block_on(interrupted(&db, &cfg)).is_some()
        });
        server.kill9();
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
        .filter(|m| m.state == "done")
        .count();

    // The restart: the dead worker's lease expires (ladder.lease_seconds), and the match is
    // leased again and finished; other matches go on meanwhile.
    let server = Server::start(dir.path(), database);
    let limit = Duration::from_secs(cfg.ladder.lease_seconds + 240);
    wait_until(limit, "the interrupted match and another done", || {
        let all = rt.block_on(all_matches(&db));
        let done = all.iter().filter(|m| m.state == "done").count();
        all.iter().any(|m| m.id == row.id && m.state == "done") && done >= done_before + 2
    });
    drop(server);
    assert!(
        rt.block_on(all_matches(&db))
            .iter()
            .find(|m| m.id == row.id)
            .is_some_and(|m| m.state == "done")
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
