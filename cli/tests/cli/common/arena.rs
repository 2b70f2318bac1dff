//! A real arena for tests: `croupier arena init` in a temp dir, teams through the CLI, and
//! `croupier arena serve` on 127.0.0.1 with a port the OS picks; requests with ureq. The
//! server is killed when the test's handle drops, so no test leaves one running.

#![allow(dead_code)]

use crate::common::croupier;
use croupier_arena::config::ArenaConfig;
use croupier_arena::store::db::Db;
use croupier_arena::store::db::games::Stored;
use croupier_arena::store::db::insert::{NewGame, NewSeat};
use croupier_arena::store::db::matches::MatchRow;
use croupier_arena::store::db::states::{MatchKind, MatchState, SeatOutcome};
use croupier_host::adapters::Adapter;
use croupier_tournament::runner::{self, Entrant, FaultPolicy, GameRecord, Plan};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// An arena directory made by `croupier arena init`.
pub struct ArenaDir {
    /// Keeps the directory alive.
    pub tmp: tempfile::TempDir,
    /// The organiser's token, as `init` printed it.
    pub admin: String,
}

impl ArenaDir {
    /// `croupier arena init` for `game` and `rules`, then `edit` applied to arena.toml
    /// (e.g. a smaller upload cap).
    pub fn init(game: &str, rules: &str, edit: impl FnOnce(&mut toml::Table)) -> ArenaDir {
        ArenaDir::init_on(game, rules, None, edit)
    }

    /// [`ArenaDir::init`] with the database at `database` (a PostgreSQL URL) instead of
    /// SQLite in the directory: the organiser's token is stored there.
    pub fn init_on(
        game: &str,
        rules: &str,
        database: Option<&str>,
        edit: impl FnOnce(&mut toml::Table),
    ) -> ArenaDir {
        let tmp = tempfile::tempdir().expect("temp dir");
        let mut cmd = croupier();
        cmd.args(["arena", "init"]).arg(tmp.path()).args([
            "--game",
            game,
            "--rules",
            rules,
            "--listen",
            "127.0.0.1:0",
        ]);
        if let Some(db) = database {
            cmd.args(["--database", db]);
        }
        let out = cmd.output().expect("run croupier arena init");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "arena init: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let admin = text
            .lines()
            .find(|l| l.starts_with("admin-"))
            .expect("init prints the admin token")
            .trim()
            .to_string();
        let path = tmp.path().join("arena.toml");
        let mut cfg: toml::Table = std::fs::read_to_string(&path)
            .expect("read arena.toml")
            .parse()
            .expect("arena.toml parses");
        // The tests' ladders play at full speed unless a test sets a pace.
        if let Some(toml::Value::Table(s)) = cfg.get_mut("storage") {
            s.insert("plan_days".into(), 0.into());
        }
        edit(&mut cfg);
        std::fs::write(&path, toml::to_string(&cfg).expect("toml")).expect("write arena.toml");
        ArenaDir { tmp, admin }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// Adds each (name, example agent) as a team, starts the server and uploads each team's
    /// agent, checking it is accepted.
    pub fn serve_teams(&self, teams: &[(&str, &str)], database: Option<&str>) -> Server {
        let tokens: Vec<String> = teams
            .iter()
            .map(|(name, _)| self.add_team(name, database))
            .collect();
        let server = Server::start(self.path(), database);
        for ((_, agent), token) in teams.iter().zip(&tokens) {
            let r = submit(&server.url, token, &crate::common::example_agent(agent));
            assert_eq!(r.status, 201, "{agent}: {}", r.body);
        }
        server
    }

    /// `croupier arena team add`: the new team's token.
    pub fn add_team(&self, name: &str, database: Option<&str>) -> String {
        let mut cmd = croupier();
        cmd.args(["arena", "team", "add"])
            .arg(self.path())
            .arg(name);
        if let Some(db) = database {
            cmd.args(["--database", db]);
        }
        let out = cmd.output().expect("run croupier arena team add");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "team add: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text.lines()
            .find(|l| l.starts_with("team-"))
            .expect("team add prints the token")
            .trim()
            .to_string()
    }
}

/// A running `croupier arena serve`.
impl ArenaDir {
    /// Adds a worker with `croupier arena workers add`; returns its token.
    pub fn add_worker(&self, name: &str, database: Option<&str>) -> String {
        let mut cmd = croupier();
        cmd.args(["arena", "workers", "add"])
            .arg(self.path())
            .arg(name);
        if let Some(db) = database {
            cmd.args(["--database", db]);
        }
        let out = cmd.output().expect("run croupier arena workers add");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "workers add: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text.lines()
            .find(|l| l.starts_with("worker-"))
            .expect("workers add prints the token")
            .trim()
            .to_string()
    }
}

/// A `croupier arena worker` process, killed when dropped.
pub struct WorkerProc {
    pub child: Child,
    pub log: std::sync::Arc<std::sync::Mutex<String>>,
}

impl WorkerProc {
    /// Starts a worker for the server at `url` with `token`, one thread, its cache in `cache`.
    pub fn start(url: &str, token: &str, cache: &Path, name: &str) -> WorkerProc {
        let mut cmd = croupier();
        cmd.args([
            "arena",
            "worker",
            "--server",
            url,
            "--threads",
            "1",
            "--name",
            name,
        ])
        .arg("--cache")
        .arg(cache)
        .env("CROUPIER_WORKER_TOKEN", token);
        // Workers run on machines of their own in a deployment; here three of them, each
        // keeping a core busy, share two cores with the server, the database and the test,
        // so they run at a lower priority and the parts a deployment keeps apart stay
        // responsive.
        // SAFETY: `setpriority` is a single system call, safe between fork and exec.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
                libc::setpriority(libc::PRIO_PROCESS, 0, 10);
                Ok(())
            });
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn croupier arena worker");
        let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        for pipe in [
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn std::io::Read + Send>),
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn std::io::Read + Send>),
        ]
        .into_iter()
        .flatten()
        {
            let sink = log.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    if let Ok(mut s) = sink.lock() {
                        s.push_str(&line);
                        s.push('\n');
                    }
                }
            });
        }
        WorkerProc { child, log }
    }

    pub fn log(&self) -> String {
        self.log.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// `kill -9` by PID: no chance to report or give anything back.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for WorkerProc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Server {
    /// The process.
    pub child: Child,
    /// `http://127.0.0.1:PORT`
    pub url: String,
    /// Its standard error, collected by a thread.
    pub stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Server {
    /// Starts the server on `dir` (SQLite there, or `database`) and waits until it listens.
    pub fn start(dir: &Path, database: Option<&str>) -> Server {
        let mut cmd = croupier();
        cmd.args(["arena", "serve"]).arg(dir);
        if let Some(db) = database {
            cmd.args(["--database", db]);
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn croupier arena serve");
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        {
            let err = child.stderr.take().expect("stderr");
            let sink = stderr.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(err).lines().map_while(Result::ok) {
                    if let Ok(mut s) = sink.lock() {
                        s.push_str(&line);
                        s.push('\n');
                    }
                }
            });
        }
        let out = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(out).lines();
        let url = loop {
            match lines.next() {
                Some(Ok(l)) => {
                    if let Some(rest) = l.split("http://").nth(1) {
                        let addr = rest.split('/').next().unwrap_or("").to_string();
                        break format!("http://{addr}");
                    }
                }
                _ => {
                    let _ = child.kill();
                    let err = stderr.lock().map(|s| s.clone()).unwrap_or_default();
                    panic!("arena serve ended before listening: {err}");
                }
            }
        };
        // Keep draining stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Server { child, url, stderr }
    }

    /// The server's standard error so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Stops the server as systemd, Docker and Kubernetes do (SIGTERM), and waits until it
    /// has shut down cleanly.
    pub fn terminate(&mut self) {
        let pid = self.child.id() as libc::pid_t;
        // SAFETY: signals our own child, which has not been waited for yet.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0, "SIGTERM");
        let mut status = None;
        wait_until(Duration::from_secs(120), "the server to stop", || {
            status = self.child.try_wait().ok().flatten();
            status.is_some()
        });
        assert!(
            status.is_some_and(|s| s.success()),
            "{status:?}: {}",
            self.stderr()
        );
    }

    /// Waits until the server has said `text` on its standard error.
    pub fn wait_said(&self, text: &str) {
        wait_until(Duration::from_secs(30), text, || {
            self.stderr().contains(text)
        });
    }

    /// Kills the server at once (SIGKILL), as a crash would.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A response: status, headers we look at, body.
pub struct Resp {
    /// The status code.
    pub status: u16,
    /// The body as text.
    pub body: String,
    /// Retry-After, if sent.
    pub retry_after: Option<String>,
    /// Content-Security-Policy, if sent.
    pub csp: Option<String>,
    /// Location, if sent (a redirect not followed).
    pub location: Option<String>,
}

impl Resp {
    /// The body as JSON.
    /// Retry-After in seconds; panics without one.
    pub fn retry_after_secs(&self) -> u64 {
        self.retry_after
            .as_deref()
            .and_then(|s| s.parse().ok())
            .expect("Retry-After in seconds")
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .new_agent()
}

fn read(mut r: ureq::http::Response<ureq::Body>) -> Resp {
    let header = |n: &str| {
        r.headers()
            .get(n)
            .and_then(|v| v.to_str().ok())
            .map(String::from)
    };
    let (retry_after, csp, location) = (
        header("retry-after"),
        header("content-security-policy"),
        header("location"),
    );
    let status = r.status().as_u16();
    let body = r
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_string()
        .unwrap_or_default();
    Resp {
        status,
        body,
        retry_after,
        csp,
        location,
    }
}

/// A browser's request, as a page on some origin would make it: any headers (`Cookie`,
/// `Origin`, `Sec-Fetch-Site`), no redirects followed. The answer with its `Set-Cookie`s.
pub fn browser(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<(&str, &[u8])>,
) -> (Resp, Vec<String>) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into();
    let mut req = ureq::http::Request::builder().method(method).uri(url);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let r = match body {
        Some((ty, b)) => agent.run(
            req.header("Content-Type", ty)
                .body(b.to_vec())
                .expect("a request"),
        ),
        None => agent.run(req.body(()).expect("a request")),
    }
    .unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let cookies = r
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok().map(String::from))
        .collect();
    (read(r), cookies)
}

