//! On-disk cache of compiled components.
//!
//! Threat model: a cached artifact is native code that `Component::deserialize` trusts
//! blindly, so the cache must only ever hold what this host wrote. Hence: the directory is
//! created private (0700) and refused if others can write to it; entries are keyed by the
//! SHA-256 of the component bytes and the engine's compatibility hash; every entry carries
//! the SHA-256 of its own body, checked before deserialising; a stale, truncated or corrupt
//! entry is recompiled and rewritten, never trusted. Writes go to a temporary file and are
//! renamed into place, so a crash never leaves half an entry under a valid name.

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

#[derive(Clone, Debug)]
pub struct Cache {
    dir: Option<PathBuf>,
}

impl Cache {
    /// No caching at all.
    pub fn disabled() -> Cache {
        Cache { dir: None }
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
        Ok(Cache { dir: Some(dir) })
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

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    fn entry_path(&self, engine: &Engine, bytes: &[u8]) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut h);
        let content = hex(&Sha256::digest(bytes));
        Some(dir.join(format!("{}-{:016x}.cwasm", &content[..32], h.finish())))
    }

    /// The compiled component for `bytes`, from the cache when a valid entry exists.
    pub fn load_or_compile(
        &self,
        engine: &Engine,
        bytes: &[u8],
    ) -> wasmtime::Result<(Component, CacheOutcome)> {
        let Some(path) = self.entry_path(engine, bytes) else {
            return Ok((Component::new(engine, bytes)?, CacheOutcome::Uncached));
        };
        let mut existed = false;
        if let Ok(data) = std::fs::read(&path) {
            existed = true;
            if let Some(body) = verified_body(&data) {
                // SAFETY: the body's SHA-256 matches the digest this host wrote in front of
                // it, in a private directory keyed by content and engine; wasmtime also
                // checks the artifact's header against this engine.
                if let Ok(c) = unsafe { Component::deserialize(engine, body) } {
                    return Ok((c, CacheOutcome::Hit));
                }
            }
        }
        let component = Component::new(engine, bytes)?;
        let outcome = match component.serialize() {
            Ok(body) if write_entry(&path, &body).is_ok() => {
                if existed {
                    CacheOutcome::Replaced
                } else {
                    CacheOutcome::Compiled
                }
            }
            _ => CacheOutcome::Uncached,
        };
        Ok((component, outcome))
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
