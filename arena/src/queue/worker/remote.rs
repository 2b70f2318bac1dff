//! A worker on another machine: the server's worker API over HTTP ([`Remote`]), and the
//! [`Queue`] a remote worker's loop runs on ([`RemoteQueue`]).
//!
//! Every call is made on the worker's one async thread, with hyper, so that a call costs the
//! core the games need no more than its own work. The blocking client this replaced ran each
//! call on one of four tokio blocking threads, two more thread switches per call: with
//! 16-game ladder matches those threads took 4.3 µs of CPU a game and the loop 3.0; now the
//! loop alone takes 6.4 (per-thread schedstat, `scripts/bench-arena.sh` part 6's set-up).
//!
//! Threat model. The server is the organiser's, reached with a worker token, and is trusted
//! to hand out jobs; it is not trusted to be up or well-behaved. So an answer is read up to a
//! cap (1 MiB, an agent [`MAX_AGENT_BYTES`]) instead of whole, every call gives up after
//! [`TIMEOUT`] (a server that vanished is noticed and the loop leases again), and an agent is
//! kept only if its bytes hash to the content hash it was asked for. The token is marked
//! sensitive, so hyper keeps it out of its debug output.

use super::{BATCH, Job, Queue};
use crate::config::ArenaConfig;
use crate::queue::Report;
use crate::store::db::games::Stored;
use axum::body::Bytes;
use axum::http::{HeaderValue, Method, Request, Uri, header};
use croupier_tournament::runner::GameRecord;
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// A worker on another machine: the server's worker API over HTTP.
pub struct Remote {
    /// The server's base URL, without a trailing slash.
    server: String,
    /// `Bearer <token>`, marked sensitive.
    auth: HeaderValue,
    http: Client<hyper_rustls::HttpsConnector<HttpConnector>, Full<Bytes>>,
    agents: PathBuf,
    /// Set at the first 401 or 403: the server no longer takes this worker's token (the
    /// organiser removed the worker or gave it a new one), which no retry can mend.
    refused: std::sync::OnceLock<String>,
}

