//! A seat's decision maker, sandboxed or native, behind one trait so the match runner is
//! written once.

use crate::adapters::Adapter;
use crate::bindings::GameInfo;
use crate::limits::Limits;
use crate::sandbox::{CallStats, LogLine, WasmAgent};
use crate::verdict::Fault;
use croupier_rules::Game;
use wasmtime::Engine;

/// What a seat is told at the start of a game.
#[derive(Clone, Debug)]
pub struct StartInfo {
    pub seat: u8,
    pub players: u8,
    pub rules: Vec<(String, String)>,
    pub seed: u64,
    pub args: String,
}

impl StartInfo {
    pub fn to_wit(&self) -> GameInfo {
        GameInfo {
            seat: self.seat,
            players: self.players,
            rules: self.rules.clone(),
            seed: self.seed,
            args: self.args.clone(),
        }
    }
}

/// One seat's decision maker for one game.
pub trait Player<G: Game>: Send {
    fn start(&mut self, info: &StartInfo) -> Result<(), Fault>;
    fn decide(&mut self, obs: &G::Observation, legal: &[G::Action]) -> Result<G::Action, Fault>;
    fn take_log(&mut self) -> Vec<LogLine>;
    fn stats(&self) -> CallStats;
}

impl<G: Adapter> Player<G> for WasmAgent<G> {
    fn start(&mut self, info: &StartInfo) -> Result<(), Fault> {
        WasmAgent::start(self, &info.to_wit())
    }
    fn decide(&mut self, obs: &G::Observation, legal: &[G::Action]) -> Result<G::Action, Fault> {
        WasmAgent::decide(self, obs, legal)
    }
    fn take_log(&mut self) -> Vec<LogLine> {
        WasmAgent::take_log(self)
    }
    fn stats(&self) -> CallStats {
        self.stats.clone()
    }
}

/// Makes a fresh player for a seat in a game: a new sandbox instance, or a native agent.
pub trait PlayerFactory<G: Game>: Send + Sync {
    fn make(&self, seed: u64) -> Result<Box<dyn Player<G>>, Fault>;
}

/// Instantiates a loaded component for each game.
pub struct WasmFactory<G: Adapter> {
    pub engine: Engine,
    pub pre: G::Pre,
    pub limits: Limits,
}

impl<G: Adapter> PlayerFactory<G> for WasmFactory<G> {
    fn make(&self, seed: u64) -> Result<Box<dyn Player<G>>, Fault> {
        Ok(Box::new(WasmAgent::<G>::instantiate(
            &self.engine,
            &self.pre,
            &self.limits,
            seed,
        )?))
    }
}
