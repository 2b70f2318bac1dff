//! A game record in a few bytes, for stores that keep millions of games (the arena).
//!
//! A game is its seed and its actions; everything else in a [`GameRecord`] is either derived
//! from the match it belongs to (deal, rotation, seed and seating from the [`Schedule`] and
//! the master seed, builds from the entrants) or from the rules (teams, and the result,
//! scores and summary of a game that ended by the rules), or is the sandbox's own account
//! (fuel and decisions per seat, faults). So the compact form keeps:
//! - each action as its position in the legal list at that point, as a varint, and nothing
//!   at all for a forced move (one legal action): most Durak actions take one byte;
//! - fuel and decisions per seat, as varints;
//! - whatever is not derived after all (a forfeit's results, a hot-swapped build, faults),
//!   stored explicitly, so decoding always gives back the record that was encoded.
//!
//! Encoding replays the game through the rules engine, so it also checks what a worker
//! reports: every action must be legal where it was played, and a game that no fault ended
//! must have the result the rules give. Decoding replays it again. Both cost a replay of the
//! rules alone (microseconds), never an agent.
//!
//! Threat model: the bytes come from the store, which only this module writes, but a
//! damaged or hand-edited row must give an error, never a panic or an unbounded
//! allocation: every length is checked against what is left of the input and against
//! [`MAX_ACTIONS`].

use crate::runner::{GameRecord, Schedule, SeatFault, game_seed};
use croupier_host::sandbox::CallStats;
use croupier_rules::{Game, SeatResult};

/// The format's first byte; a later format gets a new number and the older ones stay
/// readable. Format 2 adds each seat's most fuel in one decision ([`CallStats::fuel_max`]);
/// a format 1 record reads it as 0.
const FORMAT: u8 = 2;

/// No game of any engine here comes near this many actions (their own safety limits end a
/// game long before); it bounds what a damaged row can make the decoder allocate.
pub const MAX_ACTIONS: u64 = 1 << 20;

/// Flags: the ending (results, scores, summary, aborted) is the rules' outcome.
const ENDING_BY_RULES: u8 = 1;
/// Flags: teams are the engine's `team_of` per seat.
const TEAMS_DERIVED: u8 = 2;
/// Flags: each seat's build is its entrant's.
const BUILDS_DERIVED: u8 = 4;

/// What a compact record needs from its match to become a whole record again.
#[derive(Clone, Copy, Debug)]
pub struct Frame<'a> {
    /// The match's schedule: deal, rotation and seating of each game index.
    pub schedule: &'a Schedule,
    /// The match's master seed.
    pub seed: u64,
    /// Each entrant's build id, as the runner records it.
    pub builds: &'a [String],
}

/// Why a record cannot be made compact, or compact bytes cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CompactError {
    /// The record is not game `index` of this match as the schedule has it.
    #[error("game {index}: {why}")]
    NotOfMatch {
        /// The game's index.
        index: u64,
        /// What differs.
        why: String,
    },
    /// The game could not be dealt from its options and seed.
    #[error("game {index}: cannot deal: {why}")]
    Deal {
        /// The game's index.
        index: u64,
        /// The engine's message.
        why: String,
    },
    /// An action is not legal where it was played, or the game was over before it.
    #[error("game {index}: action {at} ({code}) is not legal there")]
    Illegal {
        /// The game's index.
        index: u64,
        /// Its position in the game's actions.
        at: usize,
        /// Its code.
        code: u32,
    },
    /// The game ended without a fault, but not with the result the rules give.
    #[error("game {index}: no fault ended it, yet its result is not the rules' ({why})")]
    WrongEnding {
        /// The game's index.
        index: u64,
        /// What differs.
        why: String,
    },
    /// The bytes are not a compact record this version can read.
    #[error("game {index}: damaged compact record: {why}")]
    Damaged {
        /// The game's index.
        index: u64,
        /// What is wrong.
        why: String,
    },
}

