//! Headless Chromium driven through chromedriver (WebDriver), for the browser tests
//! (`browser.rs`, `browser_play.rs`): the programs, a driver that ends with the test, the
//! session's capabilities, and the waits every walk uses.

#![allow(dead_code)]

use fantoccini::elements::Element;
use fantoccini::wd::{Capabilities, WebDriverCompatibleCommand};
use fantoccini::{Client, Locator};
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Chromium and chromedriver, where Debian puts them.
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// chromedriver.
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// A page element that should be there at once (or after one navigation).
pub const SHORT: Duration = Duration::from_secs(20);

/// Whether both programs can be run.
pub fn have_browser() -> bool {
    let runs = |p: &str| {
        Command::new(p)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    runs(CHROMIUM) && runs(CHROMEDRIVER)
}

/// A free port on 127.0.0.1, as the OS hands it out. It is released before chromedriver
/// binds it; another process taking it in between would make the start fail loudly.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}

/// A running chromedriver, in a process group of its own so that dropping it also ends the
/// Chromium it started, even when the test panicked before closing the session.
pub struct Driver {
    child: Child,
    /// Where it answers WebDriver.
    pub url: String,
}

impl Driver {
    /// Starts chromedriver on a free port of 127.0.0.1, logging to `log`, and waits until it answers.
    pub fn start(log: &Path) -> Driver {
        use std::os::unix::process::CommandExt;
        let port = free_port();
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            // Only this machine may drive it (the default, said out loud).
            .arg("--allowed-ips=127.0.0.1")
            .arg(format!("--log-path={}", log.display()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("spawn chromedriver");
        let driver = Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        let status = format!("{}/status", driver.url);
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(2)))
            .build()
            .into();
        let start = Instant::now();
        while agent.get(&status).call().is_err() {
            assert!(
                start.elapsed() < SHORT,
                "chromedriver did not answer on {status} within {SHORT:?}; its log: {}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        driver
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // The group's id is chromedriver's pid (process_group(0)); Chromium inherits it.
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: kill(2) with a negative pid signals that process group only.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.wait();
    }
}

/// Headless Chromium at a fixed window size (the screenshots' size), with its console kept
/// for [`BrowserLog`], nothing fetched in the background, and timeouts on page loads and
/// scripts so that no WebDriver command can wait forever.
pub fn capabilities() -> Capabilities {
    let caps = json!({
        "browserName": "chrome",
        "goog:chromeOptions": {
            "binary": CHROMIUM,
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--hide-scrollbars",
            ],
        },
        "goog:loggingPrefs": { "browser": "ALL" },
        "timeouts": { "pageLoad": 60_000, "script": 10_000, "implicit": 0 },
    });
    match caps {
        Value::Object(m) => m,
        _ => unreachable!("a JSON object literal"),
    }
}

/// A WebDriver session with headless Chromium through `driver`. A cold Chromium on a busy
/// machine can take a while to start.
pub async fn connect(driver: &Driver) -> Client {
    tokio::time::timeout(
        Duration::from_secs(60),
        fantoccini::ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities())
            .connect(&driver.url),
    )
    .await
    .expect("starting Chromium timed out")
    .expect("a WebDriver session with headless Chromium")
}

/// Runs `walk` on a fresh headless Chromium (chromedriver logging to `log`) for at most
/// `limit`. The walk runs as its own task, so that a failed assertion in it comes back here
/// and the session is still closed (which ends Chromium) before the panic goes on, with
/// `server_log()` beside it.
pub fn run_walk<F, Fut>(log: &Path, limit: Duration, walk: F, server_log: impl Fn() -> String)
where
    F: FnOnce(Client) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let driver = Driver::start(log);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let outcome = rt.block_on(async {
        let client = connect(&driver).await;
        let mut task = tokio::spawn(walk(client.clone()));
        let outcome = tokio::time::timeout(limit, &mut task).await;
        if outcome.is_err() {
            task.abort();
        }
        let _ = tokio::time::timeout(SHORT, client.close()).await;
        outcome
    });
    drop(driver);
    match outcome {
        Err(_) => panic!(
            "the browser walk did not finish within {limit:?}; server log:\n{}",
            server_log()
        ),
        Ok(Err(e)) if e.is_panic() => {
            eprintln!("server log:\n{}", server_log());
            std::panic::resume_unwind(e.into_panic())
        }
        Ok(Err(e)) => panic!("the browser walk failed: {e}"),
        Ok(Ok(())) => {}
    }
}

/// chromedriver's console log (`POST /session/{id}/se/log`, which it keeps for Selenium):
/// the entries since the last call. Not in the W3C standard, so fantoccini has no method.
#[derive(Debug)]
pub struct BrowserLog;

impl WebDriverCompatibleCommand for BrowserLog {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/se/log",
            session_id.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(r#"{"type":"browser"}"#.into()))
    }
}

/// Signs in on the arena at `base` with `token` through its sign-in form, as a person does.
pub async fn sign_in(c: &Client, base: &str, token: &str) {
    c.goto(&format!("{base}/login")).await.expect("open /login");
    find(c, "main input[name=token]")
        .await
        .send_keys(token)
        .await
        .expect("type the token");
    find(c, "main form button")
        .await
        .click()
        .await
        .expect("sign in");
}

/// Waits up to [`SHORT`] for an element.
pub async fn find(c: &Client, css: &str) -> Element {
    c.wait()
        .at_most(SHORT)
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no `{css}` within {SHORT:?}: {e}"))
}

pub async fn text(c: &Client, css: &str) -> String {
    find(c, css).await.text().await.expect("element text")
}

pub async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![])
        .await
        .unwrap_or_else(|e| panic!("script failed ({e}): {script}"))
}

/// Polls a script every 250 ms until it returns true; panics with `what` after `limit`.
pub async fn wait_js(c: &Client, limit: Duration, what: &str, script: &str) {
    let start = Instant::now();
    while js(c, script).await != Value::Bool(true) {
        assert!(
            start.elapsed() < limit,
            "timed out after {limit:?} waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}
