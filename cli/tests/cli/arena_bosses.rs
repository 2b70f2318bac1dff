//! Bosses in the arena, with real games through real components: the ladder plays every
//! team's latest valid version against each boss in duplicate deals, never rated; the
//! board, the team page and the API carry each boss's win rate, its 95% interval over deals
//! and a badge exactly when the lower bound is above one half; the final's table carries
//! the same, and `croupier tournament --bosses` says the same offline. On SQLite and on a
//! real PostgreSQL server.

use crate::common;
use crate::common::arena as arena_common;
use crate::common::postgres;

use arena_common::{ArenaDir, Server, arena_final, board, get, observer, runtime, wait_until};
use croupier_arena::ratings::{Board, Rules};
use croupier_arena::store::db::states::MatchKind;
use std::collections::BTreeSet;
use std::time::Duration;

/// Deals each version owes each boss: `bosses.first`, with `share = 0` so the boss matches
/// stop there and the statements are final.
const DEALS: u64 = 8;

/// A Durak (teams) arena whose bosses are the organiser's own file `bosses/weak.wasm` (the
/// hand-value agent, which loses nearly every game) and `durak/trump-tosser`; teams alpha
/// (trump-tosser) and beta (random-lead).
fn arena_with_bosses(database: Option<&str>) -> (ArenaDir, Server) {
    let dir = ArenaDir::init_on("durak", "teams", database, |cfg| {
        let mut b = toml::Table::new();
        b.insert(
            "agents".into(),
            toml::Value::Array(vec!["bosses/weak.wasm".into(), "durak/trump-tosser".into()]),
        );
        b.insert("deals".into(), 4.into());
        b.insert("first".into(), (DEALS as i64).into());
        b.insert("share".into(), 0.0.into());
        cfg.insert("bosses".into(), toml::Value::Table(b));
    });
    let weak = dir.path().join("bosses/weak.wasm");
    std::fs::create_dir_all(weak.parent().expect("parent")).expect("mkdir bosses");
    std::fs::copy(common::example_agent("durak/hand-value"), &weak).expect("copy the boss");
    let server = dir.serve_teams(
        &[
            ("alpha", "durak/trump-tosser"),
            ("beta", "durak/random-lead"),
        ],
        database,
    );
    (dir, server)
}

/// The statement of team `team` against boss `boss` on the board.
fn statement<'a>(board: &'a serde_json::Value, team: &str, boss: &str) -> &'a serde_json::Value {
    let row = board["rows"]
        .as_array()
        .and_then(|r| r.iter().find(|r| r["team"] == team))
        .unwrap_or_else(|| panic!("no row for {team}: {board}"));
    row["bosses"]
        .as_array()
        .and_then(|b| b.iter().find(|s| s["boss"] == boss))
        .unwrap_or_else(|| panic!("{team} has no statement against {boss}: {row}"))
}

/// Waits until every team has played its `DEALS` deals against every boss.
fn wait_for_bosses(server: &Server) -> serde_json::Value {
    let mut last = serde_json::Value::Null;
    wait_until(
        // Measured: 3 to 8 s on two busy cores.
        Duration::from_secs(90),
        "every team's deals against every boss",
        || {
            last = board(&server.url);
            let rows = last["rows"].as_array().cloned().unwrap_or_default();
            rows.len() == 2
                && rows.iter().all(|r| {
                    r["bosses"].as_array().is_some_and(|b| {
                        b.len() == 2 && b.iter().all(|s| s["deals"].as_u64() >= Some(DEALS))
                    })
                })
        },
    );
    last
}

