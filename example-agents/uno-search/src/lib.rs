//! `uno/search` — the strong UNO example agent: determinized flat Monte Carlo search over a
//! lean simulator of the hand (or the rules engine), with a model of the opponent's hand
//! (example-agents/uno-common/README.md: source E's game, preset `house`, 2 players; it answers
//! every decision of the other presets too).
//!
//! For each decision with more than one legal action it runs a determinized flat Monte Carlo
//! search (`croupier_sdk::search::search_stats_by`, with its own worlds and playouts, or
//! `search_stats_until` on the engine): every legal action
//! applied in each world (the same worlds and random stream for every action), and the game
//! played on with a greedy policy for every seat for at most 20 actions (10 on the lean
//! simulator, below). A finished playout
//! scores 1 for a win, ½ for a draw or shared win, 0 for a loss. One stopped at the horizon of
//! a two-player house hand on the lean simulator is scored by the **learned evaluation**: the
//! chance of winning the hand by a logistic model of 26 numbers of the position (each seat's
//! cards, points, wilds, Draw Twos, Skips and Reverses, playable cards and colours, the draw
//! pile, the turn, the pending penalty: `Lean::features`), its weights shipped as data in
//! `weights.rs` and written by `scripts/fit-uno-eval.py` from 12 000 native hands of this
//! search against greedy and anneal (deals from 1 000 000, far from the tuning and benchmark
//! deals). Any other playout stopped at its horizon is
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
//! * the colour it named for its last wild: it held most of that colour then, so its hand now
//!   and the coloured cards it played since still do; kept while it only plays (a draw ends
//!   it: which cards are new is not known). Until the first wild the fact was kept only for
//!   the move right before our decision: kept longer, 70.4% / 69.4% against 70.0% / 68.6%
//!   (greedy / anneal, seeds 0..1199, 3 000 playouts).
//!
//! A world then deals the opponent's hand from the pool oldest card first, each card avoiding
//! the sets it has no room for (the public caps too), the named colour by up to 8 deals, and
//! the draw pile from the rest, shuffled (for the engine's playouts, the hand is put in the
//! observation as known and `Uno::determinize` deals the pile). A hand that cannot be dealt
//! falls back to the plain deal: the model is a belief, the actions are always the legal ones
//! (the test `model_holds_against_greedy` checks every fact against greedy's true hand).
//!
//! **Playouts.** Our seat plays the playable coloured card worth the most points, a Wild only
//! when no coloured card fits, a Wild Draw Four last (keeping wilds played better than source
//! E's wild-first order), names the colour it holds most of, stacks whenever possible; with
//! probability 1/10 a uniformly random playable card. The opponent plays greedy's own order
//! (wilds first), with probability 1/20 a random playable card. Both play a drawn card that
//! fits and never challenge. The points evaluation's horizon (20 actions, not 40) and the
//! random shares were chosen on seeds 0..1599 (the constants below say what was measured),
//! and checked again at 3 000 playouts (seeds 0..1199 against greedy: horizon 12 / 15 / 20 /
//! 40 / 200 won 63.1 / 67.1 / 70.0 / 66.6 / 66.9%; `myeps` 0 / 10 / 20 69.2 / 70.0 / 68.8%;
//! `oppeps` 0 / 5 / 15 69.6 / 70.0 / 68.6%); the learned evaluation's horizon is below.
//!
//! In two-player hands under the model's rules with one-hand scoring (the `house` preset),
//! the playouts run on a lean simulator of the hand (`lean.rs`) instead of the rules engine:
//! face-count hands and bit sets, a draw pile shared by the world's playouts, no events, caps
//! or legal-action lists, and `lean::Fast` (xorshift) for the playouts' coin flips and the
//! worlds' shuffles, where the engine's ChaCha cost more fuel in the sandbox than the moves
//! themselves. It plays exactly the engine's rules and the policy's moves: the test
//! `lean_plays_as_the_engine` plays every candidate of 5 800 positions both ways from the same
//! stream and gets the same score and moves. A search costs about a fifth of the fuel:
//! sandboxed, at 1 200 playouts a decision (40 duplicate deals against greedy, seed 5),
//! 12.7 M per decision against 62.0 M on the engine (`lean=0`); natively 0.285 G against
//! 1.708 G instructions for 4 games at 1 000 playouts (`valgrind --tool=callgrind`). Other
//! decisions (the other presets, a wild start card) play out on the engine.
//!
//! **The learned evaluation.** Points alone score a hand of one card worth 9 below one of
//! five cards worth 8, and as a chance of winning they are badly calibrated: on held-out
//! positions of the fit's hands, log-loss 1.22 and Brier score 0.32, against 0.57 and 0.19
//! for the model (0.65 and 0.23 for the base rate). With it the horizon is shorter, 10 moves
//! instead of 20 ([`LEARNED_STEPS`]), and the search wins more: seeds 0..2 399 at 3 000
//! playouts, 72.1% / 70.0% against greedy / anneal, from 69.4% / 67.6% with points
//! (`learned=0`); on deals 2 400..11 999, which chose nothing, 69.5% / 67.8% from 68.0% /
//! 66.7% (9 600 each: the gain is 1.5 / 1.1 points, the rest on the first seeds was the
//! horizon chosen there). Two runs of 2 400 deals differ by up to about 2.5 points by chance
//! alone, so the figures below rank nothing finer than that. Tried and not kept (seeds
//! 0..2 399; 72.1 / 70.0% without): a small neural
//! network (16 hidden units) instead of the logistic model (held-out log-loss 0.565 against
//! 0.568, so no richer function was worth its fuel); a feature for the cards of colours the
//! other seat lacks (71.3 / 69.1%); a second round fitted to the hands of the agent with the
//! learned evaluation (71.4 / 69.6% at a horizon of 10); an opponent in the playouts that
//! anneals as `uno/anneal` does, at the temperature its turns so far give (71.5 / 69.8%);
//! play facts only from cards greedy scores 5 or 10 points above the one played (68.6 /
//! 69.1% and 68.7 / 68.3%, with the second round's weights), or only after our 4th or 8th
//! decision, when anneal has cooled (70.7 / 68.9% and 69.4 / 68.7%); `myeps` 0 or 20,
//! `oppeps` 0 (71.2–72.2% / 69.0%); and a prior per kind of card in the hand sampler
//! (accepting a Wild, Wild Draw Four, Draw Two, Skip or Reverse, high or low number with
//! its own chance), fitted so that the sampled hands hold as many of each kind as greedy's
//! true ones (the ignored test `hand_bias`: the model dealt 1.40 times the Wilds and 1.46
//! times the Wild Draw Fours greedy held), 70.5 / 70.4%, at half strength 70.4 / 69.9%, and
//! on deals 2 400..11 999 69.8 / 68.2% against 69.5 / 67.8%: within the noise, not worth
//! its rule. Later, on those 9 600 deals (69.5 / 67.8% without; a 95% interval of about
//! ±0.9 points each): our seat's playout moves chosen by the learned evaluation one move
//! ahead, 70.5 / 67.8% (without its random share 69.7 / 67.4%), at twice a playout's cost;
//! play facts only for cards scoring more than anneal's temperature above the one played
//! (10 × 0.9^k at our k-th decision of the hand), 69.0 / 68.6%: what anneal gives back,
//! greedy takes; the same only once a fact of the hand proved wrong (the opponent is not
//! greedy), 69.5 / 67.6%, as the proof comes too late; both changes, 68.8 / 68.3%. Twice
//! or three times the temperature as the margin won 69.1% and 68.8% against anneal, so
//! knowing which of the two it faces would gain about 1.2 points against anneal at most,
//! and a likelihood ratio of each play (greedy against annealing) moved the chance of
//! "greedy" from 0.50 only to 0.45 / 0.39 by our 12th decision: the plays do not tell.
//! Nor would a better reading of greedy's moves: with worlds from the exact posterior of its
//! hand (the ignored diagnostic `exact_posterior`, a Metropolis chain over the unseen deck
//! slots checked by replaying greedy through the hand) the search won 70.4% of 1 708 deals,
//! against 69.8% with this model and 92.7% with the true hand.
//! Those last say that against anneal what is missing is still the opponent's hand, not
//! how it plays: its early random plays make wrong facts, and without them the worlds are
//! worse still.
//!
//! **Measured** (native: the ignored test `versus`, seeds 0..1599, not duplicate; Wilson 95%
//! intervals): against greedy / anneal, the agent before this model 55.1% (52.7–57.5) / 55.6%
//! (53.2–58.0); the model alone, with the old playouts, 61.2% / 62.1%; with the model at 300
//! playouts 63.2% (60.9–65.6) / 62.2% (59.8–64.5), and 59.3% / 58.6% without the model
//! (`model=0`). More playouts pay (against greedy, seeds 0..1199: 63.1% at 300, 65.8% at
//! 1 000, 68.7% at 3 000), so the agent spends its fuel plan (below): 65.0% (62.3–67.6),
//! seeds 0..1199, on the engine. The lean simulator plays about five times the playouts for
//! the same fuel: 70.0% (67.3–72.5) at a fixed 3 000 (`iters=3000`), 69.5% at 9 000, so the
//! search no longer gains from more; with the named colour kept longer 70.4% / 69.4% (greedy
//! / anneal); with the learned evaluation (above) 72.1% / 70.0% on seeds 0..2 399.
//! Sandboxed, on the unseen seeds 20261129 and 20261201 (500 duplicate games each): 71.2%
//! and 68.8% against greedy, 69.4% and 69.6% against anneal, 70.0% and 69.5% of the 1 000
//! games (with points: 69.0 / 70.6% and 67.8 / 67.4%; 65.4% / 63.6% on the engine, 62.0% /
//! 62.4% at 300 playouts); on a third, 20261207, declared before it ran, 2 000 games each:
//! 70.7% / 68.7%, so 70.5% / 68.9% of the 3 000 games of the three. Issue #42's 70% is met
//! against greedy and missed against anneal by about a point: the same search seeing the
//! opponent's hand still wins about 90% (`ceiling`, 400 deals: 89.8% at 300 playouts), and
//! what the opponent did not play says too little of what it holds. Tried at 3 000 playouts
//! with points and not
//! kept (seeds 0..1199 against greedy, 70.0% without): a tree over our next 1, 2 or 3 moves
//! below each candidate (UCB1, the policy's move first; 69.2 / 68.4 / 68.6%); the fact that
//! greedy, among equal scores, plays the first card of its sorted hand (69.2%, and 67.2%
//! against anneal's 68.6%); the horizon's score divided by 100, 400 or 800 instead of 200
//! (67.0 / 70.4 / 69.8%); counting 10 or 25 points per card held (67.8 / 68.5%); and our own
//! playout policy preferring a card that leaves the opponent (as dealt) nothing to play
//! (70.2% against 70.4%).
//!
//! **Fuel.** The agent cannot read the fuel it has used, so it counts its work
//! ([`croupier_sdk::search::Work`]: worlds, playouts, simulated moves, legal actions listed,
//! plus the model's sampling and the worlds dealt without the model) and converts it into
//! fuel by a cost model fitted in the sandbox ([`LEAN_COSTS`], [`ENGINE_COSTS`]). It plays
//! worlds until one more would pass its plan, half the decision's budget ([`SHARE`]): at the
//! default 200 M, a decision took 87 M fuel on average and 110.4 M at most in the benchmarks
//! above (`fuel max`, no fault), where 300 fixed playouts took 25 M on average and left the
//! rest unused. `iters` (default 100 000) only caps the playouts, shared by the
//! legal actions (e.g. 5 actions → `iters / 5` worlds at most). Args (`uno/search#...`):
//! `iters`, `budget` (the fuel to plan from instead of the host's), `steps` (horizon),
//! `oppeps` / `myeps` (random shares in percent), `oppgreedy=0` (the opponent plays our
//! order), `model=0` (no opponent model), `plays=0`, `named=0`, `start=0` (without the play
//! facts, the named colour, the replay from the deal), `persist=0` (the named colour only
//! right after the wild), `lean=0` (playouts on the engine), `learned=0` (score the lean
//! playouts' horizon by points, at 20 moves), `trace=1` (log each search's counts, for
//! fitting the cost model).
//!
//! **Cost per playout** on the engine (the lean simulator is above). Two changes cut the
//! search's instructions by a fifth (callgrind,
//! native, the same 8 games at 300 playouts: 1.191 G → 0.947 G): the UNO engine no longer
//! builds a finished hand's texts when the simulation records no events, and the playout
//! policy and the score read the hand as face counts (`Uno::hand_counts`,
//! `Uno::hand_points`) instead of building lists. The model also samples a hand by rejection
//! from a pool built once per decision (the sampler was a tenth of those instructions; it
//! draws differently, so the games differ and the two are not comparable).

