//! Contract 0.1.0 (`wit/v0.1/`), frozen: every per-seat field of an observation is its own list, and `game-info` carries every rule option.

use crate::loader::GameKind;
use crate::player::StartInfo;
use crate::sandbox::StoreData;
use wasmtime::component::{HasSelf, Linker};

/// This version and its games.
pub const VERSION: super::Version = super::Version {
    number: "0.1.0",
    games: &[GameKind::Durak, GameKind::Toepen, GameKind::Uno],
};

/// The generated bindings: one module per world; `host` and `common` are generated once (in
/// `durak`) and shared by the other worlds.
#[allow(missing_docs, clippy::all)]
pub mod bindings {
    pub mod durak {
        wasmtime::component::bindgen!({
            path: "../wit/v0.1",
            world: "durak",
            // `log` may trap: that is how a log flood ends the agent's call.
            imports: { "croupier:agent/host.log": trappable },
        });
    }

    pub mod toepen {
        wasmtime::component::bindgen!({
            path: "../wit/v0.1",
            world: "toepen",
            with: {
                "croupier:agent/host": super::durak::croupier::agent::host,
                "croupier:agent/common": super::durak::croupier::agent::common,
            },
        });
    }

    pub mod uno {
        wasmtime::component::bindgen!({
            path: "../wit/v0.1",
            world: "uno",
            with: {
                "croupier:agent/host": super::durak::croupier::agent::host,
                "croupier:agent/common": super::durak::croupier::agent::common,
            },
        });
    }
}

pub use bindings::durak::croupier::agent::common::{Budget, GameInfo};
pub use bindings::durak::croupier::agent::host::Level;

pub mod durak;
pub mod toepen;
pub mod uno;

impl bindings::durak::croupier::agent::common::Host for StoreData {}

pub(crate) fn add_common_to_linker(linker: &mut Linker<StoreData>) -> wasmtime::Result<()> {
    bindings::durak::croupier::agent::common::add_to_linker::<StoreData, HasSelf<StoreData>>(
        linker,
        |s| s,
    )
}

fn budget(b: crate::adapters::Budget) -> Budget {
    Budget {
        fuel: b.fuel,
        millis: b.millis,
        bank_millis: b.bank_millis,
    }
}

/// `(seat, card)`-style pairs flattened to bytes; `None` as 255.
pub(crate) const NONE_BYTE: u8 = 255;

/// `game-info`: every option.
fn game_info(info: &StartInfo) -> GameInfo {
    GameInfo {
        seat: info.seat,
        players: info.players,
        rules: info.rules.all.to_vec(),
        seed: info.seed,
        args: info.args.clone(),
    }
}

/// What every game module of this version provides (only the names differ).
macro_rules! glue {
    ($module:ident, $types:ident, $world:ident, $pre:ident, $getter:ident) => {
        /// The instantiated world's exports.
        pub type Bindings = super::bindings::$module::$world;
        /// The pre-linked world.
        pub type Pre = super::bindings::$module::$pre<crate::sandbox::StoreData>;

        /// The game's types-only interface.
        pub(crate) fn add_to_linker(
            linker: &mut wasmtime::component::Linker<crate::sandbox::StoreData>,
        ) -> wasmtime::Result<()> {
            super::bindings::$module::croupier::agent::$types::add_to_linker::<
                crate::sandbox::StoreData,
                wasmtime::component::HasSelf<crate::sandbox::StoreData>,
            >(linker, |s| s)
        }

        pub(crate) fn pre(
            p: wasmtime::component::InstancePre<crate::sandbox::StoreData>,
        ) -> wasmtime::Result<Pre> {
            Pre::new(p)
        }

        pub(crate) fn instantiate(
            p: &Pre,
            store: &mut wasmtime::Store<crate::sandbox::StoreData>,
        ) -> wasmtime::Result<Bindings> {
            p.instantiate(store)
        }

        pub(crate) fn start(
            b: &Bindings,
            store: &mut wasmtime::Store<crate::sandbox::StoreData>,
            info: &crate::player::StartInfo,
        ) -> wasmtime::Result<()> {
            b.$getter().call_start(store, &super::game_info(info))
        }

        /// The newest version's scratch record is not used: 0.1.0 builds its record anew.
        pub(crate) fn decide(
            b: &Bindings,
            store: &mut wasmtime::Store<crate::sandbox::StoreData>,
            obs: Observation,
            legal: &[u32],
            budget: crate::adapters::Budget,
            _scratch: &mut crate::contract::latest::$module::Scratch,
        ) -> wasmtime::Result<u32> {
            b.$getter()
                .call_decide(store, &to_wit(obs), legal, super::budget(budget))
        }
    };
}
use glue;
