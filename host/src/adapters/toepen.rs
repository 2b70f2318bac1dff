//! Toepen ↔ `croupier:agent/toepen`.

use super::Adapter;
use crate::bindings::toepen::croupier::agent::toepen_types as wit;
use crate::bindings::toepen::{Toepen as World, ToepenPre};
use crate::bindings::{Budget, GameInfo};
use crate::loader::GameKind;
use crate::sandbox::{StoreData, add_host_to_linker};
use croupier_rules::toepen::{Decision, Observation, Toepen};
use wasmtime::Store;
use wasmtime::component::{HasSelf, InstancePre, Linker};

impl wit::Host for StoreData {}

fn to_wit(o: &Observation) -> wit::Observation {
    wit::Observation {
        seat: o.seat,
        players: o.players,
        decision: match o.decision {
            Decision::Laundry => wit::Decision::Laundry,
            Decision::LaundryChallenge => wit::Decision::LaundryChallenge,
            Decision::Poverty => wit::Decision::Poverty,
            Decision::Play => wit::Decision::Play,
            Decision::KnockWindow => wit::Decision::KnockWindow,
            Decision::KnockResponse => wit::Decision::KnockResponse,
            Decision::Over => wit::Decision::Over,
        },
        round: o.round,
        dealer: o.dealer,
        hand: o.hand.bits(),
        scores: o.scores.clone(),
        eliminated: o.eliminated,
        live: o.live,
        stake: o.stake,
        last_knocker: o.last_knocker,
        stock: o.stock,
        trick_no: o.trick_no,
        leader: o.leader,
        trick: o.trick.iter().flat_map(|(s, c)| [*s, c.code()]).collect(),
        trick_winners: o.trick_winners.clone(),
        played: o.played.iter().map(|s| s.bits()).collect(),
        hand_counts: o.hand_counts.clone(),
        voids: o.voids.clone(),
        unseen: o.unseen.bits(),
        own_laundry: o.own_laundry.bits(),
        revealed: o.revealed.bits(),
        to_act: o.to_act,
        dealt: o.dealt,
        fold_stakes: o.fold_stakes.clone(),
        dead: o.dead,
        past_tricks: o
            .past_tricks
            .iter()
            .enumerate()
            .flat_map(|(i, t)| t.iter().flat_map(move |(s, c)| [i as u8, *s, c.code()]))
            .collect(),
        poor: o.poor,
        laundry_done: o.laundry_done,
        claimed: o.claimed,
        white_claims: o.white_claims,
        challenged: o.challenged,
        returned: o.returned,
        revealed_by: o.revealed_by.iter().map(|s| s.bits()).collect(),
        claimant: o.claimant,
        poverty_done: o.poverty_done,
        knock_window: o.knock_window,
        hand_knowers: o.hand_knowers.clone(),
        stock_knowers: o.stock_knowers.iter().flat_map(|(b, m)| [*b, *m]).collect(),
        known_cards: o.known_cards.iter().map(|s| s.bits()).collect(),
        known_stock: o.known_stock.iter().map(|(b, s)| (*b, s.bits())).collect(),
        eliminated_at: o.eliminated_at.clone(),
    }
}

impl Adapter for Toepen {
    const KIND: GameKind = GameKind::Toepen;
    type Bindings = World;
    type Pre = ToepenPre<StoreData>;

    fn add_to_linker(linker: &mut Linker<StoreData>) -> wasmtime::Result<()> {
        add_host_to_linker(linker)?;
        wit::add_to_linker::<StoreData, HasSelf<StoreData>>(linker, |s| s)
    }
    fn pre(pre: InstancePre<StoreData>) -> wasmtime::Result<Self::Pre> {
        ToepenPre::new(pre)
    }
    fn instantiate(pre: &Self::Pre, store: &mut Store<StoreData>) -> wasmtime::Result<World> {
        pre.instantiate(store)
    }
    fn call_start(
        b: &World,
        store: &mut Store<StoreData>,
        info: &GameInfo,
    ) -> wasmtime::Result<()> {
        b.croupier_agent_toepen_agent().call_start(store, info)
    }
    fn call_decide(
        b: &World,
        store: &mut Store<StoreData>,
        obs: &Observation,
        legal: &[u32],
        budget: Budget,
    ) -> wasmtime::Result<u32> {
        b.croupier_agent_toepen_agent()
            .call_decide(store, &to_wit(obs), legal, budget)
    }
}
