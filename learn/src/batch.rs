//! Many games at once: the learner's seat of each is driven with arrays, every other seat is
//! played inside by an opponent (EnvPool's batched step; `croupier.env.VecEnv` in Python).
//!
//! Each environment (a slot) plays game after game: when one ends, its reward and flags are
//! reported and the slot deals its next game at once, so the observation returned is that
//! game's first decision (an auto-reset). The learner's seat rotates with the game number
//! (game `k` of a slot: seat `k mod seats`), and each game draws one opponent, by weight, for
//! every other seat. A game in which the learner is never asked for a real choice is dealt
//! again without a step (counted in [`AnyBatch::unasked_games`]).

use crate::opponents::{Opponent, consult, ready};
use crate::{EnvError, Learnable, reward};
use croupier_host::player::{Player, StartRules};
use croupier_rules::encode::{self, Shape};
use croupier_rules::{Game, GameRng};
use croupier_tournament::matches::RulesArgs;
use croupier_tournament::seating::{Entrant, start_player};
use rayon::prelude::*;
use std::collections::HashMap;

/// The outputs of a reset or a step, one row per environment (filled in place).
pub struct Outputs<'a> {
    /// Observations, `num_envs × obs_len`.
    pub obs: &'a mut [f32],
    /// Legal-action masks, `num_envs × num_actions`.
    pub mask: &'a mut [i8],
    /// The learner's reward for the game that ended at this step (0 otherwise).
    pub reward: &'a mut [f32],
    /// A game ended by its rules at this step.
    pub terminated: &'a mut [bool],
    /// A game ended by the engine's safety limit at this step.
    pub truncated: &'a mut [bool],
}

/// What a batch is made of, besides its game and rules.
#[derive(Clone)]
pub struct BatchArgs {
    /// Environments.
    pub num_envs: usize,
    /// The seed of every deal, seat and opponent draw.
    pub seed: u64,
    /// Worker threads (1 steps on the caller's thread).
    pub threads: usize,
    /// The opponents with their weights.
    pub opponents: Vec<(Opponent, f64)>,
}

/// What every slot of a batch shares.
struct Shared<G: Game> {
    opts: G::Options,
    rules: StartRules,
    shape: Shape,
    opponents: Vec<Entrant<G>>,
    /// Cumulative weights, the last one the total.
    cumulative: Vec<f64>,
    seed: u64,
}

/// One environment: its game, the learner's seat and the other seats' players.
struct Slot<G: Game> {
    index: u64,
    games: u64,
    game: Option<G>,
    learner: u8,
    players: Vec<Option<Box<dyn Player<G>>>>,
    legal: Vec<G::Action>,
    faults: u64,
    unasked: u64,
}

/// What a finished game gives the learner.
struct End {
    reward: f32,
    aborted: bool,
}

/// Deals a game at most this many times in a row while the learner is never asked: far above
/// anything real play gives (it needs every deal to leave the learner only forced moves).
const MAX_UNASKED: u32 = 10_000;

impl<G: Learnable> Slot<G> {
    /// Deals the slot's next game: its seed, the learner's seat and the opponent drawn.
    fn deal(&mut self, s: &Shared<G>) {
        let k = self.games;
        self.games += 1;
        let seed = GameRng::derive(GameRng::derive(s.seed, self.index), k);
        let seats = s.shape.seats;
        self.learner = (k % seats as u64) as u8;
        let mut draw = GameRng::new(GameRng::derive(seed, 0x0BB0));
        let total = s.cumulative.last().copied().unwrap_or(1.0);
        let x = draw.unit() * total;
        let which = s
            .cumulative
            .iter()
            .position(|c| x < *c)
            .unwrap_or(s.opponents.len() - 1);
        let opponent = &s.opponents[which];
        self.players.clear();
        for seat in 0..seats {
            if seat == self.learner as usize {
                self.players.push(None);
                continue;
            }
            let player_seed = GameRng::derive(seed, 1 + seat as u64);
            let started = start_player(opponent, seat, seats, &s.rules, player_seed)
                .ok()
                .and_then(Result::ok);
            if started.is_none() {
                self.faults += 1;
            }
            self.players.push(started);
        }
        // Options were validated when the batch was made, so the deal cannot fail.
        self.game = G::new(&s.opts, seed).ok();
    }

