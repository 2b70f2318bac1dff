//! UNO's observation vector and action indices ([`crate::encode`]; docs/learning.md).
//!
//! A played card's target `t` is its face for a coloured card (0..52, `13 * colour + kind`),
//! `52 + colour named` for a Wild and `56 + colour named` for a Wild Draw Four. Actions:
//! `choose colour` 0..4; `play` `4 + t + 60 * uno` (4..124); `draw` 124; `play drawn`
//! `125 + d + 5 * uno` with `d` 0 for no colour named, else `1 + colour` (125..135); `keep`
//! 135; `challenge` 136; `accept` 137; `stack` `138 + s + 8 * uno` with `s` the Draw Two's
//! colour, or `4 + colour named` for a Wild Draw Four (138..154); `accept penalty` 154;
//! `catch` 155; `no catch` 156.

use super::{Action, Color, Decision, FACES, Options, Uno, UnoCard};
use crate::encode::{Encode, Writer, relative};

const DRAW: usize = 124;
const PLAY_DRAWN: usize = 125;
const KEEP: usize = 135;
const CHALLENGE: usize = 136;
const ACCEPT: usize = 137;
const STACK: usize = 138;
const ACCEPT_PENALTY: usize = 154;
const CATCH: usize = 155;
const NO_CATCH: usize = 156;

/// The target of a played card with the colour it names.
fn target(card: UnoCard, declare: Option<Color>) -> usize {
    let named = declare.map_or(0, |c| c as usize);
    match card {
        UnoCard::WILD => 52 + named,
        UnoCard::WILD_DRAW_FOUR => 56 + named,
        c => c.0 as usize,
    }
}

/// The card and colour named of a target.
fn untarget(t: usize) -> Option<(UnoCard, Option<Color>)> {
    match t {
        0..52 => Some((UnoCard(t as u8), None)),
        52..56 => Some((UnoCard::WILD, Color::from_index((t - 52) as u8))),
        56..60 => Some((UnoCard::WILD_DRAW_FOUR, Color::from_index((t - 56) as u8))),
        _ => None,
    }
}

impl Encode for Uno {
    fn num_actions(_opts: &Options) -> usize {
        NO_CATCH + 1
    }

    fn action_index(action: Action) -> usize {
        match action {
            Action::ChooseColor(c) => c as usize,
            Action::Play { card, declare, uno } => {
                4 + target(card, declare) + 60 * usize::from(uno)
            }
            Action::Draw => DRAW,
            Action::PlayDrawn { declare, uno } => {
                PLAY_DRAWN + declare.map_or(0, |c| 1 + c as usize) + 5 * usize::from(uno)
            }
            Action::Keep => KEEP,
            Action::Challenge => CHALLENGE,
            Action::Accept => ACCEPT,
            Action::Stack { card, declare, uno } => {
                let s = match card {
                    UnoCard::WILD_DRAW_FOUR => 4 + declare.map_or(0, |c| c as usize),
                    c => c.color().map_or(0, |c| c as usize),
                };
                STACK + s + 8 * usize::from(uno)
            }
            Action::AcceptPenalty => ACCEPT_PENALTY,
            Action::CatchUno => CATCH,
            Action::NoCatch => NO_CATCH,
        }
    }

    fn index_action(i: usize) -> Option<Action> {
        Some(match i {
            0..4 => Action::ChooseColor(Color::from_index(i as u8)?),
            4..DRAW => {
                let (card, declare) = untarget((i - 4) % 60)?;
                Action::Play {
                    card,
                    declare,
                    uno: i - 4 >= 60,
                }
            }
            DRAW => Action::Draw,
            PLAY_DRAWN..KEEP => {
                let d = (i - PLAY_DRAWN) % 5;
                Action::PlayDrawn {
                    declare: if d == 0 {
                        None
                    } else {
                        Some(Color::from_index(d as u8 - 1)?)
                    },
                    uno: i - PLAY_DRAWN >= 5,
                }
            }
            KEEP => Action::Keep,
            CHALLENGE => Action::Challenge,
            ACCEPT => Action::Accept,
            STACK..ACCEPT_PENALTY => {
                let s = (i - STACK) % 8;
                let (card, declare) = if s < 4 {
                    (UnoCard::draw_two(Color::from_index(s as u8)?), None)
                } else {
                    (UnoCard::WILD_DRAW_FOUR, Color::from_index(s as u8 - 4))
                };
                Action::Stack {
                    card,
                    declare,
                    uno: i - STACK >= 8,
                }
            }
            ACCEPT_PENALTY => Action::AcceptPenalty,
            CATCH => Action::CatchUno,
            NO_CATCH => Action::NoCatch,
            _ => return None,
        })
    }

    fn write(obs: &super::Observation, _opts: &Options, w: &mut Writer) {
        let n = obs.players as usize;
        let me = obs.seat;
        let rel = |s| relative(s, me, n);
        let faces = |name, w: &mut Writer, cards: &mut dyn Iterator<Item = UnoCard>| {
            let s = w.section(name, FACES);
            for c in cards {
                if let Some(v) = s.get_mut(c.0 as usize) {
                    *v += 1.0;
                }
            }
        };
        faces("hand", w, &mut obs.hand.iter().copied());
        w.one_hot("top", FACES, Some(obs.top.0 as usize));
        w.one_hot("color", 4, Some(obs.color as usize));
        w.one_hot("drawn", FACES, obs.drawn.map(|c| c.0 as usize));
        let unseen = w.section("unseen", FACES);
        for (v, count) in unseen.iter_mut().zip(&obs.unseen) {
            *v = f32::from(*count) / 4.0;
        }
        // Cards known to be in each other hand, by relative seat 1..n.
        let known = w.section("known", FACES * n.saturating_sub(1));
        for (s, cards) in obs.known.iter().enumerate() {
            let r = rel(s as u8);
            if r == 0 {
                continue;
            }
            for c in cards {
                if let Some(v) = known.get_mut(FACES * (r - 1) + c.0 as usize) {
                    *v += 1.0;
                }
            }
        }
        let decision = match obs.decision {
            Decision::ChooseStartColor => 0,
            Decision::Turn => 1,
            Decision::AfterDraw => 2,
            Decision::Wd4Challenge => 3,
            Decision::PenaltyTurn => 4,
            Decision::UnoCatch => 5,
            Decision::Over => 6,
        };
        w.one_hot("decision", 7, Some(decision));
        w.per_seat("hand_sizes", me, n, |s| {
            f32::from(obs.hand_sizes.get(s).copied().unwrap_or(0)) / 7.0
        });
        w.per_seat("scores", me, n, |s| {
            obs.scores.get(s).copied().unwrap_or(0) as f32 / 500.0
        });
        w.scalar("clockwise", f32::from(obs.direction > 0));
        w.scalar("pending", f32::from(obs.pending) / 4.0);
        w.scalar("draw_pile", f32::from(obs.draw_pile) / 108.0);
        w.scalar("discard_pile", f32::from(obs.discard_pile) / 108.0);
        w.seat("offender", me, n, obs.offender);
        w.one_hot(
            "wd4_prev_color",
            4,
            obs.wd4.as_ref().map(|p| p.prev_color as usize),
        );
    }
}
