//! The arena end to end: a real `croupier arena serve` on 127.0.0.1 with a real SQLite file,
//! real uploads through the HTTP API and the form, and real games in the sandbox. Each
//! security promise of the arena's module docs has its own test here.

mod common;

use common::arena::{ArenaDir, Resp, Server, get, post, submit, wait_until};
use common::example_agent;
use std::time::Duration;

fn board(url: &str) -> serde_json::Value {
    get(&format!("{url}/api/leaderboard"), None).json()
}

fn games_rated(url: &str) -> u64 {
    board(url)["games"].as_u64().unwrap_or(0)
}

#[test]
fn uploads_are_checked_then_the_ladder_rates_them() {
    let dir = ArenaDir::init("durak", "teams", |_| {});
    let a = dir.add_team("alpha", None);
    let b = dir.add_team("beta", None);
    let server = Server::start(dir.path(), None);
    let url = &server.url;

    let ok = submit(url, &a, &example_agent("durak/trump-tosser"));
    assert_eq!(ok.status, 201, "{}", ok.body);
    let v = ok.json();
    assert_eq!(v["version"], 1);
    assert_eq!(v["verdict"]["valid"], true);
    assert!(
        v["verdict"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("smoke match against durak/cheapest"),
        "{v}"
    );

    // Not a component: refused with the loader's own message, naming the version.
    let junk = post(
        &format!("{url}/api/submit"),
        Some(&b),
        "application/wasm",
        &[7u8; 4096],
    );
    assert_eq!(junk.status, 422, "{}", junk.body);
    let msg = junk.json()["verdict"]["message"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        msg.starts_with("version 1: not a WebAssembly file"),
        "{msg}"
    );
    assert!(
        !msg.contains(dir.path().to_str().unwrap_or("?")),
        "a server path leaked: {msg}"
    );

    // A Toepen agent in a Durak arena: the world is checked.
    let wrong = submit(url, &b, &example_agent("toepen/greedy"));
    assert_eq!(wrong.status, 422, "{}", wrong.body);
    assert!(
        wrong.json()["verdict"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("toepen"),
        "{}",
        wrong.body
    );

    let ok = submit(url, &b, &example_agent("durak/random-lead"));
    assert_eq!(ok.status, 201, "{}", ok.body);
    assert_eq!(ok.json()["version"], 3, "every upload is a new version");

    wait_until(Duration::from_secs(60), "rated ladder games", || {
        games_rated(url) >= 40
    });
    let b = board(url);
    let rows = b["rows"].as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), 2, "{b}");
    // trump-tosser beats random-lead about 3 to 1 in 2 v 2 (the README's 748 / 236).
    assert_eq!(rows[0]["team"], "alpha", "{b}");
    assert!(rows[0]["mu"].as_f64() > rows[1]["mu"].as_f64(), "{b}");
    assert!(rows[0]["win_rate"].as_f64().unwrap_or(0.0) > 0.6, "{b}");
    let ci = &rows[0]["win_rate_ci95"];
    assert!(
        ci[0].as_f64() < rows[0]["win_rate"].as_f64()
            && ci[1].as_f64() > rows[0]["win_rate"].as_f64(),
        "{b}"
    );
    assert_eq!(rows[1]["version"], 3, "the latest valid version plays: {b}");

    // The team page lists versions, verdicts and games; each game opens in the viewer.
    let team: Resp = get(&format!("{url}/api/teams/1"), None);
    let t = team.json();
    assert_eq!(t["versions"].as_array().map(Vec::len), Some(1));
    let g = &t["games"][0];
    let (m, i) = (
        g["match_id"].as_i64().unwrap_or(0),
        g["game"].as_i64().unwrap_or(0),
    );
    assert_eq!(g["opponents"][0], "beta", "{t}");
    let doc = get(&format!("{url}/api/games/{m}/{i}"), None).json();
    assert!(doc["steps"].as_array().map_or(0, Vec::len) > 10, "{doc}");
    assert!(
        doc["steps"][0]["table"]["hand"].is_null(),
        "a spectator sees no hand"
    );
    let page = get(&format!("{url}/games/{m}/{i}"), None);
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("id=\"replay-doc\"") && page.body.contains("/static/viewer.js"),
        "{}",
        page.body
    );
    // The downloaded log replays offline with the same rules engine.
    let log = get(&format!("{url}/api/games/{m}/{i}/log"), None);
    let file = dir.path().join("one.jsonl");
    std::fs::write(&file, &log.body).expect("write");
    let out = common::croupier()
        .arg("replay")
        .arg(&file)
        .output()
        .expect("replay");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("result:"));
}
