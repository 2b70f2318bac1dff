//! Toepen (docs/rules/toepen.md): a 4-trick game without trumps where only the last trick counts,
//! with knocking, folding, laundry and poverty, played to a penalty limit.
//!
//! * `types` — options, actions, events and the observation (docs/rules/toepen.md#options,
//!   docs/rules/toepen.md#decisions, docs/rules/toepen.md#information).
//! * [`options`] — presets, option names and validation (docs/rules/toepen.md#options).
//! * `engine` — the state machine: deal (docs/rules/toepen.md#round-setup), laundry
//!   (docs/rules/toepen.md#laundry), poverty (docs/rules/toepen.md#poverty), tricks and dead cards
//!   (docs/rules/toepen.md#tricks), knocking (docs/rules/toepen.md#knocking), scoring and
//!   elimination (docs/rules/toepen.md#end-of-a-round, docs/rules/toepen.md#end-of-the-game).
//! * `observe` — observations, `shuffle_hidden` and `determinize`
//!   (docs/rules/toepen.md#information).
//! * `display` — action / event text and the `u32` action code.
//!
//! Engine decisions where the rule book is silent are marked `// Decision:` in the code (and
//! listed in docs/rules/toepen.md#engine-decisions):
//! * a leader who folds (or is eliminated by a laundry penalty) before leading hands the lead
//!   to the next live player clockwise;
//! * a player eliminated by a laundry penalty pays nothing more at the end of that round;
//! * in the `AnyCardBoundary` knock window, a seat is asked when the once-round scan reaches it
//!   and only if it may knock at that moment; if the player about to play folds in the window
//!   and every other live player has played, the trick is complete without him;
//! * `unseen` also leaves out cards the player knows the place of (see `observe`);
//! * every player gets his LaundryTurn even when the stock is short (only `NoClaim` then);
//! * poverty is fixed at the deal; `laundry_penalty=0` scores and logs nothing;
//! * legal actions are listed as: cards in code order then `Knock`; `ClaimLaundry`,
//!   `ClaimWhiteLaundry`, `NoClaim`; `Challenge`, `NoChallenge`; `Stay`, `Fold`; `Knock`,
//!   `NoKnock`;
//! * at the end of a round the events are `RoundEnd`, then `Penalty` per paying seat in seat
//!   order, then `Eliminated`, then `GameEnd` or the next `RoundStart`.

mod display;
mod encode;
mod engine;
mod observe;
pub mod options;
mod types;
mod why;

pub use display::ParseActionError;
pub use engine::{DECK, FACES, Toepen, is_laundry, is_toepen_card, is_white_laundry, strength};
pub use options::{OPTION_NAMES, PRESETS};
pub use types::*;
pub use why::Why;

use crate::cards::Seat;
use crate::game::{Checkable, ConfigError, Game, Logged, Outcome, Refusal, Rules};
use crate::rng::GameRng;

impl Game for Toepen {
    type Options = Options;
    type Action = Action;
    type Observation = Observation;
    type Event = Event;
    type Why = Why;

    const NAME: &'static str = "toepen";

    fn new(opts: &Options, seed: u64) -> Result<Toepen, ConfigError> {
        opts.validate()?;
        Ok(Toepen::start(opts, seed))
    }

    fn options(&self) -> &Options {
        &self.opts
    }

    fn num_players(&self) -> usize {
        self.n as usize
    }

    fn to_act(&self) -> Option<Seat> {
        if self.outcome.is_some() {
            None
        } else {
            Some(self.actor)
        }
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        self.legal_into(out);
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

    fn determinize(opts: &Options, obs: &Observation, rng: &mut GameRng) -> Toepen {
        Toepen::from_observation(opts, obs, rng)
    }

    fn record_no_events(&mut self) {
        self.events = crate::log::EventLog::off();
    }

    fn encode_action(action: Action) -> u32 {
        display::encode(action)
    }

    fn decode_action(code: u32) -> Option<Action> {
        display::decode(code)
    }
}

impl Checkable for Toepen {
    /// Every Toepen action (all 32 card plays and the nine others): a superset of what any
    /// state can allow, so the checker also tries actions of the wrong decision kind.
    fn action_space(&self) -> Vec<Action> {
        let mut v: Vec<Action> = DECK.iter().map(Action::Play).collect();
        v.extend(Action::WORDS);
        v
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.invariants()
    }

    fn shuffle_hidden(&mut self, seat: Seat, rng: &mut GameRng) {
        self.shuffle_hidden_for(seat, rng);
    }
}

impl Toepen {
    /// The pending decision kind.
    pub fn decision(&self) -> Decision {
        self.decision
    }
    /// Current stake.
    pub fn stake(&self) -> u32 {
        self.stake
    }
    /// Penalty points per seat.
    pub fn scores(&self) -> &[u32] {
        &self.scores[..self.n as usize]
    }
    /// Current dealer.
    pub fn dealer(&self) -> Seat {
        self.dealer
    }
    /// Round number (1-based).
    pub fn round(&self) -> u32 {
        self.round
    }
    /// The hand of `seat` (test and tool use: this is hidden information).
    #[doc(hidden)]
    pub fn hand(&self, seat: Seat) -> crate::cards::CardSet {
        self.hands.get(seat as usize).copied().unwrap_or_default()
    }
    /// The stock, top block first (test and tool use: hidden information).
    #[doc(hidden)]
    pub fn stock_blocks(&self) -> Vec<crate::cards::CardSet> {
        self.stock.blocks[..self.stock.len as usize].to_vec()
    }
}
