//! Loading an agent file: from bytes to a compiled component whose world, version and imports
//! have been checked.
//!
//! Threat model: the file is untrusted. It may be empty, not WebAssembly, a core module, a
//! component of some other world or version, or a component that imports capabilities (files,
//! sockets, clocks, environment) in the hope that the host links them. Each case is refused
//! here with an error naming the file and saying what was expected. The imports check is the
//! capability check: the host offers exactly `croupier:agent/host` (log, seeded random) plus
//! the types-only interfaces of the agent's own world, and nothing else is ever linked.

use crate::cache::{Cache, CacheOutcome};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use wasmtime::Engine;
use wasmtime::component::Component;

/// The WIT package every agent world lives in.
pub const PACKAGE: &str = "croupier:agent";

/// Versions of the contract this host implements. A later host keeps older entries (and
/// their bindings) so that agents built against them keep loading; see docs/versioning.md.
pub const SUPPORTED_VERSIONS: &[&str] = &["0.1.0", "0.2.0"];

/// The games (WIT worlds) this host knows.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameKind {
    Durak,
    Toepen,
    Uno,
}

impl GameKind {
    pub const ALL: [GameKind; 3] = [GameKind::Durak, GameKind::Toepen, GameKind::Uno];

    pub fn name(self) -> &'static str {
        match self {
            GameKind::Durak => "durak",
            GameKind::Toepen => "toepen",
            GameKind::Uno => "uno",
        }
    }

    pub fn parse(s: &str) -> Option<GameKind> {
        GameKind::ALL
            .into_iter()
            .find(|g| g.name().eq_ignore_ascii_case(s.trim()))
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a file cannot be used as an agent. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: cannot read the file: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: the file is empty; expected a WebAssembly component")]
    Empty { path: PathBuf },
    #[error(
        "{path}: not a WebAssembly file (it does not start with the bytes \\0asm); expected a component built with `croupier build`"
    )]
    NotWasm { path: PathBuf },
    #[error(
        "{path}: this is a core WebAssembly module, not a component; build the agent with `croupier build` (which encodes the module as a component)"
    )]
    CoreModule { path: PathBuf },
    #[error("{path}: not a valid component: {reason}")]
    Invalid { path: PathBuf, reason: String },
    #[error("{path}: exports no Croupier agent; expected one of {expected}, found {found}")]
    NoWorld {
        path: PathBuf,
        expected: String,
        found: String,
    },
    #[error(
        "{path}: implements {world} version {found}, which this host does not support (supported: {supported})"
    )]
    Version {
        path: PathBuf,
        world: String,
        found: String,
        supported: String,
    },
    #[error("{path}: exports agents for more than one game ({games}); an agent plays one game")]
    Ambiguous { path: PathBuf, games: String },
    #[error("{path}: is a {found} agent, but this is a {expected} match")]
    WrongGame {
        path: PathBuf,
        found: GameKind,
        expected: GameKind,
    },
    #[error(
        "{path}: imports `{import}`, which agents may not use (the host offers only {PACKAGE}/host: log and seeded random; no files, clock, network or environment)"
    )]
    Capability { path: PathBuf, import: String },
    #[error("{path}: cannot be linked: {reason}")]
    Link { path: PathBuf, reason: String },
}

/// A compiled component that passed every check.
#[derive(Clone)]
pub struct LoadedComponent {
    pub path: PathBuf,
    pub game: GameKind,
    pub version: String,
    pub component: Component,
    /// Source language from the producers section (`Rust`, `Python`, ...), when recorded.
    pub language: Option<String>,
    pub cache: CacheOutcome,
    pub load_time: Duration,
    pub size: usize,
    /// First 12 hex digits of the file's SHA-256: names the build in game records.
    pub build: String,
}