/// Why a remote worker could not start.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The server could not be reached or refused.
    #[error("{url}: {reason}")]
    Server {
        /// What was asked.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// The local cache.
    #[error("{path}: {reason}")]
    Cache {
        /// The folder.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// The token cannot go in an HTTP header.
    #[error("the worker token holds characters an HTTP header cannot carry")]
    Token,
}

/// The content type of every worker call's body but a report's.
const JSON: &str = "application/json";

/// The largest agent a worker downloads: the loader refuses larger files anyway.
pub const MAX_AGENT_BYTES: usize = 256 << 20;

/// The largest answer to any other call (a lease batch is a few KiB).
const MAX_ANSWER_BYTES: usize = 1 << 20;

/// How long a call may take, answer included: long enough for the server's long poll of a
/// lease and a large agent, short enough that a server that vanished is noticed.
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// An error with its causes: hyper's own text ("client error (Connect)") says little alone.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

impl Remote {
    /// A client of the server at `server` (e.g. `http://10.0.0.5:8080`; `https://` works
    /// too, with the Mozilla roots) with a worker token, keeping fetched agents in
    /// `cache/agents`. Makes no call yet.
    pub fn new(server: &str, token: &str, cache: &Path) -> Result<Remote, RemoteError> {
        let server = server.trim_end_matches('/').to_string();
        let probe = format!("{server}/api/worker/config");
        match probe.parse::<Uri>() {
            Ok(u) if matches!(u.scheme_str(), Some("http" | "https")) && u.host().is_some() => {}
            _ => {
                return Err(RemoteError::Server {
                    url: server,
                    reason: "not an http:// or https:// URL of a server".into(),
                });
            }
        }
        let mut auth =
            HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| RemoteError::Token)?;
        auth.set_sensitive(true);
        let agents = cache.join("agents");
        std::fs::create_dir_all(&agents).map_err(|e| RemoteError::Cache {
            path: agents.clone(),
            reason: e.to_string(),
        })?;
        let mut connector = HttpConnector::new();
        // The TLS layer below takes `https://` URLs through this connector too.
        connector.enforce_http(false);
        // A report is written in one go and waits for its answer: Nagle's algorithm would
        // only delay it.
        connector.set_nodelay(true);
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .wrap_connector(connector);
        // Connections are pooled: the server's name is looked up, and a connection made,
        // once, not on every call.
        let http = Client::builder(TokioExecutor::new()).build(connector);
        Ok(Remote {
            server,
            auth,
            http,
            agents,
            refused: std::sync::OnceLock::new(),
        })
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server)
    }

    /// One call: `(status, body)`, the body read up to `limit` bytes.
    async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<(Bytes, &'static str)>,
        limit: usize,
    ) -> Result<(u16, Bytes), String> {
        let url = self.url(path);
        let fail = |e: String| format!("{url}: {e}");
        // Once refused, nothing more is sent: every call would be refused too, and the
        // server counts refused tokens per address, so a removed worker that went on asking
        // would lock the workers beside it (behind the same NAT) out for a minute.
        if let Some(why) = self.refused.get() {
            return Err(why.clone());
        }
        let mut req = Request::builder()
            .method(method)
            .uri(&url)
            .header(header::AUTHORIZATION, self.auth.clone());
        let body = match body {
            Some((b, content_type)) => {
                req = req.header(header::CONTENT_TYPE, content_type);
                Full::new(b)
            }
            None => Full::default(),
        };
        let req = req.body(body).map_err(|e| fail(chain(&e)))?;
        let exchange = async {
            let resp = self.http.request(req).await.map_err(|e| fail(chain(&e)))?;
            let status = resp.status().as_u16();
            let bytes = Limited::new(resp.into_body(), limit)
                .collect()
                .await
                .map_err(|e| fail(chain(&*e)))?
                .to_bytes();
            if matches!(status, 401 | 403) {
                let _ = self.refused.set(format!(
                    "{url}: {status}: {}: the server no longer takes this worker's token \
                     (the organiser removed the worker or gave it a new token)",
                    error_text(&bytes)
                ));
            }
            Ok((status, bytes))
        };
        tokio::time::timeout(TIMEOUT, exchange)
            .await
            .map_err(|_| fail(format!("no answer within {} s", TIMEOUT.as_secs())))?
    }

    /// A `POST` with `body`, which is shared, not moved, so that a refused report can be
    /// sent again in another form without a copy on every call.
    async fn post(
        &self,
        path: &'static str,
        body: impl Into<Bytes>,
        content_type: &'static str,
    ) -> Result<(u16, Bytes), String> {
        let body = Some((body.into(), content_type));
        self.call(Method::POST, path, body, MAX_ANSWER_BYTES).await
    }

    /// The arena's config, from the server: what every game is played under.
    pub async fn config(&self) -> Result<ArenaConfig, RemoteError> {
        let url = self.url("/api/worker/config");
        let server = |reason: String| RemoteError::Server {
            url: url.clone(),
            reason,
        };
        let (status, body) = self
            .call(Method::GET, "/api/worker/config", None, MAX_ANSWER_BYTES)
            .await
            .map_err(&server)?;
        if status != 200 {
            return Err(server(format!("{status}: {}", error_text(&body))));
        }
        serde_json::from_slice(&body).map_err(|e| server(format!("not an arena config: {e}")))
    }
}

/// The `error` field of a JSON error body, or the body itself.
fn error_text(body: &[u8]) -> String {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(String::from))
        .unwrap_or_else(|| String::from_utf8_lossy(body).chars().take(300).collect())
}

/// How long a finished match's last report may wait to go out with others
/// ([`RemoteQueue`]): far below a lease (whose heartbeat runs until the report is answered)
/// and below anything a person watching the leaderboard notices.
pub const HOLD: Duration = Duration::from_millis(200);

/// Finished matches whose last reports a remote worker sends together (a lease batch's
/// worth; 16-game ladder matches fill a call's [`crate::queue::MAX_GAMES_PER_CALL`]
/// at five).
pub const HELD: usize = 8;

/// A finished match's last report, waiting to go out with others, and who waits for its
/// outcome.
struct Pending {
    report: Report,
    answer: tokio::sync::oneshot::Sender<Result<Stored, String>>,
}

/// Tells everyone waiting on a held report that it failed, and why.
fn refuse_all(answers: Vec<tokio::sync::oneshot::Sender<Result<Stored, String>>>, why: &str) {
    for a in answers {
        // A waiter that is gone (its worker stopping) needs no answer.
        let _ = a.send(Err(why.to_string()));
    }
}

