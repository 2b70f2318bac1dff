//! `croupier submit`: upload an agent to an arena and print its verdict. While the arena
//! checks the upload, its stages (queued, compiling, smoke match) are printed as the arena's
//! live events announce them; an arena without those events gives the verdict alone.
//!
//! Exit codes: 0 the arena took the file (a new version, or one it already had); 1 the
//! arena refused it (the loader's or the smoke match's verdict, or an answer of 400, 403,
//! 409, 413 or 429: an empty file, a withdrawn team, a closed arena, a file over the cap,
//! too many uploads); 2 the upload could not be made (a token the arena does not know, no
//! connection, a server error, a file that cannot be read).

use anyhow::{Context, Result, bail};
use clap::Args;
use croupier_host::text::escape;
use std::path::PathBuf;
use std::process::ExitCode;

/// Upload an agent to an arena; prints the verdict (exit 0 taken, 1 refused, 2 the arena
/// could not be asked). With `--spar`, then plays an unrated practice match and prints it.
#[derive(Args)]
pub struct SubmitCommand {
    /// The agent component (.wasm); leave it out with `--spar` to spar with the version the
    /// arena has.
    #[arg(required_unless_present = "spar")]
    file: Option<PathBuf>,
    /// Then spar (an unrated practice match) against this team or house agent
    /// (`durak/cheapest`), and print its results and replays.
    #[arg(long, value_name = "TEAM")]
    spar: Option<String>,
    /// The arena's address, e.g. http://127.0.0.1:8080
    #[arg(long)]
    arena: String,
    /// Your team's token (or set CROUPIER_TOKEN).
    #[arg(long, env = "CROUPIER_TOKEN", hide_env_values = true)]
    token: String,
}

/// A response's status and body (at most 1 MiB: a verdict with its smoke log).
fn read(mut r: ureq::http::Response<ureq::Body>, url: &str) -> Result<(u16, String)> {
    let status = r.status().as_u16();
    let body = r
        .body_mut()
        .with_config()
        .limit(1 << 20)
        .read_to_string()
        .with_context(|| format!("{url}: reading the answer"))?;
    Ok((status, body))
}

/// Bytes in MiB as a person reads them.
fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1u32 << 20))
}

