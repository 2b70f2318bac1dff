//! Contract 0.1.0 (`wit/v0.1/`), frozen: every per-seat field of an observation is its own list, and `game-info` carries every rule option.

use crate::kind::GameKind;
use crate::start::StartInfo;

/// This version and its games.
pub const VERSION: crate::contract::shared::Version = crate::contract::shared::Version {
    number: "0.1.0",
    games: &[GameKind::Durak, GameKind::Toepen, GameKind::Uno],
};

crate::contract::shared::version_bindings!("../wit/v0.1");

pub mod durak;
pub mod toepen;
pub mod uno;

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
        crate::contract::shared::glue_common!($module, $types, $world, $pre, $getter);

        /// What this version reuses between decisions: nothing, it builds its record anew.
        pub type Scratch = ();

        pub(crate) fn decide(
            b: &Bindings,
            store: &mut wasmtime::Store<crate::store::StoreData>,
            obs: Observation,
            legal: &[u32],
            budget: crate::contract::shared::Budget,
            _scratch: &mut Scratch,
        ) -> wasmtime::Result<u32> {
            b.$getter()
                .call_decide(store, &to_wit(obs), legal, super::budget(budget))
        }
    };
}
use glue;
