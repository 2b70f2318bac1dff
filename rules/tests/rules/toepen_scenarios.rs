//! docs/rules/toepen.md#scenarios: every Toepen scenario T1–T19 as its own test, on directly built
//! states.

use crate::common;

use croupier_rules::cards::{Card, CardSet, Seat};
use croupier_rules::game::{Checkable, Game, Rules, SeatResult, Visibility};
use croupier_rules::toepen::*;

fn c(s: &str) -> Card {
    s.parse().unwrap()
}

fn set(s: &str) -> CardSet {
    s.split_whitespace().map(c).collect()
}

/// A round dealt by `dealer` with the given hands (`""` = eliminated seat); every other card
/// goes to the stock in canonical order.
fn deal_with(
    opts: &Options,
    dealer: Seat,
    hands: &[&str],
    scores: &[u32],
    eliminated: u8,
) -> Toepen {
    let hands: Vec<CardSet> = hands.iter().map(|h| set(h)).collect();
    let mut used = CardSet::EMPTY;
    for h in &hands {
        used = used.union(*h);
    }
    let stock: Vec<Card> = DECK.minus(used).iter().collect();
    Toepen::from_setup(
        opts,
        Setup {
            hands,
            stock,
            dealer,
            scores: scores.to_vec(),
            eliminated,
            round: 1,
            seed: 9,
        },
    )
    .unwrap()
}

fn deal(opts: &Options, dealer: Seat, hands: &[&str]) -> Toepen {
    deal_with(opts, dealer, hands, &[], 0)
}

fn legal(g: &Toepen) -> Vec<Action> {
    let mut v = Vec::new();
    g.legal_actions(&mut v);
    v
}

fn acts(list: &str) -> Vec<Action> {
    list.split(',').map(|a| a.trim().parse().unwrap()).collect()
}

/// Applies `a` as `seat` (asserting that `seat` is to act and `a` is legal).
fn act(g: &mut Toepen, seat: Seat, a: &str) {
    assert_eq!(g.to_act(), Some(seat), "expected P{seat} to act for `{a}`");
    let a: Action = a.parse().unwrap();
    assert!(
        legal(g).contains(&a),
        "{a} not legal for P{seat}: {:?}",
        legal(g)
    );
    g.apply(a).unwrap();
    g.check_invariants().unwrap();
}

/// Applies `a` to a copy of `g` and returns why it was refused, checking on the way that
/// `legal_actions` does not list it and that the refusal changed nothing.
fn refusal(g: &Toepen, a: Action) -> Why {
    assert!(!legal(g).contains(&a), "`{a}` is listed as legal");
    let mut h = g.clone();
    let err = h.apply(a).expect_err(&format!("`{a}` must be refused"));
    assert_eq!(err.action, a);
    assert_eq!(&h, g, "the refused `{a}` changed the state");
    err.why
}

fn no_claims(g: &mut Toepen) {
    while g.decision() == Decision::Laundry {
        let s = g.to_act().unwrap();
        act(g, s, "no-claim");
    }
}

fn public_events(g: &Toepen, from: usize) -> Vec<String> {
    g.events()[from..]
        .iter()
        .filter(|e| e.vis == Visibility::Public)
        .map(|e| e.event.to_string())
        .collect()
}

fn round_points(g: &Toepen, from: usize) -> Vec<(Seat, u32)> {
    g.events()[from..]
        .iter()
        .filter_map(|e| match e.event {
            Event::Penalty { seat, points, .. } => Some((seat, points)),
            _ => None,
        })
        .collect()
}

fn last_round_start(g: &Toepen) -> Event {
    g.events()
        .iter()
        .rev()
        .find(|e| matches!(e.event, Event::RoundStart { .. }))
        .unwrap()
        .event
        .clone()
}

#[test]
fn t01_trick_winner_and_card_order() {
    let o = Options::default();
    let mut g = deal(
        &o,
        3,
        &[
            "7H 7C 7D 7S",
            "AH AC AD AS",
            "10H 10C 10D 10S",
            "8S 8C 8D 9S",
        ],
    );
    no_claims(&mut g);
    act(&mut g, 0, "play 7H");
    assert_eq!(legal(&g), acts("play AH, knock"), "P1 must follow hearts");
    act(&mut g, 1, "play AH");
    act(&mut g, 2, "play 10H");
    assert_eq!(legal(&g), acts("play 8C, play 8D, play 8S, play 9S, knock"));
    let from = g.events().len();
    act(&mut g, 3, "play 8S");
    assert_eq!(public_events(&g, from), ["P3 plays 8S", "P2 wins trick 1"]);
    assert_eq!(g.to_act(), Some(2));
    assert_eq!(g.decision(), Decision::Play);
    assert_eq!(g.observe(0).trick_winners, vec![2]);
    assert_eq!(g.observe(0).trick_no, 2);
    assert!(strength(c("7H")) > strength(c("AH")));
}

/// docs/rules/toepen.md#following-suit: a player who holds at least one card of the led suit must
/// play one of them; every other card is refused with `MustFollow`.
#[test]
fn t02_follow_suit() {
    let o = Options::default();
    // P0 leads each suit in turn at P1, who holds {JH, 9S, QC, 10D}.
    for (lead, expect) in [("7H", "JH"), ("7S", "9S"), ("7C", "QC"), ("7D", "10D")] {
        let mut g = deal(
            &o,
            3,
            &["7H 7S 7C 7D", "JH 9S QC 10D", "AH AS AC AD", "KH KS KC KD"],
        );
        no_claims(&mut g);
        act(&mut g, 0, &format!("play {lead}"));
        assert_eq!(
            legal(&g),
            vec![Action::Play(c(expect)), Action::Knock],
            "{lead} led"
        );
        // Every other card is refused with a reason, and the state is unchanged.
        for other in set("JH 9S QC 10D").iter().filter(|x| *x != c(expect)) {
            let before = g.clone();
            let e = g.apply(Action::Play(other)).unwrap_err();
            assert_eq!(
                e.why,
                Why::MustFollow {
                    seat: 1,
                    led: Some(c(lead).suit())
                },
                "{e}"
            );
            assert!(e.to_string().contains("follow suit"), "{e}");
            assert_eq!(g, before);
        }
    }
    // Without a card of the led suit, all four are legal.
    let mut g = deal(
        &o,
        3,
        &["7D 8H 8S 8C", "JH 9S QC 10C", "AH AS AC AD", "KH KS KC KD"],
    );
    no_claims(&mut g);
    act(&mut g, 0, "play 7D");
    assert_eq!(
        legal(&g),
        acts("play 10C, play QC, play JH, play 9S, knock")
    );
    act(&mut g, 1, "play 10C");
    assert_eq!(
        g.observe(2).voids[1],
        1 << 1,
        "P1 is known to lack diamonds"
    );
}

