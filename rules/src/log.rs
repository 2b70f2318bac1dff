//! The event log every engine keeps: append-only, shared between copies of a state.
//!
//! The checker copies the state several times in every decision (to try actions, to re-deal
//! hidden cards) and search agents copy it for every simulation. A plain `Vec` makes each
//! copy O(game length), and a copy-on-write `Arc<Vec>` only moves that cost to the first
//! event the copy logs. Here a copy shares the log so far (`base`) and keeps the events it
//! logs itself in a short private `tail`, so copying and logging are O(1) amortized whatever
//! the length of the game, and comparing two copies that share their base compares only
//! their tails.

use crate::game::Logged;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// A tail shorter than this is never folded into a new base (a fold costs a copy of the
/// whole log; below this length copying the tail along with a state is cheaper).
const MIN_FOLD: usize = 32;

/// An append-only event log whose copies share what they have in common.
pub struct EventLog<E> {
    /// The log up to the point where this copy was last the only owner of it. Appended to in
    /// place while no other copy shares it; never changed while shared.
    base: Arc<Vec<Logged<E>>>,
    /// Events logged since `base` became shared with another copy.
    tail: Vec<Logged<E>>,
    /// `base` followed by `tail` in one piece, built when someone asks for the log as a
    /// slice while `tail` is not empty; it becomes the new, unshared base at the next push.
    flat: OnceLock<Vec<Logged<E>>>,
    /// A log that records nothing ([`EventLog::off`]).
    off: bool,
}

impl<E: Clone> EventLog<E> {
    /// An empty log that records.
    pub fn new() -> EventLog<E> {
        EventLog {
            base: Arc::new(Vec::new()),
            tail: Vec::new(),
            flat: OnceLock::new(),
            off: false,
        }
    }

    /// A log that records nothing, for simulations whose events nobody reads
    /// ([`crate::Game::record_no_events`]): recording cost every step of every playout a
    /// push, and every copy of the state a copy of the tail.
    pub fn off() -> EventLog<E> {
        EventLog {
            off: true,
            ..EventLog::new()
        }
    }

    /// Appends an event: O(1) amortized, whether or not the log is shared. Nothing, if the
    /// log is [`EventLog::off`].
    pub fn push(&mut self, e: Logged<E>) {
        if self.off {
            return;
        }
        if let Some(flat) = self.flat.take() {
            // Built from base + tail and owned by this copy alone.
            self.base = Arc::new(flat);
            self.tail.clear();
        }
        if let Some(own) = Arc::get_mut(&mut self.base) {
            own.append(&mut self.tail);
            own.push(e);
            return;
        }
        self.tail.push(e);
        // A long tail would make every copy of this state costly: fold it into a base of our
        // own. Folding only once the tail is as long as the base keeps the copies this costs
        // at O(1) per event.
        if self.tail.len() >= self.base.len().max(MIN_FOLD) {
            let mut all = Vec::with_capacity(2 * (self.base.len() + self.tail.len()));
            all.extend_from_slice(&self.base);
            all.append(&mut self.tail);
            self.base = Arc::new(all);
        }
    }

    /// The whole log in order. O(1) unless this copy has logged events since its log became
    /// shared; then the first call builds one contiguous copy, which later pushes reuse.
    pub fn as_slice(&self) -> &[Logged<E>] {
        if self.tail.is_empty() {
            return &self.base;
        }
        self.flat.get_or_init(|| {
            let mut all = Vec::with_capacity(self.base.len() + self.tail.len());
            all.extend_from_slice(&self.base);
            all.extend_from_slice(&self.tail);
            all
        })
    }

    /// Whether events are recorded (not [`EventLog::off`]): an engine skips building the
    /// texts and copies that only an event would carry.
    pub fn is_on(&self) -> bool {
        !self.off
    }

    /// Number of events logged.
    pub fn len(&self) -> usize {
        self.base.len() + self.tail.len()
    }

    /// Whether no event has been logged.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every event in order, without building a contiguous copy.
    pub fn iter(&self) -> impl Iterator<Item = &Logged<E>> {
        self.base.iter().chain(self.tail.iter())
    }
}

impl<E: Clone> Default for EventLog<E> {
    fn default() -> Self {
        EventLog::new()
    }
}

impl<E: Clone> Clone for EventLog<E> {
    fn clone(&self) -> Self {
        EventLog {
            base: Arc::clone(&self.base),
            tail: self.tail.clone(),
            // Not shared: the copy builds its own if it is ever asked for a slice.
            flat: OnceLock::new(),
            off: self.off,
        }
    }
}

