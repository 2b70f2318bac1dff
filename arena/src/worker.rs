//! Workers: lease a ladder match, play its missing games in the sandbox, report them.
//!
//! One loop ([`run`]) serves both places a worker runs. Inside the server it talks to the
//! database directly ([`Local`]); on another machine (`croupier arena worker`) it talks to
//! the server over HTTP with a worker token ([`Remote`]), as Halite's and aiarena's workers
//! do, so a machine that plays matches never holds database credentials and works from
//! behind NAT. Both go through the same [`Queue`] calls, and the server accepts their games
//! through the same function ([`crate::jobs::accept`]).
//!
//! A job is a match: the agents' content hashes, the seed, the deals and the games still
//! missing. Game `i` depends only on the seed and `i`, so a job that is lost (a worker killed,
//! cut off or too slow) is simply leased again when its lease expires and played from the
//! same seeds: the same games. A worker extends its lease while it plays; once the lease is
//! lost every report it makes is refused (409), so a late result is never counted twice.
//!
//! Threat model. A remote worker is a machine the organiser runs, with a token the organiser
//! made; its token opens only the worker API. It is trusted to run the sandbox honestly (the
//! server cannot tell a played game from an invented one without replaying it), but not to
//! be well-formed: the server checks every reported game against the match's schedule
//! (index, deal, seed, seating, seat count) and derives versions and teams itself, so a
//! buggy or stale worker cannot credit a result to the wrong agent. Agents travel by content
//! hash and are checked against it on arrival; each worker keeps its own compile cache.

use crate::config::ArenaConfig;
use crate::context::Arena;
use crate::db::Stored;
use crate::jobs::Report;
pub use crate::jobs::{Job, JobEntrant};
pub use crate::linked::Linked;
use croupier_host::adapters::Adapter;
use croupier_rules::Rules;
use croupier_tournament::runner::{self, Entrant, FaultPolicy, GameRecord, Plan, Schedule};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Games reported per call: one call per game would cost more than the game.
pub const BATCH: usize = 64;

/// Jobs a worker leases ahead of the one it plays after a short match (see [`run`]).
pub const MAX_LEASES_AHEAD: usize = 2;

/// A match played faster than this is short: the next lease's round trip (milliseconds when
/// the server is busy) is a real share of it.
pub const SHORT_MATCH: Duration = Duration::from_millis(100);

/// Why a job was not finished.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// The lease was lost (expired and taken by another worker): stop, report nothing more.
    #[error("match {0}: the lease was lost")]
    LeaseLost(i64),
    /// The platform failed (not an agent): the match goes back to the queue, unscored.
    #[error("match {id}: {reason}")]
    Platform {
        /// The match.
        id: i64,
        /// What failed.
        reason: String,
    },
}

/// Where a worker gets jobs, reports games and finds agents. Errors are text: they are
/// logged by the worker and the job goes back to the queue.
pub trait Queue: Send + Sync + 'static {
    /// The next job, or `None` when there is none yet (after waiting a little for one).
    /// `batch`: the loop is playing short matches, so a queue that pays per call may lease
    /// several and hand out the rest on the next calls. Never after a long match: a job kept
    /// aside waits for the ones before it (at the end of a final, while other workers idle).
    fn lease(&self, batch: bool) -> impl Future<Output = Result<Option<Job>, String>> + Send;
    /// Extends the job's lease; false once it is lost.
    fn heartbeat(&self, job: &Job) -> impl Future<Output = Result<bool, String>> + Send;
    /// Stores games of the job; with `done`, also ends it (all its games must be stored).
    fn report(
        &self,
        job: &Job,
        games: Vec<GameRecord>,
        done: bool,
    ) -> impl Future<Output = Result<Stored, String>> + Send;
    /// Gives the job back unscored (the platform failed).
    fn release(&self, job: &Job) -> impl Future<Output = ()> + Send;
    /// The file of the agent with this content hash, fetched first if need be (blocking:
    /// called from the thread that plays).
    fn agent_path(&self, sha256: &str) -> Result<PathBuf, String>;
    /// Gives back every job leased but not yet handed out by [`Queue::lease`], when the
    /// worker stops.
    fn drain(&self) -> impl Future<Output = ()> + Send {
        async {}
    }
}

/// What a worker plays with: the arena's config (game, rules, limits), its linked agents,
/// its threads and its name (in lease names and its log).
pub struct Worker {
    /// The arena's config, as the server has it.
    pub cfg: ArenaConfig,
    /// Linked agents (the server's worker shares the server's).
    pub linked: Arc<Linked>,
    /// Threads one match plays on.
    pub threads: usize,
    /// The worker's name.
    pub name: String,
}

