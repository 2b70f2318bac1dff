//! French-suited cards (Durak and Toepen) as one byte, and sets of them as one `u64`.
//!
//! Why this encoding: every decision crosses the sandbox boundary, and a card as a `u8` and a
//! hand as a `u64` bitmask cost nothing to copy. The code is `suit * 13 + (rank - 2)`, so the
//! canonical deck order of docs/rules/README.md#canonical-deck-order (Clubs, Diamonds, Hearts,
//! Spades; ranks ascending) is simply ascending code order, and a 52-card deck fits in 52 bits.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A player's seat, `0..n`, clockwise.
pub type Seat = u8;

/// Suits in canonical order. Suits have no rank in any game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Suit {
    /// Clubs (`C`), code 0 in the canonical order.
    Clubs = 0,
    /// Diamonds (`D`), code 1.
    Diamonds = 1,
    /// Hearts (`H`), code 2.
    Hearts = 2,
    /// Spades (`S`), code 3.
    Spades = 3,
}

impl Suit {
    /// The four suits in canonical order (docs/rules/README.md#canonical-deck-order): Clubs,
    /// Diamonds, Hearts, Spades.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// The suit at position `i` of [`Suit::ALL`] (0..=3), or `None` for any other index.
    pub fn from_index(i: u8) -> Option<Suit> {
        Suit::ALL.get(i as usize).copied()
    }

