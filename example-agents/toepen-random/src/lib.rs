//! `toepen/random` — source D's **Random** bot (example-agents/toepen-random/README.md, preset
//! `plain`).
//!
//! Plays a uniformly random legal card (drawn from `ctx.rng()`).
//!
//! As for every source-D bot: "None of them knocks; when another player knocks they stay in
//! **(decided)**". Decided here (decisions source D never meets, other presets): no laundry
//! claim, no challenge, stay under poverty (see `toepen_common::default_answer`).

use croupier_sdk::toepen::{Action, Observation, Toepen};
use croupier_sdk::{Agent, Ctx, GameInfo};

pub struct Random;

impl Agent<Toepen> for Random {
    fn new(_info: &GameInfo<Toepen>) -> Self {
        Random
    }

    fn decide(&mut self, obs: &Observation, legal: &[Action], ctx: &mut Ctx) -> Action {
        toepen_common::decide_with(obs, legal, |cards| {
            cards.iter().nth(ctx.rng().below(cards.len()))
        })
    }
}

croupier_sdk::export_toepen!(Random);
