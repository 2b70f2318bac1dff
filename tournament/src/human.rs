//! A person in one seat against agents, one decision at a time: the state of a game that a
//! server drives move by move (the arena's `/play` page and `croupier play --web`), where the
//! terminal's `croupier play` reads its moves in one loop.
//!
//! Privacy is the point, as in [`crate::replay`]. What the person is shown, [`PlayView`], is
//! built only from the person's own observation through [`TableView`] (their hand, every
//! other hand as a count), the events visible to their seat, and the legal actions when it
//! is their turn; nothing else of the game leaves it while it is being played. An action the
//! person sends is refused unless it is, by its text, one of the actions offered now.
//!
//! The agents play through the usual [`Player`]s (the sandbox and its limits); a fault is
//! handled as the runner's fallback policy does: the host plays the first legal action for
//! the seat, and a dead instance is not asked again. A human game is never rated: once it is
//! over, [`HumanGame::finish`] gives its log header and record, which [`crate::replay`] shows
//! like any logged game.

use crate::matches::log::LogHeader;
use crate::replay::{ReplayResult, Table, TableView};
use crate::runner::{Entrant, FaultPolicy, GameRecord, SeatFault, agent_seed};
use crate::seating::{seat_teams, start_player};
use croupier_host::adapters::Adapter;
use croupier_host::limits::Limits;
use croupier_host::player::{Player, StartRules};
use croupier_host::sandbox::CallStats;
use croupier_host::text::escape;
use croupier_host::verdict::Verdict;
use croupier_rules::{Game, Rules, Seat, SeatResult};
use serde::{Deserialize, Serialize};

/// Events a [`PlayView`] carries: the latest ones, so that what each poll sends stays small
/// however long the game (the replay afterwards has them all).
pub const EVENTS_SHOWN: usize = 40;

/// What the person in the seat is shown now.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayView {
    /// The game.
    pub game: String,
    /// The preset the options start from.
    pub rules: String,
    /// The person's seat.
    pub seat: u8,
    /// Who plays each seat (the person's is `you`), escaped like any agent text.
    pub players: Vec<String>,
    /// Team per seat in team games.
    pub teams: Option<Vec<u8>>,
    /// The table as the person's seat may see it: their hand, every other hand as a count.
    pub table: Table,
    /// The latest events visible to the seat, oldest first (at most [`EVENTS_SHOWN`]).
    pub events: Vec<String>,
    /// The actions the person may choose from now, as text; empty unless it is their turn.
    pub legal: Vec<String>,
    /// Actions applied so far: an action is sent with the count it was chosen at, so a
    /// second click on a page that is behind is refused rather than played.
    pub moves: u64,
    /// How the game ended, once it has.
    pub result: Option<ReplayResult>,
}

/// Who the game waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waiting {
    /// The person, who has more than one legal action.
    Person,
    /// The host: an agent's turn, or a move of the person's with only one legal action.
    Host,
    /// Nobody: the game is over.
    Over,
}

/// Why an action the person sent was not played. The messages name the action.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ActError {
    /// It is not the person's turn (an agent is deciding).
    #[error("it is not your turn: wait for the other seats")]
    NotYourTurn,
    /// The game is over.
    #[error("the game is over")]
    Over,
    /// The action was chosen on a page that is behind the game.
    #[error("action `{action}` was chosen at move {sent}, but the game is at move {now}: reload")]
    Stale {
        /// The action's text, escaped.
        action: String,
        /// The move count it was sent with.
        sent: u64,
        /// The game's.
        now: u64,
    },
    /// The action is not one of the actions offered now.
    #[error("`{action}` is not one of the actions offered now ({offered})")]
    NotOffered {
        /// The action's text, escaped.
        action: String,
        /// The actions offered, joined.
        offered: String,
    },
}

/// A person's game as a server holds it, whatever the game: built by [`seat_person`].
pub trait HumanGame: Send {
    /// What the person is shown now.
    fn view(&self) -> PlayView;
    /// Who the game waits for.
    fn waiting(&self) -> Waiting;
    /// Plays the host's next move: an agent's decision (in its sandbox, under its limits)
    /// or the person's only legal action. Does nothing unless [`Waiting::Host`].
    fn step(&mut self);
    /// Plays the person's action, named by its text, if it is one of those offered now and
    /// `moves` is the game's move count.
    fn act(&mut self, action: &str, moves: u64) -> Result<(), ActError>;
    /// Ends the game before its end (the person left, or ran out of time), with `why` as
    /// its summary. Nothing happens to a game that is over.
    fn abandon(&mut self, why: &str);
    /// The agents' instances are let go and the game's log header and record returned, with
    /// the agents' logs. Only a game that is over has a record.
    fn finish(&mut self) -> Option<(LogHeader, GameRecord)>;
}

