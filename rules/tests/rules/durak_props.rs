//! Property tests of the Durak engine: random games through the generic checker for every
//! preset and for option combinations that exercise every non-default option; determinization;
//! option validation and text round trips; action codes and action text.

use croupier_rules::cards::CardSet;
use croupier_rules::check::{CheckConfig, play_checked};
use croupier_rules::durak::*;
use croupier_rules::game::{Checkable, ConfigError, Game, Rules, SeatResult};
use croupier_rules::rng::GameRng;

fn opts_of(preset: &str, pairs: &[(&str, &str)]) -> Options {
    let mut o = Options::preset(preset).unwrap();
    for (k, v) in pairs {
        o.set_option(k, v).unwrap();
    }
    o.validate().unwrap();
    o
}

/// Option sets that together put every option at a non-default value at least once.
fn variants() -> Vec<(&'static str, Options)> {
    vec![
        ("classic", opts_of("classic", &[])),
        ("perevodnoy", opts_of("perevodnoy", &[])),
        ("teams", opts_of("teams", &[])),
        ("classic-3", opts_of("classic", &[("num_players", "3")])),
        (
            "classic-6-no-talon",
            opts_of("classic", &[("num_players", "6")]),
        ),
        (
            "perevodnoy-4-neighbours",
            opts_of(
                "perevodnoy",
                &[
                    ("num_players", "4"),
                    ("throw_in_by", "Neighbours"),
                    ("refill_start", "OriginalLeader"),
                ],
            ),
        ),
        (
            "perevodnoy-show-trump",
            opts_of(
                "perevodnoy",
                &[
                    ("num_players", "3"),
                    ("transfer_by_showing_trump", "true"),
                    ("no_transfer_in_first_bout", "true"),
                    ("dealer", "2"),
                ],
            ),
        ),
        (
            "multi-lead-cap5",
            opts_of(
                "classic",
                &[
                    ("num_players", "4"),
                    ("multi_card_lead", "true"),
                    ("first_bout_cap", "5"),
                    ("throw_in_after_take", "false"),
                ],
            ),
        ),
        (
            "deck24-left-of-dealer",
            opts_of(
                "classic",
                &[
                    ("deck", "24"),
                    ("num_players", "3"),
                    ("first_attacker", "LeftOfDealer"),
                    ("reveal_lowest_trump", "false"),
                ],
            ),
        ),
        (
            "redeal-small-hands",
            opts_of(
                "classic",
                &[
                    ("hand_size", "2"),
                    ("no_trump_fallback", "Redeal"),
                    ("bout_cap", "3"),
                ],
            ),
        ),
        (
            "teams-6-skipout",
            opts_of(
                "teams",
                &[("num_players", "6"), ("team_exit_rule", "SkipOut")],
            ),
        ),
        ("teams-6-proxy", opts_of("teams", &[("num_players", "6")])),
        (
            "teams-4-skipout-show",
            opts_of(
                "teams",
                &[
                    ("team_exit_rule", "SkipOut"),
                    ("transfer_by_showing_trump", "true"),
                    ("multi_card_lead", "true"),
                ],
            ),
        ),
        (
            "deck52-8-players",
            opts_of(
                "perevodnoy",
                &[
                    ("deck", "Deck52"),
                    ("num_players", "8"),
                    ("max_bouts", "40"),
                ],
            ),
        ),
    ]
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
fn random_games_full_action_space() {
    let cfg = CheckConfig {
        illegal_samples: None,
        ..CheckConfig::default()
    };
    for (name, o) in variants() {
        for seed in 0..3 {
            if let Err(v) = play_checked::<Durak>(&o, seed, &cfg) {
                panic!("{name}: {v}");
            }
        }
    }
}

/// Plays `games` checked games per variant whose name passes `pick`; returns
/// (decided, drawn, aborted).
fn default_config_games(pick: impl Fn(&str) -> bool, games: u64) -> [usize; 3] {
    let cfg = sampled();
    let mut outcomes = [0usize; 3];
    for (name, o) in variants().into_iter().filter(|(n, _)| pick(n)) {
        for seed in 1000..1000 + games {
            match play_checked::<Durak>(&o, seed, &cfg) {
                Ok(r) => {
                    let o = &r.outcome;
                    if o.aborted {
                        outcomes[2] += 1;
                    } else if o.results.iter().all(|r| *r == SeatResult::Draw) {
                        outcomes[1] += 1;
                    } else {
                        outcomes[0] += 1;
                    }
                }
                Err(v) => panic!("{name}: {v}"),
            }
        }
    }
    outcomes
}

#[test]
fn random_games_classic() {
    let o = default_config_games(|n| n == "classic", 100);
    assert!(o[0] >= 95 && o[2] == 0, "{o:?}");
}

#[test]
fn random_games_perevodnoy() {
    let o = default_config_games(|n| n == "perevodnoy", 60);
    assert!(o[0] >= 55 && o[2] == 0, "{o:?}");
}

#[test]
fn random_games_teams() {
    let o = default_config_games(|n| n == "teams", 40);
    assert!(o[0] >= 36 && o[2] == 0, "{o:?}");
}

#[test]
fn random_games_option_variants() {
    let o = default_config_games(|n| !["classic", "perevodnoy", "teams"].contains(&n), 10);
    // Only the 8-player variant with max_bouts=40 may abort.
    assert!(o[0] >= 100 && o[2] <= 10, "{o:?}");
}

/// Plays random games and, in many states, checks determinize against the real state.
#[test]
fn determinize_matches_observation() {
    let mut legal = Vec::new();
    let mut legal2 = Vec::new();
    let mut checked = 0;
    for (name, o) in variants() {
        for seed in 0..8u64 {
            let mut g = Durak::new(&o, seed).unwrap();
            let mut rng = GameRng::new(seed ^ 0xD1CE);
            loop {
                for seat in 0..g.num_players() as u8 {
                    let obs = g.observe(seat);
                    let d = Durak::determinize(&o, &obs, &mut rng);
                    d.check_invariants()
                        .unwrap_or_else(|e| panic!("{name} seed {seed}: {e}\n{obs:?}"));
                    assert_eq!(d.observe(seat), obs, "{name} seed {seed} seat {seat}");
                    assert_eq!(d.to_act(), g.to_act(), "{name} seed {seed}");
                    assert_eq!(d.outcome().is_some(), g.outcome().is_some());
                    if g.to_act() == Some(seat) {
                        g.legal_actions(&mut legal);
                        d.legal_actions(&mut legal2);
                        assert_eq!(legal, legal2, "{name} seed {seed}");
                    }
                    // Every seat's public knowledge is the same in both states.
                    for s in 0..g.num_players() as u8 {
                        assert_eq!(d.known_in_hand(s), g.known_in_hand(s));
                        assert_eq!(d.hand(s).len(), g.hand(s).len());
                    }
                    checked += 1;
                }
                let Some(_) = g.to_act() else { break };
                g.legal_actions(&mut legal);
                let a = legal[rng.below(legal.len())];
                g.apply(a).unwrap();
            }
        }
    }
    assert!(checked > 5_000, "{checked}");
}

/// The low-trump inference of docs/rules/durak.md#first-attacker holds in every determinization of
/// the first bout.
#[test]
fn determinize_respects_lowest_trump_inference() {
    let o = opts_of("classic", &[("num_players", "4")]);
    let mut rng = GameRng::new(7);
    let mut tested = 0;
    for seed in 0..200 {
        let g = Durak::new(&o, seed).unwrap();
        let obs = g.observe(0);
        if obs.low_trumps.is_empty() {
            continue;
        }
        for _ in 0..20 {
            let d = Durak::determinize(&o, &obs, &mut rng);
            for s in 1..4 {
                assert!(
                    d.hand(s).intersect(obs.low_trumps).is_empty(),
                    "seed {seed}: P{s} holds a trump lower than the revealed one"
                );
            }
            tested += 1;
        }
    }
    assert!(tested > 100);
}

#[test]
fn shuffle_hidden_keeps_every_observation_of_the_seat() {
    let mut legal = Vec::new();
    for (name, o) in variants() {
        for seed in 0..5u64 {
            let mut g = Durak::new(&o, seed).unwrap();
            let mut rng = GameRng::new(seed);
            let mut moved = false;
            while let Some(seat) = g.to_act() {
                let mut h = g.clone();
                h.shuffle_hidden(seat, &mut rng);
                h.check_invariants().unwrap();
                assert_eq!(h.observe(seat), g.observe(seat), "{name}");
                moved |= (0..g.num_players() as u8).any(|s| s != seat && h.hand(s) != g.hand(s));
                g.legal_actions(&mut legal);
                let a = legal[rng.below(legal.len())];
                g.apply(a).unwrap();
            }
            assert!(
                moved || name.contains("no-talon") || name.contains("8-players"),
                "{name}: nothing ever moved"
            );
        }
    }
}

/// Determinizing a forged observation (agent input) never panics, and neither does anything
/// done with the resulting state.
#[test]
fn forged_observations_do_not_panic() {
    let mut rng = GameRng::new(99);
    let mut legal = Vec::new();
    for (_, o) in variants().into_iter().take(4) {
        let mut g = Durak::new(&o, 5).unwrap();
        for step in 0..40 {
            let Some(seat) = g.to_act() else { break };
            let mut obs = g.observe(seat);
            match step % 5 {
                0 => {
                    obs.players = 200;
                    obs.attacker = 77;
                    obs.defender = 250;
                }
                1 => {
                    obs.talon = 255;
                    obs.hand_sizes = vec![60; 3];
                }
                2 => {
                    obs.table = vec![(obs.trump, None); 60];
                    obs.phase = Phase::ThrowIn;
                }
                3 => {
                    obs.seat = 9;
                    obs.out = 0xFF;
                    obs.unseen = CardSet(u64::MAX);
                }
                _ => {
                    obs.low_trumps = CardSet(u64::MAX >> 12);
                    obs.low_trump_room = vec![];
                    obs.phase = Phase::Over;
                }
            }
            let mut d = Durak::determinize(&o, &obs, &mut rng);
            let _ = d.check_invariants();
            for s in 0..10 {
                let _ = d.observe(s);
            }
            for _ in 0..5 {
                let space = d.action_space();
                d.legal_actions(&mut legal);
                let _ = d.to_act();
                let _ = d.outcome();
                let mut e = d.clone();
                e.shuffle_hidden(0, &mut rng);
                for a in space.iter().take(50) {
                    let _ = d.clone().apply(*a);
                }
                match legal.first() {
                    Some(a) => {
                        let _ = d.apply(*a);
                    }
                    None => break,
                }
            }
            g.legal_actions(&mut legal);
            let a = legal[rng.below(legal.len())];
            g.apply(a).unwrap();
        }
    }
}

fn invalid_option(o: &Options) -> String {
    match o.validate() {
        Err(ConfigError::Invalid { option, .. }) => option,
        other => panic!("expected a rejection, got {other:?}"),
    }
}

#[test]
fn validation_names_the_option() {
    let mut o = Options::teams();
    o.num_players = 5;
    assert_eq!(invalid_option(&o), "teams");
    let mut o = Options::classic(2);
    o.first_bout_cap = Some(7);
    assert_eq!(invalid_option(&o), "first_bout_cap");
    let mut o = Options::classic(2);
    o.transfer_by_showing_trump = true;
    assert_eq!(invalid_option(&o), "transfer_by_showing_trump");
    assert_eq!(invalid_option(&Options::classic(7)), "num_players");
    let mut o = Options::classic(4);
    o.deck = Deck::Deck24;
    o.num_players = 5;
    assert_eq!(invalid_option(&o), "num_players");
    let mut o = Options::classic(2);
    o.hand_size = 19;
    assert_eq!(invalid_option(&o), "hand_size");
    o.hand_size = 0;
    assert_eq!(invalid_option(&o), "hand_size");
    let mut o = Options::classic(3);
    o.dealer = Some(3);
    assert_eq!(invalid_option(&o), "dealer");
    let mut o = Options::classic(3);
    o.bout_cap = 0;
    assert_eq!(invalid_option(&o), "bout_cap");
    let mut o = Options::classic(3);
    o.max_bouts = 0;
    assert_eq!(invalid_option(&o), "max_bouts");
    assert_eq!(invalid_option(&Options::classic(1)), "num_players");
    // Accepted edge cases.
    let mut o = Options::classic(6);
    o.validate().unwrap();
    o.deck = Deck::Deck52;
    o.num_players = 8;
    o.validate().unwrap();
    let mut o = Options::teams();
    o.set_players(6).unwrap();
    o.validate().unwrap();
    o.set_players(3).unwrap();
    assert_eq!(invalid_option(&o), "teams");
    assert!(matches!(
        Durak::new(&o, 1),
        Err(ConfigError::Invalid { ref option, .. }) if option == "teams"
    ));
    assert!(matches!(
        o.set_players(300),
        Err(ConfigError::BadValue { ref option, .. }) if option == "num_players"
    ));
}

#[test]
fn bad_option_text_names_the_option() {
    let mut o = Options::default();
    for (k, v) in [
        ("deck", "Deck40"),
        ("transfer", "maybe"),
        ("bout_cap", "six"),
        ("throw_in_by", "everybody"),
        ("first_bout_cap", "x"),
        ("teams", "pairs"),
    ] {
        match o.set_option(k, v) {
            Err(ConfigError::BadValue { option, .. }) => assert_eq!(option, k),
            other => panic!("{k}={v}: {other:?}"),
        }
    }
    assert!(matches!(
        o.set_option("jokers", "2"),
        Err(ConfigError::UnknownOption { .. })
    ));
    assert_eq!(o, Options::default());
    o.set_option("throw-in-by", "neighbours").unwrap();
    assert_eq!(o.throw_in_by, ThrowInBy::Neighbours);
    o.set_option("deck", "52").unwrap();
    assert_eq!(o.deck, Deck::Deck52);
    o.set_option("deck", "deck_24").unwrap();
    assert_eq!(o.deck, Deck::Deck24);
    o.set_option("first_bout_cap", "5").unwrap();
    assert_eq!(o.first_bout_cap, Some(5));
    o.set_option("first_bout_cap", "None").unwrap();
    assert_eq!(o.first_bout_cap, None);
    o.set_option("team_exit_rule", "skip-out").unwrap();
    assert_eq!(o.team_exit_rule, TeamExitRule::SkipOut);
}

#[test]
fn presets_by_both_names() {
    assert_eq!(Options::presets()[0].name, "classic");
    assert_eq!(Options::preset("classic").unwrap(), Options::classic(2));
    assert_eq!(
        Options::preset("durak_classic").unwrap(),
        Options::classic(2)
    );
    assert_eq!(
        Options::preset("durak_classic(n)").unwrap(),
        Options::classic(2)
    );
    assert_eq!(
        Options::preset("perevodnoy").unwrap(),
        Options::perevodnoy(2)
    );
    assert_eq!(
        Options::preset("durak_perevodnoy").unwrap(),
        Options::perevodnoy(2)
    );
    assert_eq!(Options::preset("teams").unwrap(), Options::teams());
    assert_eq!(Options::preset("durak_teams()").unwrap(), Options::teams());
    assert!(matches!(
        Options::preset("podkidnoy-deluxe"),
        Err(ConfigError::UnknownPreset { .. })
    ));
    let t = Options::teams();
    assert_eq!(
        (t.deck, t.num_players, t.teams, t.transfer),
        (Deck::Deck52, 4, Teams::Partnerships, true)
    );
    for p in Options::presets() {
        Rules::validate(&Options::preset(p.name).unwrap()).unwrap();
    }
}

#[test]
fn option_pairs_round_trip() {
    let mut all: Vec<Options> = variants().into_iter().map(|(_, o)| o).collect();
    let mut odd = Options::teams();
    odd.dealer = Some(3);
    odd.first_bout_cap = Some(4);
    odd.max_bouts = 77;
    odd.hand_size = 5;
    odd.no_trump_fallback = NoTrumpFallback::Redeal;
    all.push(odd);
    for o in all {
        let pairs = o.option_pairs();
        assert_eq!(pairs.len(), 19, "every option");
        let mut r = Options::default();
        for (k, v) in &pairs {
            r.set_option(k, v).unwrap();
        }
        assert_eq!(r, o);
    }
}

#[test]
fn action_codes_round_trip_over_action_space() {
    for (_, o) in variants() {
        let mut g = Durak::new(&o, 3).unwrap();
        let mut rng = GameRng::new(3);
        let mut legal = Vec::new();
        while g.to_act().is_some() {
            for a in g.action_space() {
                let code = Durak::encode_action(a);
                assert_eq!(Durak::decode_action(code), Some(a), "{a} = {code:#x}");
                let text = a.to_string();
                assert_eq!(text.parse::<Action>(), Ok(a), "{text}");
            }
            g.legal_actions(&mut legal);
            for a in &legal {
                assert_eq!(a.to_string().parse::<Action>(), Ok(*a));
                assert_eq!(Durak::decode_action(Durak::encode_action(*a)), Some(*a));
            }
            let a = legal[rng.below(legal.len())];
            g.apply(a).unwrap();
        }
    }
}

#[test]
fn bad_codes_decode_to_none() {
    assert_eq!(Durak::decode_action(0), None);
    assert_eq!(Durak::decode_action(9), None);
    assert_eq!(Durak::decode_action(1 | 52 << 8), None); // no such card
    assert_eq!(Durak::decode_action(1 | 5 << 8 | 1 << 16), None); // stray b
    assert_eq!(Durak::decode_action(6 | 1 << 8), None);
    assert_eq!(Durak::decode_action(8 | 1 << 24), None);
    assert_eq!(Durak::decode_action(2 | 7 << 8 | 1 << 16), None); // one-card LeadMany
    assert_eq!(Durak::decode_action(2 | 15 << 8 | 3 << 16), None); // rank 15
    assert_eq!(Durak::decode_action(2 | 7 << 8 | 0x13 << 16), None); // suit bit 4
    assert_eq!(Durak::decode_action(6), Some(Action::Take));
    assert_eq!(Durak::decode_action(8), Some(Action::Pass));
    let a = Durak::decode_action(2 | 7 << 8 | 0b1001 << 16).unwrap();
    assert_eq!(a.to_string(), "lead 7C 7S");
    assert_eq!(
        Durak::decode_action(3 | 20 << 8 | 2 << 16)
            .unwrap()
            .to_string(),
        "beat 2 9D"
    );
}

#[test]
fn action_text() {
    for t in [
        "lead 7S",
        "lead 7C 7D",
        "beat 0 9S",
        "transfer 7D",
        "show 7H",
        "take",
        "throw 8C",
        "pass",
        "lead 10H",
        "beat 11 AS",
    ] {
        let a: Action = t.parse().unwrap();
        assert_eq!(a.to_string(), t);
    }
    assert_eq!(
        "  Beat 1 qd ".parse::<Action>().unwrap().to_string(),
        "beat 1 QD"
    );
    for bad in [
        "",
        "lead",
        "lead 7S 8S",
        "lead 7S 7S",
        "beat 9S",
        "beat x 9S",
        "take 7S",
        "throw",
        "fold",
        "lead 1S",
    ] {
        // Any parse error will do: the point is that the text is no action.
        assert!(bad.parse::<Action>().is_err(), "{bad:?} parsed");
    }
}

/// Long soak over every variant (release): `cargo test --release -p croupier-rules --test
/// durak_props -- --ignored soak_release`.
#[test]
#[ignore]
fn soak_release() {
    let cfg = sampled();
    for (name, o) in variants() {
        let t = croupier_rules::check::soak::<Durak>(&o, 2024, 0, 3000, &cfg);
        assert!(
            t.violations.is_empty(),
            "{name}: {:?}",
            t.violations.first()
        );
    }
}

/// Release-mode throughput probe: `cargo test --release -p croupier-rules --test durak_props
/// -- --ignored --nocapture speed`.
#[test]
#[ignore]
fn speed() {
    for (name, o) in variants().into_iter().take(3) {
        let start = std::time::Instant::now();
        let mut legal = Vec::new();
        let games = 20_000u64;
        let mut decisions = 0u64;
        for seed in 0..games {
            let mut g = Durak::new(&o, seed).unwrap();
            let mut rng = GameRng::new(seed);
            while g.to_act().is_some() {
                g.legal_actions(&mut legal);
                g.apply(legal[rng.below(legal.len())]).unwrap();
                decisions += 1;
            }
        }
        let s = start.elapsed().as_secs_f64();
        println!(
            "{name}: {:.0} games/s, {:.0} decisions/s",
            games as f64 / s,
            decisions as f64 / s
        );
        let obs_g = Durak::new(&o, 1).unwrap();
        let obs = obs_g.observe(0);
        let mut rng = GameRng::new(1);
        let start = std::time::Instant::now();
        for _ in 0..100_000 {
            std::hint::black_box(Durak::determinize(&o, &obs, &mut rng));
        }
        println!(
            "{name}: determinize {:.2} us",
            start.elapsed().as_secs_f64() * 10.0
        );
    }
}

/// The groups a determinization deals hidden cards into for `obs` (the other hands' unknown
/// cards, then the face-down talon): their seats, sizes and low-trump caps.
fn hidden_groups(obs: &Observation) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let seat = obs.seat as usize;
    let others: Vec<usize> = (0..obs.players as usize).filter(|&s| s != seat).collect();
    let mut size: Vec<usize> = others
        .iter()
        .map(|&s| obs.hand_sizes[s] as usize - obs.known[s].len())
        .collect();
    let mut cap: Vec<usize> = others
        .iter()
        .map(|&s| obs.low_trump_room[s] as usize)
        .collect();
    size.push(obs.talon as usize - usize::from(obs.trump_holder.is_none()));
    cap.push(usize::MAX);
    (others, size, cap)
}

