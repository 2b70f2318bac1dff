//! UNO ↔ `croupier:agent/uno`.

use super::Adapter;
use crate::bindings::uno::croupier::agent::uno_types as wit;
use crate::bindings::uno::{Uno as World, UnoPre};
use crate::bindings::{Budget, GameInfo};
use crate::loader::GameKind;
use crate::sandbox::{StoreData, add_host_to_linker};
use croupier_rules::uno::{Color, Decision, Observation, Uno};
use wasmtime::Store;
use wasmtime::component::{HasSelf, InstancePre, Linker};

impl wit::Host for StoreData {}

fn color(c: Color) -> wit::Color {
    match c {
        Color::Red => wit::Color::Red,
        Color::Yellow => wit::Color::Yellow,
        Color::Green => wit::Color::Green,
        Color::Blue => wit::Color::Blue,
    }
}

fn to_wit(o: &Observation) -> wit::Observation {
    wit::Observation {
        seat: o.seat,
        players: o.players,
        decision: match o.decision {
            Decision::ChooseStartColor => wit::Decision::ChooseStartColor,
            Decision::Turn => wit::Decision::Turn,
            Decision::AfterDraw => wit::Decision::AfterDraw,
            Decision::Wd4Challenge => wit::Decision::Wd4Challenge,
            Decision::PenaltyTurn => wit::Decision::PenaltyTurn,
            Decision::UnoCatch => wit::Decision::UnoCatch,
            Decision::Over => wit::Decision::Over,
        },
        hand_no: o.hand_no,
        dealer: o.dealer,
        hand: o.hand.iter().map(|c| c.0).collect(),
        top: o.top.0,
        color: color(o.color),
        direction: o.direction,
        pending: o.pending,
        hand_sizes: o.hand_sizes.clone(),
        draw_pile: o.draw_pile,
        discard_pile: o.discard_pile,
        scores: o.scores.clone(),
        drawn: o.drawn.map(|c| c.0),
        unseen: o.unseen.clone(),
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

impl Adapter for Uno {
    const KIND: GameKind = GameKind::Uno;
    type Bindings = World;
    type Pre = UnoPre<StoreData>;

    fn add_to_linker(linker: &mut Linker<StoreData>) -> wasmtime::Result<()> {
        add_host_to_linker(linker)?;
        wit::add_to_linker::<StoreData, HasSelf<StoreData>>(linker, |s| s)
    }
    fn pre(pre: InstancePre<StoreData>) -> wasmtime::Result<Self::Pre> {
        UnoPre::new(pre)
    }
    fn instantiate(pre: &Self::Pre, store: &mut Store<StoreData>) -> wasmtime::Result<World> {
        pre.instantiate(store)
    }
    fn call_start(
        b: &World,
        store: &mut Store<StoreData>,
        info: &GameInfo,
    ) -> wasmtime::Result<()> {
        b.croupier_agent_uno_agent().call_start(store, info)
    }
    fn call_decide(
        b: &World,
        store: &mut Store<StoreData>,
        obs: &Observation,
        legal: &[u32],
        budget: Budget,
    ) -> wasmtime::Result<u32> {
        b.croupier_agent_uno_agent()
            .call_decide(store, &to_wit(obs), legal, budget)
    }
}
