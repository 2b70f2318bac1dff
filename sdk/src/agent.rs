//! What an agent is and what it gets: the [`Agent`] trait, the decision's [`Ctx`] (budget,
//! random numbers, logging), the game's [`GameInfo`], and [`Native`] to run an agent outside
//! the sandbox. The crate root re-exports all of it; the glue the export macros expand to
//! imports it from here, so neither imports the other back.

use croupier_rules::{Game, GameRng, Seat};

/// What is left to spend on this decision.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    /// Fuel (roughly, WebAssembly instructions) for this decision: the decision's own
    /// budget, or what is left of the game's when that is less.
    pub fuel: u64,
    /// Wall-clock milliseconds for this decision.
    pub millis: u32,
    /// Milliseconds left in the game's time bank, if the match has one.
    pub bank_millis: Option<u32>,
}

/// What an agent is told when a game starts.
#[derive(Clone, Debug)]
pub struct GameInfo<G: Game> {
    /// This agent's seat.
    pub seat: Seat,
    /// Seats at the table.
    pub players: u8,
    /// The game's rule options.
    pub options: G::Options,
    /// This agent's seed for this game.
    pub seed: u64,
    /// Text given after `#` on the command line (`durak/ismcts#iters=500`).
    pub args: String,
}

impl<G: Game> GameInfo<G> {
    /// Looks up `key=value` in the args (`iters=500,c=1.4`), parsed.
    pub fn arg<T: std::str::FromStr>(&self, key: &str) -> Option<T> {
        self.args
            .split([',', ' ', ';'])
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| k.trim() == key)
            .and_then(|(_, v)| v.trim().parse().ok())
    }
}

/// Log levels.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Level {
    /// Something went wrong (inside the sandbox the SDK logs a panic's message at this level).
    Error,
    /// Something unexpected that the agent survived.
    Warn,
    /// What the agent is doing.
    Info,
    /// Detail for debugging.
    Debug,
}

/// The host services behind [`Ctx`]: the sandbox's imports, or the native host.
pub trait Services {
    /// The next number of this seat's seeded random stream.
    fn random(&mut self) -> u64;
    /// Adds `message` to this agent's log for the game at `level`.
    fn log(&mut self, level: Level, message: &str);
}

/// An agent's view of the host during one decision.
pub struct Ctx<'a> {
    budget: Budget,
    rng: &'a mut GameRng,
    services: &'a mut dyn Services,
}

impl<'a> Ctx<'a> {
    /// The context of one decision: its budget, the agent's generator and the host services. The
    /// export glue and [`Native`] build it for `decide`; an agent builds one itself only to call
    /// another agent (in tests, or to play a simulated seat).
    pub fn new(budget: Budget, rng: &'a mut GameRng, services: &'a mut dyn Services) -> Self {
        Ctx {
            budget,
            rng,
            services,
        }
    }

    /// What is left to spend on this decision.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// A fast random generator seeded from the game's seed for this seat: the whole match
    /// replays bit for bit. Prefer it to [`Ctx::host_random`] on hot paths.
    pub fn rng(&mut self) -> &mut GameRng {
        self.rng
    }

    /// The host's seeded random stream (one boundary crossing per call).
    pub fn host_random(&mut self) -> u64 {
        self.services.random()
    }

    /// Adds a line to this agent's log for the game (bounded by the host).
    pub fn log(&mut self, level: Level, message: impl AsRef<str>) {
        self.services.log(level, message.as_ref());
    }
}

/// An agent for game `G`. One value lives for one game: `new` at the deal, then `decide`
/// whenever the agent has a real choice (the host plays forced moves itself).
pub trait Agent<G: Game>: Sized {
    /// Creates the agent for one game, at the deal, with what the host tells this seat.
    fn new(info: &GameInfo<G>) -> Self;
    /// Returns one of `legal` (anything else loses the game by default).
    fn decide(&mut self, obs: &G::Observation, legal: &[G::Action], ctx: &mut Ctx) -> G::Action;
}

/// A short, stable digest of a value's `Debug` form (64-bit FNV-1a, as hex). The same on the
/// host and inside the sandbox, so a test can check that what an agent was given equals what
/// the host sent (tests/digest-agents, cli/tests/cli/contract.rs).
pub fn debug_digest<T: std::fmt::Debug>(value: &T) -> String {
    let text = format!("{value:?}");
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Runs an agent natively: the host links this when it measures the sandbox against the
/// same agent without it.
pub struct Native<G: Game, A: Agent<G>> {
    agent: A,
    rng: GameRng,
    _game: std::marker::PhantomData<G>,
}

impl<G: Game, A: Agent<G>> Native<G, A> {
    /// Creates the agent for one game (`Agent::new`) and its generator ([`agent_rng`] of
    /// `info.seed`, as inside the sandbox).
    pub fn new(info: &GameInfo<G>) -> Self {
        Native {
            agent: A::new(info),
            rng: agent_rng(info.seed),
            _game: std::marker::PhantomData,
        }
    }

    /// Asks the agent for one decision, with this budget and these host services.
    pub fn decide(
        &mut self,
        obs: &G::Observation,
        legal: &[G::Action],
        budget: Budget,
        services: &mut dyn Services,
    ) -> G::Action {
        let mut ctx = Ctx::new(budget, &mut self.rng, services);
        self.agent.decide(obs, legal, &mut ctx)
    }
}

/// The agent-side generator for a seat's seed (distinct from the host's `random` stream).
pub fn agent_rng(seed: u64) -> GameRng {
    GameRng::new(GameRng::derive(seed, 0xA6E7))
}
