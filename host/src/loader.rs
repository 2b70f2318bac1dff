//! Loading an agent file: from bytes to a compiled component whose world, version and imports
//! have been checked.
//!
//! Threat model: the file is untrusted. It may be empty, not WebAssembly, a core module, a
//! component of some other world or version, or a component that imports capabilities (files,
//! sockets, clocks, environment) in the hope that the host links them. Each case is refused
//! here with an error naming the file and saying what was expected. The imports check is the
//! capability check: the host offers exactly `croupier:agent/host` (log, seeded random) plus
//! the types-only interfaces of the agent's own world, and nothing else is ever linked.
//!
//! The file may also be built to hurt the host itself: types nested thousands deep that make
//! a recursive validator overflow its stack, or code that makes Cranelift spend minutes and
//! gigabytes (wasmtime's security model leaves compile-time cost to the embedder). So the
//! host process reads only the file's top-level sections, with an iterative parser, to check
//! its size, world, version and imports; validation and compilation run in a child process
//! (`croupier compile-agent`) under CPU-time, address-space and wall-clock limits
//! ([`Limits`]). The CPU budget grows with the code the file holds (the function bodies the
//! outline counts), so a large interpreter gets the time it needs on a slow machine while a
//! small bomb is stopped within seconds. A bomb ends that child and becomes a one-line
//! refusal naming the file and the limit hit. The parent then loads the artifact its own
//! child wrote, with what the compile cost ([`CompileReport`]), so that a caller can show
//! how close a real agent came to each limit.
//!
//! Processes that share a compile cache compile a given file once: the first takes a lock
//! on its cache entry, and the others wait for it and then load what it stored.

use crate::cache::{Cache, CacheOutcome};
use crate::compile::{CompileReport, Compiler, compile_in_child};
pub use crate::kind::{GameKind, PACKAGE};
use crate::limits::Limits;
use crate::text::escape;
use crate::verdict::Fault;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use wasmtime::Engine;
use wasmtime::component::Component;

