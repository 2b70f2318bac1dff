//! `toepen/reasoning` — source D's **Reasoning** bot (example-agents/toepen-reasoning/README.md,
//! preset `plain`).
//!
//! * cannot follow suit → its lowest card;
//! * can follow but cannot win the trick → the lowest card of the led suit;
//! * can win → the lowest card that wins (wins the trick as it stands now);
//! * leading → in tricks 1–2 its lowest card, in tricks 3–4 its highest.
//!
//! (The rule itself is `toepen_common::reasoning_card`, shared with the search agent's
//! playouts.)
//!
//! As for every source-D bot: "None of them knocks; when another player knocks they stay in
//! **(decided)**". Decided here: "lowest/highest" is by Toepen strength (J < Q < K < A < 7 <
//! 8 < 9 < 10), ties to the lower card code; dead cards (of players who folded) cannot be the
//! card to beat; no laundry claim, no challenge, stay under poverty.

use croupier_sdk::toepen::{Action, Observation, Toepen};
use croupier_sdk::{Agent, Ctx, GameInfo};
use toepen_common::{Trick, reasoning_card};

pub struct Reasoning;

impl Agent<Toepen> for Reasoning {
    fn new(_info: &GameInfo<Toepen>) -> Self {
        Reasoning
    }

    fn decide(&mut self, obs: &Observation, legal: &[Action], _ctx: &mut Ctx) -> Action {
        let t = Trick::read(obs);
        toepen_common::decide_with(obs, legal, |cards| {
            reasoning_card(cards, t.led, t.best, t.number)
        })
    }
}

croupier_sdk::export_toepen!(Reasoning);
