//! `durak/fuzzy`: example-agents/durak-fuzzy/README.md, Durak 1 vs 1, 36 cards, throw-in (the
//! fuzzy-set control paper), written for `--rules classic`; plays every variant legally.
//!
//! * Card value: a plain card is worth 1..n in rank order, a trump n+1..2n (36 cards: plain
//!   6..A = 1..9, trump 6..A = 10..18). Card terms: *bad* = plain 6..10 (2..10 with 52
//!   cards), *medium* = plain J..A, *good* = any trump.
//! * The term of a set of cards comes from `d`, the mean value of its cards, through three
//!   piecewise-linear membership functions, **(decided, to fit the source's example: d = 11 is
//!   0.33 good and 0.67 medium)**: bad 1 up to 2.83 falling to 0 at 6.83; medium rising from
//!   2.83 to 1 at 6.83, 1 up to 10, falling to 0 at 13; good 0 up to 10 rising to 1 at 13.
//! * Unknown cards (the opponent's hand, the cards drawn from the deck) are sampled uniformly
//!   from the cards this agent has not seen ([`SAMPLES`] times per decision); the majority
//!   term wins.
//! * Decision tables 1 (beat or take), 2 (lead: expected deck card × hand, and the opponent's
//!   presumed hand), 3 and 4 (throw in while the opponent takes / after he beat everything)
//!   exactly as in example-agents/durak-fuzzy/README.md#decision-tables, with the **(decided)**
//!   lead rule: lead the cheapest card of the weaker of the two classes proposed by (a) and (b)
//!   ("any" defers to (b)); if the hand has no card of that class, the nearest class that it has.
//! * With the deck empty the deck card is ignored ((a) proposes "any") and the defence beats
//!   whenever it can.
//!
//! Decided here:
//! * Other deck sizes scale the membership break points by n/9 (n = ranks per suit).
//! * An empty set of cards is *good* (the player is out or about to be); ties between
//!   memberships and between sample votes go to the worse term.
//! * Beating uses the base defence of `durak-common` (cheapest card per attack card, slot
//!   order); a table it cannot beat is taken. Transfers (perevodnoy) follow the base rule
//!   when table 1 says take or the table cannot be beaten. One card is led at a time.
//! * "Hand after beating / throwing in and refilling": the own hand minus the cards played,
//!   refilled to the hand size with cards sampled from the unseen cards, counting how many
//!   cards the talon still holds after the players who draw earlier (the attacker draws
//!   first, the defender last; the face-up trump card is drawn last). In table 4 the
//!   opponent's refill therefore does not change our own hand.
//! * Throw-in candidate: the cheapest legal throw-in card by value; the table decides whether
//!   to throw it or pass.
//! * The opponent of table 2 (b) is the defender of the bout; its presumed hand is its known
//!   cards plus samples for the rest.

use croupier_sdk::durak::{Action, Durak, Observation, Options};
use croupier_sdk::{Agent, Card, CardSet, Ctx, GameInfo, GameRng, Suit};
use durak_common::{Decision, base_transfer, choose, decision, defence_plan, fallback};

/// Samples per estimate.
pub const SAMPLES: usize = 9;

/// A fuzzy term, worst first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Term {
    Bad,
    Medium,
    Good,
}

/// The card scale of a deck: lowest rank and ranks per suit.
#[derive(Copy, Clone, Debug)]
pub struct Scale {
    pub low: u8,
    pub n: u8,
    pub trump: Suit,
}

impl Scale {
    pub fn new(opts: &Options, trump: Suit) -> Scale {
        let low = opts.deck.low_rank();
        Scale {
            low,
            n: 15 - low,
            trump,
        }
    }

    /// Value 1..n for plain cards, n+1..2n for trumps.
    pub fn value(&self, c: Card) -> u8 {
        let v = c.rank().saturating_sub(self.low) + 1;
        if c.suit() == self.trump {
            v + self.n
        } else {
            v
        }
    }

    /// Term of one card.
    pub fn card_term(&self, c: Card) -> Term {
        if c.suit() == self.trump {
            Term::Good
        } else if c.rank() <= 10 {
            Term::Bad
        } else {
            Term::Medium
        }
    }