impl SubmitCommand {
    /// Uploads and prints the verdict; then the spar, if asked for.
    pub fn execute(&self) -> Result<ExitCode> {
        let base = self.arena.trim_end_matches('/');
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(std::time::Duration::from_secs(600)))
            .build()
            .new_agent();
        if let Some(path) = &self.file {
            let code = self.upload(&agent, base, path)?;
            if code != ExitCode::SUCCESS {
                return Ok(code);
            }
        }
        match &self.spar {
            Some(against) => spar(&agent, base, &self.token, against),
            None => Ok(ExitCode::SUCCESS),
        }
    }

    /// Uploads `path` and prints the verdict; the exit code.
    fn upload(&self, agent: &ureq::Agent, base: &str, path: &std::path::Path) -> Result<ExitCode> {
        let bytes = std::fs::read(path)
            .map_err(|e| crate::errors::user(format!("{}: {e}", path.display())))?;
        let file = path.display();
        // The caps first: a server answers 413 as soon as it sees the length, and a client
        // still sending the body then gets a broken pipe, not the answer.
        let cap = self.caps(agent, base)?;
        if let Some(cap) = cap
            && bytes.len() as u64 > cap
        {
            println!(
                "{file}: refused before sending: it is {}, over this arena's cap of {} ({cap} bytes)",
                mib(bytes.len() as u64),
                mib(cap)
            );
            return Ok(ExitCode::from(1));
        }
        let stages = follow(agent, base, &bytes, &file.to_string());
        let url = format!("{base}/api/submit");
        let post = |body: &[u8]| {
            agent
                .post(&url)
                .header("Authorization", &format!("Bearer {}", self.token.trim()))
                .header("Content-Type", "application/wasm")
                .send(body)
        };
        let (status, body) = match post(&bytes) {
            Ok(r) => read(r, &url)?,
            Err(ureq::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
                ) =>
            {
                // The server answered before the body was sent (a bad token, a closed arena,
                // too many uploads) and closed the connection. The same request with no body
                // gets that answer; a server that would have taken the file says it is
                // empty, and stores nothing either way.
                let (status, body) = read(
                    post(&[]).with_context(|| format!("{url}: cannot reach the arena"))?,
                    &url,
                )?;
                if status == 400 {
                    bail!(crate::errors::user(format!(
                        "{url}: the arena closed the connection while {file} was being sent; try again"
                    )));
                }
                (status, body)
            }
            Err(e) => return Err(e).with_context(|| format!("{url}: cannot reach the arena")),
        };
        if let Some(done) = stages
            && let Ok(mut d) = done.lock()
        {
            // No stage is printed after the verdict.
            *d = true;
        }
        self.answer(path, status, &body)
    }

    /// Prints the arena's answer; the exit code.
    fn answer(&self, path: &std::path::Path, status: u16, body: &str) -> Result<ExitCode> {
        let file = path.display();
        let json: serde_json::Value = serde_json::from_str(body).unwrap_or(serde_json::Value::Null);
        match status {
            200 | 201 | 422 => {
                let v = &json["verdict"];
                let ok = v["valid"].as_bool().unwrap_or(false);
                let said = match (ok, json["unchanged"].as_bool().unwrap_or(false)) {
                    (_, true) => "unchanged",
                    (true, false) => "accepted",
                    (false, false) => "refused",
                };
                println!(
                    "{file}: version {} {said}: {}",
                    json["version"],
                    text(&v["message"])
                );
                if let Some(log) = v["smoke"]["log"]
                    .as_array()
                    .filter(|l| !l.is_empty() && !ok)
                {
                    println!("its log in that game:");
                    for l in log {
                        println!("  {}: {}", text(&l["level"]), text(&l["text"]));
                    }
                }
                Ok(if ok {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                })
            }
            _ => {
                let why = json["error"]
                    .as_str()
                    .map(escape)
                    .unwrap_or_else(|| escape(body));
                // The arena answered, and the answer is no: a refusal. A token it does not
                // know is not: nothing was looked at.
                if (400..500).contains(&status) && status != 401 {
                    println!("{file}: refused: the arena said {status}: {why}");
                    return Ok(ExitCode::from(1));
                }
                bail!(crate::errors::user(format!(
                    "{file}: the arena said {status}: {why}"
                )))
            }
        }
    }

    /// The arena's upload cap in bytes, from `GET /api/arena`; `None` from a server that
    /// does not say (one older than that route).
    fn caps(&self, agent: &ureq::Agent, base: &str) -> Result<Option<u64>> {
        let url = format!("{base}/api/arena");
        let mut r = agent
            .get(&url)
            .call()
            .with_context(|| format!("{url}: cannot reach the arena"))?;
        if r.status().as_u16() != 200 {
            return Ok(None);
        }
        let body = r
            .body_mut()
            .with_config()
            .limit(1 << 16)
            .read_to_string()
            .with_context(|| format!("{url}: reading the answer"))?;
        let json: serde_json::Value =
            serde_json::from_str(&body).unwrap_or(serde_json::Value::Null);
        Ok(json["uploads"]["max_bytes"].as_u64())
    }
}

/// How long to wait for the arena's live events to open before uploading without them.
const EVENTS_OPEN: std::time::Duration = std::time::Duration::from_secs(10);