/// What is left of a job once its games are played: the writer still reporting them, the
/// last games, and how the play ended. [`finish`] completes it, so that the worker can
/// lease the next job at once instead of waiting for the report.
pub struct Tail {
    /// `None` when the job had too few games to fill a batch.
    writer: Option<tokio::task::JoinHandle<Result<(), String>>>,
    last: Vec<GameRecord>,
    lost: Arc<AtomicBool>,
    played: Result<(), String>,
}

/// The schedule of a job.
pub fn schedule<G: croupier_rules::Game>(opts: &G::Options, job: &Job) -> Schedule {
    Schedule::new(job.entrants.len(), opts.seats(), job.deals, job.duplicate)
}

/// Plays the missing games of a job on this thread (a blocking call, made on the worker
/// loop's play thread: see [`PlayThread`]), reporting them through `queue` as they finish;
/// [`finish`] reports the rest and ends the job.
pub fn play<G: Adapter, Q: Queue>(
    worker: &Worker,
    queue: &Arc<Q>,
    job: &Job,
    handle: &tokio::runtime::Handle,
) -> Result<Tail, PlayError> {
    let platform = |reason: String| PlayError::Platform {
        id: job.match_id,
        reason,
    };
    let (_, opts) = croupier_tournament::matches::options::<G>(&worker.cfg.rules_args())
        .map_err(|e| platform(format!("{e:#}")))?;
    let mut entrants = Vec::new();
    for e in &job.entrants {
        let path = queue.agent_path(&e.sha256).map_err(&platform)?;
        let factory = worker
            .linked
            .factory::<G>(&e.sha256, &path, &opts)
            .map_err(&platform)?;
        entrants.push(Entrant {
            name: format!("v{}", e.version),
            args: String::new(),
            factory,
        });
    }
    let schedule = schedule::<G>(&opts, job);
    let plan = Plan {
        options: &opts,
        entrants: &entrants,
        schedule: &schedule,
        seed: job.seed,
        policy: FaultPolicy::Forfeit,
        threads: worker.threads,
    };
    // Games are reported by a writer task while the next ones play: the report's time
    // overlaps the sandbox's instead of adding to it. A job with fewer games than a batch
    // (a 16-game ladder match) has nothing for it to do, and starting it and closing its
    // channel woke the runtime twice a match.
    let lost = Arc::new(AtomicBool::new(false));
    let (tx, writer) = if job.todo.len() < BATCH {
        (None, None)
    } else {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<Vec<GameRecord>>(4);
        let (queue, job, lost) = (queue.clone(), job.clone(), lost.clone());
        let writer = handle.spawn(async move {
            while let Some(batch) = rx.recv().await {
                if queue.report(&job, batch, false).await? == Stored::LeaseLost {
                    lost.store(true, Ordering::Relaxed);
                    break;
                }
            }
            Ok::<(), String>(())
        });
        (Some(tx), Some(writer))
    };
    let mut batch: Vec<GameRecord> = Vec::new();
    let mut sink = |rec: GameRecord| -> anyhow::Result<()> {
        if lost.load(Ordering::Relaxed) {
            anyhow::bail!("lease lost");
        }
        batch.push(rec);
        if batch.len() >= BATCH {
            let Some(tx) = &tx else {
                anyhow::bail!("a batch of games with no writer");
            };
            if tx.blocking_send(std::mem::take(&mut batch)).is_err() {
                anyhow::bail!("the writer stopped");
            }
        }
        Ok(())
    };
    let played = runner::run::<G>(&plan, &job.todo, &(), &mut sink);
    drop(tx);
    Ok(Tail {
        writer,
        last: batch,
        lost,
        played: played.map(drop).map_err(|e| format!("{e:#}")),
    })
}

/// Waits for a job's writer, then reports its last games and ends it.
pub async fn finish<Q: Queue>(queue: &Q, job: &Job, tail: Tail) -> Result<(), PlayError> {
    let id = job.match_id;
    let platform = |reason: String| PlayError::Platform { id, reason };
    let written = match tail.writer {
        Some(w) => w.await.map_err(|e| platform(format!("the writer: {e}")))?,
        None => Ok(()),
    };
    if tail.lost.load(Ordering::Relaxed) {
        return Err(PlayError::LeaseLost(id));
    }
    written.map_err(&platform)?;
    tail.played.map_err(&platform)?;
    match queue.report(job, tail.last, true).await {
        Ok(Stored::Ok) => Ok(()),
        Ok(Stored::LeaseLost) => Err(PlayError::LeaseLost(id)),
        Ok(Stored::Incomplete { stored, expected }) => Err(platform(format!(
            "the match is not complete: {stored} of {expected} games stored"
        ))),
        Err(e) => Err(platform(e)),
    }
}

/// A leased job with its heartbeat running.
struct Held {
    job: Job,
    beat: tokio::task::JoinHandle<()>,
}

