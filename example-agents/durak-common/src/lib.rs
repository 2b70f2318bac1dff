//! Shared code of the Durak example agents.
//!
//! * The **base** behaviour of example-agents/durak-common/README.md#base-behaviour
//!   (lead the cheapest card, defend with the cheapest card, transfer with a plain card when
//!   the defence would have to take, throw in plain cards of the table's ranks at random), as
//!   [`base_decide`] over plain inputs (hand, trump suit, table, legal actions) so that it runs
//!   both on an [`Observation`] and inside a simulated game state ([`base_policy`]).
//! * [`BaseAgent`], one agent type for the three base agents (`cheapest`, `random-lead`,
//!   `trump-tosser`), told apart by a const style.
//! * Card helpers ("cheapest" as example-agents/README.md#conventions defines it) and [`choose`],
//!   which makes sure an agent only ever returns one of the legal actions.
//!
//! Decided here (for every base agent):
//! * Among cards of equal rank, "cheapest" breaks the tie by suit order (clubs, diamonds,
//!   hearts, spades).
//! * The engine asks the defender for one card at a time: the base defence plans the whole
//!   table (every unbeaten card in slot order, greedily with the cheapest beating card) and
//!   plays the first step of the plan; if the plan fails anywhere it takes (or transfers).
//! * `ShowTrumpTransfer` (a variant) is never used ("never transfer with a trump"), and the
//!   multi-card lead of the `multi_card_lead` variant is never used (one card is led).
//! * "Throw in as many as the rules allow" = throw in a random eligible card each time the
//!   engine asks, while one exists; pass otherwise.

use croupier_sdk::durak::{Action, Durak, Observation};
use croupier_sdk::{Agent, Card, CardSet, Ctx, GameInfo, GameRng, Suit};

pub use croupier_sdk;

// ------------------------------------------------------------------ cards

/// True if `c` is a trump.
#[inline]
pub fn is_trump(c: Card, trump: Suit) -> bool {
    c.suit() == trump
}

/// Sort key of "cheapness": any plain card is cheaper than any trump, then lower rank, then
/// suit order.
#[inline]
pub fn cheap_key(c: Card, trump: Suit) -> (bool, u8, u8) {
    (is_trump(c, trump), c.rank(), c.suit() as u8)
}

/// The cheapest card of `cards`.
pub fn cheapest(cards: CardSet, trump: Suit) -> Option<Card> {
    cards.iter().min_by_key(|c| cheap_key(*c, trump))
}

/// The plain (non-trump) cards of `cards`.
#[inline]
pub fn plain(cards: CardSet, trump: Suit) -> CardSet {
    cards.minus(CardSet::suit(trump))
}

/// The card an action puts on the table (or shows), if any.
pub fn action_card(a: Action) -> Option<Card> {
    match a {
        Action::Lead(c)
        | Action::Beat { card: c, .. }
        | Action::Transfer(c)
        | Action::ShowTrumpTransfer(c)
        | Action::ThrowIn(c) => Some(c),
        Action::LeadMany(s) => s.first(),
        Action::Take | Action::Pass => None,
    }
}

/// `wanted` if it is legal, else the first legal action (else `Pass`, which only happens if
/// the host asked with no legal action at all). Every agent returns through this.
pub fn choose(legal: &[Action], wanted: Action) -> Action {
    if legal.contains(&wanted) {
        wanted
    } else {
        fallback(legal)
    }
}

/// The first legal action, or `Pass` for an empty list (never happens with a correct host).
pub fn fallback(legal: &[Action]) -> Action {
    legal.first().copied().unwrap_or(Action::Pass)
}

/// What kind of decision the legal actions describe.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Lead,
    Defend,
    ThrowIn,
}

/// The decision kind, read from the legal actions (`Take` is always legal when defending,
/// `Pass` always when throwing in).
pub fn decision(legal: &[Action]) -> Decision {
    if legal
        .iter()
        .any(|a| matches!(a, Action::Lead(_) | Action::LeadMany(_)))
    {
        Decision::Lead
    } else if legal.iter().any(|a| matches!(a, Action::Take)) {
        Decision::Defend
    } else {
        Decision::ThrowIn
    }
}

// ------------------------------------------------------------------ the base behaviour

/// Which of the three base agents.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Style {
    /// Lead a uniformly random card (trumps included) instead of the cheapest.
    pub random_lead: bool,
    /// Throw in trumps as well as plain cards.
    pub throw_trumps: bool,
}

/// `cheapest`: exactly the base behaviour.
pub const CHEAPEST: u8 = 0;
/// `random-lead`: random lead, otherwise base.
pub const RANDOM_LEAD: u8 = 1;
/// `trump-tosser`: throws in trumps too, otherwise base.
pub const TRUMP_TOSSER: u8 = 2;

impl Style {
    pub const fn from_code(code: u8) -> Style {
        Style {
            random_lead: code == RANDOM_LEAD,
            throw_trumps: code == TRUMP_TOSSER,
        }
    }
}

