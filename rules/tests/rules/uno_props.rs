//! Property tests for UNO: random games under every preset and unusual option sets, checked
//! by `croupier_rules::check`; determinization; option text; action codes and text.

use croupier_rules::check::{CheckConfig, play_checked};
use croupier_rules::uno::*;
use croupier_rules::{Checkable, ConfigError, Game, GameRng, Rules, SeatResult};

fn preset(name: &str) -> Options {
    Options::preset(name).unwrap()
}

fn with(mut o: Options, pairs: &[(&str, &str)]) -> Options {
    for (k, v) in pairs {
        o.set_option(k, v).unwrap();
    }
    o.validate().unwrap();
    o
}

/// Option sets beyond the presets: every option at a non-default value at least once.
fn extra_option_sets() -> Vec<(&'static str, Options)> {
    vec![
        (
            "explicit-cumulative",
            with(
                preset("official"),
                &[
                    ("uno_call", "Explicit"),
                    ("scoring", "CumulativePenalty"),
                    ("target_score", "150"),
                    ("uno_penalty", "3"),
                    ("num_players", "3"),
                ],
            ),
        ),
        (
            "nomatch-redraw-right",
            with(
                preset("official"),
                &[
                    ("wd4_restriction", "NoMatchingCard"),
                    ("start_wild", "Redraw"),
                    ("start_reverse", "RightOfDealerStarts"),
                    ("draw_rule", "DrawUntilPlayable"),
                    ("scoring", "SingleHand"),
                    ("num_players", "5"),
                    ("dealer", "2"),
                ],
            ),
        ),
        (
            "samekind-explicit",
            with(
                preset("house"),
                &[
                    ("stacking", "SameKind"),
                    ("uno_call", "Explicit"),
                    ("deck_exhaustion", "Reshuffle"),
                    ("wd4_restriction", "NoMatchingCard"),
                    ("num_players", "3"),
                ],
            ),
        ),
        (
            "no-challenge-endhand-wta",
            with(
                preset("official"),
                &[
                    ("wd4_challenge", "false"),
                    ("deck_exhaustion", "EndHand"),
                    ("scoring", "WinnerTakesAll"),
                    ("target_score", "200"),
                    ("hand_size", "12"),
                    ("num_players", "6"),
                ],
            ),
        ),
        (
            "ten-players-big-hands",
            with(
                preset("official"),
                &[
                    ("num_players", "10"),
                    ("hand_size", "10"),
                    ("scoring", "SingleHand"),
                    ("uno_call", "Explicit"),
                    ("wd4_challenge", "true"),
                ],
            ),
        ),
        (
            "turn-limit",
            with(
                preset("two-player"),
                &[("turn_limit", "15"), ("scoring", "SingleHand")],
            ),
        ),
    ]
}

/// In debug builds, checked games stop after 400 turns per hand (as aborted games), to keep
/// the unoptimised test run short. Release runs play on.
fn capped(opts: &Options) -> Options {
    let mut o = opts.clone();
    if cfg!(debug_assertions) {
        o.turn_limit = o.turn_limit.min(400);
    }
    o
}

fn run(label: &str, opts: &Options, games: u64, cfg: &CheckConfig) -> (u64, u64) {
    let opts = &capped(opts);
    let mut decisions = 0;
    let mut aborted = 0;
    for i in 0..games {
        let seed = GameRng::derive(0x0A0, i);
        match play_checked::<Uno>(opts, seed, cfg) {
            Ok(r) => {
                decisions += r.decisions as u64;
                aborted += r.outcome.aborted as u64;
                assert_eq!(r.outcome.results.len(), opts.num_players as usize);
                assert_eq!(r.outcome.scores.len(), opts.num_players as usize);
                if !r.outcome.aborted {
                    assert!(
                        r.outcome.results.iter().any(|x| *x != SeatResult::Loss),
                        "{label}: nobody won"
                    );
                }
            }
            Err(v) => panic!("{label}: {v}"),
        }
    }
    (decisions, aborted)
}

fn exhaustive() -> CheckConfig {
    CheckConfig {
        illegal_samples: None,
        ..CheckConfig::default()
    }
}

/// Game counts: small in debug (the whole UNO suite stays under ~20 s), a few hundred per
/// preset with `cargo test --release`.
fn scale(debug: u64, release: u64) -> u64 {
    if cfg!(debug_assertions) {
        debug
    } else {
        release
    }
}

/// A preset cut to one hand (random players make long multi-hand games: an official game
/// to 500 is ~5000 decisions), so that many more hands get checked.
fn one_hand(name: &str) -> Options {
    with(preset(name), &[("scoring", "SingleHand")])
}

