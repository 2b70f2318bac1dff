//! SDK agents linked natively, behind the same `Player` trait as sandboxed ones: the limit
//! the sandbox is measured against (`croupier-bench`). They get the same seeded random
//! stream and the same bounded, escaped log as the sandbox's imports.

use croupier_host::limits::Limits;
use croupier_host::player::{Player, PlayerFactory, StartInfo};
use croupier_host::sandbox::{CallStats, LogLine, MakeError};
use croupier_host::verdict::Fault;
use croupier_rules::{Game, Rules};

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
    pub limits: Limits,
    _types: std::marker::PhantomData<fn() -> (G, A)>,
}

impl<G, A> NativeFactory<G, A> {
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
