//! Each game as people see it, one module per game: the table a replay or a person's seat
//! shows ([`TableView`]), the text at the terminal, the names the tools use, and what
//! `croupier new` writes ([`Scaffold`]). With the rules, the newest contract and one adapter,
//! a game's module here is what adding a game takes (docs/layout.md counts the files), and
//! [`with_game!`](crate::with_game) below is the one list of the games that commands and
//! handlers dispatch through.
//!
//! The templates are text compiled into this crate (`include_str!`), so `croupier new`
//! never depends on where a source tree is; the tournament crate holds them because it is
//! the lowest crate that both the arena (names, tables) and the CLI (templates, text) use.

pub mod durak;
pub mod table;
pub mod toepen;
pub mod uno;

mod presentation;

pub use presentation::{Presentation, Scaffold};
pub use table::TableView;

#[doc(hidden)]
pub mod __games {
    pub use croupier_host::loader::GameKind;
    pub use croupier_rules::{durak::Durak, toepen::Toepen, uno::Uno};
}

/// Runs `$body` with `$G` the rules type of `$kind` (a `GameKind`): the one place that
/// lists the games, so a new game never edits a command or a handler.
#[macro_export]
macro_rules! with_game {
    ($kind:expr, $G:ident => $body:expr) => {
        match $kind {
            $crate::games::__games::GameKind::Durak => {
                type $G = $crate::games::__games::Durak;
                $body
            }
            $crate::games::__games::GameKind::Toepen => {
                type $G = $crate::games::__games::Toepen;
                $body
            }
            $crate::games::__games::GameKind::Uno => {
                type $G = $crate::games::__games::Uno;
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn example_agent_exists(name: &str) -> bool {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../example-agents")
            .join(name.replace('/', "-"))
            .join("Cargo.toml")
            .is_file()
    }

    /// A README or an arena that named an agent nobody builds would fail on first use.
    #[test]
    fn every_named_agent_is_an_example_agent_of_its_game() {
        for kind in __games::GameKind::ALL {
            let (first, reference, bosses) =
                with_game!(kind, G => (G::FIRST_OPPONENT, G::REFERENCE, G::BOSSES));
            for name in [first, reference].into_iter().chain(bosses) {
                assert!(
                    name.starts_with(&format!("{}/", kind.name())),
                    "{kind:?}: {name} is not one of its agents"
                );
                assert!(
                    example_agent_exists(name),
                    "{kind:?}: no example agent {name}"
                );
            }
        }
    }

    /// Every template in a game's `new/` folder is one that `croupier new` writes.
    #[test]
    fn every_template_is_used() {
        for kind in __games::GameKind::ALL {
            let new: &Scaffold = with_game!(kind, G => G::NEW);
            let used = [
                new.rust_lib,
                new.python_app,
                new.python_test,
                new.js_app,
                new.ts_app,
                new.js_test,
                new.c_agent,
            ];
            let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("src/games")
                .join(kind.name())
                .join("new");
            let mut files = 0;
            for entry in std::fs::read_dir(&dir).expect("new/") {
                let text = std::fs::read_to_string(entry.expect("entry").path()).expect("text");
                assert!(
                    used.contains(&text.as_str()),
                    "{kind:?}: an unused template"
                );
                files += 1;
            }
            assert_eq!(files, used.len(), "{kind:?}");
        }
    }
}
