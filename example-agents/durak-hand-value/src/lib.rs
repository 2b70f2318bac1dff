//! `durak/hand-value`: example-agents/durak-hand-value/README.md, source C's hand evaluation (the
//! Kotlin article): a stateless one-ply searcher. For every legal action it computes the value of
//! the hand it would hold afterwards and plays the action with the best value (ties: the cheaper
//! card).
//!
//! Hand value for hand H, trump suit T, `deck` cards in the talon and the other players' hand
//! sizes ([`hand_value`]):
//! * each card (rank − 8) × 100, a trump adds 1300;
//! * per rank with c cards: max(rank − 8, 1) × [0, 0, 0.5, 0.75, 1.25][c]. As in the source,
//!   this bonus has no ×100 multiplier, so it is tiny (it only breaks near-ties);
//! * unbalanced suits: avg = plain cards / 3; each plain suit costs 200 × |count − avg| / avg
//!   (skipped when avg is 0);
//! * many cards: in_play = deck + the others' hand sizes; ratio = |H| / in_play computed with
//!   **real division** (the source divides integers, which almost always gives 0), or 10 when
//!   in_play is 0; add (0.25 − ratio) × 600;
//! * an empty hand with an empty deck is worth more than any other hand (the player is out).
//!
//! Decided here:
//! * The hand after an action: lead / beat / transfer / throw in removes the card (a
//!   multi-card lead removes all its cards); `Take` adds every table card (attack and
//!   defence); `Pass` and a trump-showing transfer keep the hand. No refill is simulated
//!   (the source is stateless one-ply), and "the other players" are all other seats.
//! * Ties: the action with the cheaper card (plain before trump, then rank, then suit); an
//!   action without a card (`Take`, `Pass`) counts as cheaper than any card.

use croupier_sdk::durak::{Action, Durak, Observation};
use croupier_sdk::{Agent, CardSet, Ctx, GameInfo, Suit};
use durak_common::{action_card, cheap_key, choose, fallback};

/// Value of an empty hand once the talon is empty: better than any other hand.
pub const OUT: f64 = 1.0e12;

/// The source's hand value (see the crate documentation).
pub fn hand_value(hand: CardSet, trump: Suit, deck: u32, others: u32) -> f64 {
    if hand.is_empty() && deck == 0 {
        return OUT;
    }
    let mut v = 0.0;
    for c in hand {
        v += (c.rank() as f64 - 8.0) * 100.0;
        if c.suit() == trump {
            v += 1300.0;
        }
    }
    const MULT: [f64; 5] = [0.0, 0.0, 0.5, 0.75, 1.25];
    for rank in 2..=14u8 {
        let count = hand.iter().filter(|c| c.rank() == rank).count();
        v += (rank as f64 - 8.0).max(1.0) * MULT[count.min(4)];
    }
    let plain = hand.minus(CardSet::suit(trump));
    let avg = plain.len() as f64 / 3.0;
    if avg > 0.0 {
        for suit in Suit::ALL {
            if suit != trump {
                v -= 200.0 * (plain.of_suit(suit).len() as f64 - avg).abs() / avg;
            }
        }
    }
    let in_play = deck + others;
    let ratio = if in_play == 0 {
        10.0
    } else {
        hand.len() as f64 / in_play as f64
    };
    v + (0.25 - ratio) * 600.0
}

/// The hand the actor would hold after `a`.
pub fn hand_after(obs: &Observation, a: Action) -> CardSet {
    let mut h = obs.hand;
    match a {
        Action::Lead(c)
        | Action::Beat { card: c, .. }
        | Action::Transfer(c)
        | Action::ThrowIn(c) => {
            h.remove(c);
        }
        Action::LeadMany(s) => h = h.minus(s),
        Action::Take => {
            for (attack, defence) in &obs.table {
                h.insert(*attack);
                if let Some(d) = defence {
                    h.insert(*d);
                }
            }
        }
        Action::ShowTrumpTransfer(_) | Action::Pass => {}
    }
    h
}

/// Tie-break key: lower is cheaper (no card first).
fn tie_key(a: Action, trump: Suit) -> (u8, (bool, u8, u8)) {
    match action_card(a) {
        None => (0, (false, 0, 0)),
        Some(c) => (1, cheap_key(c, trump)),
    }
}

/// The one-ply choice.
pub fn decide(obs: &Observation, legal: &[Action]) -> Action {
    let trump = obs.trump_suit;
    let others: u32 = obs
        .hand_sizes
        .iter()
        .enumerate()
        .filter(|(s, _)| *s != obs.seat as usize)
        .map(|(_, n)| *n as u32)
        .sum();
    let deck = obs.talon as u32;
    let mut best: Option<(f64, Action)> = None;
    for &a in legal {
        let v = hand_value(hand_after(obs, a), trump, deck, others);
        let better = match best {
            None => true,
            Some((bv, ba)) => v > bv || (v == bv && tie_key(a, trump) < tie_key(ba, trump)),
        };
        if better {
            best = Some((v, a));
        }
    }
    match best {
        Some((_, a)) => choose(legal, a),
        None => fallback(legal),
    }
}

/// The agent.
pub struct HandValue;

impl Agent<Durak> for HandValue {
    fn new(_info: &GameInfo<Durak>) -> Self {
        HandValue
    }
    fn decide(&mut self, obs: &Observation, legal: &[Action], _ctx: &mut Ctx) -> Action {
        decide(obs, legal)
    }
}

croupier_sdk::export_durak!(HandValue);

#[cfg(test)]
mod tests {
    use super::*;
    use croupier_sdk::Card;
    use croupier_sdk::durak::Options;
    use durak_common::play_native;

    fn set(s: &str) -> CardSet {
        s.split_whitespace()
            .map(|c| c.parse::<Card>().unwrap())
            .collect()
    }

    #[test]
    fn values_follow_the_source() {
        // One plain ace, 36 cards in play elsewhere: 600, suits 1/3 avg → imbalance, ratio.
        let v = hand_value(set("AC"), Suit::Spades, 20, 16);
        let avg: f64 = 1.0 / 3.0;
        let imbalance = 200.0 * ((1.0 - avg) / avg + 2.0 * avg / avg);
        let expected = 600.0 - imbalance + (0.25 - 1.0 / 36.0) * 600.0;
        assert!((v - expected).abs() < 1e-9, "{v} vs {expected}");
        // A trump adds 1300; a pair adds the tiny bonus.
        let t = hand_value(set("AS"), Suit::Spades, 20, 16);
        assert!((t - (1900.0 + (0.25 - 1.0 / 36.0) * 600.0)).abs() < 1e-9);
        let pair = hand_value(set("10S 10H"), Suit::Clubs, 0, 0);
        // 10s are worth 200 each, the pair bonus 2 × 0.5 = 1, two suits of one card against an
        // average of 2/3 and one empty suit: 200 × (0.5 + 0.5 + 1); no cards in play: ratio 10.
        let expected = 400.0 + 1.0 - 200.0 * 2.0 + (0.25 - 10.0) * 600.0;
        assert!((pair - expected).abs() < 1e-9, "{pair} vs {expected}");
        assert_eq!(hand_value(CardSet::EMPTY, Suit::Clubs, 0, 5), OUT);
    }

    #[test]
    fn plays_every_preset_legally() {
        for opts in [
            Options::classic(2),
            Options::perevodnoy(4),
            Options::teams(),
        ] {
            for seed in 0..20 {
                play_native(&opts, seed, |_, obs, legal, _| decide(obs, legal));
            }
        }
    }
}
