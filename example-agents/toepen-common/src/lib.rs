//! Shared helpers for the Toepen example agents (example-agents/toepen-common/README.md, source D).
//!
//! * [`Trick`] reads the trick in progress from an observation: the led suit, the card that
//!   wins it so far, which legal cards would win it now.
//! * [`default_answer`] answers every decision that is not a card play the way source D's bots
//!   do: never knock, stay when another player knocks (**(decided)** in
//!   example-agents/toepen-common/README.md), and for the decisions source D never meets (other
//!   presets): no laundry claim, no challenge, stay under poverty.
//! * [`p_beaten`] and [`p_regain`] are source D's probability formulas used by `greedy`.
//! * [`lowest`] / [`highest`] pick a card by Toepen strength (J < Q < K < A < 7 < 8 < 9 < 10).

use croupier_sdk::toepen::{Action, Decision, Observation, strength};
use croupier_sdk::{Card, CardSet, Seat, Suit};

/// Bit of seat `s` in a seat mask (0 for seats that do not fit).
pub fn bit(s: Seat) -> u8 {
    1u8.checked_shl(s as u32).unwrap_or(0)
}

/// Sort key: strength first, then card code, so every choice is deterministic.
fn key(c: Card) -> (u8, u8) {
    (strength(c), c.code())
}

/// The weakest card of `cards` (ties by card code).
pub fn lowest(cards: impl IntoIterator<Item = Card>) -> Option<Card> {
    cards.into_iter().min_by_key(|c| key(*c))
}

/// The strongest card of `cards` (ties by card code).
pub fn highest(cards: impl IntoIterator<Item = Card>) -> Option<Card> {
    cards.into_iter().max_by_key(|c| key(*c))
}

/// The cards among `legal` (card plays only).
pub fn legal_cards(legal: &[Action]) -> CardSet {
    legal
        .iter()
        .filter_map(|a| match a {
            Action::Play(c) => Some(*c),
            _ => None,
        })
        .collect()
}

/// The answer source D's bots give to every decision that is not "which card": never knock,
/// stay in, claim nothing, challenge nobody. `None` for a card-play decision (the caller
/// chooses the card). Always one of `legal` when it is `Some`.
pub fn default_answer(obs: &Observation, legal: &[Action]) -> Option<Action> {
    let wanted: &[Action] = match obs.decision {
        Decision::Play => return None,
        Decision::KnockWindow => &[Action::NoKnock],
        Decision::KnockResponse | Decision::Poverty => &[Action::Stay],
        Decision::Laundry => &[Action::NoClaim],
        Decision::LaundryChallenge => &[Action::NoChallenge],
        Decision::Over => &[],
    };
    wanted
        .iter()
        .find(|a| legal.contains(a))
        .copied()
        .or_else(|| fallback(legal))
}

/// A legal action that is never a knock when something else is allowed (the first such).
pub fn fallback(legal: &[Action]) -> Option<Action> {
    legal
        .iter()
        .find(|a| !matches!(a, Action::Knock))
        .or(legal.first())
        .copied()
}

/// The whole decision of a source-D bot: [`default_answer`] for everything but a card play;
/// for a card play, `choose` picks one of the legal cards (given as a set, never empty). Always
/// returns one of `legal` (and `NoClaim`, harmlessly refused by the host, only if `legal` is
/// empty, which the host never sends).
pub fn decide_with(
    obs: &Observation,
    legal: &[Action],
    choose: impl FnOnce(CardSet) -> Option<Card>,
) -> Action {
    if let Some(a) = default_answer(obs, legal) {
        return a;
    }
    let cards = legal_cards(legal);
    let chosen = if cards.is_empty() {
        None
    } else {
        choose(cards)
    };
    match chosen {
        Some(c) if cards.contains(c) => Action::Play(c),
        _ => fallback(legal).unwrap_or(Action::NoClaim),
    }
}

/// The trick in progress as the deciding player sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Trick {
    /// The led suit (`None` when this player leads).
    pub led: Option<Suit>,
    /// The strongest live card of the led suit so far (what a card must beat to win now).
    pub best: Option<Card>,
    /// Live players who still have to play to this trick after the deciding player.
    pub still_to_play: u8,
    /// The current trick number, 1..=4.
    pub number: u8,
}

