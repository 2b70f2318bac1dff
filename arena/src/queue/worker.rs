//! Workers: lease a ladder match, play its missing games in the sandbox, report them.
//!
//! One loop ([`run`]) serves both places a worker runs. Inside the server it talks to the
//! database directly ([`Local`]); on another machine (`croupier arena worker`) it talks to
//! the server over HTTP with a worker token ([`Remote`]), as Halite's and aiarena's workers
//! do, so a machine that plays matches never holds database credentials and works from
//! behind NAT. Both go through the same [`Queue`] calls, and the server accepts their games
//! through the same function ([`crate::queue::jobs::accept`]).
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
pub use crate::linked::Linked;
pub use crate::queue::{Job, JobEntrant};
use crate::store::db::games::Stored;
use croupier_host::adapters::Adapter;
use croupier_rules::Rules;
use croupier_tournament::runner::{self, Entrant, FaultPolicy, GameRecord, Plan, Schedule};
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub mod local;
mod play_thread;
use play_thread::{Pending, PlayThread, panic_text};
pub mod remote;
pub use crate::queue::{BATCH, MAX_GROUP, MAX_LEASES_AHEAD};

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
    /// The file of the agent with this content hash, fetched first if need be.
    fn agent_path(&self, sha256: &str) -> impl Future<Output = Result<PathBuf, String>> + Send;
    /// Gives back every job leased but not yet handed out by [`Queue::lease`], when the
    /// worker stops.
    fn drain(&self) -> impl Future<Output = ()> + Send {
        async {}
    }
    /// Why the queue will never hand this worker a job again (a server that no longer takes
    /// its token), if so: the loop stops.
    fn refused(&self) -> Option<String> {
        None
    }
    /// Whether [`Queue::lease`] holds jobs of an earlier batch, which it hands out without
    /// a call.
    fn has_spare(&self) -> bool {
        false
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
/// loop's play thread: see `PlayThread`), reporting them through `queue` as they finish;
/// [`finish`] reports the rest and ends the job. `agents` are the files of the job's
/// entrants, in order ([`Queue::agent_path`]).
pub fn play<G: Adapter, Q: Queue>(
    worker: &Worker,
    queue: &Arc<Q>,
    job: &Job,
    agents: &[PathBuf],
    handle: &tokio::runtime::Handle,
) -> Result<Tail, PlayError> {
    let platform = |reason: String| PlayError::Platform {
        id: job.match_id,
        reason,
    };
    let (_, opts) = croupier_tournament::matches::setup::options::<G>(&worker.cfg.rules_args())
        .map_err(|e| platform(format!("{e:#}")))?;
    if agents.len() != job.entrants.len() {
        return Err(platform(format!(
            "{} agent files for {} entrants",
            agents.len(),
            job.entrants.len()
        )));
    }
    let mut entrants = Vec::new();
    for (e, path) in job.entrants.iter().zip(agents) {
        let factory = worker
            .linked
            .factory::<G>(&e.sha256, path, &opts)
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
    let played = runner::run(&plan, &job.todo, &(), &mut sink);
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
            tracing::warn!("arena worker {name}: {e}");
            tokio::time::sleep(Duration::from_secs(1)).await;
            None
        }
    }
}

/// How a job handed to the play thread went.
enum Played {
    /// Played (or failed), and how long it took.
    Done(Result<Tail, PlayError>, Duration),
    /// Not started: the loop stopped before the play thread reached it.
    Skipped,
}

/// A group of leased jobs handed to the play thread, their heartbeats running.
struct Queued {
    jobs: Vec<(Job, tokio::task::JoinHandle<()>)>,
    /// Set when the loop stops: the play thread skips the jobs it has not started.
    cancel: Arc<AtomicBool>,
    /// One per job, in order.
    outcome: Pending<Vec<Played>>,
}

/// Why a leased job was not handed to the play thread; it was given back either way.
enum NotQueued {
    /// No job of the group had all its agents' files (logged).
    Agents,
    /// The play thread is gone: the loop ends.
    Gone,
}

/// `first`, and after short matches (`depth` above 1) the jobs the queue has ready without
/// a call, up to [`MAX_GROUP`]: the play thread takes them in one hand-off and the loop
/// hears once, when they are all played. Handed over one by one, each match's outcome woke
/// the loop, a fifth of the loop's time at 8-deal matches (`scripts/bench-arena.sh`, part 6).
async fn group<Q: Queue>(queue: &Arc<Q>, name: &str, first: Held, depth: usize) -> Vec<Held> {
    let mut group = vec![first];
    while depth > 1 && group.len() < MAX_GROUP && queue.has_spare() {
        match lease_one(queue.clone(), name.to_string(), true).await {
            Some(h) => group.push(h),
            None => break,
        }
    }
    group
}

