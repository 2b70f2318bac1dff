//! On-disk cache of compiled components.
//!
//! Threat model: a cached artifact is native code that `Component::deserialize` trusts
//! blindly, so the cache must only ever hold what this host wrote. Hence: the directory is
//! created private (0700) and refused if others can write to it; entries are keyed by the
//! SHA-256 of the component bytes and the engine's compatibility hash; every entry carries
//! the SHA-256 of its own body, checked before deserialising; a stale, truncated or corrupt
//! entry is recompiled and rewritten, never trusted. Writes go to a temporary file and are
//! renamed into place, so a crash never leaves half an entry under a valid name.
//!
//! A hostile file can make a large artifact (hundreds of MB from a few MB), and every one-byte
//! variant is another entry, so the cache is bounded by total size: after each write the
//! least recently used entries (by modification time, which a hit refreshes) are evicted
//! until the total is under [`Cache::max_bytes`] (`$CROUPIER_CACHE_MAX_MIB`, default
//! [`DEFAULT_MAX_MIB`]).
//!
//! Several processes may share one cache (a `croupier match` beside `croupier validate`, the
//! test binaries, an arena's uploads). A compile takes an advisory lock on its entry
//! ([`Cache::lock`]) so that the others wait and load the result instead of compiling the
//! same 12–20 MB interpreter beside it, which on a 2-core machine would double each
//! compile's wall time. The lock file is removed after the entry is stored; a process that
//! races that removal at worst compiles once more, which the lock only saves, never needs.
//!
//! Beside the components, the `functions/` folder keeps compiled functions
//! ([`crate::functions`]), so that a changed agent compiles only what changed and not its
//! whole interpreter again. It is bounded apart, at a quarter of the components' bound
//! ([`Cache::functions_max_bytes`]): the whole cache holds at most 1.25 ×
//! `$CROUPIER_CACHE_MAX_MIB`.

use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use wasmtime::Engine;
use wasmtime::component::Component;

/// How a component was obtained.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CacheOutcome {
    /// Loaded from a valid cache entry.
    Hit,
    /// Compiled; the entry was written.
    Compiled,
    /// Compiled; an existing entry was stale or corrupt and was replaced.
    Replaced,
    /// Compiled; caching is off or the directory is unusable.
    Uncached,
}

/// The default bound on the cache's total size: room for a few dozen interpreted agents
/// (an 18 MB Python component compiles to about 60 MB) and thousands of Rust ones.
pub const DEFAULT_MAX_MIB: u64 = 2048;

/// The compiled-component cache: a private directory of artifacts, bounded in total size.
#[derive(Clone, Debug)]
pub struct Cache {
    dir: Option<PathBuf>,
    max_bytes: u64,
}

impl Cache {
    /// No caching at all.
    pub fn disabled() -> Cache {
        Cache {
            dir: None,
            max_bytes: 0,
        }
    }

    /// The bound on the total size of the entries.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The same cache with another bound on its total size.
    pub fn with_max_bytes(mut self, max_bytes: u64) -> Cache {
        self.max_bytes = max_bytes;
        self
    }

