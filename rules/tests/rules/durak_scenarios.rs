//! docs/rules/durak.md#scenarios, scenarios D1–D22: each builds the described state with
//! `Durak::from_setup`, plays the listed actions through `apply` and checks every expected item.

use crate::common;

use croupier_rules::cards::{Card, CardSet, Seat, Suit};
use croupier_rules::durak::*;
use croupier_rules::game::{Checkable, Game, SeatResult, Visibility};
use croupier_rules::rng::GameRng;

fn c(s: &str) -> Card {
    s.parse().unwrap()
}

fn cs(s: &str) -> CardSet {
    s.split_whitespace().map(c).collect()
}

fn a(s: &str) -> Action {
    s.parse().unwrap()
}

/// Every deck card not in `used` and not in `top`, then `trump` at the bottom: a talon, top first.
fn talon(deck: Deck, used: &[CardSet], top: &str, trump: &str) -> Vec<Card> {
    let mut taken = CardSet::EMPTY;
    for u in used {
        taken = taken.union(*u);
    }
    let top: Vec<Card> = top.split_whitespace().map(c).collect();
    let trump = c(trump);
    let mut v = top.clone();
    for card in deck.cards().minus(taken) {
        if !top.contains(&card) && card != trump {
            v.push(card);
        }
    }
    v.push(trump);
    v
}

fn setup(hands: &[&str], talon: Vec<Card>, trump: &str, attacker: Option<Seat>) -> Setup {
    let mut s = Setup::new(hands.iter().map(|h| cs(h)).collect(), talon, c(trump));
    s.attacker = attacker;
    s
}

fn legal(g: &Durak) -> Vec<Action> {
    let mut v = Vec::new();
    g.legal_actions(&mut v);
    v
}

fn acts(list: &str) -> Vec<Action> {
    list.split(',').map(|t| a(t.trim())).collect()
}

/// Applies `action`, asserting that `seat` is the one to act.
fn play(g: &mut Durak, seat: Seat, action: &str) {
    assert_eq!(g.to_act(), Some(seat), "before `{action}`");
    g.apply(a(action))
        .unwrap_or_else(|e| panic!("`{action}` refused: {e}"));
    g.check_invariants().unwrap();
}

/// Applies `action` to a copy of `g` and returns why it was refused, checking on the way that
/// `legal_actions` does not list it and that the refusal changed nothing.
fn refusal(g: &Durak, action: Action) -> Why {
    assert!(!legal(g).contains(&action), "`{action}` is listed as legal");
    let mut h = g.clone();
    let err = h
        .apply(action)
        .expect_err(&format!("`{action}` must be refused"));
    assert_eq!(err.action, action);
    assert_eq!(&h, g, "the refused `{action}` changed the state");
    err.why
}

/// Public events logged from index `from` on.
fn public_since(g: &Durak, from: usize) -> Vec<Event> {
    g.events()[from..]
        .iter()
        .filter(|l| l.vis.is_public())
        .map(|l| l.event.clone())
        .collect()
}

fn refills(events: &[Event]) -> Vec<(Seat, u8)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Refill { seat, count, .. } => Some((*seat, *count)),
            _ => None,
        })
        .collect()
}

fn two(o: Options) -> Options {
    Options {
        num_players: 2,
        ..o
    }
}

#[test]
fn d01_beat_relation() {
    let h = Suit::Hearts;
    assert!(beats(h, c("10S"), c("9S")));
    assert!(!beats(h, c("8S"), c("9S")));
    assert!(beats(h, c("6H"), c("9S")));
    assert!(!beats(h, c("AD"), c("9S")));
    assert!(!beats(h, c("6H"), c("7H")));
    assert!(beats(h, c("8H"), c("7H")));
    assert!(!beats(h, c("AS"), c("7H")));
    // The same relation decides the engine's legal defences: P1 faces 9S, then 7H.
    let o = two(Options::classic(2));
    let s = setup(&["9S 7H KC", "10S 8S 6H AD 8H AS"], vec![], "QH", Some(0));
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 0, "lead 9S");
    assert_eq!(
        legal(&g),
        acts("beat 0 6H, beat 0 8H, beat 0 10S, beat 0 AS, take")
    );
    play(&mut g, 1, "take");
    play(&mut g, 0, "pass");
    play(&mut g, 0, "lead 7H");
    assert_eq!(legal(&g), acts("beat 0 8H, take"));
}

#[test]
fn d02_lowest_trump_starts_and_is_revealed() {
    let o = Options::classic(4);
    let hands = [
        "8H 6C 7C 8C 9C 10C",
        "6D 7D 8D 9D 10D JD",
        "6H 6S 7S 8S 9S 10S",
        "JH JC QC KC AC JS",
    ];
    let used: Vec<CardSet> = hands.iter().map(|h| cs(h)).collect();
    let t = talon(Deck::Deck36, &used, "", "10H");
    assert_eq!(t.len(), 12);
    let g = Durak::from_setup(&o, setup(&hands, t, "10H", None)).unwrap();
    assert_eq!(g.principal(), 2);
    assert_eq!(g.defender(), 3);
    assert_eq!(g.to_act(), Some(2));
    assert_eq!(g.first_attacker(), 2);
    let reveal = g
        .events()
        .iter()
        .find(|l| matches!(l.event, Event::LowestTrump { .. }))
        .unwrap();
    assert_eq!(reveal.vis, Visibility::Public);
    assert_eq!(
        reveal.event,
        Event::LowestTrump {
            seat: 2,
            card: c("6H")
        }
    );
    // Everybody now knows P2 holds 6H.
    for seat in 0..4 {
        assert!(g.observe(seat).known[2].contains(c("6H")));
    }
    assert_eq!(g.known_in_hand(2), cs("6H"));
}

