//! The ladder: matchmaking queues matches, workers lease and play them.
//!
//! Matchmaking (Halite's and aiarena's pattern): the version with the fewest games (then
//! the widest σ) seeds the next match. A version still in placement meets opponents spread
//! over the whole table; after that, opponents near its rating, chosen at random within a
//! small window and avoiding its previous opponent, so pairings vary.
//!
//! A match is (versions, seed, deals). Workers lease it with an expiry they keep extending
//! while they play, store each game as it finishes (once, keyed by match and game index),
//! and mark the match done in the transaction that stores its last games. A worker that
//! dies stops extending its lease; the match returns to the queue and the next worker plays
//! only the games that are missing, from the same seeds, so the results are the same. If
//! the host fails (no instance slot, no memory), the match is given back unscored: a
//! failure of the platform never counts against an agent.

use crate::context::Arena;
use crate::db::{MatchRow, NewGame, NewSeat, Stored};
use croupier_host::adapters::Adapter;
use croupier_rules::{Game, GameRng, Rules, SeatResult};
use croupier_tournament::runner::{self, Entrant, FaultPolicy, GameRecord, Plan, Schedule};
use std::sync::Arc;
use std::time::Duration;

/// How long a lease lasts without a heartbeat. A worker extends it every third of this, so
/// a dead worker's match is back in the queue within this time.
pub const LEASE: Duration = Duration::from_secs(30);

/// Games stored per transaction: one transaction per game would cost more than the game.
const BATCH: usize = 64;

/// Why a leased match was not finished.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// The lease was lost (expired and taken by another worker): stop, store nothing more.
    #[error("match {0}: the lease was lost")]
    LeaseLost(i64),
    /// The platform failed; the match goes back to the queue.
    #[error("match {id}: {reason}")]
    Platform {
        /// The match.
        id: i64,
        /// What failed.
        reason: String,
    },
}

/// The result per seat, as stored.
fn result_name(r: SeatResult) -> &'static str {
    match r {
        SeatResult::Win => "win",
        SeatResult::Draw => "draw",
        SeatResult::Loss => "loss",
    }
}

/// A finished game as rows: the record without logs, the logs apart (they are private),
/// and one row per seat with its dense place (0 best: wins, then draws, then losses).
pub fn to_new_game(rec: &GameRecord, versions: &[i64], teams: &[i64]) -> NewGame {
    let order = |r: SeatResult| match r {
        SeatResult::Win => 0,
        SeatResult::Draw => 1,
        SeatResult::Loss => 2,
    };
    let mut classes: Vec<i64> = rec.results.iter().map(|r| order(*r)).collect();
    classes.sort_unstable();
    classes.dedup();
    let seats = rec
        .results
        .iter()
        .enumerate()
        .map(|(s, r)| {
            let entrant = rec.seats.get(s).copied().unwrap_or(0);
            NewSeat {
                seat: s as i64,
                version_id: versions.get(entrant).copied().unwrap_or(0),
                team_id: teams.get(entrant).copied().unwrap_or(0),
                result: result_name(*r),
                place: classes.iter().position(|c| *c == order(*r)).unwrap_or(0) as i64,
                fault: rec
                    .faults
                    .iter()
                    .find(|f| f.seat as usize == s)
                    .map(|f| f.verdict.to_string()),
            }
        })
        .collect();
    let mut public = rec.clone();
    let logs = std::mem::take(&mut public.logs);
    NewGame {
        index: rec.index as i64,
        record: serde_json::to_string(&public).unwrap_or_default(),
        logs: (!logs.is_empty()).then(|| serde_json::to_string(&logs).unwrap_or_default()),
        seats,
    }
}

/// The schedule of a stored match.
pub fn schedule<G: Game>(opts: &G::Options, row: &MatchRow, entrants: usize) -> Schedule {
    Schedule::new(entrants, opts.seats(), row.deals as u64, row.duplicate != 0)
}

/// What is left of a match once its games are played: the writer still storing them, the
/// last games, and how the play ended. [`finish`] completes it, so that the worker can
/// lease the next match at once instead of waiting for the database.
pub struct Tail {
    writer: tokio::task::JoinHandle<Result<(), crate::db::DbError>>,
    last: Vec<NewGame>,
    lost: Arc<std::sync::atomic::AtomicBool>,
    played: Result<(), String>,
}

