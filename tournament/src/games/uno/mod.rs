//! UNO as people see it: its table in a replay (what one seat or a spectator may
//! see), its text at the terminal, its names, and what `croupier new uno` writes (the
//! templates in `new/`, and this game's part of the Python and JavaScript SDKs).

use super::presentation::{Presentation, Scaffold, scaffold};
use super::table::{Pile, PileCard, SeatView, Table, TableView, fact, texts};
use croupier_rules::Seat;
use croupier_rules::uno::{self, Uno};

/// What `croupier new uno` writes, per language.
const NEW: Scaffold = scaffold!("uno");

impl Presentation for Uno {
    const FIRST_OPPONENT: &'static str = "uno/primary";
    const REFERENCE: &'static str = "uno/greedy";
    const BOSSES: [&'static str; 3] = ["uno/primary", "uno/greedy", "uno/search"];
    const JS_EXPORT: &'static str = "unoAgent";
    const NEW: &'static Scaffold = &NEW;

    fn describe(o: &uno::Observation) -> String {
        let hand: Vec<String> = o.hand.iter().map(|c| c.to_string()).collect();
        let sizes: Vec<String> = o
            .hand_sizes
            .iter()
            .enumerate()
            .filter(|(s, _)| *s as u8 != o.seat)
            .map(|(s, n)| format!("P{s}: {n}"))
            .collect();
        format!(
            "top {} · colour {:?} · draw pile {}{}\nothers: {}\nyour hand (P{}): {}",
            o.top,
            o.color,
            o.draw_pile,
            if o.pending > 0 {
                format!(" · pending draw {}", o.pending)
            } else {
                String::new()
            },
            sizes.join(", "),
            o.seat,
            hand.join(" ")
        )
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
                cards: vec![PileCard::new(obs.top, None)],
            }],
            hand: viewer.map(|_| texts(obs.hand.iter())),
        }
    }
}