#[test]
fn d03_no_trump_dealt() {
    let hands = ["6C 7C 8C 9C 10C JC", "6S 7S 8S 9S 10S JS"];
    let used: Vec<CardSet> = hands.iter().map(|h| cs(h)).collect();
    let t = talon(Deck::Deck36, &used, "", "KD");
    let mut s = setup(&hands, t.clone(), "KD", None);
    s.dealer = 1;
    // LeftOfDealer (default): P0 attacks P1.
    let g = Durak::from_setup(&Options::classic(2), s.clone()).unwrap();
    assert_eq!((g.principal(), g.defender(), g.to_act()), (0, 1, Some(0)));
    assert!(
        !g.events()
            .iter()
            .any(|l| matches!(l.event, Event::LowestTrump { .. }))
    );
    // Everybody may infer that no hand held a diamond at the deal.
    let obs = g.observe(0);
    assert_eq!(obs.low_trumps, Deck::Deck36.cards().of_suit(Suit::Diamonds));
    assert_eq!(obs.low_trump_room, vec![0, 0]);

    // Redeal: the engine reshuffles and deals again, same dealer.
    let o = Options {
        no_trump_fallback: NoTrumpFallback::Redeal,
        ..Options::classic(2)
    };
    for seed in 0..20 {
        s.seed = seed;
        let g = Durak::from_setup(&o, s.clone()).unwrap();
        let ev: Vec<&Event> = g.events().iter().map(|l| &l.event).collect();
        let redeal = ev.iter().rposition(|e| **e == Event::Redeal).unwrap();
        let Event::Deal { dealer, trump, .. } = ev[redeal + 1] else {
            panic!("no deal after the redeal: {ev:?}");
        };
        assert_eq!(*dealer, 1);
        assert_eq!(g.dealer(), 1);
        assert_eq!(g.trump_card(), *trump);
        assert_eq!(g.hand(0).len() + g.hand(1).len(), 12);
        // The new deal is a real shuffle and its first attacker holds the lowest trump.
        assert!(g.hand(0) != cs(hands[0]) || g.hand(1) != cs(hands[1]));
        let trumps = Deck::Deck36.cards().of_suit(trump.suit());
        let lowest = g
            .hand(0)
            .union(g.hand(1))
            .intersect(trumps)
            .first()
            .unwrap();
        assert!(g.hand(g.principal()).contains(lowest));
        g.check_invariants().unwrap();
    }
}

/// docs/rules/durak.md#rank-rule: A card may be added to a running bout (throw-in) only if its
/// rank equals the rank of some card already on the table; 8D is refused with `RankNotOnTable`.
#[test]
fn d04_throw_in_priority_and_rank_rule() {
    let o = Options::classic(3);
    let s = setup(&["7C 7D 8D 9H", "9C 10D JD", "9S"], vec![], "6H", Some(0));
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 0, "lead 7C");
    play(&mut g, 1, "beat 0 9C");
    assert_eq!(g.phase(), Phase::ThrowIn);
    assert_eq!(g.to_act(), Some(0));
    assert_eq!(legal(&g), acts("throw 7D, throw 9H, pass"));
    assert_eq!(refusal(&g, a("throw 8D")), Why::RankNotOnTable(c("8D")));
    play(&mut g, 0, "pass");
    assert_eq!(g.to_act(), Some(2));
    assert_eq!(legal(&g), acts("throw 9S, pass"));
}

#[test]
fn d05_take_with_full_bout_ends_at_once() {
    let o = two(Options::classic(2));
    let s = setup(&["KS KD KH 7C", "AS 10D"], vec![], "6H", Some(0));
    let mut g = Durak::from_setup(&o, s).unwrap();
    assert_eq!(g.h0(), 2);
    play(&mut g, 0, "lead KS");
    play(&mut g, 1, "beat 0 AS");
    assert_eq!(legal(&g), acts("throw KD, throw KH, pass"));
    play(&mut g, 0, "throw KD");
    assert_eq!(legal(&g), acts("take"));
    let mark = g.events().len();
    play(&mut g, 1, "take");
    // Attack count 2 = h0: no throw-in offered after the take.
    let ev = public_since(&g, mark);
    assert_eq!(ev[0], Event::Take { seat: 1 });
    assert_eq!(
        ev[1],
        Event::BoutEnd {
            how: BoutEnd::Taken,
            cards: cs("KS AS KD")
        }
    );
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::ThrowIn { .. } | Event::Pass { .. }))
    );
    assert!(g.hand(0).contains(c("KH")));
    assert_eq!(g.hand(1), cs("10D KS AS KD"));
    assert_eq!(g.known_in_hand(1), cs("KS AS KD"));
    assert_eq!((g.principal(), g.defender(), g.to_act()), (0, 1, Some(0)));
}

#[test]
fn d06_room_zero_ends_the_bout() {
    let o = Options::classic(3);
    let s = setup(
        &["6C 7D 8S 9C 10D JS 6D", "7C 8D 9S 10C JD QS AC AD", "QC 7S"],
        vec![],
        "6H",
        Some(0),
    );
    let mut g = Durak::from_setup(&o, s).unwrap();
    let discarded = g.discard().len();
    assert_eq!(g.h0(), 8);
    assert_eq!(g.bout_limit(), 6);
    play(&mut g, 0, "lead 6C");
    play(&mut g, 1, "beat 0 7C");
    for (i, (att, def)) in [("7D", "8D"), ("8S", "9S"), ("9C", "10C"), ("10D", "JD")]
        .iter()
        .enumerate()
    {
        play(&mut g, 0, &format!("throw {att}"));
        play(&mut g, 1, &format!("beat {} {def}", i + 1));
    }
    play(&mut g, 0, "throw JS");
    let mark = g.events().len();
    play(&mut g, 1, "beat 5 QS");
    // Six attack cards covered, throwers hold 6D, QC, 7S: no throw-in is offered.
    let ev = public_since(&g, mark);
    assert!(matches!(
        ev[1],
        Event::BoutEnd {
            how: BoutEnd::Beaten,
            ..
        }
    ));
    assert_eq!(g.discard().len(), discarded + 12);
    assert_eq!(g.phase(), Phase::Lead);
    assert_eq!((g.principal(), g.defender()), (1, 2));
}