/// A preset with a low target (one or two hands) for the multi-hand flow under the checker.
fn short(name: &str) -> Options {
    with(preset(name), &[("target_score", "60")])
}

/// The sampled check (the checker's default until it became exact): 8 unlisted actions
/// tried per state, every listed one applied. Enough here, where many games are played.
fn sampled() -> CheckConfig {
    CheckConfig {
        illegal_samples: Some(8),
        ..CheckConfig::default()
    }
}

#[test]
fn presets_random_games_full_action_space() {
    run("house", &preset("house"), scale(15, 300), &exhaustive());
    run(
        "official/1",
        &one_hand("official"),
        scale(4, 100),
        &exhaustive(),
    );
    run(
        "two-player/1",
        &one_hand("two-player"),
        scale(3, 50),
        &exhaustive(),
    );
    run(
        "official/60",
        &short("official"),
        scale(1, 10),
        &exhaustive(),
    );
    run(
        "two-player/60",
        &short("two-player"),
        scale(1, 5),
        &exhaustive(),
    );
}

#[test]
fn presets_random_games_sampled() {
    run("house", &preset("house"), scale(60, 1000), &sampled());
    run(
        "official/1",
        &one_hand("official"),
        scale(15, 300),
        &sampled(),
    );
    run(
        "two-player/1",
        &one_hand("two-player"),
        scale(15, 200),
        &sampled(),
    );
    run("official/60", &short("official"), scale(5, 40), &sampled());
    run(
        "two-player/60",
        &short("two-player"),
        scale(5, 20),
        &sampled(),
    );
}

/// The real multi-hand presets, played to the end with every check in every state (random
/// players make these games ~5000 decisions long, ~12 000 with two players).
#[test]
fn full_presets_play_to_the_end() {
    for p in Options::presets() {
        let opts = preset(p.name);
        for seed in 0..scale(1, 30) {
            let r = play_checked::<Uno>(&opts, seed, &sampled())
                .unwrap_or_else(|v| panic!("{}: {v}", p.name));
            let out = r.outcome;
            assert_eq!(out.results.len(), opts.num_players as usize);
            if !out.aborted && opts.scoring == Scoring::WinnerTakesAll {
                let w = out
                    .results
                    .iter()
                    .position(|r| *r == SeatResult::Win)
                    .unwrap();
                assert!(
                    out.scores[w] >= 500,
                    "{}: the winner reached the target",
                    p.name
                );
            }
        }
    }
}

#[test]
fn house_single_hand_many_players() {
    for n in [2u8, 3, 7, 10] {
        let mut o = preset("house");
        o.set_players(n as usize).unwrap();
        run("house-n", &o, scale(10, 200), &sampled());
    }
}

#[test]
fn unusual_options_random_games() {
    for (label, mut opts) in extra_option_sets() {
        // Hands of random players run to ~1000 turns; 500 reach every kind of state.
        opts.turn_limit = opts.turn_limit.min(500);
        run(label, &opts, scale(2, 10), &exhaustive());
        let (_, aborted) = run(label, &opts, scale(8, 60), &sampled());
        if label == "turn-limit" {
            assert!(aborted > 0, "a 15-turn cap must abort some games");
        }
    }
}

/// Plays random games and, in every state, determinizes every seat's observation.
#[test]
fn determinize_matches_observation() {
    let mut sets: Vec<(&str, Options)> = vec![
        ("official/1", one_hand("official")),
        ("house", preset("house")),
        ("two-player/1", one_hand("two-player")),
    ];
    sets.extend(extra_option_sets());
    let mut legal = Vec::new();
    let mut legal2 = Vec::new();
    let mut states = 0;
    for (label, opts) in sets {
        let opts = capped(&opts);
        for g in 0..scale(3, 30) {
            let mut game = Uno::new(&opts, GameRng::derive(77, g)).unwrap();
            let mut rng = GameRng::new(g);
            while let Some(seat) = game.to_act() {
                for s in 0..game.num_players() as u8 {
                    let obs = game.observe(s);
                    let det = Uno::determinize(&opts, &obs, &mut rng);
                    det.check_invariants()
                        .unwrap_or_else(|e| panic!("{label}: determinized state: {e}"));
                    assert_eq!(det.observe(s), obs, "{label}: observation of P{s} differs");
                    assert_eq!(det.to_act(), game.to_act());
                    if s == seat {
                        game.legal_actions(&mut legal);
                        det.legal_actions(&mut legal2);
                        assert_eq!(legal, legal2, "{label}: legal actions differ");
                        // The determinized state plays on.
                        let mut d2 = det.clone();
                        d2.apply(legal2[rng.below(legal2.len())]).unwrap();
                        d2.check_invariants().unwrap();
                    }
                    states += 1;
                }
                game.legal_actions(&mut legal);
                let a = legal[rng.below(legal.len())];
                game.apply(a).unwrap();
            }
            // Finished games too.
            let obs = game.observe(0);
            let det = Uno::determinize(&opts, &obs, &mut rng);
            assert_eq!(det.observe(0), obs);
            assert!(det.outcome().is_some() && det.to_act().is_none());
        }
    }
    assert!(states > 1000);
}

