//! Contract 0.2.0 (`wit/v0.2/`), frozen: per-seat fields travel in one list of records, and `game-info` carries the closest preset and what differs from it.

use crate::kind::GameKind;

/// This version and its games.
pub const VERSION: crate::contract::shared::Version = crate::contract::shared::Version {
    number: "0.2.0",
    games: &[GameKind::Durak, GameKind::Toepen, GameKind::Uno],
};

crate::contract::shared::version_bindings!("../wit/v0.2");

pub mod durak;
pub mod toepen;
pub mod uno;

crate::contract::shared::preset_game_info!();

/// What every game module of this version provides (only the names differ).
macro_rules! glue {
    ($module:ident, $types:ident, $world:ident, $pre:ident, $getter:ident) => {
        crate::contract::shared::glue_common!($module, $types, $world, $pre, $getter);

        /// What this version reuses between decisions: the last observation record sent,
        /// whose vectors the next one reuses (a host allocation and free per list per
        /// decision showed in the profile). The adapter keeps one per seat.
        pub type Scratch = Option<wit::Observation>;

        pub(crate) fn decide(
            b: &Bindings,
            store: &mut wasmtime::Store<crate::store::StoreData>,
            obs: Observation,
            legal: &[u32],
            budget: crate::contract::shared::Budget,
            scratch: &mut Scratch,
        ) -> wasmtime::Result<u32> {
            let record = to_wit(obs, scratch.take());
            let r = b
                .$getter()
                .call_decide(store, &record, legal, super::budget(budget));
            *scratch = Some(record);
            r
        }
    };
}
use glue;
