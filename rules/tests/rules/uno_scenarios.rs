//! docs/rules/uno.md#scenarios: every UNO scenario (U1–U22) as its own test, on states built
//! directly.

use crate::common;

use croupier_rules::game::Visibility;
use croupier_rules::uno::*;
use croupier_rules::{Checkable, Game, Rules, SeatResult};
use std::collections::HashSet;

fn c(s: &str) -> UnoCard {
    s.parse().unwrap()
}

fn cards(s: &str) -> Vec<UnoCard> {
    s.split_whitespace().map(c).collect()
}

fn sorted(s: &str) -> Vec<UnoCard> {
    let mut v = cards(s);
    v.sort();
    v
}

fn play(card: &str) -> Action {
    Action::Play {
        card: c(card),
        declare: None,
        uno: false,
    }
}

fn play_wild(card: &str, color: Color) -> Action {
    Action::Play {
        card: c(card),
        declare: Some(color),
        uno: false,
    }
}

fn act(s: &str) -> Action {
    s.parse().unwrap()
}

fn legal(g: &Uno) -> Vec<Action> {
    let mut v = Vec::new();
    g.legal_actions(&mut v);
    v
}

fn legal_set(g: &Uno) -> HashSet<Action> {
    legal(g).into_iter().collect()
}

fn set(actions: &[&str]) -> HashSet<Action> {
    actions.iter().map(|a| act(a)).collect()
}

/// Applies `a` to a copy of `g` and returns why it was refused, checking on the way that
/// `legal_actions` does not list it and that the refusal changed nothing.
fn refusal(g: &Uno, a: Action) -> Why {
    assert!(!legal(g).contains(&a), "`{a}` is listed as legal");
    let mut h = g.clone();
    let err = h.apply(a).expect_err(&format!("`{a}` must be refused"));
    assert_eq!(err.action, a);
    assert_eq!(&h, g, "the refused `{a}` changed the state");
    err.why
}

fn official() -> Options {
    Options::official(4)
}

fn opts_with(mut o: Options, pairs: &[(&str, &str)]) -> Options {
    for (k, v) in pairs {
        o.set_option(k, v).unwrap();
    }
    o.validate().unwrap();
    o
}

/// A deck (top first) that deals the given partial hands (filled up from the canonical
/// order), then turns `start`, then `under` from the draw pile.
fn deck_for(opts: &Options, dealer: u8, hands: &[&str], start: &str, under: &str) -> Vec<UnoCard> {
    let n = opts.num_players as usize;
    let h = opts.hand_size as usize;
    let mut rest = deck();
    let mut take = |x: UnoCard| {
        let i = rest.iter().position(|y| *y == x).expect("card available");
        rest.remove(i);
        x
    };
    let mut full: Vec<Vec<UnoCard>> = vec![Vec::new(); n];
    for (s, list) in hands.iter().enumerate() {
        for x in cards(list) {
            full[s].push(take(x));
        }
    }
    let start = take(c(start));
    let under: Vec<UnoCard> = cards(under).into_iter().map(&mut take).collect();
    for hand in full.iter_mut() {
        while hand.len() < h {
            // Fill with number cards that are not 5s or 3s, to stay out of the way.
            let i = rest
                .iter()
                .position(|y| {
                    !y.is_wild()
                        && y.kind_index()
                            .is_some_and(|k| (1..=9).contains(&k) && k != 5 && k != 3)
                })
                .unwrap();
            hand.push(rest.remove(i));
        }
    }
    let mut d = Vec::new();
    let mut idx = vec![0usize; n];
    for k in 0..n * h {
        let s = (dealer as usize + 1 + k) % n;
        d.push(full[s][idx[s]]);
        idx[s] += 1;
    }
    d.push(start);
    d.extend(under);
    d.extend(rest);
    d
}

fn events(g: &Uno) -> Vec<Event> {
    g.events().iter().map(|l| l.event.clone()).collect()
}

fn has_event(g: &Uno, e: &Event) -> bool {
    g.events().iter().any(|l| &l.event == e)
}

fn public_event(g: &Uno, e: &Event) -> bool {
    g.events()
        .iter()
        .any(|l| &l.event == e && l.vis == Visibility::Public)
}

fn setup(hands: &[&str], discard: &str, to_act: u8) -> Setup {
    Setup {
        hands: hands.iter().map(|h| cards(h)).collect(),
        discard: cards(discard),
        to_act,
        ..Setup::default()
    }
}

// ----- U1–U5: setup and the start card --------------------------------------------------

#[test]
fn u01_start_wd4_goes_back() {
    let mut o = official();
    o.dealer = Some(0);
    let mut repeated = 0;
    for seed in 0..300 {
        let d = deck_for(&o, 0, &[], "W4", "");
        let g = Uno::from_deck(&o, d, 0, seed).unwrap();
        let ev = events(&g);
        let starts: Vec<UnoCard> = ev
            .iter()
            .filter_map(|e| match e {
                Event::StartCard { card } => Some(*card),
                _ => None,
            })
            .collect();
        let returned = ev
            .iter()
            .filter(|e| matches!(e, Event::StartReturned { .. }))
            .count();
        assert_eq!(starts[0], UnoCard::WILD_DRAW_FOUR);
        assert!(starts.len() >= 2);
        assert_eq!(
            returned,
            starts.len() - 1,
            "every W4 but none other goes back"
        );
        assert!(starts[..starts.len() - 1].iter().all(|s| s.is_wd4()));
        assert!(!g.top_card().is_wd4());
        assert_eq!(g.discard_pile().len(), 1);
        let in_hands: usize = (0..4).map(|s| g.hand(s).len()).sum();
        assert_eq!(
            g.draw_pile().len() + in_hands,
            108 - 1,
            "the W4 is back in the pile"
        );
        g.check_invariants().unwrap();
        if starts.len() > 2 {
            repeated += 1;
        }
    }
    assert!(
        repeated > 0,
        "some seed turns a second W4, which goes back too"
    );
    // With start R5: P1 starts, direction +1, colour red.
    let d = deck_for(&o, 0, &[], "R5", "");
    let g = Uno::from_deck(&o, d, 0, 1).unwrap();
    assert_eq!(g.top_card(), c("R5"));
    assert_eq!(g.to_act(), Some(1));
    assert_eq!(g.decision(), Decision::Turn);
    assert_eq!(g.direction(), 1);
    assert_eq!(g.current_color(), Color::Red);
}