#[test]
fn t03_lowest_card_wins_alone_in_suit() {
    let o = Options::default();
    let mut g = deal(
        &o,
        3,
        &[
            "JC 7H 7D 7S",
            "AH AS AD 10H",
            "8H 8S 8D 9D",
            "9H 9S 10D 10S",
        ],
    );
    no_claims(&mut g);
    act(&mut g, 0, "play JC");
    act(&mut g, 1, "play 10H");
    act(&mut g, 2, "play 9D");
    let from = g.events().len();
    act(&mut g, 3, "play 10S");
    assert_eq!(public_events(&g, from), ["P3 plays 10S", "P0 wins trick 1"]);
    assert_eq!(g.to_act(), Some(0));
}

#[test]
fn t04_last_trick_wins_the_round() {
    let o = Options::default();
    let mut g = deal(
        &o,
        3,
        &[
            "10C 10D 10S 7H",
            "9C 9D 9S JH",
            "8C 8D 8S 10H",
            "7C 7D 7S QH",
        ],
    );
    no_claims(&mut g);
    for (s0, s1, s2, s3) in [
        ("10C", "9C", "8C", "7C"),
        ("10D", "9D", "8D", "7D"),
        ("10S", "9S", "8S", "7S"),
    ] {
        act(&mut g, 0, &format!("play {s0}"));
        act(&mut g, 1, &format!("play {s1}"));
        act(&mut g, 2, &format!("play {s2}"));
        act(&mut g, 3, &format!("play {s3}"));
    }
    assert_eq!(g.observe(1).trick_winners, vec![0, 0, 0]);
    let from = g.events().len();
    act(&mut g, 0, "play 7H");
    act(&mut g, 1, "play JH");
    act(&mut g, 2, "play 10H");
    act(&mut g, 3, "play QH");
    let ev = public_events(&g, from);
    assert!(ev.contains(&"P2 wins trick 4".to_string()), "{ev:?}");
    assert!(ev.contains(&"P2 wins the round".to_string()), "{ev:?}");
    assert_eq!(round_points(&g, from), vec![(0, 1), (1, 1), (3, 1)]);
    assert_eq!(g.scores(), &[1, 1, 0, 1]);
    assert_eq!(g.dealer(), 2);
    assert!(matches!(
        last_round_start(&g),
        Event::RoundStart {
            round: 2,
            dealer: 2,
            leader: 3,
            stake: 1,
            stock: 16
        }
    ));
    assert_eq!(
        g.to_act(),
        Some(3),
        "P3 leads (first laundry turn) in round 2"
    );
}

/// Hands for T5/T6: P0 wins trick 1 and leads trick 2, where P1 is to play.
const T5: [&str; 4] = [
    "10C 9D 8S JH",
    "9C 10D 7S QH",
    "8C 7D 9H 10S",
    "7C 8D 9S 10H",
];

fn t5_to_trick2() -> Toepen {
    let mut g = deal(&Options::default(), 3, &T5);
    no_claims(&mut g);
    for (s, card) in [(0, "10C"), (1, "9C"), (2, "8C"), (3, "7C"), (0, "9D")] {
        act(&mut g, s, &format!("play {card}"));
    }
    assert_eq!(g.observe(0).trick_no, 2);
    assert_eq!(legal(&g), acts("play 10D, knock"));
    g
}

#[test]
fn t05_knock_and_fold() {
    let mut g = t5_to_trick2();
    let from = g.events().len();
    act(&mut g, 1, "knock");
    assert_eq!(g.stake(), 2);
    assert_eq!(g.decision(), Decision::KnockResponse);
    assert_eq!(legal(&g), acts("stay, fold"));
    act(&mut g, 2, "fold");
    act(&mut g, 3, "stay");
    act(&mut g, 0, "stay");
    assert_eq!(
        public_events(&g, from),
        ["P1 knocks (stake 2)", "P2 folds", "P3 stays", "P0 stays"]
    );
    // P1 must now play; he cannot knock again.
    assert_eq!(g.decision(), Decision::Play);
    assert_eq!(legal(&g), acts("play 10D"));
    act(&mut g, 1, "play 10D");
    act(&mut g, 3, "play 8D"); // P2 is skipped
    assert_eq!(g.to_act(), Some(1), "P1 won trick 2");
    act(&mut g, 1, "play 7S");
    act(&mut g, 3, "play 9S");
    act(&mut g, 0, "play 8S");
    let o = g.observe(2);
    assert_eq!(o.live, 0b1011);
    assert_eq!(o.fold_stakes, vec![0, 0, 1, 0]);
    act(&mut g, 3, "play 10H");
    act(&mut g, 0, "play JH");
    act(&mut g, 1, "play QH");
    assert_eq!(round_points(&g, from), vec![(0, 2), (1, 2), (2, 1)]);
    assert_eq!(g.scores(), &[2, 2, 1, 0]);
    // P2 never played after folding.
    let p2_plays = g.events()[from..]
        .iter()
        .filter(|e| matches!(e.event, Event::Play { seat: 2, .. }))
        .count();
    assert_eq!(p2_plays, 0);
}

#[test]
fn t06_no_two_knocks_in_a_row() {
    let mut g = t5_to_trick2();
    act(&mut g, 1, "knock");
    act(&mut g, 2, "fold");
    act(&mut g, 3, "stay");
    act(&mut g, 0, "stay");
    act(&mut g, 1, "play 10D");
    act(&mut g, 3, "play 8D");
    // P1's next PlayTurn (leading trick 3): no Knock.
    assert_eq!(g.to_act(), Some(1));
    assert_eq!(legal(&g), acts("play QH, play 7S"));
    act(&mut g, 1, "play 7S");
    assert!(legal(&g).contains(&Action::Knock));
    act(&mut g, 3, "knock");
    assert_eq!(g.stake(), 3);
    act(&mut g, 0, "stay");
    act(&mut g, 1, "stay");
    act(&mut g, 3, "play 9S");
    act(&mut g, 0, "play 8S");
    act(&mut g, 3, "play 10H");
    act(&mut g, 0, "play JH");
    // P1's next turn: Knock is offered again (P3 knocked in between).
    assert_eq!(g.to_act(), Some(1));
    assert_eq!(legal(&g), acts("play QH, knock"));
    act(&mut g, 1, "knock");
    assert_eq!(g.stake(), 4);
}

