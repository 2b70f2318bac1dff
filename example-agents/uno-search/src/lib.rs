//! `uno/search` — the strong UNO example agent: determinized flat Monte Carlo search over the
//! rules engine, with a model of the opponent's hand (STRATEGIES.md, "UNO": source E's game,
//! preset `house`, 2 players; it answers every decision of the other presets too).
//!
//! For each decision with more than one legal action it runs a determinized flat Monte Carlo
//! search (as `croupier_sdk::search::search_stats`, with its own worlds): every legal action
//! applied in each world (the same worlds and random stream for every action), and the game
//! played on with a greedy policy for every seat for at most 20 actions. A finished playout
//! scores 1 for a win, ½ for a draw or shared win, 0 for a loss; one stopped at the horizon is
//! scored by points: 0.5 + (best opponent's hand points − own hand points + the match points
//! the playout moved) / 200, clamped to 0..1. The match points count only in a game of several
//! hands (`WinnerTakesAll`: points won, own against the best opponent's; `CumulativePenalty`:
//! penalties taken, the fewest opponent's against own). Scoring official matches by hands won
//! lost them all to greedy (0 of 60 to 500 points): the search kept its wilds for later and
//! handed their 50 points to greedy whenever greedy went out first; by points it won 19 of 40.
//! The action with the best mean wins; ties go to what `uno/greedy` would play.
//!
//! **Worlds.** `Uno::determinize` deals the unknown pool (the opponent's hand and the draw
//! pile) at random, keeping every public count and every proven fact of the observation. What
//! the search lacks most is the opponent's hand (issue #42: the same search beat greedy 90% of
//! 40 deals when it saw that hand, 62.5% when it did not), and source E's bots give it away:
//! they draw only with nothing playable, play a playable drawn card, take a penalty only with
//! nothing to stack, play their highest-scoring playable card (Wild 50 > action cards 20 >
//! numbers by face, Wild Draw Four last; `uno/anneal` mostly) and name the colour they hold
//! most of. So in two-player games under house-like rules (`model.rs`: stacking, no reshuffle,
//! no challenge), the agent keeps its previous observation and its own choice, and replays the
//! gap to the next decision from the public counts (discard pile, draw pile, hand sizes, our
//! own hand; the host's forced moves of ours included) — or from the deal, at the hand's first
//! decision. Every reading of the gap yields facts of the form "of the opponent's cards now, at
//! most `free` are in this set of faces":
//! * it drew: it held no card of the colour, none of the top card's kind, no Wild and no Wild
//!   Draw Four (legal, lacking the colour); the drawn card was played or unplayable;
//! * it accepted a penalty on a Draw Two: it held no Draw Two (stacked a Wild Draw Four on
//!   one: likewise);
//! * it played a card: it held no playable card that greedy scores higher (a Wild, whenever
//!   it played anything else);
//! * `free` grows by each card it draws since and shrinks by each card of the set it plays (a
//!   play with nothing free contradicts the fact, which is dropped); several readings keep only
//!   what all imply; a gap that cannot be read only loosens the facts;
//! * the colour it named for a wild that was its last move: it holds most of that colour.
//!
//! A world then deals the opponent's hand from the pool oldest card first, each card avoiding
//! the sets it has no room for (the public caps too), the named colour by up to 8 deals; it is
//! put in the observation as known and `Uno::determinize` deals the draw pile from the rest. A
//! hand that cannot be dealt falls back to the plain deal: the model is a belief, the actions
//! are always the legal ones (the test `model_holds_against_greedy` checks every fact against
//! greedy's true hand).
//!
//! **Playouts.** Our seat plays the playable coloured card worth the most points, a Wild only
//! when no coloured card fits, a Wild Draw Four last (keeping wilds played better than source
//! E's wild-first order), names the colour it holds most of, stacks whenever possible; with
//! probability 1/10 a uniformly random playable card. The opponent plays greedy's own order
//! (wilds first), with probability 1/20 a random playable card. Both play a drawn card that
//! fits and never challenge. The horizon (20 actions, not 40) and the random shares were
//! chosen on seeds 0..1599 (the constants below say what was measured).
//!
//! **Measured** (native: the ignored test `versus`, seeds 0..1599, not duplicate; Wilson 95%
//! intervals): against greedy / anneal, the agent before this model 55.1% (52.7–57.5) / 55.6%
//! (53.2–58.0); the model alone, with the old playouts, 61.2% / 62.1%; with the model at 300
//! playouts 63.2% (60.9–65.6) / 62.2% (59.8–64.5), and 59.3% / 58.6% without the model
//! (`model=0`). More playouts pay (against greedy, seeds 0..1199: 63.1% at 300, 65.8% at
//! 1 000, 68.7% at 3 000), so the agent now spends its fuel plan (below): 65.0% (62.3–67.6),
//! seeds 0..1199. Sandboxed, on the unseen seed 20261129 (500 duplicate games each): 65.4%
//! against greedy and 63.6% against anneal, where 300 playouts took 62.0% and 62.4%.
//! Issue #42's 70% is not reached: the same search seeing the opponent's hand still wins
//! about 90% (`ceiling`, 400 deals: 89.8% at 300 playouts), and what the opponent did not play
//! says too little of what it holds.
//!
//! **Fuel.** The agent cannot read the fuel it has used, so it counts its work
//! ([`croupier_sdk::search::Work`]: worlds, playouts, simulated moves, legal actions listed,
//! plus the model's sampling and the worlds dealt without the model) and converts it into
//! fuel by a cost model fitted in the sandbox ([`FUEL_PER_WORLD`] and the rest). It plays
//! worlds until one more would pass its plan, half the decision's budget ([`SHARE`]): at the
//! default 200 M, a decision took 64 M fuel at the median and 107 M at most over the 23 779
//! decisions of the benchmark above (no fault), where 300 fixed playouts took 25 M on average
//! and left the rest unused. `iters` (default 100 000) only caps the playouts, shared by the
//! legal actions (e.g. 5 actions → `iters / 5` worlds at most). Args (`uno/search#...`):
//! `iters`, `budget` (the fuel to plan from instead of the host's), `steps` (horizon),
//! `oppeps` / `myeps` (random shares in percent), `oppgreedy=0` (the opponent plays our
//! order), `model=0` (no opponent model), `plays=0`, `named=0`, `start=0` (without the play
//! facts, the named colour, the replay from the deal).
//!
//! **Cost per playout.** Two changes cut the search's instructions by a fifth (callgrind,
//! native, the same 8 games at 300 playouts: 1.191 G → 0.947 G): the UNO engine no longer
//! builds a finished hand's texts when the simulation records no events, and the playout
//! policy and the score read the hand as face counts (`Uno::hand_counts`,
//! `Uno::hand_points`) instead of building lists. The model also samples a hand by rejection
//! from a pool built once per decision (the sampler was a tenth of those instructions; it
//! draws differently, so the games differ and the two are not comparable).

