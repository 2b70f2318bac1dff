//! Agents stored by content: a file is named by its SHA-256, so no name from an upload or a
//! request ever becomes a path, and the same bytes are stored once. A leaf module: the
//! server, the uploads' checks and the workers all use it.

use sha2::{Digest, Sha256};
use std::io::Write;

/// The hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `s` is a hex SHA-256 as this module writes them: 64 lower-case hex digits. Names
/// that come from a request are checked with it before they become a path.
pub fn is_sha256(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Stores an agent under its hash (written to a temporary file, then renamed, so a reader
/// never sees half a file). Returns the hash.
pub fn store_agent(dir: &std::path::Path, bytes: &[u8]) -> std::io::Result<String> {
    let sha = sha256_hex(bytes);
    let path = dir.join(format!("{sha}.wasm"));
    if path.exists() {
        return Ok(sha);
    }
    let tmp = dir.join(format!(".{sha}.{}.tmp", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, &path)?;
    Ok(sha)
}