use croupier_sdk::search::{Search as Params, Work, best, outcome_value};
use croupier_sdk::search::{search_stats_by, search_stats_until};
use croupier_sdk::uno::{Action, Color, Decision, Observation, Options, Scoring, Uno, UnoCard};
use croupier_sdk::{Agent, Ctx, Game, GameInfo, GameRng, Level, Seat};
use std::cell::Cell;
use uno_common::{Style, greedy_pick, most_held_color};

mod lean;
mod model;
mod weights;
use model::{Constraint, Named};

/// Most playouts per decision by default: only a bound; the fuel plan decides.
pub const DEFAULT_ITERS: u32 = 100_000;
/// The fuel assumed when the host gives no budget (the host's default).
pub const DEFAULT_FUEL: u64 = 200_000_000;
/// The search plans for this share of the decision's fuel (1/`SHARE`); the rest is the
/// margin for the cost model's error and for reading the opponent's moves.
pub const SHARE: u64 = 2;
/// A cost model: the fuel of one world (the opponent's hand sampled and the rest dealt), and
/// more for one dealt without the model (by the engine, under the public caps), of one
/// playout's set-up (the world copied, the candidate applied, the end scored), of one
/// simulated move, of one legal action listed and of one unit of the model's sampling
/// (`model::sample_hand`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Costs {
    pub world: u64,
    pub plain_world: u64,
    pub playout: u64,
    pub step: u64,
    pub legal: u64,
    pub sampling: u64,
    /// Per playout scored by the learned evaluation (lean playouts only).
    pub eval: u64,
}

