//! The checker itself: a faulty engine must be caught. `Faulty` wraps Durak and breaks one
//! rule on purpose; `play_checked` and `soak` must report it with its seed.

use croupier_rules::check::{CheckConfig, play_checked, soak};
use croupier_rules::durak::{Action, Durak, Event, Observation, Options};
use croupier_rules::{
    CardSet, Checkable, ConfigError, Game, GameRng, Logged, Outcome, Refusal, Rules, Seat,
};

/// What `Faulty` gets wrong.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Fault {
    /// Panics in `apply` at the 10th decision.
    PanicAtStep10,
    /// Lists only the first legal action (the others are still accepted).
    ListsOnlyOne,
    /// Accepts an unlisted action as a no-op instead of rejecting it.
    AcceptsUnlisted,
    /// Rejects an unlisted action but counts it as a step (the state changes).
    RefusalChangesState,
    /// Leaves one legal action out of the list in a rare state (the seat to act holds
    /// exactly `RARE_HAND` cards); `apply` still accepts it.
    OmitsOneInARareState,
    /// Lists one action that `apply` refuses, in the same rare state.
    ListsARefusedOneInARareState,
}

/// The hand size of the rare state of `OmitsOneInARareState` and
/// `ListsARefusedOneInARareState`: in 200 classic games the exact check meets it in 7.
const RARE_HAND: usize = 18;

#[derive(Clone, Debug, PartialEq)]
struct Faulty {
    inner: Durak,
    fault: Fault,
    steps: usize,
}

impl Faulty {
    fn in_rare_state(&self) -> bool {
        self.inner
            .to_act()
            .is_some_and(|s| self.inner.hand(s).len() == RARE_HAND)
    }
}

