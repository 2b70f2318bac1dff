//! Writes a policy file into a copy of a policy agent's component (`croupier policy export`):
//! a data segment past the core module's initial memory, whose address and length go after
//! the marker of `croupier_sdk::policy::WEIGHTS`. Byte-level, section by section: a component
//! is a header and sections, and its main core module is one of them (section 1), itself a
//! header and sections; only the module's memory, data and data-count sections change.

/// The marker the SDK's policy agent carries (`croupier_sdk::policy::WEIGHTS`).
pub const MARKER: &[u8; 16] = b"croupier-policy:";

const PAGE: u64 = 65536;

/// Why a template cannot take a policy.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The bytes do not parse as the wasm binary format where they should.
    #[error("not a well-formed component: {0}")]
    Malformed(&'static str),
    /// No core module carries the marker exactly once.
    #[error("no core module carries the policy marker once (is it a policy agent's component?)")]
    NoMarker,
    /// A module with more than one memory, or an imported one.
    #[error("the module's memory is not the one memory it defines")]
    Memory,
    /// The file does not fit a 32-bit memory.
    #[error("the policy is too large for a 32-bit memory")]
    TooLarge,
}

/// Appends `v` as an unsigned LEB128 (the wasm binary format's numbers).
pub(crate) fn leb(mut v: u64, out: &mut Vec<u8>) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn sleb(mut v: i64, out: &mut Vec<u8>) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        let done = (v == 0 && byte & 0x40 == 0) || (v == -1 && byte & 0x40 != 0);
        out.push(if done { byte } else { byte | 0x80 });
        if done {
            return;
        }
    }
}

/// Reads an unsigned LEB128 at `*at`, moving past it.
fn read_leb(bytes: &[u8], at: &mut usize) -> Result<u64, EmbedError> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes
            .get(*at)
            .ok_or(EmbedError::Malformed("a number runs past the end"))?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(EmbedError::Malformed("a number is too long"))
}

/// The sections after an 8-byte header, as (id, payload).
fn sections(bytes: &[u8]) -> Result<Vec<(u8, &[u8])>, EmbedError> {
    let mut at = 8;
    let mut out = Vec::new();
    if bytes.len() < 8 || &bytes[..4] != b"\0asm" {
        return Err(EmbedError::Malformed("no wasm header"));
    }
    while at < bytes.len() {
        let id = bytes[at];
        at += 1;
        let len = read_leb(bytes, &mut at)? as usize;
        let payload = bytes
            .get(at..at + len)
            .ok_or(EmbedError::Malformed("a section runs past the end"))?;
        out.push((id, payload));
        at += len;
    }
    Ok(out)
}

fn assemble(header: &[u8], sections: &[(u8, Vec<u8>)]) -> Vec<u8> {
    let mut out = header.to_vec();
    for (id, payload) in sections {
        out.push(*id);
        leb(payload.len() as u64, &mut out);
        out.extend_from_slice(payload);
    }
    out
}

/// Where the marker is in `module`, if it is there exactly once.
fn marker_at(module: &[u8]) -> Option<usize> {
    let mut hits = module
        .windows(MARKER.len())
        .enumerate()
        .filter(|(_, w)| w == MARKER);
    let first = hits.next()?.0;
    hits.next().is_none().then_some(first)
}

/// A section that starts with its count of items (data, data count), with one item more:
/// `item` appended.
fn one_more(payload: &[u8], item: &[u8]) -> Result<Vec<u8>, EmbedError> {
    let mut at = 0;
    let n = read_leb(payload, &mut at)?;
    let mut out = Vec::with_capacity(payload.len() + item.len() + 1);
    leb(n + 1, &mut out);
    out.extend_from_slice(&payload[at..]);
    out.extend_from_slice(item);
    Ok(out)
}

