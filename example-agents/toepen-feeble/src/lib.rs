//! `toepen/feeble` — source D's **FeebleMind** bot (example-agents/toepen-feeble/README.md, preset
//! `plain`).
//!
//! If it cannot follow suit it discards its lowest card (Toepen strength J < Q < K < A < 7 < 8
//! < 9 < 10); otherwise (following suit, or leading) a uniformly random legal card.
//!
//! As for every source-D bot: "None of them knocks; when another player knocks they stay in
//! **(decided)**". Decided here: ties between equally strong cards go to the lower card code
//! (clubs, diamonds, hearts, spades); no laundry claim, no challenge, stay under poverty.

use croupier_sdk::toepen::{Action, Observation, Toepen};
use croupier_sdk::{Agent, Ctx, GameInfo};
use toepen_common::{Trick, lowest};

pub struct Feeble;

impl Agent<Toepen> for Feeble {
    fn new(_info: &GameInfo<Toepen>) -> Self {
        Feeble
    }

    fn decide(&mut self, obs: &Observation, legal: &[Action], ctx: &mut Ctx) -> Action {
        let trick = Trick::read(obs);
        toepen_common::decide_with(obs, legal, |cards| {
            if !trick.leading() && !trick.can_follow(obs.hand) {
                lowest(cards)
            } else {
                cards.iter().nth(ctx.rng().below(cards.len()))
            }
        })
    }
}

croupier_sdk::export_toepen!(Feeble);
