//! The arena end to end: a real `croupier arena serve` on 127.0.0.1 with a real SQLite file,
//! real uploads through the HTTP API and the form, and real games in the sandbox. Each
//! security promise of the arena's module docs has its own test here.

mod common;

use common::arena::{ArenaDir, uploads_then_ladder};

#[test]
fn uploads_are_checked_then_the_ladder_rates_them() {
    let dir = ArenaDir::init("durak", "teams", |_| {});
    uploads_then_ladder(&dir, None);
}
