//! Durak's observation vector and action indices ([`crate::encode`]; docs/learning.md).
//!
//! Actions: `lead` 0..52, `transfer` 52..104, `show` (a trump shown to transfer) 104..156,
//! `throw` 156..208 (each by card code), `take` 208, `pass` 209, a multiple lead 210..418
//! (`210 + 16 * (rank - 2) + suit mask`), then `beat` from 418: `418 + 52 * slot + card` for
//! the table slots below `bout_cap`.

use super::{Action, Durak, Options, Phase};
use crate::cards::{Card, CardSet, Suit};
use crate::encode::{Encode, Writer, relative};

const TAKE: usize = 208;
const PASS: usize = 209;
const LEAD_MANY: usize = 210;
const BEAT: usize = LEAD_MANY + 13 * 16;

impl Encode for Durak {
    fn num_actions(opts: &Options) -> usize {
        BEAT + 52 * opts.bout_cap as usize
    }

    fn action_index(action: Action) -> usize {
        let code = |c: Card| c.code() as usize;
        match action {
            Action::Lead(c) => code(c),
            Action::Transfer(c) => 52 + code(c),
            Action::ShowTrumpTransfer(c) => 104 + code(c),
            Action::ThrowIn(c) => 156 + code(c),
            Action::Take => TAKE,
            Action::Pass => PASS,
            Action::LeadMany(cards) => {
                let rank = cards.first().map_or(2, Card::rank) as usize;
                let suits = cards.iter().fold(0, |m, c| m | 1 << c.suit() as usize);
                LEAD_MANY + 16 * (rank - 2) + suits
            }
            Action::Beat { slot, card } => BEAT + 52 * slot as usize + code(card),
        }
    }

    fn index_action(i: usize) -> Option<Action> {
        let card = |c: usize| Card::from_code(c as u8);
        Some(match i {
            0..52 => Action::Lead(card(i)?),
            52..104 => Action::Transfer(card(i - 52)?),
            104..156 => Action::ShowTrumpTransfer(card(i - 104)?),
            156..208 => Action::ThrowIn(card(i - 156)?),
            TAKE => Action::Take,
            PASS => Action::Pass,
            LEAD_MANY..BEAT => {
                let (rank, suits) = ((i - LEAD_MANY) / 16 + 2, (i - LEAD_MANY) % 16);
                let cards: CardSet = (0..4)
                    .filter(|s| suits >> s & 1 == 1)
                    .filter_map(|s| Suit::from_index(s as u8))
                    .map(|s| Card::new(rank as u8, s))
                    .collect();
                if cards.len() < 2 {
                    return None;
                }
                Action::LeadMany(cards)
            }
            _ => {
                let slot = u8::try_from((i - BEAT) / 52).ok()?;
                Action::Beat {
                    slot,
                    card: card((i - BEAT) % 52)?,
                }
            }
        })
    }

    fn write(obs: &super::Observation, opts: &Options, w: &mut Writer) {
        let n = obs.players as usize;
        let me = obs.seat;
        let rel = |s| relative(s, me, n);
        w.cards("hand", obs.hand);
        w.cards("own_known", obs.own_known);
        // What this seat knows of each other hand, by relative seat 1..n.
        let known = w.section("known", 52 * n.saturating_sub(1));
        for (s, cards) in obs.known.iter().enumerate() {
            let r = rel(s as u8);
            if r == 0 {
                continue;
            }
            for c in *cards {
                known[52 * (r - 1) + c.code() as usize] = 1.0;
            }
        }
        w.cards("discard", obs.discard);
        w.cards("unseen", obs.unseen);
        w.cards("shown", obs.shown);
        w.cards("low_trumps", obs.low_trumps);
        w.one_hot("trump", 52, Some(obs.trump.code() as usize));
        w.one_hot("trump_suit", 4, Some(obs.trump_suit as usize));
        w.seat("trump_holder", me, n, obs.trump_holder);
        // The bout: slot by slot, its attack card and its defence card.
        let cap = opts.bout_cap as usize;
        let table = w.section("table", 104 * cap);
        for (slot, (attack, defence)) in obs.table.iter().enumerate().take(cap) {
            table[104 * slot + attack.code() as usize] = 1.0;
            if let Some(d) = defence {
                table[104 * slot + 52 + d.code() as usize] = 1.0;
            }
        }
        let phase = match obs.phase {
            Phase::Lead => 0,
            Phase::Defend => 1,
            Phase::ThrowIn => 2,
            Phase::Over => 3,
        };
        w.one_hot("phase", 4, Some(phase));
        w.one_hot("attacker", n, Some(rel(obs.attacker)));
        w.one_hot("defender", n, Some(rel(obs.defender)));
        w.one_hot("acting_for", n, Some(rel(obs.acting_for)));
        w.one_hot("leader", n, Some(rel(obs.leader)));
        w.per_seat("hand_sizes", me, n, |s| {
            f32::from(obs.hand_sizes.get(s).copied().unwrap_or(0)) / 6.0
        });
        w.seat_bits("out", me, n, u16::from(obs.out));
        w.seat_bits("passed", me, n, u16::from(obs.passed));
        w.scalar("talon", f32::from(obs.talon) / 36.0);
        // Attack cards the bout may still take.
        let room = (f32::from(obs.limit) - obs.table.len() as f32).max(0.0);
        w.scalar("room", room / 6.0);
        w.scalar("taking", f32::from(u8::from(obs.taking)));
        w.scalar("teams", f32::from(u8::from(obs.teams)));
    }
}