#[test]
fn u02_start_draw_two() {
    let o = official();
    let g = Uno::from_deck(&o, deck_for(&o, 0, &[], "BD2", ""), 0, 1).unwrap();
    assert_eq!(g.hand(1).len(), 9);
    assert!(public_event(&g, &Event::Draw { seat: 1, count: 2 }));
    assert!(has_event(&g, &Event::Skipped { seat: 1 }));
    assert_eq!(g.to_act(), Some(2));
    assert_eq!(g.current_color(), Color::Blue);
    assert_eq!(g.decision(), Decision::Turn);
}

#[test]
fn u03_start_reverse() {
    let o = official();
    let d = deck_for(&o, 0, &["G3", "", "", "G4"], "GRev", "");
    let mut g = Uno::from_deck(&o, d.clone(), 0, 1).unwrap();
    assert_eq!(g.direction(), -1);
    assert_eq!(g.to_act(), Some(0));
    g.apply(play("G3")).unwrap();
    assert_eq!(g.to_act(), Some(3));
    // RightOfDealerStarts: P3 starts, then P2.
    let o2 = opts_with(official(), &[("start_reverse", "RightOfDealerStarts")]);
    let mut g = Uno::from_deck(&o2, d, 0, 1).unwrap();
    assert_eq!(g.direction(), -1);
    assert_eq!(g.to_act(), Some(3));
    g.apply(play("G4")).unwrap();
    assert_eq!(g.to_act(), Some(2));
}

#[test]
fn u04_start_skip() {
    let o = official();
    let g = Uno::from_deck(&o, deck_for(&o, 0, &[], "YSkip", ""), 0, 1).unwrap();
    assert!(has_event(&g, &Event::Skipped { seat: 1 }));
    assert_eq!(g.to_act(), Some(2));
    assert_eq!(g.hand(1).len(), 7);
    assert_eq!(g.current_color(), Color::Yellow);
}

#[test]
fn u05_start_wild() {
    let o = official();
    let d = deck_for(&o, 0, &[], "W", "");
    let mut g = Uno::from_deck(&o, d.clone(), 0, 1).unwrap();
    assert_eq!(g.decision(), Decision::ChooseStartColor);
    assert_eq!(g.to_act(), Some(1));
    assert_eq!(
        legal_set(&g),
        set(&["color red", "color yellow", "color green", "color blue"])
    );
    assert_eq!(legal(&g).len(), 4);
    g.apply(act("color green")).unwrap();
    assert_eq!(g.decision(), Decision::Turn);
    assert_eq!(g.to_act(), Some(1));
    assert_eq!(g.current_color(), Color::Green);
    // With start_wild=Redraw the W goes back.
    let o2 = opts_with(official(), &[("start_wild", "Redraw")]);
    let g = Uno::from_deck(&o2, d, 0, 1).unwrap();
    assert!(has_event(
        &g,
        &Event::StartReturned {
            card: UnoCard::WILD
        }
    ));
    assert!(!g.top_card().is_wild());
    assert_eq!(g.decision(), Decision::Turn);
    assert_eq!(g.draw_pile().len(), 108 - 28 - 1);
}

// ----- U6–U8: matching ---------------------------------------------------------------------

/// docs/rules/uno.md#matching: a card is playable by colour, number or symbol (a card that is none
/// of them is refused with `NoMatch`), and docs/rules/uno.md#wild-draw-four: without challenges
/// "the engine enforces the restriction" (a Wild Draw Four while holding the current colour:
/// `Wd4Restricted`).
#[test]
fn u06_legal_plays_and_wd4_restriction() {
    let hands = ["", "R2 B7 G5 BSkip W W4"];
    let no_ch = opts_with(official(), &[("wd4_challenge", "false")]);
    let g = Uno::from_setup(&no_ch, setup(&hands, "R7", 1), 1).unwrap();
    let base = [
        "play R2",
        "play B7",
        "play W red",
        "play W yellow",
        "play W green",
        "play W blue",
        "draw",
    ];
    assert_eq!(legal(&g).len(), base.len());
    assert_eq!(legal_set(&g), set(&base));
    for card in ["G5", "BSkip"] {
        assert_eq!(
            refusal(&g, play(card)),
            Why::NoMatch {
                card: c(card),
                top: c("R7"),
                colour: Color::Red
            }
        );
    }
    let mut g2 = g.clone();
    let err = g2.apply(play_wild("W4", Color::Red)).unwrap_err();
    assert_eq!(err.why, Why::Wd4Restricted { seat: 1 }, "{err}");
    assert!(err.to_string().contains("restriction"), "{err}");
    assert_eq!(g2, g, "a refused action changes nothing");
    // With the challenge rule the W4 is a legal bluff.
    let g = Uno::from_setup(&official(), setup(&hands, "R7", 1), 1).unwrap();
    let mut with = base.to_vec();
    with.extend([
        "play W4 red",
        "play W4 yellow",
        "play W4 green",
        "play W4 blue",
    ]);
    assert_eq!(legal(&g).len(), with.len());
    assert_eq!(legal_set(&g), set(&with));
}