/// Every vector of low-trump counts per group and its probability when the `nl` low trumps
/// go uniformly to the slots of the groups under the caps: picking which slots of each group
/// hold them, a vector `x` has weight `Π C(size_g, x_g)`.
fn low_trump_distribution(nl: usize, size: &[usize], cap: &[usize]) -> Vec<(Vec<usize>, f64)> {
    fn binom(n: usize, k: usize) -> f64 {
        (0..k).fold(1.0, |r, i| r * (n - i) as f64 / (i + 1) as f64)
    }
    let mut out: Vec<(Vec<usize>, f64)> = Vec::new();
    let mut x = vec![0usize; size.len()];
    loop {
        if x.iter().sum::<usize>() == nl && (0..x.len()).all(|g| x[g] <= cap[g]) {
            let w = (0..x.len()).map(|g| binom(size[g], x[g])).product::<f64>();
            if w > 0.0 {
                out.push((x.clone(), w));
            }
        }
        // The next vector, each count in 0..=min(nl, size).
        let mut g = 0;
        while g < x.len() {
            x[g] += 1;
            if x[g] <= nl.min(size[g]) {
                break;
            }
            x[g] = 0;
            g += 1;
        }
        if g == x.len() {
            break;
        }
    }
    let total: f64 = out.iter().map(|e| e.1).sum();
    for e in out.iter_mut() {
        e.1 /= total;
    }
    out
}