/// Plays the missing games of a leased match on this thread (a blocking call: run it with
/// `spawn_blocking`), storing them through `handle` as they finish; [`finish`] stores the
/// rest and ends the match.
pub fn play<G: Adapter>(
    arena: &Arena,
    row: &MatchRow,
    lease: &str,
    handle: &tokio::runtime::Handle,
) -> Result<Tail, PlayError> {
    let platform = |reason: String| PlayError::Platform { id: row.id, reason };
    let (_, opts) = croupier_tournament::matches::options::<G>(&arena.cfg.rules_args())
        .map_err(|e| platform(format!("{e:#}")))?;
    let ids = row.entrant_ids().map_err(|e| platform(e.to_string()))?;
    let mut entrants = Vec::new();
    let mut teams = Vec::new();
    for id in &ids {
        let v = handle
            .block_on(arena.db.version(*id))
            .map_err(|e| platform(e.to_string()))?
            .ok_or_else(|| platform(format!("version {id} is not in the database")))?;
        let factory = arena.factory::<G>(&v.sha256, &opts).map_err(platform)?;
        teams.push(v.team_id);
        entrants.push(Entrant {
            name: format!("v{id}"),
            args: String::new(),
            factory,
        });
    }
    let schedule = schedule::<G>(&opts, row, entrants.len());
    let stored = handle
        .block_on(arena.db.stored_indices(row.id))
        .map_err(|e| platform(e.to_string()))?;
    let todo: Vec<u64> = (0..schedule.games())
        .filter(|i| stored.binary_search(&(*i as i64)).is_err())
        .collect();
    let plan = Plan {
        options: &opts,
        entrants: &entrants,
        schedule: &schedule,
        seed: row.seed as u64,
        policy: FaultPolicy::Forfeit,
        threads: arena.cfg.ladder.threads,
    };
    // Games are stored by a writer task while the next ones play: the database's time
    // overlaps the sandbox's instead of adding to it.
    let lost = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Vec<NewGame>>(4);
    let writer = {
        let (db, lease, lost, id) = (arena.db.clone(), lease.to_string(), lost.clone(), row.id);
        handle.spawn(async move {
            while let Some(batch) = rx.recv().await {
                if db.store_games(id, &lease, &batch, false).await? == Stored::LeaseLost {
                    lost.store(true, std::sync::atomic::Ordering::Relaxed);
                    break;
                }
            }
            Ok::<(), crate::db::DbError>(())
        })
    };
    let mut batch: Vec<NewGame> = Vec::new();
    let mut sink = |rec: GameRecord| -> anyhow::Result<()> {
        if lost.load(std::sync::atomic::Ordering::Relaxed) {
            anyhow::bail!("lease lost");
        }
        batch.push(to_new_game(&rec, &ids, &teams));
        if batch.len() >= BATCH && tx.blocking_send(std::mem::take(&mut batch)).is_err() {
            anyhow::bail!("the writer stopped");
        }
        Ok(())
    };
    let played = runner::run::<G>(&plan, &todo, &(), &mut sink);
    drop(tx);
    Ok(Tail {
        writer,
        last: batch,
        lost,
        played: played.map(drop).map_err(|e| format!("{e:#}")),
    })
}

/// Waits for a match's writer, then stores its last games and marks it done, in one
/// transaction.
pub async fn finish(arena: &Arena, id: i64, lease: &str, tail: Tail) -> Result<(), PlayError> {
    let platform = |reason: String| PlayError::Platform { id, reason };
    let written = tail
        .writer
        .await
        .map_err(|e| platform(format!("the writer: {e}")))?;
    if tail.lost.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(PlayError::LeaseLost(id));
    }
    written.map_err(|e| platform(e.to_string()))?;
    tail.played.map_err(platform)?;
    match arena.db.store_games(id, lease, &tail.last, true).await {
        Ok(Stored::Ok) => Ok(()),
        Ok(Stored::LeaseLost) => Err(PlayError::LeaseLost(id)),
        Err(e) => Err(platform(e.to_string())),
    }
}

/// A name for one lease: unique across workers and restarts.
fn lease_name(worker: &str) -> String {
    let r = crate::auth::random_u64().unwrap_or_else(|_| crate::now_ms() as u64);
    format!("{worker}-{r:016x}")
}