/// The statements say what their numbers say, the pages show them, and boss games change no
/// rating: the stored games counted with and without the boss matches give the same
/// ratings, and the bosses' tallies are exactly the boss matches' games.
fn bosses_play_unrated_with_badges(database: Option<&str>) -> (ArenaDir, Server) {
    let (dir, server) = arena_with_bosses(database);
    let b = wait_for_bosses(&server);
    for row in b["rows"].as_array().expect("rows") {
        for s in row["bosses"].as_array().expect("bosses") {
            let low = s["win_rate_ci95"][0].as_f64().expect("low");
            let games = s["games"].as_u64().expect("games");
            // Two rotations of each deal: the deal is the unit.
            assert_eq!(s["deals"].as_u64(), Some(games / 2), "{s}");
            assert_eq!(
                s["badge"].is_string(),
                low > 0.5,
                "a badge exactly when the lower bound is above 50%: {s}"
            );
        }
    }
    let weak = statement(&b, "alpha", "bosses/weak.wasm");
    assert_eq!(weak["badge"], "beats weak (95%)", "{weak}");
    let strong = statement(&b, "beta", "durak/trump-tosser");
    assert!(strong["badge"].is_null(), "{strong}");
    assert!(strong["win_rate"].as_f64() < Some(0.5), "{strong}");
    // The board and the team pages show the same.
    let page = get(&format!("{}/", server.url), None).body;
    assert!(page.contains("vs weak (95% CI)"), "{page}");
    assert!(page.contains("beats weak (95%)"), "{page}");
    assert!(!page.contains("beats trump-tosser"), "{page}");
    let alpha = b["rows"]
        .as_array()
        .and_then(|r| r.iter().find(|r| r["team"] == "alpha"))
        .expect("alpha")["team_id"]
        .clone();
    let team = get(&format!("{}/teams/{alpha}", server.url), None).body;
    assert!(team.contains("Against the bosses"), "{team}");
    assert!(team.contains("beats weak (95%)"), "{team}");
    let api = get(&format!("{}/api/teams/{alpha}", server.url), None).json();
    assert_eq!(api["bosses"][0]["bosses"][0]["badge"], "beats weak (95%)");

    // Boss matches are never rated.
    let rt = runtime();
    rt.block_on(async {
        let db = observer(dir.path(), database).await;
        let upto = db.done_below().await.expect("done below");
        let rows = db.seats_between(0, upto).await.expect("seats");
        let boss_matches: BTreeSet<i64> = rows
            .iter()
            .filter(|r| r.kind == Some(MatchKind::Boss))
            .map(|r| r.match_id)
            .collect();
        assert!(!boss_matches.is_empty(), "boss games were stored");
        let rules = Rules {
            tau: 0.1,
            suspend_after: 5,
        };
        let team_of = |v: i64| v;
        let mut all = Board::default();
        all.apply(&rows, upto, rules, &team_of);
        let rated: Vec<_> = rows
            .iter()
            .filter(|r| !boss_matches.contains(&r.match_id))
            .cloned()
            .collect();
        let mut without = Board::default();
        without.apply(&rated, upto, rules, &team_of);
        assert_eq!(
            all.versions, without.versions,
            "the boss matches changed a rating"
        );
        assert_eq!(all.games, without.games);
        assert!(all.versions.keys().all(|&v| v > 0), "a boss was rated");
        // Every boss game is in the bosses' tallies, each once.
        let stored = rows
            .iter()
            .filter(|r| boss_matches.contains(&r.match_id) && r.seat == 0)
            .count() as u64;
        assert_eq!(all.boss_games, stored);
        let tallied: u64 = all.bosses.values().map(|t| t.games()).sum();
        assert_eq!(tallied, stored);
    });
    (dir, server)
}

