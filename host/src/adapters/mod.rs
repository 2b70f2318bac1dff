//! One adapter per game: the glue between a rules-crate game and its WIT world. Adding a game
//! means one WIT world, one rules module and one file here.

mod durak;
mod toepen;
mod uno;

use crate::bindings::{Budget, GameInfo};
use crate::loader::GameKind;
use crate::sandbox::StoreData;
use croupier_rules::Game;
use wasmtime::Store;
use wasmtime::component::{InstancePre, Linker};

/// A game the host can run agents for.
pub trait Adapter: Game {
    const KIND: GameKind;
    /// The instantiated world's exports.
    type Bindings: Send;
    /// The pre-linked world, ready to instantiate in microseconds.
    type Pre: Clone + Send + Sync + 'static;

    fn add_to_linker(linker: &mut Linker<StoreData>) -> wasmtime::Result<()>;
    fn pre(pre: InstancePre<StoreData>) -> wasmtime::Result<Self::Pre>;
    fn instantiate(
        pre: &Self::Pre,
        store: &mut Store<StoreData>,
    ) -> wasmtime::Result<Self::Bindings>;
    fn call_start(
        b: &Self::Bindings,
        store: &mut Store<StoreData>,
        info: &GameInfo,
    ) -> wasmtime::Result<()>;
    fn call_decide(
        b: &Self::Bindings,
        store: &mut Store<StoreData>,
        obs: &Self::Observation,
        legal: &[u32],
        budget: Budget,
    ) -> wasmtime::Result<u32>;
}

/// `(seat, card)`-style pairs flattened to bytes; `None` as 255.
pub(crate) const NONE_BYTE: u8 = 255;
