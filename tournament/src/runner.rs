//! Plays matches: many games between entrants, in parallel, reproducibly.
//!
//! Determinism: game `i` is fully determined by the master seed and `i` (its deal seed, its
//! seat rotation, every agent's seed), results are gathered by index, and the log is written
//! in index order, so the same command gives the same results and the same log file whatever
//! the number of threads. A failure of any agent ends at most that game.

pub use crate::seating::Entrant;
use crate::seating::{seat_teams, start_player};
use croupier_host::player::{Player, StartRules};
use croupier_host::sandbox::{CallStats, LogLine};
use croupier_host::verdict::{Fault, Verdict};
use croupier_rules::{Game, GameRng, Rules, SeatResult};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What happens when an agent faults.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FaultPolicy {
    /// The game ends at once, scored as a loss for the faulting agent (its team in team play)
    /// and a win for everybody else.
    Forfeit,
    /// The host plays the first legal action for it and counts a fault; after a trap the
    /// agent's instance is dead, so the host plays for it for the rest of that game.
    Fallback,
}

/// The games of a match.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// Deals to play.
    pub deals: u64,
    /// Seat assignments (entrant index per seat) each deal is played with.
    pub rotations: Vec<Vec<usize>>,
    /// Play every deal once per rotation (`--duplicate`), or once with rotation `i % k`.
    pub duplicate: bool,
}

impl Schedule {
    /// Entrants fill the seats in turn (`A B` on four seats: A B A B); rotating the seats by
    /// one each game (or each replay, with `duplicate`) moves every entrant round the table.
    pub fn new(entrants: usize, seats: usize, deals: u64, duplicate: bool) -> Schedule {
        let base: Vec<usize> = (0..seats).map(|s| s % entrants.max(1)).collect();
        let mut rotations: Vec<Vec<usize>> = Vec::new();
        for r in 0..seats {
            let rot: Vec<usize> = (0..seats).map(|s| base[(s + r) % seats]).collect();
            if !rotations.contains(&rot) {
                rotations.push(rot);
            }
        }
        Schedule {
            deals,
            rotations,
            duplicate,
        }
    }

    /// How many games the schedule holds: one per deal, or one per deal and rotation with
    /// `duplicate`.
    pub fn games(&self) -> u64 {
        if self.duplicate {
            self.deals * self.rotations.len() as u64
        } else {
            self.deals
        }
    }

    /// The games that play deals `deals`: with `duplicate` every rotation of each, which are
    /// consecutive game indices, so a range of deals is a range of games either way.
    pub fn games_of_deals(&self, deals: std::ops::Range<u64>) -> std::ops::Range<u64> {
        if self.duplicate {
            let k = self.rotations.len() as u64;
            deals.start * k..deals.end * k
        } else {
            deals
        }
    }

    /// `(deal, rotation)` of game `i`.
    pub fn game(&self, i: u64) -> (u64, usize) {
        let k = self.rotations.len() as u64;
        if self.duplicate {
            (i / k, (i % k) as usize)
        } else {
            (i, (i % k) as usize)
        }
    }
}

/// A fault, where it happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatFault {
    /// The seat whose agent faulted.
    pub seat: u8,
    /// What kind of fault.
    pub verdict: Verdict,
    /// What happened, in one line.
    pub message: String,
    /// Index into `actions` of the decision that faulted.
    pub at: usize,
}

/// Everything about one finished game: enough to replay it and to score it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game's index in the match, from 0.
    pub index: u64,
    /// Which deal was played, from 0.
    pub deal: u64,
    /// Which seat rotation of the schedule was played.
    pub rotation: usize,
    /// The seed the cards were dealt from.
    pub seed: u64,
    /// Entrant index per seat.
    pub seats: Vec<usize>,
    /// Every action applied, forced ones included, in the game's `u32` encoding.
    pub actions: Vec<u32>,
    /// The result per seat.
    pub results: Vec<SeatResult>,
    /// Game-specific scores per seat (penalty points, UNO points); empty where the game has none.
    pub scores: Vec<i64>,
    /// One line for people, e.g. `P1 is the durak`, or why the game ended early.
    pub summary: String,
    /// The game did not end by the rules: the engine's safety limit stopped it, or a rules-engine
    /// error did (see `summary`).
    pub aborted: bool,
    /// Every fault, in the order they happened.
    pub faults: Vec<SeatFault>,
    /// The seat whose fault ended the game (forfeit policy).
    pub forfeit: Option<u8>,
    /// Decisions the agents were asked for (forced moves are not asked).
    pub decisions: u64,
    /// Team per seat in team games.
    pub teams: Option<Vec<u8>>,
    /// The build each seat's agent ran (content hash of its component).
    #[serde(default)]
    pub builds: Vec<String>,
    /// The lines each seat's agent logged, as (seat, lines), for seats that logged any; left out
    /// of the JSON when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<(u8, Vec<LogLine>)>,
    /// Per seat: decisions its agent was asked and the fuel they burnt (0 for a native
    /// agent). Fuel is deterministic, so it compares the cost of strategies across machines.
    #[serde(default)]
    pub calls: Vec<CallStats>,
}

