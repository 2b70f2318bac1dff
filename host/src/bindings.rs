//! Host-side bindings of the WIT contract, one module per world. The `host` and `common`
//! interfaces are generated once (in `durak`) and shared by the other worlds, so the store
//! implements the host services once.

#[allow(clippy::all)]
pub mod durak {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "durak",
        // `log` may trap: that is how a log flood ends the agent's call.
        imports: { "croupier:agent/host.log": trappable },
    });
}

#[allow(clippy::all)]
pub mod toepen {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "toepen",
        with: {
            "croupier:agent/host": super::durak::croupier::agent::host,
            "croupier:agent/common": super::durak::croupier::agent::common,
        },
    });
}

#[allow(clippy::all)]
pub mod uno {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "uno",
        with: {
            "croupier:agent/host": super::durak::croupier::agent::host,
            "croupier:agent/common": super::durak::croupier::agent::common,
        },
    });
}

pub use durak::croupier::agent::common::{Budget, GameInfo};
pub use durak::croupier::agent::host::Level;
