//! `uno/anneal` — source E's **simulated-annealing** bot (example-agents/uno-anneal/README.md,
//! preset `house`).
//!
//! Scores each playable card as `greedy` does (`uno_common::greedy_score`) and plays the best,
//! but accepts a worse card with probability exp(−Δ/T), where Δ is the score it gives up; "the
//! temperature T starts at 10 and is multiplied by 0.9 after each of the agent's turns
//! **(decided)**". T lives in the agent value, which lasts one game. Names the colour it holds
//! most of for a wild, like `greedy`; with no playable card it draws one and plays it if it
//! fits.
//!
//! Decided here: one annealing step per choice — a uniformly random other playable card is
//! proposed and accepted with probability exp(−Δ/T) (always, if it is not worse); a "turn" is
//! a `Turn` or `PenaltyTurn` decision (drawing and then playing the drawn card is the same
//! turn); `anneal#t0=…,cooling=…` change the start temperature and the factor; plus the shared
//! rules of `uno_common`.

use croupier_sdk::uno::{Action, Color, Decision, Observation, Uno, UnoCard};
use croupier_sdk::{Agent, Ctx, GameInfo};
use uno_common::{Style, greedy_pick, greedy_score, most_held_color};

pub struct Anneal {
    temperature: f64,
    cooling: f64,
}

impl Style for Anneal {
    fn pick(&mut self, _obs: &Observation, cards: &[UnoCard], ctx: &mut Ctx) -> Option<UnoCard> {
        let best = greedy_pick(cards)?;
        let others: Vec<UnoCard> = cards.iter().copied().filter(|c| *c != best).collect();
        if others.is_empty() {
            return Some(best);
        }
        let proposal = others[ctx.rng().below(others.len())];
        let delta = greedy_score(best) - greedy_score(proposal);
        let accept = delta <= 0.0
            || (self.temperature > 0.0 && ctx.rng().unit() < (-delta / self.temperature).exp());
        Some(if accept { proposal } else { best })
    }

    fn color(&mut self, obs: &Observation, played: Option<UnoCard>, _ctx: &mut Ctx) -> Color {
        most_held_color(obs, played)
    }
}

impl Agent<Uno> for Anneal {
    fn new(info: &GameInfo<Uno>) -> Self {
        Anneal {
            temperature: info.arg("t0").unwrap_or(10.0),
            cooling: info.arg("cooling").unwrap_or(0.9),
        }
    }

    fn decide(&mut self, obs: &Observation, legal: &[Action], ctx: &mut Ctx) -> Action {
        let a = uno_common::decide(self, obs, legal, ctx);
        if matches!(obs.decision, Decision::Turn | Decision::PenaltyTurn) {
            self.temperature *= self.cooling;
        }
        a
    }
}

croupier_sdk::export_uno!(Anneal);