/// What a person's game is made of.
pub struct HumanSetup<G: Game> {
    /// The preset's name.
    pub preset: String,
    /// The rule options.
    pub options: G::Options,
    /// Per seat: the agent that plays it, or `None` for the person's seat (exactly one).
    pub seats: Vec<Option<Entrant<G>>>,
    /// The deal's seed (also each agent's, through [`agent_seed`]).
    pub seed: u64,
    /// The limits the agents run under, recorded in the log header.
    pub limits: Limits,
    /// The person's name in the record, e.g. `you`.
    pub person: String,
}

/// Why a person's game could not begin.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The seats are not the table's, or there is not exactly one person.
    #[error("{0}")]
    Seats(String),
    /// The game could not be dealt.
    #[error("cannot deal: {0}")]
    Deal(String),
    /// The host ran out of resources (instance slots, memory) making an agent.
    #[error("the host cannot start {agent} now: {reason}")]
    Host {
        /// The agent.
        agent: String,
        /// What ran out.
        reason: String,
    },
}

/// A game of `G` with a person in one seat and agents in the others, dealt and with every
/// agent started; [`HumanGame`] plays it.
pub fn seat_person<G: TableView + Adapter>(
    setup: HumanSetup<G>,
) -> Result<Box<dyn HumanGame>, SetupError> {
    let HumanSetup {
        preset,
        options,
        seats,
        seed,
        limits,
        person,
    } = setup;
    let n = options.seats();
    let mut people = seats.iter().enumerate().filter(|(_, e)| e.is_none());
    let (Some((seat, _)), None) = (people.next(), people.next()) else {
        return Err(SetupError::Seats("exactly one seat is the person's".into()));
    };
    if seats.len() != n {
        return Err(SetupError::Seats(format!(
            "this table has {n} seats, not {}",
            seats.len()
        )));
    }
    let game = G::new(&options, seed).map_err(|e| SetupError::Deal(e.to_string()))?;
    let rules = StartRules::new::<G>(&options);
    let mut agents = vec![person];
    let mut record =
        GameRecord::begun(0, 0, 0, seed, Vec::with_capacity(n), vec![String::new(); n]);
    record.calls = vec![CallStats::default(); n];
    record.teams = seat_teams(&game).1;
    let mut players: Vec<Option<Box<dyn Player<G>>>> = Vec::with_capacity(n);
    for (s, entrant) in seats.into_iter().enumerate() {
        let Some(e) = entrant else {
            record.seats.push(0);
            players.push(None);
            continue;
        };
        record.seats.push(agents.len());
        agents.push(e.name.clone());
        let started = start_player(&e, s, n, &rules, agent_seed(seed, 0, s)).map_err(|reason| {
            SetupError::Host {
                agent: e.name.clone(),
                reason,
            }
        })?;
        match started {
            Ok(p) => {
                record.builds[s] = p.build_id();
                players.push(Some(p));
            }
            Err(f) => {
                // As the fallback policy: the host plays for a seat whose agent cannot start.
                record.faults.push(SeatFault {
                    seat: s as u8,
                    verdict: f.verdict,
                    message: f.message,
                    at: 0,
                });
                players.push(None);
            }
        }
    }
    let header = LogHeader {
        kind: "match".into(),
        game: G::KIND,
        rules: preset,
        options: options.option_pairs(),
        seed,
        deals: 1,
        duplicate: false,
        agents,
        limits,
        policy: FaultPolicy::Fallback,
        shard: None,
        arena_match: None,
    };
    Ok(Box::new(Seated {
        game,
        seat: seat as Seat,
        players,
        header,
        record,
        ended: None,
    }))
}

/// A game of `G` with its person and its agents.
struct Seated<G: Game> {
    game: G,
    seat: Seat,
    /// Per seat: the agent's player; `None` for the person and for an agent that died.
    players: Vec<Option<Box<dyn Player<G>>>>,
    header: LogHeader,
    record: GameRecord,
    /// Why the game was ended early.
    ended: Option<String>,
}

impl<G: Game> Seated<G> {
    fn legal(&self) -> Vec<G::Action> {
        let mut legal = Vec::new();
        if self.ended.is_none() && self.game.to_act().is_some() {
            self.game.legal_actions(&mut legal);
        }
        legal
    }

    fn apply(&mut self, action: G::Action) {
        if let Err(e) = self.game.apply(action) {
            // Only legal actions reach here; a refusal is a rules bug. Record and stop.
            self.ended = Some(format!("rules engine refused a listed action: {e}"));
            return;
        }
        self.record.actions.push(G::encode_action(action));
    }

    /// Takes a seat's log and counters into the record (before its player is dropped).
    fn collect(&mut self, s: usize) {
        if let Some(p) = self.players[s].as_mut() {
            let lines = p.take_log();
            if !lines.is_empty() {
                self.record.logs.push((s as u8, lines));
            }
            self.record.calls[s] = p.stats();
        }
    }

