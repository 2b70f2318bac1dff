//! The bosses on the pages: a column per boss on the leaderboard (its twin in
//! `/static/app.js` renders the same from the live events), and a table on the team page.
//! Every text is the configured name or numbers, escaped by maud like the rest.

use super::*;
use croupier_tournament::bosses::{Statement, short_name};

/// The leaderboard's header cells, one per boss.
pub fn header(arena: &Arena) -> Markup {
    html! { @for b in &arena.bosses { th title=(b.name) { "vs " (short_name(&b.name)) " (95% CI)" } } }
}

/// One boss cell: the final's table draws the same.
pub fn cell(s: &Statement) -> Markup {
    crate::finals::boss_cell(s)
}

/// The team page's table: each of its valid versions that has met a boss.
pub fn team_section(arena: &Arena, t: &views::TeamJson) -> Markup {
    html! {
        @if !arena.bosses.is_empty() {
            h2 { "Against the bosses" }
            p.muted { "Unrated, in duplicate deals. Win rate with draws counted half and its 95% interval over deals; a badge once the interval is above 50%." }
            table #bosses {
                thead { tr { th { "version" } (header(arena)) } }
                tbody { @for v in &t.bosses { tr { td { "v" (v.version) } @for s in &v.bosses { (cell(s)) } } } }
            }
        }
    }
}