/// Official rules with explicit UNO calls (so `UnoCatch` decisions happen) and one hand per
/// game, capped: the set-up of the tests that follow hidden cards and catches.
fn explicit_calls_single_hand() -> Options {
    capped(&with(
        preset("official"),
        &[("uno_call", "Explicit"), ("scoring", "SingleHand")],
    ))
}

/// Re-dealing the cards hidden from a seat leaves its observation unchanged, and the re-deal
/// really moves hidden cards: without the second half, a re-deal that does nothing passes,
/// and then so does an observation that leaks another seat's hand.
#[test]
fn shuffle_hidden_keeps_observations_of_every_seat() {
    let opts = explicit_calls_single_hand();
    let mut legal = Vec::new();
    let (mut redeals, mut moved) = (0u64, 0u64);
    for g in 0..scale(2, 40) {
        let mut game = Uno::new(&opts, g).unwrap();
        let mut rng = GameRng::new(g + 100);
        while game.to_act().is_some() {
            for s in 0..4u8 {
                let before = game.observe(s);
                let mut c = game.clone();
                c.shuffle_hidden(s, &mut rng);
                c.check_invariants().unwrap();
                assert_eq!(c.observe(s), before);
                redeals += 1;
                let others_changed = (0..4u8).any(|o| o != s && c.hand(o) != game.hand(o))
                    || c.draw_pile() != game.draw_pile();
                moved += u64::from(others_changed);
            }
            game.legal_actions(&mut legal);
            game.apply(legal[rng.below(legal.len())]).unwrap();
        }
    }
    // Measured: nearly every re-deal moves a card; a half leaves room and none for a no-op.
    assert!(
        moved * 2 > redeals,
        "only {moved} of {redeals} re-deals moved a hidden card"
    );
}

#[test]
fn config_validation_names_the_option() {
    let named = |o: &Options, opt: &str| match o.validate() {
        Err(ConfigError::Invalid { option, .. }) => assert_eq!(option, opt),
        other => panic!("expected an error naming {opt}, got {other:?}"),
    };
    let mut o = preset("official");
    o.stacking = Stacking::Progressive;
    named(&o, "stacking");
    let mut o = preset("official");
    o.num_players = 10;
    o.hand_size = 11;
    named(&o, "hand_size");
    let mut o = preset("official");
    o.num_players = 9;
    o.hand_size = 12;
    named(&o, "hand_size"); // 109 > 108
    o.hand_size = 11;
    o.validate()
        .unwrap_or_else(|e| panic!("9 × 11 + 1 = 100 ≤ 108: {e}"));
    let mut o = preset("official");
    o.num_players = 1;
    named(&o, "num_players");
    o.num_players = 11;
    named(&o, "num_players");
    let mut o = preset("official");
    o.dealer = Some(4);
    named(&o, "dealer");
    let mut o = preset("official");
    o.hand_size = 0;
    named(&o, "hand_size");
    let mut o = preset("official");
    o.turn_limit = 0;
    named(&o, "turn_limit");
    let mut o = preset("official");
    o.target_score = 0;
    named(&o, "target_score");
    // Text errors name the option too.
    let mut o = preset("official");
    match o.set_option("scoring", "Nonsense") {
        Err(ConfigError::BadValue { option, .. }) => assert_eq!(option, "scoring"),
        other => panic!("{other:?}"),
    }
    match o.set_option("wd4_challenge", "maybe") {
        Err(ConfigError::BadValue { option, .. }) => assert_eq!(option, "wd4_challenge"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        o.set_option("no_such_option", "1"),
        Err(ConfigError::UnknownOption { .. })
    ));
    assert!(matches!(
        o.set_players(11),
        Err(ConfigError::Invalid { .. })
    ));
    o.set_players(6).unwrap();
    assert_eq!(o.num_players, 6);
    assert!(Uno::new(&preset("house"), 1).is_ok());
    let mut bad = preset("official");
    bad.num_players = 12;
    assert!(matches!(
        Uno::new(&bad, 1),
        Err(ConfigError::Invalid { ref option, .. }) if option == "num_players"
    ));
}