/// The derivable part of game `index`: (deal, rotation, seed, seats).
fn frame_of(frame: &Frame<'_>, index: u64) -> Option<(u64, usize, u64, Vec<usize>)> {
    if index >= frame.schedule.games() {
        return None;
    }
    let (deal, rotation) = frame.schedule.game(index);
    let seats = frame.schedule.rotations.get(rotation)?.clone();
    Some((deal, rotation, game_seed(frame.seed, deal), seats))
}

fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put(out, b.len() as u64);
    out.extend_from_slice(b);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn result_byte(r: SeatResult) -> u8 {
    match r {
        SeatResult::Win => 0,
        SeatResult::Loss => 1,
        SeatResult::Draw => 2,
    }
}

/// The record of game `rec.index` of the match `frame` describes, in compact form. Checks
/// the record against the match and the rules on the way (see the module docs).
pub fn encode<G: Game>(
    opts: &G::Options,
    frame: &Frame<'_>,
    rec: &GameRecord,
) -> Result<Vec<u8>, CompactError> {
    let index = rec.index;
    let not_of = |why: &str| CompactError::NotOfMatch {
        index,
        why: why.into(),
    };
    let (deal, rotation, seed, seats) =
        frame_of(frame, index).ok_or_else(|| not_of("the match has no such game"))?;
    if (rec.deal, rec.rotation, rec.seed) != (deal, rotation, seed) {
        return Err(not_of("its deal, rotation or seed is not the schedule's"));
    }
    if rec.seats != seats {
        return Err(not_of("its seating is not the schedule's"));
    }
    let mut game = G::new(opts, seed).map_err(|e| CompactError::Deal {
        index,
        why: e.to_string(),
    })?;
    let n = game.num_players();
    if rec.results.len() != n {
        return Err(not_of("it has a result count other than its seats"));
    }
    let mut moves = Vec::with_capacity(rec.actions.len());
    let mut legal = Vec::new();
    for (at, &code) in rec.actions.iter().enumerate() {
        let illegal = CompactError::Illegal { index, at, code };
        if game.to_act().is_none() {
            return Err(illegal);
        }
        game.legal_actions(&mut legal);
        let action = G::decode_action(code).ok_or_else(|| illegal_of(index, at, code))?;
        let pos = legal
            .iter()
            .position(|a| *a == action)
            .ok_or_else(|| illegal_of(index, at, code))?;
        if legal.len() > 1 {
            put(&mut moves, pos as u64);
        }
        game.apply(action).map_err(|_| illegal)?;
    }
    let mut flags = 0;
    let by_rules = !rec.aborted_by_host() && game.outcome().is_some_and(|o| ending_is(rec, o));
    if by_rules {
        flags |= ENDING_BY_RULES;
    } else if rec.faults.is_empty() && rec.forfeit.is_none() && !rec.aborted_by_host() {
        let why = match game.outcome() {
            Some(_) => "results, scores or summary differ",
            None => "the game is not over",
        };
        return Err(CompactError::WrongEnding {
            index,
            why: why.into(),
        });
    }
    if rec.teams == teams_of(&game) {
        flags |= TEAMS_DERIVED;
    }
    let derived_builds: Vec<&str> = seats
        .iter()
        .map(|&e| frame.builds.get(e).map_or("", String::as_str))
        .collect();
    if rec.builds.iter().map(String::as_str).eq(derived_builds) {
        flags |= BUILDS_DERIVED;
    }

    let mut out = Vec::with_capacity(16 + moves.len() + 8 * n);
    out.push(FORMAT);
    out.push(flags);
    put(&mut out, rec.actions.len() as u64);
    put_bytes(&mut out, &moves);
    put(&mut out, rec.decisions);
    put(&mut out, rec.calls.len() as u64);
    for c in &rec.calls {
        put(&mut out, c.decisions);
        put(&mut out, c.fuel);
        put(&mut out, c.fuel_unknown);
        put(&mut out, c.fuel_max);
    }
    out.push(rec.forfeit.map_or(0, |s| s.saturating_add(1)));
    let faults = if rec.faults.is_empty() {
        Vec::new()
    } else {
        // Rare, and free text: JSON keeps them readable and exact.
        serde_json::to_vec(&rec.faults).unwrap_or_default()
    };
    put_bytes(&mut out, &faults);
    if !by_rules {
        out.push(u8::from(rec.aborted));
        for r in &rec.results {
            out.push(result_byte(*r));
        }
        put(&mut out, rec.scores.len() as u64);
        for s in &rec.scores {
            put(&mut out, zigzag(*s));
        }
        put_bytes(&mut out, rec.summary.as_bytes());
    }
    if flags & TEAMS_DERIVED == 0 {
        match &rec.teams {
            None => out.push(0),
            Some(t) => {
                out.push(1);
                put_bytes(&mut out, t);
            }
        }
    }
    if flags & BUILDS_DERIVED == 0 {
        put(&mut out, rec.builds.len() as u64);
        for b in &rec.builds {
            put_bytes(&mut out, b.as_bytes());
        }
    }
    Ok(out)
}