/// One lease attempt: a job with its heartbeat started, or `None` (none yet, or an error,
/// logged, after a pause).
async fn lease_one<Q: Queue>(queue: Arc<Q>, name: String, batch: bool) -> Option<Held> {
    match queue.lease(batch).await {
        Ok(Some(job)) => {
            let beat = {
                let (queue, job) = (queue.clone(), job.clone());
                tokio::spawn(async move {
                    let every = Duration::from_millis(job.lease_ms / 3);
                    loop {
                        tokio::time::sleep(every).await;
                        if !matches!(queue.heartbeat(&job).await, Ok(true)) {
                            return;
                        }
                    }
                })
            };
            Some(Held { job, beat })
        }
        Ok(None) => None,
        Err(e) => {
            eprintln!("arena worker {name}: {e}");
            tokio::time::sleep(Duration::from_secs(1)).await;
            None
        }
    }
}

/// A job for [`PlayThread`].
type PlayJob = Box<dyn FnOnce() + Send>;

/// The one thread that plays every match of a worker loop, for as long as the loop runs.
///
/// Matches used to run on `spawn_blocking`, which hands each to whichever of tokio's blocking
/// threads is free; the reports' HTTP calls use that pool too, so consecutive matches moved
/// between half a dozen threads, each with its own cold allocator heap and caches, and every
/// one of them woke several hundred times a second. Measured with a worker alone on a core
/// (`scripts/bench-arena.sh`, part 6): a tenth more CPU per game than `croupier match`, most
/// of it in the kernel switching threads.
struct PlayThread {
    jobs: std::sync::mpsc::Sender<PlayJob>,
}

impl PlayThread {
    fn start(name: &str) -> std::io::Result<PlayThread> {
        let (jobs, rx) = std::sync::mpsc::channel::<PlayJob>();
        std::thread::Builder::new()
            .name(format!("play-{name}"))
            // Ends when the loop drops its sender.
            .spawn(move || {
                while let Ok(job) = rx.recv() {
                    job();
                }
            })?;
        Ok(PlayThread { jobs })
    }

    /// Queues `f` on the play thread, behind the jobs already there; its outcome comes on
    /// the receiver, `Err` (with why) if it panicked or the thread is gone.
    fn submit<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<Outcome<T>, String> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: PlayJob = Box::new(move || {
            // A panic is a platform failure of this match only; the thread plays on.
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
                .map_err(|p| panic_text(p.as_ref()));
            let _ = tx.send(r);
        });
        self.jobs
            .send(job)
            .map_err(|_| "the play thread is gone".to_string())?;
        Ok(rx)
    }
}

/// What the play thread will say about a job it was given.
type Outcome<T> = tokio::sync::oneshot::Receiver<Result<T, String>>;

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    let what = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into());
    format!("the match panicked: {what}")
}

/// How a job handed to the play thread went.
enum Played {
    /// Played (or failed), and how long it took.
    Done(Result<Tail, PlayError>, Duration),
    /// Not started: the loop stopped before the play thread reached it.
    Skipped,
}

/// A leased job handed to the play thread, its heartbeat running.
struct Queued {
    job: Job,
    beat: tokio::task::JoinHandle<()>,
    /// Set when the loop stops: the play thread skips the job if it has not started it.
    cancel: Arc<AtomicBool>,
    outcome: Outcome<Played>,
}

/// Hands a leased job to the play thread; `None` if the thread is gone (the job is given
/// back).
async fn queue_job<Q: Queue>(
    player: &PlayThread,
    worker: &Arc<Worker>,
    queue: &Arc<Q>,
    held: Held,
) -> Option<Queued> {
    let cancel = Arc::new(AtomicBool::new(false));
    let handle = tokio::runtime::Handle::current();
    let play_it = {
        let (worker, queue, job, cancel) = (
            worker.clone(),
            queue.clone(),
            held.job.clone(),
            cancel.clone(),
        );
        move || {
            if cancel.load(Ordering::Relaxed) {
                return Played::Skipped;
            }
            let started = std::time::Instant::now();
            let r = croupier_tournament::with_game!(worker.cfg.kind(), G => play::<G, Q>(&worker, &queue, &job, &handle));
            Played::Done(r, started.elapsed())
        }
    };
    match player.submit(play_it) {
        Ok(outcome) => Some(Queued {
            job: held.job,
            beat: held.beat,
            cancel,
            outcome,
        }),
        Err(reason) => {
            held.beat.abort();
            let e = PlayError::Platform {
                id: held.job.match_id,
                reason,
            };
            give_back(&**queue, &worker.name, &held.job, e).await;
            None
        }
    }
}

