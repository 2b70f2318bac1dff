//! UNO cards and colours (docs/rules/uno.md#cards): constructors, accessors, points, the canonical
//! deck order of docs/rules/README.md#canonical-deck-order, and the notation of
//! docs/rules/README.md#card-notation (`R7`, `GSkip`, `BRev`, `YD2`, `W`, `W4`).

use super::types::{Color, FACES, UnoCard};
use std::fmt;
use std::str::FromStr;

/// Kind index of a Skip inside a colour.
pub const SKIP: u8 = 10;
/// Kind index of a Reverse inside a colour.
pub const REVERSE: u8 = 11;
/// Kind index of a Draw Two inside a colour.
pub const DRAW_TWO: u8 = 12;

/// What a card does, independent of its colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A number card; the number, 0..=9.
    Number(u8),
    /// Skip: the next player loses his turn.
    Skip,
    /// Reverse: the direction of play turns (a Skip with 2 players).
    Reverse,
    /// Draw Two: the next player draws 2 and loses his turn (or, with stacking, may stack).
    DrawTwo,
    /// Wild: the player declares the colour.
    Wild,
    /// Wild Draw Four: declares the colour; the next player draws 4 and loses his turn, unless he
    /// challenges successfully (docs/rules/uno.md#wild-draw-four) or stacks
    /// (docs/rules/uno.md#stacking).
    WildDrawFour,
}

impl Color {
    /// The colour with this index (0 Red, 1 Yellow, 2 Green, 3 Blue).
    pub fn from_index(i: u8) -> Option<Color> {
        Color::ALL.get(i as usize).copied()
    }

    /// The colour's index: 0 Red, 1 Yellow, 2 Green, 3 Blue (the canonical order of
    /// docs/rules/README.md#canonical-deck-order).
    pub fn index(self) -> u8 {
        self as u8
    }

    /// The lower-case name used in action text: `red`, `yellow`, `green`, `blue`.
    pub fn name(self) -> &'static str {
        ["red", "yellow", "green", "blue"][self as usize]
    }

    /// The letter used in card names: R, Y, G, B.
    pub fn letter(self) -> char {
        ['R', 'Y', 'G', 'B'][self as usize]
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a colour name did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a colour (expected red, yellow, green or blue)")]
pub struct ParseColorError(pub String);

impl FromStr for Color {
    type Err = ParseColorError;
    fn from_str(s: &str) -> Result<Color, ParseColorError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "red" | "r" => Ok(Color::Red),
            "yellow" | "y" => Ok(Color::Yellow),
            "green" | "g" => Ok(Color::Green),
            "blue" | "b" => Ok(Color::Blue),
            _ => Err(ParseColorError(s.to_string())),
        }
    }
}

impl UnoCard {
    /// The Wild face (code 52), written `W`.
    pub const WILD: UnoCard = UnoCard(52);
    /// The Wild Draw Four face (code 53), written `W4`.
    pub const WILD_DRAW_FOUR: UnoCard = UnoCard(53);

    /// A coloured card; `kind` is 0..=9 for numbers, 10 Skip, 11 Reverse, 12 Draw Two.
    pub const fn colored(color: Color, kind: u8) -> Option<UnoCard> {
        if kind < 13 {
            Some(UnoCard(color as u8 * 13 + kind))
        } else {
            None
        }
    }

    /// A number card (0..=9).
    pub const fn number(color: Color, n: u8) -> Option<UnoCard> {
        if n <= 9 {
            UnoCard::colored(color, n)
        } else {
            None
        }
    }

    /// The Skip of `color`.
    pub const fn skip(color: Color) -> UnoCard {
        UnoCard(color as u8 * 13 + SKIP)
    }
    /// The Reverse of `color`.
    pub const fn reverse(color: Color) -> UnoCard {
        UnoCard(color as u8 * 13 + REVERSE)
    }
    /// The Draw Two of `color`.
    pub const fn draw_two(color: Color) -> UnoCard {
        UnoCard(color as u8 * 13 + DRAW_TWO)
    }

    /// The face with this code, if it is one (0..54).
    pub const fn from_code(code: u8) -> Option<UnoCard> {
        if (code as usize) < FACES {
            Some(UnoCard(code))
        } else {
            None
        }
    }

    /// The face code: `color * 13 + kind index` for coloured faces (0..52), 52 for Wild, 53 for
    /// Wild Draw Four.
    pub const fn code(self) -> u8 {
        self.0
    }

    /// True for a face code that names a card (0..54).
    pub const fn is_valid(self) -> bool {
        (self.0 as usize) < FACES
    }

    /// The printed colour; `None` for the wild kinds (and invalid codes).
    pub fn color(self) -> Option<Color> {
        if self.0 < 52 {
            Color::from_index(self.0 / 13)
        } else {
            None
        }
    }

    /// The kind index inside a colour (0..=12) for coloured cards.
    pub const fn kind_index(self) -> Option<u8> {
        if self.0 < 52 { Some(self.0 % 13) } else { None }
    }

    /// What the card does; `None` for an invalid code.
    pub fn kind(self) -> Option<Kind> {
        match self.0 {
            52 => Some(Kind::Wild),
            53 => Some(Kind::WildDrawFour),
            c if c < 52 => Some(match c % 13 {
                SKIP => Kind::Skip,
                REVERSE => Kind::Reverse,
                DRAW_TWO => Kind::DrawTwo,
                n => Kind::Number(n),
            }),
            _ => None,
        }
    }

