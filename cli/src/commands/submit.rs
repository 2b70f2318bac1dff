//! `croupier submit`: upload an agent to an arena and print its verdict.
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
/// could not be asked).
#[derive(Args)]
pub struct SubmitCommand {
    /// The agent component (.wasm).
    file: PathBuf,
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
    /// Uploads and prints the verdict.
    pub fn execute(&self) -> Result<ExitCode> {
        let bytes = std::fs::read(&self.file).map_err(|e| {
            croupier_tournament::matches::user(format!("{}: {e}", self.file.display()))
        })?;
        let base = self.arena.trim_end_matches('/');
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(std::time::Duration::from_secs(600)))
            .build()
            .new_agent();
        let file = self.file.display();
        // The caps first: a server answers 413 as soon as it sees the length, and a client
        // still sending the body then gets a broken pipe, not the answer.
        let cap = self.caps(&agent, base)?;
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
                    bail!(croupier_tournament::matches::user(format!(
                        "{url}: the arena closed the connection while {file} was being sent; try again"
                    )));
                }
                (status, body)
            }
            Err(e) => return Err(e).with_context(|| format!("{url}: cannot reach the arena")),
        };
        self.answer(status, &body)
    }

    /// Prints the arena's answer; the exit code.
    fn answer(&self, status: u16, body: &str) -> Result<ExitCode> {
        let file = self.file.display();
        let json: serde_json::Value = serde_json::from_str(body).unwrap_or(serde_json::Value::Null);
        let text = |v: &serde_json::Value| escape(v.as_str().unwrap_or(""));
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
                bail!(croupier_tournament::matches::user(format!(
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