/// The playouts on the rules engine (decisions the lean simulator does not play).
///
/// Fitted in the sandbox (each decision's fuel, from a host built to print it, beside the
/// agent's counts, logged) to 14 101 decisions against `greedy`, `anneal` and `primary`
/// (seed 20261129) as the weights that never fall short, with the least excess: a
/// decision's fuel was 49–100% of the model's figure, median 64%; fitted on half of them,
/// the other half stayed within 100.3%.
/// What else moves the cost by up to twice was not found: not the replay of the opponent's
/// moves, the named colour's tries, the cards drawn in the playouts, nor the plain deals
/// alone. So [`SHARE`] keeps half the budget as the margin.
pub const ENGINE_COSTS: Costs = Costs {
    world: 32_000,
    plain_world: 30_000,
    playout: 15_000,
    step: 2_100,
    legal: 1_100,
    sampling: 130,
    eval: 0,
};

/// The playouts on the lean simulator (`lean.rs`), which lists no legal actions.
///
/// Fitted in the sandbox to 580 games against `greedy` (`croupier match --log`, seed 11, 60
/// duplicate deals each: the learned evaluation at 600, 3 000 and 9 000 playouts a decision
/// with its horizon of 10, and at 3 000 with a horizon of 20; the points evaluation at 3 000
/// and 20; `trace=1` logging each search's counts) as the weights that never fall short of
/// a game's fuel, with the least excess (a linear program), rounded up: a game's fuel was
/// 78–95% of the model's figure, median 89%.
/// (The weights before the learned evaluation fell short of one of these games by 4%.) The
/// plain deal is the engine's (`Uno::determinize`), rare here: only when no hand meets the
/// model. The costliest decision of the benchmark is in docs/benchmarks-history.md#bosses.
pub const LEAN_COSTS: Costs = Costs {
    world: 15_000,
    plain_world: 110_000,
    playout: 900,
    step: 340,
    legal: 0,
    sampling: 35,
    eval: 300,
};

