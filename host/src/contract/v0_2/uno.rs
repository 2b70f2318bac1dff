//! UNO in contract 0.2.0: hand sizes, scores and colour caps travel in one list of per-seat records, and the known cards in one flat list.

use super::bindings::uno::croupier::agent::uno_types as wit;
use crate::store::StoreData;
use croupier_rules::uno::{Color, Decision, Observation};

impl wit::Host for StoreData {}

crate::contract::shared::uno_enums!();

pub(crate) fn to_wit(o: Observation, spare: Option<wit::Observation>) -> wit::Observation {
    let spare_seats = spare.map(|w| w.seats).unwrap_or_default();
    let seats = crate::contract::shared::refill(
        spare_seats,
        (0..o.players as usize).map(|s| {
            let [r, y, g, b] = o.color_caps.get(s).copied().unwrap_or([255; 4]);
            wit::SeatView {
                hand_size: o.hand_sizes.get(s).copied().unwrap_or(0),
                score: o.scores.get(s).copied().unwrap_or(0),
                color_caps: (r, y, g, b),
            }
        }),
    );
    wit::Observation {
        seat: o.seat,
        players: o.players,
        decision: decision(o.decision),
        hand_no: o.hand_no,
        dealer: o.dealer,
        hand: o.hand.iter().map(|c| c.0).collect(),
        top: o.top.0,
        color: color(o.color),
        direction: o.direction,
        pending: o.pending,
        draw_pile: o.draw_pile,
        discard_pile: o.discard_pile,
        drawn: o.drawn.map(|c| c.0),
        unseen: o.unseen,
        to_act: o.to_act,
        discard: o.discard.iter().map(|c| c.0).collect(),
        turns: o.turns,
        known: o
            .known
            .iter()
            .enumerate()
            .flat_map(|(s, h)| h.iter().map(move |c| (s as u8, c.0)))
            .collect(),
        kind_caps: o.kind_caps.iter().flatten().copied().collect(),
        offender: o.offender,
        wd4: o.wd4.as_ref().map(|w| wit::Wd4Pending {
            offender: w.offender,
            victim: w.victim,
            prev_color: color(w.prev_color),
            prev_top: w.prev_top.0,
            hand_len: w.hand_len,
            hand: w.hand.as_ref().map(|h| h.iter().map(|c| c.0).collect()),
        }),
        seats,
    }
}

super::glue!(uno, uno_types, Uno, UnoPre, croupier_agent_uno_agent);