use croupier_sdk::search::search_stats_until;
use croupier_sdk::search::{Search as Params, Work, best, outcome_value};
use croupier_sdk::uno::{Action, Color, Observation, Options, Scoring, Uno, UnoCard};
use croupier_sdk::{Agent, Ctx, Game, GameInfo, GameRng, Seat};
use std::cell::Cell;
use uno_common::{Style, greedy_pick, most_held_color};

mod model;
use model::Constraint;

/// Most playouts per decision by default: only a bound; the fuel plan decides.
pub const DEFAULT_ITERS: u32 = 100_000;
/// The fuel assumed when the host gives no budget (the host's default).
pub const DEFAULT_FUEL: u64 = 200_000_000;
/// The search plans for this share of the decision's fuel (1/`SHARE`); the rest is the
/// margin for the cost model's error and for reading the opponent's moves.
pub const SHARE: u64 = 2;
/// The cost model: fuel of one world (the opponent's hand sampled and the rest dealt), and
/// more for one dealt without the model (the public caps make the plain deal costlier), of
/// one playout's set-up (the world copied, the candidate applied, the end scored), of one
/// simulated move (legal actions listed, the policy, the move applied), of one action listed
/// and of one unit of the model's sampling (`model::sample_hand`).
///
/// Fitted in the sandbox (each decision's fuel, from a host built to print it, beside the
/// agent's counts, logged) to 14 101 decisions against `greedy`, `anneal` and `primary`
/// (seed 20261129) as the weights that never fall short, with the least excess: a
/// decision's fuel was 49–100% of the model's figure, median 64%; fitted on half of them,
/// the other half stayed within 100.3%.
/// What else moves the cost by up to twice was not found: not the replay of the opponent's
/// moves, the named colour's tries, the cards drawn in the playouts, nor the plain deals
/// alone. So [`SHARE`] keeps half the budget as the margin.
pub const FUEL_PER_WORLD: u64 = 32_000;
pub const FUEL_PER_PLAIN_WORLD: u64 = 30_000;
pub const FUEL_PER_PLAYOUT: u64 = 15_000;
pub const FUEL_PER_STEP: u64 = 2_100;
pub const FUEL_PER_LEGAL: u64 = 1_100;
pub const FUEL_PER_SAMPLING: u64 = 130;

/// The fuel the cost model gives `work`, with `sampling` units of the model's work in
/// dealing hands and `plain` worlds dealt without the model.
pub fn fuel_of(work: &Work, sampling: u64, plain: u64) -> u64 {
    work.worlds * FUEL_PER_WORLD
        + plain * FUEL_PER_PLAIN_WORLD
        + work.playouts * FUEL_PER_PLAYOUT
        + work.steps * FUEL_PER_STEP
        + work.legal * FUEL_PER_LEGAL
        + sampling * FUEL_PER_SAMPLING
}

/// Whether a search that did `work` stops before its next world, planning for `plan` fuel:
/// it stops when one more world as costly as the average so far would pass the plan.
pub fn over_plan(work: &Work, sampling: u64, plain: u64, plan: u64) -> bool {
    work.one_more_passes(fuel_of(work, sampling, plain), plan)
}
/// Chance in percent that a simulated opponent plays a random playable card instead of
/// greedy's (it is greedy or annealing greedy). Against greedy, seeds 0..1599: 5, 0 and 25
/// within a point of each other (61.2%, 61.6%, 60.4%).
const OPP_EPS: u32 = 5;
/// The same for our own seat in the playouts. Against greedy, seeds 0..1599: 10 won 64.0%,
/// 25 61.2% (in another build, 10 59.5% and 0 60.1%: about the noise of 1,600 games).
const MY_EPS: u32 = 10;
/// Hands dealt at most per world to meet the colour the opponent named.
const NAMED_TRIES: usize = 8;
/// Most simulated actions in one playout. Against greedy and anneal together (seeds 0..1599,
/// 3,200 games): 20 won 62.7%, 10 57.8%, 30 61.7%, 40 58.6%.
const MAX_STEPS: u32 = 20;