/// The fuel the cost model `c` gives `work`, with `sampling` units of the model's work in
/// dealing hands and `plain` worlds dealt without the model.
pub fn fuel_of(c: &Costs, work: &Work, sampling: u64, plain: u64) -> u64 {
    work.worlds * c.world
        + plain * c.plain_world
        + work.playouts * c.playout
        + work.steps * c.step
        + work.legal * c.legal
        + sampling * c.sampling
        + work.playouts * c.eval
}

/// Whether a search that did `work` stops before its next world, planning for `plan` fuel:
/// it stops when one more world as costly as the average so far would pass the plan.
pub fn over_plan(c: &Costs, work: &Work, sampling: u64, plain: u64, plan: u64) -> bool {
    work.one_more_passes(fuel_of(c, work, sampling, plain), plan)
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
/// The same with the learned evaluation (lean playouts only). Seeds 0..2 399, 3 000
/// playouts, against greedy / anneal: 2 won 66.2 / 65.3%, 5 69.4 / 69.1%, 10 71.9 / 69.9%,
/// 14 70.9 / 68.7%, 20 70.6 / 69.7% (the points evaluation at 20: 69.4 / 67.6%).
pub const LEARNED_STEPS: u32 = 10;

pub struct Search {
    opts: Options,
    iters: u32,
    /// The fuel to plan from instead of the host's budget (`budget`; for the margin check).
    budget: Option<u64>,
    /// Playout horizon (`steps`; by default [`MAX_STEPS`], [`LEARNED_STEPS`] with the
    /// learned evaluation).
    max_steps: Option<u32>,
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
    named: Option<Named>,
    /// Whether the named colour shapes the worlds (`named`).
    use_named: bool,
    /// Whether the named colour's fact outlives the opponent's next plays (`persist`).
    persist: bool,
    /// Whether the hand's first decision replays the opponent's moves since the deal
    /// (`start`).
    use_start: bool,
    /// Whether the playouts run on the lean simulator where it applies (`lean=0`: always
    /// the rules engine).
    use_lean: bool,
    /// Whether the lean playouts score an unfinished hand by the learned evaluation
    /// (`learned`).
    learned: bool,
    /// Test only: opponent hands to deal the lean worlds from (the exact-posterior
    /// diagnostic), instead of the model.
    #[cfg(test)]
    oracle: Option<Vec<Vec<UnoCard>>>,
    /// Whether each search logs its work (`trace=1`): the counts the cost model prices, to
    /// fit it against the fuel `croupier match --log` records per game.
    trace: bool,
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
    /// The lean playouts' evaluation of an unfinished hand: the learned one, or by points.
    learned: Option<&'static [f64; lean::FEATURES]>,
}

/// The playout policy with the old defaults for every seat (the clairvoyant experiment).
#[cfg(test)]
fn policy(g: &Uno, legal: &[Action], rng: &mut GameRng) -> Action {
    Policy {
        me: g.to_act().unwrap_or(0),
        opp_eps: 25,
        my_eps: 25,
        opp_greedy: false,
        learned: None,
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
        let before = std::mem::take(&mut self.named);
        match self.last.take() {
            Some((prev, action)) if prev.hand_no == obs.hand_no => {
                match model::replay(&prev, action, obs, self.plays_inform) {
                    Some(paths) => {
                        model::update_paths(&mut self.cons, &paths, hand);
                        self.named = self.follow_named(before, &paths);
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
                    self.named = self.follow_named(None, &paths);
                }
            }
        }
    }

    /// The named colour's fact after a gap: kept while the opponent only played
    /// (`persist=0`: only when the wild was its last move, as before).
    fn follow_named(&self, before: Option<Named>, paths: &[Vec<model::Ev>]) -> Option<Named> {
        if !self.use_named {
            return None;
        }
        if !self.persist {
            return model::named_last(paths).map(|color| Named {
                color,
                played: [0; 4],
            });
        }
        Named::follow_paths(before, paths)
    }

    /// The opponent's hand for one world, dealt to meet the model (`None`: it cannot be);
    /// `sampling` counts the model's work ([`model::sample_hand`]) for the cost model.
    fn opponent_hand(
        &self,
        obs: &Observation,
        shaped: &mut Shaped,
        rng: &mut GameRng,
        sampling: &Cell<u64>,
    ) -> Option<Vec<UnoCard>> {
        let opp = 1 - (obs.seat as usize).min(1);
        let n = obs.hand_sizes.get(opp).copied().unwrap_or(0) as usize;
        let Shaped {
            cons,
            all,
            pool,
            cands,
            ..
        } = shaped;
        // The named colour by rejection: a few tries, then the last hand that meets the
        // constraints (a belief, not worth much fuel). The draws are `lean::Fast`'s: the
        // sandbox's ChaCha made the sampling a world's main cost.
        let rng = &mut lean::Fast::new(rng.next_u64());
        let mut got = None;
        for _ in 0..NAMED_TRIES {
            let mut work = sampling.get();
            let hand = model::sample_hand(all, n, cons, rng, (pool, cands), &mut work);
            sampling.set(work);
            let Some(hand) = hand else {
                break;
            };
            let fits = self.named.is_none_or(|f| f.holds(&hand));
            got = Some(hand);
            if fits {
                break;
            }
        }
        got
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
        if let Some(shaped) = shaped
            && let Some(hand) = self.opponent_hand(obs, shaped, rng, sampling)
        {
            let opp = 1 - (obs.seat as usize).min(1);
            if let Some(k) = shaped.obs.known.get_mut(opp) {
                *k = hand;
                return Uno::determinize(&self.opts, &shaped.obs, rng);
            }
        }
        plain.set(plain.get() + 1);
        Uno::determinize(&self.opts, obs, rng)
    }

    /// The same world for the lean simulator: with the opponent's hand from the model, the
    /// draw pile is the rest of the unseen cards shuffled (what [`Uno::determinize`] does,
    /// without building the engine's state); the plain deal goes through the engine.
    fn lean_world(
        &self,
        obs: &Observation,
        shaped: Option<&mut Shaped>,
        rng: &mut GameRng,
        counts: (&Cell<u64>, &Cell<u64>),
    ) -> Option<lean::World> {
        let (sampling, plain) = counts;
        let restriction = self.opts.wd4_restriction;
        #[cfg(test)]
        if let Some(hands) = self.oracle.as_ref().filter(|h| !h.is_empty()) {
            let hand = &hands[rng.below(hands.len())];
            return lean::World::deal(obs, hand, restriction, &mut lean::Fast::new(rng.next_u64()));
        }
        if let Some(shaped) = shaped
            && let Some(hand) = self.opponent_hand(obs, shaped, rng, sampling)
            && let Some(w) = lean::World::deal(
                obs,
                &hand,
                restriction,
                &mut lean::Fast::new(rng.next_u64()),
            )
        {
            return Some(w);
        }
        plain.set(plain.get() + 1);
        lean::World::from_uno(
            &Uno::determinize(&self.opts, obs, rng),
            restriction,
            obs.drawn,
        )
    }

    /// Whether this decision's playouts run on the lean simulator: a two-player hand under
    /// the rules it plays, at a turn, a penalty or a drawn card, with candidates it plays.
    fn lean_applies(&self, obs: &Observation, candidates: &[Action]) -> bool {
        self.use_lean
            && model::applies(&self.opts)
            && self.opts.scoring == Scoring::SingleHand
            && match obs.decision {
                Decision::Turn | Decision::PenaltyTurn => true,
                Decision::AfterDraw => obs.drawn.is_some(),
                _ => false,
            }
            && candidates.iter().all(|a| {
                matches!(
                    a,
                    Action::Play { .. }
                        | Action::Stack { .. }
                        | Action::PlayDrawn { .. }
                        | Action::Keep
                        | Action::Draw
                        | Action::AcceptPenalty
                )
            })
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
        let lean = self.lean_applies(obs, &order);
        let mut shaped = None;
        if self.model
            && model::applies(&self.opts)
            && obs.known.get(opp).is_some_and(|k| k.is_empty())
        {
            let mut cons = self.cons.clone();
            // The lean simulator deals every world this way, with only the public caps
            // when the model has nothing to say (the engine's plain deal costs more).
            if lean || !cons.is_empty() || self.named.is_some() {
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
            learned: self.learned.then_some(&weights::WEIGHTS),
        };
        let (sampling, plain) = (Cell::new(0), Cell::new(0));
        if lean {
            let (default, costs) = if self.learned {
                (LEARNED_STEPS, LEAN_COSTS)
            } else {
                (
                    MAX_STEPS,
                    Costs {
                        eval: 0,
                        ..LEAN_COSTS
                    },
                )
            };
            let max_steps = self.max_steps.unwrap_or(default);
            let (worlds, steps) = (Cell::new(0u64), Cell::new(0u64));
            let stats = search_stats_by(
                |rng| {
                    worlds.set(worlds.get() + 1);
                    self.lean_world(obs, shaped.as_mut(), rng, (&sampling, &plain))
                },
                &order,
                self.iters.max(1),
                ctx.rng(),
                |w: &Option<lean::World>, action, stream| {
                    let mut fast = lean::Fast::new(stream);
                    let (score, n) = w.as_ref()?.playout(action, &policy, max_steps, &mut fast)?;
                    steps.set(steps.get() + n);
                    let work = Work {
                        steps: n,
                        ..Work::default()
                    };
                    Some((score, work))
                },
                |work| over_plan(&costs, work, sampling.get(), plain.get(), plan),
            );
            if self.trace {
                let playouts: u32 = stats.iter().map(|s| s.playouts).sum();
                let line = format!(
                    "work {} {playouts} {} {} {}",
                    worlds.get(),
                    steps.get(),
                    sampling.get(),
                    plain.get()
                );
                ctx.log(Level::Info, line);
            }
            return best(&stats);
        }
        let params = Params {
            playouts: self.iters.max(1),
            max_steps: self.max_steps.unwrap_or(MAX_STEPS),
            // Neither the playout policy nor the score reads the simulated events.
            events: false,
        };
        let (scoring, start) = (self.opts.scoring, &obs.scores);
        let stats = search_stats_until::<Uno>(
            |rng| self.world(obs, shaped.as_mut(), rng, (&sampling, &plain)),
            &order,
            obs.seat,
            &params,
            ctx.rng(),
            |g, l, r| policy.act(g, l, r),
            |g, seat| evaluate(g, seat, scoring, start),
            |work| over_plan(&ENGINE_COSTS, work, sampling.get(), plain.get(), plan),
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
            max_steps: info.arg("steps"),
            model: info.arg::<u32>("model").unwrap_or(1) != 0,
            plays_inform: info.arg::<u32>("plays").unwrap_or(1) != 0,
            opp_eps: info.arg("oppeps").unwrap_or(OPP_EPS),
            my_eps: info.arg("myeps").unwrap_or(MY_EPS),
            opp_greedy: info.arg::<u32>("oppgreedy").unwrap_or(1) != 0,
            last: None,
            cons: Vec::new(),
            named: None,
            use_named: info.arg::<u32>("named").unwrap_or(1) != 0,
            persist: info.arg::<u32>("persist").unwrap_or(1) != 0,
            use_start: info.arg::<u32>("start").unwrap_or(1) != 0,
            use_lean: info.arg::<u32>("lean").unwrap_or(1) != 0,
            trace: info.arg::<u32>("trace").unwrap_or(0) != 0,
            #[cfg(test)]
            oracle: None,
            learned: info.arg::<u32>("learned").unwrap_or(1) != 0,
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
mod tests;
