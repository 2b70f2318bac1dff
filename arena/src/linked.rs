//! Linked agents by content hash: each is loaded and linked once and handed out as a
//! player factory. The server (uploads' checks, its own worker) and remote workers keep one
//! each.

use croupier_host::Runtime;
use croupier_host::adapters::Adapter;
use croupier_host::player::PlayerFactory;
use std::any::Any;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Agents a worker keeps linked and ready; past this the cache starts again (an arena with
/// more teams still works, it only links some agents again).
const MAX_FACTORIES: usize = 512;

/// Linked agents by content hash, for one game type.
pub struct Linked {
    runtime: Runtime,
    /// A `HashMap<String, Arc<dyn PlayerFactory<G>>>` for the arena's game, behind `Any`
    /// because the arena's type does not name its game.
    factories: Mutex<Option<Box<dyn Any + Send>>>,
}

impl Linked {
    /// An empty cache over `runtime`.
    pub fn new(runtime: Runtime) -> Linked {
        Linked {
            runtime,
            factories: Mutex::new(None),
        }
    }

    /// The sandbox runtime.
    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    /// The linked agent stored under `sha256` at `path`, loading and linking it on first use.
    pub fn factory<G: Adapter>(
        &self,
        sha256: &str,
        path: &Path,
        opts: &G::Options,
    ) -> Result<Arc<dyn PlayerFactory<G>>, String> {
        type Map<G> = HashMap<String, Arc<dyn PlayerFactory<G>>>;
        if let Ok(mut slot) = self.factories.lock()
            && let Some(map) = slot
                .get_or_insert_with(|| Box::new(Map::<G>::new()))
                .downcast_mut::<Map<G>>()
            && let Some(f) = map.get(sha256)
        {
            return Ok(f.clone());
        }
        let loaded = self.runtime.load(path).map_err(|e| e.to_string())?;
        let f = self
            .runtime
            .factory::<G>(&loaded, opts, "")
            .map_err(|e| e.to_string())?;
        if let Ok(mut slot) = self.factories.lock()
            && let Some(map) = slot
                .get_or_insert_with(|| Box::new(Map::<G>::new()))
                .downcast_mut::<Map<G>>()
        {
            if map.len() >= MAX_FACTORIES {
                map.clear();
            }
            map.insert(sha256.to_string(), f.clone());
        }
        Ok(f)
    }
}
