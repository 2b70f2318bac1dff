//! `toepen/digest`, a test agent: logs a digest of every observation it is given, then plays
//! a random legal action. `cli/tests/cli/contract.rs` replays the game and compares each digest
//! with the host's own observation, which checks the WIT contract and the SDK's conversion
//! field by field, in every contract version.

use croupier_sdk::toepen::Toepen;
use croupier_sdk::{Agent, Ctx, Game, GameInfo, Level};

/// The agent.
pub struct Digest;

impl Agent<Toepen> for Digest {
    fn new(_: &GameInfo<Toepen>) -> Self {
        Digest
    }

    fn decide(
        &mut self,
        obs: &<Toepen as Game>::Observation,
        legal: &[<Toepen as Game>::Action],
        ctx: &mut Ctx,
    ) -> <Toepen as Game>::Action {
        ctx.log(Level::Info, croupier_sdk::debug_digest(obs));
        let i = ctx.rng().below(legal.len());
        legal[i]
    }
}

croupier_sdk::export_toepen!(Digest);
