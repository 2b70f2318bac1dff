//! Host-side bindings of the WIT contract: one module per contract version, one per world
//! inside it. Within a version the `host` and `common` interfaces are generated once (in
//! `durak`) and shared by the other worlds, so the store implements the host services once
//! per version.
//!
//! Every supported version stays here for good (docs/versioning.md): an agent built against
//! 0.1.0 is linked against the 0.1.0 bindings and gets the 0.1.0 records.

/// Generates one contract version's bindings from its WIT directory.
macro_rules! version {
    ($module:ident, $path:literal) => {
        pub mod $module {
            #[allow(clippy::all)]
            pub mod durak {
                wasmtime::component::bindgen!({
                    path: $path,
                    world: "durak",
                    // `log` may trap: that is how a log flood ends the agent's call.
                    imports: { "croupier:agent/host.log": trappable },
                });
            }

            #[allow(clippy::all)]
            pub mod toepen {
                wasmtime::component::bindgen!({
                    path: $path,
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
                    path: $path,
                    world: "uno",
                    with: {
                        "croupier:agent/host": super::durak::croupier::agent::host,
                        "croupier:agent/common": super::durak::croupier::agent::common,
                    },
                });
            }

            pub use durak::croupier::agent::common::{Budget, GameInfo};
            pub use durak::croupier::agent::host::Level;
        }
    };
}

version!(v0_1, "../wit/v0.1");
version!(v0_2, "../wit");

/// One value per contract version (an instance-pre, an instance's exports).
pub enum Versioned<A, B> {
    V0_1(A),
    V0_2(B),
}

impl<A: Clone, B: Clone> Clone for Versioned<A, B> {
    fn clone(&self) -> Self {
        match self {
            Versioned::V0_1(a) => Versioned::V0_1(a.clone()),
            Versioned::V0_2(b) => Versioned::V0_2(b.clone()),
        }
    }
}