/// Leases and plays jobs until `stop` is set.
///
/// The play thread never waits for this loop between matches: while one match plays, the
/// next leased one is already queued on the thread, so it starts the moment the first ends.
/// Handing each match over only after the previous one's outcome had come back cost two
/// thread wake-ups per match, about 0.1 ms, which was 4% of a 16-game ladder match.
pub async fn run<Q: Queue>(
    worker: Arc<Worker>,
    queue: Arc<Q>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let name = worker.name.clone();
    // Matches that ended and are still being reported: awaited before the loop returns, so a
    // worker that is stopped reports what it played.
    let mut ending: Vec<tokio::task::JoinHandle<()>> = Vec::new();
    // The next jobs, being leased while the current one plays: with short matches the round
    // trip to the server (and its wait behind the previous match's report) otherwise left the
    // cores idle between matches. One lease ahead still left the play waiting for a quarter
    // of 16-game matches (a lease queued behind a report and the scheduler took longer than
    // the 4 ms match), so after a short match two are leased ahead. After a long one, one:
    // a match leased ahead waits for those before it, and a match whose worker died (or the
    // final's, once the ladder is frozen) should not wait behind two long ones.
    let mut ahead: std::collections::VecDeque<tokio::task::JoinHandle<Option<Held>>> =
        std::collections::VecDeque::new();
    // Jobs on the play thread, in the order it plays them: the one playing and at most one
    // waiting behind it.
    let mut queued: std::collections::VecDeque<Queued> = std::collections::VecDeque::new();
    let mut depth = 1;
    let player = match PlayThread::start(&name) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("arena worker {name}: cannot start its play thread: {e}");
            return;
        }
    };
    loop {
        if *stop.borrow() {
            break;
        }
        if queued.is_empty() {
            // Nothing to play: wait for a lease (or the stop).
            if ahead.is_empty() {
                ahead.push_back(tokio::spawn(lease_one(
                    queue.clone(),
                    name.clone(),
                    depth > 1,
                )));
            }
            let Some(mut next) = ahead.pop_front() else {
                break;
            };
            let held = tokio::select! {
                h = &mut next => h.ok().flatten(),
                _ = stop.changed() => {
                    ahead.push_front(next);
                    break;
                }
            };
            let Some(held) = held else {
                continue;
            };
            match queue_job(&player, &worker, &queue, held).await {
                Some(q) => queued.push_back(q),
                None => break,
            }
            continue;
        }
        // A job waiting on the play thread counts as one leased ahead.
        while ahead.len() + queued.len() - 1 < depth {
            ahead.push_back(tokio::spawn(lease_one(
                queue.clone(),
                name.clone(),
                depth > 1,
            )));
        }
        let Some(mut head) = queued.pop_front() else {
            continue;
        };
        // While the head plays, the next lease to arrive goes straight to the play thread.
        let mut feed = if queued.is_empty() {
            ahead.pop_front()
        } else {
            None
        };
        let outcome = loop {
            tokio::select! {
                o = &mut head.outcome => break o,
                h = async {
                    match feed.as_mut() {
                        Some(f) => f.await,
                        None => std::future::pending().await,
                    }
                }, if feed.is_some() => {
                    feed = None;
                    if let Some(held) = h.ok().flatten()
                        && let Some(q) = queue_job(&player, &worker, &queue, held).await
                    {
                        queued.push_back(q);
                    }
                }
            }
        };
        if let Some(f) = feed {
            ahead.push_front(f);
        }
        if let Some(e) = settle(&queue, &name, head, outcome, &mut depth).await {
            ending.retain(|e| !e.is_finished());
            ending.push(e);
        }
    }
    // Jobs on the play thread that it has not started are skipped and given back; one it
    // has started is finished and reported.
    for q in &queued {
        q.cancel.store(true, Ordering::Relaxed);
    }
    for mut q in queued {
        let outcome = (&mut q.outcome).await;
        if let Some(e) = settle(&queue, &name, q, outcome, &mut depth).await {
            ending.push(e);
        }
    }
    // Jobs leased ahead go back at once rather than waiting for their leases to run out.
    for a in ahead {
        if let Ok(Some(h)) = a.await {
            h.beat.abort();
            queue.release(&h.job).await;
        }
    }
    queue.drain().await;
    for e in ending {
        let _ = e.await;
    }
}

