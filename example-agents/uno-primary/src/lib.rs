//! `uno/primary` — source E's **primary** bot (example-agents/uno-primary/README.md, preset
//! `house`).
//!
//! Plays, among the cards it may play: a card of the current value (same number or same
//! action symbol as the top card, any colour), the first in hand order; else a number card of
//! the current colour; else an action card of the current colour; else a wild, naming a random
//! colour; else it draws one card, plays it if it fits, otherwise passes (the engine keeps it).
//!
//! Decided here: "hand order" is the observation's hand order (sorted by face: red, yellow,
//! green, blue, then the wilds; numbers before Skip, Reverse, Draw Two); "a wild" is a plain
//! Wild before a Wild Draw Four; a drawn wild also names a random colour; the start colour is
//! random too; plus the shared rules of `uno_common` (stack whenever possible at a penalty
//! turn, never challenge, always call and catch UNO).

use croupier_sdk::uno::{Action, Color, Observation, Uno, UnoCard};
use croupier_sdk::{Agent, Ctx, GameInfo};
use uno_common::{Style, is_action, random_color};

pub struct Primary;

impl Style for Primary {
    fn pick(&mut self, obs: &Observation, cards: &[UnoCard], _ctx: &mut Ctx) -> Option<UnoCard> {
        let value = obs.top.kind_index();
        let current = |c: &UnoCard| c.color() == Some(obs.color);
        let first = |f: &dyn Fn(&UnoCard) -> bool| cards.iter().copied().find(|c| f(c));
        first(&|c| value.is_some() && c.kind_index() == value)
            .or_else(|| first(&|c| current(c) && !is_action(*c)))
            .or_else(|| first(&|c| current(c) && is_action(*c)))
            .or_else(|| first(&|c| *c == UnoCard::WILD))
            .or_else(|| first(&|c| c.is_wd4()))
    }

    fn color(&mut self, _obs: &Observation, _played: Option<UnoCard>, ctx: &mut Ctx) -> Color {
        random_color(ctx)
    }
}

impl Agent<Uno> for Primary {
    fn new(_info: &GameInfo<Uno>) -> Self {
        Primary
    }

    fn decide(&mut self, obs: &Observation, legal: &[Action], ctx: &mut Ctx) -> Action {
        uno_common::decide(self, obs, legal, ctx)
    }
}

croupier_sdk::export_uno!(Primary);
