//! People play their bots in a real browser (issue #42, part 3): headless Chromium through
//! chromedriver clicks whole games of Durak (the arena's `/play`, a signed-in team against
//! its own version and a house agent), Toepen and UNO (`croupier play --web`), each time
//! the first button offered, until the game ends and opens in the replay viewer.
//!
//! At every one of the person's turns the test notes the cards the page shows: the hand,
//! and every card face on the table. Once the game is over it replays the game's log through
//! the rules and checks each note against the person's own observation at that move: the
//! hand shown is the seat's hand, every other face shown is a public card (the rules' own
//! public fields, listed per game below, not the page's code), and the seats show counts,
//! never faces. Over HTTP it checks that an action not offered is refused naming it, that a
//! request without the page's CSRF token (or from another origin) is refused, that the
//! per-team cap holds, and that another team cannot see the game.
//!
//! Like `browser.rs`, it FAILS without Debian's `chromium` and `chromium-driver`, unless
//! `CROUPIER_REQUIRE_BROWSER=0` skips it on purpose.

use crate::common;
use crate::common::arena as arena_common;
use crate::common::chromium;

use arena_common::{ArenaDir, FORM, Server, browser, submit};
use chromium::{CHROMEDRIVER, CHROMIUM, SHORT, find, have_browser, js, sign_in, text, wait_js};
use common::{croupier, example_agent};
use croupier_rules::durak::Durak;
use croupier_rules::toepen::Toepen;
use croupier_rules::uno::Uno;
use croupier_rules::{Game, Rules};
use croupier_tournament::matches::log::LogHeader;
use croupier_tournament::runner::GameRecord;
use fantoccini::Client;
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// One whole walk (Chromium's start, a game, the checks) must end within this.
const WALK: Duration = Duration::from_secs(480);
/// The agents' turns between two of the person's, or the page's next state.
const TURN: Duration = Duration::from_secs(60);

/// What the page showed at one of the person's turns.
#[derive(Debug)]
struct Seen {
    moves: usize,
    hand: Vec<String>,
    table: Vec<String>,
    /// Card faces inside the seats' list (must be none: other hands are counts).
    seat_faces: u64,
}

/// The cards one seat may see, by the rules' own fields: its hand, and the public cards.
trait Shown: Game {
    fn hand(o: &Self::Observation) -> Vec<String>;
    fn public(o: &Self::Observation) -> Vec<String>;
}

fn texts<T: ToString>(cards: impl IntoIterator<Item = T>) -> Vec<String> {
    cards.into_iter().map(|c| c.to_string()).collect()
}

impl Shown for Durak {
    fn hand(o: &Self::Observation) -> Vec<String> {
        texts(o.hand.iter())
    }
    /// The trump card, the bout's cards, trumps shown for a transfer, the discard pile.
    fn public(o: &Self::Observation) -> Vec<String> {
        let mut p = vec![o.trump.to_string()];
        for (a, d) in &o.table {
            p.push(a.to_string());
            p.extend(d.map(|d| d.to_string()));
        }
        p.extend(texts(o.shown.iter()));
        p.extend(texts(o.discard.iter()));
        p
    }
}

impl Shown for Toepen {
    fn hand(o: &Self::Observation) -> Vec<String> {
        texts(o.hand.iter())
    }
    /// Every card played this round (the current trick's too), and laundry revealed.
    fn public(o: &Self::Observation) -> Vec<String> {
        let mut p: Vec<String> = o.trick.iter().map(|(_, c)| c.to_string()).collect();
        for played in &o.played {
            p.extend(texts(played.iter()));
        }
        for shown in &o.revealed_by {
            p.extend(texts(shown.iter()));
        }
        p
    }
}