/// Determinization deals the hidden low trumps (docs/rules/durak.md#first-attacker) uniformly among
/// the assignments that respect every hand's `low_trump_room`, as observe.rs claims: the
/// frequencies of many determinizations of one observation match the exact distribution (a
/// chi-square test with a wide margin; the seeds are fixed, so the test is deterministic).
#[test]
fn determinize_deals_low_trumps_uniformly() {
    let o = opts_of("classic", &[("num_players", "4")]);
    let mut legal = Vec::new();
    // An observation where where the low trumps go is genuinely random: a hand (not the
    // talon, whose count is what is left) that gets 0, 1 or 2 of them, each with a fair
    // chance, so that every step of the sampler's choice matters.
    let mut found = None;
    'search: for seed in 0..2000u64 {
        let mut g = Durak::new(&o, seed).unwrap();
        let mut rng = GameRng::new(seed);
        while let Some(seat) = g.to_act() {
            let obs = g.observe(seat);
            let nl = obs.unseen.intersect(obs.low_trumps).len();
            let (_, size, cap) = hidden_groups(&obs);
            let dist = low_trump_distribution(nl, &size, &cap);
            let random_hand = (0..size.len() - 1).any(|g| {
                (0..3).all(|k| {
                    let p: f64 = dist.iter().filter(|e| e.0[g] == k).map(|e| e.1).sum();
                    p > 0.05
                })
            });
            if random_hand {
                found = Some((obs, dist));
                break 'search;
            }
            g.legal_actions(&mut legal);
            g.apply(legal[rng.below(legal.len())]).unwrap();
        }
    }
    let (obs, expected) = found.expect("no observation with a random low-trump deal");
    let low = obs.unseen.intersect(obs.low_trumps);
    let (others, size, _) = hidden_groups(&obs);
    assert_eq!(size.iter().sum::<usize>(), obs.unseen.len());

    let n = 4000;
    let mut rng = GameRng::new(2024);
    let mut seen = std::collections::BTreeMap::<Vec<usize>, u32>::new();
    for _ in 0..n {
        let d = Durak::determinize(&o, &obs, &mut rng);
        let mut x: Vec<usize> = others
            .iter()
            .map(|&s| d.hand(s as u8).intersect(low).len())
            .collect();
        let talon: CardSet = d.talon_cards().into_iter().collect();
        x.push(talon.intersect(low).len());
        assert_eq!(x.iter().sum::<usize>(), low.len());
        *seen.entry(x).or_default() += 1;
    }
    let mut chi2 = 0.0;
    for (x, p) in &expected {
        let e = p * n as f64;
        let got = seen.remove(x).unwrap_or(0) as f64;
        chi2 += (got - e) * (got - e) / e;
    }
    assert!(seen.is_empty(), "counts outside the caps: {seen:?}");
    let df = (expected.len() - 1) as f64;
    assert!(
        chi2 < df + 6.0 * (2.0 * df).sqrt() + 10.0,
        "low trumps are not dealt uniformly: chi2 {chi2:.1} over {df} degrees of freedom, \
         expected {expected:?}"
    );
}

/// Determinizing the observation of a finished game gives the same outcome: who won, and
/// whether the game was decided or aborted.
#[test]
fn determinize_keeps_the_outcome_of_a_finished_game() {
    let mut legal = Vec::new();
    let mut checked = 0;
    for (name, o) in variants() {
        for seed in 0..3u64 {
            let mut g = Durak::new(&o, seed).unwrap();
            let mut rng = GameRng::new(seed);
            while g.to_act().is_some() {
                g.legal_actions(&mut legal);
                g.apply(legal[rng.below(legal.len())]).unwrap();
            }
            for seat in 0..g.num_players() as u8 {
                let d = Durak::determinize(&o, &g.observe(seat), &mut rng);
                assert_eq!(
                    d.outcome(),
                    g.outcome(),
                    "{name}, seed {seed}, seen by P{seat}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 20);
}
