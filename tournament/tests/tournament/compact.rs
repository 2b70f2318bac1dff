//! The compact game record: every record of every preset comes back whole, what is not
//! derived is kept, what a worker could make up is refused, and damaged bytes give an error,
//! never a panic.

use croupier_host::sandbox::CallStats;
use croupier_host::verdict::Verdict;
use croupier_rules::durak::Durak;
use croupier_rules::toepen::Toepen;
use croupier_rules::uno::Uno;
use croupier_rules::{Game, GameRng, Rules, SeatResult};
use croupier_tournament::compact::{CompactError, Frame, decode, encode};
use croupier_tournament::runner::{GameRecord, Schedule, SeatFault, game_seed};

/// Game `index` of the match `frame` describes, played by random legal moves, recorded the
/// way the runner records it.
fn play<G: Game>(
    opts: &G::Options,
    frame: &Frame<'_>,
    index: u64,
    rng: &mut GameRng,
) -> GameRecord {
    let (deal, rotation) = frame.schedule.game(index);
    let seats = frame.schedule.rotations[rotation].clone();
    let seed = game_seed(frame.seed, deal);
    let mut game = G::new(opts, seed).expect("deal");
    let n = game.num_players();
    let mut calls = vec![CallStats::default(); n];
    let mut actions = Vec::new();
    let mut decisions = 0;
    let mut legal = Vec::new();
    while let Some(seat) = game.to_act() {
        game.legal_actions(&mut legal);
        let a = legal[rng.below(legal.len())];
        if legal.len() > 1 {
            decisions += 1;
            calls[seat as usize].decisions += 1;
            calls[seat as usize].count_fuel(rng.next_u64() % 200_000);
        }
        game.apply(a).expect("legal");
        actions.push(G::encode_action(a));
    }
    let o = game.outcome().expect("over").clone();
    let teams: Option<Vec<u8>> = (0..n as u8).map(|s| game.team_of(s)).collect();
    GameRecord {
        index,
        deal,
        rotation,
        seed,
        builds: seats.iter().map(|&e| frame.builds[e].clone()).collect(),
        seats,
        actions,
        results: o.results,
        scores: o.scores,
        summary: o.summary,
        aborted: o.aborted,
        faults: Vec::new(),
        forfeit: None,
        decisions,
        teams,
        logs: Vec::new(),
        calls,
    }
}

fn builds(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{:012x}", 0xabc000 + i)).collect()
}

/// Every preset of `G`, a duplicate-deal match of 6 deals: each game comes back equal.
fn round_trips<G: Game>() -> (usize, usize) {
    let (mut compact, mut json, mut games) = (0, 0, 0);
    for p in G::Options::presets() {
        let opts = G::Options::preset(p.name).expect("preset");
        let schedule = Schedule::new(2, opts.seats(), 6, true);
        let b = builds(2);
        let frame = frame(&schedule, &b, 42);
        let mut rng = GameRng::new(7);
        for index in 0..schedule.games() {
            let rec = play::<G>(&opts, &frame, index, &mut rng);
            let bytes = encode::<G>(&opts, &frame, &rec).expect("encodes");
            let back = decode::<G>(&opts, &frame, index, &bytes).expect("decodes");
            assert_eq!(back, rec, "{} game {index}", p.name);
            compact += bytes.len();
            json += serde_json::to_string(&rec).expect("json").len();
            games += 1;
        }
    }
    // For the record (`--nocapture`): bytes per game, compact and as JSON.
    eprintln!(
        "{}: {} games, {} bytes compact, {} as JSON, per game",
        std::any::type_name::<G>(),
        games,
        compact / games,
        json / games
    );
    (compact, json)
}

#[test]
fn every_preset_of_every_game_round_trips() {
    let (c1, j1) = round_trips::<Durak>();
    let (c2, j2) = round_trips::<Toepen>();
    let (c3, j3) = round_trips::<Uno>();
    // Not a size target (that is in the arena benchmark): only that the form is compact at
    // all, so a change that stores the actions' codes again is noticed.
    assert!(
        (c1 + c2 + c3) * 3 < j1 + j2 + j3,
        "compact {} bytes against JSON {}",
        c1 + c2 + c3,
        j1 + j2 + j3
    );
}

