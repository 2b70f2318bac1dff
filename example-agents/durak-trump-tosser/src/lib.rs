//! `durak/trump-tosser`: pair 2 of example-agents/durak-common/README.md#the-experiment (Durak 2 vs
//! 2, 52 cards, throw-in and transfer): throws in trumps as well as plain cards (a uniformly random
//! card among every legal throw-in card, whenever asked); otherwise exactly the **base** behaviour
//! of `durak-common` (cheapest lead, cheapest defence, plain-card transfer when it would take),
//! with the choices decided there.
//!
//! Plays every Durak variant legally; decisions take microseconds.

/// The agent.
pub type TrumpTosser = durak_common::BaseAgent<{ durak_common::TRUMP_TOSSER }>;

croupier_sdk::export_durak!(TrumpTosser);
