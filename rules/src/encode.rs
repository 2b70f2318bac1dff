//! Observations as fixed-length vectors and actions as dense indices: what a learned policy
//! reads and writes (docs/learning.md has every layout).
//!
//! One module for everyone who needs the encoding: the Python environments call it natively,
//! and an exported policy compiles it into its component, so the two cannot drift. It encodes
//! [`Game::Observation`], the same knowledge the contract gives a sandboxed agent.
//!
//! A game implements [`Encode`]: its action indices and how its observation is written, one
//! named section at a time through a [`Writer`]. The layout (each section's name and length)
//! is taken from a real observation of a fresh deal ([`layout`]), so the sections documented
//! are the sections written; every length depends only on the options (the number of seats,
//! Durak's `bout_cap`). Seats are relative to the observer: position 0 is the observer, 1 the
//! next seat in turn order, and so on.

use crate::cards::{CardSet, Seat};
use crate::game::{ConfigError, Game, Rules};

/// A game whose observations and actions have a fixed-size encoding.
pub trait Encode: Game {
    /// The number of action indices under these options (the policy's output size).
    fn num_actions(opts: &Self::Options) -> usize;
    /// The dense index of an action, below [`Encode::num_actions`] for every legal action.
    fn action_index(action: Self::Action) -> usize;
    /// The action with this index, `None` for an index that names none.
    fn index_action(index: usize) -> Option<Self::Action>;
    /// Writes `obs` section by section (the caller's buffer is zeroed first).
    fn write(obs: &Self::Observation, opts: &Self::Options, w: &mut Writer);
}

/// One section of an observation vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Its name, e.g. `hand`.
    pub name: &'static str,
    /// Where it starts in the vector.
    pub offset: usize,
    /// How many values it has.
    pub len: usize,
}

/// Writes an observation's sections into a vector, in order; records their names when asked
/// ([`layout`]).
pub struct Writer<'a> {
    out: &'a mut [f32],
    pos: usize,
    sections: Option<&'a mut Vec<Section>>,
}

impl<'a> Writer<'a> {
    /// The next `len` values, named `name` (zero on entry).
    ///
    /// # Panics
    /// When the sections overrun the buffer: the buffer was not sized by [`obs_len`].
    pub fn section(&mut self, name: &'static str, len: usize) -> &mut [f32] {
        let start = self.pos;
        self.pos += len;
        if let Some(s) = self.sections.as_deref_mut() {
            s.push(Section {
                name,
                offset: start,
                len,
            });
        }
        &mut self.out[start..self.pos]
    }

    /// A 52-card set as 0/1 by card code.
    pub fn cards(&mut self, name: &'static str, cards: CardSet) {
        let s = self.section(name, 52);
        for c in cards {
            s[c.code() as usize] = 1.0;
        }
    }

    /// One of `len` positions set (none for `None` or a position past the end).
    pub fn one_hot(&mut self, name: &'static str, len: usize, which: Option<usize>) {
        let s = self.section(name, len);
        if let Some(v) = which.and_then(|i| s.get_mut(i)) {
            *v = 1.0;
        }
    }

    /// One value.
    pub fn scalar(&mut self, name: &'static str, value: f32) {
        self.section(name, 1)[0] = value;
    }

    /// Per relative seat (position 0 = the observer): `value(seat)` for every seat.
    pub fn per_seat(
        &mut self,
        name: &'static str,
        me: Seat,
        n: usize,
        value: impl Fn(usize) -> f32,
    ) {
        let s = self.section(name, n);
        for seat in 0..n {
            s[relative(seat as Seat, me, n)] = value(seat);
        }
    }

    /// Per relative seat, bit `seat` of `bits` as 0/1.
    pub fn seat_bits(&mut self, name: &'static str, me: Seat, n: usize, bits: u16) {
        self.per_seat(name, me, n, |s| f32::from(s < 16 && (bits >> s) & 1 == 1));
    }

    /// A seat (or none) as a one-hot over `n + 1` positions: the relative seat, or the last
    /// position for `None`.
    pub fn seat(&mut self, name: &'static str, me: Seat, n: usize, seat: Option<Seat>) {
        let at = seat.map_or(n, |s| relative(s, me, n));
        self.one_hot(name, n + 1, Some(at));
    }
}

/// The position of `seat` as `me` sees it: 0 for `me`, 1 for the next seat in turn order.
pub fn relative(seat: Seat, me: Seat, n: usize) -> usize {
    (seat as usize + n - (me as usize % n.max(1))) % n.max(1)
}

/// Writes `obs` into `out` (zeroed first). `out` must be [`obs_len`] long.
///
/// # Panics
/// When `out` is shorter than the encoding.
pub fn encode<G: Encode>(obs: &G::Observation, opts: &G::Options, out: &mut [f32]) {
    out.fill(0.0);
    let mut w = Writer {
        out,
        pos: 0,
        sections: None,
    };
    G::write(obs, opts, &mut w);
}

