//! Tokens: who a request comes from.
//!
//! A token is 256 random bits from the operating system, shown once when it is made and
//! stored only as its SHA-256, so a copy of the database gives nobody a way in. A team's
//! token names its team (`team-ID-SECRET`), the database row is found by that id, and the
//! hashes are compared in constant time, so response times say nothing about how much of a
//! guess was right. The organiser's token (`admin-SECRET`) is kept the same way in `meta`.
//! A worker's token (`worker-ID-SECRET`) opens only the worker API (lease, heartbeat,
//! report, agent download): a machine that plays matches never holds database credentials
//! or a team's or the organiser's rights, and it cannot sign in to a page.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Who a request comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Who {
    /// Nobody signed in: public pages only.
    Public,
    /// A team, by id.
    Team(i64),
    /// The organiser.
    Admin,
}

impl Who {
    /// Whether this caller may see team `team`'s private data (logs, private replay views).
    pub fn may_see(&self, team: i64) -> bool {
        match self {
            Who::Admin => true,
            Who::Team(t) => *t == team,
            Who::Public => false,
        }
    }
}

/// A token that cannot be made (the OS gave no randomness).
#[derive(Debug, thiserror::Error)]
#[error("cannot make a token: the operating system gave no randomness: {0}")]
pub struct NoRandomness(String);

fn secret() -> Result<String, NoRandomness> {
    Ok(hex(&random_bytes::<32>()?))
}

/// `N` random bytes from the operating system.
pub fn random_bytes<const N: usize>() -> Result<[u8; N], NoRandomness> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| NoRandomness(e.to_string()))?;
    Ok(bytes)
}

/// HMAC-SHA256 (RFC 2104) of `msg` under `key` (at most 64 bytes, as every key here is). Spelt
/// out here because the `hmac` crate in the tree is built on a newer `digest` than `sha2`.
pub fn hmac_sha256(key: &[u8], msg: &[u8]) -> [u8; 32] {
    let mut k = [0u8; 64];
    if key.len() > 64 {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let inner = Sha256::new()
        .chain_update(k.map(|b| b ^ 0x36))
        .chain_update(msg)
        .finalize();
    Sha256::new()
        .chain_update(k.map(|b| b ^ 0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

/// SHA-256 of a token.
pub fn hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// A new token for team `id`.
pub fn team_token(id: i64) -> Result<String, NoRandomness> {
    Ok(format!("team-{id}-{}", secret()?))
}

/// A new token for worker `id`.
pub fn worker_token(id: i64) -> Result<String, NoRandomness> {
    Ok(format!("worker-{id}-{}", secret()?))
}

/// A new organiser token.
pub fn admin_token() -> Result<String, NoRandomness> {
    Ok(format!("admin-{}", secret()?))
}

/// What a presented token claims to be, before it is checked.
#[derive(Debug, PartialEq, Eq)]
pub enum Claim {
    /// `team-ID-…`
    Team(i64),
    /// `admin-…`
    Admin,
    /// `worker-ID-…`
    Worker(i64),
}

/// Reads what a token claims; `None` for a malformed one.
pub fn claim(token: &str) -> Option<Claim> {
    if token.len() > 200 {
        return None;
    }
    if token.starts_with("admin-") {
        return Some(Claim::Admin);
    }
    if let Some(rest) = token.strip_prefix("worker-") {
        let (id, _) = rest.split_once('-')?;
        return id.parse().ok().map(Claim::Worker);
    }
    let rest = token.strip_prefix("team-")?;
    let (id, _) = rest.split_once('-')?;
    id.parse().ok().map(Claim::Team)
}

/// Whether `token` hashes to `stored`, in time that does not depend on where they differ.
pub fn matches(token: &str, stored: &[u8]) -> bool {
    bool::from(hash(token).as_slice().ct_eq(stored))
}

/// A random 64-bit seed from the OS (a new arena's master seed, a lease name).
pub fn random_u64() -> Result<u64, NoRandomness> {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).map_err(|e| NoRandomness(e.to_string()))?;
    Ok(u64::from_le_bytes(b))
}

/// Hex to bytes.
pub fn hex_decode(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Bytes to hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4231, test cases 2 and 6 (a key longer than the block).
    #[test]
    fn hmac_is_rfc_4231s() {
        assert_eq!(
            hex(&hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(
            hex(&hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn tokens_check_against_their_hash_only() {
        let t = team_token(7).expect("random");
        assert_eq!(claim(&t), Some(Claim::Team(7)));
        let h = hash(&t);
        assert!(matches(&t, &h));
        let mut wrong = t.clone();
        wrong.pop();
        wrong.push('x');
        assert!(!matches(&wrong, &h));
        assert_ne!(team_token(7).expect("random"), t, "tokens are random");
        assert_eq!(claim("team-x-1"), None);
        assert_eq!(claim("bearer"), None);
        assert_eq!(claim(&admin_token().expect("random")), Some(Claim::Admin));
        assert_eq!(
            claim(&worker_token(3).expect("random")),
            Some(Claim::Worker(3))
        );
        assert_eq!(claim("worker-3"), None);
    }
}
