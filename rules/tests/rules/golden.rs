//! Determinism across machines and versions (docs/rules/README.md#randomness-and-replay): literal
//! deals and whole recorded games, so that a change to the random stream (another ChaCha variant,
//! another shuffle), to dealing or to any rule fails here instead of silently changing every
//! replay.
//!
//! The golden records are `tests/golden/<game>-<preset>.json`: for every preset of every
//! game, one game with a fixed seed where every decision is a uniform choice among the
//! legal actions drawn from a fixed `GameRng`. Each holds the action codes
//! (`Game::encode_action`), the outcome and a digest of the event log.
//!
//! They change only on purpose. After a deliberate change to the rules or the stream,
//! rewrite them with
//!
//! ```text
//! CROUPIER_BLESS=1 cargo test -p croupier-rules --release --test rules golden::
//! ```
//!
//! and say in the commit why every recorded game changed.

use croupier_rules::durak::Durak;
use croupier_rules::toepen::Toepen;
use croupier_rules::uno::Uno;
use croupier_rules::{Game, GameRng, Rules};
use serde_json::{Value, json};
use std::path::PathBuf;

/// The seed of every recorded game.
const SEED: u64 = 20_240_601;
/// The seed of the policy's own stream (not the game's: the game draws from its state).
const POLICY_SEED: u64 = 0x601D_E4EC;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// FNV-1a, 64 bits: our own, so the digest is the same on every machine and version.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

/// Plays the recorded game of one preset and returns its record.
fn record<G: Game>(preset: &str) -> Value {
    let opts = G::Options::preset(preset).expect("preset");
    let mut game = G::new(&opts, SEED).expect("new");
    let mut policy = GameRng::new(POLICY_SEED);
    let mut legal = Vec::new();
    let mut actions = Vec::new();
    while game.to_act().is_some() {
        assert!(actions.len() < 100_000, "{} {preset}: no end", G::NAME);
        game.legal_actions(&mut legal);
        let a = legal[policy.below(legal.len())];
        game.apply(a).expect("a listed action applies");
        actions.push(G::encode_action(a));
    }
    let outcome = game.outcome().expect("a finished game has an outcome");
    let events = serde_json::to_string(game.events()).expect("events serialize");
    json!({
        "game": G::NAME,
        "preset": preset,
        "options": opts.option_pairs()
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect::<serde_json::Map<_, _>>(),
        "seed": SEED,
        "policy_seed": POLICY_SEED,
        "decisions": actions.len(),
        "events": game.events().len(),
        "events_fnv1a": format!("{:016x}", fnv1a(events.as_bytes())),
        "outcome": outcome,
        "actions": actions,
    })
}

/// The record as text: pretty, but with the action codes 20 to a line so that a diff of a
/// re-blessed file stays readable.
fn to_text(v: &Value) -> String {
    let mut head = v.clone();
    let actions = head
        .as_object_mut()
        .and_then(|o| o.remove("actions"))
        .and_then(|a| a.as_array().cloned())
        .unwrap_or_default();
    let mut s = serde_json::to_string_pretty(&head).expect("record serializes");
    s.truncate(s.len() - 2); // the closing "\n}"
    s.push_str(",\n  \"actions\": [");
    for (i, chunk) in actions.chunks(20).enumerate() {
        s.push_str(if i == 0 { "\n    " } else { ",\n    " });
        let line: Vec<String> = chunk.iter().map(|c| c.to_string()).collect();
        s.push_str(&line.join(", "));
    }
    s.push_str("\n  ]\n}\n");
    s
}

/// Where two records first differ, for the failure message.
fn first_difference(want: &Value, got: &Value) -> String {
    let (Some(w), Some(g)) = (want.as_object(), got.as_object()) else {
        return "not objects".into();
    };
    for (k, wv) in w {
        let gv = g.get(k).unwrap_or(&Value::Null);
        if wv == gv {
            continue;
        }
        if let (Some(wa), Some(ga)) = (wv.as_array(), gv.as_array()) {
            let i = wa.iter().zip(ga).take_while(|(a, b)| a == b).count();
            return format!(
                "`{k}` first differs at index {i}: recorded {:?}, now {:?}",
                wa.get(i),
                ga.get(i)
            );
        }
        return format!("`{k}`: recorded {wv}, now {gv}");
    }
    "a field was added".into()
}

