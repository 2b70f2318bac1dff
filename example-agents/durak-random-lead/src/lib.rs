//! `durak/random-lead`: pair 1 of example-agents/durak-common/README.md#the-experiment (Durak 2 vs
//! 2, 52 cards, throw-in and transfer): leads with a uniformly random card from its hand, trumps
//! included (drawn from `ctx.rng()`); otherwise exactly the **base** behaviour of `durak-common`
//! (cheapest defence, plain-card transfer when it would take, random plain throw-ins), with the
//! choices decided there.
//!
//! Plays every Durak variant legally; decisions take microseconds.

/// The agent.
pub type RandomLead = durak_common::BaseAgent<{ durak_common::RANDOM_LEAD }>;

croupier_sdk::export_durak!(RandomLead);
