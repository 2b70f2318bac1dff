//! Durak, Podkidnoy and Perevodnoy, individual and partnership play (docs/rules/durak.md).
//!
//! * `types`: options, actions, events, observation (docs/rules/durak.md#options,
//!   docs/rules/durak.md#the-bout, docs/rules/durak.md#information).
//! * `options`: presets, option text, validation (docs/rules/durak.md#options).
//! * `engine`: deal and first attacker (docs/rules/durak.md#deal,
//!   docs/rules/durak.md#first-attacker), roles (docs/rules/durak.md#roles), the bout state machine
//!   and its legality rules (docs/rules/durak.md#the-bout, docs/rules/durak.md#legality), end of
//!   bout, refill, leaving, next attacker (docs/rules/durak.md#end-of-a-bout), end of game
//!   (docs/rules/durak.md#end-of-the-game), invariants.
//! * `observe`: observation, hidden-card re-deal and determinization
//!   (docs/rules/durak.md#information).
//! * `display`: action and event text, action codes.
//! * `why`: why an action is refused, a small value formatted only when shown.
//!
//! Engine decisions where the rule book is silent (each also marked `// Decision:` at its place,
//! and listed in docs/rules/durak.md#engine-decisions):
//! * Under PartnerProxy, events name the PLAYER whose hand a card left (`P1 leads 7S` when P1
//!   leads for his partner's seat 3); `BoutStart`, `Transfer::new_defender` and the
//!   observation's `attacker`/`defender` name seats. `to_act()` is the player;
//!   `Observation::acting_for` is the seat (in the throw-in phase: the principal attacker's
//!   seat when its controller is asked first, otherwise the thrower's own seat; once the game
//!   is over: the observer's seat).
//! * An eligible thrower without a card of a table rank (even without any card) is still asked;
//!   his only action is `Pass` (docs/rules/durak.md#edge-cases: the host may auto-pass, with the
//!   same event).
//! * With `multi_card_lead`, one card is led with `Lead`, 2..=4 cards with `LeadMany`.
//! * `Refill` events are emitted only for players who draw at least one card.
//! * `max_bouts` (default 1000) is a safety limit, not a rule: with three or more players the
//!   defenders can keep taking forever; after that many bouts the game ends aborted, all Draw.
//! * `Outcome::scores` holds finishing places (see `engine::Durak::compute_outcome`).

pub mod display;
mod encode;
mod engine;
mod observe;
pub mod options;
mod types;
mod why;

pub use display::ParseActionError;
pub use engine::{Durak, Pair, Setup, beats};
pub use types::*;
pub use why::Why;

use crate::cards::{CardSet, Seat};
use crate::game::{Checkable, ConfigError, Game, Logged, Outcome, Refusal, Rules};
use crate::rng::GameRng;

impl Game for Durak {
    type Options = Options;
    type Action = Action;
    type Observation = Observation;
    type Event = Event;
    type Why = Why;

    const NAME: &'static str = "durak";

    fn new(opts: &Options, seed: u64) -> Result<Durak, ConfigError> {
        opts.validate()?;
        Ok(Durak::deal_new(opts, seed))
    }

    fn options(&self) -> &Options {
        &self.opts
    }

    fn num_players(&self) -> usize {
        self.n as usize
    }

    fn to_act(&self) -> Option<Seat> {
        self.actor()
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        self.legal(out);
    }

    fn apply(&mut self, action: Action) -> Result<(), Refusal<Self>> {
        self.apply_action(action)
    }

    fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    fn observe(&self, seat: Seat) -> Observation {
        self.observation(seat)
    }

    fn events(&self) -> &[Logged<Event>] {
        self.events.as_slice()
    }

    fn determinize(opts: &Options, obs: &Observation, rng: &mut GameRng) -> Durak {
        Durak::from_observation(opts, obs, rng)
    }

    fn record_no_events(&mut self) {
        self.events = crate::log::EventLog::off();
    }

    /// Partnerships: team of seat `s` is `s % 2` (docs/rules/durak.md#roles).
    fn team_of(&self, seat: Seat) -> Option<u8> {
        (self.partnerships() && seat < self.n).then_some(seat % 2)
    }

    fn encode_action(action: Action) -> u32 {
        display::encode(action)
    }

    fn decode_action(code: u32) -> Option<Action> {
        display::decode(code)
    }
}

impl Checkable for Durak {
    /// Every action of the current decision kind over the whole deck (for `beat`: every
    /// table slot plus one), plus `take` and `pass` in every phase, so that the checker can
    /// verify that everything outside `legal_actions` is rejected.
    fn action_space(&self) -> Vec<Action> {
        let deck = self.deck;
        let mut v = Vec::with_capacity(deck.len() * 3 + 64);
        match self.phase {
            Phase::Over => return v,
            Phase::Lead => {
                v.extend(deck.iter().map(Action::Lead));
                if self.opts.multi_card_lead {
                    for r in self.opts.deck.low_rank()..=14 {
                        let all = engine::rank_set(r).bits();
                        let mut sub = all;
                        while sub != 0 {
                            if sub.count_ones() >= 2 {
                                v.push(Action::LeadMany(CardSet(sub)));
                            }
                            sub = (sub - 1) & all;
                        }
                    }
                }
            }
            Phase::Defend => {
                for slot in 0..=self.table_len {
                    v.extend(deck.iter().map(|card| Action::Beat { slot, card }));
                }
                if self.opts.transfer {
                    v.extend(deck.iter().map(Action::Transfer));
                }
                if self.opts.transfer_by_showing_trump {
                    v.extend(deck.iter().map(Action::ShowTrumpTransfer));
                }
            }
            Phase::ThrowIn => v.extend(deck.iter().map(Action::ThrowIn)),
        }
        v.push(Action::Take);
        v.push(Action::Pass);
        v
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.check()
    }

    fn shuffle_hidden(&mut self, seat: Seat, rng: &mut GameRng) {
        self.reshuffle_hidden(seat, rng);
    }
}