/// Plays a group's jobs in order on this thread (the play thread), each with `play`: one
/// that panics fails alone, and once `cancel` is set the rest are skipped.
///
/// After a match that was not short the rest are skipped too, and so go back to the queue
/// for any worker: a group is formed after short matches, but a batch can mix them with
/// long ones (an ISMCTS agent's 100-game match takes seconds), and the loop hears of a
/// group only when it ends. Played through, one such group held a killed worker's match
/// and the final behind half a minute of others (`three_workers_one_killed`).
fn play_group(
    jobs: Vec<(Job, Vec<PathBuf>)>,
    cancel: &AtomicBool,
    play: impl Fn(&Job, &[PathBuf]) -> Result<Tail, PlayError>,
) -> Vec<Played> {
    let mut long = false;
    jobs.into_iter()
        .map(|(job, agents)| {
            if long || cancel.load(Ordering::Relaxed) {
                return Played::Skipped;
            }
            let started = std::time::Instant::now();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| play(&job, &agents)))
                .unwrap_or_else(|p| {
                    Err(PlayError::Platform {
                        id: job.match_id,
                        reason: panic_text(p.as_ref()),
                    })
                });
            let took = started.elapsed();
            // As the loop's depth: a failed match says nothing about the next ones' length.
            long = r.is_ok() && took >= SHORT_MATCH;
            Played::Done(r, took)
        })
        .collect()
}

/// Fetches the agents of a group of leased jobs if need be, then hands the group to the
/// play thread, which plays its jobs in order. A job whose agents cannot be had is given
/// back alone.
async fn queue_job<Q: Queue>(
    player: &PlayThread,
    worker: &Arc<Worker>,
    queue: &Arc<Q>,
    group: Vec<Held>,
) -> Result<Queued, NotQueued> {
    let refuse = async |held: Held, reason: String| {
        held.beat.abort();
        let e = PlayError::Platform {
            id: held.job.match_id,
            reason,
        };
        give_back(&**queue, &worker.name, &held.job, e).await;
    };
    let mut ready = Vec::with_capacity(group.len());
    'jobs: for held in group {
        let mut agents = Vec::with_capacity(held.job.entrants.len());
        for e in &held.job.entrants {
            match queue.agent_path(&e.sha256).await {
                Ok(p) => agents.push(p),
                Err(reason) => {
                    refuse(held, reason).await;
                    continue 'jobs;
                }
            }
        }
        ready.push((held, agents));
    }
    if ready.is_empty() {
        return Err(NotQueued::Agents);
    }
    let cancel = Arc::new(AtomicBool::new(false));
    let handle = tokio::runtime::Handle::current();
    let (held, agents): (Vec<Held>, Vec<Vec<PathBuf>>) = ready.into_iter().unzip();
    let play_them = {
        let (worker, queue, cancel) = (worker.clone(), queue.clone(), cancel.clone());
        let jobs: Vec<(Job, Vec<PathBuf>)> =
            held.iter().map(|h| h.job.clone()).zip(agents).collect();
        move || {
            play_group(
                jobs,
                &cancel,
                |job, agents| croupier_tournament::with_game!(worker.cfg.kind(), G => play::<G, Q>(&worker, &queue, job, agents, &handle)),
            )
        }
    };
    match player.submit(play_them) {
        Ok(outcome) => Ok(Queued {
            jobs: held.into_iter().map(|h| (h.job, h.beat)).collect(),
            cancel,
            outcome,
        }),
        Err(reason) => {
            for h in held {
                refuse(h, reason.clone()).await;
            }
            Err(NotQueued::Gone)
        }
    }
}

