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

use common::arena::{ArenaDir, Server, late_lease_stores_nothing, runtime, submit, wait_until};
use common::example_agent;
use common::postgres::Postgres;
use croupier_arena::config::ArenaConfig;
use croupier_arena::db::{Db, MatchRow};
use croupier_host::adapters::Adapter;
use croupier_tournament::runner::{self, Entrant, FaultPolicy, GameRecord, Plan};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// Deals per ladder match. With `durak/ismcts` at a table a 2 v 2 game takes about a tenth
/// of a second, so a match (every deal in both seat rotations: 100 games) takes seconds and
/// its first batch of stored games (64) comes well before its end: room to kill it between.
const DEALS: i64 = 50;

/// Every match, by id (ids are dense from 1).
async fn all_matches(db: &Db) -> Vec<MatchRow> {
    let mut rows = Vec::new();
    for id in 1.. {
        match db.match_row(id).await.expect("match row") {
            Some(r) => rows.push(r),
            None => break,
        }
    }
    rows
}

/// Games a match's schedule holds.
fn games_of(cfg: &ArenaConfig, row: &MatchRow) -> i64 {
    let n = row.entrant_ids().expect("entrants").len();
    croupier_tournament::with_game!(cfg.kind(), G => {
        let (_, opts) = croupier_tournament::matches::options::<G>(&cfg.rules_args()).expect("rules");
        croupier_arena::ladder::schedule::<G>(&opts, row, n).games() as i64
    })
}

/// A leased match with some but not all of its games stored, and how many are.
async fn interrupted(db: &Db, cfg: &ArenaConfig) -> Option<(MatchRow, usize)> {
    for row in all_matches(db).await {
        if row.state != "leased" {
            continue;
        }
        let stored = db.stored_indices(row.id).await.expect("indices").len();
        if stored > 0 && (stored as i64) < games_of(cfg, &row) {
            return Some((row, stored));
        }
    }
    None
}

/// Every stored game: (match, index) → (record, logs, finished).
type Snapshot = BTreeMap<(i64, i64), (String, Option<String>, i64)>;

async fn snapshot(db: &Db) -> Snapshot {
    let mut all = Snapshot::new();
    for row in all_matches(db).await {
        for g in db.games_of_match(row.id).await.expect("games") {
            let old = all.insert(
                (g.match_id, g.game_index),
                (g.record, g.logs, g.finished_ms),
            );
            assert!(
                old.is_none(),
                "match {} game {} stored twice",
                g.match_id,
                g.game_index
            );
        }
    }
    all
}

/// The match `row` played in one go by the tournament library: the same agent files (by
/// content hash in DIR/agents), rules, limits, schedule and seed as the ladder's `play`,
/// turned into rows the way the ladder stores them. Returns (record, logs) per game.
fn replay<G: Adapter>(
    dir: &Path,
    cfg: &ArenaConfig,
    row: &MatchRow,
    versions: &[(i64, String, i64)],
) -> Vec<(String, Option<String>)> {
    let (_, opts) = croupier_tournament::matches::options::<G>(&cfg.rules_args()).expect("rules");
    let cache = tempfile::tempdir().expect("temp dir");
    let rt = croupier_host::Runtime::new(
        cfg.limits.clone(),
        croupier_host::cache::Cache::at(cache.path()).expect("cache"),
    )
    .expect("runtime");
    let entrants: Vec<Entrant<G>> = versions
        .iter()
        .map(|(id, sha, _)| {
            let path = dir.join("agents").join(format!("{sha}.wasm"));
            let loaded = rt.load(&path).expect("load agent");
            Entrant {
                name: format!("v{id}"),
                args: String::new(),
                factory: rt.factory::<G>(&loaded, &opts, "").expect("link agent"),
            }
        })
        .collect();
    let schedule = croupier_arena::ladder::schedule::<G>(&opts, row, entrants.len());
    let plan = Plan {
        options: &opts,
        entrants: &entrants,
        schedule: &schedule,
        seed: row.seed as u64,
        policy: FaultPolicy::Forfeit,
        threads: 2,
    };
    let mut games: Vec<GameRecord> = Vec::new();
    let todo: Vec<u64> = (0..schedule.games()).collect();
    runner::run::<G>(&plan, &todo, &(), &mut |rec| {
        games.push(rec);
        Ok(())
    })
    .expect("the match plays");
    games.sort_by_key(|g| g.index);
    let ids: Vec<i64> = versions.iter().map(|v| v.0).collect();
    let teams: Vec<i64> = versions.iter().map(|v| v.2).collect();
    games
        .iter()
        .map(|rec| {
            let g = croupier_arena::ladder::to_new_game(rec, &ids, &teams);
            (g.record, g.logs)
        })
        .collect()
}