    /// Memberships (bad, medium, good) of mean value `d`.
    pub fn memberships(&self, d: f64) -> [f64; 3] {
        let k = self.n as f64 / 9.0;
        let (a, b, c, e) = (2.83 * k, 6.83 * k, 10.0 * k, 13.0 * k);
        let ramp = |x: f64, lo: f64, hi: f64| ((x - lo) / (hi - lo)).clamp(0.0, 1.0);
        let bad = 1.0 - ramp(d, a, b);
        let medium = ramp(d, a, b).min(1.0 - ramp(d, c, e));
        let good = ramp(d, c, e);
        [bad, medium, good]
    }

    /// Term of a set of cards (the highest membership; ties to the worse term).
    pub fn set_term(&self, cards: CardSet) -> Term {
        if cards.is_empty() {
            return Term::Good;
        }
        let sum: u32 = cards.iter().map(|c| self.value(c) as u32).sum();
        let m = self.memberships(sum as f64 / cards.len() as f64);
        let mut best = 0;
        for i in 1..3 {
            if m[i] > m[best] {
                best = i;
            }
        }
        [Term::Bad, Term::Medium, Term::Good][best]
    }

    /// The cheapest card of `cards` by value.
    pub fn cheapest(&self, cards: CardSet) -> Option<Card> {
        cards
            .iter()
            .min_by_key(|c| (self.value(*c), c.suit() as u8))
    }
}

/// `k` cards drawn uniformly from `pool` (fewer if it is smaller).
pub fn sample(pool: CardSet, k: usize, rng: &mut GameRng) -> CardSet {
    let mut cards: Vec<Card> = pool.iter().collect();
    let k = k.min(cards.len());
    for i in 0..k {
        let j = i + rng.below(cards.len() - i);
        cards.swap(i, j);
    }
    cards[..k].iter().copied().collect()
}

/// The majority term among `SAMPLES` draws of `f` (ties to the worse term).
fn majority(rng: &mut GameRng, mut f: impl FnMut(&mut GameRng) -> Term) -> Term {
    let mut votes = [0usize; 3];
    for _ in 0..SAMPLES {
        votes[f(rng) as usize] += 1;
    }
    let mut best = 0;
    for i in 1..3 {
        if votes[i] > votes[best] {
            best = i;
        }
    }
    [Term::Bad, Term::Medium, Term::Good][best]
}

/// The agent.
pub struct Fuzzy {
    opts: Options,
}

impl Fuzzy {
    /// How many cards the observer would draw to refill `hand_len` cards, given the players
    /// who draw before him (the defender draws last, the principal attacker first), and
    /// whether the face-up trump card is among them.
    fn draws(&self, obs: &Observation, hand_len: usize, defending: bool) -> (usize, bool) {
        let size = self.opts.hand_size as usize;
        let need = size.saturating_sub(hand_len);
        let mut left = obs.talon as usize;
        if defending {
            for (s, n) in obs.hand_sizes.iter().enumerate() {
                if s != obs.seat as usize && obs.out & (1 << s) == 0 {
                    left = left.saturating_sub(size.saturating_sub(*n as usize));
                }
            }
        }
        let k = need.min(left);
        let trump_in_talon = obs.trump_holder.is_none() && obs.talon > 0;
        (k, trump_in_talon && k > 0 && k == left)
    }

    /// `hand` refilled by sampling (one draw).
    fn refilled(
        &self,
        obs: &Observation,
        hand: CardSet,
        defending: bool,
        rng: &mut GameRng,
    ) -> CardSet {
        let (k, with_trump) = self.draws(obs, hand.len(), defending);
        if k == 0 {
            return hand;
        }
        let mut h = hand;
        if with_trump {
            h.insert(obs.trump);
            h.union(sample(obs.unseen, k - 1, rng))
        } else {
            h.union(sample(obs.unseen, k, rng))
        }
    }

    fn defend(&self, obs: &Observation, legal: &[Action], s: &Scale, rng: &mut GameRng) -> Action {
        let give_up = || {
            base_transfer(s.trump, &obs.table, legal).unwrap_or_else(|| choose(legal, Action::Take))
        };
        let Some((first, used)) = defence_plan(obs.hand, s.trump, &obs.table) else {
            return give_up();
        };
        let Some((slot, card)) = first else {
            return give_up();
        };
        let beat = choose(legal, Action::Beat { slot, card });
        if obs.talon == 0 {
            return beat;
        }
        let mut taken = obs.hand;
        for (a, d) in &obs.table {
            taken.insert(*a);
            if let Some(d) = d {
                taken.insert(*d);
            }
        }
        let after_take = majority(rng, |r| s.set_term(self.refilled(obs, taken, true, r)));
        let after_beat = majority(rng, |r| {
            s.set_term(self.refilled(obs, obs.hand.minus(used), true, r))
        });
        let take = match after_take {
            Term::Bad => false,
            Term::Medium => after_beat == Term::Bad,
            Term::Good => true,
        };
        if take { give_up() } else { beat }
    }