/// Base lead: the cheapest non-trump card; with only trumps, the cheapest trump.
pub fn base_lead(hand: CardSet, trump: Suit) -> Option<Card> {
    cheapest(hand, trump)
}

/// The base defence card for one attack card: a trump is beaten by the cheapest higher trump;
/// a plain card by the cheapest higher card of its suit, else by the cheapest trump.
pub fn base_cover(hand: CardSet, trump: Suit, attack: Card) -> Option<Card> {
    let higher_same = hand
        .of_suit(attack.suit())
        .iter()
        .filter(|c| c.rank() > attack.rank())
        .min_by_key(|c| c.rank());
    if higher_same.is_some() || is_trump(attack, trump) {
        return higher_same;
    }
    cheapest(hand.of_suit(trump), trump)
}

/// The base defence plan for every unbeaten card of `table` in slot order: `Some((first
/// step, cards used))` if every card can be beaten, `None` if the base defence must take. The
/// first step is `None` when nothing is left to beat.
pub fn defence_plan(
    hand: CardSet,
    trump: Suit,
    table: &[(Card, Option<Card>)],
) -> Option<(Option<(u8, Card)>, CardSet)> {
    let mut left = hand;
    let mut used = CardSet::EMPTY;
    let mut first = None;
    for (slot, (attack, defence)) in table.iter().enumerate() {
        if defence.is_some() {
            continue;
        }
        let c = base_cover(left, trump, *attack)?;
        left.remove(c);
        used.insert(c);
        first.get_or_insert((slot as u8, c));
    }
    Some((first, used))
}

/// Base transfer: only while nothing is beaten, with the cheapest non-trump card of the led
/// rank, if the rules allow it (that is, if such a `Transfer` is legal).
pub fn base_transfer(
    trump: Suit,
    table: &[(Card, Option<Card>)],
    legal: &[Action],
) -> Option<Action> {
    if table.iter().any(|(_, d)| d.is_some()) {
        return None;
    }
    legal
        .iter()
        .filter_map(|a| match a {
            Action::Transfer(c) if !is_trump(*c, trump) => Some(*c),
            _ => None,
        })
        .min_by_key(|c| cheap_key(*c, trump))
        .map(Action::Transfer)
}

/// Base defence: beat by the plan, else transfer by the base rule, else take.
pub fn base_defend(
    hand: CardSet,
    trump: Suit,
    table: &[(Card, Option<Card>)],
    legal: &[Action],
) -> Action {
    if let Some((Some((slot, card)), _)) = defence_plan(hand, trump, table) {
        return choose(legal, Action::Beat { slot, card });
    }
    base_transfer(trump, table, legal).unwrap_or_else(|| choose(legal, Action::Take))
}

/// Base throw-in: a random legal throw-in card (plain only, unless `trumps`), else pass.
pub fn base_throw_in(trump: Suit, legal: &[Action], trumps: bool, rng: &mut GameRng) -> Action {
    let mut cards = CardSet::EMPTY;
    for a in legal {
        if let Action::ThrowIn(c) = a
            && (trumps || !is_trump(*c, trump))
        {
            cards.insert(*c);
        }
    }
    if cards.is_empty() {
        return choose(legal, Action::Pass);
    }
    let k = rng.below(cards.len());
    match cards.iter().nth(k) {
        Some(c) => Action::ThrowIn(c),
        None => choose(legal, Action::Pass),
    }
}

/// The whole base behaviour of `style` for the actor holding `hand`.
pub fn base_decide(
    style: Style,
    hand: CardSet,
    trump: Suit,
    table: &[(Card, Option<Card>)],
    legal: &[Action],
    rng: &mut GameRng,
) -> Action {
    match decision(legal) {
        Decision::Lead => {
            let card = if style.random_lead {
                hand.iter().nth(rng.below(hand.len().max(1)))
            } else {
                base_lead(hand, trump)
            };
            match card {
                Some(c) => choose(legal, Action::Lead(c)),
                None => fallback(legal),
            }
        }
        Decision::Defend => base_defend(hand, trump, table, legal),
        Decision::ThrowIn => base_throw_in(trump, legal, style.throw_trumps, rng),
    }
}

/// The base behaviour on an observation.
pub fn base_decide_obs(
    style: Style,
    obs: &Observation,
    legal: &[Action],
    rng: &mut GameRng,
) -> Action {
    base_decide(style, obs.hand, obs.trump_suit, &obs.table, legal, rng)
}

/// A playout policy for search: the base behaviour (`style`) of whoever acts in a full game
/// state. `table` is a reusable buffer.
pub fn base_policy(
    style: Style,
    game: &Durak,
    legal: &[Action],
    table: &mut Vec<(Card, Option<Card>)>,
    rng: &mut GameRng,
) -> Action {
    let Some(p) = croupier_sdk::Game::to_act(game) else {
        return fallback(legal);
    };
    table.clear();
    table.extend(game.table_pairs().iter().map(|p| (p.attack, p.defence)));
    let trump = game.trump_card().suit();
    base_decide(style, game.hand(p), trump, table, legal, rng)
}

