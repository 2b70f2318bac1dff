//! # UNO (docs/rules/uno.md)
//!
//! * `types`: the public types (cards, options, actions, events, observation).
//! * [`cards`]: card faces, points, the canonical deck (docs/rules/uno.md#cards,
//!   docs/rules/README.md#canonical-deck-order, docs/rules/README.md#card-notation).
//! * [`options`]: options, presets and validation (docs/rules/uno.md#options).
//! * `engine`: setup, matching, the turn state machine, effects, WD4 restriction and
//!   challenge, drawing, UNO calls, going out, scoring, two players, stacking
//!   (docs/rules/uno.md#setup through docs/rules/uno.md#stacking).
//! * `observe`: the information model (docs/rules/uno.md#information), `shuffle_hidden` and
//!   `determinize`.
//! * `display`: action/event text and the `u32` action codes.
//!
//! Engine conventions not in the rule book (each also marked `// Decision:` where it is
//! implemented):
//! * `turn_limit` (default 5000 turns per hand) and an internal cap of 10 000 hands end the
//!   game as `aborted` with every seat `Draw`: safety limits, not rules
//!   (docs/rules/README.md#engine-requirements).
//! * The `uno` flag is legal only when it can matter (`uno_call=Explicit` and the play leaves
//!   one card); elsewhere only `uno=false` is offered.
//! * The UNO catch window asks the other players in the current direction *before* the
//!   card's effect (a Reverse turns the direction only after the window).
//! * A challenged hand is shown as it was right after the WD4 was played (the hand the guilt
//!   is judged on), even if an UNO penalty was drawn in between.
//! * `SingleHand` scores the hand like `WinnerTakesAll` (the winner scores the others' hand
//!   values; shared winners score nothing); `Outcome::scores` are game totals.
//! * During `ChooseStartColor` the current colour is reported as red (no colour yet).
//! * A start card that would have to go back when nothing else is left in the draw pile stays
//!   and counts as a plain Wild.

pub mod cards;
mod display;
mod encode;
mod engine;
mod observe;
pub mod options;
mod types;
mod why;

pub use cards::{Kind, ParseColorError, ParseUnoCardError, deck};
pub use display::ParseActionError;
pub use engine::Uno;
pub use options::DEFAULT_TURN_LIMIT;
pub use types::*;
pub use why::{Expected, Why};

use crate::cards::Seat;
use crate::game::{Checkable, ConfigError, Game, Logged, Outcome, Refusal, Rules};
use crate::rng::GameRng;
use engine::Phase;

impl Game for Uno {
    type Options = Options;
    type Action = Action;
    type Observation = Observation;
    type Event = Event;
    type Why = Why;

    const NAME: &'static str = "uno";

    fn new(opts: &Options, seed: u64) -> Result<Uno, ConfigError> {
        opts.validate()?;
        Ok(Uno::deal_new(opts, seed))
    }
    fn options(&self) -> &Options {
        &self.opts
    }
    fn num_players(&self) -> usize {
        self.n as usize
    }
    fn to_act(&self) -> Option<Seat> {
        Uno::to_act(self)
    }
    fn legal_actions(&self, out: &mut Vec<Action>) {
        self.legal_into(out)
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

    fn determinize(opts: &Options, obs: &Observation, rng: &mut GameRng) -> Uno {
        Uno::from_observation(opts, obs, rng)
    }

    fn record_no_events(&mut self) {
        self.events = crate::log::EventLog::off();
    }

    #[inline]
    fn encode_action(action: Action) -> u32 {
        display::encode(action)
    }
    fn decode_action(code: u32) -> Option<Action> {
        display::decode(code)
    }
}

impl Checkable for Uno {
    fn action_space(&self) -> Vec<Action> {
        let mut v = Vec::with_capacity(160);
        v.extend(Color::ALL.map(Action::ChooseColor));
        for a in [
            Action::Draw,
            Action::Keep,
            Action::Challenge,
            Action::Accept,
            Action::AcceptPenalty,
            Action::CatchUno,
            Action::NoCatch,
        ] {
            v.push(a);
        }
        let declares = [
            None,
            Some(Color::Red),
            Some(Color::Yellow),
            Some(Color::Green),
            Some(Color::Blue),
        ];
        for uno in [false, true] {
            for declare in declares {
                v.push(Action::PlayDrawn { declare, uno });
            }
        }
        // Card actions of the current decision kind, over every face of the deck.
        let stack = self.phase == Phase::PenaltyTurn;
        let card_phase = matches!(self.phase, Phase::Turn | Phase::PenaltyTurn);
        if card_phase {
            for card in UnoCard::all() {
                let ds: &[Option<Color>] = if card.is_wild() {
                    &declares
                } else {
                    &declares[..1]
                };
                for uno in [false, true] {
                    for &declare in ds {
                        v.push(if stack {
                            Action::Stack { card, declare, uno }
                        } else {
                            Action::Play { card, declare, uno }
                        });
                    }
                }
            }
        }
        v
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.invariants()
    }

