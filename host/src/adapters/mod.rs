//! One adapter per game: the glue between a rules-crate game and its WIT world, in every
//! supported contract version. Adding a game means one WIT world, one rules module and one
//! file here; adding a contract version means one more `to_wit` per game.

mod durak;
mod toepen;
mod uno;

use crate::loader::GameKind;
use crate::player::StartInfo;
use crate::sandbox::StoreData;
use croupier_rules::Game;
use wasmtime::Store;
use wasmtime::component::{InstancePre, Linker};

/// What is left to spend on a decision, before it is put in a version's `budget` record.
#[derive(Copy, Clone, Debug)]
pub struct Budget {
    pub fuel: u64,
    pub millis: u32,
    pub bank_millis: Option<u32>,
}

/// A game the host can run agents for.
pub trait Adapter: Game {
    const KIND: GameKind;
    /// The instantiated world's exports.
    type Bindings: Send;
    /// The pre-linked world, ready to instantiate in microseconds.
    type Pre: Clone + Send + Sync + 'static;
    /// The last observation record sent, whose vectors the next one reuses.
    type Scratch: Default + Send;

    fn add_to_linker(linker: &mut Linker<StoreData>) -> wasmtime::Result<()>;
    /// `version` is the contract version the loader read from the component's exports.
    fn pre(pre: InstancePre<StoreData>, version: &str) -> wasmtime::Result<Self::Pre>;
    fn instantiate(
        pre: &Self::Pre,
        store: &mut Store<StoreData>,
    ) -> wasmtime::Result<Self::Bindings>;
    fn call_start(
        b: &Self::Bindings,
        store: &mut Store<StoreData>,
        info: &StartInfo,
    ) -> wasmtime::Result<()>;
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

/// Refills a vector of the previous record instead of allocating a new one (a host
/// allocation and free per list per decision showed in the profile).
pub(crate) fn refill<T>(mut v: Vec<T>, items: impl Iterator<Item = T>) -> Vec<T> {
    v.clear();
    v.extend(items);
    v
}

/// `game-info` in contract 0.1.0: every option.
pub(crate) fn game_info_v0_1(info: &StartInfo) -> crate::bindings::v0_1::GameInfo {
    crate::bindings::v0_1::GameInfo {
        seat: info.seat,
        players: info.players,
        rules: info.rules.all.to_vec(),
        seed: info.seed,
        args: info.args.clone(),
    }
}

/// `game-info` in contract 0.2.0: the closest preset and what differs from it.
pub(crate) fn game_info_v0_2(info: &StartInfo) -> crate::bindings::v0_2::GameInfo {
    crate::bindings::v0_2::GameInfo {
        seat: info.seat,
        players: info.players,
        preset: info.rules.preset.to_string(),
        rules: info.rules.overrides.to_vec(),
        seed: info.seed,
        args: info.args.clone(),
    }
}

/// The `Adapter` impl every game shares: only the names differ. `$world` and `$pre` are the
/// bindgen world and its pre-instance type, found in `bindings::<version>::$module`, and
/// `$types` its types interface;
/// `$getter` is the accessor of the exported agent interface. The game's module provides
/// `v0_1::to_wit` and `v0_2::to_wit`, which build each version's observation record.
macro_rules! adapter {
    ($game:ty, $kind:expr, $module:ident, $types:ident, $world:ident, $pre:ident, $getter:ident) => {
        impl $crate::adapters::Adapter for $game {
            const KIND: $crate::loader::GameKind = $kind;
            type Bindings = $crate::bindings::Versioned<
                $crate::bindings::v0_1::$module::$world,
                $crate::bindings::v0_2::$module::$world,
            >;
            type Pre = $crate::bindings::Versioned<
                $crate::bindings::v0_1::$module::$pre<$crate::sandbox::StoreData>,
                $crate::bindings::v0_2::$module::$pre<$crate::sandbox::StoreData>,
            >;
            type Scratch =
                Option<$crate::bindings::v0_2::$module::croupier::agent::$types::Observation>;

            fn add_to_linker(
                linker: &mut wasmtime::component::Linker<$crate::sandbox::StoreData>,
            ) -> wasmtime::Result<()> {
                type Data = $crate::sandbox::StoreData;
                type Get = wasmtime::component::HasSelf<Data>;
                $crate::sandbox::add_host_to_linker(linker)?;
                // The types interface only: the world's own add_to_linker would add `host`
                // again.
                $crate::bindings::v0_1::$module::croupier::agent::$types::add_to_linker::<
                    Data,
                    Get,
                >(linker, |s| s)?;
                $crate::bindings::v0_2::$module::croupier::agent::$types::add_to_linker::<
                    Data,
                    Get,
                >(linker, |s| s)
            }
            fn pre(
                pre: wasmtime::component::InstancePre<$crate::sandbox::StoreData>,
                version: &str,
            ) -> wasmtime::Result<Self::Pre> {
                use $crate::bindings::Versioned;
                match version {
                    "0.1.0" => Ok(Versioned::V0_1($crate::bindings::v0_1::$module::$pre::new(
                        pre,
                    )?)),
                    "0.2.0" => Ok(Versioned::V0_2($crate::bindings::v0_2::$module::$pre::new(
                        pre,
                    )?)),
                    // The loader refuses unsupported versions first; this is a backstop.
                    other => Err(wasmtime::Error::msg(format!(
                        "contract version {other} is not supported"
                    ))),
                }
            }
            fn instantiate(
                pre: &Self::Pre,
                store: &mut wasmtime::Store<$crate::sandbox::StoreData>,
            ) -> wasmtime::Result<Self::Bindings> {
                use $crate::bindings::Versioned;
                Ok(match pre {
                    Versioned::V0_1(p) => Versioned::V0_1(p.instantiate(store)?),
                    Versioned::V0_2(p) => Versioned::V0_2(p.instantiate(store)?),
                })
            }
            fn call_start(
                b: &Self::Bindings,
                store: &mut wasmtime::Store<$crate::sandbox::StoreData>,
                info: &$crate::player::StartInfo,
            ) -> wasmtime::Result<()> {
                use $crate::bindings::Versioned;
                match b {
                    Versioned::V0_1(b) => b
                        .$getter()
                        .call_start(store, &$crate::adapters::game_info_v0_1(info)),
                    Versioned::V0_2(b) => b
                        .$getter()
                        .call_start(store, &$crate::adapters::game_info_v0_2(info)),
                }
            }
            fn call_decide(
                b: &Self::Bindings,
                store: &mut wasmtime::Store<$crate::sandbox::StoreData>,
                obs: Self::Observation,
                legal: &[u32],
                budget: $crate::adapters::Budget,
                scratch: &mut Self::Scratch,
            ) -> wasmtime::Result<u32> {
                use $crate::bindings::Versioned;
                let $crate::adapters::Budget {
                    fuel,
                    millis,
                    bank_millis,
                } = budget;
                match b {
                    Versioned::V0_1(b) => b.$getter().call_decide(
                        store,
                        &v0_1::to_wit(obs),
                        legal,
                        $crate::bindings::v0_1::Budget {
                            fuel,
                            millis,
                            bank_millis,
                        },
                    ),
                    Versioned::V0_2(b) => {
                        let record = v0_2::to_wit(obs, scratch.take());
                        let r = b.$getter().call_decide(
                            store,
                            &record,
                            legal,
                            $crate::bindings::v0_2::Budget {
                                fuel,
                                millis,
                                bank_millis,
                            },
                        );
                        *scratch = Some(record);
                        r
                    }
                }
            }
        }
    };
}
use adapter;

/// `(seat, card)`-style pairs flattened to bytes; `None` as 255 (contract 0.1.0).
pub(crate) const NONE_BYTE: u8 = 255;
