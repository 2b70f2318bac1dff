use super::*;
use crate::cards::Suit;

fn set(s: &str) -> CardSet {
    s.split_whitespace()
        .map(|c| c.parse::<Card>().unwrap())
        .collect()
}

/// Non-nested void patterns where a greedy deal (most constrained hand first) can fail:
/// `fill_hidden` must always find a void-respecting deal, with every hand full and every
/// card placed once.
#[test]
fn redeal_respects_non_nested_voids() {
    let opts = Options::default();
    let hands = [
        set("JC QC KC AC"),
        set("7H 8H 7S 8S"),
        set("7C 8C 7D 8D"),
        set("9D 10D 9S 10S"),
    ];
    let mut used = CardSet::EMPTY;
    for h in hands {
        used = used.union(h);
    }
    let stock: Vec<Card> = DECK.minus(used).iter().collect();
    let setup = Setup {
        hands: hands.to_vec(),
        stock,
        dealer: 3,
        ..Setup::default()
    };
    let base = Toepen::from_setup(&opts, setup).unwrap();
    let voids = [0u8, 0b0011, 0b1100, 0b0101]; // P1 no C/D, P2 no H/S, P3 no C/H
    let mut rng = GameRng::new(3);
    for _ in 0..300 {
        let mut g = base.clone();
        g.voids[..4].copy_from_slice(&voids);
        let mut pool = CardSet::EMPTY;
        let mut need = [0u8; MAXP];
        for c in 1..4 {
            pool = pool.union(g.hands[c]);
            need[c] = 4;
            g.hands[c] = CardSet::EMPTY;
        }
        g.fill_hidden(pool, need, 0, 0, &mut rng);
        for c in 1..4 {
            assert_eq!(g.hands[c].len(), 4, "{:?}", g.hands);
            for su in Suit::ALL {
                if voids[c] & (1 << su as u8) != 0 {
                    assert!(g.hands[c].of_suit(su).is_empty(), "P{c} {:?}", g.hands);
                }
            }
        }
        g.invariants().unwrap();
    }
}

/// `Ways` against brute force: every way to send each card of a small pool to one of the
/// hands or leave it, counted when the hand sizes are right and no void is broken.
#[test]
fn ways_counts_every_consistent_choice() {
    let pool = set("7C 8C 9C 7D 8D 7H 8H 7S 8S");
    let cards: Vec<Card> = pool.iter().collect();
    // (need, allowed suits) per hand: bit 0 clubs, 1 diamonds, 2 hearts, 3 spades.
    let cases: [&[(u8, u8)]; 5] = [
        &[(2, 0b0011), (2, 0b0110)],
        &[(3, 0b1100), (1, 0b0001), (2, 0b0111)],
        &[(2, 0b0001), (2, 0b0001)],
        &[(4, 0b0001)],
        &[(1, 0b1000), (1, 0b1000), (1, 0b1000)],
    ];
    for hands in cases {
        let k = hands.len();
        let mut brute = 0u128;
        let mut code = vec![0usize; cards.len()];
        'all: loop {
            let mut sizes = vec![0u8; k];
            let mut ok = true;
            for (card, &h) in cards.iter().zip(&code) {
                if h < k {
                    sizes[h] += 1;
                    ok &= hands[h].1 & (1 << card.suit() as u8) != 0;
                }
            }
            if ok && (0..k).all(|h| sizes[h] == hands[h].0) {
                brute += 1;
            }
            for d in code.iter_mut() {
                *d += 1;
                if *d <= k {
                    continue 'all;
                }
                *d = 0;
            }
            break;
        }
        assert_eq!(
            Ways::new(hands).of(0, suit_counts(pool)),
            brute,
            "{hands:?}"
        );
    }
}

/// Each split takes exactly as many draws as it has completions, so a uniform draw picks
/// every consistent choice with the same probability.
#[test]
fn every_draw_maps_to_a_split_by_its_weight() {
    let hands = [(2u8, 0b0011u8), (2, 0b0110), (1, 0b1001)];
    let left = suit_counts(set("7C 8C 9C 7D 8D 7H 8H 7S 8S"));
    let mut ways = Ways::new(&hands);
    let total = ways.of(0, left);
    let mut hits = std::collections::HashMap::new();
    for r in 0..total {
        *hits.entry(ways.split(0, left, r)).or_insert(0u128) += 1;
    }
    let mut sum = 0;
    for x in splits(2, 0b0011, left) {
        let w = choose_product(left, x) * ways.of(1, sub(left, x));
        assert_eq!(hits.get(&x).copied().unwrap_or(0), w, "split {x:?}");
        sum += w;
    }
    assert_eq!(sum, total);
    assert!(hits.len() > 2, "{hits:?}");
}

/// `below_u128` stays below its bound and reaches every value of a small one about equally
/// often, also past 64 bits.
#[test]
fn below_u128_is_in_range_and_spread() {
    let mut rng = GameRng::new(7);
    let mut hits = [0u32; 6];
    for _ in 0..6000 {
        hits[below_u128(6, &mut rng) as usize] += 1;
    }
    assert!(hits.iter().all(|&h| (850..1150).contains(&h)), "{hits:?}");
    let big = 3u128 << 100;
    let mut high = 0;
    for _ in 0..200 {
        let r = below_u128(big, &mut rng);
        assert!(r < big);
        high += (r >= big / 2) as u32;
    }
    assert!((70..130).contains(&high), "{high} of 200 in the upper half");
}

#[test]
fn malformed_observation_does_not_panic() {
    let opts = Options::default();
    let g = Toepen::start(&opts, 1);
    let mut obs = g.observation(0);
    let mut rng = GameRng::new(1);
    obs.players = 0;
    obs.to_act = Some(200);
    obs.last_knocker = Some(99);
    obs.trick.push((77, "7H".parse().unwrap()));
    obs.trick_no = 9;
    obs.stock = 255;
    let mut d = Toepen::from_observation(&opts, &obs, &mut rng);
    let mut v = Vec::new();
    d.legal_into(&mut v);
    for a in v {
        let _ = d.clone().apply_action(a);
    }
    let _ = d.invariants();
    d.shuffle_hidden_for(250, &mut rng);
    let _ = d.observation(250);
}