impl Trick {
    pub fn read(obs: &Observation) -> Trick {
        let led = obs.trick.first().map(|(_, c)| c.suit());
        let best = led.and_then(|suit| {
            obs.trick
                .iter()
                .filter(|(s, c)| c.suit() == suit && obs.dead & bit(*s) == 0)
                .map(|(_, c)| *c)
                .max_by_key(|c| strength(*c))
        });
        let mut played = bit(obs.seat);
        for (s, _) in &obs.trick {
            played |= bit(*s);
        }
        let still_to_play = (obs.live & !played).count_ones() as u8;
        Trick {
            led,
            best,
            still_to_play,
            number: obs.trick_no,
        }
    }

    /// True when this player leads the trick.
    pub fn leading(&self) -> bool {
        self.led.is_none()
    }

    /// Can the deciding player follow suit with one of `hand`?
    pub fn can_follow(&self, hand: CardSet) -> bool {
        self.led.is_some_and(|s| !hand.of_suit(s).is_empty())
    }

    /// Would `c` win the trick if it were played now (and nobody played after it)?
    pub fn wins_now(&self, c: Card) -> bool {
        match (self.led, self.best) {
            (None, _) => true,
            (Some(s), None) => c.suit() == s,
            (Some(s), Some(b)) => c.suit() == s && strength(c) > strength(b),
        }
    }
}

/// Source D's Reasoning rule for the legal `cards`, given the led suit (`None` when leading),
/// the live card to beat and the trick number: cannot follow → lowest; can follow but cannot
/// win → lowest of the led suit; can win → the lowest card that wins; leading → lowest in
/// tricks 1–2, highest in tricks 3–4. (When the player cannot follow, every legal card is off
/// suit, so "lowest card" is the lowest legal card.) Also the search agent's playout policy.
pub fn reasoning_card(
    cards: CardSet,
    led: Option<Suit>,
    best: Option<Card>,
    trick_no: u8,
) -> Option<Card> {
    let trick = Trick {
        led,
        best,
        still_to_play: 0,
        number: trick_no,
    };
    if trick.leading() {
        return if trick_no <= 2 {
            lowest(cards)
        } else {
            highest(cards)
        };
    }
    let winners: CardSet = cards.iter().filter(|c| trick.wins_now(*c)).collect();
    lowest(winners).or_else(|| lowest(cards))
}

/// The unseen cards of `c`'s suit that are stronger than `c`.
pub fn unseen_beaters(obs: &Observation, c: Card) -> CardSet {
    obs.unseen
        .of_suit(c.suit())
        .iter()
        .filter(|u| strength(*u) > strength(c))
        .collect()
}

/// Source D: the chance that card `c`, winning the trick now, is beaten by a later player of
/// this trick. `p` = unseen cards that beat `c` / unseen cards; a player holding `n` cards does
/// not beat it with chance (1 − p)^n; P(beaten) = 1 − Π over the players still to play.
///
/// Decided here: the product runs over the live players still to play, each with his own hand
/// count, and a player known to be void in `c`'s suit cannot beat it (the observation's `voids`
/// make this certain). With equal hand counts and no voids this is the source's
/// `1 − ((1 − p)^n)^players`.
pub fn p_beaten(obs: &Observation, c: Card) -> f64 {
    let unseen = obs.unseen.len();
    if unseen == 0 {
        return 0.0;
    }
    let p = unseen_beaters(obs, c).len() as f64 / unseen as f64;
    let mut played = bit(obs.seat);
    for (s, _) in &obs.trick {
        played |= bit(*s);
    }
    let suit_bit = 1u8 << c.suit() as u8;
    let mut not_beaten = 1.0;
    for s in 0..obs.players {
        let b = bit(s);
        if obs.live & b == 0 || played & b != 0 {
            continue;
        }
        if obs.voids.get(s as usize).copied().unwrap_or(0) & suit_bit != 0 {
            continue;
        }
        let n = obs.hand_counts.get(s as usize).copied().unwrap_or(0) as i32;
        not_beaten *= (1.0 - p).powi(n);
    }
    1.0 - not_beaten
}