/// The frame of a match of `schedule`, `builds` and master seed `seed`.
fn frame<'a>(schedule: &'a Schedule, builds: &'a [String], seed: u64) -> Frame<'a> {
    Frame {
        schedule,
        seed,
        builds,
    }
}

fn durak_game() -> (<Durak as Game>::Options, Schedule, Vec<String>) {
    let opts = <Durak as Game>::Options::preset("teams").expect("preset");
    let schedule = Schedule::new(2, opts.seats(), 4, true);
    (opts, schedule, builds(2))
}

#[test]
fn what_is_not_derived_is_kept() {
    let (opts, schedule, b) = durak_game();
    let frame = frame(&schedule, &b, 9);
    let mut rng = GameRng::new(1);
    let full = play::<Durak>(&opts, &frame, 3, &mut rng);

    // A forfeit: the game stops at a fault, results by the policy, not the rules.
    let mut forfeit = full.clone();
    forfeit.actions.truncate(10);
    forfeit.faults = vec![SeatFault {
        seat: 1,
        verdict: Verdict::OutOfFuel,
        message: "ran out of fuel <for this> decision".into(),
        at: 10,
    }];
    forfeit.forfeit = Some(1);
    forfeit.results = vec![
        SeatResult::Win,
        SeatResult::Loss,
        SeatResult::Win,
        SeatResult::Loss,
    ];
    forfeit.scores = Vec::new();
    forfeit.summary = "P1 forfeits (OUT_OF_FUEL)".into();
    // A hot swap: one seat ran another build than its entrant's.
    let mut swapped = full.clone();
    swapped.builds[2] = "0123456789ab".into();
    // With the fallback policy a fault does not end the game: the rules still do.
    let mut fallback = full.clone();
    fallback.faults = vec![SeatFault {
        seat: 0,
        verdict: Verdict::IllegalAction,
        message: "played a card it does not hold".into(),
        at: 4,
    }];
    for (what, rec) in [
        ("forfeit", forfeit),
        ("hot swap", swapped),
        ("fallback", fallback),
    ] {
        let bytes = encode::<Durak>(&opts, &frame, &rec).expect("encodes");
        let back = decode::<Durak>(&opts, &frame, rec.index, &bytes).expect("decodes");
        assert_eq!(back, rec, "{what}");
    }
}

#[test]
fn a_made_up_game_is_refused() {
    let (opts, schedule, b) = durak_game();
    let frame = frame(&schedule, &b, 9);
    let mut rng = GameRng::new(2);
    let rec = play::<Durak>(&opts, &frame, 0, &mut rng);

    // An action that is not legal where it is played.
    let mut illegal = rec.clone();
    let at = 5;
    let mut game = Durak::new(&opts, rec.seed).expect("deal");
    for &code in &rec.actions[..at] {
        game.apply(Durak::decode_action(code).expect("code"))
            .expect("legal");
    }
    let mut legal = Vec::new();
    game.legal_actions(&mut legal);
    let codes: Vec<u32> = legal.iter().map(|a| Durak::encode_action(*a)).collect();
    illegal.actions[at] = rec
        .actions
        .iter()
        .copied()
        .find(|c| !codes.contains(c))
        .expect("some code of this game is not legal at that point");
    assert!(matches!(
        encode::<Durak>(&opts, &frame, &illegal),
        Err(CompactError::Illegal { at: 5, .. })
    ));

    // Results the rules do not give, with no fault to explain them.
    let mut lie = rec.clone();
    lie.results.reverse();
    if lie.results == rec.results {
        lie.results = vec![SeatResult::Win; rec.results.len()];
    }
    assert!(matches!(
        encode::<Durak>(&opts, &frame, &lie),
        Err(CompactError::WrongEnding { .. })
    ));

    // A game cut short with no fault.
    let mut short = rec.clone();
    short.actions.truncate(3);
    assert!(matches!(
        encode::<Durak>(&opts, &frame, &short),
        Err(CompactError::WrongEnding { .. })
    ));

    // Another deal's seed.
    let mut moved = rec.clone();
    moved.seed ^= 1;
    assert!(matches!(
        encode::<Durak>(&opts, &frame, &moved),
        Err(CompactError::NotOfMatch { .. })
    ));
}

