//! On-disk cache of compiled functions, shared by every compile (Cranelift's incremental
//! compilation cache).
//!
//! Why: every Python agent carries the same CPython interpreter, and every JavaScript agent
//! the same SpiderMonkey, so two agents' components differ in a few functions and their
//! data, not in the 10–20 MB of interpreter code. The component cache ([`crate::cache`]) is
//! keyed by the whole file, so a changed agent compiled its interpreter again (20–60 s of
//! CPU). Cranelift keys each function by its own code and the target, and this store keeps
//! the machine code per key, so a changed agent compiles only what changed.
//!
//! Threat model: an entry is machine code that Cranelift links in without checking, exactly
//! as trusted as a compiled component. So it lives in the same private directory as the
//! component cache (created 0700, refused if others can write to it), and every entry
//! carries the SHA-256 of its body, checked on every read: a truncated or corrupt entry is a
//! miss (the function is compiled again), never code. Writes go to a temporary file that is
//! renamed into place. The key is Cranelift's SHA-256 of the function, the target and every
//! code-generation flag, so an entry can only answer for the very function it was compiled
//! from; an agent cannot choose another agent's key without being that function.
//!
//! Bound: each compile may add thousands of entries, so after each compile the least
//! recently used entries are removed until the store is within its budget
//! ([`crate::cache::Cache::functions_max_bytes`]). Compiles in several processes may share
//! the store: the worst a race does is a miss.

use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The extension of an entry's file.
const EXTENSION: &str = "fn";

/// A store of compiled functions in one directory, for
/// [`wasmtime::Config::enable_incremental_compilation`].
#[derive(Debug)]
pub struct FunctionStore {
    dir: PathBuf,
    /// Names temporary files apart within this process (wasmtime compiles on many threads).
    written: AtomicU64,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl FunctionStore {
    /// The store in `dir`, which the caller has made private (the component cache's
    /// `functions/` folder; [`crate::cache::Cache::functions_dir`]).
    pub fn at(dir: impl Into<PathBuf>) -> FunctionStore {
        FunctionStore {
            dir: dir.into(),
            written: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn path(&self, key: &[u8]) -> Option<PathBuf> {
        // Cranelift's keys are 32-byte digests; anything else is not a key we name files by.
        (!key.is_empty() && key.len() <= 64).then(|| {
            let name: String = key.iter().map(|b| format!("{b:02x}")).collect();
            self.dir.join(format!("{name}.{EXTENSION}"))
        })
    }

    /// How many functions came from the store, and how many were compiled, so far.
    pub fn hits_and_misses(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    /// Removes the least recently used entries until the store holds at most `max_bytes`,
    /// and the temporary files of compiles that were killed while writing (a compile bomb
    /// stopped at its CPU limit) once they are an hour old, so that those add up to nothing.
    pub fn evict_to(&self, max_bytes: u64) {
        crate::cache::evict_least_recent(&self.dir, EXTENSION, max_bytes, Path::new(""));
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let hour = std::time::Duration::from_secs(3600);
        for e in entries.flatten() {
            let stale = e.path().extension().is_some_and(|x| x == "tmp")
                && e.metadata()
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > hour));
            if stale {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

impl wasmtime::CacheStore for FunctionStore {
    fn get(&self, key: &[u8]) -> Option<Cow<'_, [u8]>> {
        let found = self.path(key).and_then(|path| {
            let data = std::fs::read(&path).ok()?;
            if data.len() < DIGEST || Sha256::digest(&data[DIGEST..]).as_slice() != &data[..DIGEST]
            {
                return None;
            }
            // A hit is a use: it orders eviction.
            if let Ok(f) = std::fs::File::options().append(true).open(&path) {
                let _ = f.set_modified(std::time::SystemTime::now());
            }
            Some(data)
        });
        match found {
            Some(mut data) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                data.drain(..DIGEST);
                Some(Cow::Owned(data))
            }
            None => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    fn insert(&self, key: &[u8], value: Vec<u8>) -> bool {
        let Some(path) = self.path(key) else {
            return false;
        };
        let n = self.written.fetch_add(1, Ordering::Relaxed);
        let tmp = self.dir.join(format!(".{}-{n}.tmp", std::process::id()));
        // No fsync: a crash can leave a renamed but empty or partial file, which the digest
        // turns into a miss; syncing thousands of small files would cost more than the
        // compile saves.
        let written = std::fs::File::create(&tmp).and_then(|mut f| {
            f.write_all(&Sha256::digest(&value))?;
            f.write_all(&value)
        });
        if written.and_then(|()| std::fs::rename(&tmp, &path)).is_ok() {
            true
        } else {
            let _ = std::fs::remove_file(&tmp);
            false
        }
    }
}

const DIGEST: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;
    use wasmtime::CacheStore;

    #[test]
    fn an_entry_is_read_back_and_a_corrupt_one_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let store = FunctionStore::at(dir.path());
        let key = [7u8; 32];
        assert!(store.get(&key).is_none());
        assert!(store.insert(&key, b"machine code".to_vec()));
        assert_eq!(store.get(&key).as_deref(), Some(&b"machine code"[..]));
        // One flipped byte of the body: the digest no longer matches.
        let path = store.path(&key).unwrap();
        let mut data = std::fs::read(&path).unwrap();
        *data.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &data).unwrap();
        assert!(store.get(&key).is_none());
        // Truncated to less than a digest.
        std::fs::write(&path, b"short").unwrap();
        assert!(store.get(&key).is_none());
        assert_eq!(store.hits_and_misses(), (1, 3));
        // A key that is not a digest names no file.
        assert!(!store.insert(&[], b"x".to_vec()));
        assert!(!store.insert(&[1u8; 65], b"x".to_vec()));
    }

    #[test]
    fn eviction_keeps_the_newest_entries_and_drops_old_temporary_files() {
        let dir = tempfile::tempdir().unwrap();
        let store = FunctionStore::at(dir.path());
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
        for k in 0..4u8 {
            assert!(store.insert(&[k; 32], vec![k; 100]));
            let f = std::fs::File::options()
                .append(true)
                .open(store.path(&[k; 32]).unwrap());
            // Oldest first: entry 0 is the least recently used.
            f.unwrap()
                .set_modified(old + std::time::Duration::from_secs(u64::from(k)))
                .unwrap();
        }
        let left_behind = dir.path().join(".1-0.tmp");
        std::fs::write(&left_behind, b"half an entry").unwrap();
        let fresh = dir.path().join(".2-0.tmp");
        std::fs::write(&fresh, b"being written").unwrap();
        std::fs::File::options()
            .append(true)
            .open(&left_behind)
            .unwrap()
            .set_modified(old)
            .unwrap();
        // Each entry is its 32-byte digest and 100 bytes: room for two.
        store.evict_to(2 * 132);
        assert!(store.get(&[0; 32]).is_none() && store.get(&[1; 32]).is_none());
        assert!(store.get(&[2; 32]).is_some() && store.get(&[3; 32]).is_some());
        assert!(!left_behind.exists());
        assert!(fresh.exists(), "a temporary file being written now stays");
    }
}