fn kill9_mid_match_loses_nothing(database: Option<&str>) {
    let dir = ArenaDir::init_on("durak", "teams", database, |cfg| {
        if let Some(l) = cfg.get_mut("ladder").and_then(|l| l.as_table_mut()) {
            l.insert("deals".into(), toml::Value::Integer(DEALS));
        }
    });
    let cfg = ArenaConfig::load(dir.path()).expect("arena.toml");
    let teams = [
        ("alpha", "durak/ismcts"),
        ("beta", "durak/trump-tosser"),
        ("gamma", "durak/cheapest"),
    ];
    let tokens: Vec<String> = teams
        .iter()
        .map(|(name, _)| dir.add_team(name, database))
        .collect();
    let rt = runtime();
    let db = rt
        .block_on(Db::open(dir.path(), database))
        .expect("open the arena's database");

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

    // The restart: the dead worker's lease expires (ladder::LEASE), and the match is
    // leased again and finished; other matches go on meanwhile.
    let server = Server::start(dir.path(), database);
    let limit = croupier_arena::ladder::LEASE + Duration::from_secs(240);
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

    let now = rt.block_on(snapshot(&db));
    // Every game stored before the kill is there, byte for byte (the restart played only
    // the missing ones, and did not overwrite).
    for (key, old) in &before {
        assert_eq!(
            now.get(key),
            Some(old),
            "match {} game {} changed after the restart",
            key.0,
            key.1
        );
    }
    // Every done match holds exactly its schedule's games, 0..n, each with one row per seat;
    // a match not done holds fewer.
    let seats = rt.block_on(db.seats_between(0, i64::MAX)).expect("seats");
    let mut per_game: BTreeMap<(i64, i64), usize> = BTreeMap::new();
    for s in &seats {
        *per_game.entry((s.match_id, s.game_index)).or_default() += 1;
    }
    let players = 4;
    for ((m, g), k) in &per_game {
        assert_eq!(*k, players, "match {m} game {g}: {k} seat rows");
    }
    assert_eq!(
        per_game.keys().collect::<Vec<_>>(),
        now.keys().collect::<Vec<_>>(),
        "seat rows for exactly the stored games"
    );
    assert_eq!(
        rt.block_on(db.game_count()).expect("count") as usize,
        now.len()
    );
    for m in rt.block_on(all_matches(&db)) {
        let have: Vec<i64> = now
            .keys()
            .filter(|(id, _)| *id == m.id)
            .map(|(_, g)| *g)
            .collect();
        let n = games_of(&cfg, &m);
        if m.state == "done" {
            assert_eq!(have, (0..n).collect::<Vec<_>>(), "match {}", m.id);
        } else {
            assert!((have.len() as i64) < n, "match {} is {}", m.id, m.state);
        }
    }

    // The interrupted match, part played by the killed server and finished by the next,
    // equals the same match played in one go.
    let versions: Vec<(i64, String, i64)> = row
        .entrant_ids()
        .expect("entrants")
        .iter()
        .map(|id| {
            let v = rt
                .block_on(db.version(*id))
                .expect("version")
                .expect("stored");
            (v.id, v.sha256, v.team_id)
        })
        .collect();
    let fresh = croupier_tournament::with_game!(cfg.kind(), G => replay::<G>(dir.path(), &cfg, &row, &versions));
    assert_eq!(fresh.len() as i64, n);
    for (i, (record, logs)) in fresh.iter().enumerate() {
        let (stored, stored_logs, _) = &now[&(row.id, i as i64)];
        let (a, b): (serde_json::Value, serde_json::Value) = (
            serde_json::from_str(stored).expect("stored record"),
            serde_json::from_str(record).expect("fresh record"),
        );
        // The actions and results first, so a different game says so in one line.
        assert!(
            a["actions"] == b["actions"] && a["results"] == b["results"],
            "match {} game {i}: the stored game is not the one its seed gives: results {} and {}",
            row.id,
            a["results"],
            b["results"]
        );
        assert_eq!(
            stored, record,
            "match {} game {i}: the records differ",
            row.id
        );
        assert_eq!(
            stored_logs, logs,
            "match {} game {i}: the logs differ",
            row.id
        );
    }
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
        assert!(matches!(db, Db::Sqlite(_)));
        late_lease_stores_nothing(&db).await;
        db.close().await;
    });
}