/// Deals with what the play thread said about a job: a played match is reported (by a task,
/// returned, while the next one plays), anything else is given back.
async fn settle<Q: Queue>(
    queue: &Arc<Q>,
    name: &str,
    q: Queued,
    outcome: Result<Result<Played, String>, tokio::sync::oneshot::error::RecvError>,
    depth: &mut usize,
) -> Option<tokio::task::JoinHandle<()>> {
    let Queued { job, beat, .. } = q;
    let platform = |reason: String| {
        Some(PlayError::Platform {
            id: job.match_id,
            reason,
        })
    };
    // `Err(None)`: skipped, given back without a word; `Err(Some(e))`: failed, logged.
    let played = match outcome {
        Ok(Ok(Played::Done(r, took))) => {
            if r.is_ok() {
                *depth = if took < SHORT_MATCH {
                    MAX_LEASES_AHEAD
                } else {
                    1
                };
            }
            r.map_err(Some)
        }
        Ok(Ok(Played::Skipped)) => Err(None),
        Ok(Err(reason)) => Err(platform(reason)),
        Err(_) => Err(platform("the play thread is gone".into())),
    };
    let tail = match played {
        Ok(tail) => tail,
        Err(why) => {
            beat.abort();
            match why {
                Some(e) => give_back(&**queue, name, &job, e).await,
                None => queue.release(&job).await,
            }
            return None;
        }
    };
    // The job's end is reported while the next job plays: the worker's cores never wait for
    // the server between matches.
    let (queue, name) = (queue.clone(), name.to_string());
    Some(tokio::spawn(async move {
        let done = finish(&*queue, &job, tail).await;
        beat.abort();
        if let Err(e) = done {
            give_back(&*queue, &name, &job, e).await;
        }
    }))
}

/// Logs why a job was not finished, and gives it back to the queue unless another worker
/// holds it now.
async fn give_back<Q: Queue>(queue: &Q, name: &str, job: &Job, e: PlayError) {
    match e {
        PlayError::LeaseLost(id) => {
            eprintln!("arena worker {name}: match {id}: lease lost; another worker has it")
        }
        e => {
            eprintln!("arena worker {name}: {e}; the match goes back to the queue");
            queue.release(job).await;
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
}

/// The worker inside the server: straight on the database.
pub struct Local {
    /// The arena.
    pub arena: Arc<Arena>,
    /// The worker's name, in its lease names.
    pub name: String,
}

impl Queue for Local {
    /// One job at a time whatever `batch` says: a lease here is a database call, not a
    /// round trip.
    async fn lease(&self, _batch: bool) -> Result<Option<Job>, String> {
        let job = crate::jobs::lease(&self.arena, &self.name)
            .await
            .map_err(|e| e.to_string())?;
        if job.is_none() {
            // Woken as soon as the scheduler queues a match.
            tokio::select! {
                _ = self.arena.changed.notified() => {}
                _ = tokio::time::sleep(Duration::from_millis(200)) => {}
            }
        }
        Ok(job)
    }

    async fn heartbeat(&self, job: &Job) -> Result<bool, String> {
        crate::jobs::heartbeat(&self.arena, job.match_id, &job.lease)
            .await
            .map_err(|e| e.to_string())
    }

    async fn report(
        &self,
        job: &Job,
        games: Vec<GameRecord>,
        done: bool,
    ) -> Result<Stored, String> {
        let info = crate::jobs::MatchInfo::of_job(job);
        crate::jobs::accept(&self.arena, &info, &job.lease, &games, done)
            .await
            .map_err(|e| e.to_string())
    }

    async fn release(&self, job: &Job) {
        let _ = self.arena.db.release(job.match_id, &job.lease).await;
    }

    fn agent_path(&self, sha256: &str) -> Result<PathBuf, String> {
        Ok(self.arena.agent_path(sha256))
    }
}

/// A worker on another machine: the server's worker API over HTTP.
pub struct Remote {
    server: String,
    token: String,
    http: ureq::Agent,
    agents: PathBuf,
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
}

/// The content type of every worker call's body but a report's.
const JSON: &str = "application/json";

/// The largest agent a worker downloads: the loader refuses larger files anyway.
const MAX_AGENT_BYTES: u64 = 256 << 20;

impl Remote {
    /// A client of the server at `server` (e.g. `http://10.0.0.5:8080`) with a worker token,
    /// keeping fetched agents in `cache/agents`.
    pub fn new(server: &str, token: &str, cache: &Path) -> Result<Remote, RemoteError> {
        let agents = cache.join("agents");
        std::fs::create_dir_all(&agents).map_err(|e| RemoteError::Cache {
            path: agents.clone(),
            reason: e.to_string(),
        })?;
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // Long enough for the server's long poll and a large report; short enough that
            // a server that vanished is noticed.
            .timeout_global(Some(Duration::from_secs(120)))
            .build();
        let http = ureq::Agent::with_parts(
            config,
            ureq::unversioned::transport::DefaultConnector::default(),
            CachedResolver::new(ureq::unversioned::resolver::DefaultResolver::default()),
        );
        Ok(Remote {
            server: server.trim_end_matches('/').to_string(),
            token: token.to_string(),
            http,
            agents,
        })
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server)
    }

    /// A blocking call: `(status, body)`.
    fn call(
        &self,
        path: &str,
        body: Option<(&[u8], &str)>,
        limit: u64,
    ) -> Result<(u16, Vec<u8>), String> {
        let url = self.url(path);
        let auth = format!("Bearer {}", self.token);
        let resp = match body {
            Some((b, content_type)) => self
                .http
                .post(&url)
                .header("Authorization", &auth)
                .header("Content-Type", content_type)
                .send(b),
            None => self.http.get(&url).header("Authorization", &auth).call(),
        };
        let mut resp = resp.map_err(|e| format!("{url}: {e}"))?;
        let status = resp.status().as_u16();
        let bytes = resp
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|e| format!("{url}: {e}"))?;
        Ok((status, bytes))
    }

    /// A call from async code, on a blocking thread. The body is shared, not moved, so that
    /// a refused report can be sent again in another form without a copy on every call.
    async fn call_async(
        self: &Arc<Self>,
        path: &'static str,
        body: impl Into<axum::body::Bytes>,
        content_type: &'static str,
    ) -> Result<(u16, Vec<u8>), String> {
        // `Bytes` from a `Vec` takes its buffer, and a clone shares it.
        let body: axum::body::Bytes = body.into();
        let me = self.clone();
        tokio::task::spawn_blocking(move || me.call(path, Some((&body, content_type)), 1 << 20))
            .await
            .map_err(|e| e.to_string())?
    }

    /// The arena's config, from the server: what every game is played under.
    pub fn config(&self) -> Result<ArenaConfig, RemoteError> {
        let url = self.url("/api/worker/config");
        let server = |reason: String| RemoteError::Server {
            url: url.clone(),
            reason,
        };
        let (status, body) = self
            .call("/api/worker/config", None, 1 << 20)
            .map_err(&server)?;
        if status != 200 {
            return Err(server(format!("{status}: {}", error_text(&body))));
        }
        serde_json::from_slice(&body).map_err(|e| server(format!("not an arena config: {e}")))
    }
}