#[test]
fn presets_by_both_names() {
    assert_eq!(Options::presets()[0].name, "official");
    for (user, book) in [
        ("official", "uno_official"),
        ("house", "uno_house"),
        ("two-player", "uno_two_player"),
    ] {
        assert_eq!(preset(user), preset(book));
    }
    assert_eq!(preset("official"), Options::official(4));
    let h = preset("house");
    assert_eq!(h.stacking, Stacking::Progressive);
    assert_eq!(h.deck_exhaustion, DeckExhaustion::EndHand);
    assert!(!h.wd4_challenge);
    assert_eq!(h.scoring, Scoring::SingleHand);
    assert_eq!(preset("two-player").num_players, 2);
    assert!(matches!(
        Options::preset("nope"),
        Err(ConfigError::UnknownPreset { .. })
    ));
}

#[test]
fn option_pairs_round_trip() {
    let mut sets: Vec<Options> = Options::presets().iter().map(|p| preset(p.name)).collect();
    sets.extend(extra_option_sets().into_iter().map(|(_, o)| o));
    for o in sets {
        let pairs = o.option_pairs();
        assert_eq!(pairs.len(), 15);
        let mut rebuilt = Options::official(7);
        rebuilt.dealer = Some(1);
        for (k, v) in &pairs {
            rebuilt.set_option(k, v).unwrap();
        }
        assert_eq!(rebuilt, o);
    }
    // Spelling variants.
    let mut o = preset("official");
    o.set_option("wd4_restriction", "no-matching-card").unwrap();
    o.set_option("stacking", "progressive").unwrap();
    o.set_option("dealer", "none").unwrap();
    o.set_option("deck_exhaustion", "end_hand").unwrap();
    assert_eq!(o.wd4_restriction, Wd4Restriction::NoMatchingCard);
    assert_eq!(o.stacking, Stacking::Progressive);
    assert_eq!(o.deck_exhaustion, DeckExhaustion::EndHand);
    assert_eq!(o.dealer, None);
}

#[test]
fn action_codes_and_text_round_trip() {
    let mut seen = 0;
    for opts in [one_hand("official"), preset("house")] {
        for seed in 0..scale(2, 20) {
            let mut g = Uno::new(&opts, seed).unwrap();
            let mut rng = GameRng::new(seed);
            let mut legal = Vec::new();
            while g.to_act().is_some() {
                for a in g.action_space() {
                    let code = Uno::encode_action(a);
                    assert_eq!(Uno::decode_action(code), Some(a), "{a} via {code:#x}");
                    let text = a.to_string();
                    assert_eq!(text.parse::<Action>().ok(), Some(a), "{text}");
                    assert_eq!(
                        text.to_uppercase().parse::<Action>().ok(),
                        Some(a),
                        "{text}"
                    );
                    seen += 1;
                }
                g.legal_actions(&mut legal);
                g.apply(legal[rng.below(legal.len())]).unwrap();
            }
            for e in g.events() {
                assert!(!e.event.to_string().is_empty());
            }
        }
    }
    assert!(seen > 1000);
    // Stray bits and unknown kinds name no action.
    for bad in [
        0u32,
        12,
        0xFF,
        3 | 1 << 8,
        5 | 1 << 16,
        2 | 54 << 8,
        2 | 5 << 16,
        2 | 2 << 24,
        1,
        1 | 1 << 24,
        1 << 31,
    ] {
        assert_eq!(Uno::decode_action(bad), None, "{bad:#x}");
    }
    assert_eq!(Uno::encode_action(Action::Draw), 3);
    assert_eq!(
        Uno::encode_action(Action::Play {
            card: UnoCard::WILD_DRAW_FOUR,
            declare: Some(Color::Green),
            uno: true
        }),
        2 | 53 << 8 | 3 << 16 | 1 << 24
    );
    assert_eq!(
        Uno::encode_action(Action::ChooseColor(Color::Red)),
        1 | 1 << 16
    );
    // The human syntax of the brief.
    for (t, a) in [
        ("color red", Action::ChooseColor(Color::Red)),
        (
            "play R7",
            Action::Play {
                card: "R7".parse().unwrap(),
                declare: None,
                uno: false,
            },
        ),
        (
            "play W blue",
            Action::Play {
                card: UnoCard::WILD,
                declare: Some(Color::Blue),
                uno: false,
            },
        ),
        (
            "play W4 green uno",
            Action::Play {
                card: UnoCard::WILD_DRAW_FOUR,
                declare: Some(Color::Green),
                uno: true,
            },
        ),
        ("draw", Action::Draw),
        (
            "play-drawn",
            Action::PlayDrawn {
                declare: None,
                uno: false,
            },
        ),
        (
            "play-drawn blue uno",
            Action::PlayDrawn {
                declare: Some(Color::Blue),
                uno: true,
            },
        ),
        ("keep", Action::Keep),
        ("challenge", Action::Challenge),
        ("accept", Action::Accept),
        (
            "stack RD2",
            Action::Stack {
                card: UnoCard::draw_two(Color::Red),
                declare: None,
                uno: false,
            },
        ),
        (
            "stack W4 red",
            Action::Stack {
                card: UnoCard::WILD_DRAW_FOUR,
                declare: Some(Color::Red),
                uno: false,
            },
        ),
        ("accept-penalty", Action::AcceptPenalty),
        ("catch", Action::CatchUno),
        ("no-catch", Action::NoCatch),
    ] {
        assert_eq!(a.to_string(), t);
        assert_eq!(t.parse::<Action>().unwrap(), a);
    }
    for bad in [
        "",
        "play",
        "play X9",
        "draw 2",
        "color purple",
        "play R7 red red",
        "jump",
    ] {
        // Any parse error will do: the point is that the text is no action.
        assert!(bad.parse::<Action>().is_err(), "{bad}");
    }
}