#[test]
fn t07_knock_and_everybody_folds() {
    let mut g = deal(&Options::default(), 3, &T5);
    no_claims(&mut g);
    let from = g.events().len();
    act(&mut g, 0, "knock");
    act(&mut g, 1, "fold");
    act(&mut g, 2, "fold");
    act(&mut g, 3, "fold");
    let ev = public_events(&g, from);
    assert!(ev.contains(&"P0 wins the round".to_string()), "{ev:?}");
    assert!(
        !g.events()[from..]
            .iter()
            .any(|e| matches!(e.event, Event::Play { .. }))
    );
    assert_eq!(round_points(&g, from), vec![(1, 1), (2, 1), (3, 1)]);
    assert_eq!(g.scores(), &[0, 1, 1, 1]);
    assert_eq!(g.dealer(), 0);
    assert!(matches!(
        last_round_start(&g),
        Event::RoundStart {
            round: 2,
            dealer: 0,
            leader: 1,
            ..
        }
    ));
}

#[test]
fn t08_laundry_claim_challenged_genuine() {
    let o = Options::default();
    let mut g = deal(
        &o,
        3,
        &["7H 7C 7D 7S", "JS QH KD AC", "8H 8C 8D 8S", "9H 9C 9D 9S"],
    );
    assert_eq!(g.observe(0).stock, 16);
    assert_eq!(g.decision(), Decision::Laundry);
    assert_eq!(legal(&g), acts("laundry, no-claim"));
    act(&mut g, 0, "no-claim");
    let top = g.stock_blocks()[0];
    let from = g.events().len();
    act(&mut g, 1, "laundry");
    assert_eq!(g.hand(1), top, "P1 takes the top 4 stock cards");
    assert_eq!(g.observe(0).stock, 12);
    // Only P1 sees its new cards.
    let private: Vec<_> = g.events()[from..]
        .iter()
        .filter(|e| !e.vis.is_public())
        .collect();
    assert_eq!(private.len(), 1);
    assert_eq!(private[0].vis, Visibility::only(1));
    assert_eq!(g.decision(), Decision::LaundryChallenge);
    assert_eq!(legal(&g), acts("challenge, no-challenge"));
    act(&mut g, 2, "no-challenge");
    act(&mut g, 3, "challenge");
    assert_eq!(
        public_events(&g, from),
        [
            "P1 claims laundry",
            "P2 does not challenge",
            "P3 challenges P1: {AC KD QH JS} is genuine",
            "P3 +1 (score 1)"
        ]
    );
    assert_eq!(g.scores(), &[0, 0, 0, 1]);
    assert_eq!(g.hand(1), top, "P1 keeps the new hand");
    let obs = g.observe(0);
    assert_eq!(obs.revealed, set("JS QH KD AC"));
    assert_eq!(obs.revealed_by[1], set("JS QH KD AC"));
    // The laundry turns go on with P2, P3; P0 (already decided) is not asked again.
    act(&mut g, 2, "no-claim");
    act(&mut g, 3, "no-claim");
    assert_eq!(g.decision(), Decision::Play);
    assert_eq!(g.to_act(), Some(0));
}

/// Every card that `shuffle_hidden` can hand out: the hands and the stock. (Cards set aside
/// by a laundry claim are not readable from outside; they are what is left.)
fn in_play(g: &Toepen) -> CardSet {
    let mut all = CardSet::EMPTY;
    for s in 0..4 {
        all = all.union(g.hand(s));
    }
    for b in g.stock_blocks() {
        all = all.union(b);
    }
    all
}

/// Mutation testing found `shuffle_hidden` free to move a laundry's set-aside cards either
/// way: a challenged claim's cards, shown to everybody, into play, or an unchallenged
/// claim's cards, seen by nobody else, never. Both are checked here from P0's seat.
#[test]
fn t08b_shuffle_hidden_and_the_cards_set_aside() {
    let hands = ["7H 7C 7D 7S", "JS QH KD AC", "8H 8C 8D 8S", "9H 9C 9D 9S"];
    let old = set("JS QH KD AC");
    for challenged in [true, false] {
        let mut g = deal(&Options::default(), 3, &hands);
        act(&mut g, 0, "no-claim");
        act(&mut g, 1, "laundry");
        act(&mut g, 2, "no-challenge");
        let answer = if challenged {
            "challenge"
        } else {
            "no-challenge"
        };
        act(&mut g, 3, answer);
        assert!(
            in_play(&g).intersect(old).is_empty(),
            "P1's old hand is aside"
        );
        let mut came_back = 0;
        for seed in 0..64 {
            let mut d = g.clone();
            d.shuffle_hidden(0, &mut croupier_rules::GameRng::new(seed));
            let back = in_play(&d).intersect(old);
            if challenged {
                assert!(
                    back.is_empty(),
                    "seed {seed}: the shown cards {back} came back into play"
                );
            }
            came_back += usize::from(!back.is_empty());
        }
        if !challenged {
            // Four of P0's unknown cards lie aside among 4 + 4 + 4 + 16 hidden places.
            assert!(
                came_back > 32,
                "unseen set-aside cards must be re-dealt like any hidden card ({came_back} of 64)"
            );
        }
    }
}