#[test]
fn d07_first_bout_cap() {
    let o = Options {
        first_bout_cap: Some(5),
        ..Options::classic(2)
    };
    let hands = ["6C 7D 8S 9C 10D JS", "7C 8D 9S 10C JD AS"];
    let used: Vec<CardSet> = hands.iter().map(|h| cs(h)).collect();
    let t = talon(Deck::Deck36, &used, "KC AD 6H 9D 7S QC KD QD 6D 6S", "KH");
    let s = setup(&hands, t, "KH", Some(0));
    let mut g = Durak::from_setup(&o, s.clone()).unwrap();
    assert!(g.discard().is_empty());
    assert_eq!(g.bout_limit(), 5);
    play(&mut g, 0, "lead 6C");
    play(&mut g, 1, "beat 0 7C");
    for (i, (att, def)) in [("7D", "8D"), ("8S", "9S"), ("9C", "10C")]
        .iter()
        .enumerate()
    {
        play(&mut g, 0, &format!("throw {att}"));
        play(&mut g, 1, &format!("beat {} {def}", i + 1));
    }
    play(&mut g, 0, "throw 10D");
    let mark = g.events().len();
    play(&mut g, 1, "beat 4 JD");
    // Five covered and the cap is 5: Beaten although P0 still holds JS.
    assert!(matches!(
        public_since(&g, mark)[1],
        Event::BoutEnd {
            how: BoutEnd::Beaten,
            ..
        }
    ));
    assert_eq!(g.discard().len(), 10);

    // Second bout, discard not empty: the cap is 6 and a sixth card is allowed.
    assert_eq!((g.principal(), g.defender()), (1, 0));
    assert_eq!(g.hand(0), cs("JS KC AD 6H 9D 7S"));
    assert_eq!(g.hand(1), cs("AS QC KD QD 6D 6S"));
    assert_eq!(g.bout_limit(), 6);
    play(&mut g, 1, "lead QC");
    play(&mut g, 0, "beat 0 KC");
    for (i, (att, def)) in [("KD", "AD"), ("QD", "6H"), ("6D", "9D"), ("6S", "7S")]
        .iter()
        .enumerate()
    {
        play(&mut g, 1, &format!("throw {att}"));
        play(&mut g, 0, &format!("beat {} {def}", i + 1));
    }
    assert_eq!(g.table_pairs().len(), 5);
    assert_eq!(legal(&g), acts("throw AS, pass"));
    play(&mut g, 1, "throw AS");
    assert_eq!(g.table_pairs().len(), 6);

    // If the first bout ends with a take, the cap is still 5 in the second bout.
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 0, "lead 6C");
    play(&mut g, 1, "take");
    play(&mut g, 0, "pass");
    assert!(g.discard().is_empty());
    assert_eq!((g.principal(), g.defender()), (0, 1));
    assert_eq!(g.h0(), 7);
    assert_eq!(g.bout_limit(), 5);
    assert_eq!(g.observe(0).limit, 5);
}

fn d08_setup(o: &Options) -> Durak {
    let hands = [
        "8C 8D 8S 6C 7C 9C",
        "6D 7D 9D 10D JD QD",
        "8H 6H 7H 9H 10H JH",
        "10C JC QC KC AC",
    ];
    let used: Vec<CardSet> = hands.iter().map(|h| cs(h)).collect();
    let t = talon(Deck::Deck36, &used, "", "6S");
    Durak::from_setup(o, setup(&hands, t, "6S", Some(0))).unwrap()
}

#[test]
fn d08_polling_order_after_take() {
    let o = Options::classic(4);
    let mut g = d08_setup(&o);
    play(&mut g, 0, "lead 8C");
    assert_eq!(g.h0(), 6);
    play(&mut g, 1, "take");
    let mark = g.events().len();
    let steps = [
        (0, "throw 8D"),
        (0, "throw 8S"),
        (0, "pass"),
        (2, "throw 8H"),
        (0, "pass"),
        (2, "pass"),
        (3, "pass"),
    ];
    for (seat, act) in steps {
        play(&mut g, seat, act);
    }
    let ev = public_since(&g, mark);
    assert!(ev.contains(&Event::BoutEnd {
        how: BoutEnd::Taken,
        cards: cs("8C 8D 8S 8H")
    }));
    assert_eq!(g.hand(1).len(), 10);
    assert!(g.hand(1).is_subset(cs("6D 7D 9D 10D JD QD 8C 8D 8S 8H")));
    // Refill order P0, P2, P3, P1 (P1 holds 10 and draws nothing).
    assert_eq!(refills(&ev), vec![(0, 3), (2, 1), (3, 1)]);
    assert_eq!((g.principal(), g.defender(), g.to_act()), (2, 3, Some(2)));

    // With throw_in_after_take=false the bout ends right after the take.
    let o = Options {
        throw_in_after_take: false,
        ..Options::classic(4)
    };
    let mut g = d08_setup(&o);
    play(&mut g, 0, "lead 8C");
    let mark = g.events().len();
    play(&mut g, 1, "take");
    let ev = public_since(&g, mark);
    assert_eq!(ev[0], Event::Take { seat: 1 });
    assert_eq!(
        ev[1],
        Event::BoutEnd {
            how: BoutEnd::Taken,
            cards: cs("8C")
        }
    );
    assert_eq!((g.principal(), g.defender()), (2, 3));
}

#[test]
fn d09_beaten_refill_and_next_attacker() {
    let o = Options::classic(2);
    let hands = ["6S 7C 9C 10C JC QC", "8S 6D 7D 9D 10D JD"];
    let used: Vec<CardSet> = hands.iter().map(|h| cs(h)).collect();
    let t = talon(Deck::Deck36, &used, "KD AD", "AH");
    let mut g = Durak::from_setup(&o, setup(&hands, t, "AH", Some(0))).unwrap();
    play(&mut g, 0, "lead 6S");
    play(&mut g, 1, "beat 0 8S");
    let mark = g.events().len();
    play(&mut g, 0, "pass");
    let ev = public_since(&g, mark);
    assert_eq!(ev[0], Event::Pass { seat: 0 });
    assert_eq!(
        ev[1],
        Event::BoutEnd {
            how: BoutEnd::Beaten,
            cards: cs("6S 8S")
        }
    );
    assert_eq!(g.discard(), cs("6S 8S"));
    assert_eq!(refills(&ev), vec![(0, 1), (1, 1)]);
    assert!(g.hand(0).contains(c("KD")) && g.hand(1).contains(c("AD")));
    assert_eq!((g.principal(), g.defender(), g.to_act()), (1, 0, Some(1)));
}

#[test]
fn d10_last_talon_card_is_the_trump() {
    let o = Options::classic(4);
    let s = setup(
        &[
            "6C 7C 8C 9C 10C",
            "6D 7D 8D AH",
            "6S 7S 8S 9S 10S",
            "JC QC KC AC JD QD",
        ],
        vec![c("KS"), c("10H")],
        "10H",
        Some(0),
    );
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 0, "lead 6C");
    play(&mut g, 1, "beat 0 AH");
    // Principal P0 has 4, P2 5, P3 6, defender P1 3.
    assert_eq!([0, 1, 2, 3].map(|s| g.hand(s).len()), [4, 3, 5, 6]);
    play(&mut g, 0, "pass");
    let mark = g.events().len();
    play(&mut g, 2, "pass");
    play(&mut g, 3, "pass");
    let ev = public_since(&g, mark);
    assert_eq!(
        ev.iter()
            .filter(|e| matches!(e, Event::Refill { .. }))
            .collect::<Vec<_>>(),
        vec![&Event::Refill {
            seat: 0,
            count: 2,
            trump: true
        }]
    );
    let drew = g
        .events()
        .iter()
        .find(|l| matches!(l.event, Event::Drew { seat: 0, .. }))
        .unwrap();
    assert_eq!(drew.vis, Visibility::only(0));
    assert_eq!(
        drew.event,
        Event::Drew {
            seat: 0,
            cards: cs("KS 10H")
        }
    );
    assert!(g.talon_cards().is_empty());
    assert!(g.hand(0).contains(c("KS")) && g.hand(0).contains(c("10H")));
    assert_eq!(g.observe(2).trump_holder, Some(0));
    assert!(g.observe(2).known[0].contains(c("10H")));
    assert!(!g.observe(2).known[0].contains(c("KS")));
}

