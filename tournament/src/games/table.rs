//! The table document: what one viewer may see of a game at one step, which a replay, the
//! browser viewer and a person's seat all show, and [`TableView`], which each game implements
//! (in its own module beside this one) to build it from the engine's observation.

use croupier_rules::{Game, Seat};
use serde::{Deserialize, Serialize};

/// The table as one viewer may see it at one step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// The seat that must decide now; `None` once the game is over.
    pub to_act: Option<u8>,
    /// Every seat's public state, by seat.
    pub seats: Vec<SeatView>,
    /// Public facts, e.g. `talon: 12`, in display order.
    pub facts: Vec<Fact>,
    /// Face-up cards: the trump card, the bout, the trick, the discard pile's top.
    pub piles: Vec<Pile>,
    /// The viewing seat's own hand as card texts; `None` for a spectator.
    pub hand: Option<Vec<String>>,
}

/// One seat's public state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeatView {
    /// Cards in its hand.
    pub cards: u32,
    /// Its score (penalty points, UNO points), where the game keeps one.
    pub score: Option<i64>,
    /// Short public labels: `dealer`, `attacker`, `out`, `folded`...
    pub tags: Vec<String>,
}

/// A labelled public value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fact {
    /// What it is, e.g. `talon`.
    pub label: String,
    /// Its value as text.
    pub value: String,
}

/// A labelled row of face-up cards.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pile {
    /// What it is, e.g. `bout`, `trick 2`.
    pub label: String,
    /// The cards in order.
    pub cards: Vec<PileCard>,
}

/// A face-up card, with who played it and what covers it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PileCard {
    /// The card's text, e.g. `10H` or `GSkip`.
    pub card: String,
    /// The seat that played it, where that is known and matters.
    pub seat: Option<u8>,
    /// Durak: the card that beat it.
    pub cover: Option<String>,
}

impl PileCard {
    /// A card nothing covers, played by `seat` where that is known.
    pub(crate) fn new(card: impl ToString, seat: Option<u8>) -> PileCard {
        PileCard {
            card: card.to_string(),
            seat,
            cover: None,
        }
    }
}

pub(crate) fn fact(label: &str, value: impl ToString) -> Fact {
    Fact {
        label: label.to_string(),
        value: value.to_string(),
    }
}

pub(crate) fn texts<T: ToString>(cards: impl IntoIterator<Item = T>) -> Vec<String> {
    cards.into_iter().map(|c| c.to_string()).collect()
}

pub(crate) fn bit(mask: u8, seat: usize) -> bool {
    seat < 8 && mask & (1 << seat) != 0
}

/// A game whose table a replay can show. Implementations copy public fields of the
/// observation one by one (never "everything but the hand"), and the hand only when
/// `viewer` is a seat, so what a spectator sees is the same whichever seat's observation
/// it is built from (a test checks exactly that).
pub trait TableView: Game {
    /// The table in `obs` (the observation of `viewer`, or of any seat for a spectator), as
    /// `viewer` may see it. `to_act` is filled in by the caller.
    fn table_view(obs: &Self::Observation, viewer: Option<Seat>) -> Table;
}