/// The value of the first `name="…"` attribute after `marker` in a page.
pub fn attr_after(page: &str, marker: &str, name: &str) -> Option<String> {
    let rest = &page[page.find(marker)?..];
    let rest = &rest[rest.find(&format!("{name}=\""))? + name.len() + 2..];
    Some(rest[..rest.find('"')?].to_string())
}

/// A raw request on its own connection: `head` (with its blank line), then `body`, then
/// nothing more; returns what the server answered until it closed or 20 s passed.
pub fn raw(url: &str, head: &str, body: &[u8]) -> String {
    use std::io::{Read, Write};
    let addr = url.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    s.write_all(head.replace("{addr}", addr).as_bytes())
        .expect("write head");
    s.write_all(body).expect("write body");
    let mut got = Vec::new();
    let mut buf = [0u8; 8192];
    while let Ok(n) = s.read(&mut buf) {
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
        // The answer is complete once its announced body is in (keep-alive does not close).
        let text = String::from_utf8_lossy(&got).to_string();
        if let Some((h, b)) = text.split_once("\r\n\r\n") {
            let len = h
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length: ")
                        .map(str::to_string)
                })
                .and_then(|v| v.trim().parse::<usize>().ok());
            if len.is_some_and(|n| b.len() >= n) {
                break;
            }
        }
    }
    String::from_utf8_lossy(&got).to_string()
}

/// Sends only a request's head, announcing `length` body bytes, and reads the answer: a
/// server that buffered the body first would wait for bytes that never come.
pub fn head_only(url: &str, path: &str, token: &str, content_type: &str, length: usize) -> String {
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {{addr}}\r\nAuthorization: Bearer {token}\r\nContent-Type: {content_type}\r\nContent-Length: {length}\r\n\r\n"
    );
    raw(url, &head, b"")
}