    fn result(&self) -> Option<ReplayResult> {
        let n = self.game.num_players();
        if let Some(why) = &self.ended {
            return Some(ReplayResult {
                summary: escape(why),
                results: vec![SeatResult::Draw; n],
                scores: Vec::new(),
                aborted: true,
                forfeit: None,
            });
        }
        self.game
            .to_act()
            .is_none()
            .then(|| match self.game.outcome() {
                Some(o) => ReplayResult {
                    summary: escape(&o.summary),
                    results: o.results.clone(),
                    scores: o.scores.clone(),
                    aborted: o.aborted,
                    forfeit: None,
                },
                None => ReplayResult {
                    summary: "the game stopped without an outcome".into(),
                    results: vec![SeatResult::Draw; n],
                    scores: Vec::new(),
                    aborted: true,
                    forfeit: None,
                },
            })
    }
}

impl<G: TableView + Adapter> HumanGame for Seated<G> {
    fn view(&self) -> PlayView {
        let mut table = G::table_view(&self.game.observe(self.seat), Some(self.seat));
        table.to_act = if self.ended.is_some() {
            None
        } else {
            self.game.to_act()
        };
        let visible: Vec<String> = self
            .game
            .events()
            .iter()
            .filter(|e| e.vis.visible_to(self.seat))
            .map(|e| e.event.to_string())
            .collect();
        let legal = if self.waiting() == Waiting::Person {
            self.legal().iter().map(|a| a.to_string()).collect()
        } else {
            Vec::new()
        };
        PlayView {
            game: G::KIND.name().to_string(),
            rules: self.header.rules.clone(),
            seat: self.seat,
            players: self
                .record
                .seats
                .iter()
                .map(|&e| escape(self.header.agents.get(e).map_or("?", String::as_str)))
                .collect(),
            teams: self.record.teams.clone(),
            table,
            events: visible[visible.len().saturating_sub(EVENTS_SHOWN)..].to_vec(),
            legal,
            moves: self.record.actions.len() as u64,
            result: self.result(),
        }
    }

    fn waiting(&self) -> Waiting {
        match self.game.to_act() {
            _ if self.ended.is_some() => Waiting::Over,
            None => Waiting::Over,
            Some(s) if s == self.seat && self.legal().len() > 1 => Waiting::Person,
            Some(_) => Waiting::Host,
        }
    }

    fn step(&mut self) {
        if self.waiting() != Waiting::Host {
            return;
        }
        let legal = self.legal();
        let (Some(seat), Some(&first)) = (self.game.to_act(), legal.first()) else {
            self.ended = Some("no legal action (rules engine bug)".into());
            return;
        };
        let s = seat as usize;
        let action = match self.players.get_mut(s).and_then(Option::as_mut) {
            Some(p) if legal.len() > 1 => {
                self.record.decisions += 1;
                match p.decide(self.game.observe(seat), &legal) {
                    Ok(a) => a,
                    Err(f) => {
                        let dead =
                            !matches!(f.verdict, Verdict::IllegalAction | Verdict::MalformedAction);
                        self.record.faults.push(SeatFault {
                            seat,
                            verdict: f.verdict,
                            message: f.message,
                            at: self.record.actions.len(),
                        });
                        if dead {
                            self.collect(s);
                            self.players[s] = None;
                        }
                        first
                    }
                }
            }
            // A forced move, the person's only action, or a dead agent's turn.
            _ => first,
        };
        self.apply(action);
    }

    fn act(&mut self, action: &str, moves: u64) -> Result<(), ActError> {
        match self.waiting() {
            Waiting::Over => return Err(ActError::Over),
            Waiting::Host => return Err(ActError::NotYourTurn),
            Waiting::Person => {}
        }
        let now = self.record.actions.len() as u64;
        if moves != now {
            return Err(ActError::Stale {
                action: escape(action),
                sent: moves,
                now,
            });
        }
        let legal = self.legal();
        // By its text exactly as offered: a button's label is the action's text.
        let Some(&chosen) = legal.iter().find(|a| a.to_string() == action) else {
            let offered: Vec<String> = legal.iter().map(|a| a.to_string()).collect();
            return Err(ActError::NotOffered {
                action: escape(action),
                offered: offered.join(", "),
            });
        };
        self.record.decisions += 1;
        self.apply(chosen);
        Ok(())
    }

    fn abandon(&mut self, why: &str) {
        if self.waiting() != Waiting::Over {
            self.ended = Some(why.to_string());
        }
    }

    fn finish(&mut self) -> Option<(LogHeader, GameRecord)> {
        let result = self.result()?;
        for s in 0..self.players.len() {
            self.collect(s);
            self.players[s] = None;
        }
        let mut rec = self.record.clone();
        rec.results = result.results;
        rec.scores = result.scores;
        rec.aborted = result.aborted;
        rec.summary = match &self.ended {
            Some(why) => why.clone(),
            None => self
                .game
                .outcome()
                .map_or_else(|| result.summary.clone(), |o| o.summary.clone()),
        };
        Some((self.header.clone(), rec))
    }
}

#[cfg(test)]
mod tests;