#[test]
fn t09_laundry_bluff_caught() {
    let hands = ["7H 7C 7D 7S", "JS QH KD 7C", "8H 8C 8D 8S", "9H 9C 9D 9S"];
    let hands = {
        // 7C is in P1's hand: give P0 another card instead.
        let mut h = hands;
        h[0] = "7H 10C 7D 7S";
        h
    };
    for keep in [true, false] {
        let o = Options {
            caught_bluffer_keeps_new_hand: keep,
            ..Options::default()
        };
        let mut g = deal(&o, 3, &hands);
        act(&mut g, 0, "no-claim");
        let top = g.stock_blocks()[0];
        act(&mut g, 1, "laundry");
        let from = g.events().len();
        act(&mut g, 2, "challenge");
        let ev = public_events(&g, from);
        assert_eq!(ev[0], "P2 challenges P1: {7C KD QH JS} is a bluff");
        assert!(ev.contains(&"P1 +1 (score 1)".to_string()), "{ev:?}");
        assert_eq!(g.scores(), &[0, 1, 0, 0]);
        assert_eq!(
            g.decision(),
            Decision::Laundry,
            "the challenge window closed"
        );
        assert_eq!(g.to_act(), Some(2));
        if keep {
            assert_eq!(g.hand(1), top);
            assert_eq!(g.observe(0).stock, 12);
        } else {
            assert_eq!(g.hand(1), set("JS QH KD 7C"));
            assert_eq!(g.observe(0).stock, 16);
            assert_eq!(
                *g.stock_blocks().last().unwrap(),
                top,
                "new cards at the bottom"
            );
            assert!(
                ev.iter().any(|e| e.contains("takes the old hand back")),
                "{ev:?}"
            );
            // Public: P1's hand is known to everybody; the returned cards only to P1.
            let o0 = g.observe(0);
            assert_eq!(o0.known_cards[1], set("JS QH KD 7C"));
            assert!(o0.known_stock.is_empty());
            assert!(!o0.unseen.contains(c("7C")));
            let o1 = g.observe(1);
            assert_eq!(o1.known_stock, vec![(3, top)]);
            assert_eq!(o1.own_laundry, CardSet::EMPTY);
            assert!(o1.unseen.intersect(top).is_empty());
            // No event shows the returned cards to anybody but P1.
            for e in &g.events()[from..] {
                if let Event::NewHand { seat, cards } = e.event {
                    assert_eq!(e.vis, Visibility::only(seat));
                    assert_eq!(cards, set("JS QH KD 7C"));
                }
            }
        }
    }
}

/// docs/rules/toepen.md#laundry-claims: a claim is allowed only if the stock holds at least 4
/// cards (docs/rules/toepen.md#edge-cases); a claim on a short stock is refused with `StockShort`.
#[test]
fn t10_laundry_needs_four_stock_cards() {
    // 8 players: no stock, so only NoClaim.
    let o = Options {
        num_players: 8,
        dealer: Some(7),
        ..Options::default()
    };
    let mut g = Toepen::new(&o, 1).unwrap();
    assert_eq!(g.observe(0).stock, 0);
    for s in 0..8 {
        assert_eq!(g.decision(), Decision::Laundry);
        assert_eq!(legal(&g), acts("no-claim"), "P{s}");
        assert_eq!(
            refusal(&g, Action::ClaimLaundry),
            Why::StockShort { cards: 0 },
            "P{s}"
        );
        act(&mut g, s, "no-claim");
    }
    assert_eq!(g.decision(), Decision::Play);
    // 7 players: the first claim is legal; afterwards only NoClaim.
    let o = Options {
        num_players: 7,
        dealer: Some(6),
        ..Options::default()
    };
    let mut g = Toepen::new(&o, 1).unwrap();
    assert_eq!(g.observe(0).stock, 4);
    assert_eq!(legal(&g), acts("laundry, no-claim"));
    act(&mut g, 0, "laundry");
    assert_eq!(g.observe(0).stock, 0);
    for s in 1..7 {
        act(&mut g, s, "no-challenge");
    }
    for s in 1..7 {
        assert_eq!(legal(&g), acts("no-claim"), "P{s}");
        assert_eq!(
            refusal(&g, Action::ClaimLaundry),
            Why::StockShort { cards: 0 },
            "P{s}"
        );
        act(&mut g, s, "no-claim");
    }
    assert_eq!(g.decision(), Decision::Play);
}

#[test]
fn t11_dead_card_in_the_last_trick() {
    let mut g = deal(
        &Options::default(),
        3,
        &[
            "10C 10D 10S 9H",
            "9C 9D 9S JH",
            "7C 8D 8S 8C",
            "QC QD QS QH",
        ],
    );
    no_claims(&mut g);
    for (a, b, cc, d) in [
        ("10C", "9C", "7C", "QC"),
        ("10D", "9D", "8D", "QD"),
        ("10S", "9S", "8S", "QS"),
    ] {
        act(&mut g, 0, &format!("play {a}"));
        act(&mut g, 1, &format!("play {b}"));
        act(&mut g, 2, &format!("play {cc}"));
        act(&mut g, 3, &format!("play {d}"));
    }
    let from = g.events().len();
    act(&mut g, 0, "play 9H");
    act(&mut g, 1, "knock");
    act(&mut g, 2, "stay");
    act(&mut g, 3, "stay");
    act(&mut g, 0, "fold");
    assert_eq!(g.observe(1).dead, 1, "P0's 9H is dead");
    act(&mut g, 1, "play JH");
    act(&mut g, 2, "play 8C");
    act(&mut g, 3, "play QH");
    let ev = public_events(&g, from);
    assert!(ev.contains(&"P3 wins the round".to_string()), "{ev:?}");
    assert_eq!(round_points(&g, from), vec![(0, 1), (1, 2), (2, 2)]);
}

#[test]
fn t12_no_live_card_of_the_led_suit() {
    let mut g = deal(
        &Options::default(),
        3,
        &["10C 10D 8H 7H", "9C 9D KS JS", "8C 8D 7S 9S", "7C 7D AC AD"],
    );
    no_claims(&mut g);
    for (a, b, cc, d) in [("10C", "9C", "8C", "7C"), ("10D", "9D", "8D", "7D")] {
        act(&mut g, 0, &format!("play {a}"));
        act(&mut g, 1, &format!("play {b}"));
        act(&mut g, 2, &format!("play {cc}"));
        act(&mut g, 3, &format!("play {d}"));
    }
    act(&mut g, 0, "play 8H");
    act(&mut g, 1, "play KS");
    act(&mut g, 2, "knock");
    act(&mut g, 3, "stay");
    act(&mut g, 0, "fold");
    act(&mut g, 1, "stay");
    act(&mut g, 2, "play 7S");
    let from = g.events().len();
    act(&mut g, 3, "play AC");
    assert_eq!(public_events(&g, from), ["P3 plays AC", "P2 wins trick 3"]);
    assert_eq!(g.to_act(), Some(2));
    assert_eq!(g.observe(0).trick_no, 4);
    assert_eq!(g.observe(0).leader, 2);
}