fn d11_state(p2: &str) -> Durak {
    let o = Options::perevodnoy(3);
    let s = setup(&["7S 8C 9C", "7D 10C JC", p2], vec![], "6H", Some(0));
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 0, "lead 7S");
    g
}

/// docs/rules/durak.md#transfer rule 5: the transfer target (docs/rules/durak.md#roles) holds
/// at least `attack_count + 1` cards (docs/rules/durak.md#edge-cases); a target holding one card is
/// refused with `TargetTooShort`.
#[test]
fn d11_transfer_needs_a_long_enough_target() {
    let mut g = d11_state("6C 6D 6S 8D 9D");
    assert!(legal(&g).contains(&a("transfer 7D")));
    play(&mut g, 1, "transfer 7D");
    assert_eq!(
        g.table_pairs()
            .iter()
            .map(|p| (p.attack, p.defence))
            .collect::<Vec<_>>(),
        vec![(c("7S"), None), (c("7D"), None)]
    );
    assert_eq!((g.defender(), g.principal(), g.h0()), (2, 1, 5));
    assert_eq!(g.to_act(), Some(2));
    assert_eq!(g.phase(), Phase::Defend);

    let g = d11_state("6C");
    assert!(!legal(&g).contains(&a("transfer 7D")));
    assert_eq!(
        refusal(&g, a("transfer 7D")),
        Why::TargetTooShort {
            seat: 2,
            holds: 1,
            attack_cards: 2
        }
    );

    let g = d11_state("6C 6D");
    assert_eq!(legal(&g), acts("transfer 7D, take"));
}

/// docs/rules/durak.md#transfer rule 2: no attack card has been covered yet in this bout —
/// transfer only on the first move of the defence; refused with `TransferAfterBeat`.
#[test]
fn d12_no_transfer_after_a_beat() {
    let o = Options::perevodnoy(2);
    let s = setup(
        &["7S 7C QD", "9S 7D 8C 6C JH 6H 10S"],
        vec![],
        "KH",
        Some(0),
    );
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 0, "lead 7S");
    play(&mut g, 1, "beat 0 9S");
    play(&mut g, 0, "throw 7C");
    assert_eq!(g.to_act(), Some(1));
    assert_eq!(legal(&g), acts("beat 1 8C, beat 1 6H, beat 1 JH, take"));
    let before = g.clone();
    let err = g.apply(a("transfer 7D")).unwrap_err();
    assert_eq!(err.why, Why::TransferAfterBeat, "{err}");
    assert!(err.to_string().contains("covered"), "{err}");
    assert_eq!(g, before);
}

#[test]
fn d13_transfer_back_and_forth() {
    let o = Options::perevodnoy(2);
    let s = setup(
        &["9C 9S 6C 7C 8C 10C", "9D 6D 7D 8D 10D JD"],
        vec![],
        "6H",
        Some(0),
    );
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 0, "lead 9C");
    assert_eq!(g.hand(0).len(), 5);
    assert!(legal(&g).contains(&a("transfer 9D")));
    play(&mut g, 1, "transfer 9D");
    assert_eq!((g.defender(), g.principal(), g.h0()), (0, 1, 5));
    assert_eq!(g.hand(1).len(), 5);
    assert!(legal(&g).contains(&a("transfer 9S")));
    play(&mut g, 0, "transfer 9S");
    assert_eq!((g.defender(), g.principal(), g.h0()), (1, 0, 5));
    assert_eq!(g.table_pairs().len(), 3);
    assert!(g.table_pairs().iter().all(|p| p.defence.is_none()));
    assert_eq!(g.to_act(), Some(1));

    // P1 holding only 2 cards: the second transfer is not legal.
    let s = setup(&["9C 9S 6C 7C 8C 10C", "9D 6D 7D"], vec![], "6H", Some(0));
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 0, "lead 9C");
    play(&mut g, 1, "transfer 9D");
    assert!(!legal(&g).contains(&a("transfer 9S")));
}

fn teams_deal(hands: &[&str], top: &str) -> Durak {
    let used: Vec<CardSet> = hands.iter().map(|h| cs(h)).collect();
    let t = talon(Deck::Deck52, &used, top, "2H");
    Durak::from_setup(&Options::teams(), setup(hands, t, "2H", Some(0))).unwrap()
}

#[test]
fn d14_only_the_attacking_pair_throws_in() {
    let mut g = teams_deal(
        &[
            "5C 2C 3C 4C 6D 8D",
            "7C 2D 3D 4D 9D 10D",
            "2S 3S 4S 6S 8S 9S",
            "5S 7S JC QC KC AC",
        ],
        "",
    );
    play(&mut g, 0, "lead 5C");
    play(&mut g, 1, "beat 0 7C");
    let mark = g.events().len();
    play(&mut g, 0, "pass");
    assert_eq!(legal(&g), acts("pass"));
    play(&mut g, 2, "pass");
    let ev = public_since(&g, mark);
    assert!(!ev.contains(&Event::Pass { seat: 3 }));
    assert!(ev.contains(&Event::BoutEnd {
        how: BoutEnd::Beaten,
        cards: cs("5C 7C")
    }));
    assert_eq!((g.principal(), g.defender()), (1, 2));
}

#[test]
fn d15_transfer_swaps_the_pairs() {
    let mut g = teams_deal(
        &[
            "5C 2C 3C 4C 6D 8D",
            "5D 2D 3D 4D 7D 10D",
            "9C 9D 4S 6S 8S 9S",
            "5S 7S JC QC KC",
        ],
        "",
    );
    play(&mut g, 0, "lead 5C");
    play(&mut g, 1, "transfer 5D");
    assert_eq!((g.principal(), g.defender()), (1, 2));
    play(&mut g, 2, "beat 0 9C");
    play(&mut g, 2, "beat 1 9D");
    let mark = g.events().len();
    // Throwers are P1 and P3 (P3 could add 5S); P0 is never asked.
    assert_eq!(legal(&g), acts("pass"));
    play(&mut g, 1, "pass");
    assert_eq!(legal(&g), acts("throw 5S, pass"));
    play(&mut g, 3, "pass");
    let ev = public_since(&g, mark);
    assert!(!ev.contains(&Event::Pass { seat: 0 }));
    assert!(ev.contains(&Event::BoutEnd {
        how: BoutEnd::Beaten,
        cards: cs("5C 5D 9C 9D")
    }));
    assert_eq!(refills(&ev), vec![(1, 1), (3, 1), (0, 1), (2, 2)]);
    assert_eq!((g.principal(), g.defender(), g.to_act()), (2, 3, Some(2)));
}

