//! One game whose every seat is driven from outside, one decision at a time: the core of
//! PettingZoo's AEC environments (`croupier.env.durak_v0` and the others).

use crate::opponents::{Opponent, consult, ready};
use crate::{EnvError, Learnable, reward};
use croupier_host::player::StartRules;
use croupier_rules::Seat;
use croupier_rules::encode::{self, Encode, Shape};
use croupier_tournament::matches::RulesArgs;
use croupier_tournament::seating::Entrant;
use std::collections::HashMap;

/// One game of `G` under fixed options, dealt again by [`Table::reset`].
pub struct Table<G: Encode> {
    opts: G::Options,
    shape: Shape,
    game: Option<G>,
    legal: Vec<G::Action>,
    /// The agents [`AnyTable::ask`] has consulted, made ready once each.
    asked: HashMap<String, Entrant<G>>,
}

impl<G: Encode> Table<G> {
    /// A table for `opts`; no game is dealt until [`Table::reset`].
    pub fn new(opts: G::Options) -> Result<Table<G>, EnvError> {
        let shape = Shape::of::<G>(&opts).map_err(|e| EnvError::Options {
            game: G::NAME,
            reason: e.to_string(),
        })?;
        Ok(Table {
            opts,
            shape,
            game: None,
            legal: Vec::new(),
            asked: HashMap::new(),
        })
    }

    /// Plays every forced move (one legal action) and keeps the next real choice's actions.
    fn settle(&mut self) {
        let Some(game) = self.game.as_mut() else {
            return;
        };
        loop {
            if game.to_act().is_none() {
                self.legal.clear();
                return;
            }
            game.legal_actions(&mut self.legal);
            match self.legal.as_slice() {
                [only] => {
                    if game.apply(*only).is_err() {
                        // The engine offered an action it refuses: end here, not in a loop.
                        self.legal.clear();
                        return;
                    }
                }
                _ => return,
            }
        }
    }
}

/// A table of any game, for bindings that choose the game at run time.
pub trait AnyTable: Send {
    /// The game's name.
    fn game(&self) -> &'static str;
    /// The sizes of the encoding.
    fn shape(&self) -> &Shape;
    /// Deals a new game with `seed` and plays its forced moves.
    fn reset(&mut self, seed: u64) -> Result<(), EnvError>;
    /// The seat to decide, `None` once the game is over (or before the first reset).
    fn to_act(&self) -> Option<Seat>;
    /// Writes `seat`'s observation into `out` ([`Shape::obs_len`] values).
    fn observe(&self, seat: Seat, out: &mut [f32]);
    /// Writes the mask of the legal actions of the seat to act ([`Shape::num_actions`]).
    fn mask(&self, out: &mut [i8]);
    /// The legal action indices of the seat to act, ascending.
    fn legal(&self) -> Vec<usize>;
    /// Applies the seat to act's action `index`, then the forced moves after it.
    fn step(&mut self, index: i64) -> Result<(), EnvError>;
    /// Each seat's reward once the game is over: 1 win, -1 loss, 0 draw.
    fn rewards(&self) -> Option<Vec<f32>>;
    /// Whether the game ended by the engine's safety limit rather than a rule.
    fn aborted(&self) -> bool;
    /// The game's one-line result, once it is over.
    fn summary(&self) -> Option<String>;
    /// `seat`'s observation as the rules crate's JSON (what the Python SDK's agents read).
    fn observation_json(&self, seat: Seat) -> String;
    /// The contract codes of the legal actions, in the order of [`AnyTable::legal`].
    fn legal_codes(&self) -> Vec<u32>;
    /// The action index of a contract code, if it names an action.
    fn index_of_code(&self, code: u32) -> Option<usize>;
    /// The text of action `index` (`beat 0 KS`).
    fn action_text(&self, index: usize) -> Option<String>;
    /// The layout of the observation vector.
    fn layout(&self) -> Vec<encode::Section>;
    /// The rule options as `(name, value)` pairs.
    fn option_pairs(&self) -> Vec<(String, String)>;
    /// The action index agent `spec` (a name or file, as an opponent's) chooses for the seat
    /// to act, asked as a fresh player of this game started in that seat with seed 0; nothing
    /// is applied. What compares an exported policy with the network it came from.
    fn ask(&mut self, spec: &str) -> Result<usize, EnvError>;
}

