#![deny(missing_docs)]
//! # croupier-sdk
//!
//! Write a card-game agent for Croupier in Rust: implement [`Agent`] for your game and call
//! that game's export macro. The same crate can be built into a sandboxed WebAssembly
//! component (`croupier build`) or linked natively into the host (to measure the sandbox).
//!
//! ```ignore
//! use croupier_sdk::durak::{Action, Durak, Observation};
//! use croupier_sdk::{Agent, Ctx, GameInfo};
//!
//! /// Plays the first legal action.
//! pub struct First;
//!
//! impl Agent<Durak> for First {
//!     fn new(_info: &GameInfo<Durak>) -> Self {
//!         First
//!     }
//!     fn decide(&mut self, _obs: &Observation, legal: &[Action], _ctx: &mut Ctx) -> Action {
//!         legal[0]
//!     }
//! }
//!
//! croupier_sdk::export_durak!(First);
//! ```
//!
//! The observation is the rules crate's own type ([`durak::Observation`], ...), with the
//! perfect-memory knowledge already derived, and the whole rules crate is available for
//! simulation ([`Game::determinize`] builds a full state consistent with an observation).
//!
//! Inside the sandbox the SDK installs its global allocator: a cache of small freed blocks
//! in front of `dlmalloc` ([`alloc`]). It is the default feature `alloc-cache`; an agent
//! with its own `#[global_allocator]` depends on the SDK with `default-features = false`.

extern crate self as croupier_sdk;

pub use croupier_rules as rules;
// `Rules` is the options' side of a game (presets, option text, `from_preset`): an agent
// that builds options itself, as the search agents' tests do, needs it in scope.
pub use croupier_rules::{
    Card, CardSet, Game, GameRng, Rules, Seat, Suit, durak, game::Preset, toepen, uno,
};

mod agent;
pub mod alloc;
mod glue;
#[cfg(feature = "policy")]
pub mod policy;
pub mod search;
pub mod tree;

// Inside the sandbox only: one thread, and every allocation is the agent's own (alloc.rs).
#[cfg(all(
    target_arch = "wasm32",
    not(target_feature = "atomics"),
    feature = "alloc-cache"
))]
#[global_allocator]
static ALLOCATOR: alloc::Cached = alloc::Cached::new();

#[doc(hidden)]
pub mod __private {
    pub use crate::glue::*;
    pub use croupier_rules::wire::Item;
    pub use wit_bindgen;
}

pub use agent::*;
