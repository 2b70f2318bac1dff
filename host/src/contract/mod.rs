//! The agent contract on the host side, organised by version, as Zed's
//! `extension_host/src/wasm_host/wit/since_v*.rs`: one module per published version
//! (`v0_1`, `v0_2`, `v0_3`), each holding the bindings of every game that version has and the
//! conversions into its records, generated from its own frozen folder (`wit/v0.1/`,
//! `wit/v0.2/`, `wit/v0.3/`). [`latest`] names the newest. The versions this host serves, and which games
//! each has, are listed once, in [`VERSIONS`]; a game first added in a later version simply
//! has no module in the older ones (the adapter of a game lists the versions it exists in,
//! see `crate::adapters`).
//!
//! Threat model: an agent picks its version by the name it exports; only the versions here
//! are linked, and each version's records are built by the host from the rules crate's
//! observation, so an old agent sees exactly what a new one sees, in its own encoding.

use crate::kind::GameKind;
use crate::store::StoreData;
use wasmtime::component::Linker;

pub(crate) mod host;
mod shared;
pub mod v0_1;
pub mod v0_2;
pub mod v0_3;

pub use shared::{Budget, Version};

/// The newest contract version: what the SDK and new agents build against.
pub use v0_3 as latest;

/// Every version this host serves, oldest first. A later host keeps older entries (and their
/// modules) so that agents built against them keep loading; see docs/versioning.md.
pub const VERSIONS: &[Version] = &[v0_1::VERSION, v0_2::VERSION, v0_3::VERSION];

/// The version numbers served.
pub fn numbers() -> impl Iterator<Item = &'static str> {
    VERSIONS.iter().map(|v| v.number)
}

/// Whether `version` is served at all.
pub fn serves(version: &str) -> bool {
    numbers().any(|n| n == version)
}

/// Whether `version` has a world for `game`.
pub fn has(game: GameKind, version: &str) -> bool {
    VERSIONS
        .iter()
        .any(|v| v.number == version && v.games.contains(&game))
}

/// The versions that have a world for `game`, oldest first.
pub fn versions_of(game: GameKind) -> Vec<&'static str> {
    VERSIONS
        .iter()
        .filter(|v| v.games.contains(&game))
        .map(|v| v.number)
        .collect()
}

/// The shared types-only interface (`common`) of every version.
pub(crate) fn add_common_to_linker(linker: &mut Linker<StoreData>) -> wasmtime::Result<()> {
    v0_1::add_common_to_linker(linker)?;
    v0_2::add_common_to_linker(linker)?;
    v0_3::add_common_to_linker(linker)
}

#[cfg(test)]
mod tests {
    /// Each version's files, as compiled.
    const SOURCES: &[(&str, &[&str])] = &[
        (
            "v0_1",
            &[
                include_str!("v0_1/mod.rs"),
                include_str!("v0_1/durak.rs"),
                include_str!("v0_1/toepen.rs"),
                include_str!("v0_1/uno.rs"),
            ],
        ),
        (
            "v0_2",
            &[
                include_str!("v0_2/mod.rs"),
                include_str!("v0_2/durak.rs"),
                include_str!("v0_2/toepen.rs"),
                include_str!("v0_2/uno.rs"),
            ],
        ),
        (
            "v0_3",
            &[
                include_str!("v0_3/mod.rs"),
                include_str!("v0_3/durak.rs"),
                include_str!("v0_3/toepen.rs"),
                include_str!("v0_3/uno.rs"),
            ],
        ),
    ];

    /// A frozen version's module names neither `latest` nor another version: publishing the
    /// next version must not mean editing it (docs/versioning.md).
    #[test]
    fn frozen_versions_name_no_other_version() {
        assert_eq!(
            SOURCES.len(),
            super::VERSIONS.len(),
            "list every version's files here"
        );
        for (own, files) in SOURCES {
            for text in *files {
                let code: String = text
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("//"))
                    .collect::<Vec<_>>()
                    .join("\n");
                assert!(!code.contains("latest"), "{own} names `latest`");
                for (other, _) in SOURCES.iter().filter(|(v, _)| v != own) {
                    assert!(!code.contains(other), "{own} names {other}");
                }
            }
        }
    }
}
