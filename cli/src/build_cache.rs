//! A component kept per content: `croupier build` of a JavaScript or TypeScript agent skips
//! its slow last step when nothing that step reads has changed. (A C agent's steps take a
//! second or two; it only takes its turn on the lock.)
//!
//! Why: SpiderMonkey makes a 12 MB component in 20–60 s, every time, from a bundle that
//! esbuild rebuilds in well under a second; a student who rebuilds after a rename, and a
//! test run after the last one, waited for it again. The key is the SHA-256 of everything
//! the step reads (the bundle or the linked module, the WIT, the engine and the pinned tool
//! versions), so a changed input always rebuilds; a stale hit would need a SHA-256 collision.
//!
//! The agent's `build/` folder holds one entry (`component.wasm` and `component.key`): the
//! cache never grows past one component per agent. Two builds of one agent at once (two
//! test processes, say) take turns on `build/.lock`, so neither reads the other's half-written
//! files.

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::path::Path;

/// Holds the agent's `build/.lock` while it lives; dropping it lets the next build in.
pub struct Lock(#[allow(dead_code)] File);

/// Waits for, then takes, the lock of the agent build folder `build`.
pub fn lock(build: &Path) -> Result<Lock> {
    std::fs::create_dir_all(build).with_context(|| format!("cannot create {}", build.display()))?;
    let path = build.join(".lock");
    let file = File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
    file.lock()
        .with_context(|| format!("cannot lock {}", path.display()))?;
    Ok(Lock(file))
}

/// The key of `inputs`: each one's length, then its bytes, so that no two lists of inputs
/// run together into the same stream.
pub fn key(inputs: &[&[u8]]) -> String {
    let mut hash = Sha256::new();
    for input in inputs {
        hash.update((input.len() as u64).to_le_bytes());
        hash.update(input);
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes the component for `key` to `out`: the one kept in `build/` if its key matches,
/// else what `make` writes to `out`, which is then kept. Returns whether it was kept from
/// before. The caller holds [`lock`].
pub fn component(
    build: &Path,
    key: &str,
    out: &Path,
    make: impl FnOnce() -> Result<()>,
) -> Result<bool> {
    let kept = build.join("component.wasm");
    let kept_key = build.join("component.key");
    if std::fs::read_to_string(&kept_key).is_ok_and(|k| k == key) && kept.is_file() {
        std::fs::copy(&kept, out)
            .with_context(|| format!("cannot copy {} to {}", kept.display(), out.display()))?;
        return Ok(true);
    }
    // The old key goes first: a build stopped halfway leaves no key that names a component
    // it did not finish.
    let _ = std::fs::remove_file(&kept_key);
    make()?;
    std::fs::copy(out, &kept)
        .with_context(|| format!("cannot copy {} to {}", out.display(), kept.display()))?;
    std::fs::write(&kept_key, key)
        .with_context(|| format!("cannot write {}", kept_key.display()))?;
    Ok(false)
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
        let build = dir.path().join("build");
        let out = dir.path().join("out.wasm");
        let _lock = lock(&build).expect("lock");
        let made = |bytes: &'static [u8]| {
            let out = out.clone();
            move || std::fs::write(&out, bytes).map_err(Into::into)
        };
        assert!(!component(&build, "k1", &out, made(b"one")).expect("first"));
        std::fs::remove_file(&out).expect("rm");
        assert!(component(&build, "k1", &out, made(b"two")).expect("kept"));
        assert_eq!(std::fs::read(&out).expect("read"), b"one");
        assert!(!component(&build, "k2", &out, made(b"two")).expect("new key"));
        assert_eq!(std::fs::read(&out).expect("read"), b"two");
        // A failed build leaves no key behind, so the next build does not trust the old file.
        assert!(component(&build, "k3", &out, || anyhow::bail!("broken")).is_err());
        assert!(!component(&build, "k2", &out, made(b"three")).expect("rebuilt"));
    }
}
