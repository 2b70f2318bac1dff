//! The runtime context: one type that owns the engine, the compile cache and the limits, and
//! hands out ready-to-instantiate agents, as Spin's `crates/core` `Engine` does.
//!
//! Threat model: everything that reaches a game goes through [`Runtime::load`] and
//! [`Runtime::factory`]: the loader's checks (size, outline, world, imports, a compile in a
//! limited child process), linking against exactly the host's imports, and a trial run
//! under the play limits. A component that passes all of these can still misbehave in a
//! game; that is a verdict against it, never the host's failure.

use crate::adapters::Adapter;
use crate::cache::Cache;
use crate::compile::Compiler;
use crate::limits::Limits;
use crate::loader::{self, LoadError, LoadedComponent};
use crate::player::{PlayerFactory, StartInfo, StartRules, WasmFactory};
use crate::sandbox;
use croupier_rules::Rules;
use std::path::Path;
use std::sync::Arc;
use wasmtime::Engine;

/// The engine, cache and limits every agent of a process shares.
#[derive(Clone)]
pub struct Runtime {
    /// The wasmtime engine: one a process, whatever the limits ([`crate::engine::shared`]).
    pub engine: Engine,
    /// Where compiled components are kept.
    pub cache: Cache,
    /// What every agent runs under.
    pub limits: Limits,
    /// The child process that compiles agents: `croupier compile-agent` unless the
    /// embedder says otherwise ([`Runtime::with_compiler`]).
    pub compiler: Compiler,
}

impl Runtime {
    /// A runtime for `limits`, compiling through `cache`. Runtimes of any limits share one
    /// engine, so a component compiled for one loads from the cache for all.
    pub fn new(limits: Limits, cache: Cache) -> anyhow::Result<Runtime> {
        if let Some((field, why)) = limits.problem() {
            anyhow::bail!("limits: `{field}` is {why}");
        }
        Ok(Runtime {
            engine: crate::engine::shared()?,
            cache,
            limits,
            compiler: Compiler::default(),
        })
    }

    /// The same runtime compiling in the child `compiler` says; a program that embeds the
    /// host and has no `croupier` beside it uses [`Compiler::ThisProcess`].
    pub fn with_compiler(mut self, compiler: Compiler) -> Runtime {
        self.compiler = compiler;
        self
    }

    /// Reads, checks and compiles an agent file ([`loader::load`]).
    pub fn load(&self, path: &Path) -> Result<LoadedComponent, LoadError> {
        loader::load_with(
            &self.engine,
            &self.cache,
            &self.limits,
            &self.compiler,
            path,
        )
    }

    /// Links a loaded component for game `G` and gives it one trial run: an instance is
    /// made and `start` is called under the limits, with `opts` and `args` as in a game.
    /// This type-checks every export against the world exactly (the bindings' typed
    /// functions) and runs any core start function, so an agent that could never play (a
    /// `decide` of the wrong type, a start function that traps or loops) is refused here,
    /// with its reason, instead of faulting in every game.
    pub fn factory<G: Adapter>(
        &self,
        loaded: &LoadedComponent,
        opts: &G::Options,
        args: &str,
    ) -> Result<Arc<dyn PlayerFactory<G>>, LoadError> {
        let link_error = |e: wasmtime::Error| LoadError::Link {
            path: loaded.path.clone(),
            reason: crate::text::escape(&format!("{e:#}")),
        };
        let linker = sandbox::linker::<G>(&self.engine).map_err(|e| LoadError::Host {
            path: loaded.path.clone(),
            reason: format!("{e:#}"),
        })?;
        let pre = linker
            .instantiate_pre(&loaded.component)
            .map_err(link_error)?;
        let pre = G::pre(pre, &loaded.version).map_err(link_error)?;
        let factory = WasmFactory::<G> {
            id: loaded.build.clone(),
            engine: self.engine.clone(),
            pre,
            limits: self.limits.clone(),
        };
        let trial = |fault| LoadError::Trial {
            path: loaded.path.clone(),
            fault,
        };
        let mut agent = match factory.make(0) {
            Ok(a) => a,
            Err(sandbox::MakeError::Agent(f)) => return Err(trial(f)),
            Err(sandbox::MakeError::Host(reason)) => {
                return Err(LoadError::Host {
                    path: loaded.path.clone(),
                    reason,
                });
            }
        };
        agent
            .start(&StartInfo {
                seat: 0,
                players: opts.seats() as u8,
                rules: StartRules::new::<G>(opts),
                seed: 0,
                args: args.to_string(),
            })
            .map_err(trial)?;
        Ok(Arc::new(factory))
    }

    /// [`Runtime::factory`] under the game's first preset and no agent arguments: what
    /// `croupier validate` checks.
    pub fn factory_default<G: Adapter>(
        &self,
        loaded: &LoadedComponent,
    ) -> Result<Arc<dyn PlayerFactory<G>>, LoadError> {
        let host = |reason: String| LoadError::Host {
            path: loaded.path.clone(),
            reason,
        };
        let first = G::Options::presets()
            .first()
            .ok_or_else(|| host(format!("{} has no presets", G::NAME)))?;
        let opts = G::Options::preset(first.name).map_err(|e| host(e.to_string()))?;
        self.factory::<G>(loaded, &opts, "")
    }
}
