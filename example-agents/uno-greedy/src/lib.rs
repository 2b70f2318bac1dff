//! `uno/greedy` — source E's **greedy** (hill-climbing) bot (example-agents/uno-greedy/README.md,
//! preset `house`).
//!
//! Plays, among the cards it may play: a wild if it has one; else a matching action card; else
//! the matching card worth the most points; else a Wild Draw Four; else it draws one card,
//! plays it if it fits, otherwise passes. When playing a wild it names the colour it holds most
//! of.
//!
//! This order is exactly "the card with the highest greedy score" (`uno_common::greedy_score`:
//! points — Wild 50, action 20, number its face value — with the Wild Draw Four at −1), the
//! score `anneal` also uses.
//!
//! Decided here: ties (same score) go to the first card in hand order (sorted by face); the
//! most-held colour does not count the wild being played, ties go to red, yellow, green,
//! blue in that order, and with no coloured card left the current colour is kept; plus the
//! shared rules of `uno_common` (stack whenever possible at a penalty turn, never challenge,
//! always call and catch UNO).

use croupier_sdk::uno::{Action, Color, Observation, Uno, UnoCard};
use croupier_sdk::{Agent, Ctx, GameInfo};
use uno_common::{Style, greedy_pick, most_held_color};

pub struct Greedy;

impl Style for Greedy {
    fn pick(&mut self, _obs: &Observation, cards: &[UnoCard], _ctx: &mut Ctx) -> Option<UnoCard> {
        greedy_pick(cards)
    }

    fn color(&mut self, obs: &Observation, played: Option<UnoCard>, _ctx: &mut Ctx) -> Color {
        most_held_color(obs, played)
    }
}

impl Agent<Uno> for Greedy {
    fn new(_info: &GameInfo<Uno>) -> Self {
        Greedy
    }

    fn decide(&mut self, obs: &Observation, legal: &[Action], ctx: &mut Ctx) -> Action {
        uno_common::decide(self, obs, legal, ctx)
    }
}

croupier_sdk::export_uno!(Greedy);