/// The three base agents: `BaseAgent<CHEAPEST>`, `BaseAgent<RANDOM_LEAD>`,
/// `BaseAgent<TRUMP_TOSSER>`.
pub struct BaseAgent<const STYLE: u8>;

impl<const STYLE: u8> Agent<Durak> for BaseAgent<STYLE> {
    fn new(_info: &GameInfo<Durak>) -> Self {
        BaseAgent
    }

    fn decide(&mut self, obs: &Observation, legal: &[Action], ctx: &mut Ctx) -> Action {
        base_decide_obs(Style::from_code(STYLE), obs, legal, ctx.rng())
    }
}

// ------------------------------------------------------------------ test support

/// Plays one game natively with one decision function per seat; returns the outcome. For
/// the agents' unit tests: every decision is checked to be legal.
#[doc(hidden)]
pub fn play_native(
    opts: &croupier_sdk::durak::Options,
    seed: u64,
    mut decide: impl FnMut(u8, &Observation, &[Action], &mut GameRng) -> Action,
) -> croupier_sdk::rules::Outcome {
    use croupier_sdk::Game;
    let mut g = match Durak::new(opts, seed) {
        Ok(g) => g,
        Err(e) => panic!("bad options: {e}"),
    };
    let mut rng = GameRng::new(seed ^ 0x5EED);
    let mut legal = Vec::new();
    while let Some(p) = g.to_act() {
        g.legal_actions(&mut legal);
        let obs = g.observe(p);
        let a = decide(p, &obs, &legal, &mut rng);
        assert!(legal.contains(&a), "illegal {a} from P{p} among {legal:?}");
        if let Err(e) = g.apply(a) {
            panic!("{e}");
        }
    }
    match g.outcome() {
        Some(o) => o.clone(),
        None => panic!("game without outcome"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use croupier_sdk::durak::Options;

    fn c(s: &str) -> Card {
        s.parse().unwrap()
    }
    fn set(s: &str) -> CardSet {
        s.split_whitespace().map(c).collect()
    }

    #[test]
    fn lead_is_cheapest_plain_then_cheapest_trump() {
        assert_eq!(base_lead(set("AS 7H 6C KD"), Suit::Clubs), Some(c("7H")));
        assert_eq!(base_lead(set("AS 9S 10S"), Suit::Spades), Some(c("9S")));
    }

    #[test]
    fn defence_plan_uses_cheapest_and_takes_when_stuck() {
        let t = Suit::Hearts;
        let hand = set("8C QC 7H 9H");
        // 7C by 8C, then 10S by the cheapest trump 7H.
        let table = [(c("7C"), None), (c("10S"), None)];
        let (first, used) = defence_plan(hand, t, &table).unwrap();
        assert_eq!(first, Some((0, c("8C"))));
        assert_eq!(used, set("8C 7H"));
        // A trump is beaten only by a higher trump.
        assert_eq!(defence_plan(hand, t, &[(c("10H"), None)]), None);
        let legal = [Action::Take];
        assert_eq!(
            base_defend(hand, t, &[(c("10H"), None)], &legal),
            Action::Take
        );
    }

    #[test]
    fn transfer_only_with_plain_card_when_taking() {
        let t = Suit::Hearts;
        let hand = set("8C 8H");
        let table = [(c("8D"), None)];
        let legal = [
            Action::Beat {
                slot: 0,
                card: c("8H"),
            },
            Action::Transfer(c("8C")),
            Action::Transfer(c("8H")),
            Action::Take,
        ];
        // The plan can beat (with the trump): no transfer.
        assert_eq!(
            base_defend(hand, t, &table, &legal),
            Action::Beat {
                slot: 0,
                card: c("8H")
            }
        );
        let table = [(c("8H"), None)];
        let hand = set("8C 7H");
        let legal = [Action::Transfer(c("8C")), Action::Take];
        assert_eq!(
            base_defend(hand, t, &table, &legal),
            Action::Transfer(c("8C"))
        );
    }

    #[test]
    fn throw_in_plain_only_unless_tosser() {
        let mut rng = GameRng::new(1);
        let legal = [Action::ThrowIn(c("9H")), Action::Pass];
        assert_eq!(
            base_throw_in(Suit::Hearts, &legal, false, &mut rng),
            Action::Pass
        );
        assert_eq!(
            base_throw_in(Suit::Hearts, &legal, true, &mut rng),
            Action::ThrowIn(c("9H"))
        );
    }

    #[test]
    fn base_agents_play_every_preset_legally() {
        for opts in [
            Options::classic(2),
            Options::perevodnoy(3),
            Options::teams(),
        ] {
            for seed in 0..30 {
                let o = play_native(&opts, seed, |p, obs, legal, rng| {
                    base_decide_obs(Style::from_code(p % 3), obs, legal, rng)
                });
                assert!(!o.aborted || opts.num_players > 2);
            }
        }
    }
}
