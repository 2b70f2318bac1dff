//! Each game's table as a replay shows it: [`TableView`] for Durak, Toepen and UNO. Only
//! public fields of the observation are copied, one by one, and the hand only for a seat's
//! own view (the trait's contract, checked by a test).

use super::{Pile, PileCard, SeatView, Table, TableView, bit, fact, texts};
use croupier_rules::Seat;
use croupier_rules::durak::{self, Durak};
use croupier_rules::toepen::{self, Toepen};
use croupier_rules::uno::{self, Uno};

impl TableView for Durak {
    fn table_view(obs: &durak::Observation, viewer: Option<Seat>) -> Table {
        let over = obs.phase == durak::Phase::Over;
        let seats = (0..obs.players as usize)
            .map(|s| {
                let mut tags = Vec::new();
                if s == obs.dealer as usize {
                    tags.push("dealer".to_string());
                }
                let place = obs.finish.get(s).copied().unwrap_or(0);
                if bit(obs.out, s) || place > 0 {
                    tags.push(if place > 0 {
                        format!("out ({place})")
                    } else {
                        "out".to_string()
                    });
                } else if !over {
                    if s == obs.attacker as usize {
                        tags.push("attacker".into());
                    }
                    if s == obs.defender as usize {
                        tags.push(if obs.taking { "taking" } else { "defender" }.into());
                    }
                    if bit(obs.passed, s) {
                        tags.push("passed".into());
                    }
                }
                SeatView {
                    cards: obs.hand_sizes.get(s).copied().unwrap_or(0).into(),
                    score: None,
                    tags,
                }
            })
            .collect();
        let mut facts = vec![
            fact("trump", obs.trump_suit),
            fact("talon", obs.talon),
            fact("bout", obs.bout),
            fact("discarded", obs.discard.len()),
        ];
        if !over {
            facts.push(fact("phase", format!("{:?}", obs.phase).to_lowercase()));
            facts.push(fact("bout limit", obs.limit));
        }
        let mut piles = vec![Pile {
            label: match obs.trump_holder {
                Some(s) => format!("trump card (drawn by P{s})"),
                None => "trump card".into(),
            },
            cards: vec![PileCard {
                card: obs.trump.to_string(),
                seat: obs.trump_holder,
                cover: None,
            }],
        }];
        if !obs.table.is_empty() {
            piles.push(Pile {
                label: "bout".into(),
                cards: obs
                    .table
                    .iter()
                    .enumerate()
                    .map(|(i, (attack, defence))| PileCard {
                        card: attack.to_string(),
                        seat: obs.attackers.get(i).copied(),
                        cover: defence.map(|c| c.to_string()),
                    })
                    .collect(),
            });
        }
        if !obs.shown.is_empty() {
            piles.push(Pile {
                label: "trumps shown".into(),
                cards: obs
                    .shown
                    .iter()
                    .map(|c| PileCard {
                        card: c.to_string(),
                        seat: None,
                        cover: None,
                    })
                    .collect(),
            });
        }
        Table {
            to_act: None,
            seats,
            facts,
            piles,
            hand: viewer.map(|_| texts(obs.hand.iter())),
        }
    }
}

impl TableView for Toepen {
    fn table_view(obs: &toepen::Observation, viewer: Option<Seat>) -> Table {
        let seats = (0..obs.players as usize)
            .map(|s| {
                let mut tags = Vec::new();
                if s == obs.dealer as usize {
                    tags.push("dealer".to_string());
                }
                if bit(obs.eliminated, s) {
                    tags.push("eliminated".into());
                } else if bit(obs.dealt, s) && !bit(obs.live, s) {
                    tags.push("folded".into());
                }
                if obs.last_knocker == Some(s as Seat) {
                    tags.push("knocked".into());
                }
                SeatView {
                    cards: obs.hand_counts.get(s).copied().unwrap_or(0).into(),
                    score: obs.scores.get(s).map(|&p| i64::from(p)),
                    tags,
                }
            })
            .collect();
        let mut facts = vec![
            fact("round", obs.round),
            fact("trick", obs.trick_no),
            fact("stake", obs.stake),
            fact("stock", obs.stock),
        ];
        if !obs.trick_winners.is_empty() {
            let won: Vec<String> = obs.trick_winners.iter().map(|s| format!("P{s}")).collect();
            facts.push(fact("tricks won by", won.join(", ")));
        }
        // Between tricks the last one stays on view, so the step that completes a trick
        // shows all its cards rather than an empty table.
        let (label, trick) = match (obs.trick.is_empty(), obs.past_tricks.last()) {
            (true, Some(last)) => (
                match obs.trick_winners.last() {
                    Some(w) => format!("last trick (won by P{w})"),
                    None => "last trick".to_string(),
                },
                last,
            ),
            _ => (format!("trick {}", obs.trick_no), &obs.trick),
        };
        let mut piles = vec![Pile {
            label,
            cards: trick
                .iter()
                .map(|(s, c)| PileCard {
                    card: c.to_string(),
                    seat: Some(*s),
                    cover: None,
                })
                .collect(),
        }];
        for (s, shown) in obs.revealed_by.iter().enumerate() {
            if !shown.is_empty() {
                piles.push(Pile {
                    label: format!("laundry shown by P{s}"),
                    cards: shown
                        .iter()
                        .map(|c| PileCard {
                            card: c.to_string(),
                            seat: Some(s as Seat),
                            cover: None,
                        })
                        .collect(),
                });
            }
        }
        Table {
            to_act: None,
            seats,
            facts,
            piles,
            hand: viewer.map(|_| texts(obs.hand.iter())),
        }
    }
}

impl TableView for Uno {
    fn table_view(obs: &uno::Observation, viewer: Option<Seat>) -> Table {
        let seats = (0..obs.players as usize)
            .map(|s| SeatView {
                cards: obs.hand_sizes.get(s).copied().unwrap_or(0).into(),
                score: obs.scores.get(s).copied(),
                tags: if s == obs.dealer as usize {
                    vec!["dealer".into()]
                } else {
                    Vec::new()
                },
            })
            .collect();
        let mut facts = vec![
            fact("hand", obs.hand_no),
            fact("colour", obs.color),
            fact(
                "direction",
                if obs.direction > 0 {
                    "clockwise"
                } else {
                    "counter-clockwise"
                },
            ),
            fact("draw pile", obs.draw_pile),
            fact("discard pile", obs.discard_pile),
        ];
        if obs.pending > 0 {
            facts.push(fact("pending draw", obs.pending));
        }
        Table {
            to_act: None,
            seats,
            facts,
            piles: vec![Pile {
                label: "discard".into(),
                cards: vec![PileCard {
                    card: obs.top.to_string(),
                    seat: None,
                    cover: None,
                }],
            }],
            hand: viewer.map(|_| texts(obs.hand.iter())),
        }
    }
}
