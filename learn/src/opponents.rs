//! Who plays the seats a learner does not: opponents by name or file, or foreign players.
//!
//! A name is one of the game's Rust example agents, played natively (`durak/cheapest`); with
//! `wasm:` in front it is the same example's component, played in the sandbox
//! (`wasm:durak/cheapest`); anything else is an agent component file (`bot.wasm`, in any
//! language), loaded, checked and run under the host's usual limits. `#ARGS` passes text to
//! the agent as on the command line (`durak/ismcts#iters=200`).

use crate::EnvError;
use crate::native::Natives;
use croupier_host::Runtime;
use croupier_host::adapters::Adapter;
use croupier_host::cache::Cache;
use croupier_host::limits::Limits;
use croupier_host::player::{Player, PlayerFactory, StartInfo, StartRules};
use croupier_host::sandbox::{CallStats, LogLine, MakeError};
use croupier_host::verdict::{Fault, Verdict};
use croupier_rules::Game;
use croupier_tournament::seating::{Entrant, start_player};
use std::sync::{Arc, OnceLock};

/// A player outside Rust (a Python callable): it is given the observation as the rules
/// crate's JSON and the legal actions as contract codes, and answers a code.
pub trait Foreign: Send + Sync {
    /// A player for one game, started in `info`'s seat.
    fn start(&self, info: &StartInfo) -> Result<Box<dyn ForeignSeat>, String>;
}

/// One foreign player in one game.
pub trait ForeignSeat: Send {
    /// The chosen action's contract code (`Game::encode_action`) given the observation as
    /// JSON and the legal actions' codes.
    fn decide(&mut self, observation: &str, legal: &[u32]) -> Result<u32, String>;
}

/// One opponent of a batch, with its share of the games.
#[derive(Clone)]
pub enum Opponent {
    /// An example agent's name or a component file, with `#ARGS`.
    Named(String),
    /// A foreign player.
    Foreign(Arc<dyn Foreign>),
}

/// What `agent`, started as a fresh player in `seat` of `game` with `seed`, chooses among
/// `legal` now; nothing is applied. How an agent labels positions others reached (an
/// exported policy's parity check, an expert's labels for imitation).
pub(crate) fn consult<G: Game>(
    agent: &Entrant<G>,
    game: &G,
    seat: u8,
    legal: &[G::Action],
    rules: &StartRules,
    seed: u64,
) -> Result<G::Action, String> {
    let mut player = start_player(agent, seat as usize, game.num_players(), rules, seed)?
        .map_err(|f| f.message)?;
    player
        .decide(game.observe(seat), legal)
        .map_err(|f| f.message)
}

/// The sandbox of every component opponent in this process, made at the first one.
fn runtime() -> Result<&'static Runtime, EnvError> {
    static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            Runtime::new(Limits::default(), Cache::default_or_disabled().0)
                .map_err(|e| format!("{e:#}"))
        })
        .as_ref()
        .map_err(|e| EnvError::Host(e.clone()))
}

/// Makes `opponent` ready to play `G` under `opts`: an entrant, as a match's agents are.
pub(crate) fn ready<G: Adapter + Natives>(
    opponent: &Opponent,
    opts: &G::Options,
) -> Result<Entrant<G>, EnvError> {
    let spec = match opponent {
        Opponent::Foreign(f) => {
            return Ok(Entrant {
                name: "foreign".to_string(),
                factory: Arc::new(ForeignFactory::<G> {
                    foreign: f.clone(),
                    _game: std::marker::PhantomData,
                }),
                args: String::new(),
            });
        }
        Opponent::Named(spec) => spec.trim(),
    };
    let (name, args) = spec.split_once('#').unwrap_or((spec, ""));
    if !name.starts_with("wasm:")
        && let Some(factory) = G::native(name, &Limits::default())
    {
        return Ok(Entrant {
            name: spec.to_string(),
            factory,
            args: args.to_string(),
        });
    }
    let sandboxed = spec.strip_prefix("wasm:").unwrap_or(spec);
    croupier_tournament::matches::setup::entrant::<G>(runtime()?, sandboxed, opts).map_err(|e| {
        EnvError::Opponent {
            spec: spec.to_string(),
            reason: e.to_string(),
        }
    })
}

struct ForeignFactory<G> {
    foreign: Arc<dyn Foreign>,
    _game: std::marker::PhantomData<fn() -> G>,
}

impl<G: Game> PlayerFactory<G> for ForeignFactory<G> {
    fn make(&self, _seed: u64) -> Result<Box<dyn Player<G>>, MakeError> {
        Ok(Box::new(ForeignPlayer::<G> {
            foreign: self.foreign.clone(),
            seat: None,
            codes: Vec::new(),
            stats: CallStats::default(),
            _game: std::marker::PhantomData,
        }))
    }
    fn build_id(&self) -> String {
        "foreign".to_string()
    }
}

struct ForeignPlayer<G> {
    foreign: Arc<dyn Foreign>,
    seat: Option<Box<dyn ForeignSeat>>,
    codes: Vec<u32>,
    stats: CallStats,
    _game: std::marker::PhantomData<fn() -> G>,
}

impl<G: Game> Player<G> for ForeignPlayer<G> {
    fn start(&mut self, info: &StartInfo) -> Result<(), Fault> {
        let seat = self
            .foreign
            .start(info)
            .map_err(|e| Fault::new(Verdict::Trap, e))?;
        self.seat = Some(seat);
        Ok(())
    }
    fn decide(&mut self, obs: G::Observation, legal: &[G::Action]) -> Result<G::Action, Fault> {
        let seat = self
            .seat
            .as_mut()
            .ok_or_else(|| Fault::new(Verdict::Trap, "decide before start"))?;
        let json = serde_json::to_string(&obs)
            .map_err(|e| Fault::new(Verdict::Trap, format!("observation: {e}")))?;
        self.codes.clear();
        self.codes
            .extend(legal.iter().map(|a| G::encode_action(*a)));
        self.stats.decisions += 1;
        let code = seat
            .decide(&json, &self.codes)
            .map_err(|e| Fault::new(Verdict::Trap, e))?;
        match G::decode_action(code).filter(|a| legal.contains(a)) {
            Some(a) => Ok(a),
            None => Err(Fault::new(
                Verdict::IllegalAction,
                format!("action code {code} is not legal now"),
            )),
        }
    }
    fn take_log(&mut self) -> Vec<LogLine> {
        Vec::new()
    }
    fn stats(&self) -> CallStats {
        self.stats.clone()
    }
}
