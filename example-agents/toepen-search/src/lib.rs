//! `toepen/search` — the strong Toepen example agent: determinized flat Monte Carlo search
//! over the rules engine (example-agents/toepen-common/README.md: it plays source D's game, preset
//! `plain`, and answers every decision of the other presets too).
//!
//! For each decision with more than one legal action it runs the SDK's determinized flat Monte
//! Carlo search (`croupier_sdk::search::search_stats`): worlds drawn with
//! `Toepen::determinize` (hidden cards dealt at random among the places they can be, keeping
//! every known void, count and known card), every legal action applied in each world, and the
//! round played out with source D's **Reasoning** rule for every seat
//! (`toepen_common::reasoning_card`; nobody knocks, everybody stays). A playout scores
//! (mean penalty the other players took this round) − (penalty this seat took); the action with
//! the best mean wins (ties: the action Reasoning would choose). Every action is played out in
//! the same worlds (common random numbers).
//!
//! Default: `iters=400` playouts per decision, shared by the legal actions (4 actions → 100
//! worlds). Measured in the sandbox: 400 playouts from the first card of a round fit in 40 M
//! fuel (30 M is not enough), i.e. at most ~1/5 of the default 200 M budget. Set it with
//! `toepen/search#iters=N`; the count is also capped at `budget.fuel / 4 / fuel_per_playout`
//! (`fuel_per_playout=100000` by default, also an arg), so a smaller `--fuel` shrinks the
//! search instead of exhausting it.
//!
//! Decided here: the search horizon is the end of the current round (later rounds are a fresh
//! deal, so they carry no card information); the playout policy is Reasoning (cheap,
//! deterministic, and a reasonable model of source D's bots); knocks, stays and folds of the
//! other presets are searched like cards, with playouts in which every opponent stays and
//! nobody knocks again.

use croupier_sdk::search::{Search as Params, best, search_stats};
use croupier_sdk::toepen::{Action, Event, Observation, Options, Toepen, strength};
use croupier_sdk::{Agent, Card, Ctx, Game, GameInfo, GameRng, Seat, Suit};
use toepen_common::{Trick, bit, decide_with, default_answer, legal_cards, reasoning_card};

/// Default number of playouts per decision (shared by the legal actions).
pub const DEFAULT_ITERS: u32 = 400;
/// Default fuel reckoned per playout (measured: see the crate doc), used to cap `iters` so the
/// search spends at most a quarter of the decision's fuel budget.
pub const FUEL_PER_PLAYOUT: u64 = 100_000;

pub struct Search {
    opts: Options,
    iters: u32,
    fuel_per_playout: u64,
}

/// The trick as a playout sees it: the observation's trick, then the engine's events.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Follow {
    led: Option<Suit>,
    best: Option<Card>,
    trick_no: u8,
}

impl Follow {
    fn start(obs: &Observation) -> Follow {
        let t = Trick::read(obs);
        Follow {
            led: t.led,
            best: t.best,
            trick_no: t.number,
        }
    }

    /// `self` (the trick when the world was built) brought up to date with `g`'s events.
    fn now(mut self, g: &Toepen) -> Follow {
        for e in g.events() {
            match &e.event {
                Event::Play { card, .. } => match self.led {
                    None => {
                        self.led = Some(card.suit());
                        self.best = Some(*card);
                    }
                    Some(s) => {
                        let stronger = self.best.is_none_or(|b| strength(*card) > strength(b));
                        if card.suit() == s && stronger {
                            self.best = Some(*card);
                        }
                    }
                },
                Event::TrickWon { .. } => {
                    self.led = None;
                    self.best = None;
                    self.trick_no += 1;
                }
                Event::RoundStart { .. } => {
                    self.led = None;
                    self.best = None;
                    self.trick_no = 1;
                }
                _ => {}
            }
        }
        self
    }
}

/// The playout policy: Reasoning for card plays, source D's answers for the rest.
fn policy(follow: Follow, legal: &[Action]) -> Action {
    let cards = legal_cards(legal);
    if !cards.is_empty() {
        let f = follow;
        if let Some(c) = reasoning_card(cards, f.led, f.best, f.trick_no) {
            return Action::Play(c);
        }
    }
    [
        Action::NoKnock,
        Action::Stay,
        Action::NoClaim,
        Action::NoChallenge,
    ]
    .into_iter()
    .find(|a| legal.contains(a))
    .or(legal.first().copied())
    .unwrap_or(Action::NoClaim)
}

/// Score of a playout for `me`: the mean penalty the others took since `before`, minus its own.
fn score(before: &[u32], g: &Toepen, me: Seat) -> f64 {
    let after = g.scores();
    let gain = |s: usize| {
        after.get(s).copied().unwrap_or(0) as f64 - before.get(s).copied().unwrap_or(0) as f64
    };
    let n = before.len();
    let others: f64 = (0..n).filter(|s| *s != me as usize).map(gain).sum();
    others / (n.max(2) - 1) as f64 - gain(me as usize)
}