/// Leases and plays matches until `stop` is set.
pub async fn worker(arena: Arc<Arena>, name: String, stop: tokio::sync::watch::Receiver<bool>) {
    loop {
        if *stop.borrow() {
            return;
        }
        let lease = lease_name(&name);
        let expires = crate::now_ms() + LEASE.as_millis() as i64;
        let row = match arena.db.claim(&lease, expires).await {
            Ok(Some(row)) => row,
            Ok(None) => {
                // Woken as soon as the scheduler queues a match.
                let mut stop = stop.clone();
                tokio::select! {
                    _ = arena.changed.notified() => {}
                    _ = tokio::time::sleep(Duration::from_millis(200)) => {}
                    _ = stop.changed() => {}
                }
                continue;
            }
            Err(e) => {
                eprintln!("arena worker {name}: {e}");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let beat = {
            let arena = arena.clone();
            let lease = lease.clone();
            let id = row.id;
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(LEASE / 3).await;
                    let until = crate::now_ms() + LEASE.as_millis() as i64;
                    if !matches!(arena.db.heartbeat(id, &lease, until).await, Ok(true)) {
                        return;
                    }
                }
            })
        };
        let handle = tokio::runtime::Handle::current();
        let result = {
            let arena = arena.clone();
            let lease = lease.clone();
            let row = row.clone();
            tokio::task::spawn_blocking(move || {
                croupier_tournament::with_game!(arena.cfg.kind(), G => play::<G>(&arena, &row, &lease, &handle))
            })
            .await
        };
        // The match's end (its last games, the ratings) is stored while the next match
        // plays: the worker's core never waits for the database between matches.
        let tail = match result {
            Ok(Ok(tail)) => tail,
            Ok(Err(e)) => {
                beat.abort();
                report(&arena, &name, row.id, &lease, e).await;
                continue;
            }
            Err(join) => {
                beat.abort();
                let e = PlayError::Platform {
                    id: row.id,
                    reason: join.to_string(),
                };
                report(&arena, &name, row.id, &lease, e).await;
                continue;
            }
        };
        let (arena2, name2) = (arena.clone(), name.clone());
        tokio::spawn(async move {
            let done = finish(&arena2, row.id, &lease, tail).await;
            beat.abort();
            match done {
                Ok(()) => {
                    if let Err(e) = arena2.update_board().await {
                        eprintln!("arena worker {name2}: updating the ratings: {e}");
                    }
                    arena2.changed.notify_waiters();
                }
                Err(e) => report(&arena2, &name2, row.id, &lease, e).await,
            }
        });
    }
}