#[test]
fn t13_elimination_and_smaller_table() {
    let o = Options::default();
    let mut g = deal_with(
        &o,
        3,
        &[
            "9C 9D 9S 9H",
            "10C 10D 10S 10H",
            "8C 8D 8S 8H",
            "7C 7D 7S 7H",
        ],
        &[3, 5, 9, 0],
        0,
    );
    no_claims(&mut g);
    act(&mut g, 0, "play 9C");
    act(&mut g, 1, "play 10C");
    act(&mut g, 2, "play 8C");
    act(&mut g, 3, "play 7C");
    let from = g.events().len();
    for suit in ["D", "S", "H"] {
        act(&mut g, 1, &format!("play 10{suit}"));
        act(&mut g, 2, &format!("play 8{suit}"));
        act(&mut g, 3, &format!("play 7{suit}"));
        act(&mut g, 0, &format!("play 9{suit}"));
    }
    let ev = public_events(&g, from);
    assert!(ev.contains(&"P1 wins the round".to_string()), "{ev:?}");
    assert!(ev.contains(&"P2 is eliminated".to_string()), "{ev:?}");
    assert_eq!(g.scores(), &[4, 5, 10, 1]);
    assert!(matches!(
        last_round_start(&g),
        Event::RoundStart {
            round: 2,
            dealer: 1,
            leader: 3,
            stake: 1,
            stock: 20
        }
    ));
    let obs = g.observe(0);
    assert_eq!(obs.eliminated, 1 << 2);
    assert_eq!(obs.hand_counts, vec![4, 4, 0, 4]);
    assert_eq!(obs.dealt, 0b1011);
    let dealt: usize = (0..4).map(|s| g.hand(s).len()).sum();
    assert_eq!(dealt, 12);
    assert_eq!(g.to_act(), Some(3));
    // P2 takes no part: the laundry turns go P3, P0, P1.
    act(&mut g, 3, "no-claim");
    act(&mut g, 0, "no-claim");
    act(&mut g, 1, "no-claim");
    assert_eq!(g.to_act(), Some(3));
    assert_eq!(g.decision(), Decision::Play);
}

#[test]
fn t14_poverty() {
    let o = Options {
        poverty: true,
        ..Options::default()
    };
    let mut g = deal_with(
        &o,
        0,
        &[
            "10C 10D 10S 10H",
            "8C 8D 8S 8H",
            "9C 9D 9S 9H",
            "7C 7D 7S 7H",
        ],
        &[2, 4, 9, 1],
        0,
    );
    assert!(matches!(
        last_round_start(&g),
        Event::RoundStart {
            dealer: 0,
            leader: 2,
            stake: 2,
            ..
        }
    ));
    let obs = g.observe(3);
    assert_eq!((obs.stake, obs.last_knocker, obs.poor), (2, None, 1 << 2));
    for s in [2, 3, 0, 1] {
        act(&mut g, s, "no-claim");
    }
    assert_eq!(g.decision(), Decision::Poverty);
    assert_eq!(legal(&g), acts("stay, fold"));
    let from = g.events().len();
    act(&mut g, 3, "fold");
    act(&mut g, 0, "stay");
    act(&mut g, 1, "stay");
    assert_eq!(
        public_events(&g, from),
        [
            "P3 folds (poverty, pays 1)",
            "P0 stays (poverty, stake 2)",
            "P1 stays (poverty, stake 2)"
        ]
    );
    // P2 is never asked: play starts with him.
    assert_eq!(g.decision(), Decision::Play);
    assert_eq!(g.to_act(), Some(2));
    act(&mut g, 2, "play 9C");
    act(&mut g, 0, "play 10C"); // P3 folded
    act(&mut g, 1, "play 8C");
    for suit in ["D", "S", "H"] {
        act(&mut g, 0, &format!("play 10{suit}"));
        act(&mut g, 1, &format!("play 8{suit}"));
        act(&mut g, 2, &format!("play 9{suit}"));
    }
    let ev = public_events(&g, from);
    assert!(ev.contains(&"P0 wins the round".to_string()), "{ev:?}");
    assert_eq!(round_points(&g, from), vec![(1, 2), (2, 2), (3, 1)]);
    assert_eq!(g.scores(), &[2, 6, 11, 2]);
    assert!(ev.contains(&"P2 is eliminated".to_string()), "{ev:?}");
}

/// docs/rules/toepen.md#who-may-knock rule 5 [VAR]: with `knock_cap_by_score`: `score(player) +
/// stake + 1 <= limit`; a knock past it is refused with `KnockCapByScore`.
#[test]
fn t15_knock_cap_by_score() {
    let o = Options {
        knock_cap_by_score: true,
        ..Options::default()
    };
    let mut g = deal_with(&o, 3, &T5, &[0, 8, 7, 0], 0);
    no_claims(&mut g);
    act(&mut g, 0, "knock");
    for s in [1, 2, 3] {
        act(&mut g, s, "stay");
    }
    assert_eq!(g.stake(), 2);
    act(&mut g, 0, "play 10C");
    assert_eq!(legal(&g), acts("play 9C"), "P1: 8 + 3 > 10, no Knock");
    let e = g.clone().apply(Action::Knock).unwrap_err();
    assert_eq!(
        e.why,
        Why::KnockCapByScore {
            seat: 1,
            score: 8,
            raise_to: 3,
            limit: 10
        },
        "{e}"
    );
    assert!(e.to_string().contains("knock_cap_by_score"), "{e}");
    act(&mut g, 1, "play 9C");
    assert_eq!(
        legal(&g),
        acts("play 8C, knock"),
        "P2: 7 + 3 = 10, Knock offered"
    );
}

