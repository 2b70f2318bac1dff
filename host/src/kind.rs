//! The games this host knows and the WIT package their worlds live in: a leaf that the
//! contract bindings, the adapters and the loader all name, so none of them imports another
//! for it.

use std::fmt;

/// The WIT package every agent world lives in.
pub const PACKAGE: &str = "croupier:agent";

/// The games (WIT worlds) this host knows.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameKind {
    /// Durak, the Russian attack-and-defend game.
    Durak,
    /// Toepen, the Dutch trick-taking game with raises.
    Toepen,
    /// Uno, the shedding game.
    Uno,
}

impl GameKind {
    /// Every game, in a fixed order.
    pub const ALL: [GameKind; 3] = [GameKind::Durak, GameKind::Toepen, GameKind::Uno];

    /// The game's lowercase name, as used in WIT world names, paths and the command line.
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Durak => "durak",
            GameKind::Toepen => "toepen",
            GameKind::Uno => "uno",
        }
    }

    /// Every game's name as prose lists them: `durak, toepen or uno`.
    pub fn names_listed() -> String {
        let names = GameKind::ALL.map(GameKind::name);
        match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }

    /// The game with this name, ignoring case and surrounding whitespace.
    pub fn parse(s: &str) -> Option<GameKind> {
        GameKind::ALL
            .into_iter()
            .find(|g| g.name().eq_ignore_ascii_case(s.trim()))
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::GameKind;

    #[test]
    fn names_are_listed_as_prose() {
        assert_eq!(GameKind::names_listed(), "durak, toepen or uno");
    }
}
