//! A real arena for tests: `croupier arena init` in a temp dir, teams through the CLI, and
//! `croupier arena serve` on 127.0.0.1 with a port the OS picks; requests with ureq. The
//! server is killed when the test's handle drops, so no test leaves one running.

#![allow(dead_code)]

use super::croupier;
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
        let tmp = tempfile::tempdir().expect("temp dir");
        let out = croupier()
            .args(["arena", "init"])
            .arg(tmp.path())
            .args(["--game", game, "--rules", rules, "--listen", "127.0.0.1:0"])
            .output()
            .expect("run croupier arena init");
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
        edit(&mut cfg);
        std::fs::write(&path, toml::to_string(&cfg).expect("toml")).expect("write arena.toml");
        ArenaDir { tmp, admin }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        self.tmp.path()
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
}

impl Resp {
    /// The body as JSON.
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
    let (retry_after, csp) = (header("retry-after"), header("content-security-policy"));
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
    }
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
    // One build at a time: each rebuilds the same crate with another HOSTILE_MODE, and a
    // build running beside it would overwrite the module it is turning into a component.
    static BUILDING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    let out = super::test_agents_dir().join(format!("mode-{mode}"));
    let file = out.join("durak/hostile.wasm");
    let status = croupier()
        .arg("build")
        .arg(super::repo().join("tests/hostile-agent"))
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
