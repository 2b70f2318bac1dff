//! Durak ↔ `croupier:agent/durak`.

use super::NONE_BYTE;
use crate::bindings::durak::croupier::agent::durak_types as wit;
use crate::bindings::durak::{Durak as World, DurakPre};
use crate::loader::GameKind;
use crate::sandbox::StoreData;
use croupier_rules::durak::{Durak, Observation, Phase};

impl wit::Host for StoreData {}

fn to_wit(o: Observation) -> wit::Observation {
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
        phase: match o.phase {
            Phase::Lead => wit::Phase::Lead,
            Phase::Defend => wit::Phase::Defend,
            Phase::ThrowIn => wit::Phase::ThrowIn,
            Phase::Over => wit::Phase::Over,
        },
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

super::adapter!(
    Durak,
    GameKind::Durak,
    World,
    DurakPre,
    croupier_agent_durak_agent
);