impl GameRecord {
    /// A game's record before its first action: who sits where, which builds, no result yet.
    pub fn begun(
        index: u64,
        deal: u64,
        rotation: usize,
        seed: u64,
        seats: Vec<usize>,
        builds: Vec<String>,
    ) -> GameRecord {
        GameRecord {
            index,
            deal,
            rotation,
            seed,
            seats,
            actions: Vec::new(),
            results: Vec::new(),
            scores: Vec::new(),
            summary: String::new(),
            aborted: false,
            faults: Vec::new(),
            forfeit: None,
            decisions: 0,
            teams: None,
            builds,
            logs: Vec::new(),
            calls: Vec::new(),
        }
    }
}

/// The seed of deal `deal`: every game that plays the deal is dealt from it.
pub fn game_seed(master: u64, deal: u64) -> u64 {
    GameRng::derive(master, deal)
}

/// The seed of the agent in `seat` in game `index`; it depends on the game, not only the deal, so
/// replays of a deal give agents fresh random streams.
pub fn agent_seed(master: u64, index: u64, seat: usize) -> u64 {
    GameRng::derive(GameRng::derive(master ^ 0x5EA7_5EA7, index), seat as u64)
}

/// The host could not provide what a game needs (an instance slot, a memory): the game is
/// not scored, and is played again or the match stops. Never an agent's verdict.
#[derive(Debug, thiserror::Error)]
#[error("game {index}: the host ran out of resources: {reason}")]
pub struct HostError {
    /// The game that could not be played.
    pub index: u64,
    /// What ran out.
    pub reason: String,
}

/// Plays game `index` of a match. `rules` are the options as agents are sent them,
/// computed once per match.
pub fn play_game<G: Game>(
    plan: &Plan<'_, G>,
    rules: &StartRules,
    index: u64,
) -> Result<GameRecord, HostError> {
    let Plan {
        options,
        entrants,
        schedule,
        seed: master_seed,
        policy,
        ..
    } = *plan;
    let (deal, rotation) = schedule.game(index);
    let seats = schedule.rotations[rotation].clone();
    let seed = game_seed(master_seed, deal);
    let builds = seats
        .iter()
        .map(|&e| entrants[e].factory.build_id())
        .collect();
    let mut rec = GameRecord::begun(index, deal, rotation, seed, seats.clone(), builds);
    let mut game = match G::new(options, seed) {
        Ok(g) => g,
        Err(e) => {
            // Options are validated before a match starts; this is a host bug, not an agent's.
            rec.summary = format!("could not deal: {e}");
            rec.aborted = true;
            rec.results = vec![SeatResult::Draw; seats.len()];
            return Ok(rec);
        }
    };
    let n = game.num_players();
    rec.calls = vec![CallStats::default(); n];
    let (teams, rec_teams) = seat_teams(&game);
    rec.teams = rec_teams;
    // A seat's player is `None` when its agent could not start (or, with fallback, died).
    let mut players: Vec<Option<Box<dyn Player<G>>>> = Vec::with_capacity(n);
    for (seat, &e) in seats.iter().enumerate() {
        let entrant = &entrants[e];
        let aseed = agent_seed(master_seed, index, seat);
        let started = start_player(entrant, seat, n, rules, aseed)
            .map_err(|reason| HostError { index, reason })?;
        match started {
            Ok(p) => {
                // The player's own build: a hot swap between reading the factory's build
                // above and making the player would otherwise name the wrong build.
                let build = p.build_id();
                if !build.is_empty() {
                    rec.builds[seat] = build;
                }
                players.push(Some(p))
            }
            Err(f) => {
                rec.faults.push(fault(seat, f, 0));
                players.push(None);
                if policy == FaultPolicy::Forfeit {
                    return Ok(forfeit(rec, &mut players, seat as u8, &teams));
                }
            }
        }
    }
    let mut legal = Vec::new();
    while let Some(seat) = game.to_act() {
        game.legal_actions(&mut legal);
        let Some(&first) = legal.first() else {
            rec.summary = format!("P{seat} had no legal action (rules engine bug)");
            rec.aborted = true;
            break;
        };
        let action = if legal.len() == 1 {
            // A forced move: the agent is not asked, and the event is the same as if it chose.
            first
        } else if let Some(p) = players[seat as usize].as_mut() {
            rec.decisions += 1;
            let obs = game.observe(seat);
            match p.decide(obs, &legal) {
                Ok(a) => a,
                Err(f) => {
                    let dead =
                        !matches!(f.verdict, Verdict::IllegalAction | Verdict::MalformedAction);
                    rec.faults.push(fault(seat as usize, f, rec.actions.len()));
                    if policy == FaultPolicy::Forfeit {
                        return Ok(forfeit(rec, &mut players, seat, &teams));
                    }
                    if dead {
                        collect_log(&mut rec, &mut players, seat as usize);
                        players[seat as usize] = None;
                    }
                    first
                }
            }
        } else {
            first
        };
        if let Err(e) = game.apply(action) {
            // Only legal actions reach here; a refusal is a rules bug. Record and stop.
            rec.summary = format!("rules engine refused a listed action: {e}");
            rec.aborted = true;
            break;
        }
        rec.actions.push(G::encode_action(action));
    }
    for seat in 0..players.len() {
        collect_log(&mut rec, &mut players, seat);
    }
    match game.outcome() {
        Some(o) if !rec.aborted => {
            rec.results = o.results.clone();
            rec.scores = o.scores.clone();
            rec.summary = o.summary.clone();
            rec.aborted = o.aborted;
        }
        _ => {
            rec.aborted = true;
            rec.results = vec![SeatResult::Draw; n];
        }
    }
    Ok(rec)
}