#[test]
fn illegal_input_never_panics_and_changes_nothing() {
    let mut g = Uno::new(&preset("official"), 5).unwrap();
    let before = g.clone();
    for code in [2 | 200 << 8, 8 | 60 << 8] {
        // Codes that decode to nothing.
        assert_eq!(Uno::decode_action(code), None);
    }
    // Seed 5 deals a number card: a `Turn`, which names the reason for each refusal.
    assert_eq!(g.decision(), Decision::Turn);
    let turn = Why::WrongDecision {
        seat: g.to_act().unwrap(),
        expected: Expected::Turn,
    };
    for (a, why) in [
        (
            Action::Play {
                card: UnoCard(200),
                declare: None,
                uno: false,
            },
            Why::NotACard(200),
        ),
        (
            Action::Stack {
                card: UnoCard(99),
                declare: Some(Color::Red),
                uno: true,
            },
            turn,
        ),
        (Action::Challenge, turn),
        (Action::Keep, turn),
    ] {
        assert_eq!(g.apply(a).unwrap_err().why, why, "{a}");
        assert_eq!(g, before);
    }
    let _ = g.observe(9);
    let mut rng = GameRng::new(1);
    g.shuffle_hidden(9, &mut rng);
}

/// In `AfterDraw` of another seat, `determinize` gives the drawer a drawn card chosen among
/// every playable card of the pool that fits its caps (`pick_drawn`), not only among the
/// wilds: most playable cards are coloured.
#[test]
fn determinize_draws_a_coloured_card_for_another_seat_too() {
    let opts = preset("house");
    let mut legal = Vec::new();
    let (mut worlds, mut coloured, mut wild, mut by_kind) = (0u32, 0u32, 0u32, 0u32);
    for g in 0..40 {
        let mut game = Uno::new(&opts, GameRng::derive(91, g)).unwrap();
        let mut rng = GameRng::new(g);
        while let Some(a) = game.to_act() {
            if game.observe(a).decision == Decision::AfterDraw {
                let s = (a + 1) % game.num_players() as u8;
                let obs = game.observe(s);
                for _ in 0..10 {
                    let det = Uno::determinize(&opts, &obs, &mut rng);
                    let drawn = det
                        .observe(a)
                        .drawn
                        .expect("the drawer sees its drawn card");
                    worlds += 1;
                    // The decision itself is public: the drawn card was playable.
                    assert!(
                        drawn.color().is_none_or(|c| c == obs.color)
                            || drawn.kind_index() == obs.top.kind_index(),
                        "game {g}: {drawn:?} drawn, not playable on {:?} ({:?})",
                        obs.top,
                        obs.color
                    );
                    coloured += drawn.color().is_some() as u32;
                    wild += drawn.color().is_none() as u32;
                    // Playable by its number or symbol alone, in another colour.
                    by_kind += (drawn.color().is_some_and(|c| c != obs.color)
                        && drawn.kind_index() == obs.top.kind_index())
                        as u32;
                }
            }
            game.legal_actions(&mut legal);
            game.apply(legal[rng.below(legal.len())]).unwrap();
        }
    }
    assert!(worlds >= 100, "only {worlds} AfterDraw worlds");
    assert!(
        coloured * 2 > worlds,
        "only {coloured} of {worlds} drawn cards are coloured"
    );
    // A wild is always playable, so it is a possible drawn card too.
    assert!(wild > 0, "no wild among {worlds} drawn cards");
    assert!(
        by_kind > 0,
        "no card matching only the top's kind among {worlds}"
    );
}

