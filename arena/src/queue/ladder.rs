//! The ladder: matchmaking queues matches, workers lease and play them.
//!
//! Bosses (`bosses.agents`) are matched here too: each team's latest valid version against
//! each boss, unrated, by the budget of [`crate::queue::bosses`].
//!
//! Matchmaking (Halite's and aiarena's pattern): the version with the fewest games (then
//! the widest σ) seeds the next match. A version still in placement meets opponents spread
//! over the whole table; after that, opponents near its rating, chosen at random within a
//! small window and avoiding its previous opponent, so pairings vary.
//!
//! Reproducibility: each match's seed is [`match_seed`] of the master seed
//! (`ladder.seed`) and its number, and its games are a function of (versions, seed, deals,
//! rules), so every stored match replays bit for bit. Which versions meet and when is not
//! reproducible: it follows upload times, how fast workers play and the order results arrive.
//!
//! A match is (versions, seed, deals). Workers ([`crate::queue::worker`]) lease it with an expiry
//! they keep extending while they play, store each game as it finishes (once, keyed by match
//! and game index), and end the match in the transaction that stores its last games
//! ([`crate::queue::jobs`]). A worker that dies stops extending its lease; the match returns to the
//! queue and the next worker plays only the games that are missing, from the same seeds, so
//! the results are the same. If the host fails (no instance slot, no memory), the match is
//! given back unscored: a failure of the platform never counts against an agent.

use crate::context::Arena;
use crate::store::db::matches::MatchRow;
use crate::store::db::states::MatchKind;
use croupier_rules::{Game, GameRng, Rules};
use croupier_tournament::runner::Schedule;
use std::sync::Arc;
use std::time::Duration;

/// Mixed into the master seed for matchmaking's own draws, apart from the matches' seeds.
const PICKS: u64 = 0x7069_636b_7320_2020;