/// The core module with `file` embedded.
fn embed_module(module: &[u8], file: &[u8]) -> Result<Vec<u8>, EmbedError> {
    marker_at(module).ok_or(EmbedError::NoMarker)?;
    let len = u32::try_from(file.len()).map_err(|_| EmbedError::TooLarge)?;
    let mut sections: Vec<(u8, Vec<u8>)> = sections(module)?
        .into_iter()
        .map(|(id, p)| (id, p.to_vec()))
        .collect();
    // The memory: exactly one, defined here (Rust's wasm32 modules), its minimum raised by the
    // pages the file needs; the file goes where the old minimum ended.
    let mem = sections
        .iter_mut()
        .find(|(id, _)| *id == 5)
        .ok_or(EmbedError::Memory)?;
    let mut at = 0;
    let count = read_leb(&mem.1, &mut at)?;
    let flags = *mem.1.get(at).ok_or(EmbedError::Memory)?;
    if count != 1 || flags & !1 != 0 {
        return Err(EmbedError::Memory);
    }
    at += 1;
    let min = read_leb(&mem.1, &mut at)?;
    let max = if flags & 1 == 1 {
        Some(read_leb(&mem.1, &mut at)?)
    } else {
        None
    };
    let pages = u64::from(len).div_ceil(PAGE);
    let new_min = min + pages;
    if new_min > 65536 || max.is_some_and(|m| m < new_min) {
        return Err(EmbedError::TooLarge);
    }
    let addr = u32::try_from(min * PAGE).map_err(|_| EmbedError::TooLarge)?;
    let mut payload = vec![1, flags];
    leb(new_min, &mut payload);
    if let Some(m) = max {
        leb(m, &mut payload);
    }
    mem.1 = payload;
    // One active data segment more, at `addr`.
    let mut segment = vec![0x00, 0x41];
    sleb(i64::from(addr as i32), &mut segment);
    segment.push(0x0b);
    leb(u64::from(len), &mut segment);
    segment.extend_from_slice(file);
    match sections.iter_mut().find(|(id, _)| *id == 11) {
        Some(data) => data.1 = one_more(&data.1, &segment)?,
        None => {
            // A data section goes after the code section (10) and before custom sections
            // that follow it; placed right after the code section.
            let code = sections
                .iter()
                .position(|(id, _)| *id == 10)
                .map_or(sections.len(), |i| i + 1);
            let mut payload = vec![1];
            payload.extend_from_slice(&segment);
            sections.insert(code, (11, payload));
        }
    }
    if let Some(count) = sections.iter_mut().find(|(id, _)| *id == 12) {
        count.1 = one_more(&count.1, &[])?;
    }
    let mut out = assemble(&module[..8], &sections);
    // The marker's bytes sit in a data segment that no change above moved past: find it again
    // in the new bytes, then write the address and length after it.
    let mark = marker_at(&out).ok_or(EmbedError::NoMarker)?;
    let slot = out
        .get_mut(mark + 16..mark + 24)
        .ok_or(EmbedError::Malformed("the marker is at the end"))?;
    slot[..4].copy_from_slice(&addr.to_le_bytes());
    slot[4..].copy_from_slice(&len.to_le_bytes());
    Ok(out)
}

/// `component` (a policy agent's) with `file` embedded in its core module.
pub fn embed(component: &[u8], file: &[u8]) -> Result<Vec<u8>, EmbedError> {
    let mut sections: Vec<(u8, Vec<u8>)> = sections(component)?
        .into_iter()
        .map(|(id, p)| (id, p.to_vec()))
        .collect();
    let main = sections
        .iter()
        .position(|(id, p)| *id == 1 && marker_at(p).is_some())
        .ok_or(EmbedError::NoMarker)?;
    sections[main].1 = embed_module(&sections[main].1, file)?;
    Ok(assemble(&component[..8], &sections))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leb_round_trips() {
        for v in [0u64, 1, 127, 128, 300, 65536, u32::MAX as u64] {
            let mut b = Vec::new();
            leb(v, &mut b);
            let mut at = 0;
            assert_eq!(read_leb(&b, &mut at).ok(), Some(v));
            assert_eq!(at, b.len());
        }
    }

    #[test]
    fn a_component_without_the_marker_is_refused() {
        let module = b"\0asm\x01\0\0\0";
        assert!(matches!(embed(module, b"x"), Err(EmbedError::NoMarker)));
        assert!(matches!(
            embed(b"nonsense", b"x"),
            Err(EmbedError::Malformed(_))
        ));
    }
}
