//! The observation on the wire (contract 0.3.0): every observation of every preset of every
//! game decodes to itself, into a fresh value and into the previous decision's (whose lists
//! are refilled); every cut or extended encoding is refused; damaged bytes never panic.

use croupier_rules::durak::Durak;
use croupier_rules::toepen::Toepen;
use croupier_rules::uno::Uno;
use croupier_rules::wire::{Wire, decode, encode};
use croupier_rules::{Game, GameRng, Rules};
use std::fmt::Debug;

/// Plays `games` random games of each preset and checks every observation of every seat.
fn round_trips<G: Game>(games: u64) -> usize
where
    G::Observation: Wire + Clone + PartialEq + Debug,
{
    let mut checked = 0;
    let mut bytes = Vec::new();
    let mut legal = Vec::new();
    for preset in <G::Options as Rules>::presets() {
        let opts = <G::Options as Rules>::preset(preset.name).expect("preset");
        for seed in 0..games {
            let mut game = G::new(&opts, seed).expect("deal");
            let mut rng = GameRng::new(seed);
            // The previous observation of each seat: the value the SDK decodes into.
            let mut spare: Vec<G::Observation> = (0..game.num_players() as u8)
                .map(|s| game.observe(s))
                .collect();
            loop {
                for s in 0..game.num_players() as u8 {
                    let obs = game.observe(s);
                    encode(&obs, &mut bytes);
                    let at = format!("{} seed {seed} seat {s}", preset.name);
                    decode(&bytes, &mut spare[s as usize])
                        .unwrap_or_else(|| panic!("{at}: does not decode"));
                    assert_eq!(spare[s as usize], obs, "{at}");
                    checked += 1;
                }
                if game.to_act().is_none() {
                    break;
                }
                game.legal_actions(&mut legal);
                game.apply(legal[rng.below(legal.len())]).expect("legal");
            }
        }
    }
    checked
}

/// Every strict prefix and the encoding plus one byte are refused; every single-byte change
/// decodes or is refused without a panic.
fn refuses_damage<G: Game>()
where
    G::Observation: Wire + Clone + PartialEq + Debug,
{
    let mut bytes = Vec::new();
    let mut legal = Vec::new();
    for preset in <G::Options as Rules>::presets() {
        let opts = <G::Options as Rules>::preset(preset.name).expect("preset");
        let mut game = G::new(&opts, 3).expect("deal");
        let mut rng = GameRng::new(3);
        // A state some way into the game, where lists are not empty.
        for _ in 0..12 {
            if game.to_act().is_none() {
                break;
            }
            game.legal_actions(&mut legal);
            game.apply(legal[rng.below(legal.len())]).expect("legal");
        }
        let obs = game.observe(0);
        encode(&obs, &mut bytes);
        let mut into = obs.clone();
        for cut in 0..bytes.len() {
            assert!(
                decode(&bytes[..cut], &mut into).is_none(),
                "{}: {cut} of {} bytes decoded",
                preset.name,
                bytes.len()
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(
            decode(&longer, &mut into).is_none(),
            "{}: a trailing byte",
            preset.name
        );
        for i in 0..bytes.len() {
            for flip in [1u8, 0x80, 0xFF] {
                let mut bad = bytes.clone();
                bad[i] ^= flip;
                let _ = decode(&bad, &mut into);
            }
        }
    }
}

#[test]
fn durak_observations_round_trip() {
    assert!(round_trips::<Durak>(4) > 1000);
    refuses_damage::<Durak>();
}

#[test]
fn toepen_observations_round_trip() {
    assert!(round_trips::<Toepen>(3) > 1000);
    refuses_damage::<Toepen>();
}

#[test]
fn uno_observations_round_trip() {
    assert!(round_trips::<Uno>(2) > 1000);
    refuses_damage::<Uno>();
}

/// A list length far beyond the input is refused before anything is reserved.
#[test]
fn a_hostile_list_length_is_refused() {
    let mut v: Vec<u64> = Vec::new();
    assert!(decode(&[0xFF, 0xFF, 1, 2, 3], &mut v).is_none());
    assert!(v.capacity() < 16, "reserved {}", v.capacity());
    assert!(
        decode(
            &[2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0],
            &mut v
        )
        .is_some()
    );
    assert_eq!(v, [1, 2]);
}

/// The format is pinned: one small value's bytes, written out, so that a change to the
/// encoding (which is a change of contract) cannot pass unnoticed.
#[test]
fn the_format_is_pinned() {
    let mut out = Vec::new();
    encode(&(Some(7u8), vec![0x0102u16, 3]), &mut out);
    assert_eq!(out, [1, 7, 2, 0, 2, 1, 3, 0]);
    encode(&croupier_rules::CardSet(1 << 51 | 1), &mut out);
    assert_eq!(out, [1, 0, 0, 0, 0, 0, 8, 0]);
}