/// Reads and checks an agent file, compiling it (or loading it from the cache).
pub fn load(engine: &Engine, cache: &Cache, path: &Path) -> Result<LoadedComponent, LoadError> {
    let start = Instant::now();
    let bytes = std::fs::read(path).map_err(|source| LoadError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut loaded = check_and_compile(engine, cache, path, &bytes)?;
    loaded.load_time = start.elapsed();
    Ok(loaded)
}

/// The checks of [`load`] on bytes already in memory.
pub fn check_and_compile(
    engine: &Engine,
    cache: &Cache,
    path: &Path,
    bytes: &[u8],
) -> Result<LoadedComponent, LoadError> {
    let p = || path.to_path_buf();
    if bytes.is_empty() {
        return Err(LoadError::Empty { path: p() });
    }
    if !bytes.starts_with(b"\0asm") {
        return Err(LoadError::NotWasm { path: p() });
    }
    if wasmparser::Parser::is_core_wasm(bytes) {
        return Err(LoadError::CoreModule { path: p() });
    }
    if !wasmparser::Parser::is_component(bytes) {
        return Err(LoadError::Invalid {
            path: p(),
            reason: "unknown WebAssembly encoding version".into(),
        });
    }
    let (component, cache_outcome) =
        cache
            .load_or_compile(engine, bytes)
            .map_err(|e| LoadError::Invalid {
                path: p(),
                reason: format!("{e:#}"),
            })?;
    let ty = component.component_type();
    let exports: Vec<String> = ty.exports(engine).map(|(n, _)| n.to_string()).collect();
    let (game, version) = find_world(path, &exports)?;
    for (name, _) in ty.imports(engine) {
        if !import_allowed(game, name) {
            return Err(LoadError::Capability {
                path: p(),
                import: name.to_string(),
            });
        }
    }
    Ok(LoadedComponent {
        path: p(),
        game,
        version,
        component,
        language: producers_language(bytes),
        cache: cache_outcome,
        load_time: Duration::ZERO,
        size: bytes.len(),
        build: {
            use sha2::Digest;
            sha2::Sha256::digest(bytes)
                .iter()
                .take(6)
                .map(|b| format!("{b:02x}"))
                .collect()
        },
    })
}

/// `croupier:agent/durak-agent@0.1.0` → (Durak, "0.1.0").
fn parse_agent_export(name: &str) -> Option<(GameKind, &str)> {
    let rest = name.strip_prefix(PACKAGE)?.strip_prefix('/')?;
    let (iface, version) = rest.split_once('@')?;
    let game = GameKind::parse(iface.strip_suffix("-agent")?)?;
    Some((game, version))
}

fn find_world(path: &Path, exports: &[String]) -> Result<(GameKind, String), LoadError> {
    let found: Vec<(GameKind, &str)> = exports
        .iter()
        .filter_map(|e| parse_agent_export(e))
        .collect();
    let expected = || {
        GameKind::ALL
            .iter()
            .map(|g| format!("{PACKAGE}/{g}-agent@{}", SUPPORTED_VERSIONS.join("|")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match found.as_slice() {
        [] => Err(LoadError::NoWorld {
            path: path.to_path_buf(),
            expected: expected(),
            found: if exports.is_empty() {
                "no exports".to_string()
            } else {
                format!("exports [{}]", exports.join(", "))
            },
        }),
        [(game, version)] => {
            if SUPPORTED_VERSIONS.contains(version) {
                Ok((*game, version.to_string()))
            } else {
                Err(LoadError::Version {
                    path: path.to_path_buf(),
                    world: format!("{PACKAGE}/{game}"),
                    found: version.to_string(),
                    supported: SUPPORTED_VERSIONS.join(", "),
                })
            }
        }
        many => Err(LoadError::Ambiguous {
            path: path.to_path_buf(),
            games: many
                .iter()
                .map(|(g, v)| format!("{g}@{v}"))
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

/// The host interface and the types-only interfaces of the agent's own world.
fn import_allowed(game: GameKind, name: &str) -> bool {
    let Some(rest) = name.strip_prefix(PACKAGE).and_then(|r| r.strip_prefix('/')) else {
        return false;
    };
    let Some((iface, version)) = rest.split_once('@') else {
        return false;
    };
    let types = format!("{game}-types");
    SUPPORTED_VERSIONS.contains(&version)
        && (iface == "host" || iface == "common" || iface == types)
}

/// The `language` field of the first producers section, if any (nested modules included).
pub fn producers_language(bytes: &[u8]) -> Option<String> {
    use wasmparser::{KnownCustom, Parser, Payload};
    for payload in Parser::new(0).parse_all(bytes) {
        let Ok(Payload::CustomSection(reader)) = payload else {
            continue;
        };
        if let KnownCustom::Producers(fields) = reader.as_known() {
            for field in fields.into_iter().flatten() {
                if field.name == "language"
                    && let Some(Ok(v)) = field.values.into_iter().next()
                {
                    return Some(v.name.to_string());
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_exports_parse() {
        assert_eq!(
            parse_agent_export("croupier:agent/durak-agent@0.1.0"),
            Some((GameKind::Durak, "0.1.0"))
        );
        assert_eq!(parse_agent_export("croupier:agent/durak-types@0.1.0"), None);
        assert_eq!(parse_agent_export("other:agent/durak-agent@0.1.0"), None);
    }

    #[test]
    fn only_the_host_and_own_types_are_importable() {
        assert!(import_allowed(GameKind::Uno, "croupier:agent/host@0.1.0"));
        assert!(import_allowed(
            GameKind::Uno,
            "croupier:agent/uno-types@0.1.0"
        ));
        assert!(!import_allowed(
            GameKind::Uno,
            "croupier:agent/durak-types@0.1.0"
        ));
        assert!(!import_allowed(
            GameKind::Uno,
            "wasi:filesystem/types@0.2.0"
        ));
        assert!(!import_allowed(GameKind::Uno, "croupier:agent/host@9.0.0"));
    }
}