impl<E: Clone + PartialEq> PartialEq for EventLog<E> {
    fn eq(&self, other: &Self) -> bool {
        if self.len() != other.len() {
            return false;
        }
        if Arc::ptr_eq(&self.base, &other.base) {
            // A shared base is frozen, so only the tails can differ.
            return self.tail == other.tail;
        }
        self.iter().eq(other.iter())
    }
}

impl<E: Clone + fmt::Debug> fmt::Debug for EventLog<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Visibility;

    fn ev(i: u32) -> Logged<u32> {
        Logged {
            vis: Visibility::Public,
            event: i,
        }
    }

    fn plain(v: &[u32]) -> Vec<Logged<u32>> {
        v.iter().map(|&i| ev(i)).collect()
    }

    #[test]
    fn a_log_that_is_off_records_nothing_nor_do_its_copies() {
        let mut a = EventLog::off();
        a.push(ev(1));
        let mut b = a.clone();
        b.push(ev(2));
        assert!(a.is_empty() && b.is_empty());
        assert!(a.as_slice().is_empty() && b.iter().next().is_none());
    }

    #[test]
    fn copies_diverge_without_affecting_each_other() {
        let mut a = EventLog::new();
        for i in 0..100 {
            a.push(ev(i));
        }
        let mut b = a.clone();
        assert_eq!(a, b);
        b.push(ev(1000));
        a.push(ev(2000));
        let mut want_a: Vec<u32> = (0..100).collect();
        let mut want_b = want_a.clone();
        want_a.push(2000);
        want_b.push(1000);
        assert_eq!(a.as_slice(), plain(&want_a).as_slice());
        assert_eq!(b.as_slice(), plain(&want_b).as_slice());
        assert_ne!(a, b);
        assert_eq!(a.len(), 101);
        drop(a);
        // b now owns the base alone: its tail folds back in at the next push.
        b.push(ev(3000));
        want_b.push(3000);
        assert_eq!(b.as_slice(), plain(&want_b).as_slice());
        assert!(b.iter().eq(plain(&want_b).iter()));
    }

    #[test]
    fn slices_stay_right_across_pushes_and_folds() {
        let mut root = EventLog::new();
        root.push(ev(0));
        let keep = root.clone();
        let mut want = vec![0];
        // Long enough to fold the tail several times, asking for a slice in between.
        for i in 1..500 {
            root.push(ev(i));
            want.push(i);
            if i % 7 == 0 {
                assert_eq!(root.as_slice(), plain(&want).as_slice());
            }
            if i % 50 == 0 {
                let c = root.clone();
                assert_eq!(c, root);
                assert_eq!(c.as_slice(), root.as_slice());
            }
        }
        assert_eq!(root.as_slice(), plain(&want).as_slice());
        assert_eq!(keep.as_slice(), plain(&[0]).as_slice());
        assert_ne!(root, keep);
    }

    #[test]
    fn equal_logs_with_different_histories_compare_equal() {
        let mut a = EventLog::new();
        let mut b = EventLog::new();
        for i in 0..10 {
            a.push(ev(i));
        }
        let shared = a.clone();
        for i in 0..10 {
            b.push(ev(i));
        }
        a.push(ev(10));
        b.push(ev(10));
        assert_eq!(a, b);
        assert_eq!(shared.len(), 10);
        assert!(EventLog::<u32>::new().is_empty());
        assert!(!shared.is_empty());
    }

    /// The folding policy that keeps copies cheap: while the base is shared, new events stay
    /// in the copy's own tail until the tail is as long as the base (and at least
    /// `MIN_FOLD`); only then are they folded into a base of its own.
    #[test]
    fn a_shared_log_folds_its_tail_only_when_it_is_as_long_as_the_base() {
        let mut a = EventLog::new();
        for i in 0..40 {
            a.push(ev(i));
        }
        let keep = a.clone();
        for i in 40..79 {
            a.push(ev(i));
            assert_eq!(
                a.tail.len(),
                (i - 39) as usize,
                "no fold before the tail is long"
            );
            assert!(Arc::ptr_eq(&a.base, &keep.base));
        }
        a.push(ev(79));
        assert!(a.tail.is_empty(), "a tail as long as the base is folded");
        assert!(!Arc::ptr_eq(&a.base, &keep.base));
        assert_eq!(a.base.len(), 80);
        assert_eq!(keep.len(), 40);
    }

    #[test]
    fn debug_lists_the_events_in_order() {
        let mut a = EventLog::new();
        a.push(ev(1));
        let mut b = a.clone();
        b.push(ev(2));
        assert_eq!(format!("{b:?}"), format!("{:?}", plain(&[1, 2])));
    }
}
