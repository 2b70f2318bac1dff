//! Components kept per content: `croupier build` of a Python, JavaScript or TypeScript agent
//! skips its slow last step when nothing that step reads has changed. (A C agent's steps take
//! a second or two; it only takes its turn on the agent's lock.)
//!
//! Why: componentize-py makes an 18 MB CPython component in 30–60 s, and SpiderMonkey a
//! 12 MB one in 20–60 s, every time, from inputs that change far less often: a student who
//! rebuilds after a rename, a second project made from the same template, and a test run
//! after the last one all waited for it again.
//!
//! The key is the SHA-256 of everything the step reads (the bundle or the Python files, the
//! SDK, the WIT, the engine and the tool's version), so a changed input always rebuilds; a
//! stale hit would need a SHA-256 collision. That holds only if the step reads nothing else,
//! which is why the Python build is hermetic (`build_python` in componentize.rs), and only
//! if the step itself is the same: a change to how `croupier` runs it bumps [`RECIPE`]. (A bug
//! planted in a step, to see a test fail, is not in the key: plant it with
//! `CROUPIER_BUILD_CACHE_MAX_MIB=0`, or it is kept and served to the next runs.)
//!
//! Where: `components/` in the compiled-component cache's folder (`$CROUPIER_CACHE`, else
//! `$XDG_CACHE_HOME/croupier`, else `~/.cache/croupier`), made private as that cache is
//! (`croupier_host::cache::Cache::at`): another local user must not be able to plant a
//! component under a key. An entry is a component, which the host validates and sandboxes
//! like any other, never native code.
//!
//! Bounds: every edit of an agent is a new key, so the folder is bounded by total size:
//! after each store, the least recently used entries (a hit refreshes one) go until the
//! total is at most `$CROUPIER_BUILD_CACHE_MAX_MIB` (default [`DEFAULT_MAX_MIB`]). `0` turns
//! keeping off.
//!
//! Two builds of the same content at once (two test processes) take turns on the entry's
//! lock, so the second finds the first's component instead of making it again beside it.
//! Entries are written whole (temp file, then rename): a reader never sees half of one.

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::path::{Path, PathBuf};

/// The default bound on the kept components' total size: about 25 Python agents, or 40
/// SpiderMonkey ones.
pub const DEFAULT_MAX_MIB: u64 = 512;

/// Holds a lock file while it lives; dropping it lets the next build in.
pub struct Lock(#[allow(dead_code)] File);

/// Waits for, then takes, the lock of the agent build folder `build` (its `.lock`), for
/// steps that write fixed names there (bindings, bundles).
pub fn lock(build: &Path) -> Result<Lock> {
    std::fs::create_dir_all(build).with_context(|| format!("cannot create {}", build.display()))?;
    let path = build.join(".lock");
    let file = File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
    file.lock()
        .with_context(|| format!("cannot lock {}", path.display()))?;
    Ok(Lock(file))
}

/// The version of the steps themselves, in every key: bump it when a build step changes what
/// it makes from the same inputs (a flag, an environment variable), so that no component
/// made the old way is taken for one made the new way. The crate version is in the key too.
const RECIPE: &[u8] = b"1";

/// The key of `inputs`: each one's length, then its bytes, so that no two lists of inputs
/// run together into the same stream. This binary's version and [`RECIPE`] come first.
pub fn key(inputs: &[&[u8]]) -> String {
    let mut hash = Sha256::new();
    let own: [&[u8]; 2] = [env!("CARGO_PKG_VERSION").as_bytes(), RECIPE];
    for input in own.iter().chain(inputs) {
        hash.update((input.len() as u64).to_le_bytes());
        hash.update(input);
    }
    hex(&hash.finalize())
}

/// The key of the files under `dir`, with their paths relative to it, in a fixed order.
/// Skipped: names starting with `.` (`.git`, `.venv`: Python cannot import them), Python's
/// `__pycache__`, and `skip` (the build's output folder, when it lies inside). Symbolic
/// links are followed, as the build tool follows them.
pub fn key_of_tree(dir: &Path, skip: Option<&Path>) -> Result<String> {
    let mut files = Vec::new();
    let mut seen = std::collections::HashSet::new();
    walk(dir, dir, skip, &mut seen, &mut files)?;
    files.sort();
    let mut hash = Sha256::new();
    for (rel, path) in files {
        let bytes =
            std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        for part in [rel.as_bytes(), &bytes[..]] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part);
        }
    }
    Ok(hex(&hash.finalize()))
}