#[test]
fn u07_wild_on_top() {
    let hands = ["", "G1 B7 W W4"];
    let mut s = setup(&hands, "W", 1);
    s.color = Some(Color::Green);
    let g = Uno::from_setup(&official(), s.clone(), 1).unwrap();
    let l = legal_set(&g);
    assert!(l.contains(&play("G1")));
    assert!(!l.contains(&play("B7")));
    for col in Color::ALL {
        assert!(l.contains(&play_wild("W", col)));
        assert!(
            l.contains(&play_wild("W4", col)),
            "a bluff is legal with challenges"
        );
    }
    let no_ch = opts_with(official(), &[("wd4_challenge", "false")]);
    let g = Uno::from_setup(&no_ch, s, 1).unwrap();
    let l = legal_set(&g);
    assert!(l.contains(&play("G1")));
    assert!(
        l.iter()
            .all(|a| !matches!(a, Action::Play { card, .. } if card.is_wd4()))
    );
    assert!(!l.contains(&play("B7")));
    assert_eq!(l.len(), 1 + 4 + 1);
}

#[test]
fn u08_symbol_match() {
    let g = Uno::from_setup(&official(), setup(&["", "BSkip B5"], "RSkip", 1), 1).unwrap();
    assert_eq!(legal_set(&g), set(&["play BSkip", "draw"]));
    assert_eq!(legal(&g).len(), 2);
}

// ----- U9–U10: WD4 challenge -----------------------------------------------------------

#[test]
fn u09_wd4_challenge_guilty() {
    let hands = ["R1 G2", "R3 W4 B9", "G5 G6", "Y7 Y8"];
    let mut g = Uno::from_setup(&official(), setup(&hands, "R7", 1), 1).unwrap();
    g.apply(play_wild("W4", Color::Blue)).unwrap();
    assert_eq!(g.decision(), Decision::Wd4Challenge);
    assert_eq!(g.to_act(), Some(2));
    assert_eq!(legal_set(&g), set(&["challenge", "accept"]));
    assert_eq!(legal(&g).len(), 2);
    // The challenger's observation names whom it may challenge (mutation `77:13`: without
    // the `Wd4Challenge` arm it was `None`).
    assert_eq!(g.observe(2).offender, Some(1));
    g.apply(Action::Challenge).unwrap();
    // The hand is shown to P2 alone.
    let shown: Vec<_> = g
        .events()
        .iter()
        .filter(|l| matches!(l.event, Event::Shown { .. }))
        .collect();
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0].vis, Visibility::only(2));
    assert_eq!(
        shown[0].event,
        Event::Shown {
            seat: 2,
            offender: 1,
            cards: sorted("R3 B9")
        }
    );
    assert!(public_event(
        &g,
        &Event::Challenge {
            seat: 2,
            offender: 1,
            guilty: true
        }
    ));
    assert_eq!(g.hand(1).len(), 6);
    assert_eq!(g.hand(2).len(), 2);
    assert_eq!(g.to_act(), Some(2));
    assert_eq!(g.decision(), Decision::Turn);
    assert_eq!(g.current_color(), Color::Blue);
    // P2 now knows R3 and B9 are in P1's hand; nobody else does.
    assert_eq!(g.observe(2).known[1], sorted("R3 B9"));
    assert!(g.observe(3).known[1].is_empty());
}

#[test]
fn u10_wd4_challenge_not_guilty() {
    let hands = ["R1 G2", "B7 W4 G9", "G5 G6", "Y7 Y8"];
    let mut g = Uno::from_setup(&official(), setup(&hands, "R7", 1), 1).unwrap();
    g.apply(play_wild("W4", Color::Green)).unwrap();
    g.apply(Action::Challenge).unwrap();
    assert!(public_event(
        &g,
        &Event::Challenge {
            seat: 2,
            offender: 1,
            guilty: false
        }
    ));
    assert_eq!(g.hand(2).len(), 8);
    assert!(public_event(&g, &Event::Draw { seat: 2, count: 6 }));
    assert_eq!(g.hand(1).len(), 2);
    assert_eq!(g.to_act(), Some(3));
    assert_eq!(g.current_color(), Color::Green);
    // Everybody now knows P1 holds no red card.
    assert_eq!(g.observe(3).color_caps[1][Color::Red as usize], 0);
}

// ----- U11–U13: two players, drawing ---------------------------------------------------

#[test]
fn u11_two_player_reverse_skip_draw_two() {
    let o = Options::two_player();
    let hands = ["RRev RSkip RD2 R1", "G2 G3"];
    let mut g = Uno::from_setup(&o, setup(&hands, "R5", 0), 1).unwrap();
    g.apply(play("RRev")).unwrap();
    assert_eq!(g.to_act(), Some(0));
    g.apply(play("RSkip")).unwrap();
    assert_eq!(g.to_act(), Some(0));
    g.apply(play("RD2")).unwrap();
    assert_eq!(g.to_act(), Some(0));
    assert_eq!(g.hand(1).len(), 4);
    assert!(public_event(&g, &Event::Draw { seat: 1, count: 2 }));
}