/// Runs `croupier arena final DIR ARGS…`, which must succeed; its `final/final.json`.
pub fn arena_final(dir: &ArenaDir, args: &[&str]) -> serde_json::Value {
    let out = croupier()
        .args(["arena", "final"])
        .arg(dir.path())
        .args(args)
        .output()
        .expect("arena final");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("final/final.json")).expect("final.json"),
    )
    .expect("json")
}

/// `croupier submit FILE --arena URL --token T`, run as a real process.
pub fn croupier_submit(file: &std::path::Path, url: &str, token: &str) -> std::process::Output {
    croupier()
        .arg("submit")
        .arg(file)
        .args(["--arena", url, "--token", token])
        // Only the flag speaks: a token in the environment running the tests is not used.
        .env_remove("CROUPIER_TOKEN")
        .output()
        .expect("run croupier submit")
}

/// Team `a` with `durak/cheapest` and team `b` with `durak/random-lead`, both valid on the
/// server at `url`: their tokens.
pub fn two_valid(dir: &ArenaDir, url: &str) -> (String, String) {
    let a = dir.add_team("a", None);
    let b = dir.add_team("b", None);
    for (t, agent) in [(&a, "durak/cheapest"), (&b, "durak/random-lead")] {
        let r = submit(url, t, &crate::common::example_agent(agent));
        assert_eq!(r.status, 201, "{agent}: {}", r.body);
    }
    (a, b)
}

/// A form's content type.
pub const FORM: &str = "application/x-www-form-urlencoded";

/// `name=value` of the `Set-Cookie` named `name`.
pub fn cookie_pair(set_cookies: &[String], name: &str) -> String {
    set_cookies
        .iter()
        .filter_map(|c| c.split(';').next())
        .find(|kv| kv.starts_with(&format!("{name}=")))
        .map(String::from)
        .unwrap_or_else(|| panic!("no {name} cookie in {set_cookies:?}"))
}

/// The CSRF field of the first form after `marker` on a page.
pub fn csrf_after(page: &str, marker: &str) -> String {
    attr_after(page, marker, "value")
        .filter(|_| page.contains("name=\"csrf\""))
        .unwrap_or_else(|| panic!("no csrf field after {marker}: {page}"))
}

/// The sign-in page as a browser gets it: its nonce cookie and its form's CSRF field.
pub fn sign_in_page(url: &str) -> (String, String) {
    let (page, cookies) = browser("GET", &format!("{url}/login"), &[], None);
    assert_eq!(page.status, 200, "{}", page.body);
    (
        cookie_pair(&cookies, "croupier_login"),
        csrf_after(&page.body, "name=\"csrf\""),
    )
}

/// Signs in as a browser on the arena's own page does; the session cookie.
pub fn sign_in(url: &str, token: &str) -> String {
    let (nonce, csrf) = sign_in_page(url);
    let (r, cookies) = browser(
        "POST",
        &format!("{url}/login"),
        &[
            ("Cookie", &nonce),
            ("Origin", url),
            ("Sec-Fetch-Site", "same-origin"),
        ],
        Some((FORM, format!("csrf={csrf}&token={token}").as_bytes())),
    );
    assert_eq!(r.status, 303, "{}", r.body);
    cookie_pair(&cookies, "croupier_token")
}

/// GET with an optional bearer token.
pub fn get(url: &str, token: Option<&str>) -> Resp {
    let mut req = agent().get(url);
    if let Some(t) = token {
        req = req.header("Authorization", &format!("Bearer {t}"));
    }
    read(req.call().unwrap_or_else(|e| panic!("GET {url}: {e}")))
}

/// POST a body with an optional bearer token.
pub fn post(url: &str, token: Option<&str>, content_type: &str, body: &[u8]) -> Resp {
    let mut req = agent().post(url).header("Content-Type", content_type);
    if let Some(t) = token {
        req = req.header("Authorization", &format!("Bearer {t}"));
    }
    read(req.send(body).unwrap_or_else(|e| panic!("POST {url}: {e}")))
}

/// DELETE with an optional bearer token.
pub fn delete(url: &str, token: Option<&str>) -> Resp {
    let mut req = agent().delete(url);
    if let Some(t) = token {
        req = req.header("Authorization", &format!("Bearer {t}"));
    }
    read(req.call().unwrap_or_else(|e| panic!("DELETE {url}: {e}")))
}

/// Uploads an agent file through the API.
pub fn submit(url: &str, token: &str, file: &Path) -> Resp {
    let bytes = std::fs::read(file).expect("read agent");
    post(
        &format!("{url}/api/submit"),
        Some(token),
        "application/wasm",
        &bytes,
    )
}

/// Polls `cond` every 100 ms until it holds; panics with `what` after `limit`.
/// `token` with its last character changed, so it is never the token itself. A fixed
/// replacement ("…0") equals the token whenever the token already ends that way, and a
/// test built on it fails one run in sixteen (CI run of cb55b7b).
pub fn forged(token: &str) -> String {
    let mut out = token.to_string();
    let last = out.pop().expect("a token is never empty");
    out.push(if last == '0' { '1' } else { '0' });
    assert_ne!(out, token);
    out
}