/// The [`Queue`] of a remote worker: wraps a [`Remote`], keeps the jobs a batched lease
/// brought that the loop has not asked for yet, and holds finished matches' last reports to
/// send several in one call.
///
/// Why hold reports: with 16-game ladder matches a remote worker made a report call per
/// match, and those calls were the largest part of what it spent off its play thread. When matches end
/// less than [`HOLD`] apart, a finished match's report waits, at most [`HOLD`], for company
/// ([`HELD`] reports, or enough games that one more report could pass
/// [`crate::queue::MAX_GAMES_PER_CALL`]) or for the worker to stop, and they go out in
/// one call of `POST /api/worker/reports`. A long match's report, and those made while a
/// match plays (every [`BATCH`] games), go out at once.
///
/// Reports do not ride along with the next lease call: the server stores them and catches
/// the ratings up before it answers, and a lease answer that waited for that left the play
/// thread idle for a third of the time at 8 deals a match (`scripts/bench-arena.sh`,
/// part 6). A worker killed while holding reports loses nothing the server counts: their
/// matches are leased again when the leases expire and replayed from their seeds.
pub struct RemoteQueue {
    remote: Remote,
    /// Leased, not yet handed to the loop, with when they were leased.
    spare: std::sync::Mutex<std::collections::VecDeque<(Job, std::time::Instant)>>,
    /// Set once the server refused a binary report (415): an older server reads only JSON.
    json_reports: AtomicBool,
    /// Finished matches' last reports, not yet sent.
    pending: std::sync::Mutex<Vec<Pending>>,
    /// Set once the server did not know `POST /api/worker/reports` (an older croupier):
    /// every report goes out alone from then on.
    alone: AtomicBool,
    /// When the last match's last report was made.
    last_done: std::sync::Mutex<Option<std::time::Instant>>,
    /// Agents known to be in the cache: looking each match's agents up on disk again cost
    /// a quarter of a percent of the worker's CPU with 16-game matches.
    have: std::sync::Mutex<std::collections::HashSet<String>>,
}

impl RemoteQueue {
    /// A queue on the server `remote` talks to.
    pub fn new(remote: Remote) -> RemoteQueue {
        RemoteQueue {
            remote,
            spare: Default::default(),
            json_reports: AtomicBool::new(false),
            pending: Default::default(),
            alone: AtomicBool::new(false),
            last_done: Default::default(),
            have: Default::default(),
        }
    }

    /// The held reports, taken to be sent (empty if the lock was poisoned: a panic while
    /// pushing, whose senders were dropped, so their reporters see an error).
    fn take_pending(&self) -> Vec<Pending> {
        self.pending
            .lock()
            .map(|mut p| std::mem::take(&mut *p))
            .unwrap_or_default()
    }

    /// Sends the held reports, in calls within the server's caps, and answers each report's
    /// waiter. With no report held, nothing is sent.
    async fn flush(&self) {
        let mut pending = self.take_pending().into_iter().peekable();
        while pending.peek().is_some() {
            let mut chunk = Vec::new();
            let mut games = 0;
            while let Some(p) = pending.next_if(|p| {
                chunk.is_empty()
                    || (chunk.len() < crate::queue::MAX_REPORTS_PER_CALL
                        && games + p.report.games.len() <= crate::queue::MAX_GAMES_PER_CALL)
            }) {
                games += p.report.games.len();
                chunk.push(p);
            }
            self.send_together(chunk).await;
        }
    }

    /// One call of `POST /api/worker/reports` with `held` (within the caps).
    async fn send_together(&self, held: Vec<Pending>) {
        if self.alone.load(Ordering::Relaxed) {
            return self.send_alone(held).await;
        }
        let (reports, answers): (Vec<Report>, Vec<_>) =
            held.into_iter().map(|p| (p.report, p.answer)).unzip();
        let body: Bytes =
            match crate::queue::report_wire::encode_reports(crate::queue::Reports { reports }) {
                Ok(b) => b.into(),
                Err(e) => return refuse_all(answers, &e.to_string()),
            };
        let sent = self
            .remote
            .post(
                "/api/worker/reports",
                body.clone(),
                crate::queue::report_wire::REPORTS_CONTENT_TYPE,
            )
            .await;
        let answered = match sent {
            Ok((200, body)) => serde_json::from_slice::<crate::queue::ReportOutcomes>(&body)
                .map_err(|e| format!("reports: the answer does not decode: {e}"))
                .and_then(|x| {
                    if x.outcomes.len() == answers.len() {
                        Ok(x.outcomes)
                    } else {
                        Err(format!(
                            "reports: {} outcomes for {} reports",
                            x.outcomes.len(),
                            answers.len()
                        ))
                    }
                }),
            Ok((404 | 405, _)) => {
                // A server older than this route: the reports go out alone, now and from
                // now on. The route did not exist, so none of them was stored.
                tracing::warn!(
                    "arena worker: the server takes one report per call (an older croupier); reporting each match alone"
                );
                self.alone.store(true, Ordering::Relaxed);
                match crate::queue::report_wire::decode_reports(&body) {
                    Ok(x) => {
                        let again = x.reports.into_iter().zip(answers);
                        let again = again.map(|(report, answer)| Pending { report, answer });
                        self.send_alone(again.collect()).await;
                    }
                    Err(e) => refuse_all(answers, &e.to_string()),
                }
                return;
            }
            Ok((s, body)) => Err(format!("reports: {s}: {}", error_text(&body))),
            Err(e) => Err(e),
        };
        match answered {
            Ok(outcomes) => {
                for (a, o) in answers.into_iter().zip(outcomes) {
                    let _ = a.send(match o {
                        crate::queue::ReportOutcome::Stored(s) => Ok(s),
                        crate::queue::ReportOutcome::Refused(why) => Err(format!("report: {why}")),
                    });
                }
            }
            Err(e) => refuse_all(answers, &e),
        }
    }