/// The server's address, looked up once a minute instead of on every call.
///
/// ureq resolves the host before every request, pooled connection or not, and with a
/// timeout set it does so on a thread of its own: a remote worker started and ended about
/// 70 threads a second, 2% of its core (`scripts/bench-arena.sh`, part 6), and a worker
/// given a host name would ask DNS as often. A minute still follows a server that moves.
#[derive(Debug)]
struct CachedResolver<R = ureq::unversioned::resolver::DefaultResolver> {
    inner: R,
    ttl: Duration,
    last: std::sync::Mutex<Option<Resolved>>,
}

#[derive(Debug)]
struct Resolved {
    authority: ureq::http::uri::Authority,
    at: std::time::Instant,
    addrs: ureq::unversioned::resolver::ResolvedSocketAddrs,
}

impl<R> CachedResolver<R> {
    fn new(inner: R) -> CachedResolver<R> {
        CachedResolver {
            inner,
            ttl: Duration::from_secs(60),
            last: std::sync::Mutex::new(None),
        }
    }
}

impl<R: ureq::unversioned::resolver::Resolver> ureq::unversioned::resolver::Resolver
    for CachedResolver<R>
{
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: ureq::unversioned::transport::NextTimeout,
    ) -> Result<ureq::unversioned::resolver::ResolvedSocketAddrs, ureq::Error> {
        let fresh =
            |r: &Resolved| Some(&r.authority) == uri.authority() && r.at.elapsed() < self.ttl;
        // A poisoned lock only means a lookup panicked: look up again.
        if let Ok(last) = self.last.lock()
            && let Some(r) = last.as_ref().filter(|r| fresh(r))
        {
            return Ok(r.addrs.clone());
        }
        let addrs = self.inner.resolve(uri, config, timeout)?;
        if let (Ok(mut last), Some(a)) = (self.last.lock(), uri.authority()) {
            *last = Some(Resolved {
                authority: a.clone(),
                at: std::time::Instant::now(),
                addrs: addrs.clone(),
            });
        }
        Ok(addrs)
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

/// Finished matches whose last reports a remote worker sends together (four 16-game ladder
/// matches: one call per four instead of one each).
pub const HELD: usize = 4;

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

/// Wraps a `Remote` so that the `Queue` calls can clone it into blocking tasks, keeps the
/// jobs a batched lease brought that the loop has not asked for yet, and holds finished
/// matches' last reports to send several in one call.
///
/// Why hold reports: with 16-game ladder matches a remote worker made a report call per
/// match, and those calls (each a hop to a blocking thread and back, plus the request
/// itself) were the largest part of what it spent off its play thread. When matches end
/// less than [`HOLD`] apart, a finished match's report waits, at most [`HOLD`], for company
/// ([`HELD`] reports, or enough games that one more report could pass
/// [`crate::worker_api::MAX_GAMES_PER_CALL`]) or for the worker to stop, and they go out in
/// one call of `POST /api/worker/reports`. A long match's report, and those made while a
/// match plays (every [`BATCH`] games), go out at once.
///
/// Reports do not ride along with the next lease call: the server stores them and catches
/// the ratings up before it answers, and a lease answer that waited for that left the play
/// thread idle for a third of the time at 8 deals a match (`scripts/bench-arena.sh`,
/// part 6). A worker killed while holding reports loses nothing the server counts: their
/// matches are leased again when the leases expire and replayed from their seeds.
pub struct RemoteQueue {
    remote: Arc<Remote>,
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
}

impl RemoteQueue {
    /// A queue on the server `remote` talks to.
    pub fn new(remote: Remote) -> RemoteQueue {
        RemoteQueue {
            remote: Arc::new(remote),
            spare: Default::default(),
            json_reports: AtomicBool::new(false),
            pending: Default::default(),
            alone: AtomicBool::new(false),
            last_done: Default::default(),
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
                    || (chunk.len() < crate::worker_api::MAX_REPORTS_PER_CALL
                        && games + p.report.games.len() <= crate::worker_api::MAX_GAMES_PER_CALL)
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
        let body: axum::body::Bytes =
            match crate::report_wire::encode_reports(crate::jobs::Reports { reports }) {
                Ok(b) => b.into(),
                Err(e) => return refuse_all(answers, &e.to_string()),
            };
        let sent = self
            .remote
            .call_async(
                "/api/worker/reports",
                body.clone(),
                crate::report_wire::REPORTS_CONTENT_TYPE,
            )
            .await;
        let answered = match sent {
            Ok((200, body)) => serde_json::from_slice::<crate::jobs::Outcomes>(&body)
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
                eprintln!(
                    "arena worker: the server takes one report per call (an older croupier); reporting each match alone"
                );
                self.alone.store(true, Ordering::Relaxed);
                match crate::report_wire::decode_reports(&body) {
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
                        crate::jobs::Outcome::Stored(s) => Ok(s),
                        crate::jobs::Outcome::Refused(why) => Err(format!("report: {why}")),
                    });
                }
            }
            Err(e) => refuse_all(answers, &e),
        }
    }

    async fn report_json(&self, report: &Report) -> Result<(u16, Vec<u8>), String> {
        let json = serde_json::to_vec(report).map_err(|e| e.to_string())?;
        self.remote
            .call_async("/api/worker/report", json, JSON)
            .await
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
            let binary: axum::body::Bytes = crate::report_wire::encode(report)
                .map_err(|e| e.to_string())?
                .into();
            let (status, answer) = self
                .remote
                .call_async(
                    "/api/worker/report",
                    binary.clone(),
                    crate::report_wire::CONTENT_TYPE,
                )
                .await?;
            if status == 415 {
                // A server older than the binary form: JSON from now on.
                eprintln!(
                    "arena worker: the server does not read binary reports (an older croupier); reporting in JSON"
                );
                self.json_reports.store(true, Ordering::Relaxed);
                let report = crate::report_wire::decode(&binary).map_err(|e| e.to_string())?;
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
    /// asked for [`crate::worker_api::MAX_LEASE_BATCH`] at once: with 16-game matches a lease
    /// call per match was a good part of what a remote worker spent besides playing. A spare
    /// gets no heartbeat until the loop takes it, so one kept past a third of its lease is
    /// beaten first, and dropped if it was lost (the server hands it to another worker).
    async fn lease(&self, batch: bool) -> Result<Option<Job>, String> {
        while let Some((job, at)) = self.spare() {
            if at.elapsed() < Duration::from_millis(job.lease_ms / 3)
                || self.heartbeat(&job).await == Ok(true)
            {
                return Ok(Some(job));
            }
        }
        let max = if batch {
            crate::worker_api::MAX_LEASE_BATCH
        } else {
            1
        };
        let ask = format!("{{\"max\": {max}}}");
        let (status, body) = self
            .remote
            .call_async("/api/worker/lease", ask.into_bytes(), JSON)
            .await?;
        match status {
            200 => {
                // One job, not a batch, from a server older than batches.
                let jobs = match serde_json::from_slice::<crate::jobs::Leased>(&body) {
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

    async fn drain(&self) {
        self.flush().await;
        while let Some((job, _)) = self.spare() {
            self.release(&job).await;
        }
    }

    async fn heartbeat(&self, job: &Job) -> Result<bool, String> {
        let body = serde_json::to_vec(&job.lease_ref()).map_err(|e| e.to_string())?;
        let (status, body) = self
            .remote
            .call_async("/api/worker/heartbeat", body, JSON)
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
            pending.len() >= HELD || games + BATCH > crate::worker_api::MAX_GAMES_PER_CALL
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
            let _ = self
                .remote
                .call_async("/api/worker/release", body, JSON)
                .await;
        }
    }

    fn agent_path(&self, sha256: &str) -> Result<PathBuf, String> {
        if !crate::agents::is_sha256(sha256) {
            return Err(format!("`{sha256}` is not a content hash"));
        }
        let path = self.remote.agents.join(format!("{sha256}.wasm"));
        if path.is_file() {
            return Ok(path);
        }
        let (status, bytes) = self.remote.call(
            &format!("/api/worker/agents/{sha256}"),
            None,
            MAX_AGENT_BYTES,
        )?;
        if status != 200 {
            return Err(format!("agent {sha256}: {status}: {}", error_text(&bytes)));
        }
        // Stored only if it is what was asked for: the cache is keyed by content.
        let stored = crate::agents::store_agent(&self.remote.agents, &bytes)
            .map_err(|e| format!("{}: {e}", self.remote.agents.display()))?;
        if stored != sha256 {
            return Err(format!(
                "agent {sha256}: the server sent a file whose hash is {stored}"
            ));
        }
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts lookups, answering 127.0.0.1 with the URI's port.
    #[derive(Debug, Default)]
    struct Counting(std::sync::atomic::AtomicUsize);

    impl ureq::unversioned::resolver::Resolver for Counting {
        fn resolve(
            &self,
            uri: &ureq::http::Uri,
            _: &ureq::config::Config,
            _: ureq::unversioned::transport::NextTimeout,
        ) -> Result<ureq::unversioned::resolver::ResolvedSocketAddrs, ureq::Error> {
            self.0.fetch_add(1, Ordering::Relaxed);
            let mut addrs = self.empty();
            let port = uri.port_u16().unwrap_or(80);
            addrs.push(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
            Ok(addrs)
        }
    }

    /// Regression: ureq looked the server up before every call, on a thread it started for
    /// the purpose (70 threads a second on a busy worker). Within the cache's time a server
    /// is looked up once; another server, or the same one after the time, again.
    #[test]
    fn the_server_is_looked_up_once_not_on_every_call() {
        use ureq::unversioned::resolver::Resolver;
        let config = ureq::config::Config::default();
        let timeout = ureq::unversioned::transport::NextTimeout::default;
        let a: ureq::http::Uri = "http://127.0.0.1:8080/api/worker/lease"
            .parse()
            .expect("uri");
        let b: ureq::http::Uri = "http://127.0.0.1:9090/api/worker/lease"
            .parse()
            .expect("uri");
        let cached = CachedResolver::new(Counting::default());
        for _ in 0..50 {
            let addrs = cached.resolve(&a, &config, timeout()).expect("resolves");
            assert_eq!(addrs[0].port(), 8080);
        }
        assert_eq!(cached.inner.0.load(Ordering::Relaxed), 1);
        let addrs = cached.resolve(&b, &config, timeout()).expect("resolves");
        assert_eq!(
            addrs[0].port(),
            9090,
            "another server is not answered from the cache"
        );
        assert_eq!(cached.inner.0.load(Ordering::Relaxed), 2);
        let stale = CachedResolver {
            ttl: Duration::ZERO,
            ..CachedResolver::new(Counting::default())
        };
        stale.resolve(&a, &config, timeout()).expect("resolves");
        stale.resolve(&a, &config, timeout()).expect("resolves");
        assert_eq!(
            stale.inner.0.load(Ordering::Relaxed),
            2,
            "an old answer is looked up again"
        );
    }

    /// Regression: consecutive matches ran on whichever blocking thread tokio had free, each
    /// with a cold heap. Every match of a loop now plays on one thread, and a match that
    /// panics fails alone: the next one still plays, on the same thread.
    #[tokio::test]
    async fn every_match_of_a_loop_plays_on_one_thread_and_a_panic_fails_only_its_match() {
        let player = PlayThread::start("test").expect("play thread");
        let first = player
            .submit(|| std::thread::current().id())
            .expect("queued")
            .await
            .expect("answered")
            .expect("first");
        let panicked = player
            .submit(|| -> u32 { panic!("an agent broke the host") })
            .expect("queued")
            .await
            .expect("answered");
        assert!(
            panicked
                .as_ref()
                .is_err_and(|e| e.contains("an agent broke the host")),
            "{panicked:?}"
        );
        let after = player
            .submit(|| std::thread::current().id())
            .expect("queued")
            .await
            .expect("answered")
            .expect("after the panic");
        assert_eq!(first, after);
        assert_ne!(first, std::thread::current().id());
    }

    /// Regression: the play thread idled between matches while the loop, woken by the
    /// previous match's outcome, handed it the next one (0.1 ms a match). A job queued behind
    /// a playing one now starts when that one ends, with nobody awaiting the first.
    #[tokio::test]
    async fn a_queued_match_starts_when_the_one_before_it_ends() {
        let player = PlayThread::start("test").expect("play thread");
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let first = player.submit(move || wait.recv().is_ok()).expect("queued");
        let second = player.submit(|| 2).expect("queued");
        go.send(()).expect("first is waiting");
        // Only the second's outcome is awaited: the first's receiver is never polled.
        assert_eq!(second.await.expect("answered"), Ok(2));
        drop(first);
    }
}