#[test]
fn bosses_play_unrated_and_the_badge_needs_the_interval_above_half() {
    let (dir, mut server) = bosses_play_unrated_with_badges(None);
    server.terminate();
    // The final's table carries the same columns, and `croupier tournament --bosses` on
    // the final's files and seed says the same.
    let f = arena_final(&dir, &["--deals", "4", "--seed", "9"]);
    assert_eq!(
        f["bosses"],
        serde_json::json!(["bosses/weak.wasm", "durak/trump-tosser"])
    );
    let csv = std::fs::read_to_string(dir.path().join("final/final.csv")).expect("csv");
    assert!(
        csv.lines()
            .next()
            .is_some_and(|h| h.contains("\"vs_weak_badge\"")),
        "{csv}"
    );
    let html = std::fs::read_to_string(dir.path().join("final/final.html")).expect("html");
    assert!(html.contains("vs weak (95% CI)"), "{html}");
    let json = dir.path().join("offline.json");
    let weak = dir.path().join("bosses/weak.wasm");
    let team_files: Vec<String> = (1..=2)
        .map(|i| {
            dir.path()
                .join(format!("final/team{i}.wasm"))
                .display()
                .to_string()
        })
        .collect();
    let out = common::croupier()
        .args([
            "tournament",
            "durak",
            "--rules",
            "teams",
            "--games",
            "4",
            "--seed",
            "9",
        ])
        .args(&team_files)
        .arg("--bosses")
        .arg(format!("{},durak/trump-tosser", weak.display()))
        .arg("--json")
        .arg(&json)
        .output()
        .expect("croupier tournament --bosses");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("beats weak (95%)"), "{said}");
    let offline: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("parses");
    for (i, team) in ["alpha", "beta"].iter().enumerate() {
        let row = f["rows"]
            .as_array()
            .and_then(|r| r.iter().find(|r| r["team"] == *team))
            .expect("a final row");
        let here = &offline["bosses"]["agents"][i]["bosses"];
        for j in 0..2 {
            let (a, b) = (&row["bosses"][j], &here[j]);
            for key in [
                "deals",
                "games",
                "wins",
                "draws",
                "losses",
                "win_rate",
                "win_rate_ci95",
            ] {
                assert_eq!(a[key], b[key], "{team} boss {j} {key}: {a} / {b}");
            }
            // The badge names the boss by its short name in both.
            assert_eq!(a["badge"], b["badge"], "{team} boss {j}");
        }
    }
}

#[test]
fn bosses_on_postgres() {
    let Some(pg) = postgres::Postgres::start_or_skip("the bosses on PostgreSQL") else {
        return;
    };
    let (_dir, _server) = bosses_play_unrated_with_badges(Some(pg.url.as_str()));
}

/// `croupier arena serve` on `dir`, which must refuse to start: what it said.
fn refused(dir: &ArenaDir) -> String {
    let out = common::croupier()
        .args(["arena", "serve"])
        .arg(dir.path())
        .output()
        .expect("arena serve");
    assert!(!out.status.success(), "served {}", dir.path().display());
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// A boss the arena cannot use stops the server at start, naming the file and the field.
#[test]
fn a_boss_the_arena_cannot_use_is_refused_naming_the_field() {
    let cases: Vec<(toml::Value, &str)> = vec![
        (
            toml::Value::Array(vec!["durak/nobody".into()]),
            "durak/nobody",
        ),
        (
            toml::Value::Array(vec!["toepen/random".into()]),
            "toepen agent",
        ),
        (
            toml::Value::Array(vec!["../weak.wasm".into()]),
            "inside the arena's directory",
        ),
        (
            toml::Value::Array(vec!["durak/ismcts#iters=9".into()]),
            "without arguments",
        ),
        (
            toml::Value::Array(vec!["bosses/other-game.wasm".into()]),
            "a toepen agent",
        ),
    ];
    for (agents, says) in cases {
        let dir = ArenaDir::init("durak", "teams", |cfg| {
            let mut b = toml::Table::new();
            b.insert("agents".into(), agents.clone());
            cfg.insert("bosses".into(), toml::Value::Table(b));
        });
        let other = dir.path().join("bosses/other-game.wasm");
        std::fs::create_dir_all(other.parent().expect("parent")).expect("mkdir");
        std::fs::copy(common::example_agent("toepen/random"), &other).expect("copy");
        let err = refused(&dir);
        assert!(
            err.contains("bosses.agents") && err.contains(says),
            "{agents}: {err}"
        );
    }
    for (key, value) in [("deals", toml::Value::from(0)), ("share", 1.5.into())] {
        let dir = ArenaDir::init("durak", "teams", |cfg| {
            let mut b = toml::Table::new();
            b.insert(key.into(), value.clone());
            cfg.insert("bosses".into(), toml::Value::Table(b));
        });
        let err = refused(&dir);
        assert!(err.contains(&format!("bosses.{key}")), "{key}: {err}");
        assert!(err.contains("arena.toml"), "{err}");
    }
}
