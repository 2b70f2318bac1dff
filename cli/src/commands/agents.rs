//! `croupier agents`: the built example agents, with game, language and whether each is
//! compiled yet. Listing never compiles: it reads each file's outline (the loader's checks
//! that need no compiler) and asks the compile cache, so it takes milliseconds even with
//! 18 MB interpreters among the agents. `croupier validate AGENT` does the full load.

use anyhow::Result;
use croupier_host::limits::Limits;
use croupier_host::{loader, registry};

/// Lists every built example agent; one the loader's checks refuse is marked, and one the
/// compile cache does not hold yet says so.
pub fn execute() -> Result<()> {
    let host = super::runtime(Limits::default(), true)?;
    let all = registry::examples();
    if all.is_empty() {
        println!("no example agents are built; run `croupier build`");
    }
    println!(
        "{:<24} {:<7} {:<11} {:>8}  {:<17} file",
        "agent", "game", "language", "size", "compiled"
    );
    for ex in all {
        let bytes = std::fs::read(&ex.path);
        let size = bytes.as_ref().map_or(0, Vec::len);
        // The refusal itself is `croupier validate`'s to explain; here only whether there is one.
        let inspected = bytes
            .as_ref()
            .ok()
            .and_then(|b| Some((b, loader::inspect(&host.limits, &ex.path, b).ok()?)));
        let (lang, state) = match &inspected {
            Some((b, i)) => (
                i.outline.language.clone().unwrap_or_else(|| "?".into()),
                if host.cache.contains(&host.engine, b) {
                    "yes"
                } else if host.cache.dir().is_none() {
                    "no cache"
                } else {
                    "not compiled yet"
                },
            ),
            None => ("?".into(), "does not load"),
        };
        println!(
            "{:<24} {:<7} {:<11} {:>6}KB  {:<17} {}{}",
            ex.id(),
            ex.game,
            lang,
            size / 1024,
            state,
            ex.path.display(),
            if inspected.is_none() {
                "  (run croupier validate)"
            } else {
                ""
            }
        );
    }
    Ok(())
}