thread_local! {
    static FAULT: std::cell::Cell<Fault> = const { std::cell::Cell::new(Fault::PanicAtStep10) };
    /// States in which a rare-state fault fired, on this thread.
    static FIRED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

impl Game for Faulty {
    type Options = Options;
    type Action = Action;
    type Observation = Observation;
    type Event = Event;
    type Why = <Durak as Game>::Why;
    const NAME: &'static str = "faulty";

    fn new(opts: &Options, seed: u64) -> Result<Self, ConfigError> {
        Ok(Faulty {
            inner: Durak::new(opts, seed)?,
            fault: FAULT.with(|f| f.get()),
            steps: 0,
        })
    }
    fn options(&self) -> &Options {
        self.inner.options()
    }
    fn num_players(&self) -> usize {
        self.inner.num_players()
    }
    fn to_act(&self) -> Option<Seat> {
        self.inner.to_act()
    }
    fn legal_actions(&self, out: &mut Vec<Action>) {
        self.inner.legal_actions(out);
        if self.fault == Fault::ListsOnlyOne {
            out.truncate(1);
        }
        if self.fault == Fault::OmitsOneInARareState && self.in_rare_state() && out.len() >= 2 {
            out.pop();
            FIRED.with(|c| c.set(c.get() + 1));
        }
        if self.fault == Fault::ListsARefusedOneInARareState && self.in_rare_state() {
            let listed = out.clone();
            if let Some(a) = self
                .inner
                .action_space()
                .into_iter()
                .find(|a| !listed.contains(a))
            {
                out.push(a);
                FIRED.with(|c| c.set(c.get() + 1));
            }
        }
    }
    fn apply(&mut self, action: Action) -> Result<(), Refusal<Self>> {
        if self.fault == Fault::PanicAtStep10 && self.steps == 10 {
            panic!("deliberate fault at step 10");
        }
        match self.inner.apply(action) {
            Ok(()) => {
                self.steps += 1;
                Ok(())
            }
            Err(_) if self.fault == Fault::AcceptsUnlisted => Ok(()),
            Err(e) => {
                if self.fault == Fault::RefusalChangesState {
                    self.steps += 1;
                }
                Err(e)
            }
        }
    }
    fn outcome(&self) -> Option<&Outcome> {
        self.inner.outcome()
    }
    fn observe(&self, seat: Seat) -> Observation {
        self.inner.observe(seat)
    }
    fn events(&self) -> &[Logged<Event>] {
        self.inner.events()
    }
    fn determinize(opts: &Options, obs: &Observation, rng: &mut GameRng) -> Self {
        Faulty {
            inner: Durak::determinize(opts, obs, rng),
            fault: FAULT.with(|f| f.get()),
            steps: 0,
        }
    }
    fn encode_action(action: Action) -> u32 {
        Durak::encode_action(action)
    }
    fn decode_action(code: u32) -> Option<Action> {
        Durak::decode_action(code)
    }
}

impl Checkable for Faulty {
    fn action_space(&self) -> Vec<Action> {
        self.inner.action_space()
    }
    fn check_invariants(&self) -> Result<(), String> {
        self.inner.check_invariants()
    }
    fn shuffle_hidden(&mut self, seat: Seat, rng: &mut GameRng) {
        self.inner.shuffle_hidden(seat, rng)
    }
}

fn with_fault<T>(fault: Fault, f: impl FnOnce() -> T) -> T {
    FAULT.with(|c| c.set(fault));
    f()
}

#[test]
fn soak_counts_a_panicking_game_as_a_violation_and_goes_on() {
    let opts = Options::preset("classic").unwrap();
    let t = with_fault(Fault::PanicAtStep10, || {
        soak::<Faulty>(&opts, 7, 0, 3, &CheckConfig::default())
    });
    assert_eq!(t.games, 3, "every game is counted");
    assert_eq!(t.violations.len(), 3, "{:?}", t.violations);
    for v in &t.violations {
        assert!(v.what.contains("deliberate fault at step 10"), "{v}");
    }
}

/// A sampled check and the exact one (the default: every action of the space), which take
/// different paths through the refusal check.
fn configs() -> [CheckConfig; 2] {
    [
        CheckConfig {
            illegal_samples: Some(8),
            ..CheckConfig::default()
        },
        CheckConfig::default(),
    ]
}

#[test]
fn checker_catches_a_listed_action_missing() {
    let opts = Options::preset("classic").unwrap();
    for cfg in configs() {
        let v = with_fault(Fault::ListsOnlyOne, || {
            play_checked::<Faulty>(&opts, 3, &cfg)
        })
        .expect_err("an incomplete list must be caught");
        assert!(v.what.contains("was accepted"), "{v}");
    }
}

#[test]
fn checker_catches_an_unlisted_action_accepted() {
    let opts = Options::preset("classic").unwrap();
    for cfg in configs() {
        let v = with_fault(Fault::AcceptsUnlisted, || {
            play_checked::<Faulty>(&opts, 3, &cfg)
        })
        .expect_err("an accepted unlisted action must be caught");
        assert!(v.what.contains("unlisted action"), "{v}");
        assert_eq!(v.step, 0, "caught in the first state");
    }
}

#[test]
fn checker_catches_a_refusal_that_changes_the_state() {
    let opts = Options::preset("classic").unwrap();
    for cfg in configs() {
        let v = with_fault(Fault::RefusalChangesState, || {
            play_checked::<Faulty>(&opts, 3, &cfg)
        })
        .expect_err("a refusal that changes the state must be caught");
        assert!(
            v.what.contains("a rejected action changed the state"),
            "{v}"
        );
        assert_eq!(v.step, 0, "caught in the first state");
    }
}

#[test]
fn the_real_engine_passes() {
    let opts = Options::preset("classic").unwrap();
    for seed in 0..20 {
        play_checked::<Durak>(&opts, seed, &CheckConfig::default()).unwrap();
    }
}

/// What `Leaky` gets wrong about hidden information.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Leak {
    /// The observation shows the left neighbour's hand; the re-deal is the real one.
    NeighbourHand,
    /// The same leak, and a re-deal of hidden cards that does nothing: together they passed
    /// an observation check that only compared observations.
    NeighbourHandAndNoRedeal,
    /// No leak, but a re-deal that does nothing (the observation check proves nothing).
    NoRedeal,
}

thread_local! {
    static LEAK: std::cell::Cell<Leak> = const { std::cell::Cell::new(Leak::NeighbourHand) };
}

/// Durak with a leaky observation and/or a no-op `shuffle_hidden`.
#[derive(Clone, Debug, PartialEq)]
struct Leaky {
    inner: Durak,
    leak: Leak,
}

impl Leaky {
    fn leaks(&self) -> bool {
        self.leak != Leak::NoRedeal
    }
}

impl Game for Leaky {
    type Options = Options;
    type Action = Action;
    /// The real observation, plus what leaks: the left neighbour's hand.
    type Observation = (Observation, CardSet);
    type Event = Event;
    type Why = <Durak as Game>::Why;
    const NAME: &'static str = "leaky";

    fn new(opts: &Options, seed: u64) -> Result<Self, ConfigError> {
        Ok(Leaky {
            inner: Durak::new(opts, seed)?,
            leak: LEAK.with(|f| f.get()),
        })
    }
    fn options(&self) -> &Options {
        self.inner.options()
    }
    fn num_players(&self) -> usize {
        self.inner.num_players()
    }
    fn to_act(&self) -> Option<Seat> {
        self.inner.to_act()
    }
    fn legal_actions(&self, out: &mut Vec<Action>) {
        self.inner.legal_actions(out)
    }
    fn apply(&mut self, action: Action) -> Result<(), Refusal<Self>> {
        self.inner.apply(action)
    }
    fn outcome(&self) -> Option<&Outcome> {
        self.inner.outcome()
    }
    fn observe(&self, seat: Seat) -> (Observation, CardSet) {
        let left = (seat as usize + 1) % self.inner.num_players();
        let leaked = if self.leaks() {
            self.inner.hand(left as Seat)
        } else {
            CardSet::EMPTY
        };
        (self.inner.observe(seat), leaked)
    }
    fn events(&self) -> &[Logged<Event>] {
        self.inner.events()
    }
    fn determinize(opts: &Options, obs: &(Observation, CardSet), rng: &mut GameRng) -> Self {
        Leaky {
            inner: Durak::determinize(opts, &obs.0, rng),
            leak: LEAK.with(|f| f.get()),
        }
    }
    fn encode_action(action: Action) -> u32 {
        Durak::encode_action(action)
    }
    fn decode_action(code: u32) -> Option<Action> {
        Durak::decode_action(code)
    }
}