#[test]
fn d16_both_out_together_is_a_draw() {
    let o = Options::classic(2);
    let mut g = Durak::from_setup(&o, setup(&["KS", "AS"], vec![], "6H", Some(0))).unwrap();
    play(&mut g, 0, "lead KS");
    play(&mut g, 1, "beat 0 AS");
    assert_eq!(g.to_act(), None);
    let out = g.outcome().unwrap();
    assert_eq!(out.results, vec![SeatResult::Draw, SeatResult::Draw]);
    assert!(!out.aborted);
    assert_eq!(out.summary, "draw");
    assert_eq!(out.scores, vec![1, 1]);
    assert!(g.is_out(0) && g.is_out(1));
    assert_eq!(g.phase(), Phase::Over);
}

#[test]
fn d17_last_player_holding_cards_is_the_durak() {
    let o = Options::classic(2);
    let mut g = Durak::from_setup(&o, setup(&["KS", "AS 7D"], vec![], "6H", Some(0))).unwrap();
    play(&mut g, 0, "lead KS");
    play(&mut g, 1, "beat 0 AS");
    // P0 has no card left: his only action is Pass (the host may auto-pass,
    // docs/rules/durak.md#edge-cases).
    assert_eq!(legal(&g), acts("pass"));
    play(&mut g, 0, "pass");
    let out = g.outcome().unwrap();
    assert_eq!(out.results, vec![SeatResult::Win, SeatResult::Loss]);
    assert_eq!(out.summary, "P1 is the durak");
    assert_eq!(out.scores, vec![1, 2]);
    assert_eq!(g.hand(1), cs("7D"));
    assert!(
        g.events()
            .iter()
            .any(|l| l.event == Event::Out { seat: 0 } && l.vis.is_public())
    );
}

#[test]
fn d18_defender_out_attack_passes_on() {
    let o = Options::classic(4);
    let s = setup(&["6C 7C", "AC", "6D 7D", "6S 7S"], vec![], "6H", Some(0));
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 0, "lead 6C");
    let mark = g.events().len();
    play(&mut g, 1, "beat 0 AC");
    // h0 = 1: room 0 at once.
    let ev = public_since(&g, mark);
    assert!(ev.contains(&Event::Out { seat: 1 }));
    assert!(g.is_out(1));
    assert_eq!((g.principal(), g.defender(), g.to_act()), (2, 3, Some(2)));
    assert!(g.outcome().is_none());
}

fn d19_state() -> Durak {
    let o = Options::teams();
    let mut s = setup(
        &["2C 3C", "JC KD QC 3S", "9C 9D 2H", ""],
        vec![],
        "5H",
        Some(2),
    );
    s.out = vec![3];
    Durak::from_setup(&o, s).unwrap()
}

#[test]
fn d19_partner_proxy_keeps_the_seats() {
    let mut g = d19_state();
    assert_eq!((g.principal(), g.defender()), (2, 3));
    play(&mut g, 2, "lead 9C");
    // Seat 3 is attacked; its controller P1 defends from his own hand.
    assert_eq!(g.to_act(), Some(1));
    assert_eq!(g.observe(1).acting_for, 3);
    assert_eq!(g.acting_seat(), Some(3));
    play(&mut g, 1, "beat 0 JC");
    play(&mut g, 2, "throw 9D");
    play(&mut g, 1, "beat 1 KD");
    play(&mut g, 2, "pass");
    play(&mut g, 0, "pass");
    // Beaten: attacking seat 3 (P1 acting) attacks seat 0.
    assert_eq!((g.principal(), g.defender()), (3, 0));
    assert_eq!(g.to_act(), Some(1));
    assert_eq!(g.observe(0).acting_for, 3);

    // Had P1 taken: seat 0 (P0) attacks seat 1 (P1).
    let mut g = d19_state();
    play(&mut g, 2, "lead 9C");
    play(&mut g, 1, "take");
    play(&mut g, 2, "pass");
    play(&mut g, 0, "pass");
    assert_eq!((g.principal(), g.defender(), g.to_act()), (0, 1, Some(0)));
    assert!(g.hand(1).contains(c("9C")));
}

#[test]
fn d20_team_out_wins() {
    let o = Options::teams();
    let mut s = setup(&["", "2D 3D", "6C", "7C AS"], vec![], "5H", Some(2));
    s.out = vec![0];
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 2, "lead 6C");
    play(&mut g, 3, "beat 0 7C");
    // P2 (the only active player of team A) has no card: Pass.
    assert_eq!(legal(&g), acts("pass"));
    play(&mut g, 2, "pass");
    let out = g.outcome().unwrap();
    assert_eq!(
        out.results,
        vec![
            SeatResult::Win,
            SeatResult::Loss,
            SeatResult::Win,
            SeatResult::Loss
        ]
    );
    assert_eq!(out.summary, "team 0 (P0, P2) wins");
    assert!(!out.aborted);
}

#[test]
fn d21_defender_beats_with_last_card_talon_left() {
    let o = Options::classic(2);
    let hands = ["6C 7C 8C 9C 10C JC", "AC"];
    let used: Vec<CardSet> = hands.iter().map(|h| cs(h)).collect();
    let mut t = talon(Deck::Deck36, &used, "", "6H");
    t.drain(0..t.len() - 10);
    assert_eq!(t.len(), 10);
    let mut g = Durak::from_setup(&o, setup(&hands, t, "6H", Some(0))).unwrap();
    play(&mut g, 0, "lead 6C");
    let mark = g.events().len();
    play(&mut g, 1, "beat 0 AC");
    let ev = public_since(&g, mark);
    assert!(ev.contains(&Event::BoutEnd {
        how: BoutEnd::Beaten,
        cards: cs("6C AC")
    }));
    assert_eq!(refills(&ev), vec![(0, 1), (1, 6)]);
    assert_eq!(g.hand(0).len(), 6);
    assert_eq!(g.hand(1).len(), 6);
    assert_eq!(g.talon_cards().len(), 3);
    assert!(!g.is_out(1));
    assert_eq!((g.principal(), g.defender(), g.to_act()), (1, 0, Some(1)));
}