impl Search {
    /// The best action by playouts (legal is not empty).
    fn search(&self, obs: &Observation, legal: &[Action], ctx: &mut Ctx) -> Option<Action> {
        let budget_playouts = ctx.budget().fuel / 4 / self.fuel_per_playout.max(1);
        let playouts = (self.iters as u64).min(budget_playouts).max(1) as u32;
        // Ties go to the earlier candidate: put what Reasoning would play first.
        let start = Follow::start(obs);
        let preferred = decide_with(obs, legal, |cards| {
            reasoning_card(cards, start.led, start.best, start.trick_no)
        });
        let mut order: Vec<Action> = vec![preferred];
        order.extend(legal.iter().copied().filter(|a| *a != preferred));
        // Horizon: the end of this round. Every live card is played by then, plus at most one
        // answer per player to a knock the candidate itself makes; stepping a few actions
        // into the next deal changes no score (the policy claims and challenges nothing).
        let live_cards: u32 = (0..obs.players)
            .filter(|s| obs.live & bit(*s) != 0)
            .map(|s| obs.hand_counts.get(s as usize).copied().unwrap_or(0) as u32)
            .sum();
        let params = Params {
            playouts,
            max_steps: live_cards + 2 * obs.players as u32,
            // The playout policy follows the trick through the simulated events (`Follow`).
            events: true,
        };
        let before = obs.scores.clone();
        let stats = search_stats::<Toepen>(
            &self.opts,
            obs,
            &order,
            obs.seat,
            &params,
            ctx.rng(),
            |g: &Toepen, legal: &[Action], _: &mut GameRng| policy(start.now(g), legal),
            |g: &Toepen, me: Seat| score(&before, g, me),
        );
        best(&stats)
    }
}

impl Agent<Toepen> for Search {
    fn new(info: &GameInfo<Toepen>) -> Self {
        Search {
            opts: info.options.clone(),
            iters: info.arg("iters").unwrap_or(DEFAULT_ITERS),
            fuel_per_playout: info.arg("fuel_per_playout").unwrap_or(FUEL_PER_PLAYOUT),
        }
    }

    fn decide(&mut self, obs: &Observation, legal: &[Action], ctx: &mut Ctx) -> Action {
        match legal {
            [] => default_answer(obs, legal).unwrap_or(Action::NoClaim),
            [only] => *only,
            _ => match self.search(obs, legal, ctx) {
                Some(a) if legal.contains(&a) => a,
                _ => legal[0],
            },
        }
    }
}

croupier_sdk::export_toepen!(Search);

#[cfg(test)]
mod tests {
    use super::*;
    use croupier_sdk::{Budget, GameRng, Level, Native, Rules, Services};

    struct Quiet(GameRng);
    impl Services for Quiet {
        fn random(&mut self) -> u64 {
            self.0.next_u64()
        }
        fn log(&mut self, _: Level, _: &str) {}
    }

    /// Plays whole games: seat 0 searches, the others play Reasoning; every answer is legal.
    fn play(preset: &str, games: u64, iters: u32) -> (u32, u32) {
        let opts = Options::preset(preset).unwrap();
        let mut wins = 0;
        let mut rounds = 0;
        for seed in 0..games {
            let mut g = Toepen::new(&opts, seed).unwrap();
            let info = GameInfo::<Toepen> {
                seat: 0,
                players: 4,
                options: opts.clone(),
                seed,
                args: format!("iters={iters}"),
            };
            let mut agent = Native::<Toepen, Search>::new(&info);
            let mut services = Quiet(GameRng::new(seed));
            let budget = Budget {
                fuel: 200_000_000,
                millis: 1000,
                bank_millis: None,
            };
            let mut legal = Vec::new();
            while let Some(s) = g.to_act() {
                g.legal_actions(&mut legal);
                let obs = g.observe(s);
                let a = if s == 0 {
                    agent.decide(&obs, &legal, budget, &mut services)
                } else {
                    let t = Trick::read(&obs);
                    decide_with(&obs, &legal, |c| reasoning_card(c, t.led, t.best, t.number))
                };
                assert!(legal.contains(&a), "{a} not legal in {preset}");
                g.apply(a).unwrap();
            }
            rounds += g.round();
            if g.outcome().unwrap().results[0] == croupier_sdk::rules::SeatResult::Win {
                wins += 1;
            }
        }
        (wins, rounds)
    }

    #[test]
    fn legal_under_every_preset() {
        for preset in ["plain", "standard", "cafe", "drinking"] {
            play(preset, 3, 12);
        }
    }

    #[test]
    #[ignore]
    fn experiment() {
        let iters: u32 = std::env::var("ITERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(400);
        let games: u64 = std::env::var("GAMES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(400);
        let (wins, _) = play("plain", games, iters);
        eprintln!("iters={iters}: {wins}/{games}");
    }

    #[test]
    fn beats_reasoning_in_plain() {
        let (wins, rounds) = play("plain", 40, 80);
        eprintln!("search won {wins} of 40 games ({rounds} rounds)");
        // Reasoning seats alone would win a quarter of the games.
        assert!(wins >= 14, "search won {wins} of 40");
    }
}
