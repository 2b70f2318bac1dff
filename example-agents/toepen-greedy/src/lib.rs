//! `toepen/greedy` — source D's **Greedy** bot (example-agents/toepen-greedy/README.md, preset
//! `plain`).
//!
//! Uses source D's two probabilities (`toepen_common::p_beaten`, `toepen_common::p_regain`):
//! * cannot follow suit → discard the card least likely to regain the lead;
//! * can follow but cannot win → the led-suit card least likely to regain the lead;
//! * can win, tricks 1–2 → the legal card least likely to regain the lead;
//! * can win, tricks 3–4 → the winning card most likely not to be beaten.
//!
//! A leader "can win" with every card (nothing to beat yet).
//!
//! As for every source-D bot: "None of them knocks; when another player knocks they stay in
//! **(decided)**". Decided here: ties go to the weaker card, then the lower card code; a
//! player known to be void in the suit cannot beat a card, and P(a card is beaten) when it
//! would be led (inside the regain formula) is taken against all other live opponents holding
//! the average opponent hand count (see `toepen_common`); no laundry claim, no challenge, stay
//! under poverty.

use croupier_sdk::toepen::{Action, Observation, Toepen};
use croupier_sdk::{Agent, Card, CardSet, Ctx, GameInfo};
use toepen_common::{Trick, argmin_by, p_beaten, p_regain};

pub struct Greedy;

/// The Greedy rule for the legal `cards`.
pub fn choose(obs: &Observation, cards: CardSet) -> Option<Card> {
    let trick = Trick::read(obs);
    let winners: CardSet = cards.iter().filter(|c| trick.wins_now(*c)).collect();
    if winners.is_empty() || trick.number <= 2 {
        // Cannot follow, cannot win, or early tricks: keep the cards that may regain the lead.
        argmin_by(cards, |c| p_regain(obs, c))
    } else {
        argmin_by(winners, |c| p_beaten(obs, c))
    }
}

impl Agent<Toepen> for Greedy {
    fn new(_info: &GameInfo<Toepen>) -> Self {
        Greedy
    }

    fn decide(&mut self, obs: &Observation, legal: &[Action], _ctx: &mut Ctx) -> Action {
        toepen_common::decide_with(obs, legal, |cards| choose(obs, cards))
    }
}

croupier_sdk::export_toepen!(Greedy);
