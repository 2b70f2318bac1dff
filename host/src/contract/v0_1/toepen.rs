//! Toepen in contract 0.1.0: every per-seat field is its own list.

use super::bindings::toepen::croupier::agent::toepen_types as wit;
use crate::store::StoreData;
use croupier_rules::toepen::{Decision, Observation};

impl wit::Host for StoreData {}

crate::contract::shared::toepen_enums!();

pub(crate) fn to_wit(o: Observation) -> wit::Observation {
    wit::Observation {
        seat: o.seat,
        players: o.players,
        decision: decision(o.decision),
        round: o.round,
        dealer: o.dealer,
        hand: o.hand.bits(),
        scores: o.scores,
        eliminated: o.eliminated,
        live: o.live,
        stake: o.stake,
        last_knocker: o.last_knocker,
        stock: o.stock,
        trick_no: o.trick_no,
        leader: o.leader,
        trick: o.trick.iter().flat_map(|(s, c)| [*s, c.code()]).collect(),
        trick_winners: o.trick_winners,
        played: o.played.iter().map(|s| s.bits()).collect(),
        hand_counts: o.hand_counts,
        voids: o.voids,
        unseen: o.unseen.bits(),
        own_laundry: o.own_laundry.bits(),
        revealed: o.revealed.bits(),
        to_act: o.to_act,
        dealt: o.dealt,
        fold_stakes: o.fold_stakes,
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
        hand_knowers: o.hand_knowers,
        stock_knowers: o.stock_knowers.iter().flat_map(|(b, m)| [*b, *m]).collect(),
        known_cards: o.known_cards.iter().map(|s| s.bits()).collect(),
        known_stock: o.known_stock.iter().map(|(b, s)| (*b, s.bits())).collect(),
        eliminated_at: o.eliminated_at,
    }
}

super::glue!(
    toepen,
    toepen_types,
    Toepen,
    ToepenPre,
    croupier_agent_toepen_agent
);