fn walk(
    root: &Path,
    dir: &Path,
    skip: Option<&Path>,
    seen: &mut std::collections::HashSet<PathBuf>,
    files: &mut Vec<(String, PathBuf)>,
) -> Result<()> {
    // A folder reached twice through links (a loop) is read once.
    let real =
        std::fs::canonicalize(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    if !seen.insert(real) {
        return Ok(());
    }
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot read {}", dir.display()))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "__pycache__" {
            continue;
        }
        let path = entry.path();
        if skip.is_some_and(|s| same_file(s, &path)) {
            continue;
        }
        let meta =
            std::fs::metadata(&path).with_context(|| format!("cannot read {}", path.display()))?;
        if meta.is_dir() {
            walk(root, &path, skip, seen, files)?;
        } else if meta.is_file() {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            files.push((rel.to_string_lossy().into_owned(), path));
        }
    }
    Ok(())
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The folder of kept components, bounded by total size.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
    max_bytes: u64,
}

impl Store {
    /// The store in `dir` (made private, as the compiled-component cache is), bounded by
    /// `max_bytes`. Refused, with the reason, when the folder cannot be made safe.
    pub fn at(dir: PathBuf, max_bytes: u64) -> Result<Store, String> {
        croupier_host::cache::Cache::at(&dir)?;
        Ok(Store { dir, max_bytes })
    }

    /// The user's store ([module docs](self)), or `None` when keeping is off or its folder
    /// unusable: the build then just runs its step.
    pub fn user() -> Option<Store> {
        let max_mib = std::env::var("CROUPIER_BUILD_CACHE_MAX_MIB")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(DEFAULT_MAX_MIB);
        if max_mib == 0 {
            return None;
        }
        let dir = croupier_host::cache::Cache::default_dir()?.join("components");
        Store::at(dir, max_mib << 20).ok()
    }

    /// Writes the component for `key` to `out`: the kept one if there is one, else what
    /// `make` writes to `out`, which is then kept. Returns whether it was kept from before.
    pub fn component(
        &self,
        key: &str,
        out: &Path,
        make: impl FnOnce() -> Result<()>,
    ) -> Result<bool> {
        let entry = self.dir.join(format!("{key}.wasm"));
        let _turn = self.lock(key);
        if entry.is_file() && std::fs::copy(&entry, out).is_ok() {
            // A hit refreshes the entry, which orders eviction.
            if let Ok(f) = File::options().append(true).open(&entry) {
                let _ = f.set_modified(std::time::SystemTime::now());
            }
            return Ok(true);
        }
        make()?;
        let bytes = std::fs::read(out).with_context(|| format!("cannot read {}", out.display()))?;
        if bytes.len() as u64 <= self.max_bytes && write_whole(&entry, &bytes).is_ok() {
            croupier_host::cache::evict_least_recent(&self.dir, "wasm", self.max_bytes, &entry);
        }
        Ok(false)
    }

    /// The entry's lock, removed (while still held) when dropped: a waiter that gets it
    /// next finds the entry stored. `None` if it cannot be had; the caller then builds
    /// beside the other, which the lock only saves, never needs.
    fn lock(&self, key: &str) -> Option<EntryLock> {
        let path = self.dir.join(format!("{key}.lock"));
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .ok()?;
        file.lock().ok()?;
        Some(EntryLock { path, _file: file })
    }
}

struct EntryLock {
    path: PathBuf,
    _file: File,
}

impl Drop for EntryLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Writes the component for `key` to `out` through the user's [`Store`], or runs `make`
/// when there is none. Returns whether it was kept from before.
pub fn component(key: &str, out: &Path, make: impl FnOnce() -> Result<()>) -> Result<bool> {
    match Store::user() {
        Some(store) => store.component(key, out, make),
        None => make().map(|()| false),
    }
}