pub struct Search {
    opts: Options,
    iters: u32,
    /// The fuel to plan from instead of the host's budget (`budget`; for the margin check).
    budget: Option<u64>,
    /// Playout horizon (`steps`).
    max_steps: u32,
    /// Whether the opponent model shapes the worlds (`model=0` turns it off).
    model: bool,
    /// Whether a play also says that no card greedy prefers was held (`plays=0`: not).
    plays_inform: bool,
    /// Chance in percent that a simulated opponent plays a random playable card (`oppeps`).
    opp_eps: u32,
    /// The same for our own seat (`myeps`).
    my_eps: u32,
    /// Whether simulated opponents play greedy's order (`oppgreedy=0`: the own order).
    opp_greedy: bool,
    /// Our last decision (its observation and what we chose), to read the gap to the next.
    last: Option<(Observation, Action)>,
    /// What the opponent's moves say about its hand.
    cons: Vec<Constraint>,
    /// The colour the opponent named for the wild it just played (`named=0`: not used).
    named: Option<Color>,
    /// Whether the named colour shapes the worlds (`named`).
    use_named: bool,
    /// Whether the hand's first decision replays the opponent's moves since the deal
    /// (`start`).
    use_start: bool,
}

/// The card a `Play` or `Stack` plays.
fn played_card(a: &Action) -> Option<UnoCard> {
    match a {
        Action::Play { card, .. } | Action::Stack { card, .. } => Some(*card),
        _ => None,
    }
}

/// The most frequent colour in a hand of face counts (`Uno::hand_counts`; ties: red,
/// yellow, green, blue), or `fallback` for a hand without a coloured card.
fn hand_color(counts: &[u8], fallback: Color) -> Color {
    let mut best = fallback;
    let mut most = 0;
    for col in Color::ALL {
        let start = 13 * col as usize;
        let n: u32 = counts
            .get(start..start + 13)
            .map_or(0, |c| c.iter().map(|&k| k as u32).sum());
        if n > most {
            most = n;
            best = col;
        }
    }
    best
}

fn declared(a: &Action) -> Option<Color> {
    match a {
        Action::Play { declare, .. }
        | Action::Stack { declare, .. }
        | Action::PlayDrawn { declare, .. } => *declare,
        _ => None,
    }
}

/// How the playouts play (see the crate doc).
#[derive(Copy, Clone, Debug)]
struct Policy {
    /// Our seat.
    me: Seat,
    /// Chance in percent of a random playable card for the other seats.
    opp_eps: u32,
    /// The same for our seat.
    my_eps: u32,
    /// Whether the other seats rank cards as greedy does (else as we do).
    opp_greedy: bool,
}

/// The playout policy with the old defaults for every seat (the clairvoyant experiment).
#[cfg(test)]
fn policy(g: &Uno, legal: &[Action], rng: &mut GameRng) -> Action {
    Policy {
        me: g.to_act().unwrap_or(0),
        opp_eps: 25,
        my_eps: 25,
        opp_greedy: false,
    }
    .act(g, legal, rng)
}

impl Policy {
    /// The playout's move. Allocation-free: it runs at every simulated step (a list of the
    /// plays and a copy of the hand per step were a tenth of a playout).
    fn act(&self, g: &Uno, legal: &[Action], rng: &mut GameRng) -> Action {
        let first = legal.first().copied().unwrap_or(Action::Draw);
        // A drawn card that fits is played.
        if let Some(a) = legal.iter().find(|a| matches!(a, Action::PlayDrawn { .. })) {
            return match declared(a) {
                None => *a,
                Some(_) => pick_declared(g, legal, |x| matches!(x, Action::PlayDrawn { .. })),
            };
        }
        let mine = g.to_act() == Some(self.me);
        let is_play = |a: &&Action| matches!(a, Action::Play { .. } | Action::Stack { .. });
        let plays = legal.iter().filter(is_play).count();
        if plays > 0 {
            let eps = if mine { self.my_eps } else { self.opp_eps };
            let chosen = if eps > 0 && (rng.below(100) as u32) < eps {
                legal
                    .iter()
                    .filter(is_play)
                    .nth(rng.below(plays))
                    .and_then(played_card)
            } else if mine || !self.opp_greedy {
                legal
                    .iter()
                    .filter_map(played_card)
                    .max_by_key(|c| policy_rank(*c))
            } else {
                // Greedy's order: the first of the best scores.
                greedy_pick(legal.iter().filter_map(played_card))
            };
            if let Some(card) = chosen {
                return pick_declared(g, legal, |x| played_card(x) == Some(card));
            }
        }
        for a in [
            Action::Draw,
            Action::AcceptPenalty,
            Action::Keep,
            Action::Accept,
            Action::CatchUno,
        ] {
            if legal.contains(&a) {
                return a;
            }
        }
        if let Some(a) = legal.iter().find(|a| matches!(a, Action::ChooseColor(_))) {
            let counts = g.to_act().map_or(&[][..], |s| g.hand_counts(s));
            let want = Action::ChooseColor(hand_color(counts, Color::Red));
            return if legal.contains(&want) { want } else { *a };
        }
        first
    }
}

