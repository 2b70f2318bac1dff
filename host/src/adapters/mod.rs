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
        // By value: its vectors move into the WIT record instead of being copied.
        obs: Self::Observation,
        legal: &[u32],
        budget: Budget,
    ) -> wasmtime::Result<u32>;
}

/// The `Adapter` impl every game shares: only the names differ. `$getter` is the
/// bindings' accessor for the world's exported agent interface; `to_wit` (in the game's
/// module) converts the rules crate's observation into the WIT record.
macro_rules! adapter {
    ($game:ty, $kind:expr, $world:ty, $pre:ident, $getter:ident) => {
        impl $crate::adapters::Adapter for $game {
            const KIND: $crate::loader::GameKind = $kind;
            type Bindings = $world;
            type Pre = $pre<$crate::sandbox::StoreData>;

            fn add_to_linker(
                linker: &mut wasmtime::component::Linker<$crate::sandbox::StoreData>,
            ) -> wasmtime::Result<()> {
                $crate::sandbox::add_host_to_linker(linker)?;
                wit::add_to_linker::<
                    $crate::sandbox::StoreData,
                    wasmtime::component::HasSelf<$crate::sandbox::StoreData>,
                >(linker, |s| s)
            }
            fn pre(
                pre: wasmtime::component::InstancePre<$crate::sandbox::StoreData>,
            ) -> wasmtime::Result<Self::Pre> {
                $pre::new(pre)
            }
            fn instantiate(
                pre: &Self::Pre,
                store: &mut wasmtime::Store<$crate::sandbox::StoreData>,
            ) -> wasmtime::Result<$world> {
                pre.instantiate(store)
            }
            fn call_start(
                b: &$world,
                store: &mut wasmtime::Store<$crate::sandbox::StoreData>,
                info: &$crate::bindings::GameInfo,
            ) -> wasmtime::Result<()> {
                b.$getter().call_start(store, info)
            }
            fn call_decide(
                b: &$world,
                store: &mut wasmtime::Store<$crate::sandbox::StoreData>,
                obs: Self::Observation,
                legal: &[u32],
                budget: $crate::bindings::Budget,
            ) -> wasmtime::Result<u32> {
                b.$getter().call_decide(store, &to_wit(obs), legal, budget)
            }
        }
    };
}
use adapter;

/// `(seat, card)`-style pairs flattened to bytes; `None` as 255.
pub(crate) const NONE_BYTE: u8 = 255;