/// Without challenges the engine only lets a Wild Draw Four be played when the hand passes
/// the restriction (docs/rules/uno.md#information), so a player offered to play a drawn WD4 holds
/// no card of the current colour, and with `NoMatchingCard` no card of the top's number or symbol
/// either. `determinize` must deal the drawer's other cards under exactly those caps: no more (the
/// top's kind is allowed under `NoCardOfCurrentColor`), no less.
#[test]
fn determinize_deals_a_wd4_drawer_a_hand_that_passes_the_restriction() {
    for (restriction, kind_capped) in [("NoMatchingCard", true), ("NoCardOfCurrentColor", false)] {
        let opts = with(preset("house"), &[("wd4_restriction", restriction)]);
        let mut legal = Vec::new();
        let (mut worlds, mut with_kind) = (0u32, 0u32);
        for g in 0..60 {
            let mut game = Uno::new(&opts, GameRng::derive(92, g)).unwrap();
            let mut rng = GameRng::new(g);
            while let Some(a) = game.to_act() {
                if game.observe(a).decision == Decision::AfterDraw {
                    let s = (a + 1) % game.num_players() as u8;
                    let obs = game.observe(s);
                    let top_kind = obs.top.kind_index();
                    for _ in 0..20 {
                        let det = Uno::determinize(&opts, &obs, &mut rng);
                        let mine = det.observe(a);
                        if mine.drawn.is_none_or(|d| !d.is_wd4()) {
                            continue;
                        }
                        worlds += 1;
                        for c in mine.hand.iter().filter(|c| c.color().is_some()) {
                            assert_ne!(
                                c.color(),
                                Some(obs.color),
                                "{restriction}, game {g}: the WD4 drawer holds {c:?} of the current colour"
                            );
                        }
                        let kind = mine
                            .hand
                            .iter()
                            .any(|c| c.kind_index().is_some() && c.kind_index() == top_kind);
                        assert!(
                            !(kind && kind_capped),
                            "{restriction}, game {g}: the WD4 drawer holds a card of the top's kind ({:?})",
                            obs.top
                        );
                        with_kind += kind as u32;
                    }
                }
                game.legal_actions(&mut legal);
                game.apply(legal[rng.below(legal.len())]).unwrap();
            }
        }
        assert!(
            worlds >= 30,
            "{restriction}: only {worlds} worlds with a drawn WD4"
        );
        if !kind_capped {
            assert!(
                with_kind > 0,
                "{restriction}: in none of {worlds} worlds does the WD4 drawer hold a card of the top's kind"
            );
        }
        eprintln!(
            "{restriction}: {worlds} worlds with a drawn WD4, {with_kind} with a card of the top's kind"
        );
    }
}

/// C(n, k) exactly (n ≤ 108 here, so u128 does not overflow).
fn choose(n: u32, k: u32) -> u128 {
    if k > n {
        return 0;
    }
    (0..k).fold(1u128, |acc, i| acc * u128::from(n - i) / u128::from(i + 1))
}