impl<G: Learnable> AnyTable for Table<G> {
    fn game(&self) -> &'static str {
        G::NAME
    }
    fn shape(&self) -> &Shape {
        &self.shape
    }
    fn reset(&mut self, seed: u64) -> Result<(), EnvError> {
        let game = G::new(&self.opts, seed).map_err(|e| EnvError::Options {
            game: G::NAME,
            reason: e.to_string(),
        })?;
        self.game = Some(game);
        self.settle();
        Ok(())
    }
    fn to_act(&self) -> Option<Seat> {
        self.game.as_ref().and_then(|g| g.to_act())
    }
    fn observe(&self, seat: Seat, out: &mut [f32]) {
        match &self.game {
            Some(g) => encode::encode::<G>(&g.observe(seat), &self.opts, out),
            None => out.fill(0.0),
        }
    }
    fn mask(&self, out: &mut [i8]) {
        encode::mask::<G>(&self.legal, out);
    }
    fn legal(&self) -> Vec<usize> {
        crate::legal_indices::<G>(&self.legal)
    }
    fn step(&mut self, index: i64) -> Result<(), EnvError> {
        let Some(game) = self.game.as_mut() else {
            return Err(EnvError::Over);
        };
        if game.to_act().is_none() {
            return Err(EnvError::Over);
        }
        let action = usize::try_from(index)
            .ok()
            .and_then(G::index_action)
            .filter(|a| self.legal.contains(a));
        let Some(action) = action else {
            return Err(EnvError::Illegal {
                env: 0,
                action: index,
                legal: self.legal(),
            });
        };
        game.apply(action).map_err(|_| EnvError::Illegal {
            env: 0,
            action: index,
            legal: self.legal(),
        })?;
        self.settle();
        Ok(())
    }
    fn rewards(&self) -> Option<Vec<f32>> {
        let outcome = self.game.as_ref()?.outcome()?;
        Some(outcome.results.iter().map(|r| reward(*r)).collect())
    }
    fn aborted(&self) -> bool {
        self.game
            .as_ref()
            .and_then(|g| g.outcome())
            .is_some_and(|o| o.aborted)
    }
    fn summary(&self) -> Option<String> {
        Some(self.game.as_ref()?.outcome()?.summary.clone())
    }
    fn observation_json(&self, seat: Seat) -> String {
        self.game
            .as_ref()
            .and_then(|g| serde_json::to_string(&g.observe(seat)).ok())
            .unwrap_or_else(|| "null".to_string())
    }
    fn legal_codes(&self) -> Vec<u32> {
        let mut v: Vec<(usize, u32)> = self
            .legal
            .iter()
            .map(|a| (G::action_index(*a), G::encode_action(*a)))
            .collect();
        v.sort_unstable();
        v.into_iter().map(|(_, c)| c).collect()
    }
    fn index_of_code(&self, code: u32) -> Option<usize> {
        G::decode_action(code).map(G::action_index)
    }
    fn action_text(&self, index: usize) -> Option<String> {
        G::index_action(index).map(|a| a.to_string())
    }
    fn layout(&self) -> Vec<encode::Section> {
        encode::layout::<G>(&self.opts).unwrap_or_default()
    }
    fn option_pairs(&self) -> Vec<(String, String)> {
        use croupier_rules::Rules;
        self.opts.option_pairs()
    }
    fn ask(&mut self, spec: &str) -> Result<usize, EnvError> {
        let game = self.game.as_ref().ok_or(EnvError::Over)?;
        let seat = game.to_act().ok_or(EnvError::Over)?;
        if !self.asked.contains_key(spec) {
            let agent = ready::<G>(&Opponent::Named(spec.to_string()), &self.opts)?;
            self.asked.insert(spec.to_string(), agent);
        }
        let rules = StartRules::new::<G>(&self.opts);
        let action =
            consult(&self.asked[spec], game, seat, &self.legal, &rules, 0).map_err(|reason| {
                EnvError::Opponent {
                    spec: spec.to_string(),
                    reason,
                }
            })?;
        Ok(G::action_index(action))
    }
}

/// A table of the game named `game` under `args` (a preset, seats, settings).
pub fn table(game: &str, args: &RulesArgs) -> Result<Box<dyn AnyTable>, EnvError> {
    let kind = crate::kind(game)?;
    croupier_tournament::with_game!(kind, G => Ok(Box::new(Table::<G>::new(crate::options::<G>(args)?)?) as Box<dyn AnyTable>))
}