    fn lead(&self, obs: &Observation, legal: &[Action], s: &Scale, rng: &mut GameRng) -> Action {
        // (a) expected deck card × current hand; `None` = any.
        let a = if obs.talon == 0 {
            None
        } else {
            let deck = if obs.talon == 1 && obs.trump_holder.is_none() {
                Term::Good
            } else {
                majority(rng, |r| match sample(obs.unseen, 1, r).first() {
                    Some(c) => s.card_term(c),
                    None => s.card_term(obs.trump),
                })
            };
            let hand = s.set_term(obs.hand);
            match (deck, hand) {
                (Term::Bad, _) | (_, Term::Bad) => Some(Term::Bad),
                (Term::Good, Term::Good) => None,
                _ => Some(Term::Medium),
            }
        };
        // (b) the opponent's presumed hand.
        let opp = obs.defender as usize;
        let known = obs.known.get(opp).copied().unwrap_or_default();
        let size = obs.hand_sizes.get(opp).copied().unwrap_or(0) as usize;
        let presumed = majority(rng, |r| {
            let rest = sample(obs.unseen, size.saturating_sub(known.len()), r);
            s.set_term(known.union(rest))
        });
        let b = match presumed {
            Term::Bad => Term::Good,
            Term::Medium => Term::Medium,
            Term::Good => Term::Bad,
        };
        let want = a.map_or(b, |a| a.min(b));
        // The class wanted, else the nearest class the hand has (ties: the worse class).
        let class =
            |t: Term| -> CardSet { obs.hand.iter().filter(|c| s.card_term(*c) == t).collect() };
        let mut order = [Term::Bad, Term::Medium, Term::Good];
        order.sort_by_key(|t| ((*t as i8 - want as i8).abs(), *t as i8));
        for t in order {
            if let Some(c) = s.cheapest(class(t)) {
                return choose(legal, Action::Lead(c));
            }
        }
        fallback(legal)
    }

    fn throw_in(
        &self,
        obs: &Observation,
        legal: &[Action],
        s: &Scale,
        rng: &mut GameRng,
    ) -> Action {
        let cards: CardSet = legal
            .iter()
            .filter_map(|a| match a {
                Action::ThrowIn(c) => Some(*c),
                _ => None,
            })
            .collect();
        let Some(card) = s.cheapest(cards) else {
            return choose(legal, Action::Pass);
        };
        let mut after = obs.hand;
        after.remove(card);
        let with = majority(rng, |r| s.set_term(self.refilled(obs, after, false, r)));
        let without = majority(rng, |r| s.set_term(self.refilled(obs, obs.hand, false, r)));
        let yes = match without {
            Term::Bad => true,
            Term::Medium => with != Term::Bad,
            Term::Good => false,
        };
        if yes {
            choose(legal, Action::ThrowIn(card))
        } else {
            choose(legal, Action::Pass)
        }
    }

    /// One decision.
    pub fn decide_with(&self, obs: &Observation, legal: &[Action], rng: &mut GameRng) -> Action {
        let s = Scale::new(&self.opts, obs.trump_suit);
        match decision(legal) {
            Decision::Lead => self.lead(obs, legal, &s, rng),
            Decision::Defend => self.defend(obs, legal, &s, rng),
            Decision::ThrowIn => self.throw_in(obs, legal, &s, rng),
        }
    }
}

impl Agent<Durak> for Fuzzy {
    fn new(info: &GameInfo<Durak>) -> Self {
        Fuzzy {
            opts: info.options.clone(),
        }
    }
    fn decide(&mut self, obs: &Observation, legal: &[Action], ctx: &mut Ctx) -> Action {
        self.decide_with(obs, legal, ctx.rng())
    }
}

croupier_sdk::export_durak!(Fuzzy);

