//! UNO in contract 0.1.0: every per-seat field is its own list.

use super::bindings::uno::croupier::agent::uno_types as wit;
use crate::store::StoreData;
use croupier_rules::uno::{Color, Decision, Observation};

impl wit::Host for StoreData {}

crate::contract::shared::uno_enums!();

pub(crate) fn to_wit(o: Observation) -> wit::Observation {
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
        hand_sizes: o.hand_sizes,
        draw_pile: o.draw_pile,
        discard_pile: o.discard_pile,
        scores: o.scores,
        drawn: o.drawn.map(|c| c.0),
        unseen: o.unseen,
        to_act: o.to_act,
        discard: o.discard.iter().map(|c| c.0).collect(),
        turns: o.turns,
        known: o
            .known
            .iter()
            .map(|h| h.iter().map(|c| c.0).collect())
            .collect(),
        color_caps: o.color_caps.iter().flatten().copied().collect(),
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
    }
}

super::glue!(uno, uno_types, Uno, UnoPre, croupier_agent_uno_agent);
