//! The arena in a real browser: headless Chromium driven through chromedriver (WebDriver) by
//! fantoccini, against a real `croupier arena serve` on 127.0.0.1. A team signs in with its
//! token, uploads an agent through the form, watches the leaderboard refresh itself until
//! its agent has played, opens one of its games in the replay viewer, steps through it and
//! opens its own seat's private view; the organiser opens the admin page. Every page is
//! checked to have its stylesheets applied (a CSP that blocked them would show here first)
//! and the browser's console to have no CSP violation.
//!
//! Screenshots of each page go to `docs/screenshots/arena-*.png` when
//! `CROUPIER_SCREENSHOTS=1` is set (that is how the README's pictures are made), and to a
//! temporary directory otherwise, so that a test run leaves the tree clean.
//!
//! The test needs Debian's `chromium` and `chromium-driver` (`scripts/setup.sh` installs them).
//! Without them it FAILS, naming the packages: a test that did not run must not count as
//! passed. To skip it on purpose, on a machine where they cannot be installed, set
//! `CROUPIER_REQUIRE_BROWSER=0`; the test then says on stderr that it did not run.

use crate::common;
use crate::common::arena as arena_common;
use crate::common::chromium;

use arena_common::{ArenaDir, Server, get, submit};
use chromium::{
    BrowserLog, CHROMEDRIVER, CHROMIUM, SHORT, find, have_browser, js, sign_in, text, wait_js,
};
use common::{example_agent, repo};
use fantoccini::{Client, Locator};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// The whole browser walk must end within this, whatever hangs (the browser, the driver or
/// the server): a stuck test is reported as a failure, not left running.
const WHOLE_WALK: Duration = Duration::from_secs(360);
/// An upload's verdict: the loader in a child process and a smoke match.
const VERDICT: Duration = Duration::from_secs(120);
/// The ladder playing enough games for the leaderboard and the team page to have content.
const LADDER: Duration = Duration::from_secs(180);

/// Where the screenshots go, and the temporary directory to keep alive when it is one.
fn screenshot_dir() -> (PathBuf, Option<tempfile::TempDir>) {
    if std::env::var_os("CROUPIER_SCREENSHOTS").is_some_and(|v| v == "1") {
        let dir = repo().join("docs/screenshots");
        std::fs::create_dir_all(&dir).expect("create docs/screenshots");
        (dir, None)
    } else {
        let tmp = tempfile::tempdir().expect("temp dir");
        (tmp.path().to_path_buf(), Some(tmp))
    }
}