/// Writes `bytes` to `path` whole: into a file beside it, then renamed over it. A reader
/// (a running match or arena loading the agent, a test in another process) sees the old
/// component or the new one, never half of one; a hot swap can rebuild under a live match.
pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<()> {
    let part = scratch(path);
    std::fs::write(&part, bytes).with_context(|| format!("cannot write {}", part.display()))?;
    std::fs::rename(&part, path).with_context(|| {
        let _ = std::fs::remove_file(&part);
        format!("cannot write {}", path.display())
    })
}

/// A file beside `path` for this process to write before it becomes `path`.
pub fn scratch(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{name}.{}.part", std::process::id()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_do_not_run_together() {
        assert_ne!(key(&[b"ab", b"c"]), key(&[b"a", b"bc"]));
        assert_eq!(key(&[b"ab", b"c"]), key(&[b"ab", b"c"]));
    }

    #[test]
    fn a_kept_component_is_used_only_for_its_key() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::at(dir.path().join("store"), 1 << 20).expect("store");
        let out = dir.path().join("out.wasm");
        let made = |bytes: &'static [u8]| {
            let out = out.clone();
            move || std::fs::write(&out, bytes).map_err(Into::into)
        };
        assert!(!store.component("k1", &out, made(b"one")).expect("first"));
        std::fs::remove_file(&out).expect("rm");
        assert!(store.component("k1", &out, made(b"two")).expect("kept"));
        assert_eq!(std::fs::read(&out).expect("read"), b"one");
        assert!(!store.component("k2", &out, made(b"two")).expect("new key"));
        assert_eq!(std::fs::read(&out).expect("read"), b"two");
        // A failed build keeps nothing under its key.
        assert!(
            store
                .component("k3", &out, || anyhow::bail!("broken"))
                .is_err()
        );
        assert!(
            !store
                .component("k3", &out, made(b"three"))
                .expect("rebuilt")
        );
    }

    #[test]
    fn the_store_stays_within_its_bound_and_drops_the_least_recent() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::at(dir.path().join("store"), 25).expect("store");
        let out = dir.path().join("out.wasm");
        let ten = || std::fs::write(&out, [0u8; 10]).map_err(Into::into);
        let at = |secs| std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
        let age = |key: &str, secs| {
            let f = File::options()
                .append(true)
                .open(dir.path().join(format!("store/{key}.wasm")))
                .expect("entry");
            f.set_modified(at(secs)).expect("mtime");
        };
        store.component("a", &out, ten).expect("a");
        age("a", 1);
        store.component("b", &out, ten).expect("b");
        age("b", 2);
        // A hit on `a` makes `b` the least recently used.
        assert!(store.component("a", &out, ten).expect("hit"));
        store.component("c", &out, ten).expect("c");
        let kept = |key: &str| dir.path().join(format!("store/{key}.wasm")).is_file();
        assert!(kept("a") && kept("c") && !kept("b"));
        // A component larger than the whole bound is built but not kept.
        let big = || std::fs::write(&out, [0u8; 30]).map_err(Into::into);
        assert!(!store.component("d", &out, big).expect("d"));
        assert!(!kept("d") && kept("a"));
    }

    #[test]
    fn a_tree_key_sees_content_and_names_but_not_what_it_skips() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("pkg/__pycache__")).expect("mkdir");
        std::fs::create_dir_all(root.join("agents")).expect("mkdir");
        std::fs::create_dir_all(root.join(".venv")).expect("mkdir");
        std::fs::write(root.join("app.py"), "x = 1\n").expect("write");
        std::fs::write(root.join("pkg/m.py"), "y = 2\n").expect("write");
        let first = key_of_tree(root, Some(&root.join("agents"))).expect("key");
        for ignored in ["pkg/__pycache__/m.pyc", "agents/a.wasm", ".venv/x.py"] {
            std::fs::write(root.join(ignored), "junk").expect("write");
        }
        assert_eq!(
            key_of_tree(root, Some(&root.join("agents"))).expect("key"),
            first
        );
        std::fs::write(root.join("pkg/m.py"), "y = 3\n").expect("write");
        let edited = key_of_tree(root, Some(&root.join("agents"))).expect("key");
        assert_ne!(edited, first);
        std::fs::rename(root.join("pkg/m.py"), root.join("pkg/n.py")).expect("rename");
        assert_ne!(
            key_of_tree(root, Some(&root.join("agents"))).expect("key"),
            edited
        );
    }
}