#[test]
fn d22_forced_pass_is_an_ordinary_pass() {
    let o = Options::classic(3);
    let s = setup(&["7C 8D", "9C 10D JD", "9S QC 7S"], vec![], "6H", Some(0));
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 0, "lead 7C");
    play(&mut g, 1, "beat 0 9C");
    // P0 holds no 7 or 9: his only action is Pass, and it is still his decision.
    assert_eq!(g.to_act(), Some(0));
    assert_eq!(legal(&g), acts("pass"));
    let mark = g.events().len();
    play(&mut g, 0, "pass");
    let forced = g.events()[mark..].to_vec();
    // P2 could throw 9S or 7S but chooses to pass: the same kind of public event.
    assert_eq!(legal(&g), acts("throw 7S, throw 9S, pass"));
    let mark = g.events().len();
    play(&mut g, 2, "pass");
    let chosen = &g.events()[mark..mark + 1];
    assert_eq!(forced[0].vis, Visibility::Public);
    assert_eq!(forced[0].event, Event::Pass { seat: 0 });
    assert_eq!(chosen[0].vis, Visibility::Public);
    assert_eq!(chosen[0].event, Event::Pass { seat: 2 });
    assert_eq!(forced.len(), 1, "nothing else is logged for a pass");
}

/// The reasons players meet most, each the rule it enforces: `WrongPhase`, the transitions
/// of docs/rules/durak.md#the-bout (each phase takes only its own actions); `NotInHand`,
/// docs/rules/durak.md#lead (any card from hand); `MultiLeadOff`, docs/rules/durak.md#lead ("With
/// `multi_card_lead` [VAR]"); `NoSlot`, docs/rules/durak.md#defend ("`slot` is an uncovered pair");
/// `DoesNotBeat`, the beat relation of docs/rules/durak.md#beat-relation and
/// docs/rules/durak.md#beating; `ShowTrumpOff`, docs/rules/durak.md#transfer (`ShowTrumpTransfer`
/// [VAR]); `NotAttackRank`, docs/rules/durak.md#transfer rule 3.
#[test]
fn illegal_actions_leave_the_state_unchanged() {
    let o = Options::perevodnoy(2);
    let s = setup(&["7S 7C QD", "9S 7D 8C"], vec![], "KH", Some(0));
    let mut g = Durak::from_setup(&o, s).unwrap();
    for (bad, why, text) in [
        ("take", Why::WrongPhase(Phase::Lead), "in phase Lead"),
        ("pass", Why::WrongPhase(Phase::Lead), "in phase Lead"),
        ("beat 0 9S", Why::WrongPhase(Phase::Lead), "in phase Lead"),
        ("throw 7S", Why::WrongPhase(Phase::Lead), "in phase Lead"),
        (
            "lead 9S",
            Why::NotInHand {
                seat: 0,
                card: c("9S"),
            },
            "9S is not in P0's hand",
        ),
        ("transfer 7S", Why::WrongPhase(Phase::Lead), "in phase Lead"),
        ("lead 7S 7C", Why::MultiLeadOff, "multi_card_lead=true"),
    ] {
        let before = g.clone();
        let err = g.apply(a(bad)).unwrap_err();
        assert_eq!(err.why, why, "{bad}");
        assert!(err.to_string().contains(text), "{err}");
        assert_eq!(g, before);
    }
    play(&mut g, 0, "lead 7S");
    for (bad, why, text) in [
        ("beat 1 9S", Why::NoSlot(1), "no table slot 1"),
        (
            "beat 0 8C",
            Why::DoesNotBeat {
                card: c("8C"),
                attack: c("7S"),
                trump: Suit::Hearts,
            },
            "8C does not beat 7S (trump H)",
        ),
        ("lead 7C", Why::WrongPhase(Phase::Defend), "in phase Defend"),
        ("show 7D", Why::ShowTrumpOff, "transfer_by_showing_trump"),
        (
            "transfer 8C",
            Why::NotAttackRank(c("8C")),
            "8C is not of the attack rank",
        ),
        ("pass", Why::WrongPhase(Phase::Defend), "in phase Defend"),
    ] {
        let before = g.clone();
        let err = g.apply(a(bad)).unwrap_err();
        assert_eq!(err.why, why, "{bad}");
        assert!(err.to_string().contains(text), "{err}");
        assert_eq!(g, before, "{bad}");
    }
}

#[test]
fn event_text() {
    let o = Options::classic(2);
    let mut g = Durak::from_setup(&o, setup(&["7S 9C", "9S 6D"], vec![], "6H", Some(0))).unwrap();
    play(&mut g, 0, "lead 7S");
    play(&mut g, 1, "beat 0 9S");
    let texts: Vec<String> = g.events().iter().map(|l| l.event.to_string()).collect();
    assert!(texts.contains(&"P0 leads 7S".to_string()), "{texts:?}");
    assert!(
        texts.contains(&"P1 beats 7S with 9S".to_string()),
        "{texts:?}"
    );
    assert!(
        texts.contains(&"bout: P0 attacks P1".to_string()),
        "{texts:?}"
    );
}

/// The bout's cap bounds a transfer too (docs/rules/durak.md#transfer rule 4: `attack_count + 1 <=
/// cap`): one that brings the table to exactly the cap is legal, one past it is refused with
/// `TransferOverCap` even when the target could take it. (Mutation testing found no test on
/// either side of the line.)
#[test]
fn d13_transfer_up_to_the_bout_cap_and_not_past_it() {
    let o = Options {
        bout_cap: 3,
        first_bout_cap: None,
        ..Options::perevodnoy(2)
    };
    let s = setup(
        &["9C 9S 6C 7C 8C 10C", "9D 9H 6D 7D 8D 10D"],
        vec![],
        "6H",
        Some(0),
    );
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 0, "lead 9C");
    play(&mut g, 1, "transfer 9D");
    // Three cards on the table: exactly the cap.
    assert!(legal(&g).contains(&a("transfer 9S")), "{:?}", legal(&g));
    play(&mut g, 0, "transfer 9S");
    assert_eq!(g.table_pairs().len(), 3);
    // A fourth would pass the cap, though P0 holds four cards to face it.
    assert_eq!(g.hand(0).len(), 4);
    assert!(!legal(&g).contains(&a("transfer 9H")));
    let before = g.clone();
    let err = g.apply(a("transfer 9H")).unwrap_err();
    assert_eq!(err.why, Why::TransferOverCap { cap: 3 }, "{err}");
    assert_eq!(g, before);
}

// ---- Refusal reasons (issue #41): every `Why` a player can be shown, each by name. -------

