//! Invariant checking over random play, shared by the property tests and `croupier soak`.
//!
//! In every state of a random game it checks: the game's own invariants (cards conserved);
//! that every legal action applies; that actions of the action space that are not legal are
//! rejected and leave the state unchanged; that the acting seat's observation does not change
//! when the cards hidden from it are re-dealt, and that those re-deals do move cards (another
//! seat's observation changes in at least one state of the game); that the game ends within a
//! step limit; and, at the end, that replaying (options, seed, actions) gives the same events
//! and final state.

use crate::game::{Checkable, Outcome};
use crate::rng::GameRng;
use std::fmt;

/// How thoroughly to check each state. The default is exact (nothing sampled), as `croupier
/// soak` records its default check; a caller that wants sampling sets the sample fields.
#[derive(Clone, Debug)]
pub struct CheckConfig {
    /// A game that has not ended after this many decisions is a violation.
    pub max_steps: usize,
    /// Illegal actions tried per state: `None` = the whole action space (slow, exact),
    /// `Some(k)` = `k` drawn at random from it.
    pub illegal_samples: Option<usize>,
    /// Listed actions applied to a copy per state: `None` = all of them, `Some(k)` = `k`
    /// drawn at random (the one actually played is always applied for real).
    pub legal_samples: Option<usize>,
    /// Re-deal hidden cards and compare the observation, in every state; and require that
    /// some re-deal of the game moved a card (changed another seat's observation).
    pub observation: bool,
    /// Replay the game at the end and compare.
    pub replay: bool,
}

impl Default for CheckConfig {
    fn default() -> Self {
        CheckConfig {
            max_steps: 200_000,
            illegal_samples: None,
            legal_samples: None,
            observation: true,
            replay: true,
        }
    }
}

/// An invariant that failed, with enough to reproduce it.
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    /// The game's own seed (in a soak, the seed derived for that game, not the run's seed).
    pub seed: u64,
    /// Decisions applied before the failing state (0 also for a failure in `new`, and for a
    /// panic, whose step is not recorded).
    pub step: usize,
    /// What failed, in words.
    pub what: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seed {} step {}: {}", self.seed, self.step, self.what)
    }
}

/// What a clean game produced.
#[derive(Clone, Debug)]
pub struct GameReport {
    /// Decisions played until the game ended.
    pub decisions: usize,
    /// The game's outcome.
    pub outcome: Outcome,
}

/// Plays one game with uniformly random legal actions, checking every state.
pub fn play_checked<G: Checkable>(
    opts: &G::Options,
    seed: u64,
    cfg: &CheckConfig,
) -> Result<GameReport, Violation> {
    let fail = |step: usize, what: String| Violation { seed, step, what };
    let mut game = G::new(opts, seed).map_err(|e| fail(0, format!("new: {e}")))?;
    let mut chooser = GameRng::new(GameRng::derive(seed, 0xC0FFEE));
    let mut legal = Vec::new();
    let mut scratch = Scratch::default();
    let mut actions = Vec::new();
    let mut step = 0;
    // Whether some re-deal of this game has moved a hidden card: a re-deal that moves nothing
    // would let any leak of hidden cards into the observation through unseen.
    let mut redeal_moved = false;
    loop {
        game.check_invariants()
            .map_err(|e| fail(step, format!("invariant: {e}")))?;
        let Some(seat) = game.to_act() else { break };
        if game.outcome().is_some() {
            return Err(fail(step, "outcome set while a seat is to act".into()));
        }
        if step >= cfg.max_steps {
            return Err(fail(
                step,
                format!("game did not end in {} decisions", cfg.max_steps),
            ));
        }
        game.legal_actions(&mut legal);
        if legal.is_empty() {
            return Err(fail(step, format!("P{seat} to act with no legal action")));
        }
        // The random draws come in a fixed order (samples, hidden re-deal, the choice), so a
        // seed and a configuration name the same games on every run and in every part of a
        // soak. (`--sample` draws more, so its games are not the exact check's.)
        let copy = check_refusals(&game, &legal, cfg, &mut chooser, &mut scratch)
            .map_err(|e| fail(step, e))?;
        if cfg.observation {
            check_observation(&game, seat, &mut chooser, &mut redeal_moved)
                .map_err(|e| fail(step, e))?;
        }
        let a = legal[chooser.below(legal.len())];
        check_listed_apply(&game, copy, a, &scratch.applied).map_err(|e| fail(step, e))?;
        // The chosen action is the one listed action not applied to a copy: this apply is
        // its check.
        game.apply(a)
            .map_err(|e| fail(step, format!("legal action {a} refused: {e}")))?;
        actions.push(a);
        step += 1;
    }
    let outcome = game
        .outcome()
        .cloned()
        .ok_or_else(|| fail(step, "no seat to act but no outcome".into()))?;
    if outcome.results.len() != game.num_players() {
        return Err(fail(step, "outcome has the wrong number of seats".into()));
    }
    if cfg.observation && step > 0 && !redeal_moved {
        return Err(fail(
            step,
            "no re-deal of hidden cards (shuffle_hidden) changed any other seat's observation \
             in the whole game: the observation check proved nothing"
                .into(),
        ));
    }
    if cfg.replay {
        let again = replay::<G>(opts, seed, &actions).map_err(|e| fail(step, e))?;
        if again != game || again.events() != game.events() {
            return Err(fail(
                step,
                "replay of (options, seed, actions) differs".into(),
            ));
        }
    }
    Ok(GameReport {
        decisions: step,
        outcome,
    })
}

