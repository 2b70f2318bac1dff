//! One adapter per game: the glue between a rules-crate game and its WIT world, in every
//! contract version that has it (`crate::contract`). Adding a game means one WIT world in the
//! newest contract folder, one rules module, one module per version in `contract/` and one
//! line here; adding a contract version means a new `contract/` module and one more entry in
//! each game's list.

// Each game's module names its world's types (`durak::DurakPre`...); they are not
// re-exported here, since each module calls this one's `adapter!` and a re-export would make
// the two import each other.
pub mod durak;
pub mod toepen;
pub mod uno;

use crate::kind::GameKind;
use crate::start::StartInfo;
use crate::store::StoreData;
use croupier_rules::Game;
use wasmtime::Store;
use wasmtime::component::{InstancePre, Linker};

pub use crate::contract::Budget;

/// A game the host can run agents for.
pub trait Adapter: Game {
    /// Which game this is.
    const KIND: GameKind;
    /// The contract versions that have a world for this game, oldest first.
    const VERSIONS: &'static [&'static str];
    /// The instantiated world's exports.
    type Bindings: Send;
    /// The pre-linked world, ready to instantiate in microseconds.
    type Pre: Clone + Send + Sync + 'static;
    /// What the host reuses between one seat's decisions (each version's buffer or record).
    type Scratch: Default + Send;

    /// Adds to `linker` the host interfaces and types this game's worlds import, in every version.
    fn add_to_linker(linker: &mut Linker<StoreData>) -> wasmtime::Result<()>;
    /// `version` is the contract version the loader read from the component's exports.
    fn pre(pre: InstancePre<StoreData>, version: &str) -> wasmtime::Result<Self::Pre>;
    /// Instantiates the pre-linked world in `store`.
    fn instantiate(
        pre: &Self::Pre,
        store: &mut Store<StoreData>,
    ) -> wasmtime::Result<Self::Bindings>;
    /// Calls the agent's `start` with the game's start information.
    fn call_start(
        b: &Self::Bindings,
        store: &mut Store<StoreData>,
        info: &StartInfo,
    ) -> wasmtime::Result<()>;
    /// Calls the agent's `decide` with the observation, the legal actions (encoded) and its
    /// budget, and returns the action code it answered.
    fn call_decide(
        b: &Self::Bindings,
        store: &mut Store<StoreData>,
        // By value: its vectors move into the WIT record instead of being copied.
        obs: Self::Observation,
        legal: &[u32],
        budget: Budget,
        scratch: &mut Self::Scratch,
    ) -> wasmtime::Result<u32>;
}

/// The `Adapter` impl of a game, over the contract versions it exists in: only the names
/// differ between games. `$pre` and `$bindings` name the game's enums over those versions
/// (one variant per version, dispatching to `crate::contract::<version>::$module`), so a
/// game added in a later version lists only the versions that have it.
macro_rules! adapter {
    ($game:ty, $kind:expr, $module:ident, $pre:ident, $bindings:ident, $scratch:ident,
     [$($variant:ident => $v:ident),+ $(,)?]) => {
        /// The game's pre-linked world, in the contract version of the component.
        #[derive(Clone)]
        pub enum $pre {
            $(
                #[allow(missing_docs)]
                $variant($crate::contract::$v::$module::Pre),
            )+
        }

        /// The game's instantiated world, in the contract version of the component.
        pub enum $bindings {
            $(
                #[allow(missing_docs)]
                $variant($crate::contract::$v::$module::Bindings),
            )+
        }

        /// What the host reuses from one decision to the next for one seat: each version's
        /// own scratch (its buffer or its last record), whichever version the seat's agent is.
        #[derive(Default)]
        pub struct $scratch {
            $(
                #[allow(missing_docs)]
                pub $v: $crate::contract::$v::$module::Scratch,
            )+
        }

        impl $crate::adapters::Adapter for $game {
            const KIND: $crate::kind::GameKind = $kind;
            const VERSIONS: &'static [&'static str] = &[$($crate::contract::$v::VERSION.number),+];
            type Bindings = $bindings;
            type Pre = $pre;
            type Scratch = $scratch;

            fn add_to_linker(
                linker: &mut wasmtime::component::Linker<$crate::store::StoreData>,
            ) -> wasmtime::Result<()> {
                $crate::contract::host::add_host_to_linker(linker)?;
                $($crate::contract::$v::$module::add_to_linker(linker)?;)+
                Ok(())
            }

            fn pre(
                pre: wasmtime::component::InstancePre<$crate::store::StoreData>,
                version: &str,
            ) -> wasmtime::Result<Self::Pre> {
                $(
                    if version == $crate::contract::$v::VERSION.number {
                        return Ok($pre::$variant($crate::contract::$v::$module::pre(pre)?));
                    }
                )+
                // The loader refuses unsupported versions first; this is a backstop.
                Err(wasmtime::Error::msg(format!(
                    "contract version {version} has no {} world",
                    Self::KIND
                )))
            }

            fn instantiate(
                pre: &Self::Pre,
                store: &mut wasmtime::Store<$crate::store::StoreData>,
            ) -> wasmtime::Result<Self::Bindings> {
                Ok(match pre {
                    $($pre::$variant(p) => {
                        $bindings::$variant($crate::contract::$v::$module::instantiate(p, store)?)
                    })+
                })
            }

            fn call_start(
                b: &Self::Bindings,
                store: &mut wasmtime::Store<$crate::store::StoreData>,
                info: &$crate::start::StartInfo,
            ) -> wasmtime::Result<()> {
                match b {
                    $($bindings::$variant(b) => $crate::contract::$v::$module::start(b, store, info),)+
                }
            }

            fn call_decide(
                b: &Self::Bindings,
                store: &mut wasmtime::Store<$crate::store::StoreData>,
                obs: Self::Observation,
                legal: &[u32],
                budget: $crate::contract::Budget,
                scratch: &mut Self::Scratch,
            ) -> wasmtime::Result<u32> {
                match b {
                    $($bindings::$variant(b) => {
                        $crate::contract::$v::$module::decide(b, store, obs, legal, budget, &mut scratch.$v)
                    })+
                }
            }
        }
    };
}
use adapter;

#[cfg(test)]
mod tests {
    use super::Adapter;
    use croupier_rules::durak::Durak;
    use croupier_rules::toepen::Toepen;
    use croupier_rules::uno::Uno;

    /// The versions each adapter dispatches to are the versions `contract::VERSIONS` says
    /// have that game: the two lists cannot drift apart.
    #[test]
    fn adapters_cover_exactly_the_versions_of_their_game() {
        assert_eq!(Durak::VERSIONS, crate::contract::versions_of(Durak::KIND));
        assert_eq!(Toepen::VERSIONS, crate::contract::versions_of(Toepen::KIND));
        assert_eq!(Uno::VERSIONS, crate::contract::versions_of(Uno::KIND));
    }
}
