//! Durak ↔ `croupier:agent/durak`, in each contract version.

use crate::loader::GameKind;
use croupier_rules::durak::Durak;

super::adapter!(
    Durak,
    GameKind::Durak,
    durak,
    durak_types,
    Durak,
    DurakPre,
    croupier_agent_durak_agent
);

/// The enum conversions, the same in every version; expanded inside each version's module,
/// where `wit` names that version's types.
macro_rules! enums {
    () => {
        fn phase(p: Phase) -> wit::Phase {
            match p {
                Phase::Lead => wit::Phase::Lead,
                Phase::Defend => wit::Phase::Defend,
                Phase::ThrowIn => wit::Phase::ThrowIn,
                Phase::Over => wit::Phase::Over,
            }
        }
    };
}

/// Contract 0.1.0: every per-seat field is its own list.
mod v0_1 {
    use crate::adapters::NONE_BYTE;
    use crate::bindings::v0_1::durak::croupier::agent::durak_types as wit;
    use crate::sandbox::StoreData;
    use croupier_rules::durak::{Observation, Phase};

    impl wit::Host for StoreData {}

    enums!();

    pub(super) fn to_wit(o: Observation) -> wit::Observation {
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
}

/// Contract 0.2.0: per-seat fields travel in one list of records, the bout in another.
mod v0_2 {
    use crate::bindings::v0_2::durak::croupier::agent::durak_types as wit;
    use crate::sandbox::StoreData;
    use croupier_rules::durak::{Observation, Phase};

    impl wit::Host for StoreData {}

    enums!();

    pub(super) fn to_wit(o: Observation, spare: Option<wit::Observation>) -> wit::Observation {
        let (spare_seats, spare_table) = spare.map(|w| (w.seats, w.table)).unwrap_or_default();
        let at = |v: &[u8], s: usize| v.get(s).copied().unwrap_or(0);
        let seats = super::super::refill(
            spare_seats,
            (0..o.players as usize).map(|s| wit::SeatView {
                hand_size: at(&o.hand_sizes, s),
                known: o.known.get(s).map_or(0, |k| k.bits()),
                finish: at(&o.finish, s),
                low_trump_room: at(&o.low_trump_room, s),
            }),
        );
        let table = super::super::refill(
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
}