/// docs/rules/toepen.md#end-of-the-game `FirstToLimit`: the game ends as soon as any score reaches
/// `limit`; afterwards every action is refused with `GameOver`.
#[test]
fn t16_first_to_limit() {
    let o = Options::preset("drinking").unwrap();
    let mut g = deal_with(
        &o,
        1,
        &[
            "9C 9D 9S 9H",
            "8C 8D 8S 8H",
            "10C 10D 10S 10H",
            "7C 7D 7S 7H",
        ],
        &[8, 9, 0, 3],
        0,
    );
    no_claims(&mut g);
    act(&mut g, 2, "knock");
    for s in [3, 0, 1] {
        act(&mut g, s, "stay");
    }
    for suit in ["C", "D", "S", "H"] {
        act(&mut g, 2, &format!("play 10{suit}"));
        act(&mut g, 3, &format!("play 7{suit}"));
        act(&mut g, 0, &format!("play 9{suit}"));
        act(&mut g, 1, &format!("play 8{suit}"));
    }
    assert_eq!(g.to_act(), None);
    assert_eq!(g.decision(), Decision::Over);
    let out = g.outcome().unwrap();
    assert_eq!(out.scores, vec![10, 11, 0, 5]);
    assert_eq!(
        out.results,
        vec![
            SeatResult::Loss,
            SeatResult::Loss,
            SeatResult::Win,
            SeatResult::Win
        ]
    );
    assert!(!out.aborted);
    assert!(matches!(
        g.events().last().unwrap().event,
        Event::GameEnd { .. }
    ));
    let e = g.clone().apply(Action::Stay).unwrap_err();
    assert_eq!(e.why, Why::GameOver, "{e}");
}

#[test]
fn t17_plain_game_is_only_card_choices() {
    let o = Options::preset("toepen_plain()").unwrap();
    let mut rng = croupier_rules::rng::GameRng::new(17);
    for seed in 0..30 {
        let mut g = Toepen::new(&o, seed).unwrap();
        while let Some(s) = g.to_act() {
            assert_eq!(g.decision(), Decision::Play);
            let obs = g.observe(s);
            let follow = match obs.trick.first() {
                Some((_, lead)) => obs.hand.of_suit(lead.suit()),
                None => CardSet::EMPTY,
            };
            let expect: Vec<Action> = if follow.is_empty() { obs.hand } else { follow }
                .iter()
                .map(Action::Play)
                .collect();
            let l = legal(&g);
            assert_eq!(l, expect);
            g.apply(l[rng.below(l.len())]).unwrap();
        }
        for e in g.events() {
            assert!(
                !matches!(
                    e.event,
                    Event::Laundry { .. }
                        | Event::NoClaim { .. }
                        | Event::Poverty { .. }
                        | Event::Knock { .. }
                        | Event::Response { .. }
                ),
                "{}",
                e.event
            );
        }
        assert!(g.outcome().is_some());
    }
}

/// docs/rules/toepen.md#who-may-knock rule 4 [VAR]: `max_stake` is None or `stake < max_stake`; a
/// knock at the cap is refused with `MaxStake`.
#[test]
fn t18_max_stake() {
    let o = Options {
        max_stake: Some(3),
        ..Options::default()
    };
    let mut g = deal(&o, 3, &T5);
    no_claims(&mut g);
    act(&mut g, 0, "knock");
    for s in [1, 2, 3] {
        act(&mut g, s, "stay");
    }
    act(&mut g, 0, "play 10C");
    act(&mut g, 1, "knock");
    for s in [2, 3, 0] {
        act(&mut g, s, "stay");
    }
    assert_eq!(g.stake(), 3);
    act(&mut g, 1, "play 9C");
    assert_eq!(legal(&g), acts("play 8C"));
    let e = g.clone().apply(Action::Knock).unwrap_err();
    assert_eq!(e.why, Why::MaxStake { stake: 3 }, "{e}");
    assert!(e.to_string().contains("max_stake"), "{e}");
    act(&mut g, 2, "play 8C");
    assert_eq!(legal(&g), acts("play 7C"));
    act(&mut g, 3, "play 7C");
    assert_eq!(
        legal(&g),
        acts("play 9D, play JH, play 8S"),
        "P0 leads trick 2: no Knock"
    );
}

#[test]
fn t19_knock_window() {
    let o = Options {
        knock_timing: KnockTiming::AnyCardBoundary,
        ..Options::default()
    };
    let mut g = deal(&o, 3, &T5);
    no_claims(&mut g);
    assert_eq!(g.decision(), Decision::KnockWindow);
    assert_eq!(legal(&g), acts("knock, no-knock"));
    act(&mut g, 0, "no-knock");
    act(&mut g, 1, "knock");
    assert_eq!(g.decision(), Decision::KnockResponse);
    act(&mut g, 2, "stay");
    act(&mut g, 3, "stay");
    act(&mut g, 0, "stay");
    assert_eq!(g.decision(), Decision::KnockWindow);
    act(&mut g, 2, "no-knock");
    act(&mut g, 3, "no-knock");
    assert_eq!(g.stake(), 2);
    // The window went once round: P0 leads, without a Knock action.
    assert_eq!(g.decision(), Decision::Play);
    assert_eq!(legal(&g), acts("play 10C, play 9D, play JH, play 8S"));
    act(&mut g, 0, "play 10C");
    // The next window starts with P1, who may not knock (last knocker): P2 is asked first.
    assert_eq!(g.decision(), Decision::KnockWindow);
    assert_eq!(g.to_act(), Some(2));
}

// ---- Engine decisions where the rule book is silent (docs/rules/toepen.md#engine-decisions).

#[test]
fn x01_fold_in_window_completes_the_trick() {
    let o = Options {
        num_players: 3,
        knock_timing: KnockTiming::AnyCardBoundary,
        ..Options::default()
    };
    let mut g = deal(&o, 2, &["10C 10D 7H 8H", "9C 9D JH QH", "8C 8D KH AH"]);
    no_claims(&mut g);
    for s in [0, 1, 2] {
        act(&mut g, s, "no-knock");
    }
    act(&mut g, 0, "play 10C");
    for s in [1, 2, 0] {
        act(&mut g, s, "no-knock");
    }
    act(&mut g, 1, "play 9C");
    // The window before P2's card: P2 declines, P0 (already played) knocks, P2 folds.
    act(&mut g, 2, "no-knock");
    act(&mut g, 0, "knock");
    act(&mut g, 1, "stay");
    let from = g.events().len();
    act(&mut g, 2, "fold");
    // The scan goes on with P1, then the trick is complete without P2's card.
    assert_eq!(g.decision(), Decision::KnockWindow);
    act(&mut g, 1, "no-knock");
    assert_eq!(
        public_events(&g, from),
        ["P2 folds", "P1 does not knock", "P0 wins trick 1"]
    );
    // Trick 2: the window starts at P0, the last knocker, so P1 is asked first.
    assert_eq!(g.decision(), Decision::KnockWindow);
    assert_eq!(g.to_act(), Some(1));
    assert_eq!(g.observe(1).knock_window, Some((0, 1)));
}