/// Why a file cannot be used as an agent. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("{path}: cannot read the file: {source}")]
    Read {
        /// The agent file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The path is not a regular file (a directory, FIFO or device).
    #[error("{path}: not a regular file; expected a WebAssembly component file")]
    NotAFile {
        /// The agent file.
        path: PathBuf,
    },
    /// The file is empty.
    #[error("{path}: the file is empty; expected a WebAssembly component")]
    Empty {
        /// The agent file.
        path: PathBuf,
    },
    /// The file does not start with the WebAssembly magic bytes.
    #[error(
        "{path}: not a WebAssembly file (it does not start with the bytes \\0asm); expected a component built with `croupier build`"
    )]
    NotWasm {
        /// The agent file.
        path: PathBuf,
    },
    /// The file is a core WebAssembly module rather than a component.
    #[error(
        "{path}: this is a core WebAssembly module, not a component; build the agent with `croupier build` (which encodes the module as a component)"
    )]
    CoreModule {
        /// The agent file.
        path: PathBuf,
    },
    /// The file is not a well-formed component.
    #[error("{path}: not a valid component: {reason}")]
    Invalid {
        /// The agent file.
        path: PathBuf,
        /// What the parser or wasmtime said; escaped.
        reason: String,
    },
    /// The component exports no Croupier agent interface.
    #[error("{path}: exports no Croupier agent; expected one of {expected}, found {found}")]
    NoWorld {
        /// The agent file.
        path: PathBuf,
        /// The agent interfaces this host accepts.
        expected: String,
        /// What the component does export; escaped.
        found: String,
    },
    /// The component implements a contract version this host does not support.
    #[error(
        "{path}: implements {world} version {found}, which this host does not support (supported: {supported})"
    )]
    Version {
        /// The agent file.
        path: PathBuf,
        /// The world, as `package/game`.
        world: String,
        /// The version the component implements; escaped.
        found: String,
        /// The versions this host supports for that game.
        supported: String,
    },
    /// The component exports agents for more than one game.
    #[error("{path}: exports agents for more than one game ({games}); an agent plays one game")]
    Ambiguous {
        /// The agent file.
        path: PathBuf,
        /// The games it exports agents for, each as `game@version`; escaped.
        games: String,
    },
    /// The component exports one game's agent in more than one contract version.
    #[error(
        "{path}: exports the {game} agent in more than one contract version ({versions}); an agent implements exactly one"
    )]
    TwoVersions {
        /// The agent file.
        path: PathBuf,
        /// The game.
        game: GameKind,
        /// The versions it exports; escaped.
        versions: String,
    },
    /// The file exceeds the size limit.
    #[error("{path}: the file is {size} bytes; agent files may be at most {limit} bytes")]
    TooLarge {
        /// The agent file.
        path: PathBuf,
        /// The file's size in bytes.
        size: u64,
        /// The largest size allowed, in bytes.
        limit: u64,
    },
    /// Validation or compilation failed or hit a limit in the child process.
    #[error("{path}: refused while compiling: {reason}")]
    Compile {
        /// The agent file.
        path: PathBuf,
        /// What the compiler child reported, or the limit it hit; escaped.
        reason: String,
    },
    /// The agent faulted while being instantiated or started in its trial run.
    #[error("{path}: fails its trial run ({fault}); it could not play a game")]
    Trial {
        /// The agent file.
        path: PathBuf,
        /// The fault.
        fault: Fault,
    },
    /// The host itself failed while setting the agent up; not the agent's fault.
    #[error("{path}: the host could not set the agent up: {reason}")]
    Host {
        /// The agent file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// The agent plays a different game from the match.
    #[error("{path}: is a {found} agent, but this is a {expected} match")]
    WrongGame {
        /// The agent file.
        path: PathBuf,
        /// The game the agent plays.
        found: GameKind,
        /// The game of the match.
        expected: GameKind,
    },
    /// The component imports something outside what the host offers.
    #[error(
        "{path}: imports `{import}`, which agents may not use (the host offers only {PACKAGE}/host: log and seeded random; no files, clock, network or environment)"
    )]
    Capability {
        /// The agent file.
        path: PathBuf,
        /// The forbidden import's name; escaped.
        import: String,
    },
    /// The component could not be linked against the host's imports.
    #[error("{path}: cannot be linked: {reason}")]
    Link {
        /// The agent file.
        path: PathBuf,
        /// What wasmtime said; escaped.
        reason: String,
    },
}

/// A compiled component that passed every check.
#[derive(Clone)]
pub struct LoadedComponent {
    /// The file it was read from.
    pub path: PathBuf,
    /// The game whose agent world it exports.
    pub game: GameKind,
    /// The contract version of that world.
    pub version: String,
    /// The compiled component.
    pub component: Component,
    /// Source language from the producers section (`Rust`, `Python`, ...), when recorded;
    /// escaped.
    pub language: Option<String>,
    /// Whether it came from the compile cache.
    pub cache: CacheOutcome,
    /// Reading, checking and compiling (or loading from the cache).
    pub load_time: Duration,
    /// The file's size in bytes.
    pub size: usize,
    /// Bytes of code (function bodies) in the file, which set its compile budget.
    pub code_bytes: u64,
    /// What compiling cost, when this load compiled it (not for a cache hit).
    pub compile: Option<CompileReport>,
    /// First 12 hex digits of the file's SHA-256: names the build in game records.
    pub build: String,
}

/// Reads and checks an agent file, compiling it (or loading it from the cache) in a
/// `croupier compile-agent` child. The file's size is checked before it is read.
pub fn load(
    engine: &Engine,
    cache: &Cache,
    limits: &Limits,
    path: &Path,
) -> Result<LoadedComponent, LoadError> {
    load_with(engine, cache, limits, &Compiler::Croupier, path)
}