/// Rebuilds a game from its options, seed and actions.
pub fn replay<G: Checkable>(
    opts: &G::Options,
    seed: u64,
    actions: &[G::Action],
) -> Result<G, String> {
    let mut g = G::new(opts, seed).map_err(|e| e.to_string())?;
    for (i, a) in actions.iter().enumerate() {
        g.apply(*a).map_err(|e| format!("replay step {i}: {e}"))?;
    }
    Ok(g)
}

/// Buffers kept from state to state: a state is checked in a few microseconds, and fresh
/// allocations for these were a visible part of that.
struct Scratch<A> {
    /// The listed actions as (code, index in the list), sorted.
    listed: Vec<(u32, usize)>,
    /// A filter over the listed codes: one bit per [`slot`], set for each listed code. A
    /// clear bit proves a code is not listed; a set bit is confirmed in `listed`.
    bits: Vec<u64>,
    /// Listed actions to apply to a copy.
    applied: Vec<A>,
    /// Unlisted actions to try, when they are sampled.
    tries: Vec<A>,
}

impl<A> Default for Scratch<A> {
    fn default() -> Self {
        Scratch {
            listed: Vec::new(),
            bits: vec![0; SLOTS / 64],
            applied: Vec::new(),
            tries: Vec::new(),
        }
    }
}

/// Bits in the listed-code filter.
const SLOTS: usize = 1 << 16;

/// The filter bit of an action code: the top bits of a multiplicative hash, so that codes
/// that differ only in high bits (UNO packs a declared colour and the UNO flag above bit 16)
/// still land on different bits and skip the binary search.
#[inline]
fn slot(code: u32) -> usize {
    (code.wrapping_mul(0x9E37_79B1) >> 16) as usize
}

/// Checks the list itself (codes round-trip, no duplicates), then that every unlisted action
/// of the action space (or a sample) is refused and changes nothing. Returns the copy those
/// refusals were tried on, still equal to `game`, for the first listed action to reuse.
fn check_refusals<G: Checkable>(
    game: &G,
    legal: &[G::Action],
    cfg: &CheckConfig,
    rng: &mut GameRng,
    scratch: &mut Scratch<G::Action>,
) -> Result<G, String> {
    // The listed actions by code: a state lists up to a few dozen actions and its action
    // space holds up to a few hundred, so scanning the list for every action of the space
    // was a large part of a check. Equal actions have equal codes, so an action whose code
    // is not listed is not listed, and comparing within a run of equal codes is exact even
    // if two different actions shared a code.
    let Scratch {
        listed,
        bits,
        applied,
        tries,
    } = scratch;
    listed.clear();
    for (i, a) in legal.iter().enumerate() {
        let code = G::encode_action(*a);
        if G::decode_action(code) != Some(*a) {
            return Err(format!("action {a} does not survive encode/decode"));
        }
        listed.push((code, i));
    }
    listed.sort_unstable();
    let same_code = |code: u32| {
        let from = listed.partition_point(|&(c, _)| c < code);
        listed[from..]
            .iter()
            .take_while(move |&&(c, _)| c == code)
            .map(|&(_, i)| i)
    };
    for (i, a) in legal.iter().enumerate() {
        if same_code(G::encode_action(*a)).any(|j| j != i && legal[j] == *a) {
            return Err(format!("legal action {a} listed twice"));
        }
    }
    for &(c, _) in listed.iter() {
        let b = slot(c);
        bits[b / 64] |= 1 << (b % 64);
    }
    let is_listed = |a: &G::Action| {
        let c = G::encode_action(*a);
        let b = slot(c);
        if bits[b / 64] & (1 << (b % 64)) == 0 {
            return false;
        }
        same_code(c).any(|i| legal[i] == *a)
    };
    applied.clear();
    match cfg.legal_samples {
        None => applied.extend_from_slice(legal),
        Some(k) => applied.extend((0..k).map(|_| legal[rng.below(legal.len())])),
    }
    // One copy serves every refused action (a change by any of them would still show at the
    // single comparison below).
    let mut g = game.clone();
    let refuse = |g: &mut G, a: G::Action| match g.apply(a) {
        Ok(()) => Err(format!("unlisted action {a} was accepted")),
        Err(_) => Ok(()),
    };
    let space = game.action_space();
    tries.clear();
    match cfg.illegal_samples {
        // The whole space, tried as it is filtered: a state tries ~150 actions in UNO, and
        // collecting them first was a visible part of a check.
        None => {
            for a in space.iter().filter(|a| !is_listed(a)) {
                refuse(&mut g, *a)?;
            }
        }
        Some(k) => {
            let unlisted: Vec<G::Action> =
                space.iter().filter(|a| !is_listed(a)).copied().collect();
            if !unlisted.is_empty() {
                tries.extend((0..k).map(|_| unlisted[rng.below(unlisted.len())]));
            }
            for a in tries.iter() {
                refuse(&mut g, *a)?;
            }
        }
    }
    if g != *game {
        let names: Vec<String> = match cfg.illegal_samples {
            None => space
                .iter()
                .filter(|a| !is_listed(a))
                .map(|a| a.to_string())
                .collect(),
            Some(_) => tries.iter().map(|a| a.to_string()).collect(),
        };
        return Err(format!(
            "a rejected action changed the state (one of: {})",
            names.join(", ")
        ));
    }
    for &(c, _) in listed.iter() {
        bits[slot(c) / 64] = 0;
    }
    Ok(g)
}

