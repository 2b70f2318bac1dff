//! The upload checks' turns, shared between teams so that no team waits behind another's
//! slow uploads (issue #64).
//!
//! A check compiles untrusted code, and its budget grows with the file (10 s plus 24 s of
//! CPU per MiB), so one team's 32 MiB uploads may each hold a core for minutes. A first-come
//! queue in front of the [`Turns::new`] slots let two such uploads from one team take both,
//! and every other team's verdict waited behind them. Here:
//! - a team runs **one check at a time**: its next upload waits behind its own, never takes
//!   a second slot from the others;
//! - a free slot goes to the waiting team that has used the **least check time in the last
//!   hour** (then to the one that asked first), so a team that keeps the compiler busy goes
//!   behind teams that do not.
//!
//! So one team's uploads hold at most one slot, and with two slots another team's check
//! starts at once and takes only its own compile time. Two teams that both send slow uploads
//! can still hold both slots: a check is not stopped halfway for another (its compile child
//! would start again from nothing), and each such team is capped by `uploads.per_hour`.
//!
//! The time used orders the queue only; no verdict depends on it.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// How long a check's time counts against its team when slots are given out.
pub const WINDOW: Duration = Duration::from_secs(3600);

/// Turns at running an upload's check, by team.
pub struct Turns {
    state: Arc<Mutex<State>>,
}

/// One check's turn: its slot comes back, and its time is counted, when it is dropped.
pub struct Turn {
    state: Arc<Mutex<State>>,
    team: i64,
    started: Instant,
}

struct State {
    free: usize,
    running: HashSet<i64>,
    waiting: VecDeque<Waiter>,
    /// Checks that ended within [`WINDOW`], per team: when and how long.
    used: HashMap<i64, VecDeque<(Instant, Duration)>>,
}

struct Waiter {
    team: i64,
    tx: oneshot::Sender<Turn>,
}

impl Turns {
    /// `slots` checks at once (at least one).
    pub fn new(slots: usize) -> Turns {
        Turns {
            state: Arc::new(Mutex::new(State {
                free: slots.max(1),
                running: HashSet::new(),
                waiting: VecDeque::new(),
                used: HashMap::new(),
            })),
        }
    }

    /// Waits for `team`'s turn. Dropping the future before the turn comes leaves the queue
    /// (a turn given to it meanwhile goes to the next).
    pub async fn take(&self, team: i64) -> Turn {
        let (tx, rx) = oneshot::channel();
        let given = {
            let mut s = lock(&self.state);
            s.waiting.push_back(Waiter { team, tx });
            s.give(&self.state)
        };
        send(given);
        match rx.await {
            Ok(turn) => turn,
            // Only a dropped `Turns` drops a waiter unanswered, and `self` is alive.
            Err(_) => unreachable!("a waiter is answered before its queue is dropped"),
        }
    }

    /// Checks running and waiting: what a page or a test can show.
    pub fn load(&self) -> (usize, usize) {
        let s = lock(&self.state);
        (s.running.len(), s.waiting.len())
    }
}

impl Turn {
    /// The team whose turn this is.
    pub fn team(&self) -> i64 {
        self.team
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let given = {
            let mut s = lock(&self.state);
            s.free += 1;
            s.running.remove(&self.team);
            let now = Instant::now();
            s.used
                .entry(self.team)
                .or_default()
                .push_back((now, now.saturating_duration_since(self.started)));
            s.give(&self.state)
        };
        send(given);
    }
}