/// The playout policy's preference: coloured cards by points, then Wild, then Wild Draw Four
/// (wilds are kept for when nothing else fits).
fn policy_rank(card: UnoCard) -> i32 {
    if card.is_wd4() {
        -2
    } else if card.is_wild() {
        -1
    } else {
        card.points() as i32
    }
}

/// Among the legal actions matching `which`, the one naming the colour the actor holds most
/// of (not counting wilds), calling UNO when possible.
fn pick_declared(g: &Uno, legal: &[Action], which: impl Fn(&Action) -> bool) -> Action {
    let Some(&fallback) = legal.iter().find(|a| which(a)) else {
        return legal.first().copied().unwrap_or(Action::Draw);
    };
    let wants_color = legal.iter().any(|a| which(a) && declared(a).is_some());
    let color = if wants_color {
        let counts = g.to_act().map_or(&[][..], |s| g.hand_counts(s));
        Some(hand_color(counts, g.current_color()))
    } else {
        None
    };
    let uno = |a: &Action| {
        matches!(
            a,
            Action::Play { uno: true, .. }
                | Action::Stack { uno: true, .. }
                | Action::PlayDrawn { uno: true, .. }
        )
    };
    legal
        .iter()
        .filter(|a| which(a))
        .max_by_key(|a| u8::from(declared(a) == color) * 2 + u8::from(uno(a)))
        .copied()
        .unwrap_or(fallback)
}

/// Score of the state where a playout stopped, for `seat`; `start` is every seat's score
/// when the search began. A finished game scores its outcome. Otherwise what counts is what
/// the match would make of the position: the hand in play by its card points (fewer than the
/// best opponent is better: the one who goes out scores the others' cards) plus, in a game of
/// several hands (`WinnerTakesAll`, `CumulativePenalty`), the score the playout's finished
/// hands moved. Counting hands won instead of points lost every official match against
/// greedy (0 of 60 to 500 points, while it won 60% of single hands): it kept its wilds, 50
/// points each, for later, and handed them to greedy whenever greedy went out first.
fn evaluate(g: &Uno, seat: Seat, scoring: Scoring, start: &[i64]) -> f64 {
    if g.outcome().is_some() {
        return outcome_value(g, seat);
    }
    let points = |s: Seat| g.hand_points(s) as f64;
    let gained = |s: Seat| {
        let before = start.get(s as usize).copied().unwrap_or(0);
        g.scores()
            .get(s as usize)
            .map_or(0.0, |now| (now - before) as f64)
    };
    let others = || (0..g.num_players() as Seat).filter(|s| *s != seat);
    let best_other = others().map(points).fold(f64::INFINITY, f64::min);
    if !best_other.is_finite() {
        return 0.5;
    }
    let hand = best_other - points(seat);
    let match_points = match scoring {
        Scoring::SingleHand => 0.0,
        // Points won: mine against the best opponent's.
        Scoring::WinnerTakesAll => {
            gained(seat) - others().map(gained).fold(f64::NEG_INFINITY, f64::max)
        }
        // Penalties taken: the fewest opponent's against mine.
        Scoring::CumulativePenalty => {
            others().map(gained).fold(f64::INFINITY, f64::min) - gained(seat)
        }
    };
    (0.5 + (hand + match_points) / 200.0).clamp(0.0, 1.0)
}

/// `uno/greedy`'s choice, to order the candidates (ties go to the first).
struct GreedyStyle;
impl Style for GreedyStyle {
    fn pick(&mut self, _: &Observation, cards: &[UnoCard], _: &mut Ctx) -> Option<UnoCard> {
        greedy_pick(cards)
    }
    fn color(&mut self, obs: &Observation, played: Option<UnoCard>, _: &mut Ctx) -> Color {
        most_held_color(obs, played)
    }
}

/// What a decision's worlds are dealt with when the model has something to say.
struct Shaped {
    /// The observation, its `known` opponent hand filled per world.
    obs: Observation,
    /// The model's constraints and the public caps.
    cons: Vec<Constraint>,
    /// The unknown pool as cards (`model::pool_of`).
    all: Vec<UnoCard>,
    /// Scratch for `model::sample_hand`.
    pool: Vec<UnoCard>,
    cands: Vec<usize>,
}