#[test]
fn u12_draw_playable_or_not() {
    let hands = ["R1 R2", "B2 G3", "Y2 Y3", "Y4 Y6"];
    // Draws R9: playable → AfterDraw.
    let mut s = setup(&hands, "R5", 1);
    s.draw_pile = cards("R9");
    let mut g = Uno::from_setup(&official(), s.clone(), 1).unwrap();
    g.apply(Action::Draw).unwrap();
    assert_eq!(g.decision(), Decision::AfterDraw);
    assert_eq!(g.to_act(), Some(1));
    assert_eq!(g.observe(1).drawn, Some(c("R9")));
    assert_eq!(g.observe(2).drawn, None);
    assert_eq!(legal_set(&g), set(&["play-drawn", "keep"]));
    assert_eq!(legal(&g).len(), 2);
    let mut kept = g.clone();
    kept.apply(Action::Keep).unwrap();
    assert_eq!(kept.to_act(), Some(2));
    g.apply(act("play-drawn")).unwrap();
    assert_eq!(g.top_card(), c("R9"));
    assert_eq!(g.to_act(), Some(2));
    // Draws Y1: not playable → automatic Keep, P2 to act.
    s.draw_pile = cards("Y1");
    let mut g = Uno::from_setup(&official(), s, 1).unwrap();
    g.apply(Action::Draw).unwrap();
    assert_eq!(g.to_act(), Some(2));
    assert_eq!(g.decision(), Decision::Turn);
    assert_eq!(g.hand(1), sorted("B2 G3 Y1"));
    let tail: Vec<Event> = events(&g)
        .into_iter()
        .filter(|e| !matches!(e, Event::Drew { .. }))
        .collect();
    assert_eq!(
        tail,
        vec![Event::Draw { seat: 1, count: 1 }, Event::Keep { seat: 1 }]
    );
    // The same public events as a chosen keep.
    let kept_public: Vec<Event> = kept
        .events()
        .iter()
        .filter(|l| l.vis.is_public())
        .map(|l| l.event.clone())
        .collect();
    assert_eq!(kept_public, tail);
}

#[test]
fn u13_draw_while_holding_playable() {
    let hands = ["R1 R3", "R2 G3", "Y2 Y3", "Y4 Y6"];
    let mut s = setup(&hands, "R5", 1);
    s.draw_pile = cards("B8");
    let mut g = Uno::from_setup(&official(), s, 1).unwrap();
    assert!(legal(&g).contains(&play("R2")));
    assert!(legal(&g).contains(&Action::Draw));
    g.apply(Action::Draw).unwrap();
    assert_eq!(g.to_act(), Some(2));
    assert_eq!(g.hand(1), sorted("R2 G3 B8"));
    assert!(has_event(&g, &Event::Keep { seat: 1 }));
}

// ----- U14, U20: empty draw pile --------------------------------------------------------

#[test]
fn u14_reshuffle_keeps_top() {
    let discard = "Y1 Y2 Y3 Y4 Y5 Y6 G8 B4 W R7";
    let mut s = setup(&["", "", "B1 G2"], discard, 2);
    s.leftover_to = Some(0);
    let mut g = Uno::from_setup(&official(), s, 1).unwrap();
    assert_eq!(g.draw_pile().len(), 0);
    g.apply(Action::Draw).unwrap();
    assert!(public_event(&g, &Event::Reshuffle { cards: 9 }));
    assert_eq!(g.discard_pile(), &[c("R7")]);
    assert_eq!(g.current_color(), Color::Red);
    assert_eq!(g.draw_pile().len(), 8);
    assert_eq!(g.hand(2).len(), 3);
    let drawn: Vec<UnoCard> = g
        .hand(2)
        .into_iter()
        .filter(|x| *x != c("B1") && *x != c("G2"))
        .collect();
    assert_eq!(drawn.len(), 1);
    assert!(cards(discard)[..9].contains(&drawn[0]));
    // The W is an ordinary card again (wherever it is).
    let mut pool = g.draw_pile();
    pool.extend(drawn);
    assert!(pool.contains(&UnoCard::WILD));
    g.check_invariants().unwrap();
}

#[test]
fn u20_nothing_to_draw() {
    let mut s = setup(&["", "B2", "G2 G3"], "R5", 1);
    s.leftover_to = Some(0);
    let mut g = Uno::from_setup(&official(), s, 1).unwrap();
    assert!(legal(&g).contains(&Action::Draw));
    g.apply(Action::Draw).unwrap();
    assert_eq!(g.hand(1), cards("B2"));
    assert_eq!(
        events(&g),
        vec![Event::Draw { seat: 1, count: 0 }, Event::Keep { seat: 1 }]
    );
    assert_eq!(g.to_act(), Some(2));
    assert_eq!(g.decision(), Decision::Turn);
}

// ----- U15, U16, U22: going out and scoring ---------------------------------------------

#[test]
fn u15_out_with_draw_two() {
    let hands = ["R1", "RD2", "G1", "Y2"];
    let mut s = setup(&hands, "R3", 1);
    s.draw_pile = cards("B9 G8");
    let mut g = Uno::from_setup(&official(), s, 1).unwrap();
    g.apply(play("RD2")).unwrap();
    let ev = events(&g);
    let draw_at = ev
        .iter()
        .position(|e| *e == Event::Draw { seat: 2, count: 2 })
        .unwrap();
    let end_at = ev
        .iter()
        .position(|e| matches!(e, Event::HandEnd { .. }))
        .unwrap();
    assert!(draw_at < end_at, "P2 draws first, then the hand ends");
    let Event::HandEnd { hands, scores, .. } = &ev[end_at] else {
        unreachable!()
    };
    assert_eq!(hands[2], sorted("G1 B9 G8"));
    assert_eq!(scores, &vec![0, 1 + 18 + 2, 0, 0]);
    assert_eq!(g.scores(), &[0, 21, 0, 0]);
    // 21 < 500: the next hand is dealt by the next dealer.
    assert_eq!(g.hand_no(), 2);
    assert!(g.to_act().is_some());
    assert!(public_event(
        &g,
        &Event::HandStart {
            hand_no: 2,
            dealer: 1
        }
    ));
}