#[cfg(test)]
mod tests {
    use super::*;
    use durak_common::{CHEAPEST, Style, base_decide_obs, play_native};

    const OPPONENT: Style = Style::from_code(CHEAPEST);

    fn set(s: &str) -> CardSet {
        s.split_whitespace()
            .map(|c| c.parse::<Card>().unwrap())
            .collect()
    }

    #[test]
    fn values_and_memberships_match_the_source() {
        let s = Scale::new(&Options::classic(2), Suit::Hearts);
        assert_eq!(s.value("6C".parse().unwrap()), 1);
        assert_eq!(s.value("AS".parse().unwrap()), 9);
        assert_eq!(s.value("6H".parse().unwrap()), 10);
        assert_eq!(s.value("AH".parse().unwrap()), 18);
        let m = s.memberships(11.0);
        assert!((m[2] - 1.0 / 3.0).abs() < 1e-9 && (m[1] - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(m[0], 0.0);
        assert_eq!(s.set_term(set("6C 7D")), Term::Bad);
        assert_eq!(s.set_term(set("QC KD")), Term::Medium);
        assert_eq!(s.set_term(set("KH AH")), Term::Good);
        // 52 cards: the scale stretches.
        let s52 = Scale::new(&Options::teams(), Suit::Hearts);
        assert_eq!(s52.value("2C".parse().unwrap()), 1);
        assert_eq!(s52.value("AH".parse().unwrap()), 26);
    }

    /// A classic observation rebuilt by hand: the talon is empty, P1 holds `opp` (all known).
    fn endgame(hand: &str, opp: &str, table: &[(Card, Option<Card>)]) -> Observation {
        let g = <Durak as croupier_sdk::Game>::new(&Options::classic(2), 3).unwrap();
        let mut o = croupier_sdk::Game::observe(&g, 0);
        o.trump = "6H".parse().unwrap();
        o.trump_suit = Suit::Hearts;
        o.trump_holder = Some(1);
        o.talon = 0;
        o.hand = set(hand);
        o.known = vec![o.hand, set(opp)];
        o.hand_sizes = vec![o.hand.len() as u8, set(opp).len() as u8];
        o.unseen = CardSet::EMPTY;
        o.defender = 1;
        o.table = table.to_vec();
        o
    }

    #[test]
    fn empty_deck_defence_beats_whenever_it_can() {
        let me = Fuzzy {
            opts: Options::classic(2),
        };
        let c = |s: &str| s.parse::<Card>().unwrap();
        let obs = endgame("7C 9H", "AC AH", &[(c("6C"), None)]);
        let legal = [
            Action::Beat {
                slot: 0,
                card: c("7C"),
            },
            Action::Beat {
                slot: 0,
                card: c("9H"),
            },
            Action::Take,
        ];
        let mut rng = GameRng::new(1);
        assert_eq!(me.decide_with(&obs, &legal, &mut rng), legal[0]);
    }

    #[test]
    fn lead_answers_a_strong_opponent_with_a_bad_card() {
        let me = Fuzzy {
            opts: Options::classic(2),
        };
        // Opponent holds only trumps (good) → lead the cheapest bad card; against a bad
        // hand (plain 6..10) → a good card (the cheapest trump).
        let legal: Vec<Action> = set("7C QD 8H").iter().map(Action::Lead).collect();
        let mut rng = GameRng::new(1);
        let strong = endgame("7C QD 8H", "KH AH", &[]);
        assert_eq!(
            me.decide_with(&strong, &legal, &mut rng),
            Action::Lead("7C".parse().unwrap())
        );
        let weak = endgame("7C QD 8H", "6S 7S", &[]);
        assert_eq!(
            me.decide_with(&weak, &legal, &mut rng),
            Action::Lead("8H".parse().unwrap())
        );
    }

    #[test]
    fn plays_every_preset_legally() {
        for opts in [
            Options::classic(2),
            Options::perevodnoy(3),
            Options::teams(),
        ] {
            let me = Fuzzy { opts: opts.clone() };
            for seed in 0..20 {
                play_native(&opts, seed, |p, obs, legal, rng| {
                    if p % 2 == 0 {
                        me.decide_with(obs, legal, rng)
                    } else {
                        base_decide_obs(OPPONENT, obs, legal, rng)
                    }
                });
            }
        }
    }
}
