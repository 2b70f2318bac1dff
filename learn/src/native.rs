//! SDK agents linked natively, behind the same `Player` trait as sandboxed ones: opponents at
//! native speed inside a batch, and the limit the sandbox is measured against
//! (`croupier-bench`). They get the same seeded random stream and the same bounded, escaped
//! log as the sandbox's imports. [`Natives`] names the Rust example agents of each game.

use croupier_host::limits::Limits;
use croupier_host::player::{Player, PlayerFactory, StartInfo};
use croupier_host::sandbox::{CallStats, LogLine, MakeError};
use croupier_host::verdict::Fault;
use croupier_rules::durak::Durak;
use croupier_rules::toepen::Toepen;
use croupier_rules::uno::Uno;
use croupier_rules::{Game, Rules};
use std::sync::Arc;

/// The host services for an agent linked natively: the same seeded random stream and the
/// same bounded, escaped log as the sandbox's imports.
struct NativeServices {
    rng: croupier_rules::GameRng,
    log: croupier_host::sandbox::AgentLog,
}

impl croupier_sdk::Services for NativeServices {
    fn random(&mut self) -> u64 {
        self.rng.next_u64()
    }
    fn log(&mut self, level: croupier_sdk::Level, message: &str) {
        let level = format!("{level:?}").to_ascii_lowercase();
        self.log.push(&level, message);
    }
}

/// An SDK agent linked into the host: the limit the sandbox is measured against.
pub struct NativePlayer<G: Game, A: croupier_sdk::Agent<G>> {
    agent: Option<croupier_sdk::Native<G, A>>,
    services: NativeServices,
    limits: Limits,
    stats: CallStats,
}

impl<G: Game, A: croupier_sdk::Agent<G> + Send> Player<G> for NativePlayer<G, A>
where
    G::Options: Send,
{
    fn start(&mut self, info: &StartInfo) -> Result<(), Fault> {
        let options = G::Options::from_pairs(&info.rules.all).map_err(|e| {
            Fault::new(
                croupier_host::verdict::Verdict::Trap,
                format!("rule options do not parse: {e}"),
            )
        })?;
        self.agent = Some(croupier_sdk::Native::new(&croupier_sdk::GameInfo {
            seat: info.seat,
            players: info.players,
            options,
            seed: info.seed,
            args: info.args.clone(),
        }));
        Ok(())
    }
    fn decide(&mut self, obs: G::Observation, legal: &[G::Action]) -> Result<G::Action, Fault> {
        let Some(agent) = self.agent.as_mut() else {
            return Err(Fault::new(
                croupier_host::verdict::Verdict::Trap,
                "decide before start",
            ));
        };
        let budget = croupier_sdk::Budget {
            fuel: self.limits.fuel_per_decision,
            millis: self.limits.millis_per_decision,
            bank_millis: self.limits.time_bank_millis,
        };
        self.stats.decisions += 1;
        self.services.log.decision = self.stats.decisions as u32;
        let a = agent.decide(&obs, legal, budget, &mut self.services);
        if legal.contains(&a) {
            Ok(a)
        } else {
            Err(Fault::new(
                croupier_host::verdict::Verdict::IllegalAction,
                format!("`{a}` is not legal now"),
            ))
        }
    }
    fn take_log(&mut self) -> Vec<LogLine> {
        self.services.log.take()
    }
    fn stats(&self) -> CallStats {
        self.stats.clone()
    }
}

/// Makes native players of agent type `A`.
pub struct NativeFactory<G, A> {
    /// The limits whose budget the agent is told (a native agent is not held to them).
    pub limits: Limits,
    _types: std::marker::PhantomData<fn() -> (G, A)>,
}

impl<G, A> NativeFactory<G, A> {
    /// Native players of `A`, told the budget of `limits`.
    pub fn new(limits: Limits) -> Self {
        NativeFactory {
            limits,
            _types: std::marker::PhantomData,
        }
    }
}