    fn shuffle_hidden(&mut self, seat: Seat, rng: &mut GameRng) {
        self.redeal_hidden(seat, rng)
    }
}

/// A mid-hand position for tests (docs/rules/README.md#engine-requirements): fixed hands, piles,
/// colour and turn.
#[doc(hidden)]
#[derive(Clone, Debug, Default)]
pub struct Setup {
    /// One hand per seat (missing seats are empty).
    pub hands: Vec<Vec<UnoCard>>,
    /// Draw pile, top first.
    pub draw_pile: Vec<UnoCard>,
    /// Discard pile, bottom first: its last card is the top card (must not be empty).
    pub discard: Vec<UnoCard>,
    /// Current colour; `None` = the top card's colour (required when the top is a wild).
    pub color: Option<Color>,
    pub dealer: Seat,
    /// Whose `Turn` it is.
    pub to_act: Seat,
    /// +1 or -1 (0 counts as +1).
    pub direction: i8,
    /// Game scores (empty = all 0).
    pub scores: Vec<i64>,
    /// Where the cards named nowhere go: `None` = under the given draw pile, in canonical
    /// order; `Some(s)` = into seat `s`'s hand.
    pub leftover_to: Option<Seat>,
    /// When true, the cards named nowhere go under the discard pile instead (overrides
    /// `leftover_to`), so that hands and draw pile are exactly as given.
    pub leftover_to_discard: bool,
}

impl Uno {
    /// Builds a position directly (tests and scenario replays). The state is `Turn(to_act)`
    /// of hand 1 with an empty event log.
    #[doc(hidden)]
    pub fn from_setup(opts: &Options, setup: Setup, seed: u64) -> Result<Uno, String> {
        opts.validate().map_err(|e| e.to_string())?;
        let n = opts.num_players as usize;
        if setup.hands.len() > n {
            return Err(format!("{} hands for {n} players", setup.hands.len()));
        }
        if setup.dealer as usize >= n || setup.to_act as usize >= n {
            return Err("dealer or to_act out of range".into());
        }
        let mut g = Uno::skeleton(opts, GameRng::new(seed));
        g.dealer = setup.dealer;
        g.cur = setup.to_act;
        g.direction = if setup.direction < 0 { -1 } else { 1 };
        if !setup.scores.is_empty() {
            if setup.scores.len() != n {
                return Err("scores need one entry per seat".into());
            }
            g.scores = setup.scores.clone();
        }
        let mut left = cards::deck_counts();
        let mut take = |c: UnoCard| -> Result<(), String> {
            if !c.is_valid() || left[c.0 as usize] == 0 {
                return Err(format!("too many copies of {c}"));
            }
            left[c.0 as usize] -= 1;
            Ok(())
        };
        for (s, hand) in setup.hands.iter().enumerate() {
            for &c in hand {
                take(c)?;
                g.add_card(s as Seat, c);
            }
        }
        for &c in setup.draw_pile.iter().chain(&setup.discard) {
            take(c)?;
        }
        let Some(&top) = setup.discard.last() else {
            return Err("the discard pile needs a top card".into());
        };
        g.discard = setup.discard.clone();
        g.color = match (setup.color, top.color()) {
            (Some(c), None) => c,
            (None, Some(c)) => c,
            (Some(c), Some(t)) if c == t => c,
            (Some(_), Some(_)) => return Err("colour differs from the top card's".into()),
            (None, None) => return Err("a wild top card needs a colour".into()),
        };
        let rest = engine::counts_to_vec(&left);
        if setup.leftover_to_discard {
            let mut pile = rest;
            pile.extend(g.discard.iter().copied());
            g.discard = pile;
            g.draw = setup.draw_pile.iter().rev().copied().collect();
            g.phase = Phase::Turn;
            g.invariants()?;
            return Ok(g);
        }
        match setup.leftover_to {
            Some(s) if (s as usize) < n => {
                for c in rest {
                    g.add_card(s, c);
                }
                g.draw = setup.draw_pile.iter().rev().copied().collect();
            }
            Some(_) => return Err("leftover_to out of range".into()),
            None => {
                let mut pile = setup.draw_pile.clone();
                pile.extend(rest);
                g.draw = pile.into_iter().rev().collect();
            }
        }
        g.phase = Phase::Turn;
        g.invariants()?;
        Ok(g)
    }