/// What the walk needs to know, owned so it can run as its own task.
#[derive(Clone)]
struct Walk {
    base: String,
    team_b: String,
    admin: String,
    agent: PathBuf,
    shots: PathBuf,
    /// Console lines gathered along the way.
    console: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

#[test]
fn a_team_uploads_watches_and_replays_in_a_real_browser() {
    let missing = (!have_browser()).then(|| {
        format!(
            "{CHROMIUM} or {CHROMEDRIVER} cannot be run (`apt-get install chromium chromium-driver`, or scripts/setup.sh)"
        )
    });
    if !common::require::or_skip("CROUPIER_REQUIRE_BROWSER", missing, "the browser test") {
        return;
    }

    let dir = ArenaDir::init("durak", "teams", |_| {});
    let a = dir.add_team("alpha", None);
    let b = dir.add_team("beta", None);
    let server = Server::start(dir.path(), None);
    // Team A uploads through the API, so that team B's agent has an opponent at once.
    let up = submit(&server.url, &a, &example_agent("durak/random-lead"));
    assert_eq!(up.status, 201, "{}", up.body);

    let (shots, _keep) = screenshot_dir();
    let walk = Walk {
        base: server.url.clone(),
        team_b: b,
        admin: dir.admin.clone(),
        agent: example_agent("durak/trump-tosser")
            .canonicalize()
            .expect("absolute agent path"),
        shots: shots.clone(),
        console: Default::default(),
    };
    chromium::run_walk(
        &dir.path().join("chromedriver.log"),
        WHOLE_WALK,
        |c| walk.run(c),
        || server.stderr(),
    );
    for name in [
        "arena-upload",
        "arena-leaderboard",
        "arena-team",
        "arena-replay",
        "arena-replay-seat",
        "arena-admin",
    ] {
        let png = std::fs::read(shots.join(format!("{name}.png"))).expect("screenshot written");
        assert!(png.starts_with(b"\x89PNG"), "{name}.png is a PNG");
    }
    eprintln!("screenshots in {}", shots.display());
}

impl Walk {
    async fn run(self, c: Client) {
        let base = self.base.clone();

        // Sign in as team B with its token.
        sign_in(&c, &base, &self.team_b).await;
        wait_js(
            &c,
            SHORT,
            "team B's page after signing in",
            "const h = document.querySelector('main h1');
             return location.pathname.startsWith('/teams/') && !!h && h.textContent === 'Team beta';",
        )
        .await;
        self.styled(&c, "the team page").await;
        // The sign-in form went through the CSRF checks as a browser sends it (Origin,
        // Sec-Fetch-Site, the form's token), and every page says who is signed in.
        let who = text(&c, "#signed-in").await;
        assert_eq!(who, "signed in as team beta", "the header");

        // Upload through the form: the file input takes the file's path.
        c.goto(&format!("{base}/submit"))
            .await
            .expect("open /submit");
        let uploading = text(&c, "#uploading-as").await;
        assert_eq!(uploading, "Uploading as team beta.", "the upload page");
        let file = find(&c, "#agent-file").await;
        file.send_keys(&self.agent.to_string_lossy())
            .await
            .expect("choose the agent file");
        find(&c, "#upload-button")
            .await
            .click()
            .await
            .expect("upload");
        let verdict = c
            .wait()
            .at_most(VERDICT)
            .for_element(Locator::Css("#verdict"))
            .await
            .expect("the verdict page");
        let h1 = text(&c, "main h1").await;
        assert!(h1.contains("accepted"), "the verdict page says `{h1}`");
        assert_eq!(
            verdict.attr("class").await.expect("class").as_deref(),
            Some("ok"),
            "{h1}"
        );
        let message = verdict.text().await.expect("verdict text");
        assert!(message.contains("smoke match"), "{message}");
        self.styled(&c, "the verdict page").await;
        self.shot(&c, "arena-upload").await;

        // The leaderboard refreshes itself from the live events (app.js, `GET /api/events`):
        // wait, without reloading, until team B's row shows rated games, the total has grown
        // and the list of matches being played has shown one. A marker on `window` proves the
        // page was not reloaded in between.
        c.goto(&format!("{base}/")).await.expect("open /");
        find(&c, "#leaderboard").await;
        self.styled(&c, "the leaderboard").await;
        let first = js(
            &c,
            "window.croupierTestMarker = true; return Number(document.getElementById('games').textContent);",
        )
        .await
        .as_f64()
        .expect("the games count");
        wait_js(
            &c,
            LADDER,
            "team B's row with 20 games, by live refresh",
            &format!(
                "const rows = Array.from(document.querySelectorAll('#leaderboard tbody tr'))
                    .map(tr => Array.from(tr.cells).map(td => td.textContent));
                 const beta = rows.find(r => r[1] === 'beta');
                 return !!beta && Number(beta[5]) >= 20 && rows.length === 2
                    && Number(document.getElementById('games').textContent) > {first};"
            ),
        )
        .await;
        wait_js(
            &c,
            LADDER,
            "a match being played, in the live list",
            "return Array.from(document.querySelectorAll('#live li'))
                .some(li => /^match \\d+ \\((ladder|placement)\\): (alpha|beta) v1 v (alpha|beta) v1, game \\d+ of \\d+$/.test(li.textContent));",
        )
        .await;
        assert_eq!(
            js(&c, "return window.croupierTestMarker === true;").await,
            Value::Bool(true),
            "the leaderboard was reloaded instead of refreshed in place"
        );
        self.shot(&c, "arena-leaderboard").await;

        // Team B's page, through the refreshed row's link; then one of its games.
        let link = c
            .find(Locator::XPath(
                "//table[@id='leaderboard']//a[text()='beta']",
            ))
            .await
            .expect("team B's link on the leaderboard");
        link.click().await.expect("open team B's page");
        let game = c
            .wait()
            .at_most(SHORT)
            .for_element(Locator::Css("table#games tbody a"))
            .await
            .expect("a game on team B's page");
        assert_eq!(text(&c, "main h1").await, "Team beta");
        self.styled(&c, "the team page").await;
        self.shot(&c, "arena-team").await;
        game.click().await.expect("open the game");

        // The viewer, as a spectator: no hand; stepping forward changes the cards shown.
        find(&c, "#replay-next").await;
        self.viewer_styled(&c).await;
        let hand = text(&c, "#replay-hand").await;
        assert!(hand.contains("A spectator sees no hand"), "{hand}");
        // The seed is shown exactly (a 64-bit seed is past a double's 2^53), as the API has it.
        let path = c
            .current_url()
            .await
            .expect("the game's URL")
            .path()
            .to_string();
        let api = format!("{base}/api{path}");
        let seed = tokio::task::spawn_blocking(move || get(&api, None).json()["seed"].to_string())
            .await
            .expect("the game from the API");
        let meta = text(&c, ".replay-meta").await;
        assert!(
            meta.contains(&format!("seed {seed} ")),
            "{meta} (the API says {seed})"
        );
        let state = "return [document.getElementById('replay-step').textContent,
            Array.from(document.querySelectorAll('#replay-table .card')).map(c => c.title).join(' '),
            document.getElementById('replay-action').textContent];";
        let before = js(&c, state).await;
        assert_eq!(before[0], "step 0 / ".to_string() + last_step(&before[0]));
        let mut after = before.clone();
        let mut clicks = 0;
        while after[1] == before[1] {
            assert!(
                clicks < 12,
                "12 steps forward and the table still shows the same cards: {before} → {after}"
            );
            find(&c, "#replay-next")
                .await
                .click()
                .await
                .expect("next step");
            clicks += 1;
            after = js(&c, state).await;
            assert_eq!(
                after[0],
                format!("step {clicks} / {}", last_step(&before[0])),
                "each click on ▶ moves one step"
            );
            assert!(
                after[2].as_str().is_some_and(|a| a.starts_with('P')),
                "the action line names the seat that acted: {after}"
            );
        }
        let shown = js(
            &c,
            "return document.querySelectorAll('#replay-table .card').length;",
        )
        .await;
        assert!(
            shown.as_u64() > Some(0),
            "the table shows cards after {clicks} steps"
        );
        self.shot(&c, "arena-replay").await;