/// Applies each action of `applied` to its own copy of `game`, except one instance of
/// `chosen`, which the caller applies to the game itself. `copy` is an unchanged copy to use
/// first.
fn check_listed_apply<G: Checkable>(
    game: &G,
    copy: G,
    chosen: G::Action,
    applied: &[G::Action],
) -> Result<(), String> {
    let mut copy = Some(copy);
    let mut skipped = false;
    for a in applied {
        if !skipped && *a == chosen {
            skipped = true;
            continue;
        }
        let mut g = copy.take().unwrap_or_else(|| game.clone());
        g.apply(*a)
            .map_err(|e| format!("listed action {a} refused: {e}"))?;
    }
    Ok(())
}

/// Re-deals the cards hidden from `seat` and requires its observation unchanged. Until some
/// re-deal of the game has moved a card (`moved`), also looks whether this one did: whether
/// another seat's observation changed. Only until then, so that it costs a state or two per
/// game; and it draws nothing, so the games a seed names stay the same.
fn check_observation<G: Checkable>(
    game: &G,
    seat: u8,
    rng: &mut GameRng,
    moved: &mut bool,
) -> Result<(), String> {
    let before = game.observe(seat);
    let mut g = game.clone();
    g.shuffle_hidden(seat, rng);
    g.check_invariants()
        .map_err(|e| format!("after shuffle_hidden({seat}): {e}"))?;
    let after = g.observe(seat);
    if before != after {
        return Err(format!(
            "observation of P{seat} changed when only hidden cards moved:\n before {before:?}\n after  {after:?}"
        ));
    }
    if !*moved {
        *moved = (0..game.num_players() as u8)
            .any(|other| other != seat && g.observe(other) != game.observe(other));
    }
    Ok(())
}

/// Soak totals for many games.
#[derive(Clone, Debug, Default)]
pub struct SoakTotals {
    /// Games played, clean or not.
    pub games: u64,
    /// Decisions played in the clean games.
    pub decisions: u64,
    /// Clean games that the engine's safety limit ended ([`Outcome::aborted`]).
    pub aborted: u64,
    /// Every failed game (engine panics included), in the order played.
    pub violations: Vec<Violation>,
}

/// Plays games `first..first + count` of a soak run (game `i` uses seed `derive(seed, i)`).
pub fn soak<G: Checkable>(
    opts: &G::Options,
    seed: u64,
    first: u64,
    count: u64,
    cfg: &CheckConfig,
) -> SoakTotals {
    soak_reporting::<G>(opts, seed, first, count, cfg, &|| {})
}

/// [`soak`], calling `game_done` after every game (a soak can run for hours: the caller may
/// show progress).
pub fn soak_reporting<G: Checkable>(
    opts: &G::Options,
    seed: u64,
    first: u64,
    count: u64,
    cfg: &CheckConfig,
    game_done: &(dyn Fn() + Sync),
) -> SoakTotals {
    let mut t = SoakTotals::default();
    for i in first..first + count {
        let s = GameRng::derive(seed, i);
        t.games += 1;
        // A panic in an engine is a violation of this game, not the end of the run: caught
        // here, it is counted and reported with its seed like any other.
        let played = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            play_checked::<G>(opts, s, cfg)
        }))
        .unwrap_or_else(|p| {
            let what = p
                .downcast_ref::<&str>()
                .map(|m| m.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "non-text payload".into());
            Err(Violation {
                seed: s,
                step: 0,
                what: format!("panic (step not recorded; replay the seed to find it): {what}"),
            })
        });
        match played {
            Ok(r) => {
                t.decisions += r.decisions as u64;
                t.aborted += u64::from(r.outcome.aborted);
            }
            Err(v) => t.violations.push(v),
        }
        game_done();
    }
    t
}