/// Source D: the chance that card `c` (which cannot win the trick now) regains the lead later.
/// For each unseen card `u` that `c` would beat, P(`u` leads a trick as a winner) =
/// (1 / unseen) × (1/4) × (1 − P(`u` is beaten)); the chances combine as 1 − Π(1 − each).
///
/// Decided here: P(`u` is beaten) uses the same formula as [`p_beaten`] with `u`'s unseen
/// beaters (minus `u` itself) against every other live opponent, each holding the average
/// opponent hand count (when `u` is led, everybody else plays after it).
pub fn p_regain(obs: &Observation, c: Card) -> f64 {
    let unseen = obs.unseen.len();
    if unseen == 0 {
        return 0.0;
    }
    let opponents: Vec<Seat> = (0..obs.players)
        .filter(|s| *s != obs.seat && obs.live & bit(*s) != 0)
        .collect();
    let cards: u32 = opponents
        .iter()
        .map(|s| obs.hand_counts.get(*s as usize).copied().unwrap_or(0) as u32)
        .sum();
    let others = opponents.len().saturating_sub(1) as i32;
    let n = if opponents.is_empty() {
        0
    } else {
        (cards as f64 / opponents.len() as f64).round() as i32
    };
    let mut never = 1.0;
    for u in obs.unseen.of_suit(c.suit()).iter() {
        if strength(u) >= strength(c) {
            continue;
        }
        let p = unseen_beaters(obs, u).len() as f64 / unseen as f64;
        let beaten = 1.0 - (1.0 - p).powi(n).powi(others);
        let each = (1.0 / unseen as f64) * 0.25 * (1.0 - beaten);
        never *= 1.0 - each;
    }
    1.0 - never
}

/// The card of `cards` minimising `score` (ties: the weaker card, then the lower code).
pub fn argmin_by(cards: CardSet, mut score: impl FnMut(Card) -> f64) -> Option<Card> {
    let mut best: Option<(f64, Card)> = None;
    for c in cards.iter() {
        let v = score(c);
        let better = match best {
            None => true,
            Some((bv, bc)) => v < bv || (v == bv && key(c) < key(bc)),
        };
        if better {
            best = Some((v, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use croupier_sdk::toepen::{Options, Setup, Toepen};
    use croupier_sdk::{Game, GameRng, Rules};

    fn set(s: &str) -> CardSet {
        s.split_whitespace()
            .map(|c| c.parse::<Card>().unwrap())
            .collect()
    }

    /// A plain-preset round with fixed hands (seat 0 deals, seat 1 leads).
    pub fn fixed_round(hands: [&str; 4]) -> Toepen {
        let hands: Vec<CardSet> = hands.iter().map(|h| set(h)).collect();
        let mut rest = croupier_sdk::toepen::DECK;
        for h in &hands {
            rest = rest.minus(*h);
        }
        let setup = Setup {
            hands,
            stock: rest.iter().collect(),
            dealer: 0,
            ..Setup::default()
        };
        Toepen::from_setup(&Options::plain(), setup).unwrap()
    }

    #[test]
    fn trick_reading_and_formulas() {
        let mut g = fixed_round(["QC 8C 9C 10C", "JC QD KD AD", "JD 7D 8D 9D", "JH QH KH AH"]);
        // Seat 1 leads JC; seat 2 is void in clubs after discarding.
        g.apply(Action::Play("JC".parse().unwrap())).unwrap();
        g.apply(Action::Play("JD".parse().unwrap())).unwrap();
        g.apply(Action::Play("JH".parse().unwrap())).unwrap();
        let obs = g.observe(0);
        let t = Trick::read(&obs);
        assert_eq!(t.led, Some(Suit::Clubs));
        assert_eq!(t.best, Some("JC".parse().unwrap()));
        assert_eq!(t.still_to_play, 0);
        assert!(t.can_follow(obs.hand));
        assert!(t.wins_now("QC".parse().unwrap()));
        assert!(!t.wins_now("JD".parse().unwrap()));
        // Nobody plays after seat 0: nothing can beat it.
        assert_eq!(p_beaten(&obs, "QC".parse().unwrap()), 0.0);
        // 10C beats every unseen club (7C KC AC), QC none of them.
        assert!(p_regain(&obs, "10C".parse().unwrap()) > 0.0);
        assert_eq!(p_regain(&obs, "QC".parse().unwrap()), 0.0);
    }

    #[test]
    fn default_answers_are_legal_under_every_preset() {
        for preset in ["standard", "drinking", "cafe", "plain"] {
            let opts = Options::preset(preset).unwrap();
            let mut rng = GameRng::new(3);
            for seed in 0..30 {
                let mut g = Toepen::new(&opts, seed).unwrap();
                let mut legal = Vec::new();
                while g.to_act().is_some() {
                    let s = g.to_act().unwrap();
                    g.legal_actions(&mut legal);
                    let obs = g.observe(s);
                    let a = decide_with(&obs, &legal, |cards| {
                        cards.iter().nth(rng.below(cards.len()))
                    });
                    assert!(legal.contains(&a));
                    assert_ne!(a, Action::Knock, "{preset}");
                    g.apply(a).unwrap();
                }
            }
        }
    }
}
