//! `croupier:agent/host`, the one interface with behaviour that agents import, in every
//! contract version: `log` (bounded by the store's [`crate::store::AgentLog`]) and a seeded
//! `random`. Nothing else is ever linked (the loader's capability check).

use super::latest::Level;
use crate::store::StoreData;
use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, WasmStr};

/// The host's `log`: copies at most what the log still has room for out of the agent's
/// memory (the string is borrowed in place, so a call that passes the whole linear memory
/// costs the host no allocation), then charges the line.
fn host_log(
    mut cx: StoreContextMut<'_, StoreData>,
    level: &'static str,
    message: &WasmStr,
) -> wasmtime::Result<()> {
    let room = cx.data().log.room();
    let (prefix, len) = {
        let text = message.to_str(&cx)?;
        let mut cut = room.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        (text[..cut].to_string(), text.len())
    };
    let log = &mut cx.data_mut().log;
    if log.push_measured(level, &prefix, len) {
        Ok(())
    } else {
        Err(wasmtime::Error::msg(log.flood_message()))
    }
}

/// Defines `croupier:agent/host@VERSION` by hand rather than through the bindings, so that
/// `log` receives the agent's string in place ([`WasmStr`]) instead of a host `String` lifted
/// before any budget check. The `level` enum is the same in every version, so the newest
/// version's type serves them all.
fn add_host_version(linker: &mut Linker<StoreData>, version: &str) -> wasmtime::Result<()> {
    let mut host = linker.instance(&format!("{}/host@{version}", crate::kind::PACKAGE))?;
    host.func_wrap(
        "log",
        |cx: StoreContextMut<'_, StoreData>, (level, message): (Level, WasmStr)| {
            let level = match level {
                Level::Error => "error",
                Level::Warn => "warn",
                Level::Info => "info",
                Level::Debug => "debug",
            };
            host_log(cx, level, &message)
        },
    )?;
    host.func_wrap(
        "random",
        |mut cx: StoreContextMut<'_, StoreData>, (): ()| Ok((cx.data_mut().next_random(),)),
    )?;
    Ok(())
}

/// Adds the shared host interfaces of every version (used by each adapter's
/// `add_to_linker`).
pub(crate) fn add_host_to_linker(linker: &mut Linker<StoreData>) -> wasmtime::Result<()> {
    for version in super::numbers() {
        add_host_version(linker, version)?;
    }
    super::add_common_to_linker(linker)
}