/// Compares (or, with `CROUPIER_BLESS=1`, rewrites) the record of every preset of `G`.
fn check_game<G: Game>() {
    let bless = std::env::var("CROUPIER_BLESS").is_ok_and(|v| v == "1");
    for p in G::Options::presets() {
        let got = record::<G>(p.name);
        let path = golden_dir().join(format!("{}-{}.json", G::NAME, p.name));
        if bless {
            std::fs::create_dir_all(golden_dir()).expect("create tests/golden");
            std::fs::write(&path, to_text(&got)).expect("write golden record");
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; write it on purpose with CROUPIER_BLESS=1 (see the top of this file)",
                path.display()
            )
        });
        let want: Value = serde_json::from_str(&text).expect("golden record parses");
        assert!(
            want == got,
            "{} {}: the recorded game changed ({}): the stream, the deal or a rule changed; \
             if on purpose, re-bless (see the top of tests/rules/golden.rs)",
            G::NAME,
            p.name,
            first_difference(&want, &got)
        );
    }
}

#[test]
fn golden_records_durak() {
    check_game::<Durak>();
}

#[test]
fn golden_records_toepen() {
    check_game::<Toepen>();
}

#[test]
fn golden_records_uno() {
    check_game::<Uno>();
}

/// Every preset has its record, and no record is left over from a preset that is gone.
#[test]
fn golden_records_cover_every_preset() {
    if std::env::var("CROUPIER_BLESS").is_ok_and(|v| v == "1") {
        return; // the other tests are writing them
    }
    let mut want: Vec<String> = Vec::new();
    let mut add = |game: &str, presets: &[croupier_rules::Preset]| {
        want.extend(presets.iter().map(|p| format!("{game}-{}.json", p.name)));
    };
    add(Durak::NAME, croupier_rules::durak::Options::presets());
    add(Toepen::NAME, croupier_rules::toepen::Options::presets());
    add(Uno::NAME, croupier_rules::uno::Options::presets());
    want.sort();
    let mut have: Vec<String> = std::fs::read_dir(golden_dir())
        .expect("tests/golden exists")
        .map(|e| {
            e.expect("dir entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".json"))
        .collect();
    have.sort();
    assert_eq!(have, want);
}

fn names<I: IntoIterator<Item = T>, T: ToString>(cards: I) -> Vec<String> {
    cards.into_iter().map(|c| c.to_string()).collect()
}

/// The deal of one seed per game, as literal cards.
#[test]
fn dealt_hands_are_pinned() {
    let d = Durak::new(
        &croupier_rules::durak::Options::preset("classic").unwrap(),
        42,
    )
    .unwrap();
    assert_eq!(
        names(d.hand(0).iter()),
        ["6C", "6D", "7D", "10D", "JD", "7S"]
    );
    assert_eq!(
        names(d.hand(1).iter()),
        ["7C", "KC", "8D", "QD", "7H", "KH"]
    );
    assert_eq!(d.trump_card().to_string(), "JS");

    let t = Toepen::new(
        &croupier_rules::toepen::Options::preset("standard").unwrap(),
        42,
    )
    .unwrap();
    let hands: Vec<Vec<String>> = (0..4).map(|s| names(t.hand(s).iter())).collect();
    assert_eq!(
        hands,
        [
            ["KD", "9H", "AH", "10S"],
            ["10C", "AC", "JH", "KS"],
            ["JC", "10D", "8S", "JS"],
            ["JD", "8H", "10H", "7S"],
        ]
    );
    assert_eq!(t.dealer(), 1);

    let u = Uno::new(
        &croupier_rules::uno::Options::preset("official").unwrap(),
        42,
    )
    .unwrap();
    let hands: Vec<Vec<String>> = (0..4).map(|s| names(u.hand(s))).collect();
    assert_eq!(
        hands,
        [
            ["R6", "Y2", "Y5", "Y9", "GRev", "B2", "B3"],
            ["Y7", "YRev", "G5", "GD2", "B8", "BRev", "BD2"],
            ["R0", "R5", "YRev", "G1", "G5", "B3", "W"],
            ["R8", "Y1", "Y2", "Y4", "YSkip", "B2", "BSkip"],
        ]
    );
    assert_eq!(u.top_card().to_string(), "R9");
}