/// docs/rules/uno.md#going-out-and-scoring `WinnerTakesAll`: "The game ends after the hand in which
/// someone reaches `target_score`"; afterwards every action is refused with `GameOver`.
#[test]
fn u16_winner_takes_all_reaches_500() {
    let hands = ["R1", "R7 GSkip", "W4 B0", "Y9 YRev W"];
    let mut s = setup(&hands, "R5", 0);
    s.scores = vec![380, 0, 0, 0];
    let mut g = Uno::from_setup(&official(), s, 1).unwrap();
    g.apply(play("R1")).unwrap();
    let out = g.outcome().expect("game over");
    assert_eq!(out.scores, vec![536, 0, 0, 0]);
    assert_eq!(
        out.results,
        vec![
            SeatResult::Win,
            SeatResult::Loss,
            SeatResult::Loss,
            SeatResult::Loss
        ]
    );
    assert!(!out.aborted);
    assert_eq!(g.to_act(), None);
    assert!(
        events(&g)
            .iter()
            .any(|e| matches!(e, Event::GameEnd { .. }))
    );
    // After the end every action is refused, and says why (mutation testing: deleting the
    // game-over arm of `why_illegal` refused them for another reason).
    for a in [Action::Draw, play("R7"), Action::AcceptPenalty] {
        let err = g.clone().apply(a).expect_err("the game is over");
        assert_eq!(err.why, Why::GameOver, "{err}");
    }
}

#[test]
fn u22_out_with_wd4_no_challenge() {
    let hands = ["R1", "W4", "G1", "Y2"];
    let mut s = setup(&hands, "R3", 1);
    s.draw_pile = cards("B9 G8 Y5 R4");
    let mut g = Uno::from_setup(&official(), s, 1).unwrap();
    g.apply(play_wild("W4", Color::Yellow)).unwrap();
    assert!(
        !events(&g)
            .iter()
            .any(|e| matches!(e, Event::Challenge { .. }))
    );
    let ev = events(&g);
    let end = ev.iter().find_map(|e| match e {
        Event::HandEnd { hands, scores, .. } => Some((hands.clone(), scores.clone())),
        _ => None,
    });
    let (hands, scores) = end.expect("hand over");
    assert_eq!(hands[2], sorted("G1 B9 G8 Y5 R4"));
    assert_eq!(scores[1], 1 + (1 + 9 + 8 + 5 + 4) + 2);
}

// ----- U17: UNO call ------------------------------------------------------------------------

/// docs/rules/uno.md#calling-uno: `uno_call=Explicit`: `Play`/`PlayDrawn`/`Stack` carry a `uno:
/// bool`; with `Auto` the engine calls for every player, so the flag is refused with
/// `UnoFlagNotExplicit`.
#[test]
fn u17_uno_catch() {
    let o = opts_with(official(), &[("uno_call", "Explicit")]);
    let hands = ["G1 G2", "R3 R4", "Y2 Y3", "Y4 Y6"];
    let g0 = Uno::from_setup(&o, setup(&hands, "R9", 1), 1).unwrap();
    assert_eq!(
        legal_set(&g0),
        set(&["play R3", "play R3 uno", "play R4", "play R4 uno", "draw"])
    );
    let mut g = g0.clone();
    g.apply(play("R3")).unwrap();
    assert_eq!(g.decision(), Decision::UnoCatch);
    assert_eq!(g.to_act(), Some(2));
    assert_eq!(legal_set(&g), set(&["catch", "no-catch"]));
    g.apply(Action::CatchUno).unwrap();
    assert!(public_event(
        &g,
        &Event::CatchUno {
            seat: 2,
            offender: 1
        }
    ));
    assert_eq!(g.hand(1).len(), 3);
    assert_eq!(g.to_act(), Some(2));
    assert_eq!(g.decision(), Decision::Turn);
    // Nobody catches: every other player is asked in turn order, no penalty.
    let mut g = g0.clone();
    g.apply(play("R3")).unwrap();
    for s in [2, 3, 0] {
        assert_eq!(g.to_act(), Some(s));
        g.apply(Action::NoCatch).unwrap();
    }
    assert_eq!(g.hand(1).len(), 1);
    assert_eq!(g.to_act(), Some(2));
    assert_eq!(g.decision(), Decision::Turn);
    // With uno=true no window opens.
    let mut g = g0.clone();
    g.apply(act("play R3 uno")).unwrap();
    assert!(public_event(&g, &Event::Uno { seat: 1 }));
    assert_eq!(g.decision(), Decision::Turn);
    assert_eq!(g.to_act(), Some(2));
    // In Auto mode the flag is never offered.
    let g = Uno::from_setup(&official(), setup(&hands, "R9", 1), 1).unwrap();
    assert_eq!(refusal(&g, act("play R3 uno")), Why::UnoFlagNotExplicit);
}

// ----- U18: stacking --------------------------------------------------------------------

