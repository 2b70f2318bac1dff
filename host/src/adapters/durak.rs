//! Durak ↔ `croupier:agent/durak`.

use super::{Adapter, NONE_BYTE};
use crate::bindings::durak::croupier::agent::durak_types as wit;
use crate::bindings::durak::{Durak as World, DurakPre};
use crate::bindings::{Budget, GameInfo};
use crate::loader::GameKind;
use crate::sandbox::{StoreData, add_host_to_linker};
use croupier_rules::durak::{Durak, Observation, Phase};
use wasmtime::Store;
use wasmtime::component::{HasSelf, InstancePre, Linker};

impl wit::Host for StoreData {}

fn to_wit(o: &Observation) -> wit::Observation {
    wit::Observation {
        seat: o.seat,
        acting_for: o.acting_for,
        players: o.players,
        teams: o.teams,
        trump: o.trump.code(),
        trump_holder: o.trump_holder,
        talon: o.talon,
        hand: o.hand.bits(),
        hand_sizes: o.hand_sizes.clone(),
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
        attackers: o.attackers.clone(),
        leader: o.leader,
        dealer: o.dealer,
        finish: o.finish.clone(),
        own_known: o.own_known.bits(),
        low_trumps: o.low_trumps.bits(),
        low_trump_room: o.low_trump_room.clone(),
    }
}

impl Adapter for Durak {
    const KIND: GameKind = GameKind::Durak;
    type Bindings = World;
    type Pre = DurakPre<StoreData>;

    fn add_to_linker(linker: &mut Linker<StoreData>) -> wasmtime::Result<()> {
        add_host_to_linker(linker)?;
        wit::add_to_linker::<StoreData, HasSelf<StoreData>>(linker, |s| s)
    }
    fn pre(pre: InstancePre<StoreData>) -> wasmtime::Result<Self::Pre> {
        DurakPre::new(pre)
    }
    fn instantiate(pre: &Self::Pre, store: &mut Store<StoreData>) -> wasmtime::Result<World> {
        pre.instantiate(store)
    }
    fn call_start(
        b: &World,
        store: &mut Store<StoreData>,
        info: &GameInfo,
    ) -> wasmtime::Result<()> {
        b.croupier_agent_durak_agent().call_start(store, info)
    }
    fn call_decide(
        b: &World,
        store: &mut Store<StoreData>,
        obs: &Observation,
        legal: &[u32],
        budget: Budget,
    ) -> wasmtime::Result<u32> {
        b.croupier_agent_durak_agent()
            .call_decide(store, &to_wit(obs), legal, budget)
    }
}