    /// The suit's letter as cards are written: `C`, `D`, `H` or `S`.
    pub fn letter(self) -> char {
        ['C', 'D', 'H', 'S'][self as usize]
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// One French-suited card. Ranks are 2..=14 (J=11, Q=12, K=13, A=14).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Card(u8);

impl Card {
    /// Builds a card; `rank` must be 2..=14.
    pub const fn new(rank: u8, suit: Suit) -> Card {
        assert!(rank >= 2 && rank <= 14);
        Card(suit as u8 * 13 + (rank - 2))
    }

    /// The card with this code, if the code is one (0..52).
    pub const fn from_code(code: u8) -> Option<Card> {
        if code < 52 { Some(Card(code)) } else { None }
    }

    /// The card's code, `suit * 13 + (rank - 2)`, 0..52; ascending code is the canonical deck
    /// order.
    pub const fn code(self) -> u8 {
        self.0
    }

    /// The rank, 2..=14 (J=11, Q=12, K=13, A=14). Toepen's playing order differs; see
    /// [`crate::toepen::strength`].
    pub const fn rank(self) -> u8 {
        self.0 % 13 + 2
    }

    /// The card's suit.
    pub fn suit(self) -> Suit {
        Suit::ALL[(self.0 / 13) as usize]
    }

    /// This card's bit in a [`CardSet`] mask (`1 << code`).
    pub const fn bit(self) -> u64 {
        1u64 << self.0
    }
}

fn rank_str(rank: u8) -> &'static str {
    const NAMES: [&str; 13] = [
        "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
    ];
    NAMES[(rank - 2) as usize]
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", rank_str(self.rank()), self.suit())
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a card name did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a card (expected rank 2-10/J/Q/K/A then suit C/D/H/S, e.g. 10H or QS)")]
pub struct ParseCardError(pub String);

impl FromStr for Card {
    type Err = ParseCardError;
    fn from_str(s: &str) -> Result<Card, ParseCardError> {
        let err = || ParseCardError(s.to_string());
        let t = s.trim().to_ascii_uppercase();
        // Split before the last character, not the last byte: typed input may end in `♥`.
        let Some((last, _)) = t.char_indices().last() else {
            return Err(err());
        };
        if last == 0 {
            return Err(err());
        }
        let (r, su) = t.split_at(last);
        let suit = match su {
            "C" => Suit::Clubs,
            "D" => Suit::Diamonds,
            "H" => Suit::Hearts,
            "S" => Suit::Spades,
            _ => return Err(err()),
        };
        let rank = match r {
            "J" => 11,
            "Q" => 12,
            "K" => 13,
            "A" => 14,
            n => n.parse::<u8>().map_err(|_| err())?,
        };
        if !(2..=14).contains(&rank) {
            return Err(err());
        }
        Ok(Card::new(rank, suit))
    }
}

impl From<Card> for String {
    fn from(c: Card) -> String {
        c.to_string()
    }
}

impl TryFrom<String> for Card {
    type Error = ParseCardError;
    fn try_from(s: String) -> Result<Card, ParseCardError> {
        s.parse()
    }
}

/// A set of French-suited cards as a bitmask over card codes.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CardSet(pub u64);

impl CardSet {
    /// The set with no card.
    pub const EMPTY: CardSet = CardSet(0);

    /// The set of the given cards (duplicates collapse).
    pub fn from_cards(cards: impl IntoIterator<Item = Card>) -> CardSet {
        let mut s = CardSet::EMPTY;
        for c in cards {
            s.insert(c);
        }
        s
    }

    /// Every card of the given ranks in all four suits.
    pub fn ranks(ranks: impl IntoIterator<Item = u8>) -> CardSet {
        let mut s = CardSet::EMPTY;
        for r in ranks {
            for suit in Suit::ALL {
                s.insert(Card::new(r, suit));
            }
        }
        s
    }

    /// All 13 cards of one suit.
    pub const fn suit(suit: Suit) -> CardSet {
        CardSet(0x1FFFu64 << (suit as u64 * 13))
    }

    /// The raw mask: bit `code` is set for each card in the set.
    pub const fn bits(self) -> u64 {
        self.0
    }
    /// Number of cards in the set.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }
    /// Whether the set holds no card.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// Whether `c` is in the set.
    pub const fn contains(self, c: Card) -> bool {
        self.0 & c.bit() != 0
    }
    /// Adds `c`; returns `true` if it was not already in the set.
    pub fn insert(&mut self, c: Card) -> bool {
        let had = self.contains(c);
        self.0 |= c.bit();
        !had
    }
    /// Removes `c`; returns `true` if it was in the set.
    pub fn remove(&mut self, c: Card) -> bool {
        let had = self.contains(c);
        self.0 &= !c.bit();
        had
    }
    /// Cards in either set.
    pub const fn union(self, o: CardSet) -> CardSet {
        CardSet(self.0 | o.0)
    }
    /// Cards in both sets.
    pub const fn intersect(self, o: CardSet) -> CardSet {
        CardSet(self.0 & o.0)
    }
    /// Cards of this set that are not in `o`.
    pub const fn minus(self, o: CardSet) -> CardSet {
        CardSet(self.0 & !o.0)
    }
    /// Whether every card of this set is also in `o`.
    pub const fn is_subset(self, o: CardSet) -> bool {
        self.0 & !o.0 == 0
    }
    /// Cards of `suit` in this set.
    pub const fn of_suit(self, suit: Suit) -> CardSet {
        self.intersect(CardSet::suit(suit))
    }
    /// The lowest card by code (lowest rank of the first suit).
    pub fn first(self) -> Option<Card> {
        if self.0 == 0 {
            None
        } else {
            Card::from_code(self.0.trailing_zeros() as u8)
        }
    }
    /// Cards in ascending code order.
    pub fn iter(self) -> CardIter {
        CardIter(self.0)
    }
}

impl IntoIterator for CardSet {
    type Item = Card;
    type IntoIter = CardIter;
    fn into_iter(self) -> CardIter {
        self.iter()
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(it: I) -> CardSet {
        CardSet::from_cards(it)
    }
}

/// Iterator over a [`CardSet`] in ascending code order.
pub struct CardIter(u64);

impl Iterator for CardIter {
    type Item = Card;
    fn next(&mut self) -> Option<Card> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Card::from_code(i)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl fmt::Display for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{")?;
        for (i, c) in self.iter().enumerate() {
            if i > 0 {
                write!(f, " ")?;
            }
            write!(f, "{c}")?;
        }
        write!(f, "}}")
    }
}

impl fmt::Debug for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_names_round_trip() {
        for code in 0..52 {
            let c = Card::from_code(code).unwrap();
            assert_eq!(c.to_string().parse::<Card>().unwrap(), c);
        }
        assert_eq!("10h".parse::<Card>().unwrap(), Card::new(10, Suit::Hearts));
        assert!("1H".parse::<Card>().is_err());
        assert!("QX".parse::<Card>().is_err());
    }

    /// Regression: a name ending in a multi-byte character (`10♥`, typed at `croupier play`)
    /// panicked on a byte split instead of being refused.
    #[test]
    fn non_ascii_card_names_are_refused_not_a_panic() {
        for s in ["10♥", "♥", "Q♠", "é", "10é"] {
            assert!(s.parse::<Card>().is_err(), "{s}");
        }
    }

    #[test]
    fn canonical_order_is_code_order() {
        let all: Vec<Card> = CardSet(u64::MAX >> 12).iter().collect();
        assert_eq!(all.len(), 52);
        assert_eq!(all[0], Card::new(2, Suit::Clubs));
        assert_eq!(all[13], Card::new(2, Suit::Diamonds));
        assert_eq!(all[51], Card::new(14, Suit::Spades));
    }
}
