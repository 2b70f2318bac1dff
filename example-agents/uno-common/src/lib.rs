//! Shared helpers for the UNO example agents (example-agents/uno-common/README.md, source E).
//!
//! Source E's bots differ only in which playable card they choose and which colour they name;
//! [`decide`] is the rest of the decision, common to all of them:
//! * `Turn` / `PenaltyTurn`: the bot's [`Style::pick`] among the cards it may play (or stack);
//!   no card → `Draw` (after which the engine keeps an unplayable card automatically) or
//!   `AcceptPenalty`;
//! * `AfterDraw`: "draw one card, play it if it fits" — the drawn card is played;
//! * `ChooseStartColor`: the bot's colour rule;
//! * decisions source E never meets: never challenge a Wild Draw Four (`Accept`), always
//!   catch a player who forgot to call UNO, and always call UNO when the flag exists.
//!
//! Decided here (stacking, which the house preset has and the source's text does not
//! describe): at a `PenaltyTurn` a bot stacks whenever it can, choosing among the stackable
//! cards with its usual rule; otherwise it accepts the penalty.

use croupier_sdk::uno::{Action, Color, Decision, Observation, UnoCard};
use croupier_sdk::{Ctx, uno::Kind};
use std::borrow::Borrow;

/// What makes one of source E's bots itself.
pub trait Style {
    /// The card to play among `cards` (distinct, playable, in hand order), or `None` to draw.
    fn pick(&mut self, obs: &Observation, cards: &[UnoCard], ctx: &mut Ctx) -> Option<UnoCard>;
    /// The colour to name for a wild (`played` = the wild being played; `None` when choosing
    /// the start colour).
    fn color(&mut self, obs: &Observation, played: Option<UnoCard>, ctx: &mut Ctx) -> Color;
}

/// The card an action plays (`drawn` is the card of a `PlayDrawn`).
pub fn card_of(a: &Action, drawn: Option<UnoCard>) -> Option<UnoCard> {
    match a {
        Action::Play { card, .. } | Action::Stack { card, .. } => Some(*card),
        Action::PlayDrawn { .. } => drawn,
        _ => None,
    }
}

fn declared(a: &Action) -> Option<Color> {
    match a {
        Action::Play { declare, .. }
        | Action::Stack { declare, .. }
        | Action::PlayDrawn { declare, .. } => *declare,
        _ => None,
    }
}

fn calls_uno(a: &Action) -> bool {
    matches!(
        a,
        Action::Play { uno: true, .. }
            | Action::Stack { uno: true, .. }
            | Action::PlayDrawn { uno: true, .. }
    )
}

/// The distinct cards `legal` lets this player play, in hand order (face code order).
pub fn playable(obs: &Observation, legal: &[Action]) -> Vec<UnoCard> {
    let mut cards: Vec<UnoCard> = legal.iter().filter_map(|a| card_of(a, obs.drawn)).collect();
    cards.sort();
    cards.dedup();
    cards
}

/// The legal action that plays `card` naming `color` (for a wild; any colour if that one is
/// not offered), calling UNO when that is an option.
pub fn play_action(
    obs: &Observation,
    legal: &[Action],
    card: UnoCard,
    color: Color,
) -> Option<Action> {
    let mut best: Option<(u8, Action)> = None;
    for a in legal {
        if card_of(a, obs.drawn) != Some(card) {
            continue;
        }
        let rank = match declared(a) {
            None => 2,
            Some(c) if c == color => 2,
            Some(_) => 0,
        } + u8::from(calls_uno(a));
        if best.is_none_or(|(r, _)| rank > r) {
            best = Some((rank, *a));
        }
    }
    best.map(|(_, a)| a)
}

/// The colour this player holds most of, not counting one copy of `except` (ties: red,
/// yellow, green, blue order); the current colour when it holds no coloured card.
pub fn most_held_color(obs: &Observation, except: Option<UnoCard>) -> Color {
    let mut counts = [0u32; 4];
    let mut skipped = false;
    for c in &obs.hand {
        if !skipped && Some(*c) == except {
            skipped = true;
            continue;
        }
        if let Some(col) = c.color() {
            counts[col as usize] += 1;
        }
    }
    let mut best = obs.color;
    let mut most = 0;
    for col in Color::ALL {
        if counts[col as usize] > most {
            most = counts[col as usize];
            best = col;
        }
    }
    best
}

/// A uniformly random colour from the agent's seeded generator.
pub fn random_color(ctx: &mut Ctx) -> Color {
    Color::ALL[ctx.rng().below(4)]
}