    async fn report_json(&self, report: &Report) -> Result<(u16, Bytes), String> {
        let json = serde_json::to_vec(report).map_err(|e| e.to_string())?;
        self.remote.post("/api/worker/report", json, JSON).await
    }

    fn spare(&self) -> Option<(Job, std::time::Instant)> {
        // A poisoned lock: a panic while pushing; the jobs in it expire on the server.
        self.spare.lock().ok()?.pop_front()
    }

    /// Sends one report on its own: `POST /api/worker/report`.
    async fn report_now(&self, report: Report) -> Result<Stored, String> {
        let (status, body) = if self.json_reports.load(Ordering::Relaxed) {
            self.report_json(&report).await?
        } else {
            let binary: Bytes = crate::queue::report_wire::encode(report)
                .map_err(|e| e.to_string())?
                .into();
            let (status, answer) = self
                .remote
                .post(
                    "/api/worker/report",
                    binary.clone(),
                    crate::queue::report_wire::CONTENT_TYPE,
                )
                .await?;
            if status == 415 {
                // A server older than the binary form: JSON from now on.
                tracing::warn!(
                    "arena worker: the server does not read binary reports (an older croupier); reporting in JSON"
                );
                self.json_reports.store(true, Ordering::Relaxed);
                let report =
                    crate::queue::report_wire::decode(&binary).map_err(|e| e.to_string())?;
                self.report_json(&report).await?
            } else {
                (status, answer)
            }
        };
        match status {
            200 => serde_json::from_slice(&body).map_err(|e| format!("report: {e}")),
            409 => Ok(Stored::LeaseLost),
            s => Err(format!("report: {s}: {}", error_text(&body))),
        }
    }

    /// Keeps jobs leased for later calls of [`Queue::lease`].
    fn keep_spares(&self, jobs: impl Iterator<Item = Job>) {
        if let Ok(mut spare) = self.spare.lock() {
            let now = std::time::Instant::now();
            spare.extend(jobs.map(|j| (j, now)));
        }
    }

    /// Notes that an agent is in the cache.
    fn remember(&self, sha256: &str) {
        if let Ok(mut h) = self.have.lock() {
            h.insert(sha256.to_string());
        }
    }

    /// Gives every spare back to the queue.
    async fn release_spares(&self) {
        while let Some((job, _)) = self.spare() {
            self.release(&job).await;
        }
    }

    /// Sends held reports one by one (a server older than `POST /api/worker/reports`).
    async fn send_alone(&self, held: Vec<Pending>) {
        for p in held {
            let r = self.report_now(p.report).await;
            let _ = p.answer.send(r);
        }
    }
}

impl Queue for RemoteQueue {
    /// One job, from the spares if there are any. Otherwise, with `batch`, the server is
    /// asked for [`crate::queue::MAX_LEASE_BATCH`] at once: with 16-game matches a lease
    /// call per match was a good part of what a remote worker spent besides playing. A spare
    /// gets no heartbeat until the loop takes it, so one kept past a third of its lease is
    /// beaten first, and dropped if it was lost (the server hands it to another worker).
    ///
    /// Without `batch` (the last match was long) the spares go back to the queue first: a
    /// batch leased after short matches can hold long ones (an ISMCTS agent's, seconds
    /// each), and a worker working through them one by one kept a killed worker's match and
    /// the final waiting behind a minute of them while other workers had the time.
    async fn lease(&self, batch: bool) -> Result<Option<Job>, String> {
        if !batch {
            self.release_spares().await;
        }
        while let Some((job, at)) = self.spare() {
            if at.elapsed() < Duration::from_millis(job.lease_ms / 3)
                || self.heartbeat(&job).await == Ok(true)
            {
                return Ok(Some(job));
            }
        }
        let max = if batch {
            crate::queue::MAX_LEASE_BATCH
        } else {
            1
        };
        let ask = format!("{{\"max\": {max}}}");
        let (status, body) = self
            .remote
            .post("/api/worker/lease", ask.into_bytes(), JSON)
            .await?;
        match status {
            200 => {
                // One job, not a batch, from a server older than batches.
                let jobs = match serde_json::from_slice::<crate::queue::Leased>(&body) {
                    Ok(leased) => leased.jobs,
                    Err(_) => vec![
                        serde_json::from_slice::<Job>(&body)
                            .map_err(|e| format!("the server sent jobs that do not decode: {e}"))?,
                    ],
                };
                let mut jobs = jobs.into_iter();
                let first = jobs.next();
                self.keep_spares(jobs);
                Ok(first)
            }
            204 => Ok(None),
            s => Err(format!("lease: {s}: {}", error_text(&body))),
        }
    }