/// Leases and plays jobs until `stop` is set.
///
/// The play thread never waits for this loop between matches: while one group of matches
/// plays, the next leased one is already queued on the thread, so it starts the moment the
/// first ends. Handing each match over only after the previous one's outcome had come back
/// cost two thread wake-ups per match, about 0.1 ms, which was 4% of a 16-game ladder match.
/// After short matches a group is a lease batch (`group`), so the loop wakes once a batch
/// rather than once a match.
pub async fn run<Q: Queue>(
    worker: Arc<Worker>,
    queue: Arc<Q>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Result<(), Refused> {
    let name = worker.name.clone();
    // Matches that ended and are still being reported: awaited before the loop returns, so a
    // worker that is stopped reports what it played.
    let mut ending: Vec<tokio::task::JoinHandle<()>> = Vec::new();
    // The next jobs, being leased while the current one plays: with short matches the round
    // trip to the server (and its wait behind the previous match's report) otherwise left the
    // cores idle between matches. One lease ahead still left the play waiting for a quarter
    // of 16-game matches (a lease queued behind a report and the scheduler took longer than
    // the 4 ms match), and two still left a remote worker waiting once every 4-8 matches (a
    // lease answered behind the server's storing of reports), so after a short match three
    // are leased ahead. After a long one, one: a match leased ahead waits for those before
    // it, and a match whose worker died (or the final's, once the ladder is frozen) should
    // not wait behind long ones.
    let mut ahead: std::collections::VecDeque<tokio::task::JoinHandle<Option<Held>>> =
        std::collections::VecDeque::new();
    // Groups of jobs on the play thread, in the order it plays them: the one playing and at
    // most one waiting behind it.
    let mut queued: std::collections::VecDeque<Queued> = std::collections::VecDeque::new();
    let mut depth = 1;
    let player = match PlayThread::start(&name) {
        Ok(p) => p,
        Err(e) => {
            tracing::error!("arena worker {name}: cannot start its play thread: {e}");
            return Ok(());
        }
    };
    let mut refused = None;
    loop {
        if *stop.borrow() {
            break;
        }
        if let Some(why) = queue.refused() {
            refused = Some(Refused(why));
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
            let jobs = group(&queue, &name, held, depth).await;
            match queue_job(&player, &worker, &queue, jobs).await {
                Ok(q) => queued.push_back(q),
                Err(NotQueued::Agents) => {}
                Err(NotQueued::Gone) => break,
            }
            continue;
        }
        // A group waiting on the play thread counts as one lease ahead.
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
                    if let Some(held) = h.ok().flatten() {
                        let jobs = group(&queue, &name, held, depth).await;
                        if let Ok(q) = queue_job(&player, &worker, &queue, jobs).await {
                            queued.push_back(q);
                        }
                    }
                }
            }
        };
        if let Some(f) = feed {
            ahead.push_front(f);
        }
        ending.retain(|e| !e.is_finished());
        ending.extend(settle(&queue, &name, head, outcome, &mut depth).await);
    }
    // Jobs on the play thread that it has not started are skipped and given back; one it
    // has started is finished and reported.
    for q in &queued {
        q.cancel.store(true, Ordering::Relaxed);
    }
    for mut q in queued {
        let outcome = (&mut q.outcome).await;
        ending.extend(settle(&queue, &name, q, outcome, &mut depth).await);
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
    refused.map_or(Ok(()), Err)
}

/// The server no longer takes the worker's token, so the worker stopped.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

/// Deals with what the play thread said about a group of jobs: each played match is
/// reported (by a task, returned, while the next group plays), anything else is given back.
async fn settle<Q: Queue>(
    queue: &Arc<Q>,
    name: &str,
    q: Queued,
    outcome: Result<Result<Vec<Played>, String>, tokio::sync::oneshot::error::RecvError>,
    depth: &mut usize,
) -> Vec<tokio::task::JoinHandle<()>> {
    let Queued { jobs, .. } = q;
    let played: Vec<Result<Played, String>> = match outcome {
        Ok(Ok(played)) if played.len() == jobs.len() => played.into_iter().map(Ok).collect(),
        Ok(Ok(played)) => {
            let why = format!("{} outcomes for {} matches", played.len(), jobs.len());
            jobs.iter().map(|_| Err(why.clone())).collect()
        }
        Ok(Err(reason)) => jobs.iter().map(|_| Err(reason.clone())).collect(),
        Err(_) => jobs
            .iter()
            .map(|_| Err("the play thread is gone".to_string()))
            .collect(),
    };
    let mut ending = Vec::new();
    for ((job, beat), played) in jobs.into_iter().zip(played) {
        ending.extend(settle_one(queue, name, job, beat, played, depth).await);
    }
    ending
}

/// [`settle`] for one job of the group.
async fn settle_one<Q: Queue>(
    queue: &Arc<Q>,
    name: &str,
    job: Job,
    beat: tokio::task::JoinHandle<()>,
    outcome: Result<Played, String>,
    depth: &mut usize,
) -> Option<tokio::task::JoinHandle<()>> {
    let platform = |reason: String| {
        Some(PlayError::Platform {
            id: job.match_id,
            reason,
        })
    };
    // `Err(None)`: skipped, given back without a word; `Err(Some(e))`: failed, logged.
    let played = match outcome {
        Ok(Played::Done(r, took)) => {
            if r.is_ok() {
                *depth = if took < SHORT_MATCH {
                    MAX_LEASES_AHEAD
                } else {
                    1
                };
            }
            r.map_err(Some)
        }
        Ok(Played::Skipped) => Err(None),
        Err(reason) => Err(platform(reason)),
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
            tracing::warn!("arena worker {name}: match {id}: lease lost; another worker has it")
        }
        e => {
            tracing::warn!("arena worker {name}: {e}; the match goes back to the queue");
            queue.release(job).await;
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
}

#[cfg(test)]
mod tests;
