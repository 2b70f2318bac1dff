//! `uno/digest`, a test agent: logs a digest of every observation it is given, then plays
//! a random legal action. `cli/tests/cli/contract.rs` replays the game and compares each digest
//! with the host's own observation, which checks the WIT contract and the SDK's conversion
//! field by field, in every contract version.

use croupier_sdk::uno::Uno;
use croupier_sdk::{Agent, Ctx, Game, GameInfo, Level};

/// The agent.
pub struct Digest;

impl Agent<Uno> for Digest {
    fn new(_: &GameInfo<Uno>) -> Self {
        Digest
    }

    fn decide(
        &mut self,
        obs: &<Uno as Game>::Observation,
        legal: &[<Uno as Game>::Action],
        ctx: &mut Ctx,
    ) -> <Uno as Game>::Action {
        ctx.log(Level::Info, croupier_sdk::debug_digest(obs));
        let i = ctx.rng().below(legal.len());
        legal[i]
    }
}

croupier_sdk::export_uno!(Digest);
