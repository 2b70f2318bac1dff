//! A seat's decision maker behind one trait, so the match runner is written once: the
//! sandboxed agent here, and any other kind (a native agent linked for the bench, a person at
//! the terminal) implemented where it is needed.

use crate::adapters::Adapter;
use crate::limits::Limits;
use crate::sandbox::{CallStats, LogLine, MakeError, WasmAgent};
pub use crate::start::{StartInfo, StartRules};
use crate::verdict::Fault;
use croupier_rules::Game;
use wasmtime::Engine;

/// One seat's decision maker for one game.
pub trait Player<G: Game>: Send {
    /// Starts a game; called once, before the first decision.
    fn start(&mut self, info: &StartInfo) -> Result<(), Fault>;
    /// Chooses one of the `legal` actions given what this seat observes.
    fn decide(&mut self, obs: G::Observation, legal: &[G::Action]) -> Result<G::Action, Fault>;
    /// The log lines written since the last call, leaving none behind.
    fn take_log(&mut self) -> Vec<LogLine>;
    /// The counters for this game so far.
    fn stats(&self) -> CallStats;
    /// The build this player runs (a content hash for components), for the game record.
    /// Asked of the player rather than its factory, since a hot swap may replace the
    /// factory's build between the two questions.
    fn build_id(&self) -> String {
        String::new()
    }
}

impl<G: Adapter> Player<G> for WasmAgent<G> {
    fn start(&mut self, info: &StartInfo) -> Result<(), Fault> {
        WasmAgent::start(self, info)
    }
    fn decide(&mut self, obs: G::Observation, legal: &[G::Action]) -> Result<G::Action, Fault> {
        WasmAgent::decide(self, obs, legal)
    }
    fn take_log(&mut self) -> Vec<LogLine> {
        WasmAgent::take_log(self)
    }
    fn stats(&self) -> CallStats {
        self.stats.clone()
    }
    fn build_id(&self) -> String {
        self.build.clone()
    }
}

/// Makes a fresh player for a seat in a game: a new sandbox instance, or a native agent.
pub trait PlayerFactory<G: Game>: Send + Sync {
    /// A player for one game; `seed` seeds its random stream.
    fn make(&self, seed: u64) -> Result<Box<dyn Player<G>>, MakeError>;
    /// Which build plays (a content hash for components), for the game records.
    fn build_id(&self) -> String {
        String::new()
    }
}

/// Instantiates a loaded component for each game.
pub struct WasmFactory<G: Adapter> {
    /// Short SHA-256 of the component file.
    pub id: String,
    /// The engine the component was compiled for.
    pub engine: Engine,
    /// The component, linked and ready to instantiate.
    pub pre: G::Pre,
    /// The limits each instance runs under.
    pub limits: Limits,
}

impl<G: Adapter> PlayerFactory<G> for WasmFactory<G> {
    fn make(&self, seed: u64) -> Result<Box<dyn Player<G>>, MakeError> {
        let mut agent = WasmAgent::<G>::instantiate(&self.engine, &self.pre, &self.limits, seed)?;
        agent.build = self.id.clone();
        Ok(Box::new(agent))
    }
    fn build_id(&self) -> String {
        self.id.clone()
    }
}