/// Tries of a game that hit a host error before the match stops: pool slots free up as
/// other games end, so a retry after a short wait usually succeeds, and the replay is
/// exact because a game depends only on its seed.
const HOST_RETRIES: u32 = 5;

/// [`play_game`], retried on a host error.
fn play_with_retries<G: Game>(
    plan: &Plan<'_, G>,
    rules: &StartRules,
    index: u64,
) -> Result<GameRecord, HostError> {
    let mut attempt = 0;
    loop {
        match play_game(plan, rules, index) {
            Err(e) if attempt < HOST_RETRIES => {
                attempt += 1;
                std::thread::sleep(Duration::from_millis(20 << attempt));
                let _ = e;
            }
            other => return other,
        }
    }
}

fn fault(seat: usize, f: Fault, at: usize) -> SeatFault {
    SeatFault {
        seat: seat as u8,
        verdict: f.verdict,
        message: f.message,
        at,
    }
}

/// Takes a seat's log lines and call counters into the record (before the player is dropped).
fn collect_log<G: Game>(
    rec: &mut GameRecord,
    players: &mut [Option<Box<dyn Player<G>>>],
    seat: usize,
) {
    if let Some(p) = players[seat].as_mut() {
        let lines = p.take_log();
        if !lines.is_empty() {
            rec.logs.push((seat as u8, lines));
        }
        if let Some(c) = rec.calls.get_mut(seat) {
            *c = p.stats();
        }
    }
}

/// Scores a forfeit: the faulting seat (its whole team in team play) loses, everybody else
/// wins.
fn forfeit<G: Game>(
    mut rec: GameRecord,
    players: &mut [Option<Box<dyn Player<G>>>],
    seat: u8,
    teams: &[Option<u8>],
) -> GameRecord {
    for s in 0..players.len() {
        collect_log(&mut rec, players, s);
    }
    let loser_team = teams[seat as usize];
    rec.results = (0..teams.len())
        .map(|s| {
            let loses = s == seat as usize || (loser_team.is_some() && teams[s] == loser_team);
            if loses {
                SeatResult::Loss
            } else {
                SeatResult::Win
            }
        })
        .collect();
    rec.forfeit = Some(seat);
    let v = rec
        .faults
        .last()
        .map(|f| f.verdict.name())
        .unwrap_or("fault");
    rec.summary = format!("P{seat} forfeits ({v})");
    rec
}