    /// The cache in `dir`, created private if missing; disabled (with a reason) if the
    /// directory cannot be made safe.
    pub fn at(dir: impl Into<PathBuf>) -> Result<Cache, String> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cache directory {}: {e}", dir.display()))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::{MetadataExt, PermissionsExt};
            let meta = std::fs::metadata(&dir)
                .map_err(|e| format!("cache directory {}: {e}", dir.display()))?;
            // Only the owner may write, and the owner must be us.
            let uid = own_uid();
            if meta.mode() & 0o022 != 0 {
                std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).map_err(
                    |e| {
                        format!(
                            "cache directory {} is writable by others: {e}",
                            dir.display()
                        )
                    },
                )?;
            }
            if let Some(uid) = uid
                && meta.uid() != uid
            {
                return Err(format!(
                    "cache directory {} belongs to another user",
                    dir.display()
                ));
            }
        }
        let max_mib = std::env::var("CROUPIER_CACHE_MAX_MIB")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(DEFAULT_MAX_MIB);
        Ok(Cache {
            dir: Some(dir),
            max_bytes: max_mib << 20,
        })
    }

    /// The cache in [`Cache::default_dir`], or a disabled cache and the reason why it could
    /// not be used (for the caller to show).
    pub fn default_or_disabled() -> (Cache, Option<String>) {
        match Cache::default_dir().map(Cache::at) {
            Some(Ok(c)) => (c, None),
            Some(Err(why)) => (Cache::disabled(), Some(why)),
            None => (Cache::disabled(), None),
        }
    }

    /// `$CROUPIER_CACHE`, else `$XDG_CACHE_HOME/croupier`, else `~/.cache/croupier`.
    pub fn default_dir() -> Option<PathBuf> {
        if let Some(d) = std::env::var_os("CROUPIER_CACHE") {
            return Some(PathBuf::from(d));
        }
        if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
            return Some(PathBuf::from(d).join("croupier"));
        }
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("croupier"))
    }

    /// The cache directory, or `None` when caching is disabled.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The folder of compiled functions ([`crate::functions`]), created inside the private
    /// cache directory; `None` when caching is off or it cannot be made.
    pub fn functions_dir(&self) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?.join("functions");
        std::fs::create_dir_all(&dir).ok()?;
        Some(dir)
    }

    /// The bound on the compiled functions' total size: a quarter of the components' bound.
    /// CPython's and SpiderMonkey's functions together took 224 MB, so the default (512 MiB)
    /// keeps both and the agents' own.
    pub fn functions_max_bytes(&self) -> u64 {
        self.max_bytes / 4
    }

    fn entry_path(&self, engine: &Engine, bytes: &[u8]) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut h);
        let content = hex(&Sha256::digest(bytes));
        Some(dir.join(format!("{}-{:016x}.cwasm", &content[..32], h.finish())))
    }

    /// Whether an entry for `bytes` exists (not checked: [`Cache::load`] checks it), for a
    /// listing that must not compile.
    pub fn contains(&self, engine: &Engine, bytes: &[u8]) -> bool {
        self.entry_path(engine, bytes).is_some_and(|p| p.is_file())
    }

    /// An exclusive lock on the entry for `bytes`, taken before compiling it: blocks while
    /// another process holds it (compiling the same file), so the caller should look in the
    /// cache again once it has the lock. `None` when caching is off or the lock cannot be
    /// had, in which case the caller just compiles.
    pub fn lock(&self, engine: &Engine, bytes: &[u8]) -> Option<EntryLock> {
        let path = self.entry_path(engine, bytes)?.with_extension("lock");
        let file = std::fs::File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .ok()?;
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd;
            // SAFETY: flock on a descriptor we own; it is released when the file is closed.
            loop {
                if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
                    break;
                }
                if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                    return None;
                }
            }
        }
        Some(EntryLock { path, _file: file })
    }

    /// The compiled component for `bytes`, when a valid entry exists. A hit refreshes the
    /// entry's modification time, which orders eviction.
    pub fn load(&self, engine: &Engine, bytes: &[u8]) -> Option<Component> {
        let path = self.entry_path(engine, bytes)?;
        let data = std::fs::read(&path).ok()?;
        let body = verified_body(&data)?;
        // SAFETY: the body's SHA-256 matches the digest this host wrote in front of it, in a
        // private directory keyed by content and engine; wasmtime also checks the artifact's
        // header against this engine.
        let component = unsafe { Component::deserialize(engine, body) }.ok()?;
        if let Ok(f) = std::fs::File::options().append(true).open(&path) {
            let _ = f.set_modified(std::time::SystemTime::now());
        }
        Some(component)
    }

    /// Stores the artifact compiled from `bytes`, then evicts least recently used entries
    /// until the cache is within its bound. Says whether it replaced an older entry.
    pub fn store(&self, engine: &Engine, bytes: &[u8], artifact: &[u8]) -> CacheOutcome {
        let Some(path) = self.entry_path(engine, bytes) else {
            return CacheOutcome::Uncached;
        };
        if artifact.len() as u64 > self.max_bytes {
            return CacheOutcome::Uncached;
        }
        let existed = path.exists();
        if write_entry(&path, artifact).is_err() {
            return CacheOutcome::Uncached;
        }
        self.evict(&path);
        if existed {
            CacheOutcome::Replaced
        } else {
            CacheOutcome::Compiled
        }
    }

    /// Removes the least recently used entries (never `keep`) until the total size of the
    /// entries is at most the bound.
    fn evict(&self, keep: &Path) {
        if let Some(dir) = &self.dir {
            evict_least_recent(dir, "cwasm", self.max_bytes, keep);
        }
    }
}

/// Removes the least recently used files of `dir` with `extension` (by modification time,
/// which a hit refreshes), never `keep`, until their total size is at most `max_bytes`.
/// Shared with the CLI's folder of built components, which is bounded the same way.
pub fn evict_least_recent(dir: &Path, extension: &str, max_bytes: u64, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, u64, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == extension))
        .filter_map(|e| {
            let m = e.metadata().ok()?;
            Some((m.modified().ok()?, m.len(), e.path()))
        })
        .collect();
    let mut total: u64 = files.iter().map(|f| f.1).sum();
    files.sort();
    for (_, len, path) in files {
        if total <= max_bytes {
            break;
        }
        if path != keep && std::fs::remove_file(&path).is_ok() {
            total = total.saturating_sub(len);
        }
    }
}

/// A held lock on one cache entry ([`Cache::lock`]); released, and its file removed, when
/// dropped.
#[derive(Debug)]
pub struct EntryLock {
    path: PathBuf,
    _file: std::fs::File,
}

impl Drop for EntryLock {
    fn drop(&mut self) {
        // Removed while still held, so a waiter that gets it next finds the entry stored.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Our own uid, as the owner of `/proc/self` (Linux); `None` elsewhere.
fn own_uid() -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata("/proc/self").ok().map(|m| m.uid())
    }
    #[cfg(not(unix))]
    {
        None
    }
}

const DIGEST: usize = 32;

fn verified_body(data: &[u8]) -> Option<&[u8]> {
    if data.len() <= DIGEST {
        return None;
    }
    let (digest, body) = data.split_at(DIGEST);
    (Sha256::digest(body).as_slice() == digest).then_some(body)
}

fn write_entry(path: &Path, body: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&Sha256::digest(body))?;
        f.write_all(body)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