#[test]
fn x02_leader_folds_before_leading() {
    let o = Options {
        knock_timing: KnockTiming::AnyCardBoundary,
        ..Options::default()
    };
    let mut g = deal(&o, 3, &T5);
    no_claims(&mut g);
    act(&mut g, 0, "no-knock");
    act(&mut g, 1, "knock");
    act(&mut g, 2, "stay");
    act(&mut g, 3, "stay");
    act(&mut g, 0, "fold");
    act(&mut g, 2, "no-knock");
    act(&mut g, 3, "no-knock");
    // P0 folded before leading: the next live player clockwise, P1, leads.
    assert_eq!(g.decision(), Decision::Play);
    assert_eq!(g.to_act(), Some(1));
    assert_eq!(legal(&g).len(), 4, "a leader may play any card");
}

#[test]
fn x03_laundry_penalty_eliminates_at_once() {
    let o = Options {
        limit: 2,
        ..Options::default()
    };
    let hands = ["7H 7C 7D 7S", "JS QH KD AC", "8H 8C 8D 8S", "9H 9C 9D 9S"];
    let mut g = deal_with(&o, 3, &hands, &[0, 0, 1, 0], 0);
    act(&mut g, 0, "no-claim");
    act(&mut g, 1, "laundry");
    let from = g.events().len();
    act(&mut g, 2, "challenge");
    let ev = public_events(&g, from);
    assert!(ev.contains(&"P2 +1 (score 2)".to_string()), "{ev:?}");
    assert!(ev.contains(&"P2 is eliminated".to_string()), "{ev:?}");
    // P2 takes no further part: the laundry turns go on with P3, then play.
    assert_eq!(g.to_act(), Some(3));
    act(&mut g, 3, "no-claim");
    assert_eq!(g.decision(), Decision::Play);
    let obs = g.observe(0);
    assert_eq!(obs.live, 0b1011);
    assert_eq!(obs.hand_counts[2], 4, "his cards leave play face down");
    assert!(obs.known_cards[2].is_empty());
    // Everybody else folds to P0's knock: P2 pays nothing more.
    let from = g.events().len();
    act(&mut g, 0, "knock");
    act(&mut g, 1, "fold");
    act(&mut g, 3, "fold");
    assert_eq!(round_points(&g, from), vec![(1, 1), (3, 1)]);
}

#[test]
fn x04_first_to_limit_ends_in_the_laundry_phase() {
    let o = Options {
        limit: 2,
        ..Options::preset("drinking").unwrap()
    };
    let hands = ["7H 7C 7D 7S", "JS QH KD AC", "8H 8C 8D 8S", "9H 9C 9D 9S"];
    let mut g = deal_with(&o, 3, &hands, &[0, 0, 1, 0], 0);
    act(&mut g, 0, "no-claim");
    act(&mut g, 1, "laundry");
    act(&mut g, 2, "challenge");
    assert_eq!(g.to_act(), None);
    let out = g.outcome().unwrap();
    assert_eq!(
        out.results,
        vec![
            SeatResult::Win,
            SeatResult::Win,
            SeatResult::Loss,
            SeatResult::Win
        ]
    );
    assert_eq!(out.scores, vec![0, 0, 2, 0]);
}

#[test]
fn x05_last_survivor_ranking() {
    // P2 is out already; P0 and P3 go out together at the end of this round.
    let o = Options::default();
    let hands = ["9C 9D 9S 9H", "10C 10D 10S 10H", "", "7C 7D 7S 7H"];
    let mut g = deal_with(&o, 3, &hands, &[9, 0, 12, 9], 1 << 2);
    no_claims(&mut g);
    act(&mut g, 0, "play 9C");
    act(&mut g, 1, "play 10C");
    act(&mut g, 3, "play 7C");
    for suit in ["D", "S", "H"] {
        act(&mut g, 1, &format!("play 10{suit}"));
        act(&mut g, 3, &format!("play 7{suit}"));
        act(&mut g, 0, &format!("play 9{suit}"));
    }
    let out = g.outcome().unwrap();
    assert_eq!(
        out.results,
        vec![
            SeatResult::Loss,
            SeatResult::Win,
            SeatResult::Loss,
            SeatResult::Loss
        ]
    );
    assert_eq!(out.summary, "P1 wins; then 2. P0, P3, 4. P2");
    assert_eq!(g.observe(1).eliminated_at, vec![2, 0, 1, 2]);
}

// ---- Refusal reasons (issue #41): every `Why` a player can be shown, each by name. -------

fn p(a: &str) -> Action {
    a.parse().unwrap()
}

/// docs/rules/toepen.md#decisions: each decision point takes only its own actions (the table of
/// decisions and their actions), and docs/rules/toepen.md#who-may-knock rule 1: a knock needs
/// the round to be in its tricks (not in the laundry or poverty decisions). Anything else is
/// `WrongDecision`, naming the decision that is pending.
#[test]
fn why_wrong_decision() {
    let mut g = deal(&Options::default(), 3, &T5);
    assert_eq!(g.decision(), Decision::Laundry);
    for a in ["play 10C", "knock", "stay", "challenge"] {
        assert_eq!(
            refusal(&g, p(a)),
            Why::WrongDecision {
                seat: 0,
                decision: Decision::Laundry,
                action: p(a)
            },
            "{a}"
        );
    }
    no_claims(&mut g);
    assert_eq!(g.decision(), Decision::Play);
    assert_eq!(
        refusal(&g, Action::Fold),
        Why::WrongDecision {
            seat: 0,
            decision: Decision::Play,
            action: Action::Fold
        }
    );
    act(&mut g, 0, "knock");
    assert_eq!(g.decision(), Decision::KnockResponse);
    assert_eq!(
        refusal(&g, p("play 9C")),
        Why::WrongDecision {
            seat: 1,
            decision: Decision::KnockResponse,
            action: p("play 9C")
        }
    );
}