    /// Deals hand 1 from a fixed deck order (108 cards, top first) instead of a shuffle;
    /// later shuffles (a WD4 start card put back, reshuffles) use `seed`.
    #[doc(hidden)]
    pub fn from_deck(
        opts: &Options,
        deck_order: Vec<UnoCard>,
        dealer: Seat,
        seed: u64,
    ) -> Result<Uno, String> {
        opts.validate().map_err(|e| e.to_string())?;
        if dealer >= opts.num_players {
            return Err("dealer out of range".into());
        }
        let mut sorted = deck_order.clone();
        sorted.sort();
        if sorted != deck() {
            return Err("the deck must hold each of the 108 cards once".into());
        }
        let mut g = Uno::skeleton(opts, GameRng::new(seed));
        g.dealer = dealer;
        g.start_hand(Some(deck_order));
        Ok(g)
    }

    /// Cards in `seat`'s hand, sorted by face.
    pub fn hand(&self, seat: Seat) -> Vec<UnoCard> {
        if (seat as usize) < self.hands.len() {
            self.hand_vec(seat)
        } else {
            Vec::new()
        }
    }

    /// How many copies of each face (`UnoCard` code 0..54) `seat` holds, without building a
    /// list: for search playouts, where [`Uno::hand`]'s allocation was a cost of every step.
    /// Empty for a seat out of range.
    pub fn hand_counts(&self, seat: Seat) -> &[u8] {
        self.hands.get(seat as usize).map_or(&[], |h| h.as_slice())
    }

    /// The points `seat`'s hand would give the player who goes out (0 out of range).
    pub fn hand_points(&self, seat: Seat) -> i64 {
        if (seat as usize) < self.hands.len() {
            self.hand_value(seat)
        } else {
            0
        }
    }

    /// The top card of the discard pile.
    pub fn top_card(&self) -> UnoCard {
        self.top()
    }

    /// The current colour.
    pub fn current_color(&self) -> Color {
        self.color
    }

    /// +1 clockwise, -1 counter-clockwise.
    pub fn direction(&self) -> i8 {
        self.direction
    }

    /// The draw pile, top first.
    pub fn draw_pile(&self) -> Vec<UnoCard> {
        self.draw.iter().rev().copied().collect()
    }

    /// The discard pile, bottom first.
    pub fn discard_pile(&self) -> &[UnoCard] {
        &self.discard
    }

    /// The decision pending.
    pub fn decision(&self) -> Decision {
        observe::decision_of(self.phase)
    }

    /// Game scores per seat.
    pub fn scores(&self) -> &[i64] {
        &self.scores
    }

    /// The pending stacked penalty.
    pub fn pending(&self) -> u16 {
        self.pending
    }

    /// The hand number (1-based).
    pub fn hand_no(&self) -> u32 {
        self.hand_no
    }
}