impl Shown for Uno {
    fn hand(o: &Self::Observation) -> Vec<String> {
        texts(o.hand.iter())
    }
    /// The discard pile's top card.
    fn public(o: &Self::Observation) -> Vec<String> {
        vec![o.top.to_string()]
    }
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Replays the logged game and checks every note against seat `seat`'s observation at its
/// move: the hand is the seat's, and each other face is a public card (as a multiset, so a
/// second copy of an UNO card is not covered by the first).
fn check_seen<G: Shown>(log: &str, seat: u8, seen: &[Seen]) {
    let mut lines = log.lines();
    let header: LogHeader =
        serde_json::from_str(lines.next().expect("a header line")).expect("the header");
    let rec: GameRecord =
        serde_json::from_str(lines.next().expect("a game line")).expect("the game");
    let opts = G::Options::from_pairs(&header.options).expect("the options");
    let mut game = G::new(&opts, rec.seed).expect("the deal");
    let mut checked = 0;
    for i in 0..=rec.actions.len() {
        for s in seen.iter().filter(|s| s.moves == i) {
            checked += 1;
            let obs = game.observe(seat);
            assert_eq!(
                sorted(s.hand.clone()),
                sorted(G::hand(&obs)),
                "move {i}: the page's hand is not seat {seat}'s"
            );
            let mut public = G::public(&obs);
            for card in &s.table {
                let at = public.iter().position(|p| p == card).unwrap_or_else(|| {
                    panic!(
                        "move {i}: the page showed {card}, which seat {seat} may not see (its hand {:?}, public {:?})",
                        G::hand(&obs),
                        G::public(&obs)
                    )
                });
                public.swap_remove(at);
            }
            assert_eq!(s.seat_faces, 0, "move {i}: a seat showed card faces");
        }
        if let Some(&code) = rec.actions.get(i) {
            let a = G::decode_action(code).expect("a logged action decodes");
            game.apply(a).expect("a logged action replays");
        }
    }
    assert_eq!(checked, seen.len(), "every note was at a move of the game");
    eprintln!(
        "{}: the person decided {} times in {} moves; {}",
        header.game,
        seen.len(),
        rec.actions.len(),
        rec.summary
    );
    assert!(!seen.is_empty(), "the person never decided");
}

/// What the page shows now, when it is the person's turn: `None` while it is not.
async fn note(c: &Client) -> Option<Seen> {
    let v = js(
        c,
        "const p = document.getElementById('play');
         if (!p || p.getAttribute('data-state') !== 'turn'
             || !document.querySelector('#play-actions button.action')) { return null; }
         const titles = (sel) => Array.from(document.querySelectorAll(sel)).map(e => e.title);
         return { moves: Number(p.getAttribute('data-moves')),
                  hand: titles('#play-hand .card'), table: titles('#play-table .card'),
                  seatFaces: document.querySelectorAll('#play-table .seats .card').length };",
    )
    .await;
    if v.is_null() {
        return None;
    }
    let list = |k: &str| -> Vec<String> {
        v[k].as_array()
            .map(|a| {
                a.iter()
                    .map(|x| x.as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    Some(Seen {
        moves: v["moves"].as_u64().expect("moves") as usize,
        hand: list("hand"),
        table: list("table"),
        seat_faces: v["seatFaces"].as_u64().unwrap_or(0),
    })
}

/// From the game's page: clicks the first action offered at every turn until the game is
/// over and the replay opens. The notes, and the game's id.
async fn play_by_clicking(c: &Client) -> (String, Vec<Seen>) {
    let url = c.current_url().await.expect("the game's URL");
    let id = url
        .path()
        .strip_prefix("/play/")
        .expect("a game page")
        .to_string();
    let mut seen: Vec<Seen> = Vec::new();
    loop {
        let start = Instant::now();
        let now = loop {
            let path = c.current_url().await.expect("URL").path().to_string();
            if path.ends_with("/replay") {
                break None;
            }
            match note(c).await {
                Some(s) if seen.last().is_none_or(|l| l.moves != s.moves) => break Some(s),
                _ => {}
            }
            assert!(
                start.elapsed() < TURN,
                "neither the person's turn nor the end within {TURN:?} (after move {:?}); the page says {:?}",
                seen.last().map(|s| s.moves),
                js(c, "const s = document.getElementById('play-status'); return s ? s.textContent : document.body.textContent;").await
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let Some(s) = now else { break };
        seen.push(s);
        find(c, "#play-actions button.action")
            .await
            .click()
            .await
            .expect("click the first action");
    }
    // The finished game in the viewer, from the person's seat.
    find(c, "#replay-next").await;
    let meta = text(c, ".replay-meta").await;
    assert!(meta.contains("seen by P"), "{meta}");
    (id, seen)
}

/// The game's log, fetched by the page's own browser (its cookies).
async fn log_of(c: &Client, id: &str) -> String {
    js(
        c,
        &format!(
            "const x = new XMLHttpRequest(); x.open('GET', '/play/{id}/log', false); x.send();
             return x.status === 200 ? x.responseText : 'status ' + x.status;"
        ),
    )
    .await
    .as_str()
    .expect("the log's text")
    .to_string()
}

/// On `/play`: takes `seat`, lets `choose` (a script) pick the other seats' agents, deals,
/// plays the whole game by clicking and checks what it showed. The game's id.
async fn deal_and_play<G: Shown>(c: &Client, seat: u8, choose: &str) -> String {
    js(
        c,
        &format!(
            "document.querySelector('select[name=seat]').value = '{seat}'; {choose} return true;"
        ),
    )
    .await;
    find(c, "#play-start").await.click().await.expect("deal");
    find(c, "#play-actions").await;
    let (id, seen) = play_by_clicking(c).await;
    let log = log_of(c, &id).await;
    check_seen::<G>(&log, seat, &seen);
    id
}

fn browser_or_skip() -> bool {
    let missing = (!have_browser()).then(|| {
        format!(
            "{CHROMIUM} or {CHROMEDRIVER} cannot be run (`apt-get install chromium chromium-driver`, or scripts/setup.sh)"
        )
    });
    common::require::or_skip(
        "CROUPIER_REQUIRE_BROWSER",
        missing,
        "the play-in-the-browser test",
    )
}

#[test]
fn a_team_plays_durak_against_its_own_version_by_clicking() {
    if !browser_or_skip() {
        return;
    }
    let dir = ArenaDir::init("durak", "teams", |_| {});
    let alpha = dir.add_team("alpha", None);
    let beta = dir.add_team("beta", None);
    let server = Server::start(dir.path(), None);
    let up = submit(&server.url, &alpha, &example_agent("durak/cheapest"));
    assert_eq!(up.status, 201, "{}", up.body);
    let base = server.url.clone();
    let token = alpha.clone();
    chromium::run_walk(
        &dir.path().join("chromedriver.log"),
        WALK,
        move |c| async move {
            // Sign in with the team's token, then deal: P1 and P3 the team's own v1, P2 the
            // house agent.
            sign_in(&c, &base, &token).await;
            wait_js(
                &c,
                SHORT,
                "signed in",
                "return location.pathname.startsWith('/teams/');",
            )
            .await;
            // The header's link to /play, on every page of a signed-in team.
            find(&c, "header a[href='/play']")
                .await
                .click()
                .await
                .expect("open /play");
            find(&c, "#play-form").await;
            let offered = js(
                &c,
                "return Array.from(document.querySelectorAll('select[name=p1] option')).map(o => o.value);",
            )
            .await;
            assert_eq!(
                offered,
                serde_json::json!(["house:durak/cheapest", "v1"]),
                "the house agent and the team's valid version"
            );
            let id = deal_and_play::<Durak>(
                &c,
                0,
                "document.querySelector('select[name=p1]').value = 'v1';
                 document.querySelector('select[name=p2]').value = 'house:durak/cheapest';
                 document.querySelector('select[name=p3]').value = 'v1';",
            )
            .await;
            // The team's own agents' seats open with their logs; the house agent's does not.
            let seats = js(
                &c,
                "return Array.from(document.querySelectorAll('a.seat-view')).map(a => a.textContent);",
            )
            .await;
            assert_eq!(
                seats,
                serde_json::json!(["P0 (you)", "P1 (its log)", "P3 (its log)"]),
                "the seats this team may see"
            );
            let house = js(
                &c,
                &format!(
                    "const x = new XMLHttpRequest(); x.open('GET', '/play/{id}/replay?seat=2', false); x.send(); return x.status;"
                ),
            )
            .await;
            assert_eq!(
                house,
                serde_json::json!(403),
                "the house agent's seat is private"
            );
            c.goto(&format!("{base}/play/{id}/replay?seat=1"))
                .await
                .expect("seat 1");
            find(&c, "#replay-log").await;
            assert!(text(&c, ".replay-meta").await.contains("seen by P1"));
        },
        || server.stderr(),
    );

    // Over HTTP, as the team's browser: a game to poke at.
    let url = &server.url;
    let session = arena_common::sign_in(url, &alpha);
    let (page, _) = browser("GET", &format!("{url}/play"), &[("Cookie", &session)], None);
    let csrf = arena_common::csrf_after(&page.body, "id=\"play-form\"");
    let deal = |with: &[(&str, &str)]| {
        let mut h = vec![("Cookie", session.as_str())];
        h.extend_from_slice(with);
        browser(
            "POST",
            &format!("{url}/play"),
            &h,
            Some((
                FORM,
                format!("csrf={csrf}&seat=0&p1=v1&p2=v1&p3=v1").as_bytes(),
            )),
        )
        .0
    };
    let same = [("Origin", url.as_str()), ("Sec-Fetch-Site", "same-origin")];
    let first = deal(&same);
    let api = format!("{url}/api/play/{}", dealt_game(&first));
    let state = |who: &str| browser("GET", &api, &[("Cookie", who)], None).0;
    arena_common::wait_until(TURN, "the person's turn", || {
        state(&session).json()["state"] == "turn"
    });
    let now = state(&session).json();
    let moves = now["moves"].as_u64().expect("moves");
    let act = |body: String, headers: &[(&str, &str)]| {
        let mut h = vec![("Cookie", session.as_str())];
        h.extend_from_slice(headers);
        browser(
            "POST",
            &format!("{api}/act"),
            &h,
            Some(("application/json", body.as_bytes())),
        )
        .0
    };
    let with_token = [
        ("Origin", url.as_str()),
        ("Sec-Fetch-Site", "same-origin"),
        ("X-Csrf-Token", csrf.as_str()),
    ];
    // An action that is not offered, in the game's own words and not: 422, naming it.
    let legal: Vec<String> = now["legal"]
        .as_array()
        .expect("legal actions")
        .iter()
        .map(|a| a.as_str().unwrap_or("").to_string())
        .collect();
    for bogus in ["take all the cards", "attack AS AH AD AC"] {
        assert!(!legal.iter().any(|l| l == bogus));
        let r = act(
            serde_json::json!({"action": bogus, "moves": moves}).to_string(),
            &with_token,
        );
        assert_eq!(r.status, 422, "{bogus}: {}", r.body);
        assert!(
            r.json()["error"].as_str().unwrap_or("").contains(bogus),
            "the refusal names the action: {}",
            r.body
        );
    }
    // The offered one, without the page's token or from another origin: 403, not played.
    let offered = serde_json::json!({"action": legal[0], "moves": moves}).to_string();
    let r = act(
        offered.clone(),
        &[("Origin", url.as_str()), ("Sec-Fetch-Site", "same-origin")],
    );
    assert_eq!(r.status, 403, "without the CSRF token: {}", r.body);
    let r = act(
        offered.clone(),
        &[
            ("Sec-Fetch-Site", "cross-site"),
            ("X-Csrf-Token", csrf.as_str()),
        ],
    );
    assert_eq!(r.status, 403, "from another site: {}", r.body);
    assert_eq!(state(&session).json()["moves"].as_u64(), Some(moves));
    let r = act(offered, &with_token);
    assert_eq!(r.status, 200, "the offered action: {}", r.body);
    // Another team does not see it.
    let theirs = browser(
        "GET",
        &api,
        &[("Authorization", &format!("Bearer {beta}"))],
        None,
    )
    .0;
    assert_eq!(theirs.status, 404, "{}", theirs.body);
    // The cap: two games going per team (play.per_team), the third is refused until one ends.
    let second = deal(&same);
    assert_eq!(second.status, 303, "{}", second.body);
    let third = deal(&same);
    assert_eq!(third.status, 429, "{}", third.body);
    let left = browser(
        "POST",
        &format!("{api}/leave"),
        &[
            ("Cookie", session.as_str()),
            ("Origin", url.as_str()),
            ("X-Csrf-Token", csrf.as_str()),
        ],
        None,
    )
    .0;
    assert_eq!(left.status, 204, "{}", left.body);
    assert_eq!(state(&session).json()["state"], "over");
    let again = deal(&same);
    assert_eq!(again.status, 303, "after leaving one: {}", again.body);
    // A game is never rated: the board has no games from any of this.
    let board = arena_common::board(url);
    assert_eq!(board["games"].as_u64(), Some(0), "{board}");
}

/// The game a start form's answer opens (a 303 to its page).
fn dealt_game(r: &arena_common::Resp) -> String {
    assert_eq!(r.status, 303, "{}", r.body);
    r.location
        .as_deref()
        .and_then(|l| l.strip_prefix("/play/"))
        .expect("the game's page")
        .to_string()
}

/// `croupier play --web`, killed when the test's handle drops.
struct Local {
    child: Child,
    url: String,
}

impl Local {
    fn start(args: &[&str]) -> Local {
        let mut child = croupier()
            .args(["play", "--web"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn croupier play --web");
        let out = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(out).lines();
        let url = match lines.next() {
            Some(Ok(l)) => l
                .split_whitespace()
                .find(|w| w.starts_with("http://"))
                .map(|u| u.trim_end_matches("/play").to_string())
                .unwrap_or_else(|| panic!("no address in `{l}`")),
            other => panic!("croupier play --web said nothing: {other:?}"),
        };
        std::thread::spawn(move || for _ in lines {});
        Local { child, url }
    }
}

impl Drop for Local {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Plays one whole game on a local server by clicking, checks what was shown, and quits it.
fn local_game<G: Shown>(args: &[&str], opponent: &str) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut local = Local::start(args);
    let base = local.url.clone();
    let opponent = opponent.to_string();
    chromium::run_walk(
        &tmp.path().join("chromedriver.log"),
        WALK,
        move |c| async move {
            c.goto(&format!("{base}/play")).await.expect("open /play");
            let n = js(
                &c,
                "return document.querySelectorAll('ol.play-seats select').length;",
            )
            .await
            .as_u64()
            .expect("seats");
            deal_and_play::<G>(
                &c,
                1,
                &format!(
                    "document.querySelectorAll('ol.play-seats select').forEach(s => s.value = '{opponent}');"
                ),
            )
            .await;
            // Every seat of a local game is the person's to look at.
            let seats = js(
                &c,
                "return document.querySelectorAll('a.seat-view').length;",
            )
            .await;
            assert_eq!(seats.as_u64(), Some(n));
            // Quitting from the page stops the server.
            c.goto(&format!("{base}/play")).await.expect("open /play");
            find(&c, "#quit-button").await.click().await.expect("quit");
            find(&c, "#stopped").await;
        },
        String::new,
    );
    let start = Instant::now();
    loop {
        if let Some(status) = local.child.try_wait().expect("wait") {
            assert!(status.success(), "croupier play --web ended with {status}");
            break;
        }
        assert!(
            start.elapsed() < SHORT,
            "croupier play --web did not stop after quit"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn toepen_is_played_by_clicking_from_croupier_play_web() {
    if !browser_or_skip() {
        return;
    }
    local_game::<Toepen>(&["toepen", "--vs", "toepen/reasoning"], "toepen/reasoning");
}

#[test]
fn uno_is_played_by_clicking_from_croupier_play_web() {
    if !browser_or_skip() {
        return;
    }
    local_game::<Uno>(
        &["uno", "--rules", "house", "--vs", "uno/greedy"],
        "uno/greedy",
    );
}

/// The local server answers only under its own address, and changes nothing without its
/// page's token.
#[test]
fn croupier_play_web_refuses_other_hosts_and_requests_without_its_token() {
    let local = Local::start(&["uno", "--vs", "uno/greedy"]);
    let url = &local.url;
    let ok = arena_common::get(&format!("{url}/play"), None);
    assert_eq!(ok.status, 200, "{}", ok.body);
    let rebound = arena_common::raw(
        url,
        "GET /play HTTP/1.1\r\nHost: evil.example:80\r\nConnection: close\r\n\r\n",
        b"",
    );
    assert!(rebound.starts_with("HTTP/1.1 403"), "{rebound}");
    let csrf = arena_common::csrf_after(&ok.body, "id=\"play-form\"");
    let start = |body: String, headers: &[(&str, &str)]| {
        browser(
            "POST",
            &format!("{url}/play"),
            headers,
            Some((FORM, body.as_bytes())),
        )
        .0
    };
    let form = "seat=0&p1=uno%2Fgreedy&p2=uno%2Fgreedy&p3=uno%2Fgreedy";
    let r = start(form.to_string(), &[("Origin", url)]);
    assert_eq!(r.status, 403, "without the token: {}", r.body);
    let r = start(
        format!("csrf={csrf}&{form}"),
        &[("Origin", "http://evil.example")],
    );
    assert_eq!(r.status, 403, "from another origin: {}", r.body);
    let r = start(format!("csrf={csrf}&{form}"), &[("Origin", url)]);
    assert_eq!(r.status, 303, "from its own page: {}", r.body);
}

/// An open arena (`play.open`, as `arena demo` sets it) lets a visitor play without signing
/// in: its games are bound to its browser's cookie, and its requests need its page's origin
/// and token, since no session checks them. A closed arena asks a visitor to sign in.
#[test]
fn a_visitor_plays_in_an_open_arena_only_with_its_own_cookie_and_token() {
    let closed = ArenaDir::init("durak", "classic", |_| {});
    let server = Server::start(closed.path(), None);
    let url = &server.url;
    let page = arena_common::get(&format!("{url}/play"), None);
    assert_eq!(page.status, 200);
    assert!(page.body.contains("id=\"play-signin\""), "{}", page.body);
    let api = arena_common::get(&format!("{url}/api/play/0123"), None);
    assert_eq!(api.status, 401, "{}", api.body);
    drop(server);

    let open = ArenaDir::init("durak", "classic", |cfg| {
        let mut play = toml::Table::new();
        play.insert("open".into(), toml::Value::Boolean(true));
        for (k, v) in [
            ("games", 16),
            ("per_team", 2),
            ("turn_seconds", 600),
            ("left_seconds", 180),
            ("keep_minutes", 60),
        ] {
            play.insert(k.into(), toml::Value::Integer(v));
        }
        cfg.insert("play".into(), toml::Value::Table(play));
    });
    let server = Server::start(open.path(), None);
    let url = &server.url;
    let (page, cookies) = browser("GET", &format!("{url}/play"), &[], None);
    assert_eq!(page.status, 200, "{}", page.body);
    let me = arena_common::cookie_pair(&cookies, "croupier_visitor");
    let csrf = arena_common::csrf_after(&page.body, "id=\"play-form\"");
    let form = format!("csrf={csrf}&seat=0&p1=house%3Adurak%2Fcheapest");
    let deal = |headers: &[(&str, &str)], body: &str| {
        browser(
            "POST",
            &format!("{url}/play"),
            headers,
            Some((FORM, body.as_bytes())),
        )
        .0
    };
    let no_token = deal(
        &[("Cookie", &me), ("Origin", url)],
        "seat=0&p1=house%3Adurak%2Fcheapest",
    );
    assert_eq!(no_token.status, 403, "{}", no_token.body);
    let elsewhere = deal(&[("Cookie", &me), ("Origin", "http://evil.example")], &form);
    assert_eq!(elsewhere.status, 403, "{}", elsewhere.body);
    let dealt = deal(&[("Cookie", &me), ("Origin", url)], &form);
    let api = format!("{url}/api/play/{}", dealt_game(&dealt));
    let mine = browser("GET", &api, &[("Cookie", &me)], None).0;
    assert_eq!(mine.status, 200, "{}", mine.body);
    let (_, other) = browser("GET", &format!("{url}/play"), &[], None);
    let other = arena_common::cookie_pair(&other, "croupier_visitor");
    assert_ne!(other, me);
    let theirs = browser("GET", &api, &[("Cookie", &other)], None).0;
    assert_eq!(theirs.status, 404, "another visitor: {}", theirs.body);
    let leave = |headers: &[(&str, &str)]| {
        browser("POST", &format!("{api}/leave"), headers, None)
            .0
            .status
    };
    assert_eq!(leave(&[("Cookie", &me), ("Origin", url)]), 403, "no token");
    assert_eq!(
        leave(&[("Cookie", &me), ("Origin", url), ("X-Csrf-Token", &csrf)]),
        204
    );
}
