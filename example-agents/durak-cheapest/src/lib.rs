//! `durak/cheapest`: the "ordinary" pair of example-agents/durak-common/README.md#the-experiment
//! (Durak 2 vs 2, 52 cards, throw-in and transfer): exactly the **base** behaviour (see
//! `durak-common` for the base and for the choices decided there: suit order breaks rank ties, the
//! defence plans the whole table and plays its first step, no trump-showing transfer, no multi-card
//! lead).
//!
//! * Lead: the cheapest non-trump card; with only trumps, the cheapest trump.
//! * Defend: each unbeaten card in order, a trump by the cheapest higher trump, a plain card
//!   by the cheapest higher card of its suit, else the cheapest trump; otherwise take.
//! * Transfer: only before anything is beaten and when the defence would take, with the
//!   cheapest non-trump card of the led rank, if the rules allow; never with a trump.
//! * Throw in: a random plain card of a table rank whenever asked, as long as one exists.
//!
//! Plays every Durak variant legally; decisions take microseconds.

/// The agent.
pub type Cheapest = durak_common::BaseAgent<{ durak_common::CHEAPEST }>;

croupier_sdk::export_durak!(Cheapest);
