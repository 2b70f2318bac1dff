//! Toepen as people see it: its table in a replay (what one seat or a spectator may
//! see), its text at the terminal, its names, and what `croupier new toepen` writes (the
//! templates in `new/`, and this game's part of the Python and JavaScript SDKs).

use super::presentation::{Presentation, Scaffold, scaffold};
use super::table::{Pile, PileCard, SeatView, Table, TableView, bit, fact, texts};
use croupier_rules::Seat;
use croupier_rules::toepen::{self, Toepen};

/// What `croupier new toepen` writes, per language.
const NEW: Scaffold = scaffold!("toepen");

impl Presentation for Toepen {
    const FIRST_OPPONENT: &'static str = "toepen/random";
    const REFERENCE: &'static str = "toepen/reasoning";
    const BOSSES: [&'static str; 3] = ["toepen/random", "toepen/reasoning", "toepen/search"];
    const JS_EXPORT: &'static str = "toepenAgent";
    const NEW: &'static Scaffold = &NEW;

    fn describe(o: &toepen::Observation) -> String {
        let trick: Vec<String> = o.trick.iter().map(|(s, c)| format!("P{s} {c}")).collect();
        let scores: Vec<String> = o
            .scores
            .iter()
            .enumerate()
            .map(|(s, p)| format!("P{s} {p}"))
            .collect();
        format!(
            "round {} · trick {} · stake {} · scores: {}\ntrick so far: {}\nyour hand (P{}): {}",
            o.round,
            o.trick_no,
            o.stake,
            scores.join(", "),
            if trick.is_empty() {
                "nothing".into()
            } else {
                trick.join(", ")
            },
            o.seat,
            o.hand
        )
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
                .map(|(s, c)| PileCard::new(c, Some(*s)))
                .collect(),
        }];
        for (s, shown) in obs.revealed_by.iter().enumerate() {
            if !shown.is_empty() {
                piles.push(Pile {
                    label: format!("laundry shown by P{s}"),
                    cards: shown
                        .iter()
                        .map(|c| PileCard::new(c, Some(s as Seat)))
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
