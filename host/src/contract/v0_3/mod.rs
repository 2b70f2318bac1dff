//! Contract 0.3.0 (`wit/v0.3/`), frozen: the observation crosses as one `list<u8>` in the
//! rules crate's wire format 1 (`croupier_rules::wire`). Chosen by measurement over a typed
//! record without lists, events, a handle with accessors and a pull (the candidates in
//! docs/benchmarks-history.md#contract-030-the-candidates-measured-and-the-one-chosen-issue-19-2026-11-26):
//! one list is one allocation in the guest and one copy, where 0.2.0's record cost a store
//! per field and an allocation per list. `game-info`, `budget`, the
//! actions and the host interface are 0.2.0's.

use crate::kind::GameKind;

/// This version and its games.
pub const VERSION: crate::contract::shared::Version = crate::contract::shared::Version {
    number: "0.3.0",
    games: &[GameKind::Durak, GameKind::Toepen, GameKind::Uno],
};

crate::contract::shared::version_bindings!("../wit/v0.3");

pub mod durak;
pub mod toepen;
pub mod uno;

crate::contract::shared::preset_game_info!();

/// What every game module of this version provides (only the names differ).
macro_rules! glue {
    ($module:ident, $types:ident, $world:ident, $pre:ident, $getter:ident) => {
        crate::contract::shared::glue_common!($module, $types, $world, $pre, $getter);

        impl super::bindings::$module::croupier::agent::$types::Host for crate::store::StoreData {}

        /// What this version reuses between decisions: the previous observation's encoding,
        /// whose buffer the next one reuses. The adapter keeps one per seat.
        pub type Scratch = Vec<u8>;

        pub(crate) fn decide(
            b: &Bindings,
            store: &mut wasmtime::Store<crate::store::StoreData>,
            obs: croupier_rules::$module::Observation,
            legal: &[u32],
            budget: crate::contract::shared::Budget,
            scratch: &mut Scratch,
        ) -> wasmtime::Result<u32> {
            croupier_rules::wire::encode(&obs, scratch);
            b.$getter()
                .call_decide(store, scratch, legal, super::budget(budget))
        }
    };
}
use glue;