fn illegal_of(index: u64, at: usize, code: u32) -> CompactError {
    CompactError::Illegal { index, at, code }
}

/// Whether the record's ending is exactly the rules' outcome.
fn ending_is(rec: &GameRecord, o: &croupier_rules::Outcome) -> bool {
    rec.results == o.results
        && rec.scores == o.scores
        && rec.summary == o.summary
        && rec.aborted == o.aborted
        && rec.forfeit.is_none()
}

/// Teams per seat as the runner records them: only when every seat has one.
fn teams_of<G: Game>(game: &G) -> Option<Vec<u8>> {
    (0..game.num_players() as u8)
        .map(|s| game.team_of(s))
        .collect()
}

impl GameRecord {
    /// The host, not the rules, ended the game (an engine error the runner recorded).
    fn aborted_by_host(&self) -> bool {
        self.aborted
            && (self.summary.starts_with("rules engine refused")
                || self.summary.contains("had no legal action")
                || self.summary.starts_with("could not deal"))
    }
}

/// Reads compact bytes, bounds-checked.
struct Reader<'a> {
    bytes: &'a [u8],
    index: u64,
}

impl<'a> Reader<'a> {
    fn damaged(&self, why: &str) -> CompactError {
        CompactError::Damaged {
            index: self.index,
            why: why.into(),
        }
    }

    fn byte(&mut self) -> Result<u8, CompactError> {
        let (&b, rest) = self
            .bytes
            .split_first()
            .ok_or_else(|| self.damaged("it ends early"))?;
        self.bytes = rest;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64, CompactError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.damaged("a number runs past 64 bits"))
    }

    /// A count of items of at least `min_size` bytes each, no more than the input can hold.
    fn count(&mut self, min_size: usize) -> Result<usize, CompactError> {
        let n = self.varint()?;
        if n > (self.bytes.len() / min_size.max(1)) as u64 {
            return Err(self.damaged("a count exceeds what is left"));
        }
        Ok(n as usize)
    }

    fn slice(&mut self) -> Result<&'a [u8], CompactError> {
        let n = self.count(1)?;
        let (s, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(s)
    }

    fn text(&mut self) -> Result<String, CompactError> {
        let s = self.slice()?;
        String::from_utf8(s.to_vec()).map_err(|_| self.damaged("text is not UTF-8"))
    }
}

