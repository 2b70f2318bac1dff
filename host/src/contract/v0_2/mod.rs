//! Contract 0.2.0 (`wit/v0.2/`), frozen: per-seat fields travel in one list of records, and `game-info` carries the closest preset and what differs from it.

use crate::kind::GameKind;
use crate::start::StartInfo;

/// This version and its games.
pub const VERSION: super::Version = super::Version {
    number: "0.2.0",
    games: &[GameKind::Durak, GameKind::Toepen, GameKind::Uno],
};

super::version_bindings!("../wit/v0.2");

pub mod durak;
pub mod toepen;
pub mod uno;

/// `game-info`: the closest preset and the options that differ from it.
fn game_info(info: &StartInfo) -> GameInfo {
    GameInfo {
        seat: info.seat,
        players: info.players,
        preset: info.rules.preset.to_string(),
        rules: info.rules.overrides.to_vec(),
        seed: info.seed,
        args: info.args.clone(),
    }
}

/// What every game module of this version provides (only the names differ).
macro_rules! glue {
    ($module:ident, $types:ident, $world:ident, $pre:ident, $getter:ident) => {
        crate::contract::glue_common!($module, $types, $world, $pre, $getter);

        /// The last observation record sent, whose vectors the next one reuses (a host
        /// allocation and free per list per decision showed in the profile). It lives in the
        /// newest version's scratch, which the adapter keeps.
        pub type Record = Option<wit::Observation>;

        pub(crate) fn decide(
            b: &Bindings,
            store: &mut wasmtime::Store<crate::store::StoreData>,
            obs: Observation,
            legal: &[u32],
            budget: crate::contract::Budget,
            scratch: &mut crate::contract::latest::$module::Scratch,
        ) -> wasmtime::Result<u32> {
            let record = to_wit(obs, scratch.record.take());
            let r = b
                .$getter()
                .call_decide(store, &record, legal, super::budget(budget));
            scratch.record = Some(record);
            r
        }
    };
}
use glue;