/// Totals per entrant.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EntrantTotals {
    /// The agent argument as given.
    pub name: String,
    /// Games counted for this entrant: one per game and side it played (a side is a team in
    /// team play, a seat otherwise).
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Games lost.
    pub losses: u64,
    /// Games neither won nor lost.
    pub draws: u64,
    /// Faults of this entrant's agents, in every seat they played.
    pub faults: u64,
    /// Faults counted by verdict name (e.g. `TIMEOUT`).
    pub faults_by_verdict: BTreeMap<String, u64>,
    /// Decisions asked of this entrant's agents, in every seat they played.
    pub decisions: u64,
    /// Fuel those decisions burnt (over the decisions whose fuel is known).
    pub fuel: u64,
    /// Decisions whose fuel is known: the denominator of fuel per decision.
    #[serde(default)]
    pub fuel_decisions: u64,
    /// The most fuel one of those decisions burnt.
    #[serde(default)]
    pub fuel_max: u64,
}

/// Adds one game to the totals.
pub fn tally(totals: &mut [EntrantTotals], rec: &GameRecord) {
    let mut counted: Vec<(usize, i64)> = Vec::new();
    for (seat, &e) in rec.seats.iter().enumerate() {
        let side = match &rec.teams {
            Some(t) => -1 - i64::from(t[seat]),
            None => seat as i64,
        };
        if counted.contains(&(e, side)) {
            continue;
        }
        counted.push((e, side));
        let t = &mut totals[e];
        t.games += 1;
        match rec.results.get(seat) {
            Some(SeatResult::Win) => t.wins += 1,
            Some(SeatResult::Loss) => t.losses += 1,
            _ => t.draws += 1,
        }
    }
    // Decisions and fuel per seat, not per side: each seat's agent was asked on its own.
    for (c, &e) in rec.calls.iter().zip(&rec.seats) {
        if let Some(t) = totals.get_mut(e) {
            t.decisions += c.decisions;
            t.fuel += c.fuel;
            t.fuel_decisions += c.fuel_decisions();
            t.fuel_max = t.fuel_max.max(c.fuel_max);
        }
    }
    for f in &rec.faults {
        if let Some(&e) = rec.seats.get(f.seat as usize) {
            totals[e].faults += 1;
            *totals[e]
                .faults_by_verdict
                .entry(f.verdict.name().to_string())
                .or_default() += 1;
        }
    }
}

/// Progress callbacks from a running match.
pub trait Progress: Sync {
    /// Called from a worker thread as each game finishes, in no set order.
    fn game_done(&self, rec: &GameRecord);
}

impl Progress for () {
    fn game_done(&self, _: &GameRecord) {}
}

/// A closure is a progress callback, so that a caller who only wants to see each record
/// (a test collecting fault messages) needs no type of its own.
impl<F: Fn(&GameRecord) + Sync> Progress for F {
    fn game_done(&self, rec: &GameRecord) {
        self(rec)
    }
}

/// What a match plays: rules, entrants, schedule, seed, fault policy and threads.
pub struct Plan<'a, G: Game> {
    /// The rule options.
    pub options: &'a G::Options,
    /// The agents, in the order the schedule's seat assignments index.
    pub entrants: &'a [Entrant<G>],
    /// Which entrant sits where in each game.
    pub schedule: &'a Schedule,
    /// The master seed.
    pub seed: u64,
    /// What happens when an agent faults.
    pub policy: FaultPolicy,
    /// Worker threads wanted; at least one runs, and no more than the games to play or the
    /// engine's pools allow.
    pub threads: usize,
}

