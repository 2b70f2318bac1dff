//! Toepen's observation vector and action indices ([`crate::encode`]; docs/learning.md).
//!
//! Actions: `play` 0..52 by card code, then `knock` 52, `no-knock` 53, `stay` 54, `fold` 55,
//! `claim` 56, `claim-white` 57, `no-claim` 58, `challenge` 59, `no-challenge` 60.

use super::{Action, Decision, Options, Toepen};
use crate::cards::Card;
use crate::encode::{Encode, Writer, relative};

impl Encode for Toepen {
    fn num_actions(_opts: &Options) -> usize {
        52 + Action::WORDS.len()
    }

    fn action_index(action: Action) -> usize {
        match action {
            Action::Play(c) => c.code() as usize,
            other => 52 + Action::WORDS.iter().position(|w| *w == other).unwrap_or(0),
        }
    }

    fn index_action(i: usize) -> Option<Action> {
        match i {
            0..52 => Card::from_code(i as u8).map(Action::Play),
            _ => Action::WORDS.get(i - 52).copied(),
        }
    }

    fn write(obs: &super::Observation, opts: &Options, w: &mut Writer) {
        let n = obs.players as usize;
        let me = obs.seat;
        let rel = |s| relative(s, me, n);
        w.cards("hand", obs.hand);
        w.cards("unseen", obs.unseen);
        w.cards("own_laundry", obs.own_laundry);
        w.cards("revealed", obs.revealed);
        // Cards each seat has played this round, by relative seat.
        let played = w.section("played", 52 * n);
        for (s, cards) in obs.played.iter().enumerate().take(n) {
            for c in *cards {
                played[52 * rel(s as u8) + c.code() as usize] = 1.0;
            }
        }
        // The trick in progress: each card by the relative seat that played it.
        let trick = w.section("trick", 52 * n);
        for (s, c) in &obs.trick {
            trick[52 * rel(*s) + c.code() as usize] = 1.0;
        }
        w.one_hot(
            "led_suit",
            4,
            obs.trick.first().map(|(_, c)| c.suit() as usize),
        );
        let decision = match obs.decision {
            Decision::Laundry => 0,
            Decision::LaundryChallenge => 1,
            Decision::Poverty => 2,
            Decision::Play => 3,
            Decision::KnockWindow => 4,
            Decision::KnockResponse => 5,
            Decision::Over => 6,
        };
        w.one_hot("decision", 7, Some(decision));
        let limit = opts.limit.max(1) as f32;
        w.per_seat("scores", me, n, |s| {
            obs.scores.get(s).copied().unwrap_or(0) as f32 / limit
        });
        w.scalar("stake", obs.stake as f32 / limit);
        w.seat_bits("live", me, n, u16::from(obs.live));
        w.seat_bits("eliminated", me, n, u16::from(obs.eliminated));
        w.per_seat("folded", me, n, |s| {
            f32::from(obs.fold_stakes.get(s).is_some_and(|f| *f > 0))
        });
        w.seat("last_knocker", me, n, obs.last_knocker);
        w.one_hot("leader", n, Some(rel(obs.leader)));
        w.one_hot("dealer", n, Some(rel(obs.dealer)));
        w.one_hot("trick_no", 4, Some(usize::from(obs.trick_no.max(1)) - 1));
        w.scalar("stock", f32::from(obs.stock) / 32.0);
        w.per_seat("hand_counts", me, n, |s| {
            f32::from(obs.hand_counts.get(s).copied().unwrap_or(0)) / 4.0
        });
        w.per_seat("tricks_won", me, n, |s| {
            obs.trick_winners
                .iter()
                .filter(|t| **t as usize == s)
                .count() as f32
                / 4.0
        });
        let voids = w.section("voids", 4 * n);
        for (s, v) in obs.voids.iter().enumerate().take(n) {
            for suit in 0..4 {
                if v >> suit & 1 == 1 {
                    voids[4 * rel(s as u8) + suit] = 1.0;
                }
            }
        }
        w.seat_bits("poor", me, n, u16::from(obs.poor));
        w.seat_bits("claimed", me, n, u16::from(obs.claimed));
        w.seat_bits("challenged", me, n, u16::from(obs.challenged));
        w.seat("claimant", me, n, obs.claimant);
    }
}