/// docs/rules/uno.md#stacking: Stackable cards: `SameKind`: a Draw Two on a pending Draw Two; a
/// WD4 on a pending WD4. `Progressive`: ... a WD4 on either; anything else is refused with
/// `CannotStack`.
#[test]
fn u18_progressive_stacking() {
    let o = opts_with(
        official(),
        &[("stacking", "Progressive"), ("wd4_challenge", "false")],
    );
    let hands = ["GD2 G1 G5", "BD2 Y1 Y2", "W4 R2 Y3", "G7 Y8 R9"];
    let mut g = Uno::from_setup(&o, setup(&hands, "G3", 0), 1).unwrap();
    g.apply(play("GD2")).unwrap();
    assert_eq!(g.decision(), Decision::PenaltyTurn);
    assert_eq!(g.to_act(), Some(1));
    assert_eq!(g.pending(), 2);
    assert_eq!(legal_set(&g), set(&["stack BD2", "accept-penalty"]));
    // A number card on a pending Draw Two cannot be stacked, and the reason is that, not
    // the Wild Draw Four rule (mutation testing: `&&` → `||` in `check_card` gave that).
    let err = g
        .clone()
        .apply(act("stack Y1"))
        .expect_err("Y1 does not stack");
    assert_eq!(
        err.why,
        Why::CannotStack {
            card: c("Y1"),
            top: c("GD2"),
            stacking: Stacking::Progressive
        },
        "{err}"
    );
    g.apply(act("stack BD2")).unwrap();
    assert_eq!(g.to_act(), Some(2));
    assert_eq!(g.pending(), 4);
    let same_kind = opts_with(o.clone(), &[("stacking", "SameKind")]);
    let l = legal_set(&g);
    assert!(l.contains(&act("stack W4 red")));
    g.apply(act("stack W4 red")).unwrap();
    assert!(public_event(
        &g,
        &Event::Stack {
            seat: 2,
            card: UnoCard::WILD_DRAW_FOUR,
            declare: Some(Color::Red),
            pending: 8
        }
    ));
    assert_eq!(g.to_act(), Some(3));
    assert_eq!(legal(&g), vec![Action::AcceptPenalty]);
    g.apply(Action::AcceptPenalty).unwrap();
    assert_eq!(g.hand(3).len(), 11);
    assert!(public_event(
        &g,
        &Event::AcceptPenalty { seat: 3, count: 8 }
    ));
    assert_eq!(g.pending(), 0);
    assert_eq!(g.to_act(), Some(0));
    assert_eq!(g.decision(), Decision::Turn);
    assert_eq!(g.current_color(), Color::Red);
    // SameKind: a W4 on a pending Draw Two is not legal.
    let mut g = Uno::from_setup(&same_kind, setup(&hands, "G3", 0), 1).unwrap();
    g.apply(play("GD2")).unwrap();
    g.apply(act("stack BD2")).unwrap();
    assert_eq!(legal(&g), vec![Action::AcceptPenalty]);
    assert_eq!(
        refusal(&g, act("stack W4 red")),
        Why::CannotStack {
            card: UnoCard::WILD_DRAW_FOUR,
            top: c("BD2"),
            stacking: Stacking::SameKind
        }
    );
}

// ----- U19: source E, the hand ends on an empty draw pile -------------------------------

#[test]
fn u19_end_hand_on_empty_draw_pile() {
    let o = Options::house(4);
    let hands = ["R5 B7", "G9 B1", "G2 B3 G7", "GRev BD2 B5"];
    let mut s = setup(&hands, "Y0", 1);
    s.draw_pile = cards("BSkip");
    s.leftover_to_discard = true;
    let mut g = Uno::from_setup(&o, s, 1).unwrap();
    assert_eq!(g.draw_pile().len(), 1);
    g.apply(Action::Draw).unwrap();
    assert!(has_event(&g, &Event::Keep { seat: 1 }));
    let out = g
        .outcome()
        .expect("the hand, and the single-hand game, is over");
    assert_eq!(
        out.results,
        vec![
            SeatResult::Win,
            SeatResult::Loss,
            SeatResult::Loss,
            SeatResult::Loss
        ]
    );
    let Some(Event::HandEnd { hands, .. }) = events(&g)
        .into_iter()
        .find(|e| matches!(e, Event::HandEnd { .. }))
    else {
        panic!("no HandEnd");
    };
    let value = |h: &Vec<UnoCard>| h.iter().map(|c| c.points()).sum::<u32>();
    assert_eq!(
        hands.iter().map(value).collect::<Vec<_>>(),
        vec![12, 30, 12, 45]
    );
    assert_eq!(out.scores[0], 30 + 12 + 45);
    // Without the card-count tie-break it would be shared: P2 also has 12 points.
    assert_eq!(hands[2].len(), 3);
}

// ----- U21: Reverse with three players -------------------------------------------------

#[test]
fn u21_reverse_three_players() {
    let o = opts_with(official(), &[("num_players", "3")]);
    let hands = ["BRev B1", "G1 G2", "Y1 Y2"];
    let mut g = Uno::from_setup(&o, setup(&hands, "B5", 0), 1).unwrap();
    assert_eq!(g.direction(), 1);
    g.apply(play("BRev")).unwrap();
    assert_eq!(g.direction(), -1);
    assert!(public_event(&g, &Event::Reversed { direction: -1 }));
    assert_eq!(g.to_act(), Some(2));
}

// ----- Refusal reasons (issue #41): every `Why` a player can be shown, each by name. ------