/// Why [`run`] stopped before its last game.
#[derive(Debug, thiserror::Error)]
pub enum RunError<E> {
    /// The sink refused a record: the caller's own error (a log it could not write, a lease
    /// it lost), handed back as it was.
    #[error(transparent)]
    Sink(E),
    /// The host could not play a game, even after retries.
    #[error(transparent)]
    Host(#[from] HostError),
    /// A worker panicked while the sink held the records.
    #[error("a match worker panicked while saving a result")]
    Panicked,
}

/// Plays every game of `todo` and hands each record, in index order, to `sink`. A `sink`
/// error stops the match after the games in flight (their records are still delivered first).
/// The sink's error type is the caller's: a sink that cannot fail says
/// `Ok::<_, std::convert::Infallible>(())`.
///
/// There is no collector thread: the worker that finishes a game delivers every record that
/// is now next in order, under one lock. A channel to a collector cost a thread wake-up per
/// game (about 7% of a sandboxed match's time in `perf`), and a third thread competing with
/// two workers for two cores.
pub fn run<G: Game, E: Send>(
    plan: &Plan<'_, G>,
    todo: &[u64],
    progress: &dyn Progress,
    sink: &mut (dyn FnMut(GameRecord) -> Result<(), E> + Send),
) -> Result<Duration, RunError<E>> {
    let start = Instant::now();
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    // Within what the engine's pools hold, so that instances never run dry.
    let threads = plan
        .threads
        .max(1)
        .min(todo.len().max(1))
        .min(croupier_host::engine::max_threads(plan.options.seats()));
    let rules = StartRules::new::<G>(plan.options);
    let delivery = std::sync::Mutex::new(Delivery {
        pending: BTreeMap::new(),
        want: 0,
        sink,
        result: Ok(()),
    });
    let advanced = std::sync::Condvar::new();
    // How far ahead of the oldest undelivered game a worker may start one. Records finished
    // early wait in memory for their predecessors; without a bound, one slow game (up to
    // the game wall budget) would let the other threads pile up thousands of records.
    let window = LOOKAHEAD_PER_THREAD * threads;
    // The fast path reads these without the lock: `delivered` mirrors `Delivery::want`, and
    // `waiting` counts workers parked on `advanced`, so that a delivery wakes them only when
    // there is someone to wake (a futex wake per game showed as a few percent of a match).
    let delivered = std::sync::atomic::AtomicUsize::new(0);
    let waiting = std::sync::atomic::AtomicUsize::new(0);
    let work = || {
        loop {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let k = next.fetch_add(1, Ordering::Relaxed) as usize;
            let Some(&i) = todo.get(k) else { break };
            // The worker holding the oldest game never waits here, so this cannot
            // deadlock. `waiting` is raised before the lock is taken and the deliverer
            // reads it after releasing the lock, so no wake-up is lost.
            if k >= delivered.load(Ordering::SeqCst) + window {
                waiting.fetch_add(1, Ordering::SeqCst);
                let Ok(mut d) = delivery.lock() else { break };
                while k >= d.want + window && !stop.load(Ordering::Relaxed) {
                    d = match advanced.wait(d) {
                        Ok(d) => d,
                        Err(_) => return,
                    };
                }
                drop(d);
                waiting.fetch_sub(1, Ordering::SeqCst);
            }
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let rec = play_with_retries(plan, &rules, i);
            if let Ok(rec) = &rec {
                progress.game_done(rec);
            }
            // A poisoned lock means another worker panicked in the sink; stop.
            let Ok(mut d) = delivery.lock() else { break };
            let handed = match rec {
                Ok(rec) => d.deliver(rec, todo),
                Err(e) => {
                    // Not scored, and nothing after it can be delivered in order.
                    if d.result.is_ok() {
                        d.result = Err(RunError::Host(e));
                    }
                    Err(())
                }
            };
            if handed.is_err() {
                stop.store(true, Ordering::Relaxed);
            }
            delivered.store(d.want, Ordering::SeqCst);
            drop(d);
            if waiting.load(Ordering::SeqCst) > 0 {
                advanced.notify_all();
            }
        }
    };
    // One thread plays on the caller's: a thread per match cost its creation, a cold
    // allocator heap and fresh stack pages each time, which the arena, playing thousands
    // of short matches on one worker thread, paid per match.
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(work);
            }
        });
    }
    let d = delivery.into_inner().map_err(|_| RunError::Panicked)?;
    d.result.map(|_| start.elapsed())
}

/// Games a worker may run ahead of the oldest undelivered one, per thread.
const LOOKAHEAD_PER_THREAD: usize = 64;

/// Records that finished early, waiting for their predecessors.
struct Delivery<'s, E> {
    pending: BTreeMap<u64, GameRecord>,
    /// Position in `todo` of the next record to hand over.
    want: usize,
    sink: &'s mut (dyn FnMut(GameRecord) -> Result<(), E> + Send),
    result: Result<(), RunError<E>>,
}

impl<E> Delivery<'_, E> {
    /// Adds a record and hands over every record now next in order; `Err` once the sink
    /// has failed (later records are dropped, as the match is stopping).
    fn deliver(&mut self, rec: GameRecord, todo: &[u64]) -> Result<(), ()> {
        self.pending.insert(rec.index, rec);
        while let Some(&i) = todo.get(self.want) {
            let Some(rec) = self.pending.remove(&i) else {
                break;
            };
            self.want += 1;
            if self.result.is_ok()
                && let Err(e) = (self.sink)(rec)
            {
                self.result = Err(RunError::Sink(e));
            }
        }
        if self.result.is_ok() { Ok(()) } else { Err(()) }
    }
}

#[cfg(test)]
pub(crate) mod tests;