impl State {
    /// Gives every free slot it can: to waiting teams with no check running, the one that
    /// used the least time in [`WINDOW`] first, then the one that asked first. The turns
    /// are sent by the caller, outside the lock (a turn whose waiter left is dropped, which
    /// takes the lock again).
    fn give(&mut self, state: &Arc<Mutex<State>>) -> Vec<(oneshot::Sender<Turn>, Turn)> {
        let now = Instant::now();
        self.waiting.retain(|w| !w.tx.is_closed());
        for spent in self.used.values_mut() {
            while spent
                .front()
                .is_some_and(|&(at, _)| now.saturating_duration_since(at) > WINDOW)
            {
                spent.pop_front();
            }
        }
        self.used.retain(|_, spent| !spent.is_empty());
        let mut given = Vec::new();
        while self.free > 0 {
            let next = self
                .waiting
                .iter()
                .enumerate()
                .filter(|(_, w)| !self.running.contains(&w.team))
                .min_by_key(|&(i, w)| (self.spent(w.team), i))
                .map(|(i, _)| i);
            let Some(w) = next.and_then(|i| self.waiting.remove(i)) else {
                break;
            };
            self.free -= 1;
            self.running.insert(w.team);
            given.push((
                w.tx,
                Turn {
                    state: state.clone(),
                    team: w.team,
                    started: now,
                },
            ));
        }
        given
    }

    fn spent(&self, team: i64) -> Duration {
        self.used
            .get(&team)
            .map_or(Duration::ZERO, |s| s.iter().map(|&(_, d)| d).sum())
    }
}

fn send(given: Vec<(oneshot::Sender<Turn>, Turn)>) {
    for (tx, turn) in given {
        // A waiter that left drops its turn here, which gives the slot to the next.
        let _ = tx.send(turn);
    }
}

/// The state stays consistent under a panic elsewhere (every change is a few plain
/// assignments), so a poisoned lock is taken as it is.
fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    /// Polls once: the turn if it was given.
    fn poll<F: Future<Output = Turn>>(f: std::pin::Pin<&mut F>) -> Option<Turn> {
        match f.poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(t) => Some(t),
            Poll::Pending => None,
        }
    }

    #[test]
    fn a_team_waits_behind_its_own_check_and_not_behind_another_team_s() {
        let turns = Turns::new(2);
        let a1 = poll(pin!(turns.take(1)).as_mut()).expect("a free slot");
        // Team 1's second upload waits, though a slot is free...
        let mut a2 = pin!(turns.take(1));
        assert!(poll(a2.as_mut()).is_none());
        // ...so team 2's check starts at once.
        let b = poll(pin!(turns.take(2)).as_mut()).expect("team 2 gets the other slot");
        assert_eq!(b.team(), 2);
        assert_eq!(turns.load(), (2, 1));
        drop(b);
        // Team 1 still runs its first: its second waits.
        assert!(poll(a2.as_mut()).is_none());
        drop(a1);
        assert_eq!(poll(a2.as_mut()).map(|t| t.team()), Some(1));
    }

    #[test]
    fn a_free_slot_goes_to_the_team_that_used_the_least_time() {
        let turns = Turns::new(1);
        let a = poll(pin!(turns.take(1)).as_mut()).expect("a free slot");
        std::thread::sleep(Duration::from_millis(20));
        drop(a);
        let hold = poll(pin!(turns.take(3)).as_mut()).expect("a free slot");
        // Team 1 asks first, team 2 next; team 2 has used nothing, so it goes first.
        let mut a = pin!(turns.take(1));
        let mut b = pin!(turns.take(2));
        assert!(poll(a.as_mut()).is_none() && poll(b.as_mut()).is_none());
        drop(hold);
        assert!(poll(a.as_mut()).is_none());
        let b = poll(b.as_mut()).expect("team 2's turn");
        drop(b);
        assert!(poll(a.as_mut()).is_some());
    }

    #[test]
    fn a_waiter_that_leaves_gives_its_turn_to_the_next() {
        let turns = Turns::new(1);
        let hold = poll(pin!(turns.take(1)).as_mut()).expect("a free slot");
        {
            let mut gone = pin!(turns.take(2));
            assert!(poll(gone.as_mut()).is_none());
        }
        let mut c = pin!(turns.take(3));
        assert!(poll(c.as_mut()).is_none());
        drop(hold);
        let c = poll(c.as_mut()).expect("team 3's turn");
        assert_eq!((c.team(), turns.load()), (3, (1, 0)));
    }
}
