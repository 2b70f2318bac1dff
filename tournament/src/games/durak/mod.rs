//! Durak as people see it: its table in a replay (what one seat or a spectator may
//! see), its text at the terminal, its names, and what `croupier new durak` writes (the
//! templates in `new/`, and this game's part of the Python and JavaScript SDKs).

use super::presentation::{Presentation, Scaffold, scaffold};
use super::table::{Pile, PileCard, SeatView, Table, TableView, bit, fact, texts};
use croupier_rules::Seat;
use croupier_rules::durak::{self, Durak};

/// What `croupier new durak` writes, per language.
const NEW: Scaffold = scaffold!("durak");

impl Presentation for Durak {
    const FIRST_OPPONENT: &'static str = "durak/cheapest";
    const REFERENCE: &'static str = "durak/cheapest";
    const BOSSES: [&'static str; 3] = ["durak/hand-value", "durak/cheapest", "durak/ismcts"];
    const JS_EXPORT: &'static str = "durakAgent";
    const NEW: &'static Scaffold = &NEW;

    fn describe(o: &durak::Observation) -> String {
        let table: Vec<String> = o
            .table
            .iter()
            .map(|(a, d)| match d {
                Some(d) => format!("{a}/{d}"),
                None => format!("{a}/–"),
            })
            .collect();
        let others: Vec<String> = (0..o.players)
            .filter(|s| *s != o.seat)
            .map(|s| {
                let out = if o.out & (1 << s) != 0 { " out" } else { "" };
                format!("P{s}: {} cards{out}", o.hand_sizes[s as usize])
            })
            .collect();
        format!(
            "trump {} · talon {} · discard {}\nattacker P{} → defender P{}{} · table: {}\nothers: {}\nyour hand (P{}): {}",
            o.trump,
            o.talon,
            o.discard.len(),
            o.attacker,
            o.defender,
            if o.taking { " (taking)" } else { "" },
            if table.is_empty() {
                "empty".into()
            } else {
                table.join(" ")
            },
            others.join(", "),
            o.seat,
            o.hand
        )
    }
}

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
            cards: vec![PileCard::new(obs.trump, obs.trump_holder)],
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
                cards: obs.shown.iter().map(|c| PileCard::new(c, None)).collect(),
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
