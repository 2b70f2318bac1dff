//! What every contract version's module uses alike: the budget and version records, the
//! refilling of a previous record's vectors, and the macros that generate a version's
//! bindings and its game modules' common glue. A leaf below the versions: it names none of
//! them, so a frozen version depends on it and on its own generated types only.

use crate::kind::GameKind;

/// What is left to spend on a decision, before it is put in a version's `budget` record.
#[derive(Copy, Clone, Debug)]
pub struct Budget {
    /// Fuel (roughly, WebAssembly instructions) for this decision.
    pub fuel: u64,
    /// Wall-clock milliseconds for this decision.
    pub millis: u32,
    /// Milliseconds left in this game's time bank, when the match has one.
    pub bank_millis: Option<u32>,
}

/// Refills a vector of the previous record instead of allocating a new one (a host
/// allocation and free per list per decision showed in the profile).
pub(crate) fn refill<T>(mut v: Vec<T>, items: impl Iterator<Item = T>) -> Vec<T> {
    v.clear();
    v.extend(items);
    v
}

/// One published contract version.
#[derive(Copy, Clone, Debug)]
pub struct Version {
    /// As it appears in export names: `croupier:agent/durak-agent@0.2.0`.
    pub number: &'static str,
    /// The games it has worlds for.
    pub games: &'static [GameKind],
}

/// What every version module holds besides its game files: the bindings of every world,
/// generated from the version's own WIT folder (`host` and `common` once, in `durak`, shared
/// by the other worlds), the re-exported shared types, the `common` interface's linker entry
/// and the budget record.
macro_rules! version_bindings {
    ($folder:literal) => {
        /// The generated bindings: one module per world.
        #[allow(missing_docs, clippy::all)]
        pub mod bindings {
            pub mod durak {
                wasmtime::component::bindgen!({
                    path: $folder,
                    world: "durak",
                    // `log` may trap: that is how a log flood ends the agent's call.
                    imports: { "croupier:agent/host.log": trappable },
                });
            }

            pub mod toepen {
                wasmtime::component::bindgen!({
                    path: $folder,
                    world: "toepen",
                    with: {
                        "croupier:agent/host": super::durak::croupier::agent::host,
                        "croupier:agent/common": super::durak::croupier::agent::common,
                    },
                });
            }

            pub mod uno {
                wasmtime::component::bindgen!({
                    path: $folder,
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

        impl bindings::durak::croupier::agent::common::Host for crate::store::StoreData {}

        pub(crate) fn add_common_to_linker(
            linker: &mut wasmtime::component::Linker<crate::store::StoreData>,
        ) -> wasmtime::Result<()> {
            bindings::durak::croupier::agent::common::add_to_linker::<
                crate::store::StoreData,
                wasmtime::component::HasSelf<crate::store::StoreData>,
            >(linker, |s| s)
        }

        fn budget(b: crate::contract::Budget) -> Budget {
            Budget {
                fuel: b.fuel,
                millis: b.millis,
                bank_millis: b.bank_millis,
            }
        }
    };
}
pub(crate) use version_bindings;

/// What every game module of every version provides alike: its world's types, its types-only
/// interface's linker entry, and pre-instantiation, instantiation and `start` (only `decide`
/// differs between versions, in each version's `glue!`).
macro_rules! glue_common {
    ($module:ident, $types:ident, $world:ident, $pre:ident, $getter:ident) => {
        /// The instantiated world's exports.
        pub type Bindings = super::bindings::$module::$world;
        /// The pre-linked world.
        pub type Pre = super::bindings::$module::$pre<crate::store::StoreData>;

        /// The game's types-only interface.
        pub(crate) fn add_to_linker(
            linker: &mut wasmtime::component::Linker<crate::store::StoreData>,
        ) -> wasmtime::Result<()> {
            super::bindings::$module::croupier::agent::$types::add_to_linker::<
                crate::store::StoreData,
                wasmtime::component::HasSelf<crate::store::StoreData>,
            >(linker, |s| s)
        }

        pub(crate) fn pre(
            p: wasmtime::component::InstancePre<crate::store::StoreData>,
        ) -> wasmtime::Result<Pre> {
            Pre::new(p)
        }

        pub(crate) fn instantiate(
            p: &Pre,
            store: &mut wasmtime::Store<crate::store::StoreData>,
        ) -> wasmtime::Result<Bindings> {
            p.instantiate(store)
        }

        pub(crate) fn start(
            b: &Bindings,
            store: &mut wasmtime::Store<crate::store::StoreData>,
            info: &crate::start::StartInfo,
        ) -> wasmtime::Result<()> {
            b.$getter().call_start(store, &super::game_info(info))
        }
    };
}
pub(crate) use glue_common;

/// `game-info` as 0.2.0 made it and later versions kept: the closest preset and the options
/// that differ from it. Expanded in each version's `mod.rs`, where `GameInfo` names that
/// version's record (the records are distinct types, one per version, with the same fields).
macro_rules! preset_game_info {
    () => {
        /// `game-info`: the closest preset and the options that differ from it.
        fn game_info(info: &crate::start::StartInfo) -> GameInfo {
            GameInfo {
                seat: info.seat,
                players: info.players,
                preset: info.rules.preset.to_string(),
                rules: info.rules.overrides.to_vec(),
                seed: info.seed,
                args: info.args.clone(),
            }
        }
    };
}
pub(crate) use preset_game_info;

// The enum conversions of each game, the same in every version; expanded inside each
// version's game module, where `wit` names that version's types.
macro_rules! durak_enums {
    () => {
        fn phase(p: Phase) -> wit::Phase {
            match p {
                Phase::Lead => wit::Phase::Lead,
                Phase::Defend => wit::Phase::Defend,
                Phase::ThrowIn => wit::Phase::ThrowIn,
                Phase::Over => wit::Phase::Over,
            }
        }
    };
}

macro_rules! toepen_enums {
    () => {
        fn decision(d: Decision) -> wit::Decision {
            match d {
                Decision::Laundry => wit::Decision::Laundry,
                Decision::LaundryChallenge => wit::Decision::LaundryChallenge,
                Decision::Poverty => wit::Decision::Poverty,
                Decision::Play => wit::Decision::Play,
                Decision::KnockWindow => wit::Decision::KnockWindow,
                Decision::KnockResponse => wit::Decision::KnockResponse,
                Decision::Over => wit::Decision::Over,
            }
        }
    };
}

macro_rules! uno_enums {
    () => {
        fn decision(d: Decision) -> wit::Decision {
            match d {
                Decision::ChooseStartColor => wit::Decision::ChooseStartColor,
                Decision::Turn => wit::Decision::Turn,
                Decision::AfterDraw => wit::Decision::AfterDraw,
                Decision::Wd4Challenge => wit::Decision::Wd4Challenge,
                Decision::PenaltyTurn => wit::Decision::PenaltyTurn,
                Decision::UnoCatch => wit::Decision::UnoCatch,
                Decision::Over => wit::Decision::Over,
            }
        }

        fn color(c: Color) -> wit::Color {
            match c {
                Color::Red => wit::Color::Red,
                Color::Yellow => wit::Color::Yellow,
                Color::Green => wit::Color::Green,
                Color::Blue => wit::Color::Blue,
            }
        }
    };
}

pub(crate) use durak_enums;
pub(crate) use toepen_enums;
pub(crate) use uno_enums;