pub fn wait_until(limit: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < limit,
            "timed out after {limit:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The hostile agent built with a mode baked in (the arena sends no agent args).
pub fn hostile_with_mode(mode: &str) -> PathBuf {
    let _turn = crate::common::hostile_build_lock();
    let out = crate::common::test_agents_dir().join(format!("mode-{mode}"));
    let file = out.join("durak/hostile.wasm");
    let status = croupier()
        .arg("build")
        .arg(crate::common::repo().join("tests/hostile-agent"))
        .arg("--out")
        .arg(&out)
        .env("HOSTILE_MODE", mode)
        .status()
        .expect("run croupier build");
    assert!(
        status.success(),
        "building the hostile agent with HOSTILE_MODE={mode} failed"
    );
    file
}

pub fn board(url: &str) -> serde_json::Value {
    get(&format!("{url}/api/leaderboard"), None).json()
}

pub fn games_rated(url: &str) -> u64 {
    board(url)["games"].as_u64().unwrap_or(0)
}

/// The arena's main promise end to end, on SQLite in `dir` or on `database`: uploads are
/// checked (a valid agent, a file that is not a component, an agent of another game), the
/// ladder plays and rates the valid versions, and a team's page lists games that open in the
/// viewer and replay offline. `dir` is a Durak arena under the `teams` rules.
/// Returns the server, still running, for more checks.
pub fn uploads_then_ladder(dir: &ArenaDir, database: Option<&str>) -> Server {
    let a = dir.add_team("alpha", database);
    let b = dir.add_team("beta", database);
    let server = Server::start(dir.path(), database);
    let url = &server.url;

    let ok = submit(url, &a, &crate::common::example_agent("durak/trump-tosser"));
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
    let wrong = submit(url, &b, &crate::common::example_agent("toepen/greedy"));
    assert_eq!(wrong.status, 422, "{}", wrong.body);
    assert!(
        wrong.json()["verdict"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("toepen"),
        "{}",
        wrong.body
    );

    let ok = submit(url, &b, &crate::common::example_agent("durak/random-lead"));
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
    let out = croupier()
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
    server
}

/// A runtime for the tests that open the arena's database themselves.
/// The test's own view of an arena's database, for polling while the server, its workers
/// and the database share two cores. On PostgreSQL the pool waits up to two minutes for a
/// connection instead of the arena's 60 s (10 s then): once (one run in sixteen of `arena_workers`) no
/// new connection reached PostgreSQL for 11 s while the server's own went on, and the
/// observer's `PoolTimedOut` failed a test whose subject (every game stored once, the final
/// table) was fine. Two connections: the test polls one query at a time.
pub async fn observer(dir: &Path, database: Option<&str>) -> Db {
    match database {
        Some(url) => Db::Postgres(
            sqlx::postgres::PgPoolOptions::new()
                .max_connections(2)
                .acquire_timeout(Duration::from_secs(120))
                .connect(url)
                .await
                .expect("connect to the arena's PostgreSQL"),
        ),
        None => Db::open(dir, None)
            .await
            .expect("open the arena's database"),
    }
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// A two-seat game for [`late_lease_stores_nothing`]: only its record text differs.
fn test_game(index: i64, record: &str) -> NewGame {
    NewGame {
        index,
        record: record.to_string(),
        compact: None,
        logs: None,
        seats: (0..2)
            .map(|s| NewSeat {
                seat: s,
                version_id: 1 + s,
                team_id: 1 + s,
                result: if s == 0 {
                    SeatOutcome::Win
                } else {
                    SeatOutcome::Loss
                },
                place: s,
                fault: None,
            })
            .collect(),
    }
}

/// Seats stored for game `index` of match `m`.
async fn seats_of(db: &Db, m: i64, index: i64) -> usize {
    db.seats_of_game(m, index).await.expect("seats").len()
}

/// The ids of claimed matches, in the claim's order.
fn ids(rows: &[MatchRow]) -> Vec<i64> {
    rows.iter().map(|r| r.id).collect()
}

/// Queues a two-deal match of versions 1 and 2.
async fn queue(db: &Db, kind: MatchKind, seed: u64) -> i64 {
    db.queue_match(kind, seed, 2, false, &[1, 2])
        .await
        .expect("queue")
}

/// The lease rules at the database level, on an empty arena database: a worker whose lease
/// expired and was taken over stores nothing, even the game the new holder has not stored
/// yet (its copy would be the same, but it could also be a game of a match already done);
/// the new holder stores, and storing the same game again adds no second copy.
pub async fn late_lease_stores_nothing(db: &Db) {
    let m = db
        .queue_match(MatchKind::Ladder, 7, 2, false, &[1, 2])
        .await
        .expect("queue");
    let now = croupier_arena::now_ms();
    // Lease A, already expired: its worker stalled (or its clock ran behind) past the lease.
    assert_eq!(db.leasable_matches().await.expect("leasable"), 1);
    let a = db.claim("lease-a", now - 1_000, 4).await.expect("claim A");
    assert_eq!(ids(&a), [m], "the queued match is leased to A");
    let lease_a = a[0].lease.clone().expect("A's lease");
    assert!(lease_a.starts_with("lease-a-"), "{lease_a}");
    // The scheduler tops the queue up by this count: an expired lease is waiting for a
    // worker as much as a queued match is.
    assert_eq!(db.leasable_matches().await.expect("leasable"), 1);
    let b = db.claim("lease-b", now + 60_000, 4).await.expect("claim B");
    assert_eq!(ids(&b), [m], "A's expired lease is taken by B");
    let lease_b = b[0].lease.clone().expect("B's lease");
    // A live lease is not waiting: counting it left workers idle (the ladder's throughput).
    assert_eq!(db.leasable_matches().await.expect("leasable"), 0);
    assert_eq!(db.pending_matches().await.expect("pending"), 1);
    assert!(
        db.claim("lease-c", now + 60_000, 4)
            .await
            .expect("claim C")
            .is_empty(),
        "B's lease is live: nobody else gets the match"
    );
    assert!(
        !db.heartbeat(m, &lease_a, now + 60_000)
            .await
            .expect("heartbeat"),
        "A cannot extend a lease it lost"
    );

    let late = db
        .store_games(m, &lease_a, &[test_game(0, "{\"by\":\"a\"}")], None)
        .await
        .expect("store A");
    assert_eq!(late, Stored::LeaseLost);
    assert!(db.stored_indices(m).await.expect("indices").is_empty());
    assert_eq!(seats_of(db, m, 0).await, 0, "A stored no seats either");

    let first = db
        .store_games(m, &lease_b, &[test_game(0, "{\"by\":\"b\"}")], None)
        .await
        .expect("store B");
    assert_eq!(first, Stored::Ok);
    // B again (a batch retried after an error it could not see the end of): kept once.
    let again = db
        .store_games(m, &lease_b, &[test_game(0, "{\"by\":\"b2\"}")], None)
        .await
        .expect("store B again");
    assert_eq!(again, Stored::Ok);
    assert_eq!(db.stored_indices(m).await.expect("indices"), vec![0]);
    assert_eq!(db.game_count().await.expect("count"), 1);
    let g = db.game(m, 0).await.expect("game").expect("stored");
    assert_eq!(g.record, "{\"by\":\"b\"}", "the first copy stays as it was");
    assert_eq!(seats_of(db, m, 0).await, 2);

    // A cannot finish the match either; B can, and after that nobody stores into it.
    let a_done = db
        .store_games(m, &lease_a, &[], Some(2))
        .await
        .expect("finish A");
    assert_eq!(a_done, Stored::LeaseLost);
    assert_eq!(
        db.match_row(m).await.expect("row").map(|r| r.state),
        Some(MatchState::Leased)
    );
    // "Done" with a game of the schedule missing stores nothing more and ends nothing.
    let early = db
        .store_games(m, &lease_b, &[], Some(2))
        .await
        .expect("finish B early");
    assert_eq!(
        early,
        Stored::Incomplete {
            stored: 1,
            expected: 2
        }
    );
    assert_eq!(
        db.match_row(m).await.expect("row").map(|r| r.state),
        Some(MatchState::Leased),
        "a match lacking a game is not done"
    );
    let b_done = db
        .store_games(m, &lease_b, &[test_game(1, "{\"by\":\"b\"}")], Some(2))
        .await
        .expect("finish B");
    assert_eq!(b_done, Stored::Ok);
    assert_eq!(
        db.match_row(m).await.expect("row").map(|r| r.state),
        Some(MatchState::Done)
    );
    let after = db
        .store_games(m, &lease_b, &[test_game(2, "{}")], None)
        .await
        .expect("store after done");
    assert_eq!(after, Stored::LeaseLost, "a done match takes no more games");
    assert_eq!(db.stored_indices(m).await.expect("indices"), vec![0, 1]);
    assert_eq!(db.game_count().await.expect("count"), 2);
    assert!(
        db.claim("lease-d", now + 60_000, 4)
            .await
            .expect("claim D")
            .is_empty(),
        "a done match is never leased again"
    );
    assert_eq!(
        db.done_matches()
            .await
            .expect("done")
            .iter()
            .map(|r| r.id)
            .collect::<Vec<_>>(),
        vec![m]
    );

    // Several games in one statement: each lands in its own row with its own seats (SQLite
    // binds them by position, PostgreSQL by number).
    let m3 = db
        .queue_match(MatchKind::Ladder, 9, 3, false, &[1, 2])
        .await
        .expect("queue");
    let g = db.claim("lease-g", now + 60_000, 1).await.expect("claim G");
    assert_eq!(ids(&g), [m3]);
    let lease_g = g[0].lease.clone().expect("G's lease");
    let three: Vec<NewGame> = (0..3)
        .map(|i| {
            let mut g = test_game(i, &format!("{{\"game\":{i}}}"));
            g.seats[1].fault = Some(format!("fault-{i}"));
            g
        })
        .collect();
    let stored = db
        .store_games(m3, &lease_g, &three, Some(3))
        .await
        .expect("store three");
    assert_eq!(stored, Stored::Ok);
    for i in 0..3 {
        let g = db.game(m3, i).await.expect("game").expect("stored");
        assert_eq!(g.record, format!("{{\"game\":{i}}}"));
        let seats = db.seats_of_game(m3, i).await.expect("seats");
        assert_eq!(seats.len(), 2);
        assert!(
            seats
                .iter()
                .any(|s| s.fault.as_deref() == Some(&format!("fault-{i}"))),
            "game {i}'s seats are its own: {seats:?}"
        );
    }

    // A match given back (the platform failed) is queued again: only its holder can give it
    // back, and after that the holder stores nothing.
    let m2 = db
        .queue_match(MatchKind::Ladder, 8, 2, false, &[1, 2])
        .await
        .expect("queue");
    let e = db.claim("lease-e", now + 60_000, 1).await.expect("claim E");
    assert_eq!(ids(&e), [m2]);
    let lease_e = e[0].lease.clone().expect("E's lease");
    db.release(m2, &lease_a).await.expect("release by another");
    assert_eq!(
        db.match_row(m2).await.expect("row").map(|r| r.state),
        Some(MatchState::Leased),
        "only the holder gives a match back"
    );
    db.release(m2, &lease_e).await.expect("release");
    assert_eq!(
        db.store_games(m2, &lease_e, &[test_game(0, "{}")], None)
            .await
            .expect("store after release"),
        Stored::LeaseLost
    );
    let f = db.claim("lease-f", now + 60_000, 1).await.expect("claim F");
    assert_eq!(ids(&f), [m2], "the released match is leased again");
    assert_eq!(db.pending_matches().await.expect("pending"), 1);

    // Several matches in one claim: the oldest first, at most as many as asked, each under
    // a lease of its own (a report for one cannot store games in another), and the rest
    // stay queued for the next claim.
    let mut queued = Vec::new();
    for seed in 20..23 {
        queued.push(queue(db, MatchKind::Ladder, seed).await);
    }
    let h = db.claim("lease-h", now + 60_000, 2).await.expect("claim H");
    assert_eq!(ids(&h), queued[..2]);
    let leases: Vec<String> = h.iter().map(|r| r.lease.clone().expect("lease")).collect();
    assert_ne!(leases[0], leases[1], "one lease per match");
    assert_eq!(
        db.store_games(queued[1], &leases[0], &[test_game(0, "{}")], None)
            .await
            .expect("store under the other match's lease"),
        Stored::LeaseLost
    );
    assert!(
        db.stored_indices(queued[1])
            .await
            .expect("indices")
            .is_empty()
    );
    assert_eq!(
        db.store_games(queued[1], &leases[1], &[test_game(0, "{}")], None)
            .await
            .expect("store under its own lease"),
        Stored::Ok
    );
    let i = db.claim("lease-i", now + 60_000, 4).await.expect("claim I");
    assert_eq!(ids(&i), queued[2..]);
    // Regression: a placement match (a new version's first) went before ladder matches
    // queued earlier. The ratings wait at the oldest match not done, so a stream of
    // placement matches held them still, placement (counted from the ratings) never ended,
    // and a four-seat ladder played placement matches forever. Older ladder matches first.
    let ladder = queue(db, MatchKind::Ladder, 30).await;
    let placement = queue(db, MatchKind::Placement, 31).await;
    let j = db.claim("lease-j", now + 60_000, 1).await.expect("claim J");
    assert_eq!(ids(&j), [ladder]);
    let k = db.claim("lease-k", now + 60_000, 4).await.expect("claim K");
    assert_eq!(ids(&k), [placement]);

    // `meta` upserts (`ON CONFLICT … excluded.value`, spelled the same on both databases).
    db.set_meta("k", "one").await.expect("set");
    db.set_meta("k", "two").await.expect("set again");
    assert_eq!(db.meta("k").await.expect("meta").as_deref(), Some("two"));
}

/// Every match, by id.
pub async fn all_matches(db: &Db) -> Vec<MatchRow> {
    // One query: the tests poll this every 100 ms while the ladder queues hundreds of
    // matches, and a query per match kept PostgreSQL's pool busy enough to time out.
    db.matches().await.expect("matches")
}

/// Games a match's schedule holds.
pub fn games_of(cfg: &ArenaConfig, row: &MatchRow) -> i64 {
    let n = row.entrant_ids().expect("entrants").len();
    croupier_tournament::with_game!(cfg.kind(), G => {
        let (_, opts) = croupier_tournament::matches::setup::options::<G>(&cfg.rules_args()).expect("rules");
        croupier_arena::queue::ladder::schedule::<G>(&opts, row, n).games() as i64
    })
}

/// Waits until no other client of the database is inside a statement or a transaction:
/// after a `kill -9`, PostgreSQL still finishes a COMMIT the dead server had sent (its
/// backend notices the closed socket only afterwards), so a batch of games can land after the
/// process is gone. Reads before that could see a count that then grows (a CI run saw 64
/// games, one batch, appear between two reads). SQLite has no such backend: a write is
/// durable, or rolled back, when the process that made it dies.
pub async fn settled(db: &Db) {
    let Db::Postgres(pool) = db else { return };
    let q = "SELECT COUNT(*) FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid()
               AND backend_type = 'client backend' AND state <> 'idle'";
    let start = Instant::now();
    loop {
        let busy: i64 = sqlx::query_scalar(q)
            .fetch_one(pool)
            .await
            .expect("pg_stat_activity");
        if busy == 0 {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{busy} backends of a killed server still busy after 60 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A leased match with some but not all of its games stored, and how many are.
pub async fn interrupted(db: &Db, cfg: &ArenaConfig) -> Option<(MatchRow, usize)> {
    for row in all_matches(db).await {
        if row.state != MatchState::Leased {
            continue;
        }
        let stored = db.stored_indices(row.id).await.expect("indices").len();
        if stored > 0 && (stored as i64) < games_of(cfg, &row) {
            return Some((row, stored));
        }
    }
    None
}

/// Every stored game: (match, index) → (record, compact record, logs, finished).
pub type Snapshot = BTreeMap<(i64, i64), (String, Option<Vec<u8>>, Option<String>, i64)>;

pub async fn snapshot(db: &Db) -> Snapshot {
    let mut all = Snapshot::new();
    for row in all_matches(db).await {
        for g in db.games_of_match(row.id).await.expect("games") {
            let old = all.insert(
                (g.match_id, g.game_index),
                (g.record, g.compact, g.logs, g.finished_ms),
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
/// with the logs apart the way the ladder stores them. Returns (record, logs) per game.
pub fn replay<G: Adapter>(
    dir: &Path,
    cfg: &ArenaConfig,
    row: &MatchRow,
    versions: &[(i64, String, i64)],
) -> Vec<(GameRecord, Option<String>)> {
    let (_, opts) =
        croupier_tournament::matches::setup::options::<G>(&cfg.rules_args()).expect("rules");
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
    let schedule = croupier_arena::queue::ladder::schedule::<G>(&opts, row, entrants.len());
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
    runner::run(&plan, &todo, &(), &mut |rec| {
        games.push(rec);
        Ok::<_, std::convert::Infallible>(())
    })
    .expect("the match plays");
    games.sort_by_key(|g| g.index);
    let ids: Vec<i64> = versions.iter().map(|v| v.0).collect();
    let teams: Vec<i64> = versions.iter().map(|v| v.2).collect();
    games
        .iter()
        .map(|rec| {
            let g = croupier_arena::queue::to_new_game(rec, &ids, &teams, None, u32::MAX);
            let mut public = rec.clone();
            public.logs.clear();
            (public, g.logs)
        })
        .collect()
}

/// The three teams of the crash tests: `durak/fuzzy` makes a long match (the tests' `DEALS`)
/// last seconds, long enough to be killed inside; the others make the ladder go on
/// meanwhile. (`durak/ismcts` did this in 100 games, but at 20 times fuzzy's cost per game
/// every other match, and the final, waited minutes for the workers it kept busy.)
pub const CRASH_TEAMS: [(&str, &str); 3] = [
    ("alpha", "durak/fuzzy"),
    ("beta", "durak/trump-tosser"),
    ("gamma", "durak/cheapest"),
];

/// What a crash (a killed server or worker) may not cost, checked after the ladder went on:
/// every game stored `before` is there byte for byte; no game is stored twice; every stored
/// game has one seat row per seat and nothing else has any; every done match holds exactly
/// its schedule's games and a match not done fewer; and the interrupted match `row`, part
/// played before the kill and finished after, equals the same match played in one go.
pub fn assert_nothing_lost(
    rt: &tokio::runtime::Runtime,
    db: &Db,
    cfg: &ArenaConfig,
    dir: &Path,
    row: &MatchRow,
    before: &Snapshot,
) {
    rt.block_on(settled(db));
    let n = games_of(cfg, row);
    let now = rt.block_on(snapshot(db));
    // Every game stored before the kill is there, byte for byte (the restart played only
    // the missing ones, and did not overwrite).
    for (key, old) in before {
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
    // `seats_between` reads the ladder's seats: the final's games are rated apart.
    let finals: Vec<i64> = rt
        .block_on(all_matches(db))
        .iter()
        .filter(|m| m.kind == MatchKind::Final)
        .map(|m| m.id)
        .collect();
    assert_eq!(
        per_game.keys().collect::<Vec<_>>(),
        now.keys()
            .filter(|(m, _)| !finals.contains(m))
            .collect::<Vec<_>>(),
        "seat rows for exactly the stored ladder games"
    );
    assert_eq!(
        rt.block_on(db.game_count()).expect("count") as usize,
        now.len()
    );
    for m in rt.block_on(all_matches(db)) {
        let have: Vec<i64> = now
            .keys()
            .filter(|(id, _)| *id == m.id)
            .map(|(_, g)| *g)
            .collect();
        let n = games_of(cfg, &m);
        if m.state == MatchState::Done {
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
    let fresh =
        croupier_tournament::with_game!(cfg.kind(), G => replay::<G>(dir, cfg, row, &versions));
    assert_eq!(fresh.len() as i64, n);
    let rows = rt.block_on(db.games_of_match(row.id)).expect("games");
    let info = croupier_arena::queue::jobs::MatchInfo {
        id: row.id,
        seed: row.seed as u64,
        deals: row.deals as u64,
        duplicate: row.duplicate != 0,
        entrants: versions
            .iter()
            .map(
                |(id, sha256, team)| croupier_arena::queue::jobs::JobEntrant {
                    version: *id,
                    team: *team,
                    sha256: sha256.clone(),
                },
            )
            .collect(),
    };
    let stored = info.records(cfg, &rows).expect("stored records decode");
    for (i, ((record, logs), (g, a))) in fresh.iter().zip(rows.iter().zip(&stored)).enumerate() {
        // Stored compactly: no JSON record beside it.
        assert!(
            g.compact.is_some() && g.record.is_empty(),
            "match {} game {i} is not stored compactly",
            row.id
        );
        // The actions and results first, so a different game says so in one line.
        assert!(
            a.actions == record.actions && a.results == record.results,
            "match {} game {i}: the stored game is not the one its seed gives: results {:?} and {:?}",
            row.id,
            a.results,
            record.results
        );
        assert_eq!(a, record, "match {} game {i}: the records differ", row.id);
        assert_eq!(&g.logs, logs, "match {} game {i}: the logs differ", row.id);
    }
}

/// A statement that binds `word` and `id`, on whichever pool `db` holds: what a hand edit or
/// a newer server could leave in a column.
async fn write_word(db: &Db, q: &'static str, word: &str, id: i64) {
    match db {
        Db::Sqlite { pool, .. } => sqlx::query(q)
            .bind(word)
            .bind(id)
            .execute(pool)
            .await
            .map(drop),
        Db::Postgres(pool) => sqlx::query(q)
            .bind(word)
            .bind(id)
            .execute(pool)
            .await
            .map(drop),
    }
    .expect(q);
}

/// The text a column holds, read as text on whichever pool `db` holds.
async fn read_word(db: &Db, q: &'static str, id: i64) -> String {
    match db {
        Db::Sqlite { pool, .. } => sqlx::query_scalar(q).bind(id).fetch_one(pool).await,
        Db::Postgres(pool) => sqlx::query_scalar(q).bind(id).fetch_one(pool).await,
    }
    .expect(q)
}

/// Every state enum through database `db`, on an empty arena database: each value the
/// arena's own methods write reads back as itself, through the rows the arena reads, and is
/// stored as its word (what older servers wrote and the API shows); a word an enum does not
/// know is a `DbError::Decode` naming the column and the word. On PostgreSQL this is what
/// `#[sqlx(type_name = "text")]` is for: a derived enum without it expects an enum type of
/// its own name and cannot read a TEXT column.
pub async fn states_round_trip(db: &Db) {
    use croupier_arena::store::db::DbError;
    use croupier_arena::store::db::matches::NewMatch;
    use croupier_arena::store::db::states::{VersionStage, VersionStatus};

    let team = db
        .add_team("states", b"h")
        .await
        .expect("team")
        .expect("new");
    let (v, _) = db.add_version(team, "00", 1).await.expect("version");
    let status_of = "SELECT status FROM versions WHERE id = $1";
    for status in VersionStatus::ALL {
        db.set_version_status(v, status, "", None)
            .await
            .expect("status");
        let row = db.version(v).await.expect("read").expect("the version");
        assert_eq!(row.status, status);
        assert_eq!(read_word(db, status_of, v).await, status.as_str());
        assert_eq!(serde_json::json!(status), status.as_str());
    }
    for stage in [
        VersionStage::Queued,
        VersionStage::Compiling,
        VersionStage::Smoke,
    ] {
        db.set_version_stage(v, stage).await.expect("stage");
        let row = db
            .latest_version(team)
            .await
            .expect("read")
            .expect("latest");
        assert_eq!(row.status, VersionStatus::from(stage));
    }

    // Each kind queued one at a time and in a batch (PostgreSQL's batch binds text arrays).
    let kind_of = "SELECT kind FROM matches WHERE id = $1";
    let mut one = Vec::new();
    for kind in MatchKind::ALL {
        let m = db
            .queue_match(kind, 1, 1, false, &[v, v])
            .await
            .expect("queue");
        let row = db.match_row(m).await.expect("read").expect("the match");
        assert_eq!((row.kind, row.state), (kind, MatchState::Queued));
        assert_eq!(read_word(db, kind_of, m).await, kind.as_str());
        assert_eq!(serde_json::json!(kind), kind.as_str());
        one.push(m);
    }
    let batch: Vec<NewMatch> = MatchKind::ALL
        .iter()
        .map(|&kind| NewMatch {
            kind,
            seed: 2,
            deals: 1,
            duplicate: false,
            entrants: vec![v, v],
        })
        .collect();
    db.queue_matches(&batch).await.expect("queue a batch");
    let all = all_matches(db).await;
    let kinds: Vec<MatchKind> = all.iter().map(|m| m.kind).collect();
    let mut twice = MatchKind::ALL.to_vec();
    twice.extend(MatchKind::ALL);
    assert_eq!(kinds, twice);

    // Leased by a claim (read from its RETURNING), done once its game is stored, with a
    // seat of each result.
    let claimed = db.claim("states", i64::MAX, 1).await.expect("claim");
    assert_eq!(claimed[0].kind, MatchKind::Final, "the final's first");
    assert_eq!(claimed[0].state, MatchState::Leased);
    let m = claimed[0].id;
    let lease = claimed[0].lease.clone().expect("leased");
    let game = NewGame {
        index: 0,
        record: "{}".into(),
        compact: None,
        logs: None,
        seats: SeatOutcome::ALL
            .iter()
            .zip(0..)
            .map(|(&result, seat)| NewSeat {
                seat,
                version_id: v,
                team_id: team,
                result,
                place: seat,
                fault: None,
            })
            .collect(),
    };
    let stored = db
        .store_games(m, &lease, &[game], Some(1))
        .await
        .expect("store");
    assert_eq!(stored, Stored::Ok);
    let row = db.match_row(m).await.expect("read").expect("the final");
    assert_eq!(row.state, MatchState::Done);
    let state_of = "SELECT state FROM matches WHERE id = $1";
    assert_eq!(read_word(db, state_of, m).await, "done");
    let results: Vec<SeatOutcome> = db
        .seats_of_match(m)
        .await
        .expect("seats")
        .iter()
        .map(|s| s.result)
        .collect();
    assert_eq!(results, SeatOutcome::ALL);
    let first_result = "SELECT result FROM game_seats WHERE match_id = $1 AND seat = 0";
    assert_eq!(read_word(db, first_result, m).await, "win");

    // Words no enum knows: each read of its row is an error naming the column and the word.
    let named = |e: DbError, column: &str, word: &str| {
        let said = e.to_string();
        match e {
            DbError::Decode { column: c, reason } => {
                assert_eq!(c, column, "{said}");
                assert!(reason.contains(word), "{said}");
            }
            e => panic!("not a decode error: {e}"),
        }
    };
    write_word(
        db,
        "UPDATE versions SET status = $1 WHERE id = $2",
        "paused",
        v,
    )
    .await;
    let e = db.version(v).await.expect_err("an unknown status");
    named(e, "status", "paused");
    write_word(
        db,
        "UPDATE matches SET kind = $1 WHERE id = $2",
        "friendly",
        one[0],
    )
    .await;
    let e = db.match_row(one[0]).await.expect_err("an unknown kind");
    named(e, "kind", "friendly");
    write_word(
        db,
        "UPDATE matches SET state = $1 WHERE id = $2",
        "paused",
        one[1],
    )
    .await;
    let e = db.match_row(one[1]).await.expect_err("an unknown state");
    named(e, "state", "paused");
    write_word(
        db,
        "UPDATE game_seats SET result = $1 WHERE match_id = $2",
        "forfeit",
        m,
    )
    .await;
    let e = db.seats_of_match(m).await.expect_err("an unknown result");
    named(e, "result", "forfeit");
}

/// Issue #64: what the handlers refuse, the storage refuses too, each in the statement that
/// writes, so a request that passed the handler's check a moment before cannot get through:
/// a name that reads the same as a stored one (Unicode TS #39), a spar against the asking
/// team itself or a withdrawn team, a spar or an upload by a withdrawn team, and an upload
/// at or past the deadline. Run on SQLite (`arena_crash.rs`) and PostgreSQL (`arena_postgres.rs`).
pub async fn storage_refuses_what_the_handlers_refuse(db: &Db) {
    use croupier_arena::store::db::matches::NewMatch;
    use croupier_arena::store::db::states::VersionStatus;

    let alpha = db
        .add_team("Alpha", b"h")
        .await
        .expect("team")
        .expect("new");
    for alike in ["Alpha", "\u{410}lpha", "\u{391}lpha", "Alph\u{430}"] {
        assert_eq!(
            db.add_team(alike, b"h").await.expect("insert"),
            None,
            "{alike}"
        );
    }
    assert!(db.add_worker("Box", b"h").await.expect("worker").is_some());
    assert_eq!(
        db.add_worker("B\u{3bf}x", b"h").await.expect("insert"),
        None
    );
    let beta = db.add_team("Beta", b"h").await.expect("team").expect("new");
    let mut valid = Vec::new();
    for team in [alpha, alpha, beta] {
        let (v, _) = db.add_version(team, "00", 1).await.expect("version");
        db.set_version_status(v, VersionStatus::Valid, "", None)
            .await
            .expect("valid");
        valid.push(v);
    }
    let spar = |entrants: Vec<i64>| NewMatch {
        kind: MatchKind::Spar,
        seed: 1,
        deals: 1,
        duplicate: true,
        entrants,
    };
    let (a1, a2, b1) = (valid[0], valid[1], valid[2]);
    let queue = |team: i64, entrants: Vec<i64>| {
        let m = spar(entrants);
        async move { db.queue_spar(team, 100, 0, &m).await.expect("queue") }
    };
    assert_eq!(
        queue(alpha, vec![a2, a1]).await,
        None,
        "a spar against itself"
    );
    db.set_withdrawn(beta, Some("left"))
        .await
        .expect("withdraw");
    assert_eq!(
        queue(alpha, vec![a2, b1]).await,
        None,
        "against a withdrawn team"
    );
    assert_eq!(
        queue(beta, vec![b1, a2]).await,
        None,
        "asked by a withdrawn team"
    );
    let late = db
        .add_version_unless_frozen(beta, "01", 1, None)
        .await
        .expect("insert");
    assert_eq!(late, None, "an upload by a withdrawn team");
    db.set_withdrawn(beta, None).await.expect("reinstate");
    assert!(
        queue(alpha, vec![a2, b1]).await.is_some(),
        "a spar that may be"
    );
    assert!(
        queue(alpha, vec![a2, -1]).await.is_some(),
        "against a house agent"
    );
    let now = croupier_arena::now_ms();
    let past = db
        .add_version_unless_frozen(beta, "02", 1, Some(now - 1))
        .await
        .expect("insert");
    assert_eq!(past, None, "an upload stored after the deadline");
    let before = db
        .add_version_unless_frozen(beta, "03", 1, Some(now + 600_000))
        .await
        .expect("insert");
    assert!(before.is_some(), "an upload before the deadline");
}
