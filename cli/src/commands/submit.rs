//! `croupier submit`: upload an agent to an arena and print its verdict.

use anyhow::{Context, Result, bail};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Upload an agent to an arena; prints the verdict (exit 0 accepted, 1 refused).
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

impl SubmitCommand {
    /// Uploads and prints the verdict.
    pub fn execute(&self) -> Result<ExitCode> {
        let bytes = std::fs::read(&self.file).map_err(|e| {
            croupier_tournament::matches::user(format!("{}: {e}", self.file.display()))
        })?;
        let url = format!("{}/api/submit", self.arena.trim_end_matches('/'));
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(std::time::Duration::from_secs(600)))
            .build()
            .new_agent();
        let mut resp = agent
            .post(&url)
            .header("Authorization", &format!("Bearer {}", self.token.trim()))
            .header("Content-Type", "application/wasm")
            .send(&bytes[..])
            .with_context(|| format!("{url}: cannot reach the arena"))?;
        let status = resp.status().as_u16();
        let body = resp
            .body_mut()
            .with_config()
            .limit(1 << 20)
            .read_to_string()
            .with_context(|| format!("{url}: reading the answer"))?;
        let json: serde_json::Value =
            serde_json::from_str(&body).unwrap_or(serde_json::Value::Null);
        let text = |v: &serde_json::Value| croupier_host::text::escape(v.as_str().unwrap_or(""));
        match status {
            201 | 422 => {
                let v = &json["verdict"];
                let ok = v["valid"].as_bool().unwrap_or(false);
                println!(
                    "{}: version {} {}: {}",
                    self.file.display(),
                    json["version"],
                    if ok { "accepted" } else { "refused" },
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
                    .map(croupier_host::text::escape)
                    .unwrap_or_else(|| croupier_host::text::escape(&body));
                bail!(croupier_tournament::matches::user(format!(
                    "{}: the arena said {status}: {why}",
                    self.file.display()
                )))
            }
        }
    }
}