#[test]
fn damaged_bytes_give_an_error_not_a_panic() {
    let (opts, schedule, b) = durak_game();
    let frame = frame(&schedule, &b, 9);
    let mut rng = GameRng::new(3);
    let mut rec = play::<Durak>(&opts, &frame, 1, &mut rng);
    rec.builds[0] = "ffffffffffff".into();
    let bytes = encode::<Durak>(&opts, &frame, &rec).expect("encodes");
    for cut in 0..bytes.len() {
        assert!(
            decode::<Durak>(&opts, &frame, 1, &bytes[..cut]).is_err(),
            "a record cut at {cut} of {} bytes was read",
            bytes.len()
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(decode::<Durak>(&opts, &frame, 1, &longer).is_err());
    // Every single-byte change: an error or some record, never a panic or a huge allocation.
    for i in 0..bytes.len() {
        for v in [0u8, 1, 0x7f, 0x80, 0xff] {
            let mut d = bytes.clone();
            d[i] = v;
            let _ = decode::<Durak>(&opts, &frame, 1, &d);
        }
    }
    // A count that claims more than the input holds.
    let huge = [1u8, 0, 0xff, 0xff, 0xff, 0xff, 0x0f];
    assert!(decode::<Durak>(&opts, &frame, 1, &huge).is_err());
}

/// Not a timed test (it asserts nothing about time): prints what encoding and decoding cost
/// per Durak game, the server's price for checking and storing a reported game
/// (`cargo test --release -p croupier-tournament --test compact -- --nocapture cost`).
#[test]
fn cost_per_game_is_printed() {
    let (opts, schedule, b) = durak_game();
    let frame = frame(&schedule, &b, 5);
    let mut rng = GameRng::new(4);
    let recs: Vec<GameRecord> = (0..schedule.games())
        .map(|i| play::<Durak>(&opts, &frame, i, &mut rng))
        .collect();
    let t = std::time::Instant::now();
    let mut n = 0;
    for _ in 0..50 {
        for rec in &recs {
            let bytes = encode::<Durak>(&opts, &frame, rec).expect("encodes");
            let back = decode::<Durak>(&opts, &frame, rec.index, &bytes).expect("decodes");
            assert_eq!(&back, rec);
            n += 1;
        }
    }
    eprintln!(
        "durak teams: encode + decode {:.1} µs per game (mean of {n})",
        t.elapsed().as_secs_f64() * 1e6 / n as f64
    );
}

/// A record stored before each seat's costliest decision was kept (format 1) still reads,
/// with that figure 0; a format this version does not know is refused.
#[test]
fn a_format_1_record_still_reads() {
    let (opts, schedule, b) = durak_game();
    let frame = frame(&schedule, &b, 9);
    let mut rng = GameRng::new(1);
    let mut rec = play::<Durak>(&opts, &frame, 3, &mut rng);
    assert!(rec.calls.iter().all(|c| c.fuel_max > 0));
    let v2 = encode::<Durak>(&opts, &frame, &rec).expect("encodes");
    assert_eq!(
        decode::<Durak>(&opts, &frame, rec.index, &v2),
        Ok(rec.clone())
    );
    for c in &mut rec.calls {
        c.fuel_max = 0;
    }
    let v2 = encode::<Durak>(&opts, &frame, &rec).expect("encodes");
    // Format 1 is format 2 without each seat's `fuel_max` (here a 0, one byte).
    let varint = |at: &mut usize| {
        let (mut v, mut shift) = (0u64, 0);
        loop {
            let byte = v2[*at];
            *at += 1;
            v |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return v;
            }
            shift += 7;
        }
    };
    let mut at = 2; // format, flags
    varint(&mut at); // actions
    at += varint(&mut at) as usize; // the moves
    varint(&mut at); // decisions
    let seats = varint(&mut at);
    let mut v1 = v2[..at].to_vec();
    v1[0] = 1;
    for _ in 0..seats {
        let from = at;
        for _ in 0..3 {
            varint(&mut at); // decisions, fuel, fuel_unknown
        }
        v1.extend_from_slice(&v2[from..at]);
        assert_eq!(v2[at], 0, "fuel_max");
        at += 1;
    }
    v1.extend_from_slice(&v2[at..]);
    assert_eq!(
        decode::<Durak>(&opts, &frame, rec.index, &v1),
        Ok(rec.clone())
    );
    let mut v3 = v2.clone();
    v3[0] = 3;
    assert!(matches!(
        decode::<Durak>(&opts, &frame, rec.index, &v3),
        Err(CompactError::Damaged { .. })
    ));
}
