//! Games played to learn from: every real decision of the chosen seats as an encoded
//! observation, its mask, the action the agent chose, and the seat's result at the end
//! (`croupier.env.record` in Python writes them as NumPy arrays, `.npz`). A student imitates
//! a search agent from them.
//!
//! Game `i` depends only on the seed and `i`: its deal, which agent sits where (the list
//! rotates one seat a game, as a match's seating does) and every agent's random stream; the
//! rows come in game order whatever the number of threads.

use crate::opponents::{Opponent, ready};
use crate::{EnvError, Learnable, reward};
use croupier_host::player::{Player, StartRules};
use croupier_rules::GameRng;
use croupier_rules::encode::{self, Shape};
use croupier_tournament::matches::RulesArgs;
use croupier_tournament::seating::{Entrant, start_player};
use rayon::prelude::*;

/// What to record.
#[derive(Clone, Debug)]
pub struct RecordArgs {
    /// One agent a seat (names or files), rotated one seat a game.
    pub agents: Vec<String>,
    /// Which agents' decisions to keep, by their index in `agents` (all when empty).
    pub keep: Vec<usize>,
    /// Games.
    pub games: usize,
    /// The seed of every deal and agent.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
}

/// The recorded decisions, one row each.
#[derive(Clone, Debug, Default)]
pub struct Records {
    /// The sizes of the encoding.
    pub obs_len: usize,
    /// Action indices.
    pub num_actions: usize,
    /// Observations, rows × `obs_len`.
    pub obs: Vec<f32>,
    /// Masks, rows × `num_actions`.
    pub mask: Vec<i8>,
    /// The action chosen.
    pub action: Vec<i64>,
    /// The agent's index in the list.
    pub agent: Vec<u8>,
    /// Its seat.
    pub seat: Vec<u8>,
    /// The game.
    pub game: Vec<u32>,
    /// The seat's reward at the end of that game (1, -1 or 0).
    pub result: Vec<f32>,
    /// Faults of the agents (a faulting seat then plays its first legal action, unrecorded).
    pub faults: u64,
}

/// One game's rows.
#[derive(Default)]
struct GameRows {
    obs: Vec<f32>,
    mask: Vec<i8>,
    action: Vec<i64>,
    agent: Vec<u8>,
    seat: Vec<u8>,
    faults: u64,
}

fn play<G: Learnable>(
    i: usize,
    args: &RecordArgs,
    agents: &[Entrant<G>],
    opts: &G::Options,
    shape: &Shape,
) -> (GameRows, Vec<f32>) {
    let n = shape.seats;
    let seed = GameRng::derive(args.seed, i as u64);
    let rules = StartRules::new::<G>(opts);
    let mut rows = GameRows::default();
    // Seat s plays agent (s + i) mod the list's length.
    let who = |seat: usize| (seat + i) % agents.len();
    let mut players: Vec<Option<Box<dyn Player<G>>>> = (0..n)
        .map(|seat| {
            let player_seed = GameRng::derive(seed, 1 + seat as u64);
            start_player(&agents[who(seat)], seat, n, &rules, player_seed)
                .ok()
                .and_then(Result::ok)
        })
        .collect();
    rows.faults += players.iter().filter(|p| p.is_none()).count() as u64;
    let Ok(mut game) = G::new(opts, seed) else {
        return (rows, vec![0.0; n]);
    };
    let mut legal = Vec::new();
    let mut x = vec![0.0f32; shape.obs_len];
    let mut m = vec![0i8; shape.num_actions];
    while let Some(seat) = game.to_act() {
        game.legal_actions(&mut legal);
        let Some(&first) = legal.first() else { break };
        let s = seat as usize;
        let action = match players.get_mut(s) {
            Some(Some(p)) if legal.len() > 1 => {
                let obs = game.observe(seat);
                let keep = args.keep.is_empty() || args.keep.contains(&who(s));
                if keep {
                    encode::encode::<G>(&obs, opts, &mut x);
                    encode::mask::<G>(&legal, &mut m);
                }
                match p.decide(obs, &legal) {
                    Ok(a) => {
                        if keep {
                            rows.obs.extend_from_slice(&x);
                            rows.mask.extend_from_slice(&m);
                            rows.action.push(G::action_index(a) as i64);
                            rows.agent.push(who(s) as u8);
                            rows.seat.push(seat);
                        }
                        a
                    }
                    Err(_) => {
                        rows.faults += 1;
                        players[s] = None;
                        first
                    }
                }
            }
            _ => first,
        };
        if game.apply(action).is_err() {
            break;
        }
    }
    let results = match game.outcome() {
        Some(o) => o.results.iter().map(|r| reward(*r)).collect(),
        None => vec![0.0; n],
    };
    (rows, results)
}

/// Plays `args.games` games of `G` and keeps the decisions asked for.
pub fn record_games<G: Learnable>(
    opts: &G::Options,
    args: &RecordArgs,
) -> Result<Records, EnvError> {
    if args.agents.is_empty() {
        return Err(EnvError::Opponents("give at least one agent".into()));
    }
    if let Some(k) = args.keep.iter().find(|k| **k >= args.agents.len()) {
        return Err(EnvError::Opponents(format!(
            "keep: agent {k} is not in the list of {}",
            args.agents.len()
        )));
    }
    if args.threads == 0 {
        return Err(EnvError::Zero("threads"));
    }
    let shape = Shape::of::<G>(opts).map_err(|e| EnvError::Options {
        game: G::NAME,
        reason: e.to_string(),
    })?;
    let agents: Vec<Entrant<G>> = args
        .agents
        .iter()
        .map(|a| ready::<G>(&Opponent::Named(a.clone()), opts))
        .collect::<Result<_, _>>()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .map_err(|e| EnvError::Host(format!("threads: {e}")))?;
    let games: Vec<(GameRows, Vec<f32>)> = pool.install(|| {
        (0..args.games)
            .into_par_iter()
            .map(|i| play::<G>(i, args, &agents, opts, &shape))
            .collect()
    });
    let mut out = Records {
        obs_len: shape.obs_len,
        num_actions: shape.num_actions,
        ..Records::default()
    };
    for (i, (rows, results)) in games.into_iter().enumerate() {
        out.result.extend(
            rows.seat
                .iter()
                .map(|s| results.get(*s as usize).copied().unwrap_or(0.0)),
        );
        out.game
            .extend(std::iter::repeat_n(i as u32, rows.action.len()));
        out.obs.extend(rows.obs);
        out.mask.extend(rows.mask);
        out.action.extend(rows.action);
        out.agent.extend(rows.agent);
        out.seat.extend(rows.seat);
        out.faults += rows.faults;
    }
    Ok(out)
}

/// [`record_games`] of the game named `game` under `rules`.
pub fn record(game: &str, rules: &RulesArgs, args: &RecordArgs) -> Result<Records, EnvError> {
    let kind = crate::kind(game)?;
    croupier_tournament::with_game!(kind, G => record_games::<G>(&crate::options::<G>(rules)?, args))
}
