//! The arena on a real PostgreSQL server, which each test starts for itself on 127.0.0.1
//! (`common::postgres`): the same end-to-end flow as on SQLite, the organiser's token stored
//! by `arena init --database`, and the lease rules at the database level.
//!
//! The tests need PostgreSQL installed (`scripts/setup.sh` installs it). Without it they
//! FAIL, naming the install command; `CROUPIER_REQUIRE_POSTGRES=0` lets them skip, saying
//! so on stderr.

use crate::common;
use crate::common::arena as arena_common;
use crate::common::postgres;

use arena_common::{
    ArenaDir, arena_final, get, late_lease_stores_nothing, post, runtime, states_round_trip,
    storage_refuses_what_the_handlers_refuse, uploads_then_ladder,
};
use croupier_arena::store::db::Db;
use postgres::Postgres;

#[test]
fn uploads_ladder_and_admin_on_postgres() {
    let Some(pg) = Postgres::start_or_skip("the PostgreSQL arena test") else {
        return;
    };
    let db = Some(pg.url.as_str());
    let dir = ArenaDir::init_on("durak", "teams", db, |_| {});
    let server = uploads_then_ladder(&dir, db);
    assert!(
        !dir.path().join("arena.db").exists(),
        "with --database nothing goes to SQLite in the arena's directory"
    );

    // The organiser's token that `init --database` printed is the one the server checks.
    let add = |token: Option<&str>, name: &str| {
        post(
            &format!("{}/api/admin/teams", server.url),
            token,
            "application/json",
            serde_json::json!({ "name": name }).to_string().as_bytes(),
        )
    };
    let made = add(Some(&dir.admin), "gamma");
    assert_eq!(made.status, 201, "{}\n{}", made.body, server.stderr());
    let t = made.json();
    assert_eq!(t["name"], "gamma");
    assert!(
        t["token"].as_str().unwrap_or("").starts_with("team-"),
        "{t}"
    );
    assert_eq!(add(None, "delta").status, 401);
    let wrong = format!("{}x", dir.admin);
    assert_eq!(add(Some(&wrong), "delta").status, 401);
    // The new team is in PostgreSQL, where the CLI finds it too.
    let out = common::croupier()
        .args(["arena", "team", "list"])
        .arg(dir.path())
        .args(["--database", &pg.url])
        .output()
        .expect("team list");
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && list.contains("gamma"), "{list}");

    // Withdrawn in PostgreSQL with the CLI (its queued matches dropped there), the running
    // server leaves beta out of its ranking; reinstated, it is back.
    let team = |args: &[&str]| {
        let out = common::croupier()
            .args(["arena", "team"])
            .arg(args[0])
            .arg(dir.path())
            .args(&args[1..])
            .args(["--database", &pg.url])
            .output()
            .expect("croupier arena team");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let board = || get(&format!("{}/api/leaderboard", server.url), None).json();
    team(&["withdraw", "beta", "--reason", "left"]);
    let j = board();
    assert_eq!(j["withdrawn"][0]["team"], "beta", "{j}");
    assert!(
        j["rows"]
            .as_array()
            .is_some_and(|r| r.iter().all(|x| x["team"] != "beta"))
    );
    team(&["reinstate", "beta"]);
    assert_eq!(board()["withdrawn"], serde_json::json!([]));

    // `arena final --database` plays the final from PostgreSQL and stores its table there,
    // where the running server serves it.
    arena_final(
        &dir,
        &["--database", &pg.url, "--deals", "2", "--threads", "1"],
    );
    let table = get(&format!("{}/api/final", server.url), None);
    assert_eq!(table.status, 200, "{}", table.body);
    let rows = table.json()["rows"].as_array().map_or(0, Vec::len);
    assert_eq!(
        rows, 2,
        "the two teams with a valid version: {}",
        table.body
    );
    assert!(
        !server.stderr().contains("internal error"),
        "{}",
        server.stderr()
    );
}

#[test]
fn a_late_lease_stores_nothing_on_postgres() {
    let Some(pg) = Postgres::start_or_skip("the PostgreSQL lease test") else {
        return;
    };
    let rt = runtime();
    rt.block_on(async {
        let tmp = tempfile::tempdir().expect("temp dir");
        let db = Db::open(tmp.path(), Some(&pg.url)).await.expect("open");
        assert!(matches!(db, Db::Postgres(_)));
        late_lease_stores_nothing(&db).await;
        db.close().await;
    });
}

/// The state enums read and write PostgreSQL's TEXT columns, and an unknown word is an
/// error naming its column (`arena_crash.rs` runs the same on SQLite).
#[test]
fn states_round_trip_on_postgres() {
    let Some(pg) = Postgres::start_or_skip("the PostgreSQL states test") else {
        return;
    };
    let rt = runtime();
    rt.block_on(async {
        let tmp = tempfile::tempdir().expect("temp dir");
        let db = Db::open(tmp.path(), Some(&pg.url)).await.expect("open");
        assert!(matches!(db, Db::Postgres(_)));
        states_round_trip(&db).await;
        db.close().await;
    });
}

/// Issue #64's refusals at the database level, on PostgreSQL (`arena_crash.rs`: SQLite).
#[test]
fn storage_refuses_what_the_handlers_refuse_on_postgres() {
    let Some(pg) = Postgres::start_or_skip("the PostgreSQL refusals test") else {
        return;
    };
    let rt = runtime();
    rt.block_on(async {
        let tmp = tempfile::tempdir().expect("temp dir");
        let db = Db::open(tmp.path(), Some(&pg.url)).await.expect("open");
        assert!(matches!(db, Db::Postgres(_)));
        storage_refuses_what_the_handlers_refuse(&db).await;
        db.close().await;
    });
}
