//! Hot swap: `croupier match --watch` notices when an agent's `.wasm` changes and plays the
//! new build from the next game on, without restarting the host. A build that does not load
//! (not a component, wrong world, forbidden imports, not linkable) is refused with the
//! loader's message, and the previous version keeps playing.

use croupier_host::Runtime;
use croupier_host::adapters::Adapter;
use croupier_host::player::{Player, PlayerFactory};
use croupier_host::sandbox::MakeError;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

/// Where the watcher says what it did (a swap, a refused build): one line each.
pub type Report = std::sync::Arc<dyn Fn(String) + Send + Sync>;

/// How often files are polled. Polling (not inotify) works on every file system and costs
/// one `stat` per agent per interval.
pub const POLL: Duration = Duration::from_millis(200);

/// A factory whose component can be replaced while games run.
pub struct Swappable<G: Adapter> {
    current: RwLock<Arc<dyn PlayerFactory<G>>>,
}

impl<G: Adapter> PlayerFactory<G> for Swappable<G> {
    fn make(&self, seed: u64) -> Result<Box<dyn Player<G>>, MakeError> {
        let f = match self.current.read() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        };
        f.make(seed)
    }
    fn build_id(&self) -> String {
        match self.current.read() {
            Ok(g) => g.build_id(),
            Err(p) => p.into_inner().build_id(),
        }
    }
}

/// Watches agent files and swaps their factories; stops when dropped.
pub struct Watcher {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn stamp(path: &PathBuf) -> Option<(SystemTime, u64)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.modified().ok()?, m.len()))
}

/// Wraps each `(path, factory)` so it can be swapped, and starts the watcher thread.
pub fn watch<G: Adapter>(
    host: Runtime,
    opts: G::Options,
    report: Report,
    agents: Vec<(PathBuf, Arc<dyn PlayerFactory<G>>)>,
) -> (Vec<Arc<Swappable<G>>>, Watcher) {
    let slots: Vec<Arc<Swappable<G>>> = agents
        .iter()
        .map(|(_, f)| {
            Arc::new(Swappable {
                current: RwLock::new(f.clone()),
            })
        })
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let watched: Vec<(PathBuf, Arc<Swappable<G>>)> = agents
        .into_iter()
        .map(|(p, _)| p)
        .zip(slots.iter().cloned())
        .collect();
    let stop2 = stop.clone();
    let thread = std::thread::Builder::new()
        .name("croupier-watch".into())
        .spawn(move || {
            // No baseline: the first poll loads every agent once more. The caller loaded them
            // before this thread started, and a file changed in between (a slow compile, a
            // student saving again) would otherwise become the baseline and never be seen;
            // an unchanged file gives the same build, which is swapped in silently.
            let mut seen: Vec<Option<(SystemTime, u64)>> = vec![None; watched.len()];
            while !stop2.load(Ordering::Relaxed) {
                std::thread::sleep(POLL);
                for (i, (path, slot)) in watched.iter().enumerate() {
                    let now = stamp(path);
                    if now == seen[i] || now.is_none() {
                        continue;
                    }
                    seen[i] = now;
                    // The same path as the first load: size cap, outline checks, compile in a
                    // child process, trial run. A bomb is refused here like anywhere else.
                    let result = host
                        .load(path)
                        .map_err(|e| e.to_string())
                        .and_then(|l| {
                            if l.game != G::KIND {
                                Err(format!(
                                    "{}: is a {} agent, but this is a {} match",
                                    path.display(),
                                    l.game,
                                    G::KIND
                                ))
                            } else {
                                host.factory::<G>(&l, &opts, "").map_err(|e| e.to_string())
                            }
                        });
                    match result {
                        Ok(f) => {
                            let id = f.build_id();
                            let old = slot.build_id();
                            if id == old {
                                continue;
                            }
                            match slot.current.write() {
                                Ok(mut g) => *g = f,
                                Err(p) => *p.into_inner() = f,
                            }
                            report(format!(
                                "watch: {} changed: build {old} replaced by {id} from the next game on",
                                path.display()
                            ));
                        }
                        Err(e) => report(format!(
                            "watch: refused the new build of {}; build {} keeps playing: {e}",
                            path.display(),
                            slot.build_id()
                        )),
                    }
                }
            }
        })
        .ok();
    (slots, Watcher { stop, thread })
}