/// The whole record of game `index` of the match `frame` describes, from its compact form.
pub fn decode<G: Game>(
    opts: &G::Options,
    frame: &Frame<'_>,
    index: u64,
    bytes: &[u8],
) -> Result<GameRecord, CompactError> {
    let mut r = Reader { bytes, index };
    let format = r.byte()?;
    if !(1..=FORMAT).contains(&format) {
        return Err(r.damaged("unknown format"));
    }
    let flags = r.byte()?;
    let (deal, rotation, seed, seats) = frame_of(frame, index).ok_or(CompactError::NotOfMatch {
        index,
        why: "the match has no such game".into(),
    })?;
    let count = r.varint()?;
    if count > MAX_ACTIONS {
        return Err(r.damaged("too many actions"));
    }
    let mut moves = Reader {
        bytes: r.slice()?,
        index,
    };
    let mut game = G::new(opts, seed).map_err(|e| CompactError::Deal {
        index,
        why: e.to_string(),
    })?;
    let mut actions = Vec::with_capacity(count.min(4096) as usize);
    let mut legal = Vec::new();
    for _ in 0..count {
        if game.to_act().is_none() {
            return Err(r.damaged("more actions than the game has"));
        }
        game.legal_actions(&mut legal);
        let pos = if legal.len() > 1 { moves.varint()? } else { 0 };
        let action = *usize::try_from(pos)
            .ok()
            .and_then(|p| legal.get(p))
            .ok_or_else(|| r.damaged("an action is out of the legal list"))?;
        game.apply(action)
            .map_err(|_| r.damaged("the engine refused a listed action"))?;
        actions.push(G::encode_action(action));
    }
    if !moves.bytes.is_empty() {
        return Err(r.damaged("moves left over"));
    }
    let decisions = r.varint()?;
    let ncalls = r.count(3)?;
    let mut calls = Vec::with_capacity(ncalls);
    for _ in 0..ncalls {
        calls.push(CallStats {
            decisions: r.varint()?,
            fuel: r.varint()?,
            fuel_unknown: r.varint()?,
            fuel_max: if format >= 2 { r.varint()? } else { 0 },
        });
    }
    let forfeit = match r.byte()? {
        0 => None,
        s => Some(s - 1),
    };
    let faults_json = r.slice()?;
    let faults: Vec<SeatFault> = if faults_json.is_empty() {
        Vec::new()
    } else {
        serde_json::from_slice(faults_json).map_err(|_| r.damaged("faults are not readable"))?
    };
    let n = game.num_players();
    let (aborted, results, scores, summary) = if flags & ENDING_BY_RULES != 0 {
        let o = game
            .outcome()
            .ok_or_else(|| r.damaged("the game is not over"))?;
        (
            o.aborted,
            o.results.clone(),
            o.scores.clone(),
            o.summary.clone(),
        )
    } else {
        let aborted = r.byte()? != 0;
        let mut results = Vec::with_capacity(n);
        for _ in 0..n {
            results.push(match r.byte()? {
                0 => SeatResult::Win,
                1 => SeatResult::Loss,
                2 => SeatResult::Draw,
                _ => return Err(r.damaged("unknown result")),
            });
        }
        let ns = r.count(1)?;
        let mut scores = Vec::with_capacity(ns);
        for _ in 0..ns {
            scores.push(unzigzag(r.varint()?));
        }
        (aborted, results, scores, r.text()?)
    };
    let teams = if flags & TEAMS_DERIVED != 0 {
        teams_of(&game)
    } else {
        match r.byte()? {
            0 => None,
            _ => Some(r.slice()?.to_vec()),
        }
    };
    let builds = if flags & BUILDS_DERIVED != 0 {
        seats
            .iter()
            .map(|&e| frame.builds.get(e).cloned().unwrap_or_default())
            .collect()
    } else {
        let nb = r.count(1)?;
        let mut b = Vec::with_capacity(nb);
        for _ in 0..nb {
            b.push(r.text()?);
        }
        b
    };
    if !r.bytes.is_empty() {
        return Err(r.damaged("bytes left over"));
    }
    Ok(GameRecord {
        index,
        deal,
        rotation,
        seed,
        seats,
        actions,
        results,
        scores,
        summary,
        aborted,
        faults,
        forfeit,
        decisions,
        teams,
        builds,
        logs: Vec::new(),
        calls,
    })
}
