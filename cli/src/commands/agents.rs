//! `croupier agents`: the built example agents, with game and language.

use anyhow::Result;
use croupier_host::limits::Limits;
use croupier_host::{loader, registry};

/// Lists every built example agent; one that does not load is marked.
pub fn execute() -> Result<()> {
    let host = super::runtime(Limits::default(), true)?;
    let all = registry::examples();
    if all.is_empty() {
        println!("no example agents are built; run `croupier build`");
    }
    println!(
        "{:<24} {:<7} {:<9} {:>8}  file",
        "agent", "game", "language", "size"
    );
    for ex in all {
        let loaded = loader::load(&host.engine, &host.cache, &host.limits, &ex.path);
        let (lang, size, ok) = match &loaded {
            Ok(l) => (
                l.language.clone().unwrap_or_else(|| "?".into()),
                l.size,
                true,
            ),
            Err(_) => (
                "?".into(),
                std::fs::metadata(&ex.path).map_or(0, |m| m.len() as usize),
                false,
            ),
        };
        println!(
            "{:<24} {:<7} {:<9} {:>6}KB  {}{}",
            ex.id(),
            ex.game,
            lang,
            size / 1024,
            ex.path.display(),
            if ok {
                ""
            } else {
                "  (does not load: run croupier validate)"
            }
        );
    }
    Ok(())
}