    /// Plays forced moves and opponents until the learner has a real choice (`None`) or the
    /// game is over.
    fn advance(&mut self) -> Option<End> {
        let Some(game) = self.game.as_mut() else {
            return Some(End {
                reward: 0.0,
                aborted: true,
            });
        };
        loop {
            let Some(seat) = game.to_act() else {
                let outcome = game.outcome();
                return Some(End {
                    reward: outcome
                        .and_then(|o| o.results.get(self.learner as usize))
                        .map_or(0.0, |r| reward(*r)),
                    aborted: outcome.is_none_or(|o| o.aborted),
                });
            };
            game.legal_actions(&mut self.legal);
            let Some(&first) = self.legal.first() else {
                return Some(End {
                    reward: 0.0,
                    aborted: true,
                });
            };
            if self.legal.len() > 1 && seat == self.learner {
                return None;
            }
            let action = match self.players.get_mut(seat as usize) {
                Some(Some(p)) if self.legal.len() > 1 => {
                    match p.decide(game.observe(seat), &self.legal) {
                        Ok(a) => a,
                        Err(_) => {
                            // As the match runner does: a fault costs the seat its player,
                            // and the first legal action stands in.
                            self.faults += 1;
                            self.players[seat as usize] = None;
                            first
                        }
                    }
                }
                _ => first,
            };
            if game.apply(action).is_err() {
                return Some(End {
                    reward: 0.0,
                    aborted: true,
                });
            }
        }
    }

    /// Deals games until the learner has a real choice.
    fn next_game(&mut self, s: &Shared<G>) {
        for _ in 0..MAX_UNASKED {
            self.deal(s);
            if self.advance().is_none() {
                return;
            }
            self.unasked += 1;
        }
    }

    /// Writes the learner's observation and mask.
    fn write(&self, s: &Shared<G>, obs: &mut [f32], mask: &mut [i8]) {
        match &self.game {
            Some(g) if g.to_act().is_some() => {
                encode::encode::<G>(&g.observe(self.learner), &s.opts, obs);
                encode::mask::<G>(&self.legal, mask);
            }
            _ => {
                obs.fill(0.0);
                mask.fill(0);
            }
        }
    }

    /// What `agent` would choose in the learner's seat now, as an index (-1 when the game is
    /// over or the agent faults). Its seed is the slot's and the game's, so labels replay.
    fn ask(&self, agent: &Entrant<G>, s: &Shared<G>) -> i64 {
        let Some(game) = self
            .game
            .as_ref()
            .filter(|g| g.to_act() == Some(self.learner))
        else {
            return -1;
        };
        let seed = GameRng::derive(GameRng::derive(s.seed ^ 0xA5C, self.index), self.games);
        consult(agent, game, self.learner, &self.legal, &s.rules, seed)
            .map_or(-1, |a| G::action_index(a) as i64)
    }

    /// The learner's action, if it is legal now.
    fn check(&self, index: i64) -> Option<G::Action> {
        usize::try_from(index)
            .ok()
            .and_then(G::index_action)
            .filter(|a| self.legal.contains(a))
    }

    /// Applies the learner's `action` (checked legal by [`AnyBatch::step`]), plays on to its
    /// next real choice, dealing the next game if this one ends, and writes the row.
    fn step(&mut self, s: &Shared<G>, action: G::Action, out: Row<'_>) {
        let applied = self.game.as_mut().is_some_and(|g| g.apply(action).is_ok());
        // Only an engine that refuses what it listed as legal fails here.
        let end = if applied {
            self.advance()
        } else {
            Some(End {
                reward: 0.0,
                aborted: true,
            })
        };
        *out.reward = 0.0;
        *out.terminated = false;
        *out.truncated = false;
        if let Some(end) = end {
            *out.reward = end.reward;
            *out.terminated = !end.aborted;
            *out.truncated = end.aborted;
            self.next_game(s);
        }
        self.write(s, out.obs, out.mask);
    }
}

/// One environment's part of the outputs.
struct Row<'a> {
    obs: &'a mut [f32],
    mask: &'a mut [i8],
    reward: &'a mut f32,
    terminated: &'a mut bool,
    truncated: &'a mut bool,
}

/// Many games of `G`, stepped together.
pub struct Batch<G: Learnable> {
    shared: Shared<G>,
    slots: Vec<Slot<G>>,
    pool: Option<rayon::ThreadPool>,
    /// The agents [`AnyBatch::ask`] has consulted, made ready once each.
    asked: HashMap<String, Entrant<G>>,
}