/// The seed of ladder match number `number` (one past the largest match id when it is
/// queued: its id, as the database numbers them) under master seed `master`. A function of
/// the two only, so a restart never deals a seed again, and a stored match's seed can be
/// checked against the master seed. SplitMix64's finaliser, twice: neighbouring numbers give
/// unrelated seeds.
pub fn match_seed(master: u64, number: u64) -> u64 {
    fn mix(mut z: u64) -> u64 {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    mix(master ^ mix(number))
}

/// The schedule of a stored match.
pub fn schedule<G: Game>(opts: &G::Options, row: &MatchRow, entrants: usize) -> Schedule {
    Schedule::new(entrants, opts.seats(), row.deals as u64, row.duplicate != 0)
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

/// The boss matches owed now (`queue::bosses`), numbered from `last_id`: at most `slots`,
/// and, if `waiting` says how many boss matches may wait at once, no more than that with
/// those already waiting.
async fn boss_matches(
    arena: &Arena,
    pool: &[Candidate],
    slots: usize,
    waiting: Option<usize>,
    last_id: u64,
    pace: &mut Pace,
) -> Result<Vec<crate::store::db::matches::NewMatch>, crate::store::db::DbError> {
    if arena.bosses.is_empty() || slots == 0 {
        return Ok(Vec::new());
    }
    let k = arena.boss_deal_games;
    let (upto, mut played) = {
        let Ok(board) = arena.board.read() else {
            return Ok(Vec::new());
        };
        let played: std::collections::HashMap<(i64, i64), u64> = board
            .bosses
            .iter()
            .map(|(&pair, t)| (pair, t.games() / k.max(1)))
            .collect();
        (board.applied_upto, played)
    };
    // What the board has not counted yet: queued, being played, or done above its mark.
    let mut queued = 0;
    for (v, b, deals, waits) in arena.db.boss_matches_from(upto).await? {
        *played.entry((v, b)).or_default() += deals;
        queued += usize::from(waits);
    }
    let max = waiting.map_or(slots, |w| w.saturating_sub(queued).min(slots));
    let versions: Vec<(i64, u64)> = pool.iter().map(|c| (c.id, c.games)).collect();
    let bosses: Vec<i64> = arena.bosses.iter().map(|b| b.id).collect();
    let cfg = &arena.cfg.bosses;
    let mut fresh = Vec::new();
    for (v, b) in crate::queue::bosses::due(cfg, &versions, &bosses, &played, k, max) {
        if !pace.take(arena.pace(), cfg.deals * k) {
            break;
        }
        fresh.push(crate::store::db::matches::NewMatch {
            kind: MatchKind::Boss,
            seed: match_seed(arena.cfg.ladder.seed, last_id + 1 + fresh.len() as u64),
            deals: cfg.deals,
            duplicate: true,
            entrants: vec![v, -b],
        });
    }
    Ok(fresh)
}

/// Queues ladder matches while fewer than four per worker thread of the server and four per
/// worker heard from in the last minute are waiting to be leased; woken by results and uploads.
pub async fn scheduler(arena: Arc<Arena>, stop: tokio::sync::watch::Receiver<bool>) {
    // Matchmaking's choices draw from the master seed too, from where the queue stands, so a
    // restart does not repeat the first run's picks.
    let last_id = arena.db.last_match_id().await.unwrap_or(0);
    let mut rng = GameRng::new(match_seed(arena.cfg.ladder.seed ^ PICKS, last_id));
    let mut last: std::collections::HashMap<i64, i64> = std::collections::HashMap::new();
    let mut slow = Slow::default();
    let mut pace = Pace::default();
    loop {
        if *stop.borrow() {
            return;
        }
        // Listening before looking: a match that ends while the queue is topped up wakes the
        // wait below at once. Listening after it, such a wake-up was lost, and the scheduler
        // slept its whole timeout while a fast worker emptied the queue and stood idle.
        let woken = arena.changed.notified();
        tokio::pin!(woken);
        woken.as_mut().enable();
        if let Err(e) = queue_some(&arena, &mut rng, &mut last, &mut slow, &mut pace).await {
            tracing::error!("arena scheduler: {e}");
        }
        let mut stop = stop.clone();
        tokio::select! {
            _ = woken => {}
            _ = tokio::time::sleep(Duration::from_millis(500)) => {}
            _ = stop.changed() => {}
        }
    }
}

/// What the scheduler reads that changes rarely: read at most once a second (and the
/// versions again at once when this server stores a verdict), instead of on every wake, which
/// comes with every match done. Two of the five statements each wake cost.
#[derive(Default)]
struct Slow {
    /// When these were read.
    at: Option<std::time::Instant>,
    /// The server's count of verdicts stored, when the versions were read.
    verdicts: u64,
    /// Workers on other machines heard from in the last minute.
    remote: i64,
    /// The latest valid version of each team.
    latest: std::collections::BTreeMap<i64, i64>,
}

/// How stale [`Slow`] may be: a version another server validated (on a shared PostgreSQL)
/// waits this much longer for its first match, and a new remote worker as long for its share
/// of the queue.
const SLOW_FOR: Duration = Duration::from_secs(1);

impl Slow {
    async fn refresh(&mut self, arena: &Arena) -> Result<(), crate::store::db::DbError> {
        let verdicts = arena.verdicts.load(std::sync::atomic::Ordering::Relaxed);
        if self.verdicts == verdicts && self.at.is_some_and(|t| t.elapsed() < SLOW_FOR) {
            return Ok(());
        }
        self.remote = arena.db.active_workers(crate::now_ms() - 60_000).await?;
        self.latest = arena
            .db
            .latest_valid_versions()
            .await?
            .into_iter()
            .collect();
        self.verdicts = verdicts;
        self.at = Some(std::time::Instant::now());
        Ok(())
    }
}

/// Matches kept waiting for each of the server's own worker threads, which lease one at a
/// time straight from the database.
const WAITING_PER_THREAD: i64 = 4;

/// Matches kept waiting for each remote worker: a whole batch for each lease it may have in
/// flight ([`crate::queue::MAX_LEASES_AHEAD`] ahead of the one it plays, each asking for
/// [`crate::queue::MAX_LEASE_BATCH`]). With four, one lease call took them all and
/// the next found the queue empty until results came back; the worker stood idle 10 to 20%
/// of the time with 8-deal matches.
const WAITING_PER_REMOTE: i64 =
    ((crate::queue::MAX_LEASES_AHEAD + 1) * crate::queue::MAX_LEASE_BATCH) as i64;

/// The storage budget's pace ([`crate::store::storage::pace`]) as a bucket of games: it fills at
/// the pace, up to a minute's worth, and each match queued takes its games from it.
#[derive(Default)]
struct Pace {
    credit: f64,
    at: Option<std::time::Instant>,
}

impl Pace {
    /// Whether a match of `games` may be queued now at `rate` games a second (`None`: any).
    fn take(&mut self, rate: Option<f64>, games: u64) -> bool {
        let Some(rate) = rate else {
            return true;
        };
        let now = std::time::Instant::now();
        let dt = self.at.map_or(0.0, |t| now.duration_since(t).as_secs_f64());
        self.at = Some(now);
        let games = games as f64;
        self.credit = (self.credit + rate * dt).min((rate * 60.0).max(games));
        if self.credit >= games {
            self.credit -= games;
            true
        } else {
            false
        }
    }
}

async fn queue_some(
    arena: &Arena,
    rng: &mut GameRng,
    last: &mut std::collections::HashMap<i64, i64>,
    slow: &mut Slow,
    pace: &mut Pace,
) -> Result<(), crate::store::db::DbError> {
    // `arena final` may run in another process: the freeze is read from the database.
    if arena.frozen_now().await? {
        return Ok(());
    }
    // The results alone fill the storage budget: more games would outgrow it.
    if arena.storage_full() {
        return Ok(());
    }
    // Enough waiting that a worker finishing one match always finds another. Only matches a
    // worker can lease count: counting the leased ones too (one playing, one leased ahead,
    // one whose end is being stored, per worker) left the lease ahead finding none and the
    // worker idle until the scheduler caught up, a third of the time with 16-game matches.
    slow.refresh(arena).await?;
    let want =
        WAITING_PER_THREAD * arena.cfg.ladder.threads as i64 + WAITING_PER_REMOTE * slow.remote;
    let pending = arena.db.leasable_matches().await?;
    if pending >= want {
        return Ok(());
    }
    // The latest valid version of each team, unless suspended.
    let latest = &slow.latest;
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
        match croupier_tournament::matches::setup::options::<G>(&arena.cfg.rules_args()) {
            Ok((_, opts)) => entrants_per_match::<G>(&opts, pool.len()),
            Err(_) => 0,
        }
    });
    let mut pool = pool;
    let last_id = arena.db.last_match_id().await?;
    let games_per_match = arena.cfg.ladder.deals * if arena.cfg.ladder.duplicate { 2 } else { 1 };
    let slots = (want - pending) as usize;
    // Bosses first, but never more than half of the waiting matches while the ladder has a
    // match to queue (`queue::bosses`).
    let share = (pool.len() >= 2 && k >= 2).then_some(want as usize / 2);
    let mut fresh = boss_matches(arena, &pool, slots, share, last_id, pace).await?;
    for _ in fresh.len()..slots {
        let seed = pick(&pool, k, arena.cfg.ladder.placement, rng, None)
            .first()
            .copied();
        let Some(first) = seed else { break };
        let chosen = pick(
            &pool,
            k,
            arena.cfg.ladder.placement,
            rng,
            last.get(&first).copied(),
        );
        if chosen.len() < 2 || !pace.take(arena.pace(), games_per_match) {
            break;
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
        fresh.push(crate::store::db::matches::NewMatch {
            kind: if placement {
                MatchKind::Placement
            } else {
                MatchKind::Ladder
            },
            seed: match_seed(arena.cfg.ladder.seed, last_id + 1 + fresh.len() as u64),
            deals: arena.cfg.ladder.deals,
            duplicate: arena.cfg.ladder.duplicate,
            entrants: chosen,
        });
    }
    arena.db.queue_matches(&fresh).await?;
    let queued = fresh.len();
    // Once for the lot: waiting leases claim several matches in one statement.
    if queued > 0 {
        arena.queued.notify_waiters();
    }
    Ok(())
}
