//! The probe's guest: each export does the least an agent could do with what it receives
//! (the first legal action, plus something read from the input so that it is not dead).

wit_bindgen::generate!({
    path: "../wit",
    world: "probe-world",
});

use croupier::probe::types::Event;
use croupier::probe::view::{Obs, current};
use exports::croupier::probe::probe::{Budget, FlatObservation, Guest, Observation};

// (e): the rules crate's wire format, as contract 0.3.0's SDK decodes it.
use croupier_rules::wire as codec;

use croupier_rules::durak::Phase;
use croupier_rules::{Card, CardSet};
use std::cell::RefCell;

thread_local! {
    /// The previous decision's observation, whose vectors the next one refills (as the SDK does).
    static SPARE: RefCell<croupier_rules::durak::Observation> =
        RefCell::new(croupier_rules::wire::Item::blank());
}

/// 0.2.0's record into the rules crate's observation, as the SDK's glue does it.
fn convert(w: &Observation, o: &mut croupier_rules::durak::Observation) {
    use croupier::probe::types::Phase as W;
    let card = |c: u8| Card::from_code(c).unwrap_or(Card::from_code(0).expect("card 0"));
    o.seat = w.seat;
    o.acting_for = w.acting_for;
    o.players = w.players;
    o.teams = w.teams;
    o.trump = card(w.trump);
    o.trump_suit = o.trump.suit();
    o.trump_holder = w.trump_holder;
    o.talon = w.talon;
    o.hand = CardSet(w.hand);
    o.out = w.out;
    o.phase = match w.phase {
        W::Lead => Phase::Lead,
        W::Defend => Phase::Defend,
        W::ThrowIn => Phase::ThrowIn,
        W::Over => Phase::Over,
    };
    o.attacker = w.attacker;
    o.defender = w.defender;
    o.h0 = w.h0;
    o.limit = w.limit;
    o.taking = w.taking;
    o.passed = w.passed;
    o.table.clear();
    o.table.extend(
        w.table
            .iter()
            .map(|b| (card(b.attack), b.defence.and_then(Card::from_code))),
    );
    o.attackers.clear();
    o.attackers.extend(w.table.iter().map(|b| b.attacker));
    o.shown = CardSet(w.shown);
    o.discard = CardSet(w.discard);
    o.unseen = CardSet(w.unseen);
    o.bout = w.bout;
    o.leader = w.leader;
    o.dealer = w.dealer;
    o.own_known = CardSet(w.own_known);
    o.low_trumps = CardSet(w.low_trumps);
    o.hand_sizes.clear();
    o.hand_sizes.extend(w.seats.iter().map(|s| s.hand_size));
    o.known.clear();
    o.known.extend(w.seats.iter().map(|s| CardSet(s.known)));
    o.finish.clear();
    o.finish.extend(w.seats.iter().map(|s| s.finish));
    o.low_trump_room.clear();
    o.low_trump_room
        .extend(w.seats.iter().map(|s| s.low_trump_room));
}

struct Probe;

fn first(legal: &[u32]) -> u32 {
    legal.first().copied().unwrap_or(0)
}

fn touch(o: &Observation) -> u32 {
    (o.hand as u32) ^ o.seats.len() as u32 ^ o.table.len() as u32
}

impl Guest for Probe {
    fn nothing() -> u32 {
        7
    }

    fn legal(legal: Vec<u32>) -> u32 {
        first(&legal)
    }

    fn snapshot(obs: Observation, legal: Vec<u32>, budget: Budget) -> u32 {
        let x = SPARE.with_borrow_mut(|o| {
            convert(&obs, o);
            o.hand.bits() as u32 ^ o.table.len() as u32
        });
        first(&legal) ^ x ^ budget.millis
    }

    fn packed(obs: Vec<u8>, legal: Vec<u32>, budget: Budget) -> u32 {
        let x = SPARE.with_borrow_mut(|o| match codec::decode(&obs, o) {
            Some(()) => o.hand.bits() as u32 ^ o.table.len() as u32,
            None => u32::MAX,
        });
        first(&legal) ^ x ^ budget.millis
    }

    fn flat(obs: FlatObservation, legal: Vec<u32>, budget: Budget) -> u32 {
        first(&legal) ^ (obs.hand as u32) ^ obs.s3.hand_size as u32 ^ budget.millis
    }

    fn event_codes(events: Vec<u32>, legal: Vec<u32>, budget: Budget) -> u32 {
        first(&legal) ^ events.len() as u32 ^ budget.millis
    }

    fn events(events: Vec<Event>, legal: Vec<u32>, budget: Budget) -> u32 {
        let tags: u32 = events
            .iter()
            .map(|e| match e {
                Event::Take(s) | Event::Pass(s) | Event::Out(s) => *s as u32,
                Event::Hand((_, c)) | Event::Drew((_, c)) | Event::Lead((_, c)) => *c as u32,
                _ => 1,
            })
            .sum();
        first(&legal) ^ tags ^ budget.millis
    }

    fn postcard(obs: Vec<u8>, legal: Vec<u32>, budget: Budget) -> u32 {
        let x = match postcard::from_bytes::<croupier_rules::durak::Observation>(&obs) {
            // A fresh value every decision, dropped after it: serde has no refill.
            Ok(o) => o.hand.bits() as u32 ^ o.table.len() as u32,
            Err(_) => u32::MAX,
        };
        first(&legal) ^ x ^ budget.millis
    }

    fn packed_all(input: Vec<u8>, budget: Budget) -> u32 {
        // The legal actions go last: their count is the final byte, each action 4 bytes before it.
        let Some((&n, rest)) = input.split_last() else {
            return u32::MAX;
        };
        let Some(cut) = rest.len().checked_sub(4 * n as usize) else {
            return u32::MAX;
        };
        let (obs, legal) = rest.split_at(cut);
        let first = legal
            .first_chunk::<4>()
            .map_or(0, |b| u32::from_le_bytes(*b));
        let x = SPARE.with_borrow_mut(|o| match codec::decode(obs, o) {
            Some(()) => o.hand.bits() as u32 ^ o.table.len() as u32,
            None => u32::MAX,
        });
        first ^ x ^ budget.millis
    }

    fn handle(obs: &Obs, legal: Vec<u32>, budget: Budget, reads: u8) -> u32 {
        let mut x = 0u32;
        if reads == 255 {
            x ^= touch(&obs.all());
        } else {
            for i in 0..reads {
                x ^= match i % 6 {
                    0 => obs.hand() as u32,
                    1 => obs.trump() as u32,
                    2 => obs.phase_code() as u32,
                    3 => obs.table_attack() as u32,
                    4 => obs.table_defence() as u32,
                    _ => obs.hand_size(i % 4) as u32,
                };
            }
        }
        first(&legal) ^ x ^ budget.millis
    }

    fn pull(legal: Vec<u32>, budget: Budget, pull: bool) -> u32 {
        let x = if pull { touch(&current()) } else { 0 };
        first(&legal) ^ x ^ budget.millis
    }
}

export!(Probe);
