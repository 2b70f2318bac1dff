//! Durak in contract 0.1.0: every per-seat field is its own list.

use super::NONE_BYTE;
use super::bindings::durak::croupier::agent::durak_types as wit;
use crate::store::StoreData;
use croupier_rules::durak::{Observation, Phase};

impl wit::Host for StoreData {}

crate::contract::shared::durak_enums!();

pub(crate) fn to_wit(o: Observation) -> wit::Observation {
    wit::Observation {
        seat: o.seat,
        acting_for: o.acting_for,
        players: o.players,
        teams: o.teams,
        trump: o.trump.code(),
        trump_holder: o.trump_holder,
        talon: o.talon,
        hand: o.hand.bits(),
        hand_sizes: o.hand_sizes,
        out: o.out,
        phase: phase(o.phase),
        attacker: o.attacker,
        defender: o.defender,
        h0: o.h0,
        limit: o.limit,
        taking: o.taking,
        passed: o.passed,
        table: o
            .table
            .iter()
            .flat_map(|(a, d)| [a.code(), d.map_or(NONE_BYTE, |c| c.code())])
            .collect(),
        shown: o.shown.bits(),
        discard: o.discard.bits(),
        known: o.known.iter().map(|s| s.bits()).collect(),
        unseen: o.unseen.bits(),
        bout: o.bout,
        attackers: o.attackers,
        leader: o.leader,
        dealer: o.dealer,
        finish: o.finish,
        own_known: o.own_known.bits(),
        low_trumps: o.low_trumps.bits(),
        low_trump_room: o.low_trump_room,
    }
}

super::glue!(
    durak,
    durak_types,
    Durak,
    DurakPre,
    croupier_agent_durak_agent
);