impl Search {
    /// Reads what the opponent did since our last decision (or since the deal) into the
    /// constraints.
    fn observe(&mut self, obs: &Observation) {
        let opp = 1 - (obs.seat as usize).min(1);
        let hand = obs.hand_sizes.get(opp).copied().unwrap_or(0);
        self.named = None;
        match self.last.take() {
            Some((prev, action)) if prev.hand_no == obs.hand_no => {
                match model::replay(&prev, action, obs, self.plays_inform) {
                    Some(paths) => {
                        model::update_paths(&mut self.cons, &paths, hand);
                        self.named = model::named_last(&paths).filter(|_| self.use_named);
                    }
                    None => {
                        if !model::update_blind(&mut self.cons, &prev, obs, opp) {
                            self.cons.clear();
                        }
                    }
                }
            }
            _ => {
                self.cons.clear();
                if !self.use_start {
                    return;
                }
                if let Some(paths) =
                    model::replay_start(obs, self.opts.hand_size, self.plays_inform)
                {
                    model::update_paths(&mut self.cons, &paths, hand);
                    self.named = model::named_last(&paths).filter(|_| self.use_named);
                }
            }
        }
    }

    /// One world: the plain deal, or with the opponent's hand dealt to meet the model.
    /// `counts`: the model's work in dealing hands ([`model::sample_hand`]) and the worlds
    /// dealt without the model, for the cost model.
    fn world(
        &self,
        obs: &Observation,
        shaped: Option<&mut Shaped>,
        rng: &mut GameRng,
        counts: (&Cell<u64>, &Cell<u64>),
    ) -> Uno {
        let (sampling, plain) = counts;
        if let Some(Shaped {
            obs: o,
            cons,
            all,
            pool,
            cands,
        }) = shaped
        {
            let opp = 1 - (obs.seat as usize).min(1);
            let n = obs.hand_sizes.get(opp).copied().unwrap_or(0) as usize;
            // The named colour by rejection: a few tries, then the last hand that meets the
            // constraints (a belief, not worth much fuel).
            let mut got = None;
            for _ in 0..NAMED_TRIES {
                let mut work = sampling.get();
                let hand = model::sample_hand(all, n, cons, rng, (pool, cands), &mut work);
                sampling.set(work);
                let Some(hand) = hand else {
                    break;
                };
                let fits = self.named.is_none_or(|c| model::names(&hand, c));
                got = Some(hand);
                if fits {
                    break;
                }
            }
            if let Some(hand) = got
                && let Some(k) = o.known.get_mut(opp)
            {
                *k = hand;
                return Uno::determinize(&self.opts, o, rng);
            }
        }
        plain.set(plain.get() + 1);
        Uno::determinize(&self.opts, obs, rng)
    }

    fn search(&self, obs: &Observation, legal: &[Action], ctx: &mut Ctx) -> Option<Action> {
        let fuel = match (self.budget, ctx.budget().fuel) {
            (Some(f), _) => f,
            (None, 0) => DEFAULT_FUEL,
            (None, f) => f,
        };
        let plan = fuel / SHARE;
        let preferred = uno_common::decide(&mut GreedyStyle, obs, legal, ctx);
        let mut order: Vec<Action> = vec![preferred];
        order.extend(legal.iter().copied().filter(|a| *a != preferred));
        let opp = 1 - (obs.seat as usize).min(1);
        // The model shapes the worlds when it has something to say and nothing else is known
        // of the opponent's hand.
        let mut shaped = None;
        if self.model
            && model::applies(&self.opts)
            && obs.known.get(opp).is_some_and(|k| k.is_empty())
        {
            let mut cons = self.cons.clone();
            if !cons.is_empty() || self.named.is_some() {
                model::cap_constraints(obs, opp, &mut cons);
                shaped = Some(Shaped {
                    obs: obs.clone(),
                    cons,
                    all: model::pool_of(&obs.unseen),
                    pool: Vec::new(),
                    cands: Vec::new(),
                });
            }
        }
        let policy = Policy {
            me: obs.seat,
            opp_eps: self.opp_eps,
            my_eps: self.my_eps,
            opp_greedy: self.opp_greedy,
        };
        let params = Params {
            playouts: self.iters.max(1),
            max_steps: self.max_steps,
            // Neither the playout policy nor the score reads the simulated events.
            events: false,
        };
        let (scoring, start) = (self.opts.scoring, &obs.scores);
        let (sampling, plain) = (Cell::new(0), Cell::new(0));
        let stats = search_stats_until::<Uno>(
            |rng| self.world(obs, shaped.as_mut(), rng, (&sampling, &plain)),
            &order,
            obs.seat,
            &params,
            ctx.rng(),
            |g, l, r| policy.act(g, l, r),
            |g, seat| evaluate(g, seat, scoring, start),
            |work| over_plan(work, sampling.get(), plain.get(), plan),
        );
        best(&stats)
    }
}

impl Agent<Uno> for Search {
    fn new(info: &GameInfo<Uno>) -> Self {
        Search {
            opts: info.options.clone(),
            iters: info.arg("iters").unwrap_or(DEFAULT_ITERS),
            budget: info.arg("budget"),
            max_steps: info.arg("steps").unwrap_or(MAX_STEPS),
            model: info.arg::<u32>("model").unwrap_or(1) != 0,
            plays_inform: info.arg::<u32>("plays").unwrap_or(1) != 0,
            opp_eps: info.arg("oppeps").unwrap_or(OPP_EPS),
            my_eps: info.arg("myeps").unwrap_or(MY_EPS),
            opp_greedy: info.arg::<u32>("oppgreedy").unwrap_or(1) != 0,
            last: None,
            cons: Vec::new(),
            named: None,
            use_named: info.arg::<u32>("named").unwrap_or(1) != 0,
            use_start: info.arg::<u32>("start").unwrap_or(1) != 0,
        }
    }