        // The seat view: team B may open its own seats (and only those are linked).
        let seats = c
            .find_all(Locator::Css("main a[href*='?seat=']"))
            .await
            .expect("seat links");
        assert_eq!(seats.len(), 2, "team B has two of the four seats in 2 v 2");
        seats[0].click().await.expect("open the seat view");
        wait_js(
            &c,
            SHORT,
            "the seat view with cards in the hand",
            "return location.search.startsWith('?seat=')
                && document.querySelectorAll('#replay-hand .card').length > 0;",
        )
        .await;
        self.viewer_styled(&c).await;
        let meta = text(&c, ".replay-meta").await;
        assert!(meta.contains("seen by P"), "{meta}");
        for _ in 0..3 {
            find(&c, "#replay-next")
                .await
                .click()
                .await
                .expect("next step");
        }
        let cards = js(
            &c,
            "document.getElementById('replay-hand').scrollIntoView({ block: 'end' });
             return document.querySelectorAll('#replay-hand .card').length;",
        )
        .await;
        assert!(cards.as_u64() > Some(0), "the seat's hand shows cards");
        self.shot(&c, "arena-replay-seat").await;

        // The organiser's page, signed in with the admin token (it replaces team B's cookie).
        sign_in(&c, &base, &self.admin).await;
        wait_js(
            &c,
            SHORT,
            "the admin page",
            "return location.pathname === '/admin';",
        )
        .await;
        let body = text(&c, "main").await;
        assert!(body.contains("alpha") && body.contains("beta"), "{body}");
        self.styled(&c, "the admin page").await;
        self.shot(&c, "arena-admin").await;