/// [`load`], compiling in the child `compiler` says.
pub fn load_with(
    engine: &Engine,
    cache: &Cache,
    limits: &Limits,
    compiler: &Compiler,
    path: &Path,
) -> Result<LoadedComponent, LoadError> {
    let start = Instant::now();
    let read = |source| LoadError::Read {
        path: path.to_path_buf(),
        source,
    };
    // `stat` first: opening a FIFO would block until someone writes to it, and a device
    // has no meaningful size. Only a regular file is an agent file.
    let meta = std::fs::metadata(path).map_err(read)?;
    if !meta.is_file() {
        return Err(LoadError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    let file = std::fs::File::open(path).map_err(read)?;
    let size = file.metadata().map_err(read)?.len();
    if size > limits.max_file_bytes {
        return Err(LoadError::TooLarge {
            path: path.to_path_buf(),
            size,
            limit: limits.max_file_bytes,
        });
    }
    let mut bytes = Vec::with_capacity(size as usize);
    // `take` also bounds a file that grows while it is read.
    file.take(limits.max_file_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(read)?;
    let mut loaded = check_and_compile_with(engine, cache, limits, compiler, path, &bytes)?;
    loaded.load_time = start.elapsed();
    Ok(loaded)
}

/// What the top level of a component says about itself, read without validating it.
#[derive(Debug, Default)]
pub struct Outline {
    /// The top-level import names.
    pub imports: Vec<String>,
    /// The top-level export names.
    pub exports: Vec<String>,
    /// The producers' language, escaped.
    pub language: Option<String>,
    /// Bytes of code sections (function bodies) in every core module the file holds, at any
    /// depth: what the compile budget grows with.
    pub code_bytes: u64,
}

/// Reads the top-level import and export names, the producers' language and the size of
/// the code. The parser is iterative (nested modules and components are walked with a heap
/// stack, and function bodies are not read), so no file can overflow the host's stack here.
pub fn outline(bytes: &[u8]) -> Result<Outline, String> {
    use wasmparser::{KnownCustom, Parser, Payload};
    let mut out = Outline::default();
    let mut depth = 0usize;
    for payload in Parser::new(0).parse_all(bytes) {
        let payload = payload.map_err(|e| e.to_string())?;
        match payload {
            Payload::ModuleSection { .. } | Payload::ComponentSection { .. } => depth += 1,
            Payload::CodeSectionStart { size, .. } => {
                out.code_bytes = out.code_bytes.saturating_add(u64::from(size));
            }
            Payload::End(_) => depth = depth.saturating_sub(1),
            Payload::ComponentImportSection(reader) if depth == 0 => {
                for import in reader {
                    out.imports
                        .push(import.map_err(|e| e.to_string())?.name.0.to_string());
                }
            }
            Payload::ComponentExportSection(reader) if depth == 0 => {
                for export in reader {
                    out.exports
                        .push(export.map_err(|e| e.to_string())?.name.0.to_string());
                }
            }
            // The component's own producers section (where `croupier build` records the
            // source language) wins over a nested module's: an interpreter's engine module
            // says `Rust` (QuickJS) or `C11` (SpiderMonkey), not the agent's language.
            Payload::CustomSection(reader) if out.language.is_none() || depth == 0 => {
                if let KnownCustom::Producers(fields) = reader.as_known() {
                    for field in fields.into_iter().flatten() {
                        if field.name == "language"
                            && let Some(Ok(v)) = field.values.into_iter().next()
                        {
                            out.language = Some(escape(v.name));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The checks of [`load`] on bytes already in memory: size, encoding, world, version and
/// imports with the parser alone; then the compile cache, or a compile in a
/// `croupier compile-agent` child.
pub fn check_and_compile(
    engine: &Engine,
    cache: &Cache,
    limits: &Limits,
    path: &Path,
    bytes: &[u8],
) -> Result<LoadedComponent, LoadError> {
    check_and_compile_with(engine, cache, limits, &Compiler::Croupier, path, bytes)
}

/// [`check_and_compile`], compiling in the child `compiler` says.
pub fn check_and_compile_with(
    engine: &Engine,
    cache: &Cache,
    limits: &Limits,
    compiler: &Compiler,
    path: &Path,
    bytes: &[u8],
) -> Result<LoadedComponent, LoadError> {
    let p = || path.to_path_buf();
    let Inspected {
        game,
        version,
        outline,
    } = inspect(limits, path, bytes)?;
    // Another process may be compiling the same file into the same cache: wait for it, then
    // load what it stored, rather than compile it a second time beside it.
    let mut lock = None;
    let hit = match cache.load(engine, bytes) {
        Some(c) => Some(c),
        None => {
            lock = cache.lock(engine, bytes);
            lock.as_ref().and_then(|_| cache.load(engine, bytes))
        }
    };
    let (component, cache_outcome, compile) = match hit {
        Some(c) => (c, CacheOutcome::Hit, None),
        None => {
            let functions = cache.functions_dir();
            let (artifact, report) = compile_in_child(
                compiler,
                limits,
                bytes,
                outline.code_bytes,
                functions.as_deref(),
            )
            .map_err(|reason| LoadError::Compile {
                path: p(),
                reason: escape(&reason),
            })?;
            if let Some(dir) = functions {
                crate::functions::FunctionStore::at(dir).evict_to(cache.functions_max_bytes());
            }
            // SAFETY: the artifact was written by this very executable (the child runs
            // `croupier compile-agent`) for an engine of the same configuration, and
            // wasmtime checks its header against this engine.
            let component = unsafe { Component::deserialize(engine, &artifact) }.map_err(|e| {
                LoadError::Invalid {
                    path: p(),
                    reason: escape(&format!("{e:#}")),
                }
            })?;
            (
                component,
                cache.store(engine, bytes, &artifact),
                Some(report),
            )
        }
    };
    drop(lock);
    Ok(LoadedComponent {
        path: p(),
        game,
        version,
        component,
        language: outline.language,
        cache: cache_outcome,
        load_time: Duration::ZERO,
        size: bytes.len(),
        code_bytes: outline.code_bytes,
        compile,
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

/// What [`inspect`] finds without compiling.
#[derive(Debug)]
pub struct Inspected {
    /// The game whose agent world the file exports.
    pub game: GameKind,
    /// The contract version of that world.
    pub version: String,
    /// The file's top level and the size of its code.
    pub outline: Outline,
}

/// Every check of [`check_and_compile`] that needs no compiling: size, encoding, world,
/// version and imports, read with the iterative parser alone. Cheap enough for a listing.
pub fn inspect(limits: &Limits, path: &Path, bytes: &[u8]) -> Result<Inspected, LoadError> {
    let p = || path.to_path_buf();
    if bytes.len() as u64 > limits.max_file_bytes {
        return Err(LoadError::TooLarge {
            path: p(),
            size: bytes.len() as u64,
            limit: limits.max_file_bytes,
        });
    }
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
    let outline = outline(bytes).map_err(|reason| LoadError::Invalid {
        path: p(),
        reason: escape(&reason),
    })?;
    let (game, version) = find_world(path, &outline.exports)?;
    for name in &outline.imports {
        if !import_allowed(game, name) {
            return Err(LoadError::Capability {
                path: p(),
                import: escape(&shorten(name)),
            });
        }
    }
    Ok(Inspected {
        game,
        version,
        outline,
    })
}

/// A name from the file, cut to 120 characters: a refusal quotes names, and a file may hold
/// names megabytes long.
fn shorten(name: &str) -> String {
    const KEEP: usize = 120;
    match name.char_indices().nth(KEEP) {
        Some((cut, _)) => format!("{}… ({} bytes)", &name[..cut], name.len()),
        None => name.to_string(),
    }
}

/// `croupier:agent/durak-agent@0.1.0` → (Durak, "0.1.0").
fn parse_agent_export(name: &str) -> Option<(GameKind, &str)> {
    let rest = name.strip_prefix(PACKAGE)?.strip_prefix('/')?;
    let (iface, version) = rest.split_once('@')?;
    let game = GameKind::parse(iface.strip_suffix("-agent")?)?;
    Some((game, version))
}

fn find_world(path: &Path, exports: &[String]) -> Result<(GameKind, String), LoadError> {
    let mut found: Vec<(GameKind, &str)> = exports
        .iter()
        .filter_map(|e| parse_agent_export(e))
        .collect();
    found.dedup();
    let expected = || {
        GameKind::ALL
            .iter()
            .map(|g| {
                format!(
                    "{PACKAGE}/{g}-agent@{}",
                    crate::contract::versions_of(*g).join("|")
                )
            })
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
                let shown: Vec<String> = exports.iter().take(8).map(|e| shorten(e)).collect();
                let more = exports.len().saturating_sub(shown.len());
                escape(&format!(
                    "exports [{}{}]",
                    shown.join(", "),
                    if more > 0 {
                        format!(", and {more} more")
                    } else {
                        String::new()
                    }
                ))
            },
        }),
        [(game, version)] => {
            if crate::contract::has(*game, version) {
                Ok((*game, version.to_string()))
            } else {
                Err(LoadError::Version {
                    path: path.to_path_buf(),
                    world: format!("{PACKAGE}/{game}"),
                    found: escape(&shorten(version)),
                    supported: crate::contract::versions_of(*game).join(", "),
                })
            }
        }
        many if many.iter().all(|(g, _)| *g == many[0].0) => Err(LoadError::TwoVersions {
            path: path.to_path_buf(),
            game: many[0].0,
            versions: escape(
                &many
                    .iter()
                    .take(8)
                    .map(|(_, v)| shorten(v))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
        }),
        many => Err(LoadError::Ambiguous {
            path: path.to_path_buf(),
            games: many
                .iter()
                .take(8)
                .map(|(g, v)| escape(&format!("{g}@{}", shorten(v))))
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
    // The shared interfaces of any version served; the game's own types only in versions
    // that have the game.
    (crate::contract::serves(version) && (iface == "host" || iface == "common"))
        || (iface == types && crate::contract::has(game, version))
}

/// The `language` field of the component's own producers section, else of the first nested
/// one, escaped; `None` also for a file that does not parse.
pub fn producers_language(bytes: &[u8]) -> Option<String> {
    outline(bytes).ok()?.language
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A custom section `producers` with one `language` value (names under 128 bytes).
    fn producers(language: &str) -> Vec<u8> {
        let mut payload = vec![1u8, 8];
        payload.extend(b"language");
        payload.push(1);
        payload.push(language.len() as u8);
        payload.extend(language.as_bytes());
        payload.push(0); // an empty version
        let mut section = vec![0u8, (1 + 9 + payload.len()) as u8, 9];
        section.extend(b"producers");
        section.extend(payload);
        section
    }

    /// Regression: a JavaScript component's nested engine module says `Rust` (QuickJS) or
    /// `C11` (SpiderMonkey); the language `croupier build` records on the component is the
    /// one shown.
    #[test]
    fn the_components_own_language_wins_over_a_nested_modules() {
        let mut module = b"\0asm\x01\0\0\0".to_vec();
        module.extend(producers("Rust"));
        let mut component = b"\0asm\x0d\0\x01\0".to_vec();
        component.push(1); // a core module section
        component.push(module.len() as u8);
        component.extend(&module);
        assert_eq!(producers_language(&component).as_deref(), Some("Rust"));
        component.extend(producers("JavaScript"));
        assert_eq!(
            producers_language(&component).as_deref(),
            Some("JavaScript")
        );
    }

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