/// The sections of `G`'s observation vector under `opts`, in order: read off seat 0's
/// observation of a fresh deal, so they are exactly what [`encode`] writes.
pub fn layout<G: Encode>(opts: &G::Options) -> Result<Vec<Section>, ConfigError> {
    let game = G::new(opts, 0)?;
    let obs = game.observe(0);
    let mut sections = Vec::new();
    // A buffer larger than any encoding; the writer reports how much it used.
    let mut scratch = vec![0.0f32; 1 << 16];
    let mut w = Writer {
        out: &mut scratch,
        pos: 0,
        sections: Some(&mut sections),
    };
    G::write(&obs, opts, &mut w);
    Ok(sections)
}

/// The length of `G`'s observation vector under `opts`.
pub fn obs_len<G: Encode>(opts: &G::Options) -> Result<usize, ConfigError> {
    Ok(layout::<G>(opts)?.last().map_or(0, |s| s.offset + s.len))
}

/// The encoding of one game under fixed options: sizes worked out once.
#[derive(Clone, Debug)]
pub struct Shape {
    /// Observation values per seat.
    pub obs_len: usize,
    /// Action indices.
    pub num_actions: usize,
    /// Seats at the table.
    pub seats: usize,
}

impl Shape {
    /// The shape of `G` under `opts`.
    pub fn of<G: Encode>(opts: &G::Options) -> Result<Shape, ConfigError> {
        Ok(Shape {
            obs_len: obs_len::<G>(opts)?,
            num_actions: G::num_actions(opts),
            seats: opts.seats(),
        })
    }
}

/// Sets `mask[i] = 1` for the index of every action in `legal` (zeroed first).
pub fn mask<G: Encode>(legal: &[G::Action], mask: &mut [i8]) {
    mask.fill(0);
    for &a in legal {
        if let Some(m) = mask.get_mut(G::action_index(a)) {
            *m = 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GameRng;
    use crate::durak::Durak;
    use crate::toepen::Toepen;
    use crate::uno::Uno;
    use std::collections::HashSet;

    /// Plays `games` random games of every preset of `G` and checks, at every decision, that
    /// each legal action has its own index below `num_actions` that decodes back to it, and
    /// that every seat's observation fills exactly `obs_len` finite values.
    fn round_trips<G: Encode>(games: u64) {
        for preset in G::Options::presets() {
            let opts = G::Options::preset(preset.name).expect("preset");
            let shape = Shape::of::<G>(&opts).expect("shape");
            let mut out = vec![f32::NAN; shape.obs_len + 8];
            let mut legal = Vec::new();
            let mut rng = GameRng::new(7);
            for seed in 0..games {
                let mut game = G::new(&opts, seed).expect("deal");
                while let Some(seat) = game.to_act() {
                    game.legal_actions(&mut legal);
                    let mut seen = HashSet::new();
                    for &a in &legal {
                        let i = G::action_index(a);
                        assert!(i < shape.num_actions, "{}: {a} -> {i}", preset.name);
                        assert_eq!(G::index_action(i), Some(a), "{}: index {i}", preset.name);
                        assert!(seen.insert(i), "{}: two actions share {i}", preset.name);
                    }
                    out.fill(f32::NAN);
                    encode::<G>(&game.observe(seat), &opts, &mut out[..shape.obs_len]);
                    assert!(out[..shape.obs_len].iter().all(|v| v.is_finite()));
                    assert!(out[shape.obs_len..].iter().all(|v| v.is_nan()), "overran");
                    let a = legal[rng.below(legal.len())];
                    game.apply(a).expect("legal");
                }
            }
        }
    }

    #[test]
    fn durak_actions_and_observations_round_trip() {
        round_trips::<Durak>(30);
    }

    #[test]
    fn toepen_actions_and_observations_round_trip() {
        round_trips::<Toepen>(10);
    }

    #[test]
    fn uno_actions_and_observations_round_trip() {
        round_trips::<Uno>(30);
    }

    #[test]
    fn every_index_decodes_to_its_own_action_or_none() {
        fn check<G: Encode>(opts: &G::Options) {
            for i in 0..G::num_actions(opts) + 5 {
                if let Some(a) = G::index_action(i) {
                    assert_eq!(G::action_index(a), i, "{a}");
                }
            }
        }
        check::<Durak>(&crate::durak::Options::preset("classic").expect("preset"));
        check::<Toepen>(&crate::toepen::Options::preset("standard").expect("preset"));
        check::<Uno>(&crate::uno::Options::preset("house").expect("preset"));
    }

    #[test]
    fn sections_tile_the_vector() {
        let opts = crate::durak::Options::preset("teams").expect("preset");
        let sections = layout::<Durak>(&opts).expect("layout");
        let mut at = 0;
        for s in &sections {
            assert_eq!(s.offset, at, "{}", s.name);
            at += s.len;
        }
        assert_eq!(at, obs_len::<Durak>(&opts).expect("len"));
    }
}