    fn decide(&mut self, obs: &Observation, legal: &[Action], ctx: &mut Ctx) -> Action {
        let modelled = self.model && model::applies(&self.opts);
        if modelled {
            self.observe(obs);
        }
        let a = match legal {
            [] => Action::Draw,
            [only] => *only,
            _ => match self.search(obs, legal, ctx) {
                Some(a) if legal.contains(&a) => a,
                _ => legal[0],
            },
        };
        if modelled {
            self.last = Some((obs.clone(), a));
        }
        a
    }
}

croupier_sdk::export_uno!(Search);

#[cfg(test)]
mod tests {
    use super::*;
    use croupier_sdk::rules::SeatResult;
    use croupier_sdk::search::search_stats_in;
    use croupier_sdk::{Budget, Level, Native, Rules, Services};

    struct Quiet(GameRng);
    impl Services for Quiet {
        fn random(&mut self) -> u64 {
            self.0.next_u64()
        }
        fn log(&mut self, _: Level, _: &str) {}
    }

    /// Seat 0 searches, the others play greedy; returns seat 0's wins.
    fn play(preset: &str, players: usize, games: u64, iters: u32) -> u32 {
        play_args(
            preset,
            players,
            0..games,
            &format!("iters={iters}"),
            Opp::Greedy,
        )
    }

    /// Seat 0 searches with `args`, the others play `opp`, over deals (seeds) `seeds`.
    fn play_args(
        preset: &str,
        players: usize,
        seeds: std::ops::Range<u64>,
        args: &str,
        opp: Opp,
    ) -> u32 {
        play_with(preset, players, seeds, opp, |info| {
            let mut agent = Native::<Uno, Search>::new(&GameInfo {
                args: args.to_string(),
                ..info.clone()
            });
            let mut services = Quiet(GameRng::new(info.seed));
            move |_: &Uno, obs: &Observation, legal: &[Action], budget: Budget| {
                agent.decide(obs, legal, budget, &mut services)
            }
        })
    }

    /// The house opponents: `uno/greedy`, and `uno/anneal` (its rule, copied here).
    #[derive(Copy, Clone, Debug, PartialEq)]
    enum Opp {
        Greedy,
        Anneal,
        /// A uniformly random legal action: nothing like the model.
        Random,
    }

    struct AnnealStyle {
        temperature: f64,
    }
    impl Style for AnnealStyle {
        fn pick(&mut self, _: &Observation, cards: &[UnoCard], ctx: &mut Ctx) -> Option<UnoCard> {
            let best = greedy_pick(cards)?;
            let others: Vec<UnoCard> = cards.iter().copied().filter(|c| *c != best).collect();
            if others.is_empty() {
                return Some(best);
            }
            let proposal = others[ctx.rng().below(others.len())];
            let delta = uno_common::greedy_score(best) - uno_common::greedy_score(proposal);
            let accept = delta <= 0.0
                || (self.temperature > 0.0 && ctx.rng().unit() < (-delta / self.temperature).exp());
            Some(if accept { proposal } else { best })
        }
        fn color(&mut self, obs: &Observation, played: Option<UnoCard>, _: &mut Ctx) -> Color {
            most_held_color(obs, played)
        }
    }

    /// Seat 0 decides with what `seat0` makes for each deal (it sees the true state) when it
    /// has a choice (the host plays forced moves itself), the others play `opp`; returns
    /// seat 0's wins over deals (seeds) `seeds`.
    fn play_with<D>(
        preset: &str,
        players: usize,
        seeds: std::ops::Range<u64>,
        opp: Opp,
        mut seat0: impl FnMut(&GameInfo<Uno>) -> D,
    ) -> u32
    where
        D: FnMut(&Uno, &Observation, &[Action], Budget) -> Action,
    {
        // `preset:N` plays to N points instead of the preset's target (short official matches).
        let (name, target) = match preset.split_once(':') {
            Some((name, t)) => (name, t.parse().ok()),
            None => (preset, None),
        };
        let mut opts = Options::preset(name).unwrap();
        if let Some(t) = target {
            opts.target_score = t;
        }
        opts.set_players(players).unwrap();
        let mut wins = 0;
        for seed in seeds {
            let mut g = Uno::new(&opts, seed).unwrap();
            let info = GameInfo::<Uno> {
                seat: 0,
                players: players as u8,
                options: opts.clone(),
                seed,
                args: String::new(),
            };
            let mut decide = seat0(&info);
            let mut services = Quiet(GameRng::new(seed));
            let mut rng = GameRng::new(seed ^ 77);
            let mut anneal: Vec<AnnealStyle> = (0..players)
                .map(|_| AnnealStyle { temperature: 10.0 })
                .collect();
            let budget = Budget {
                fuel: 200_000_000,
                millis: 1000,
                bank_millis: None,
            };
            let mut legal = Vec::new();
            let mut steps = 0;
            while let Some(s) = g.to_act() {
                g.legal_actions(&mut legal);
                let obs = g.observe(s);
                let a = if legal.len() == 1 {
                    legal[0]
                } else if s == 0 {
                    decide(&g, &obs, &legal, budget)
                } else {
                    let mut ctx = Ctx::new(budget, &mut rng, &mut services);
                    match opp {
                        Opp::Random => legal[ctx.rng().below(legal.len())],
                        Opp::Greedy => uno_common::decide(&mut GreedyStyle, &obs, &legal, &mut ctx),
                        Opp::Anneal => {
                            let style = &mut anneal[s as usize];
                            let a = uno_common::decide(style, &obs, &legal, &mut ctx);
                            if matches!(
                                obs.decision,
                                croupier_sdk::uno::Decision::Turn
                                    | croupier_sdk::uno::Decision::PenaltyTurn
                            ) {
                                style.temperature *= 0.9;
                            }
                            a
                        }
                    }
                };
                assert!(legal.contains(&a), "{a} not legal in {preset}");
                g.apply(a).unwrap();
                steps += 1;
                if steps > 300_000 {
                    break;
                }
            }
            if g.outcome().map(|o| o.results[0]) == Some(SeatResult::Win) {
                wins += 1;
            }
        }
        wins
    }