/// `shuffle_hidden` promises a uniform re-deal among the places the hidden cards could be.
/// With one colour capped for the opponent (a Wild Draw Four under the enforced restriction
/// proved it held none of that colour; each card drawn since loosens the cap by one), the
/// uniform deal among those that respect the cap gives it x cards of the colour with
/// probability proportional to C(K, x) · C(N − K, n − x) for x ≤ cap (N hidden cards, K of
/// the colour, a hand of n). 2-player `house` games are played to a state with such a cap
/// (0 < cap, at least two more cards in the hand than the cap allows of the colour); 20 000
/// re-deals from the other seat must pass a chi-square test at about p = 1e-6.
///
/// Regression: the re-deal used to mend every deal that broke a cap by moving the extra
/// cards out, which put every hand over the cap exactly at the cap (chi-square in the
/// thousands: see docs/testing.md).
#[test]
fn hidden_cards_are_redealt_uniformly_under_a_colour_cap() {
    let opts = with(preset("house"), &[("num_players", "2")]);
    let mut legal = Vec::new();
    let mut found = None;
    'search: for g in 0..2000u64 {
        let mut game = Uno::new(&opts, g).unwrap();
        let mut rng = GameRng::new(g + 7);
        while let Some(actor) = game.to_act() {
            let obs = game.observe(0);
            let caps = obs.color_caps[1];
            let capped: Vec<usize> = (0..4).filter(|&c| caps[c] != 255).collect();
            if actor == 0
                && capped.len() == 1
                && obs.kind_caps[1].iter().all(|&k| k == 255)
                && obs.known[1].is_empty()
            {
                let c = capped[0];
                let cap = u32::from(caps[c]);
                let n = u32::from(obs.hand_sizes[1]);
                let big_n: u32 = obs.unseen.iter().map(|&u| u32::from(u)).sum();
                let k: u32 = (0..54)
                    .filter(|&f| UnoCard(f as u8).color() == Some(Color::ALL[c]))
                    .map(|f| u32::from(obs.unseen[f]))
                    .sum();
                // Room for the test to tell: the cap allows some but not all of a typical
                // hand, and deals that fit are common enough to be drawn, not mended.
                let weights: Vec<u128> = (0..=cap.min(n))
                    .map(|x| choose(k, x) * choose(big_n - k, n - x))
                    .collect();
                let fit: u128 = weights.iter().sum();
                if cap > 0 && cap + 2 <= n && fit * 20 >= choose(big_n, n) {
                    found = Some((game.clone(), c, weights));
                    break 'search;
                }
            }
            game.legal_actions(&mut legal);
            game.apply(legal[rng.below(legal.len())]).unwrap();
        }
    }
    let (game, c, weights) = found.expect("a 2-player house game with a colour cap");
    let total: u128 = weights.iter().sum();
    const DEALS: u32 = 20_000;
    let mut seen = vec![0u32; weights.len()];
    let mut rng = GameRng::new(99);
    for _ in 0..DEALS {
        let mut d = game.clone();
        d.shuffle_hidden(0, &mut rng);
        let x = d
            .hand(1)
            .iter()
            .filter(|f| f.color() == Some(Color::ALL[c]))
            .count();
        assert!(
            x < seen.len(),
            "a re-deal broke the cap: {x} cards of colour {c}"
        );
        seen[x] += 1;
    }
    // Bins with an expected count under 5 go together into one.
    let (mut chi2, mut bins) = (0.0f64, 0usize);
    let (mut rest_seen, mut rest_expected) = (0.0f64, 0.0f64);
    for (x, &w) in weights.iter().enumerate() {
        let expected = f64::from(DEALS) * w as f64 / total as f64;
        if expected >= 5.0 {
            chi2 += (f64::from(seen[x]) - expected).powi(2) / expected;
            bins += 1;
        } else {
            rest_seen += f64::from(seen[x]);
            rest_expected += expected;
        }
    }
    if rest_expected >= 5.0 {
        chi2 += (rest_seen - rest_expected).powi(2) / rest_expected;
        bins += 1;
    }
    assert!(bins >= 2, "too few bins: {weights:?}");
    // The chi-square quantile at p = 1e-6 is below 24 + 3 · df for df ≤ 10.
    let critical = 24.0 + 3.0 * (bins - 1) as f64;
    assert!(
        chi2 < critical,
        "colour {c}: chi-square {chi2:.1} over {bins} bins (critical {critical}); seen {seen:?}, weights {weights:?}"
    );
}