/// docs/rules/uno.md#turns, the table of decisions and actions: each decision takes only its own
/// actions, and after a draw the player may play no other card of his hand this turn. A
/// wrong kind of action is refused with `WrongDecision`, naming the decision that is pending
/// (every `Expected` below).
#[test]
fn why_wrong_decision() {
    let wrong = |seat, expected| Why::WrongDecision { seat, expected };
    // ChooseStartColor (docs/rules/uno.md#setup): the start card is a Wild.
    let o = official();
    let g = Uno::from_deck(&o, deck_for(&o, 0, &[], "W", ""), 0, 1).unwrap();
    assert_eq!(g.decision(), Decision::ChooseStartColor);
    assert_eq!(refusal(&g, Action::Draw), wrong(1, Expected::StartColour));
    // Turn.
    let hands = ["R1 G2", "B2 G3 W4", "Y2 Y3", "Y4 Y6"];
    let mut s = setup(&hands, "R5", 1);
    s.draw_pile = cards("R9 Y1 R8");
    let g = Uno::from_setup(&official(), s.clone(), 1).unwrap();
    for a in [
        "keep",
        "play-drawn",
        "challenge",
        "accept-penalty",
        "color red",
    ] {
        assert_eq!(refusal(&g, act(a)), wrong(1, Expected::Turn), "{a}");
    }
    // AfterDraw, DrawOneMayPlay: only the drawn card, not one from the hand.
    let mut drew = g.clone();
    drew.apply(Action::Draw).unwrap();
    assert_eq!(drew.decision(), Decision::AfterDraw);
    for a in ["play B2", "draw"] {
        assert_eq!(
            refusal(&drew, act(a)),
            wrong(1, Expected::DrawnMayPlay),
            "{a}"
        );
    }
    // AfterDraw, DrawUntilPlayable.
    let until = opts_with(official(), &[("draw_rule", "DrawUntilPlayable")]);
    let mut drew = Uno::from_setup(&until, s, 1).unwrap();
    drew.apply(Action::Draw).unwrap();
    assert_eq!(drew.decision(), Decision::AfterDraw);
    assert_eq!(
        refusal(&drew, act("play B2")),
        wrong(1, Expected::DrawnMustPlay)
    );
    // Wd4Challenge: P2, the victim, must challenge or accept.
    let mut w = g.clone();
    w.apply(play_wild("W4", Color::Blue)).unwrap();
    assert_eq!(w.decision(), Decision::Wd4Challenge);
    assert_eq!(refusal(&w, Action::Draw), wrong(2, Expected::Wd4Challenge));
    // PenaltyTurn: a Draw Two is stacked with `stack`, not played.
    let o = opts_with(
        official(),
        &[("stacking", "Progressive"), ("wd4_challenge", "false")],
    );
    let hands = ["GD2 G1 G5", "BD2 Y1 Y2", "W4 R2 Y3", "G7 Y8 R9"];
    let mut g = Uno::from_setup(&o, setup(&hands, "G3", 0), 1).unwrap();
    g.apply(play("GD2")).unwrap();
    assert_eq!(
        refusal(&g, play("BD2")),
        wrong(1, Expected::Penalty { pending: 2 })
    );
    // UnoCatch: P1 played his next-to-last card without calling.
    let o = opts_with(official(), &[("uno_call", "Explicit")]);
    let hands = ["G1 G2", "R3 R4", "Y2 Y3", "Y4 Y6"];
    let mut g = Uno::from_setup(&o, setup(&hands, "R9", 1), 1).unwrap();
    g.apply(play("R3")).unwrap();
    assert_eq!(
        refusal(&g, Action::Draw),
        wrong(2, Expected::Catch { offender: 1 })
    );
}

/// docs/rules/uno.md#cards: the deck's 54 faces are every card there is; an action naming face code
/// 200 (which neither the text form nor the action code can carry, but the `UnoCard` value
/// can) is refused with `NotACard`, in a play as in a stack.
#[test]
fn why_not_a_card() {
    let g = Uno::from_setup(&official(), setup(&["", "R2 B7"], "R7", 1), 1).unwrap();
    let bad = Action::Play {
        card: UnoCard(200),
        declare: None,
        uno: false,
    };
    assert_eq!(refusal(&g, bad), Why::NotACard(200));
    let o = opts_with(
        official(),
        &[("stacking", "Progressive"), ("wd4_challenge", "false")],
    );
    let hands = ["GD2 G1 G5", "BD2 Y1 Y2", "W4 R2 Y3", "G7 Y8 R9"];
    let mut g = Uno::from_setup(&o, setup(&hands, "G3", 0), 1).unwrap();
    g.apply(play("GD2")).unwrap();
    let bad = Action::Stack {
        card: UnoCard(54),
        declare: None,
        uno: false,
    };
    assert_eq!(refusal(&g, bad), Why::NotACard(54));
}

/// docs/rules/uno.md#turns: `Play{card, ..}` for every playable card in hand; a card the player
/// does not hold is refused with `NotHeld`, even when it would match.
#[test]
fn why_not_held() {
    let g = Uno::from_setup(&official(), setup(&["", "R2 B7"], "R7", 1), 1).unwrap();
    assert_eq!(
        refusal(&g, play("R3")),
        Why::NotHeld {
            seat: 1,
            card: c("R3")
        }
    );
    assert_eq!(
        refusal(&g, play_wild("W", Color::Red)),
        Why::NotHeld {
            seat: 1,
            card: UnoCard::WILD
        }
    );
}

/// docs/rules/uno.md#card-effects: after a wild the declared colour is the current colour
/// (colour declared), and docs/rules/uno.md#turns lists wild kinds: one action per declarable
/// colour; a wild played without a colour is refused with `NeedsColour`.
#[test]
fn why_needs_colour() {
    let g = Uno::from_setup(&official(), setup(&["", "R2 W B4"], "R7", 1), 1).unwrap();
    assert_eq!(refusal(&g, play("W")), Why::NeedsColour(UnoCard::WILD));
}

/// docs/rules/uno.md#card-effects: `current_color` = its colour, or the declared colour for a
/// wild — only a wild declares one; a colour on R2 is refused with `NotWild`.
#[test]
fn why_not_wild() {
    let g = Uno::from_setup(&official(), setup(&["", "R2 W B4"], "R7", 1), 1).unwrap();
    assert_eq!(
        refusal(&g, play_wild("R2", Color::Blue)),
        Why::NotWild(c("R2"))
    );
}

/// docs/rules/uno.md#turns: The `uno` flag exists only in `Explicit` mode and only matters when
/// the play leaves the player with exactly one card; with three cards in hand it is refused
/// with `UnoFlagNotLastCard`.
#[test]
fn why_uno_flag_not_last_card() {
    let o = opts_with(official(), &[("uno_call", "Explicit")]);
    let hands = ["G1 G2", "R3 R4 B7", "Y2 Y3", "Y4 Y6"];
    let g = Uno::from_setup(&o, setup(&hands, "R9", 1), 1).unwrap();
    assert!(legal(&g).contains(&act("play R3")));
    assert_eq!(refusal(&g, act("play R3 uno")), Why::UnoFlagNotLastCard);
}