impl<G: Learnable> Batch<G> {
    /// A batch of `args.num_envs` games under `opts`, each slot dealt and advanced to the
    /// learner's first decision by [`AnyBatch::reset`].
    pub fn new(opts: G::Options, args: &BatchArgs) -> Result<Batch<G>, EnvError> {
        if args.num_envs == 0 {
            return Err(EnvError::Zero("num_envs"));
        }
        if args.threads == 0 {
            return Err(EnvError::Zero("threads"));
        }
        if args.opponents.is_empty() {
            return Err(EnvError::Opponents("give at least one opponent".into()));
        }
        let shape = Shape::of::<G>(&opts).map_err(|e| EnvError::Options {
            game: G::NAME,
            reason: e.to_string(),
        })?;
        let mut cumulative = Vec::with_capacity(args.opponents.len());
        let mut total = 0.0;
        let mut opponents = Vec::with_capacity(args.opponents.len());
        for (opponent, weight) in &args.opponents {
            if !weight.is_finite() || *weight < 0.0 {
                return Err(EnvError::Opponents(format!(
                    "weight {weight} is not a finite number at least 0"
                )));
            }
            total += weight;
            cumulative.push(total);
            opponents.push(ready::<G>(opponent, &opts)?);
        }
        if total <= 0.0 {
            return Err(EnvError::Opponents("the weights add up to 0".into()));
        }
        let pool = if args.threads > 1 {
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(args.threads)
                    .thread_name(|i| format!("croupier-env-{i}"))
                    .build()
                    .map_err(|e| EnvError::Host(format!("threads: {e}")))?,
            )
        } else {
            None
        };
        let rules = StartRules::new::<G>(&opts);
        let slots = (0..args.num_envs as u64)
            .map(|index| Slot {
                index,
                games: 0,
                game: None,
                learner: 0,
                players: Vec::new(),
                legal: Vec::new(),
                faults: 0,
                unasked: 0,
            })
            .collect();
        Ok(Batch {
            shared: Shared {
                opts,
                rules,
                shape,
                opponents,
                cumulative,
                seed: args.seed,
            },
            slots,
            pool,
            asked: HashMap::new(),
        })
    }

    /// Runs `f` on every slot with its row of the outputs, on the pool if there is one.
    fn each<F>(&mut self, out: Outputs<'_>, f: F)
    where
        F: Fn(&mut Slot<G>, &Shared<G>, Row<'_>) + Sync + Send,
    {
        let (d, a) = (self.shared.shape.obs_len, self.shared.shape.num_actions);
        let shared = &self.shared;
        let slots = &mut self.slots;
        let run = || {
            slots
                .par_iter_mut()
                .zip(out.obs.par_chunks_mut(d.max(1)))
                .zip(out.mask.par_chunks_mut(a.max(1)))
                .zip(out.reward.par_iter_mut())
                .zip(out.terminated.par_iter_mut())
                .zip(out.truncated.par_iter_mut())
                .for_each(|(((((slot, obs), mask), reward), terminated), truncated)| {
                    f(
                        slot,
                        shared,
                        Row {
                            obs,
                            mask,
                            reward,
                            terminated,
                            truncated,
                        },
                    )
                });
        };
        match &self.pool {
            Some(pool) => pool.install(run),
            // One thread: no pool, and rayon's iterators run on the caller's thread.
            None => {
                for (i, slot) in slots.iter_mut().enumerate() {
                    f(
                        slot,
                        shared,
                        Row {
                            obs: &mut out.obs[i * d..(i + 1) * d],
                            mask: &mut out.mask[i * a..(i + 1) * a],
                            reward: &mut out.reward[i],
                            terminated: &mut out.terminated[i],
                            truncated: &mut out.truncated[i],
                        },
                    )
                }
            }
        }
    }

    fn check_outputs(&self, out: &Outputs<'_>) -> Result<(), EnvError> {
        let n = self.slots.len();
        let shape = &self.shared.shape;
        let ok = out.obs.len() == n * shape.obs_len
            && out.mask.len() == n * shape.num_actions
            && out.reward.len() == n
            && out.terminated.len() == n
            && out.truncated.len() == n;
        if ok {
            Ok(())
        } else {
            Err(EnvError::Host("output buffers of the wrong size".into()))
        }
    }
}

/// A batch of any game, for bindings that choose the game at run time.
pub trait AnyBatch: Send {
    /// The game's name.
    fn game(&self) -> &'static str;
    /// The sizes of the encoding.
    fn shape(&self) -> &Shape;
    /// Environments.
    fn num_envs(&self) -> usize;
    /// Starts every slot over from its first game (with `seed`, if given) and writes each
    /// learner's first observation; rewards and flags are zero.
    fn reset(&mut self, seed: Option<u64>, out: Outputs<'_>) -> Result<(), EnvError>;
    /// Applies one learner action per environment (every action is checked before any is
    /// applied: an illegal one changes nothing), plays on to each learner's next real choice,
    /// and writes the outputs.
    fn step(&mut self, actions: &[i64], out: Outputs<'_>) -> Result<(), EnvError>;
    /// Faults of opponents so far (a faulting seat plays its first legal action after).
    fn faults(&self) -> u64;
    /// Games dealt again because the learner had no real choice in them.
    fn unasked_games(&self) -> u64;
    /// Games dealt so far, across the slots.
    fn games(&self) -> u64;
    /// What agent `spec` (a name or file, as an opponent's) would choose in each learner's
    /// seat now, as action indices (-1 where it faults): an expert's labels for the positions
    /// the learner reached (DAgger). Nothing is applied.
    fn ask(&mut self, spec: &str, out: &mut [i64]) -> Result<(), EnvError>;
}

impl<G: Learnable> AnyBatch for Batch<G> {
    fn game(&self) -> &'static str {
        G::NAME
    }
    fn shape(&self) -> &Shape {
        &self.shared.shape
    }
    fn num_envs(&self) -> usize {
        self.slots.len()
    }
    fn reset(&mut self, seed: Option<u64>, out: Outputs<'_>) -> Result<(), EnvError> {
        self.check_outputs(&out)?;
        if let Some(seed) = seed {
            self.shared.seed = seed;
        }
        self.each(out, |slot, shared, row| {
            slot.games = 0;
            slot.next_game(shared);
            *row.reward = 0.0;
            *row.terminated = false;
            *row.truncated = false;
            slot.write(shared, row.obs, row.mask);
        });
        Ok(())
    }
    fn step(&mut self, actions: &[i64], out: Outputs<'_>) -> Result<(), EnvError> {
        self.check_outputs(&out)?;
        if actions.len() != self.slots.len() {
            return Err(EnvError::ActionCount {
                expected: self.slots.len(),
                got: actions.len(),
            });
        }
        // Every action is checked before any is applied, and applied as checked.
        let mut checked = Vec::with_capacity(actions.len());
        for (env, (slot, &action)) in self.slots.iter().zip(actions).enumerate() {
            if slot.game.is_none() {
                return Err(EnvError::Over);
            }
            match slot.check(action) {
                Some(a) => checked.push(a),
                None => {
                    return Err(EnvError::Illegal {
                        env,
                        action,
                        legal: crate::legal_indices::<G>(&slot.legal),
                    });
                }
            }
        }
        self.each(out, |slot, shared, row| {
            slot.step(shared, checked[slot.index as usize], row);
        });
        Ok(())
    }
    fn faults(&self) -> u64 {
        self.slots.iter().map(|s| s.faults).sum()
    }
    fn unasked_games(&self) -> u64 {
        self.slots.iter().map(|s| s.unasked).sum()
    }
    fn games(&self) -> u64 {
        self.slots.iter().map(|s| s.games).sum()
    }
    fn ask(&mut self, spec: &str, out: &mut [i64]) -> Result<(), EnvError> {
        if out.len() != self.slots.len() {
            return Err(EnvError::Host("output buffer of the wrong size".into()));
        }
        if !self.asked.contains_key(spec) {
            let agent = ready::<G>(&Opponent::Named(spec.to_string()), &self.shared.opts)?;
            self.asked.insert(spec.to_string(), agent);
        }
        let agent = &self.asked[spec];
        // Mutable only to be shared out among threads: a slot's players are `Send`, not `Sync`.
        let (slots, shared) = (&mut self.slots, &self.shared);
        match &self.pool {
            Some(pool) => pool.install(|| {
                slots
                    .par_iter_mut()
                    .zip(out.par_iter_mut())
                    .for_each(|(slot, o)| *o = slot.ask(agent, shared))
            }),
            None => slots
                .iter_mut()
                .zip(out.iter_mut())
                .for_each(|(slot, o)| *o = slot.ask(agent, shared)),
        }
        Ok(())
    }
}

/// A batch of the game named `game` under `rules` (a preset, seats, settings).
pub fn batch(
    game: &str,
    rules: &RulesArgs,
    args: &BatchArgs,
) -> Result<Box<dyn AnyBatch>, EnvError> {
    let kind = crate::kind(game)?;
    croupier_tournament::with_game!(kind, G => Ok(Box::new(Batch::<G>::new(crate::options::<G>(rules)?, args)?) as Box<dyn AnyBatch>))
}