/// docs/rules/durak.md#end-of-the-game: once at most one player is active "the game ends"; nothing
/// is taken after that, whatever it is.
#[test]
fn why_game_over() {
    let o = Options::classic(2);
    let mut g = Durak::from_setup(&o, setup(&["KS", "AS 7D"], vec![], "6H", Some(0))).unwrap();
    play(&mut g, 0, "lead KS");
    play(&mut g, 1, "beat 0 AS");
    play(&mut g, 0, "pass");
    assert_eq!(g.phase(), Phase::Over);
    for bad in ["lead 7D", "take", "pass", "throw 7D"] {
        assert_eq!(refusal(&g, a(bad)), Why::GameOver, "{bad}");
    }
}

fn multi_lead(defender: &str) -> Durak {
    let o = Options {
        multi_card_lead: true,
        ..Options::classic(2)
    };
    let s = setup(&["7S 7C 7D 9D", defender], vec![], "6H", Some(0));
    Durak::from_setup(&o, s).unwrap()
}

/// docs/rules/durak.md#lead [VAR]: `Lead { cards }`, 1..k cards of one rank — from the leader's
/// hand (any card from hand); the cards he lacks are named in `NotAllInHand`.
#[test]
fn why_not_all_in_hand() {
    let g = multi_lead("8S 9S 10S JS");
    assert!(legal(&g).contains(&a("lead 7S 7C 7D")));
    assert_eq!(
        refusal(&g, a("lead 7S 7C 7H")),
        Why::NotAllInHand {
            seat: 0,
            missing: cs("7H")
        }
    );
    assert_eq!(
        refusal(&g, a("lead 7H 7C")),
        Why::NotAllInHand {
            seat: 0,
            missing: cs("7H")
        }
    );
}

/// docs/rules/durak.md#lead [VAR]: a multiple lead is `Lead { cards }` of one rank, at most the
/// four cards a rank has; the engine leads one card with `Lead` and 2..=4 with `LeadMany`, so a
/// `LeadMany` of one card is refused with `MultiLeadSize`. (Neither the text form nor the
/// action code can say it; an agent building the action in Rust can.)
#[test]
fn why_multi_lead_size() {
    let g = multi_lead("8S 9S 10S JS");
    assert_eq!(refusal(&g, Action::LeadMany(cs("7S"))), Why::MultiLeadSize);
    assert_eq!(
        refusal(&g, Action::LeadMany(CardSet::EMPTY)),
        Why::MultiLeadSize
    );
}

/// docs/rules/durak.md#lead [VAR]: `Lead { cards }`, 1..k cards of **one rank**; 7S with 9D is
/// refused with `MultiLeadMixedRanks`. (The text form refuses to parse it; the enum can
/// carry it.)
#[test]
fn why_multi_lead_mixed_ranks() {
    let g = multi_lead("8S 9S 10S JS");
    assert_eq!(
        refusal(&g, Action::LeadMany(cs("7S 9D"))),
        Why::MultiLeadMixedRanks
    );
}

/// docs/rules/durak.md#lead [VAR] with docs/rules/durak.md#bout-limit: `k <= min(current cap,
/// h0)`. Against a defender holding two cards three sevens are too many; with `bout_cap=2` so are
/// three against four.
#[test]
fn why_multi_lead_over_limit() {
    let g = multi_lead("8S 9S");
    assert!(legal(&g).contains(&a("lead 7S 7C")));
    assert_eq!(
        refusal(&g, a("lead 7S 7C 7D")),
        Why::MultiLeadOverLimit {
            cap: 6,
            defender_holds: 2
        }
    );
    let o = Options {
        multi_card_lead: true,
        bout_cap: 2,
        ..Options::classic(2)
    };
    let s = setup(&["7S 7C 7D 9D", "8S 9S 10S JS"], vec![], "6H", Some(0));
    let g = Durak::from_setup(&o, s).unwrap();
    assert_eq!(
        refusal(&g, a("lead 7S 7C 7D")),
        Why::MultiLeadOverLimit {
            cap: 2,
            defender_holds: 4
        }
    );
}

/// docs/rules/durak.md#defend: `Beat { slot, card }` — `slot` is an uncovered pair; after 7S is
/// covered and 7C thrown in, covering slot 0 again is refused with `SlotCovered`.
#[test]
fn why_slot_covered() {
    let o = Options::classic(2);
    let s = setup(&["7S 7C 9D", "9S 10S 8C JC"], vec![], "6H", Some(0));
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 0, "lead 7S");
    play(&mut g, 1, "beat 0 9S");
    play(&mut g, 0, "throw 7C");
    assert_eq!(g.phase(), Phase::Defend);
    assert_eq!(
        refusal(&g, a("beat 0 10S")),
        Why::SlotCovered {
            slot: 0,
            attack: c("7S")
        }
    );
}

/// docs/rules/durak.md#transfer rule 1: a transfer needs `transfer == true` (Perevodnoy only); in
/// Podkidnoy both kinds of transfer are refused with `TransferOff`.
#[test]
fn why_transfer_off() {
    let o = Options::classic(2);
    let s = setup(&["7S 8C", "7D 7H 9C 10C"], vec![], "6H", Some(0));
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 0, "lead 7S");
    assert_eq!(refusal(&g, a("transfer 7D")), Why::TransferOff);
    assert_eq!(refusal(&g, a("show 7H")), Why::TransferOff);
}

/// docs/rules/durak.md#transfer rule 6: not (`no_transfer_in_first_bout` and this is the first
/// bout of the game); refused with `TransferInFirstBout`, and legal from the second bout on.
#[test]
fn why_transfer_in_first_bout() {
    let o = Options {
        no_transfer_in_first_bout: true,
        ..Options::perevodnoy(2)
    };
    let mut s = setup(&["7S 8C 9C", "7D 10C JC"], vec![], "6H", Some(0));
    let mut g = Durak::from_setup(&o, s.clone()).unwrap();
    play(&mut g, 0, "lead 7S");
    assert_eq!(refusal(&g, a("transfer 7D")), Why::TransferInFirstBout);
    s.bouts_played = 1;
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 0, "lead 7S");
    play(&mut g, 1, "transfer 7D");
}

fn show_trump() -> Durak {
    let o = Options {
        transfer_by_showing_trump: true,
        ..Options::perevodnoy(2)
    };
    let s = setup(&["7S 7C 9C 10C", "7H 7D 8D 9D"], vec![], "6H", Some(0));
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 0, "lead 7S");
    g
}

/// docs/rules/durak.md#transfer [VAR]: `ShowTrumpTransfer { card }`: like Transfer, but `card`
/// must be a
/// **trump** of the attack rank; showing 7D under hearts is refused with `NotTrump`.
#[test]
fn why_not_trump() {
    let g = show_trump();
    assert!(legal(&g).contains(&a("show 7H")));
    assert_eq!(refusal(&g, a("show 7D")), Why::NotTrump(c("7D")));
}