impl<G: Game, A: croupier_sdk::Agent<G> + Send + 'static> PlayerFactory<G> for NativeFactory<G, A>
where
    G::Options: Send,
{
    fn make(&self, seed: u64) -> Result<Box<dyn Player<G>>, MakeError> {
        Ok(Box::new(NativePlayer::<G, A> {
            agent: None,
            services: NativeServices {
                rng: croupier_rules::GameRng::new(seed),
                log: croupier_host::sandbox::AgentLog::for_limits(&self.limits),
            },
            limits: self.limits.clone(),
            stats: CallStats::default(),
        }))
    }
    fn build_id(&self) -> String {
        format!("native:{}", std::any::type_name::<A>())
    }
}

/// A game's Rust example agents, linked natively.
pub trait Natives: Game {
    /// The example agents by name within the game (`cheapest`), in the order listed.
    const NATIVE: &'static [&'static str];
    /// Native players of the example agent `name` (`cheapest` or `durak/cheapest`).
    fn native(name: &str, limits: &Limits) -> Option<Arc<dyn PlayerFactory<Self>>>;
}

fn factory<G: Game, A: croupier_sdk::Agent<G> + Send + 'static>(
    limits: &Limits,
) -> Option<Arc<dyn PlayerFactory<G>>>
where
    G::Options: Send,
{
    Some(Arc::new(NativeFactory::<G, A>::new(limits.clone())))
}

/// The name within the game: `cheapest` of `durak/cheapest`.
fn within<G: Game>(name: &str) -> &str {
    name.strip_prefix(G::NAME)
        .and_then(|n| n.strip_prefix('/'))
        .unwrap_or(name)
}

impl Natives for Durak {
    const NATIVE: &'static [&'static str] = &[
        "cheapest",
        "fuzzy",
        "hand-value",
        "ismcts",
        "random-lead",
        "trump-tosser",
    ];
    fn native(name: &str, limits: &Limits) -> Option<Arc<dyn PlayerFactory<Durak>>> {
        match within::<Durak>(name) {
            "cheapest" => factory::<Durak, durak_cheapest::Cheapest>(limits),
            "fuzzy" => factory::<Durak, durak_fuzzy::Fuzzy>(limits),
            "hand-value" => factory::<Durak, durak_hand_value::HandValue>(limits),
            "ismcts" => factory::<Durak, durak_ismcts::Ismcts>(limits),
            "random-lead" => factory::<Durak, durak_random_lead::RandomLead>(limits),
            "trump-tosser" => factory::<Durak, durak_trump_tosser::TrumpTosser>(limits),
            _ => None,
        }
    }
}

impl Natives for Toepen {
    const NATIVE: &'static [&'static str] = &["feeble", "greedy", "random", "reasoning", "search"];
    fn native(name: &str, limits: &Limits) -> Option<Arc<dyn PlayerFactory<Toepen>>> {
        match within::<Toepen>(name) {
            "feeble" => factory::<Toepen, toepen_feeble::Feeble>(limits),
            "greedy" => factory::<Toepen, toepen_greedy::Greedy>(limits),
            "random" => factory::<Toepen, toepen_random::Random>(limits),
            "reasoning" => factory::<Toepen, toepen_reasoning::Reasoning>(limits),
            "search" => factory::<Toepen, toepen_search::Search>(limits),
            _ => None,
        }
    }
}

impl Natives for Uno {
    const NATIVE: &'static [&'static str] = &["anneal", "greedy", "primary", "search"];
    fn native(name: &str, limits: &Limits) -> Option<Arc<dyn PlayerFactory<Uno>>> {
        match within::<Uno>(name) {
            "anneal" => factory::<Uno, uno_anneal::Anneal>(limits),
            "greedy" => factory::<Uno, uno_greedy::Greedy>(limits),
            "primary" => factory::<Uno, uno_primary::Primary>(limits),
            "search" => factory::<Uno, uno_search::Search>(limits),
            _ => None,
        }
    }
}