    fn has_spare(&self) -> bool {
        self.spare.lock().is_ok_and(|s| !s.is_empty())
    }

    fn refused(&self) -> Option<String> {
        self.remote.refused.get().cloned()
    }

    async fn drain(&self) {
        self.flush().await;
        self.release_spares().await;
    }

    async fn heartbeat(&self, job: &Job) -> Result<bool, String> {
        let body = serde_json::to_vec(&job.lease_ref()).map_err(|e| e.to_string())?;
        let (status, body) = self
            .remote
            .post("/api/worker/heartbeat", body, JSON)
            .await?;
        match status {
            200 => Ok(true),
            409 => Ok(false),
            s => Err(format!("heartbeat: {s}: {}", error_text(&body))),
        }
    }

    async fn report(
        &self,
        job: &Job,
        games: Vec<GameRecord>,
        done: bool,
    ) -> Result<Stored, String> {
        let report = Report {
            match_id: job.match_id,
            lease: job.lease.clone(),
            done,
            games,
        };
        if !done || self.alone.load(Ordering::Relaxed) {
            return self.report_now(report).await;
        }
        // Held only when matches end often: a long match's report has no company coming.
        let often = self
            .last_done
            .lock()
            .ok()
            .and_then(|mut t| t.replace(std::time::Instant::now()))
            .is_some_and(|t| t.elapsed() < HOLD);
        if !often {
            return self.report_now(report).await;
        }
        let (answer, mut outcome) = tokio::sync::oneshot::channel();
        let full = {
            let Ok(mut pending) = self.pending.lock() else {
                return Err("the held reports' lock is poisoned".into());
            };
            pending.push(Pending { report, answer });
            let games: usize = pending.iter().map(|p| p.report.games.len()).sum();
            // Enough for one call: no point in waiting.
            pending.len() >= HELD || games + BATCH > crate::queue::MAX_GAMES_PER_CALL
        };
        if full {
            self.flush().await;
        }
        match tokio::time::timeout(HOLD, &mut outcome).await {
            Ok(r) => r.map_err(|_| "the held report was dropped".to_string())?,
            Err(_) => {
                // No company came in time: it goes now, with whatever else is held.
                self.flush().await;
                outcome
                    .await
                    .map_err(|_| "the held report was dropped".to_string())?
            }
        }
    }

    async fn release(&self, job: &Job) {
        if let Ok(body) = serde_json::to_vec(&job.lease_ref()) {
            let _ = self.remote.post("/api/worker/release", body, JSON).await;
        }
    }

    /// Downloads the agent unless the cache has it. Called by the loop before it hands a
    /// match to the play thread, so a download overlaps the match in play.
    async fn agent_path(&self, sha256: &str) -> Result<PathBuf, String> {
        if !crate::store::agents::is_sha256(sha256) {
            return Err(format!("`{sha256}` is not a content hash"));
        }
        let path = self.remote.agents.join(format!("{sha256}.wasm"));
        if self.have.lock().is_ok_and(|h| h.contains(sha256)) {
            return Ok(path);
        }
        if path.is_file() {
            self.remember(sha256);
            return Ok(path);
        }
        let (status, bytes) = self
            .remote
            .call(
                Method::GET,
                &format!("/api/worker/agents/{sha256}"),
                None,
                MAX_AGENT_BYTES,
            )
            .await?;
        if status != 200 {
            return Err(format!("agent {sha256}: {status}: {}", error_text(&bytes)));
        }
        // Stored only if it is what was asked for: the cache is keyed by content.
        let stored = crate::store::agents::store_agent(&self.remote.agents, &bytes)
            .map_err(|e| format!("{}: {e}", self.remote.agents.display()))?;
        if stored != sha256 {
            return Err(format!(
                "agent {sha256}: the server sent a file whose hash is {stored}"
            ));
        }
        self.remember(sha256);
        Ok(path)
    }
}

#[cfg(test)]
mod tests;