/// docs/rules/uno.md#turns: `DrawUntilPlayable` [VAR house rule]: ... that card must then be
/// played (`AfterDraw` offers only `PlayDrawn` actions); `Keep` is refused with
/// `DrawnMustBePlayed`.
#[test]
fn why_drawn_must_be_played() {
    let until = opts_with(official(), &[("draw_rule", "DrawUntilPlayable")]);
    let mut s = setup(&["R1 G2", "B2 G3", "Y2 Y3", "Y4 Y6"], "R5", 1);
    s.draw_pile = cards("Y1 R9");
    let mut g = Uno::from_setup(&until, s, 1).unwrap();
    g.apply(Action::Draw).unwrap();
    assert_eq!(g.decision(), Decision::AfterDraw);
    assert_eq!(g.observe(1).drawn, Some(c("R9")));
    assert_eq!(legal(&g), vec![act("play-drawn")]);
    assert_eq!(refusal(&g, Action::Keep), Why::DrawnMustBePlayed);
}

/// docs/rules/uno.md#stacking: a stacked WD4 declares a colour; the colour restriction of
/// docs/rules/uno.md#wild-draw-four still applies. P1 holds a green card on a pending green Draw
/// Two, so his WD4 is refused with `Wd4Restricted`, not `CannotStack` (the kind would stack).
#[test]
fn why_wd4_restricted_in_a_stack() {
    let o = opts_with(
        official(),
        &[("stacking", "Progressive"), ("wd4_challenge", "false")],
    );
    let hands = ["GD2 G1 G5", "W4 G7 Y2", "R2 Y3", "Y8 R9"];
    let mut g = Uno::from_setup(&o, setup(&hands, "G3", 0), 1).unwrap();
    g.apply(play("GD2")).unwrap();
    assert_eq!(g.decision(), Decision::PenaltyTurn);
    assert_eq!(
        refusal(&g, act("stack W4 red")),
        Why::Wd4Restricted { seat: 1 }
    );
}

/// What a player or agent is shown for a refusal: the `IllegalAction` text, "illegal action
/// <action>: <reason>", whose reason part is the `Why`'s own text.
#[test]
fn why_text_is_what_players_see() {
    let g = Uno::from_setup(&official(), setup(&["", "R2 B4"], "R7", 1), 1).unwrap();
    let err = g.clone().apply(play("B4")).unwrap_err();
    assert_eq!(
        err.why,
        Why::NoMatch {
            card: c("B4"),
            top: c("R7"),
            colour: Color::Red
        }
    );
    assert_eq!(err.why.to_string(), "B4 does not match R7 with colour red");
    assert_eq!(
        err.to_string(),
        "illegal action play B4: B4 does not match R7 with colour red"
    );
    let err = g.clone().apply(Action::Keep).unwrap_err();
    assert_eq!(
        err.to_string(),
        "illegal action keep: it is P1's turn: play a card or draw"
    );
}

/// Every refusal reason and the test in this file that provokes it and asserts it by name.
/// The match has no wildcard arm, so a new `Why` variant does not compile until it is given
/// a scenario here (issue #41); `every_refusal_reason_has_a_scenario` checks the names.
fn scenario_of(why: Why) -> &'static str {
    match why {
        Why::GameOver => "u16_winner_takes_all_reaches_500",
        Why::WrongDecision { .. } => "why_wrong_decision",
        Why::NotACard(_) => "why_not_a_card",
        Why::NotHeld { .. } => "why_not_held",
        Why::NeedsColour(_) => "why_needs_colour",
        Why::NotWild(_) => "why_not_wild",
        Why::UnoFlagNotLastCard => "why_uno_flag_not_last_card",
        Why::UnoFlagNotExplicit => "u17_uno_catch",
        Why::Wd4Restricted { .. } => "u06_legal_plays_and_wd4_restriction",
        Why::CannotStack { .. } => "u18_progressive_stacking",
        Why::NoMatch { .. } => "u06_legal_plays_and_wd4_restriction",
        Why::DrawnMustBePlayed => "why_drawn_must_be_played",
    }
}

/// The `Expected` decision a `WrongDecision` names; no wildcard arm either, so a new decision
/// does not compile until `why_wrong_decision` provokes it.
fn expected_name(e: Expected) -> &'static str {
    match e {
        Expected::StartColour => "StartColour",
        Expected::Turn => "Turn",
        Expected::DrawnMayPlay => "DrawnMayPlay",
        Expected::DrawnMustPlay => "DrawnMustPlay",
        Expected::Wd4Challenge => "Wd4Challenge",
        Expected::Penalty { .. } => "Penalty",
        Expected::Catch { .. } => "Catch",
    }
}

#[test]
fn every_refusal_reason_has_a_scenario() {
    let x = c("R7");
    let one_of_each = [
        Why::GameOver,
        Why::WrongDecision {
            seat: 0,
            expected: Expected::Turn,
        },
        Why::NotACard(200),
        Why::NotHeld { seat: 0, card: x },
        Why::NeedsColour(UnoCard::WILD),
        Why::NotWild(x),
        Why::UnoFlagNotLastCard,
        Why::UnoFlagNotExplicit,
        Why::Wd4Restricted { seat: 0 },
        Why::CannotStack {
            card: x,
            top: x,
            stacking: Stacking::SameKind,
        },
        Why::NoMatch {
            card: x,
            top: x,
            colour: Color::Red,
        },
        Why::DrawnMustBePlayed,
    ];
    let src = include_str!("uno_scenarios.rs");
    common::check_scenarios(src, &one_of_each, scenario_of);
    // Every pending decision a `WrongDecision` can name is provoked in `why_wrong_decision`.
    let start = src.find("#[test]\nfn why_wrong_decision() {\n").unwrap();
    let body = &src[start..];
    let body = &body[..body.find("\n}\n").unwrap()];
    for e in [
        Expected::StartColour,
        Expected::Turn,
        Expected::DrawnMayPlay,
        Expected::DrawnMustPlay,
        Expected::Wd4Challenge,
        Expected::Penalty { pending: 2 },
        Expected::Catch { offender: 1 },
    ] {
        let name = expected_name(e);
        assert!(
            body.contains(&format!("Expected::{name}")),
            "`why_wrong_decision` does not provoke Expected::{name}"
        );
    }
}