/// An agent determinizes whatever observation it holds; a malformed one (a seat beyond the
/// table, lists of the wrong length, a stray turn) must give some state, not a panic that
/// would trap the agent. Regression for a mutant that clamped the seat to `players + 1`.
#[test]
fn determinize_survives_a_malformed_observation() {
    let opts = with(preset("house"), &[("num_players", "3")]);
    let game = Uno::new(&opts, 4).unwrap();
    let mut rng = GameRng::new(4);
    let good = game.observe(0);
    let malformed = [
        Observation {
            seat: 3,
            ..good.clone()
        },
        Observation {
            seat: 200,
            players: 2,
            ..good.clone()
        },
        Observation {
            hand_sizes: vec![7],
            unseen: vec![1; 3],
            to_act: Some(9),
            dealer: 9,
            ..good.clone()
        },
        Observation {
            known: vec![vec![UnoCard(53); 40]; 5],
            color_caps: vec![[0; 4]; 1],
            kind_caps: Vec::new(),
            ..good.clone()
        },
        Observation {
            decision: Decision::Wd4Challenge,
            wd4: Some(Wd4Pending {
                offender: 9,
                victim: 8,
                prev_color: Color::Red,
                prev_top: UnoCard(3),
                hand_len: 30,
                hand: Some(vec![UnoCard(200); 3]),
            }),
            ..good.clone()
        },
    ];
    for obs in malformed {
        let mut d = Uno::determinize(&opts, &obs, &mut rng);
        // Seats out of range are clamped into the table.
        let o = d.observe(0);
        assert!(o.dealer < o.players, "dealer {} of {}", o.dealer, o.players);
        assert!(o.to_act.is_none_or(|s| s < o.players), "{:?}", o.to_act);
        if let Some(w) = &o.wd4 {
            assert!(w.offender < o.players && w.victim < o.players, "{w:?}");
        }
        let mut legal = Vec::new();
        d.legal_actions(&mut legal);
        for a in legal {
            let _ = d.clone().apply(a);
        }
        d.shuffle_hidden(250, &mut rng);
        let _ = d.observe(0);
    }
}

/// A determinized `UnoCatch` must ask the remaining players in the real order: after the
/// same "no catch" answers, the real game and every determinization have the same player to
/// act. (The phase's count of players already asked is rebuilt from the turn, the offender
/// and the direction; a wrong count changes who is asked next, which no observation shows.)
#[test]
fn determinized_uno_catch_asks_the_same_players_in_turn() {
    let opts = explicit_calls_single_hand();
    let mut legal = Vec::new();
    let mut catches = 0;
    for g in 0..scale(20, 200) {
        let mut game = Uno::new(&opts, g).unwrap();
        let mut rng = GameRng::new(g + 500);
        while let Some(s) = game.to_act() {
            let obs = game.observe(s);
            if obs.decision == Decision::UnoCatch {
                catches += 1;
                let mut real = game.clone();
                let mut det = Uno::determinize(&opts, &obs, &mut rng);
                while let Some(a) = real.to_act() {
                    assert_eq!(
                        det.to_act(),
                        Some(a),
                        "game {g}: the determinization asks another player"
                    );
                    if real.observe(a).decision != Decision::UnoCatch {
                        break;
                    }
                    real.apply(Action::NoCatch).unwrap();
                    det.apply(Action::NoCatch).unwrap();
                }
            }
            game.legal_actions(&mut legal);
            game.apply(legal[rng.below(legal.len())]).unwrap();
        }
    }
    assert!(catches >= 10, "only {catches} UnoCatch decisions");
}

/// A simulation that records no events (`record_no_events`, as search playouts do) plays the
/// same game: the same legal actions and observations at every step, the same results and
/// scores at the end; only the outcome's summary text is left out (an aborted game keeps its
/// reason). Under every preset, to
/// the end of multi-hand games (the hand's end builds its texts only for the events).
#[test]
fn a_game_without_events_plays_the_same() {
    for (name, opts) in [
        ("house", preset("house")),
        ("official", short("official")),
        ("two-player", short("two-player")),
    ] {
        let opts = &capped(&opts);
        for i in 0..scale(6, 60) {
            let seed = GameRng::derive(0x0FF, i);
            let mut on = Uno::new(opts, seed).unwrap();
            let mut off = on.clone();
            off.record_no_events();
            let mut rng = GameRng::new(seed);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            while let Some(seat) = on.to_act() {
                on.legal_actions(&mut a);
                off.legal_actions(&mut b);
                assert_eq!(a, b, "{name} seed {seed}: legal actions");
                for s in 0..opts.num_players {
                    assert_eq!(
                        on.observe(s),
                        off.observe(s),
                        "{name} seed {seed}: P{s} sees"
                    );
                }
                assert_eq!(off.to_act(), Some(seat));
                let act = a[rng.below(a.len())];
                on.apply(act).unwrap();
                off.apply(act).unwrap();
            }
            assert!(off.events().is_empty(), "{name}: events recorded");
            let (x, y) = (on.outcome().unwrap(), off.outcome().unwrap());
            assert_eq!(
                (&x.results, &x.scores, x.aborted),
                (&y.results, &y.scores, y.aborted)
            );
            // An aborted game keeps its reason.
            let text = if x.aborted { x.summary.as_str() } else { "" };
            assert!(!x.summary.is_empty(), "{name} seed {seed}: {x:?}");
            assert_eq!(y.summary, text, "{name} seed {seed}");
        }
    }
}
