//! Durak in contract 0.2.0: per-seat fields travel in one list of records, the bout in another.

use super::bindings::durak::croupier::agent::durak_types as wit;
use crate::store::StoreData;
use croupier_rules::durak::{Observation, Phase};

impl wit::Host for StoreData {}

crate::contract::shared::durak_enums!();

pub(crate) fn to_wit(o: Observation, spare: Option<wit::Observation>) -> wit::Observation {
    let (spare_seats, spare_table) = spare.map(|w| (w.seats, w.table)).unwrap_or_default();
    let at = |v: &[u8], s: usize| v.get(s).copied().unwrap_or(0);
    let seats = crate::contract::shared::refill(
        spare_seats,
        (0..o.players as usize).map(|s| wit::SeatView {
            hand_size: at(&o.hand_sizes, s),
            known: o.known.get(s).map_or(0, |k| k.bits()),
            finish: at(&o.finish, s),
            low_trump_room: at(&o.low_trump_room, s),
        }),
    );
    let table = crate::contract::shared::refill(
        spare_table,
        o.table.iter().enumerate().map(|(i, (a, d))| wit::BoutCard {
            attack: a.code(),
            defence: d.map(|c| c.code()),
            attacker: at(&o.attackers, i),
        }),
    );
    wit::Observation {
        seat: o.seat,
        acting_for: o.acting_for,
        players: o.players,
        teams: o.teams,
        trump: o.trump.code(),
        trump_holder: o.trump_holder,
        talon: o.talon,
        hand: o.hand.bits(),
        out: o.out,
        phase: phase(o.phase),
        attacker: o.attacker,
        defender: o.defender,
        h0: o.h0,
        limit: o.limit,
        taking: o.taking,
        passed: o.passed,
        table,
        shown: o.shown.bits(),
        discard: o.discard.bits(),
        unseen: o.unseen.bits(),
        bout: o.bout,
        leader: o.leader,
        dealer: o.dealer,
        own_known: o.own_known.bits(),
        low_trumps: o.low_trumps.bits(),
        seats,
    }
}

super::glue!(
    durak,
    durak_types,
    Durak,
    DurakPre,
    croupier_agent_durak_agent
);
