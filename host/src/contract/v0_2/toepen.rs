//! Toepen in contract 0.2.0: per-seat fields travel in one list of records.

use super::bindings::toepen::croupier::agent::toepen_types as wit;
use crate::store::StoreData;
use croupier_rules::toepen::{Decision, Observation};

impl wit::Host for StoreData {}

crate::contract::shared::toepen_enums!();

pub(crate) fn to_wit(o: Observation, spare: Option<wit::Observation>) -> wit::Observation {
    let spare_seats = spare.map(|w| w.seats).unwrap_or_default();
    let seats = crate::contract::shared::refill(
        spare_seats,
        (0..o.players as usize).map(|s| wit::SeatView {
            score: o.scores.get(s).copied().unwrap_or(0),
            played: o.played.get(s).map_or(0, |c| c.bits()),
            hand_count: o.hand_counts.get(s).copied().unwrap_or(0),
            voids: o.voids.get(s).copied().unwrap_or(0),
            fold_stake: o.fold_stakes.get(s).copied().unwrap_or(0),
            revealed_by: o.revealed_by.get(s).map_or(0, |c| c.bits()),
            hand_knowers: o.hand_knowers.get(s).copied().unwrap_or(0),
            known_cards: o.known_cards.get(s).map_or(0, |c| c.bits()),
            eliminated_at: o.eliminated_at.get(s).copied().unwrap_or(0),
        }),
    );
    wit::Observation {
        seat: o.seat,
        players: o.players,
        decision: decision(o.decision),
        round: o.round,
        dealer: o.dealer,
        hand: o.hand.bits(),
        eliminated: o.eliminated,
        live: o.live,
        stake: o.stake,
        last_knocker: o.last_knocker,
        stock: o.stock,
        trick_no: o.trick_no,
        leader: o.leader,
        trick: o.trick.iter().flat_map(|(s, c)| [*s, c.code()]).collect(),
        trick_winners: o.trick_winners,
        unseen: o.unseen.bits(),
        own_laundry: o.own_laundry.bits(),
        revealed: o.revealed.bits(),
        to_act: o.to_act,
        dealt: o.dealt,
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
        claimant: o.claimant,
        poverty_done: o.poverty_done,
        knock_window: o.knock_window,
        stock_knowers: o.stock_knowers.iter().flat_map(|(b, m)| [*b, *m]).collect(),
        known_stock: o.known_stock.iter().map(|(b, s)| (*b, s.bits())).collect(),
        seats,
    }
}

super::glue!(
    toepen,
    toepen_types,
    Toepen,
    ToepenPre,
    croupier_agent_toepen_agent
);
