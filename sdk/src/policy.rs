//! The agent of an exported policy: a network (`croupier-policy`'s [`Mlp`]) that scores the
//! action indices of the game's encoding (`croupier_rules::encode`) from the observation
//! vector, and plays the legal action it scores highest.
//!
//! `croupier policy export` writes the network into a copy of this agent's component: it finds
//! [`WEIGHTS`] by its marker, appends the file as a data segment past the module's initial
//! memory (where nothing else lives: the allocator takes only memory it grows), and writes
//! the segment's address and length after the marker. Built without that, the agent has no
//! network and plays its first legal action.

use crate::{Agent, Ctx, GameInfo, Level};
use croupier_policy::Mlp;
use croupier_rules::encode::{self, Encode};

/// The marker `croupier policy export` looks for, then the weights' address and length
/// (little-endian u32 each), zero until written.
#[used]
#[unsafe(no_mangle)]
pub static mut WEIGHTS: [u8; 24] = *b"croupier-policy:\0\0\0\0\0\0\0\0";

/// The embedded file, if the export wrote one.
fn embedded() -> Option<&'static [u8]> {
    // SAFETY: a volatile read of a plain byte array, so that the compiler cannot fold the
    // zeros it was built with; nothing writes it while the agent runs.
    let w = unsafe { core::ptr::read_volatile(&raw const WEIGHTS) };
    let at = u32::from_le_bytes([w[16], w[17], w[18], w[19]]) as usize;
    let len = u32::from_le_bytes([w[20], w[21], w[22], w[23]]) as usize;
    if len == 0 || !cfg!(target_arch = "wasm32") {
        return None;
    }
    // SAFETY: the export placed `len` bytes at `at`, in memory the module starts with and
    // nothing else uses (see the module doc); they live as long as the instance.
    Some(unsafe { core::slice::from_raw_parts(at as *const u8, len) })
}

/// The agent: one network per game, read from the embedded file at the deal.
pub struct Policy<G: Encode> {
    mlp: Option<Mlp>,
    options: G::Options,
    x: Vec<f32>,
    /// The legal actions' indices, one decision at a time.
    indices: Vec<usize>,
    logged: bool,
}

impl<G: Encode> Agent<G> for Policy<G> {
    fn new(info: &GameInfo<G>) -> Self {
        // The export checked every value; here only the structure is read again.
        let mlp = embedded().and_then(|b| Mlp::from_safetensors(b).ok());
        Policy {
            mlp,
            options: info.options.clone(),
            x: Vec::new(),
            indices: Vec::new(),
            logged: false,
        }
    }

    fn decide(&mut self, obs: &G::Observation, legal: &[G::Action], ctx: &mut Ctx) -> G::Action {
        let Some(mlp) = &self.mlp else {
            if !self.logged {
                self.logged = true;
                ctx.log(
                    Level::Warn,
                    "no policy embedded: playing the first legal action",
                );
            }
            return legal[0];
        };
        self.x.resize(mlp.inputs(), 0.0);
        encode::encode::<G>(obs, &self.options, &mut self.x);
        // Only the legal outputs are compared; each legal action's index is computed once,
        // and the chosen index maps back by its position.
        self.indices.clear();
        self.indices
            .extend(legal.iter().map(|a| G::action_index(*a)));
        let chosen = mlp.act(&self.x, self.indices.iter().copied());
        chosen
            .and_then(|i| self.indices.iter().position(|&j| j == i))
            .map_or(legal[0], |k| legal[k])
    }
}