/// Logs why a match was not finished, and gives it back to the queue unless another worker
/// holds it now.
async fn report(arena: &Arena, name: &str, id: i64, lease: &str, e: PlayError) {
    match e {
        PlayError::LeaseLost(_) => {
            eprintln!("arena worker {name}: match {id}: lease lost; another worker has it")
        }
        e => {
            eprintln!("arena worker {name}: {e}; the match goes back to the queue");
            let _ = arena.db.release(id, lease).await;
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
}

/// How many seats' worth of entrants a ladder match has: two sides in a team game, every
/// seat otherwise, never more than the versions that can play.
pub fn entrants_per_match<G: Game>(opts: &G::Options, active: usize) -> usize {
    let teams = G::new(opts, 0).ok().and_then(|g| g.team_of(0)).is_some();
    let want = if teams { 2 } else { opts.seats() };
    want.min(active)
}

/// One version that can be matched.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// Version id.
    pub id: i64,
    /// Its games so far.
    pub games: u64,
    /// Its matches so far.
    pub matches: u64,
    /// μ.
    pub mu: f64,
    /// σ.
    pub sigma: f64,
}

/// Picks the entrants of the next match from `pool` (at least two).
pub fn pick(
    pool: &[Candidate],
    k: usize,
    placement: u32,
    rng: &mut GameRng,
    last_opponent: Option<i64>,
) -> Vec<i64> {
    if pool.len() < 2 || k < 2 {
        return Vec::new();
    }
    let seed = pool
        .iter()
        .min_by(|a, b| {
            a.games
                .cmp(&b.games)
                .then(b.sigma.total_cmp(&a.sigma))
                .then(a.id.cmp(&b.id))
        })
        .cloned()
        .unwrap_or_else(|| pool[0].clone());
    let mut others: Vec<&Candidate> = pool.iter().filter(|c| c.id != seed.id).collect();
    let mut chosen = vec![seed.id];
    if seed.matches < u64::from(placement) {
        // Placement: opponents spread over the table, one slice further down each match.
        others.sort_by(|a, b| {
            (b.mu - 3.0 * b.sigma)
                .total_cmp(&(a.mu - 3.0 * a.sigma))
                .then(a.id.cmp(&b.id))
        });
        let n = others.len();
        let step = (seed.matches as usize * n) / placement.max(1) as usize;
        for j in 0..k - 1 {
            let i = (step + j) % n;
            let c = others[i];
            if !chosen.contains(&c.id) {
                chosen.push(c.id);
            }
        }
    } else {
        others.sort_by(|a, b| {
            (a.mu - seed.mu)
                .abs()
                .total_cmp(&(b.mu - seed.mu).abs())
                .then(a.id.cmp(&b.id))
        });
        if others.len() > k
            && let Some(last) = last_opponent
            && let Some(pos) = others.iter().position(|c| c.id == last)
        {
            others.remove(pos);
        }
        // A window twice as wide as needed around the seed's rating; random inside it.
        let window = ((k - 1) * 2).min(others.len());
        let mut near: Vec<&Candidate> = others[..window].to_vec();
        while chosen.len() < k && !near.is_empty() {
            let i = rng.below(near.len());
            chosen.push(near.swap_remove(i).id);
        }
    }
    chosen
}

/// Queues ladder matches while fewer than `4 × threads` are waiting; woken by results and
/// uploads.
pub async fn scheduler(arena: Arc<Arena>, stop: tokio::sync::watch::Receiver<bool>) {
    let mut rng = GameRng::new(arena.cfg.ladder.seed ^ crate::auth::random_u64().unwrap_or(0));
    let mut last: std::collections::HashMap<i64, i64> = std::collections::HashMap::new();
    loop {
        if *stop.borrow() {
            return;
        }
        if let Err(e) = queue_some(&arena, &mut rng, &mut last).await {
            eprintln!("arena scheduler: {e}");
        }
        let mut stop = stop.clone();
        tokio::select! {
            _ = arena.changed.notified() => {}
            _ = tokio::time::sleep(Duration::from_millis(500)) => {}
            _ = stop.changed() => {}
        }
    }
}

async fn queue_some(
    arena: &Arena,
    rng: &mut GameRng,
    last: &mut std::collections::HashMap<i64, i64>,
) -> Result<(), crate::db::DbError> {
    if arena.is_frozen() {
        return Ok(());
    }
    // Enough queued that a worker finishing one match (while the next plays) always finds
    // another waiting.
    let want = 4 * arena.cfg.ladder.threads as i64;
    let pending = arena.db.pending_matches().await?;
    if pending >= want {
        return Ok(());
    }
    let versions = arena.db.versions().await?;
    // The latest valid version of each team, unless suspended.
    let mut latest: std::collections::BTreeMap<i64, i64> = std::collections::BTreeMap::new();
    for v in versions.iter().filter(|v| v.status == "valid") {
        latest.insert(v.team_id, v.id);
    }
    let pool: Vec<Candidate> = {
        let Ok(board) = arena.board.read() else {
            return Ok(());
        };
        latest
            .values()
            .filter_map(|id| match board.versions.get(id) {
                Some(st) if st.suspended.is_some() => None,
                Some(st) => Some(Candidate {
                    id: *id,
                    games: st.games,
                    matches: st.matches,
                    mu: st.mu,
                    sigma: st.sigma,
                }),
                None => Some(Candidate {
                    id: *id,
                    games: 0,
                    matches: 0,
                    mu: 25.0,
                    sigma: 25.0 / 3.0,
                }),
            })
            .collect()
    };
    let k = croupier_tournament::with_game!(arena.cfg.kind(), G => {
        match croupier_tournament::matches::options::<G>(&arena.cfg.rules_args()) {
            Ok((_, opts)) => entrants_per_match::<G>(&opts, pool.len()),
            Err(_) => 0,
        }
    });
    let mut pool = pool;
    let games_per_match = arena.cfg.ladder.deals * if arena.cfg.ladder.duplicate { 2 } else { 1 };
    for _ in pending..want {
        let seed = pick(&pool, k, arena.cfg.ladder.placement, rng, None)
            .first()
            .copied();
        let Some(first) = seed else { return Ok(()) };
        let chosen = pick(
            &pool,
            k,
            arena.cfg.ladder.placement,
            rng,
            last.get(&first).copied(),
        );
        if chosen.len() < 2 {
            return Ok(());
        }
        last.insert(first, chosen[1]);
        let placement = pool
            .iter()
            .find(|c| c.id == first)
            .is_some_and(|c| c.matches < u64::from(arena.cfg.ladder.placement));
        // Count a queued match as played, so that the next pick seeds another version.
        for c in pool.iter_mut().filter(|c| chosen.contains(&c.id)) {
            c.games += games_per_match;
            c.matches += 1;
        }
        arena
            .db
            .queue_match(
                if placement { "placement" } else { "ladder" },
                rng.next_u64(),
                arena.cfg.ladder.deals,
                arena.cfg.ladder.duplicate,
                &chosen,
            )
            .await?;
        arena.changed.notify_waiters();
    }
    Ok(())
}