/// docs/rules/toepen.md#white-laundry [VAR]: With `white_laundry=true` a second claim type
/// exists; without it `ClaimWhiteLaundry` is refused with `WhiteLaundryOff`.
#[test]
fn why_white_laundry_off() {
    let hands = ["7H JC QD KS", "9C 9D 9S JH", "8C 8D 8S 10H", "7C 7D 7S QH"];
    let g = deal(&Options::default(), 3, &hands);
    assert_eq!(g.decision(), Decision::Laundry);
    assert_eq!(refusal(&g, p("white-laundry")), Why::WhiteLaundryOff);
    let o = Options {
        white_laundry: true,
        ..Options::default()
    };
    let mut g = deal(&o, 3, &hands);
    act(&mut g, 0, "white-laundry");
}

/// docs/rules/toepen.md#following-suit: every player "plays one card" — from his own hand; a card
/// he does not hold is refused with `NotHeld` (before the follow-suit rule is looked at).
#[test]
fn why_not_held() {
    let mut g = deal(&Options::default(), 3, &T5);
    no_claims(&mut g);
    assert_eq!(
        refusal(&g, p("play 9C")),
        Why::NotHeld {
            seat: 0,
            card: c("9C")
        }
    );
    act(&mut g, 0, "play 10C");
    // P1 holds 9C (a club, as led) but not 8C.
    assert_eq!(
        refusal(&g, p("play 8C")),
        Why::NotHeld {
            seat: 1,
            card: c("8C")
        }
    );
}

/// docs/rules/toepen.md#who-may-knock rule 1: a knock needs `knocking == true`; in
/// `toepen_plain()` (source D's game, docs/rules/toepen.md#edge-cases: "no `Knock`") it is refused
/// with `KnockingOff`.
#[test]
fn why_knocking_off() {
    let g = deal(&Options::plain(), 3, &T5);
    assert_eq!(g.decision(), Decision::Play);
    assert_eq!(refusal(&g, Action::Knock), Why::KnockingOff);
}

/// docs/rules/toepen.md#knock-window [VAR]: with `knock_timing=AnyCardBoundary` knocks are made in
/// the knock window; the player to move plays (his `PlayTurn` then has no `Knock` action). A
/// knock at the play turn is refused with `KnockInWindow`.
#[test]
fn why_knock_in_window() {
    let o = Options {
        knock_timing: KnockTiming::AnyCardBoundary,
        ..Options::default()
    };
    let mut g = deal(&o, 3, &T5);
    no_claims(&mut g);
    for s in [0, 1, 2, 3] {
        act(&mut g, s, "no-knock");
    }
    assert_eq!((g.decision(), g.to_act()), (Decision::Play, Some(0)));
    assert_eq!(refusal(&g, Action::Knock), Why::KnockInWindow);
}

/// docs/rules/toepen.md#who-may-knock rule 3: he is not `last_knocker`: nobody may make two knocks
/// in a row within a round (docs/rules/toepen.md#knock-on-turn: after his knock the same player
/// must now play a card; he cannot knock again); refused with `LastKnocker`.
#[test]
fn why_last_knocker() {
    let mut g = t5_to_trick2();
    act(&mut g, 1, "knock");
    for s in [2, 3, 0] {
        act(&mut g, s, "stay");
    }
    assert_eq!((g.decision(), g.to_act()), (Decision::Play, Some(1)));
    assert_eq!(refusal(&g, Action::Knock), Why::LastKnocker { seat: 1 });
}

/// What a player or agent is shown for a refusal: the `IllegalAction` text, "illegal action
/// <action>: <reason>", whose reason part is the `Why`'s own text.
#[test]
fn why_text_is_what_players_see() {
    let mut g = t5_to_trick2();
    act(&mut g, 1, "knock");
    for s in [2, 3, 0] {
        act(&mut g, s, "stay");
    }
    let err = g.clone().apply(Action::Knock).unwrap_err();
    assert_eq!(err.why, Why::LastKnocker { seat: 1 });
    assert_eq!(
        err.why.to_string(),
        "P1 made the last knock; somebody else must knock first"
    );
    assert_eq!(
        err.to_string(),
        "illegal action knock: P1 made the last knock; somebody else must knock first"
    );
    let err = g.apply(Action::Stay).unwrap_err();
    assert_eq!(
        err.to_string(),
        "illegal action stay: P1 must play a card now, not stay or fold"
    );
}

/// Every refusal reason and the test in this file that provokes it and asserts it by name.
/// The match has no wildcard arm, so a new `Why` variant does not compile until it is given
/// a scenario here (issue #41); `every_refusal_reason_has_a_scenario` checks the names.
fn scenario_of(why: Why) -> &'static str {
    match why {
        Why::GameOver => "t16_first_to_limit",
        Why::WrongDecision { .. } => "why_wrong_decision",
        Why::WhiteLaundryOff => "why_white_laundry_off",
        Why::StockShort { .. } => "t10_laundry_needs_four_stock_cards",
        Why::NotHeld { .. } => "why_not_held",
        Why::MustFollow { .. } => "t02_follow_suit",
        Why::KnockingOff => "why_knocking_off",
        Why::KnockInWindow => "why_knock_in_window",
        Why::LastKnocker { .. } => "why_last_knocker",
        Why::MaxStake { .. } => "t18_max_stake",
        Why::KnockCapByScore { .. } => "t15_knock_cap_by_score",
    }
}

#[test]
fn every_refusal_reason_has_a_scenario() {
    let one_of_each = [
        Why::GameOver,
        Why::WrongDecision {
            seat: 0,
            decision: Decision::Play,
            action: Action::Stay,
        },
        Why::WhiteLaundryOff,
        Why::StockShort { cards: 0 },
        Why::NotHeld {
            seat: 0,
            card: c("7H"),
        },
        Why::MustFollow { seat: 0, led: None },
        Why::KnockingOff,
        Why::KnockInWindow,
        Why::LastKnocker { seat: 0 },
        Why::MaxStake { stake: 3 },
        Why::KnockCapByScore {
            seat: 0,
            score: 9,
            raise_to: 2,
            limit: 10,
        },
    ];
    common::check_scenarios(
        include_str!("toepen_scenarios.rs"),
        &one_of_each,
        scenario_of,
    );
}