/// Follows the arena's live events and prints this file's stages (matched by its SHA-256)
/// until the flag it returns is set. The stream is open before this returns, so no stage of
/// the upload is missed; `None` (and no stages) when it cannot be opened.
fn follow(
    agent: &ureq::Agent,
    base: &str,
    bytes: &[u8],
    file: &str,
) -> Option<std::sync::Arc<std::sync::Mutex<bool>>> {
    use std::io::BufRead;
    let sha = croupier_arena::store::agents::sha256_hex(bytes);
    let url = format!("{base}/api/events");
    let done = std::sync::Arc::new(std::sync::Mutex::new(false));
    let (opened, open) = std::sync::mpsc::channel();
    let (agent, file, flag) = (agent.clone(), file.to_string(), done.clone());
    std::thread::spawn(move || {
        let Ok(r) = agent.get(&url).header("Accept", "text/event-stream").call() else {
            return;
        };
        if r.status().as_u16() != 200 {
            return;
        }
        let mut event = String::new();
        let mut last = String::new();
        for line in std::io::BufReader::new(r.into_body().into_reader()).lines() {
            let Ok(line) = line else { return };
            if let Some(name) = line.strip_prefix("event:") {
                event = name.trim().to_string();
                if event == "hello" {
                    let _ = opened.send(());
                }
                continue;
            }
            let Some(data) = line.strip_prefix("data:") else {
                continue;
            };
            if event != "version" {
                continue;
            }
            let v: serde_json::Value = serde_json::from_str(data.trim()).unwrap_or_default();
            let state = v["state"].as_str().unwrap_or("");
            if v["sha256"].as_str() != Some(sha.as_str())
                || !matches!(state, "queued" | "compiling" | "smoke")
                || state == last
            {
                continue;
            }
            last = state.to_string();
            let Ok(d) = flag.lock() else { return };
            if *d {
                return;
            }
            let said = if state == "smoke" {
                "smoke match"
            } else {
                state
            };
            println!("{file}: version {}: {said}", v["version"]);
        }
    });
    open.recv_timeout(EVENTS_OPEN).ok().map(|()| done)
}

/// How long a spar may take before `croupier submit` stops waiting for it: far more than a
/// few games take, which arrive within seconds on an arena that is not overloaded.
const SPAR_WAIT: std::time::Duration = std::time::Duration::from_secs(600);

/// Asks for a spar match against `against`, waits until it is played and prints its results
/// and replays; the exit code (1 when the arena refuses it).
fn spar(agent: &ureq::Agent, base: &str, token: &str, against: &str) -> Result<ExitCode> {
    let url = format!("{base}/api/team/spar");
    let body = serde_json::json!({ "against": against }).to_string();
    let r = agent
        .post(&url)
        .header("Authorization", &format!("Bearer {}", token.trim()))
        .header("Content-Type", "application/json")
        .send(body.as_bytes())
        .with_context(|| format!("{url}: cannot reach the arena"))?;
    let (status, body) = read(r, &url)?;
    let json: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    if status != 202 {
        let why = json["error"]
            .as_str()
            .map(escape)
            .unwrap_or_else(|| escape(&body));
        if (400..500).contains(&status) && status != 401 {
            println!(
                "spar against {}: refused: the arena said {status}: {why}",
                escape(against)
            );
            return Ok(ExitCode::from(1));
        }
        bail!(crate::errors::user(format!(
            "spar against {}: the arena said {status}: {why}",
            escape(against)
        )));
    }
    let id = json["match"].as_i64().unwrap_or(0);
    println!(
        "spar: version {} against {}: match {id}, {base}/matches/{id}",
        json["version"],
        text(&json["against"])
    );
    let started = std::time::Instant::now();
    let url = format!("{base}/api/matches/{id}");
    loop {
        let (status, body) = read(
            agent
                .get(&url)
                .call()
                .with_context(|| format!("{url}: cannot reach the arena"))?,
            &url,
        )?;
        let m: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        if status == 200 && m["state"] == "done" {
            let agents = m["agents"].as_array().cloned().unwrap_or_default();
            let totals = m["totals"].as_array().cloned().unwrap_or_default();
            for (a, t) in agents.iter().zip(&totals) {
                println!("  {}: won {}, drawn {}, lost {}", text(a), t[0], t[1], t[2]);
            }
            for g in m["games"].as_array().into_iter().flatten() {
                println!("  replay: {base}/games/{id}/{}", g["game"]);
            }
            return Ok(ExitCode::SUCCESS);
        }
        if status != 200 || started.elapsed() > SPAR_WAIT {
            bail!(crate::errors::user(format!(
                "spar match {id} was not played within {} s; it is still queued at {base}/matches/{id}",
                SPAR_WAIT.as_secs()
            )));
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
}

/// A JSON string as text to print (escaped).
fn text(v: &serde_json::Value) -> String {
    escape(v.as_str().unwrap_or(""))
}