/// Source E's greedy score of a card: its points (wild 50, action card 20, number its face
/// value), except that a Wild Draw Four scores −1 (greedy plays it only when nothing else
/// fits). Used by `greedy` and `anneal`.
pub fn greedy_score(card: UnoCard) -> f64 {
    if card.is_wd4() {
        -1.0
    } else {
        card.points() as f64
    }
}

/// The card with the highest [`greedy_score`] (the first in hand order among equals).
/// Takes a slice or any iterator of cards, so that a search's playout policy can pick
/// without collecting a list.
pub fn greedy_pick<C: Borrow<UnoCard>>(cards: impl IntoIterator<Item = C>) -> Option<UnoCard> {
    let mut best: Option<UnoCard> = None;
    for c in cards {
        let c = *c.borrow();
        if best.is_none_or(|b| greedy_score(c) > greedy_score(b)) {
            best = Some(c);
        }
    }
    best
}

/// True for Skip, Reverse and Draw Two.
pub fn is_action(card: UnoCard) -> bool {
    matches!(
        card.kind(),
        Some(Kind::Skip | Kind::Reverse | Kind::DrawTwo)
    )
}

/// One decision of a source-E bot with style `style`. Always returns one of `legal` (if
/// `legal` is empty, which the host never sends, `Draw`).
pub fn decide<S: Style>(
    style: &mut S,
    obs: &Observation,
    legal: &[Action],
    ctx: &mut Ctx,
) -> Action {
    let first = legal.first().copied().unwrap_or(Action::Draw);
    let chosen = match obs.decision {
        Decision::ChooseStartColor => {
            let c = style.color(obs, None, ctx);
            Some(Action::ChooseColor(c))
        }
        Decision::Turn | Decision::PenaltyTurn | Decision::AfterDraw => {
            let cards = playable(obs, legal);
            let pick = if obs.decision == Decision::AfterDraw {
                cards.first().copied()
            } else if cards.is_empty() {
                None
            } else {
                style.pick(obs, &cards, ctx)
            };
            match pick {
                Some(card) => {
                    let color = if card.is_wild() {
                        style.color(obs, Some(card), ctx)
                    } else {
                        obs.color
                    };
                    play_action(obs, legal, card, color)
                }
                None => [Action::Draw, Action::AcceptPenalty, Action::Keep]
                    .into_iter()
                    .find(|a| legal.contains(a)),
            }
        }
        Decision::Wd4Challenge => Some(Action::Accept),
        Decision::UnoCatch => Some(Action::CatchUno),
        Decision::Over => None,
    };
    match chosen {
        Some(a) if legal.contains(&a) => a,
        _ => first,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use croupier_sdk::uno::{Options, Uno};
    use croupier_sdk::{Budget, Game, GameRng, Level, Rules, Services};

    struct Quiet(GameRng);
    impl Services for Quiet {
        fn random(&mut self) -> u64 {
            self.0.next_u64()
        }
        fn log(&mut self, _: Level, _: &str) {}
    }

    /// Greedy by score, most-held colour (the `greedy` style, here for the tests).
    struct G;
    impl Style for G {
        fn pick(&mut self, _: &Observation, cards: &[UnoCard], _: &mut Ctx) -> Option<UnoCard> {
            greedy_pick(cards)
        }
        fn color(&mut self, obs: &Observation, played: Option<UnoCard>, _: &mut Ctx) -> Color {
            most_held_color(obs, played)
        }
    }

    #[test]
    fn decisions_are_legal_under_every_preset() {
        for preset in ["official", "house", "two-player"] {
            let opts = Options::preset(preset).unwrap();
            for seed in 0..20 {
                let mut g = Uno::new(&opts, seed).unwrap();
                let mut rng = GameRng::new(seed);
                let mut services = Quiet(GameRng::new(seed));
                let mut legal = Vec::new();
                let mut steps = 0;
                while let Some(s) = g.to_act() {
                    g.legal_actions(&mut legal);
                    let obs = g.observe(s);
                    let budget = Budget::default();
                    let mut ctx = Ctx::new(budget, &mut rng, &mut services);
                    let a = decide(&mut G, &obs, &legal, &mut ctx);
                    assert!(legal.contains(&a), "{a} not legal ({preset})");
                    g.apply(a).unwrap();
                    steps += 1;
                    if steps > 20_000 {
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn greedy_order() {
        let c = |code| UnoCard(code);
        // R3, R Skip, Wild, WD4 → the Wild; without it the Skip; then R3; WD4 last.
        assert_eq!(greedy_pick([c(3), c(10), c(52), c(53)]), Some(c(52)));
        assert_eq!(greedy_pick([c(3), c(10), c(53)]), Some(c(10)));
        assert_eq!(greedy_pick([c(3), c(7), c(53)]), Some(c(7)));
        assert_eq!(greedy_pick([c(53)]), Some(c(53)));
    }
}