    /// Wild or Wild Draw Four: a colour is declared when it is played.
    pub const fn is_wild(self) -> bool {
        self.0 == 52 || self.0 == 53
    }
    /// Whether this is the Wild Draw Four.
    pub const fn is_wd4(self) -> bool {
        self.0 == 53
    }
    /// Whether this is a Draw Two (of any colour).
    pub const fn is_draw_two(self) -> bool {
        self.0 < 52 && self.0 % 13 == DRAW_TWO
    }
    /// Draw Two or Wild Draw Four.
    pub const fn is_draw(self) -> bool {
        self.is_draw_two() || self.is_wd4()
    }
    /// How many cards this card makes the victim draw (2, 4, or 0).
    pub const fn draw_amount(self) -> u16 {
        if self.is_wd4() {
            4
        } else if self.is_draw_two() {
            2
        } else {
            0
        }
    }

    /// Card points (docs/rules/uno.md#cards): numbers face value, Skip/Reverse/Draw Two 20, wilds
    /// 50.
    pub const fn points(self) -> u32 {
        match self.0 {
            52 | 53 => 50,
            c if c < 52 => {
                let k = c % 13;
                if k <= 9 { k as u32 } else { 20 }
            }
            _ => 0,
        }
    }

    /// Copies of this face in the 108-card deck.
    pub const fn copies(self) -> u8 {
        match self.0 {
            52 | 53 => 4,
            c if c < 52 => {
                if c % 13 == 0 {
                    1
                } else {
                    2
                }
            }
            _ => 0,
        }
    }

    /// Every face in code order.
    pub fn all() -> impl Iterator<Item = UnoCard> {
        (0..FACES as u8).map(UnoCard)
    }
}

/// The 108 physical cards in the canonical order of docs/rules/README.md#canonical-deck-order
/// (colours R, Y, G, B; inside a colour 0, 1, 1, ..., 9, 9, Skip×2, Reverse×2, Draw Two×2; then 4
/// Wild, 4 Wild Draw Four).
pub fn deck() -> Vec<UnoCard> {
    let mut d = Vec::with_capacity(108);
    for face in UnoCard::all() {
        for _ in 0..face.copies() {
            d.push(face);
        }
    }
    d
}

/// Copies of each face in the full deck, indexed by face code.
pub fn deck_counts() -> [u8; FACES] {
    let mut c = [0u8; FACES];
    for f in UnoCard::all() {
        c[f.0 as usize] = f.copies();
    }
    c
}

impl fmt::Display for UnoCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            52 => f.write_str("W"),
            53 => f.write_str("W4"),
            c if c < 52 => {
                let letter = ['R', 'Y', 'G', 'B'][(c / 13) as usize];
                match c % 13 {
                    SKIP => write!(f, "{letter}Skip"),
                    REVERSE => write!(f, "{letter}Rev"),
                    DRAW_TWO => write!(f, "{letter}D2"),
                    n => write!(f, "{letter}{n}"),
                }
            }
            c => write!(f, "?{c}"),
        }
    }
}

/// Why a card name did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not an UNO card (expected R/Y/G/B then 0-9, Skip, Rev or D2, or W / W4; e.g. R7, GSkip, BRev, YD2)"
)]
pub struct ParseUnoCardError(pub String);

impl FromStr for UnoCard {
    type Err = ParseUnoCardError;
    fn from_str(s: &str) -> Result<UnoCard, ParseUnoCardError> {
        let err = || ParseUnoCardError(s.to_string());
        let t = s.trim().to_ascii_lowercase();
        match t.as_str() {
            "w" => return Ok(UnoCard::WILD),
            "w4" => return Ok(UnoCard::WILD_DRAW_FOUR),
            _ => {}
        }
        let mut chars = t.chars();
        let color = match chars.next() {
            Some('r') => Color::Red,
            Some('y') => Color::Yellow,
            Some('g') => Color::Green,
            Some('b') => Color::Blue,
            _ => return Err(err()),
        };
        let rest = chars.as_str();
        let kind = match rest {
            "skip" => SKIP,
            "rev" => REVERSE,
            "d2" => DRAW_TWO,
            n if n.len() == 1 => n.parse::<u8>().map_err(|_| err())?,
            _ => return Err(err()),
        };
        UnoCard::colored(color, kind).ok_or_else(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_deck_is_canonical() {
        for f in UnoCard::all() {
            assert_eq!(f.to_string().parse::<UnoCard>().unwrap(), f);
            assert_eq!(f.to_string().to_lowercase().parse::<UnoCard>().unwrap(), f);
        }
        let d = deck();
        assert_eq!(d.len(), 108);
        assert_eq!(d[0].to_string(), "R0");
        assert_eq!(d[1].to_string(), "R1");
        assert_eq!(d[2].to_string(), "R1");
        assert_eq!(d[19].to_string(), "RSkip");
        assert_eq!(d[25].to_string(), "Y0");
        assert_eq!(d[100].to_string(), "W");
        assert_eq!(d[107].to_string(), "W4");
        assert_eq!(
            d.iter().map(|c| c.points()).sum::<u32>(),
            4 * (2 * 45 + 120) + 400
        );
        assert!("R10".parse::<UnoCard>().is_err());
        assert!("X1".parse::<UnoCard>().is_err());
    }
}