    /// Search with `ARGS` (e.g. `model=0`) against `OPP` (`greedy` or `anneal`) in every other
    /// seat, on deals `START..START+GAMES` (0..400) of `PRESET` (house) with `PLAYERS` (2): the
    /// tuning bench (tune on seeds below 1600 only).
    #[test]
    #[ignore]
    fn versus() {
        let var = |k: &str, d: u64| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(d)
        };
        let games = var("GAMES", 400);
        let start = var("START", 0);
        let args = std::env::var("ARGS").unwrap_or_default();
        let opp = match std::env::var("OPP").as_deref() {
            Ok("anneal") => Opp::Anneal,
            _ => Opp::Greedy,
        };
        let preset = std::env::var("PRESET").unwrap_or_else(|_| "house".into());
        let players = var("PLAYERS", 2) as usize;
        let k = play_args(&preset, players, start..start + games, &args, opp);
        let (lo, hi) = wilson(k, games);
        eprintln!(
            "{args:?} vs {opp:?}, seeds {start}..{}: {k}/{games} = {:.1}% ({lo:.1}-{hi:.1}%)",
            start + games,
            100.0 * k as f64 / games as f64
        );
    }

    /// The same flat Monte Carlo search, but clairvoyant: it knows every opponent's hand, and
    /// with `pile` the draw pile's order too (every world is then the true state); without,
    /// each world deals the draw pile at random from what is left. Greedy's choice first, as
    /// the agent orders its candidates.
    fn clairvoyant(
        g: &Uno,
        obs: &Observation,
        legal: &[Action],
        iters: u32,
        pile: bool,
        rng: &mut GameRng,
    ) -> Action {
        if legal.len() < 2 {
            return legal.first().copied().unwrap_or(Action::Draw);
        }
        let mut quiet = Quiet(GameRng::new(0));
        let mut r = GameRng::new(rng.next_u64());
        let budget = Budget {
            fuel: 200_000_000,
            millis: 1000,
            bank_millis: None,
        };
        let mut ctx = Ctx::new(budget, &mut r, &mut quiet);
        let preferred = uno_common::decide(&mut GreedyStyle, obs, legal, &mut ctx);
        let mut order = vec![preferred];
        order.extend(legal.iter().copied().filter(|a| *a != preferred));
        let mut seen = obs.clone();
        for s in 0..g.num_players() as Seat {
            if s != obs.seat {
                seen.known[s as usize] = g.hand(s).to_vec();
            }
        }
        let opts = Options::preset("house").unwrap();
        let params = Params {
            playouts: iters,
            max_steps: MAX_STEPS,
            events: false,
        };
        let stats = search_stats_in::<Uno>(
            |rng| {
                if pile {
                    g.clone()
                } else {
                    Uno::determinize(&opts, &seen, rng)
                }
            },
            &order,
            obs.seat,
            &params,
            rng,
            policy,
            |g, seat| evaluate(g, seat, Scoring::SingleHand, &obs.scores),
        );
        best(&stats).unwrap_or(preferred)
    }

    /// Wilson's 95% interval of `k` wins in `n`, in percent.
    fn wilson(k: u32, n: u64) -> (f64, f64) {
        let (k, n, z) = (k as f64, n as f64, 1.96f64);
        let p = k / n;
        let c = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
        let h = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
        (100.0 * (c - h), 100.0 * (c + h))
    }

    /// Issue #42's ceiling: how often this search beats greedy when it sees everything (the
    /// opponent's hand and the draw pile's order), beside the fair agent on the same deals.
    /// `GAMES` deals (300), `ITERS` playouts (300). A fair agent cannot expect to beat what
    /// the same search does with every card known.
    #[test]
    #[ignore]
    fn ceiling() {
        let var = |k: &str, d: u64| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(d)
        };
        let games = var("GAMES", 300);
        let iters = var("ITERS", 300) as u32;
        let fair = play("house", 2, games, iters);
        let sees = |pile: bool| {
            play_with("house", 2, 0..games, Opp::Greedy, |info| {
                let mut rng = GameRng::new(info.seed ^ 0x5eed);
                move |g: &Uno, obs: &Observation, legal: &[Action], _: Budget| {
                    clairvoyant(g, obs, legal, iters, pile, &mut rng)
                }
            })
        };
        let hands = sees(false);
        let all = sees(true);
        for (what, k) in [("fair", fair), ("sees hands", hands), ("sees all", all)] {
            let (lo, hi) = wilson(k, games);
            eprintln!(
                "{what:>11}, {iters} playouts: {k}/{games} = {:.1}% ({lo:.1}-{hi:.1}%)",
                100.0 * k as f64 / games as f64
            );
        }
    }

    /// The model's facts hold against greedy: at every decision of ours (seat 0 playing
    /// greedy's own choices, the host's forced moves skipped), the opponent's true hand meets
    /// every constraint; and most gaps are read.
    #[test]
    fn model_holds_against_greedy() {
        let mut opts = Options::preset("house").unwrap();
        opts.set_players(2).unwrap();
        let (mut read, mut gaps, mut facts) = (0, 0, 0);
        for seed in 0..60 {
            let mut g = Uno::new(&opts, seed).unwrap();
            let info = GameInfo::<Uno> {
                seat: 0,
                players: 2,
                options: opts.clone(),
                seed,
                args: String::new(),
            };
            let mut agent = Search::new(&info);
            let mut services = Quiet(GameRng::new(seed));
            let mut rng = GameRng::new(seed ^ 77);
            let mut legal = Vec::new();
            while let Some(s) = g.to_act() {
                g.legal_actions(&mut legal);
                let obs = g.observe(s);
                let mut ctx = Ctx::new(Budget::default(), &mut rng, &mut services);
                let a = if legal.len() == 1 {
                    legal[0]
                } else {
                    uno_common::decide(&mut GreedyStyle, &obs, &legal, &mut ctx)
                };
                if s == 0 && legal.len() > 1 {
                    if let Some((prev, act)) = &agent.last {
                        gaps += 1;
                        if model::replay(prev, *act, &obs, true).is_some_and(|p| p.len() == 1) {
                            read += 1;
                        }
                    }
                    agent.observe(&obs);
                    let hand = g.hand(1);
                    for c in &agent.cons {
                        facts += 1;
                        let inside = hand.iter().filter(|x| c.faces & (1u64 << x.0) != 0).count();
                        assert!(
                            inside <= c.free as usize,
                            "seed {seed}: {c:?} broken by {hand:?} (top {}, {:?})",
                            obs.top,
                            obs.color
                        );
                    }
                    if let Some(c) = agent.named {
                        facts += 1;
                        assert!(
                            model::names(&hand, c),
                            "seed {seed}: {hand:?} would not name {c:?}"
                        );
                    }
                    agent.last = Some((obs.clone(), a));
                }
                g.apply(a).unwrap();
            }
        }
        eprintln!("{read} of {gaps} gaps read, {facts} facts checked");
        assert!(read * 10 >= gaps * 9, "only {read} of {gaps} gaps read");
        assert!(facts > 100, "{facts} facts");
    }

    /// The model is a belief: against an opponent it does not fit, the agent still plays
    /// only legal actions (`play_with` checks each) and does not panic.
    #[test]
    fn legal_against_a_random_opponent() {
        play_args("house", 2, 0..8, "iters=30", Opp::Random);
    }

    #[test]
    fn legal_under_every_preset() {
        play("house", 2, 3, 20);
        play("official", 3, 1, 10);
        play("two-player", 2, 1, 10);
    }

    #[test]
    #[ignore]
    fn experiment() {
        let iters: u32 = std::env::var("ITERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(300);
        let games: u64 = std::env::var("GAMES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(200);
        let base = play("house", 2, games, 1);
        let wins = play("house", 2, games, iters);
        eprintln!("iters=1: {base}/{games}; iters={iters}: {wins}/{games}");
    }

    /// Regression (issue #42): in a game of several hands the search counts points, not
    /// hands won. Counting hands, it kept its wilds (50 points each) for later and handed them
    /// to greedy whenever greedy went out first: it won 9 of 40 official two-player matches to
    /// 100 points, and none of 60 to 500, while it won 60% of single hands. It now wins 27.
    #[test]
    fn wins_official_matches_on_points() {
        let wins = play_args("official:100", 2, 0..40, "iters=300", Opp::Greedy);
        eprintln!("search won {wins} of 40 official matches to 100 points against greedy");
        assert!(
            wins >= 16,
            "search won {wins} of 40 official matches to 100 points"
        );
    }

    /// A real win: at 300 playouts, over 300 two-player deals (seeds 0..300), search takes
    /// 188 games from greedy: 62.7%, Wilson 95% interval 57.1–67.9%. The agent before the
    /// opponent model and the new playout settings took 169 (56.3%); without the model
    /// (`model=0`) this one takes 181. The bound, 175 (58.3%), leaves room for changes that
    /// move a few games and fails for the old agent.
    #[test]
    fn beats_greedy_in_house() {
        let games = 300;
        // 300 playouts, as the agent had before it spent its fuel plan: the test is about
        // a real win, not the strength, which is a benchmark (BENCHMARKS.md, "Bosses").
        let wins = play("house", 2, games, 300);
        eprintln!("search won {wins} of {games} against greedy");
        assert!(
            wins >= 175,
            "search won {wins} of {games} against greedy: no real win"
        );
    }
}