impl Checkable for Leaky {
    fn action_space(&self) -> Vec<Action> {
        self.inner.action_space()
    }
    fn check_invariants(&self) -> Result<(), String> {
        self.inner.check_invariants()
    }
    fn shuffle_hidden(&mut self, seat: Seat, rng: &mut GameRng) {
        if self.leak == Leak::NeighbourHand {
            self.inner.shuffle_hidden(seat, rng)
        }
    }
}

/// An observation that shows another seat's hand is caught, with a real re-deal and with a
/// re-deal that does nothing; and a re-deal that does nothing is caught on its own.
#[test]
fn checker_catches_a_leaking_observation_and_a_no_op_redeal() {
    let opts = Options::preset("classic").unwrap();
    for (leak, says) in [
        (Leak::NeighbourHand, "changed when only hidden cards moved"),
        (Leak::NeighbourHandAndNoRedeal, "no re-deal of hidden cards"),
        (Leak::NoRedeal, "no re-deal of hidden cards"),
    ] {
        for cfg in configs() {
            LEAK.with(|c| c.set(leak));
            let t = soak::<Leaky>(&opts, 11, 0, 5, &cfg);
            assert_eq!(t.violations.len(), 5, "{leak:?}: {:?}", t.violations);
            for v in &t.violations {
                assert!(v.what.contains(says), "{leak:?}: {v}");
            }
        }
    }
}

/// The soak's exact check (`croupier soak` without `--sample`: every action of the space
/// tried, every listed action applied) catches a list that is wrong in one rare state, either
/// way: a legal action left out, or an action listed that `apply` refuses. The soak's
/// `--sample` check (4 unlisted tries, 1 listed apply per state) can miss both, which is why
/// the ledger records which check ran.
#[test]
fn exact_check_catches_a_rare_wrong_list_that_sampling_misses() {
    let opts = Options::preset("classic").unwrap();
    // `croupier soak`'s two checks.
    let exact = CheckConfig {
        illegal_samples: None,
        legal_samples: None,
        ..CheckConfig::default()
    };
    let sample = CheckConfig {
        illegal_samples: Some(4),
        legal_samples: Some(1),
        ..CheckConfig::default()
    };
    let games = 200;
    for (fault, says) in [
        (Fault::OmitsOneInARareState, "was accepted"),
        (Fault::ListsARefusedOneInARareState, "refused"),
    ] {
        let run = |cfg: &CheckConfig| {
            FIRED.with(|c| c.set(0));
            let t = with_fault(fault, || soak::<Faulty>(&opts, 5, 0, games, cfg));
            (t, FIRED.with(|c| c.get()))
        };
        let (t_exact, fired_exact) = run(&exact);
        // Rare: a handful of states in all these games (the exact check stops a game at its
        // first one, so each caught game counts one).
        assert!(
            (1..=games / 10).contains(&fired_exact),
            "{fault:?} fired in {fired_exact} states; pick a rarer state"
        );
        assert_eq!(
            t_exact.violations.len() as u64,
            fired_exact,
            "{fault:?}: the exact check catches every state with the fault: {:?}",
            t_exact.violations
        );
        for v in &t_exact.violations {
            assert!(v.what.contains(says), "{fault:?}: {v}");
        }
        // The sampled check: these games are fixed by their seeds, so this is deterministic.
        // It met the fault and let some of it through.
        let (t_sample, fired_sample) = run(&sample);
        assert!(
            (t_sample.violations.len() as u64) < fired_sample,
            "{fault:?}: sampling caught {} of {fired_sample}",
            t_sample.violations.len()
        );
    }
}

/// The default check is the exact one: every action of the action space tried and every
/// listed action applied in every state, with the observation and replay checks on. A default
/// that only sampled would let a caller (a soak recorded as exact) check less than it says.
#[test]
fn default_check_config_is_exact() {
    let cfg = CheckConfig::default();
    assert_eq!(
        cfg.illegal_samples, None,
        "default tries only a sample of unlisted actions"
    );
    assert_eq!(
        cfg.legal_samples, None,
        "default applies only a sample of listed actions"
    );
    assert!(cfg.observation && cfg.replay);
}