/// docs/rules/durak.md#transfer [VAR]: A given card may be shown at most once per bout. P1 shows
/// 7H, P0 transfers back with 7C, and P1's second showing of 7H is refused with `AlreadyShown`.
#[test]
fn why_already_shown() {
    let mut g = show_trump();
    play(&mut g, 1, "show 7H");
    play(&mut g, 0, "transfer 7C");
    assert_eq!((g.defender(), g.to_act()), (1, Some(1)));
    assert!(g.hand(1).contains(c("7H")));
    assert_eq!(refusal(&g, a("show 7H")), Why::AlreadyShown(c("7H")));
}

/// docs/rules/durak.md#bout-limit: invariant: attack_count <= limit at all times, and
/// docs/rules/durak.md#throw-in: If `room == 0` ... the bout ends. A throw-in into a full bout is
/// refused with `BoutFull`, but no legal game reaches that check: the engine ends the bout the
/// moment `room` is 0, and `room` shrinks only by a throw-in (`h0`, the cap and the discard are
/// fixed during the throw-in phase). The refusal guards states built from a forged observation, so
/// this scenario forges one through the public `determinize`: `h0` lowered to the table's count.
#[test]
fn why_bout_full() {
    let o = Options::classic(2);
    let s = setup(&["7S 7C 9D", "9S 10S 8C"], vec![], "6H", Some(0));
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 0, "lead 7S");
    play(&mut g, 1, "take");
    assert_eq!((g.phase(), g.to_act()), (Phase::ThrowIn, Some(0)));
    assert!(
        legal(&g).contains(&a("throw 7C")),
        "room 2 in the real game"
    );
    let mut obs = g.observe(0);
    obs.h0 = 1;
    obs.limit = 1;
    let forged = Durak::determinize(&o, &obs, &mut GameRng::new(1));
    assert_eq!((forged.phase(), forged.to_act()), (Phase::ThrowIn, Some(0)));
    let mut h = forged.clone();
    let err = h.apply(a("throw 7C")).unwrap_err();
    assert_eq!(err.why, Why::BoutFull, "{err}");
    assert_eq!(h, forged);
}

/// What a player or agent is shown for a refusal: the `IllegalAction` text, "illegal action
/// <action>: <reason>", whose reason part is the `Why`'s own text.
#[test]
fn why_text_is_what_players_see() {
    let g = d11_state("6C");
    let err = g.clone().apply(a("transfer 7D")).unwrap_err();
    assert_eq!(
        err.why,
        Why::TargetTooShort {
            seat: 2,
            holds: 1,
            attack_cards: 2
        }
    );
    assert_eq!(
        err.why.to_string(),
        "P2 holds 1 card, fewer than the 2 attack cards"
    );
    assert_eq!(
        err.to_string(),
        "illegal action transfer 7D: P2 holds 1 card, fewer than the 2 attack cards"
    );
    let o = Options::classic(2);
    let s = setup(&["7S 8C", "7D 9C 10C"], vec![], "6H", Some(0));
    let mut g = Durak::from_setup(&o, s).unwrap();
    play(&mut g, 0, "lead 7S");
    let err = g.apply(a("transfer 7D")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "illegal action transfer 7D: transfers need transfer=true"
    );
}

/// Every refusal reason and the test in this file that provokes it and asserts it by name.
/// The match has no wildcard arm, so a new `Why` variant does not compile until it is given
/// a scenario here (issue #41); `every_refusal_reason_has_a_scenario` checks the names.
fn scenario_of(why: Why) -> &'static str {
    match why {
        Why::GameOver => "why_game_over",
        Why::WrongPhase(_) => "illegal_actions_leave_the_state_unchanged",
        Why::NotInHand { .. } => "illegal_actions_leave_the_state_unchanged",
        Why::NotAllInHand { .. } => "why_not_all_in_hand",
        Why::MultiLeadOff => "illegal_actions_leave_the_state_unchanged",
        Why::MultiLeadSize => "why_multi_lead_size",
        Why::MultiLeadMixedRanks => "why_multi_lead_mixed_ranks",
        Why::MultiLeadOverLimit { .. } => "why_multi_lead_over_limit",
        Why::NoSlot(_) => "illegal_actions_leave_the_state_unchanged",
        Why::SlotCovered { .. } => "why_slot_covered",
        Why::DoesNotBeat { .. } => "illegal_actions_leave_the_state_unchanged",
        Why::TransferOff => "why_transfer_off",
        Why::ShowTrumpOff => "illegal_actions_leave_the_state_unchanged",
        Why::TransferInFirstBout => "why_transfer_in_first_bout",
        Why::TransferAfterBeat => "d12_no_transfer_after_a_beat",
        Why::NotAttackRank(_) => "illegal_actions_leave_the_state_unchanged",
        Why::NotTrump(_) => "why_not_trump",
        Why::AlreadyShown(_) => "why_already_shown",
        Why::TransferOverCap { .. } => "d13_transfer_up_to_the_bout_cap_and_not_past_it",
        Why::TargetTooShort { .. } => "d11_transfer_needs_a_long_enough_target",
        Why::RankNotOnTable(_) => "d04_throw_in_priority_and_rank_rule",
        Why::BoutFull => "why_bout_full",
    }
}

#[test]
fn every_refusal_reason_has_a_scenario() {
    let (x, y) = (c("7S"), c("8S"));
    let one_of_each = [
        Why::GameOver,
        Why::WrongPhase(Phase::Lead),
        Why::NotInHand { seat: 0, card: x },
        Why::NotAllInHand {
            seat: 0,
            missing: cs("7S"),
        },
        Why::MultiLeadOff,
        Why::MultiLeadSize,
        Why::MultiLeadMixedRanks,
        Why::MultiLeadOverLimit {
            cap: 6,
            defender_holds: 1,
        },
        Why::NoSlot(1),
        Why::SlotCovered { slot: 0, attack: x },
        Why::DoesNotBeat {
            card: x,
            attack: y,
            trump: Suit::Hearts,
        },
        Why::TransferOff,
        Why::ShowTrumpOff,
        Why::TransferInFirstBout,
        Why::TransferAfterBeat,
        Why::NotAttackRank(x),
        Why::NotTrump(x),
        Why::AlreadyShown(x),
        Why::TransferOverCap { cap: 3 },
        Why::TargetTooShort {
            seat: 0,
            holds: 1,
            attack_cards: 2,
        },
        Why::RankNotOnTable(x),
        Why::BoutFull,
    ];
    common::check_scenarios(
        include_str!("durak_scenarios.rs"),
        &one_of_each,
        scenario_of,
    );
}