        // A worker added on the page, its token shown once, then removed: the remove button
        // does nothing until its box is ticked (the browser checks `required`).
        find(&c, "form[action='/admin/workers'] input[name=name]")
            .await
            .send_keys("lab-box")
            .await
            .expect("type a worker's name");
        find(&c, "form[action='/admin/workers'] button")
            .await
            .click()
            .await
            .expect("add the worker");
        wait_js(
            &c,
            SHORT,
            "the new worker's token",
            "const n = document.getElementById('new-token');
             return !!n && n.textContent.includes('lab-box');",
        )
        .await;
        let token = text(&c, "#new-token code").await;
        assert!(token.starts_with("worker-"), "{token}");
        let config = format!("{base}/api/worker/config");
        assert_eq!(get(&config, Some(&token)).status, 200);
        let remove = "#workers form[action$='/remove']";
        find(&c, &format!("{remove} button"))
            .await
            .click()
            .await
            .expect("click remove, unticked");
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(get(&config, Some(&token)).status, 200, "removed unticked");
        find(&c, &format!("{remove} input[name=confirm]"))
            .await
            .click()
            .await
            .expect("tick");
        find(&c, &format!("{remove} button"))
            .await
            .click()
            .await
            .expect("remove");
        wait_js(
            &c,
            SHORT,
            "the worker removed",
            "const n = document.getElementById('removed');
             return !!n && n.textContent.includes('lab-box');",
        )
        .await;
        assert_eq!(get(&config, Some(&token)).status, 401);
        self.styled(&c, "the admin page after a removal").await;

        // Issue #44 in Chromium: pages on another port of this host (the same site, so
        // `SameSite=Strict` lets the cookie through) post forms to the arena as soon as they
        // load. One adds a team with the organiser's cookie; one signs the browser in to team
        // B (sign-in CSRF). Chromium sends them with its own Origin and Sec-Fetch-Site, and
        // the arena refuses both: no team is added and the organiser stays signed in.
        for (what, action, field) in [
            ("adding a team", "/admin/teams", "name=forged".to_string()),
            (
                "signing in to team B",
                "/login",
                format!("token={}", self.team_b),
            ),
        ] {
            let (name, value) = field.split_once('=').expect("name=value");
            let evil = other_origin_page(&format!(
                "<form id=f method=post action='{base}{action}'><input name={name} value='{value}'></form>
                 <script>document.getElementById('f').submit()</script>"
            ));
            c.goto(&evil).await.expect("open the other origin's page");
            wait_js(
                &c,
                SHORT,
                what,
                &format!("return location.href === '{base}{action}' && document.readyState === 'complete';"),
            )
            .await;
            let refused = text(&c, "main h1").await;
            assert!(refused.starts_with("403"), "{what}: {refused}");
        }
        let teams = get(&format!("{base}/api/admin/teams"), Some(&self.admin)).body;
        assert!(
            !teams.contains("forged"),
            "a team was added from another origin: {teams}"
        );
        c.goto(&format!("{base}/admin")).await.expect("open /admin");

        // Signing out (a form with the session's CSRF token) drops the cookie: the admin
        // page is then refused, and the header offers to sign in.
        assert_eq!(text(&c, "#signed-in").await, "signed in as the organiser");
        find(&c, "header form[action='/logout'] button")
            .await
            .click()
            .await
            .expect("sign out");
        wait_js(
            &c,
            SHORT,
            "signed out",
            "return location.pathname === '/' && !document.getElementById('signed-in')
                && !!document.querySelector('header a[href=\"/login\"]');",
        )
        .await;
        c.goto(&format!("{base}/admin")).await.expect("open /admin");
        let refused = text(&c, "main h1").await;
        assert!(refused.starts_with("401"), "{refused}");

        // No page broke the CSP (a blocked stylesheet or script is a console error).
        self.read_console(&c).await;
        let console = self.console.lock().map(|v| v.clone()).unwrap_or_default();
        let csp: Vec<&String> = console
            .iter()
            .filter(|l| l.contains("Content Security Policy"))
            .collect();
        assert!(csp.is_empty(), "CSP violations in the console: {csp:#?}");
        // ...and that check can fail: an inline style, which the CSP forbids, is refused
        // and reported in the console this test reads.
        let applied = js(
            &c,
            "const s = document.createElement('style');
             s.textContent = 'body { background: rgb(1, 2, 3) !important; }';
             document.head.appendChild(s);
             return getComputedStyle(document.body).backgroundColor === 'rgb(1, 2, 3)';",
        )
        .await;
        assert_eq!(
            applied,
            Value::Bool(false),
            "the CSP let an inline style in"
        );
        self.read_console(&c).await;
        let console = self.console.lock().map(|v| v.clone()).unwrap_or_default();
        assert!(
            console
                .iter()
                .any(|l| l.contains("Content Security Policy") && l.contains("inline style")),
            "a refused inline style did not show in the console: {console:#?}"
        );
    }

    /// The arena's stylesheet is applied (the header's dark background), so the CSP let
    /// /static/style.css in.
    async fn styled(&self, c: &Client, page: &str) {
        let bg = js(
            c,
            "return getComputedStyle(document.querySelector('body > header')).backgroundColor;",
        )
        .await;
        assert_eq!(bg, "rgb(17, 24, 39)", "style.css is not applied on {page}");
        self.read_console(c).await;
    }

    /// The viewer rendered and its stylesheet is applied (the felt table).
    async fn viewer_styled(&self, c: &Client) {
        self.styled(c, "the game page").await;
        let felt = js(
            c,
            "return getComputedStyle(document.getElementById('replay-table')).backgroundImage;",
        )
        .await;
        assert!(
            felt.as_str().is_some_and(|s| s.contains("radial-gradient")),
            "viewer.css is not applied: {felt}"
        );
    }

    /// Keeps the console's new lines; a driver without the log endpoint only loses this check.
    async fn read_console(&self, c: &Client) {
        match c.issue_cmd(BrowserLog).await {
            Ok(Value::Array(entries)) => {
                if let Ok(mut v) = self.console.lock() {
                    v.extend(entries.iter().map(|e| {
                        format!(
                            "{} {}",
                            e["level"].as_str().unwrap_or("?"),
                            e["message"].as_str().unwrap_or("?")
                        )
                    }));
                }
            }
            other => eprintln!("note: the browser's console could not be read: {other:?}"),
        }
    }

    async fn shot(&self, c: &Client, name: &str) {
        let png = c.screenshot().await.expect("screenshot");
        std::fs::write(self.shots.join(format!("{name}.png")), png).expect("write screenshot");
    }
}

/// The `N` of `step 0 / N`.
/// A page on another origin (`http://127.0.0.1:PORT/`, a port of its own), served to every
/// request by a thread that ends with the test: its URL.
fn other_origin_page(html: &str) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/", listener.local_addr().expect("address"));
    let body = html.to_string();
    std::thread::spawn(move || {
        for mut s in listener.incoming().map_while(Result::ok) {
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

fn last_step(counter: &Value) -> &str {
    counter
        .as_str()
        .and_then(|s| s.rsplit(" / ").next())
        .unwrap_or("?")
}
