//! The opponent model: what the opponent's own actions say about the cards it does not hold,
//! and worlds whose opponent hand respects it.
//!
//! Only for two players under house-like rules (stacking, no reshuffle, no challenge, draw one
//! and may play it, automatic UNO calls): between two of our decisions the discard pile only
//! grows and every hidden move can be replayed from the public counts (see [`replay`]).
//!
//! The model is source E's bots (`uno/greedy`, `uno/anneal`): they draw only when they hold
//! nothing playable, always play a playable drawn card, accept a penalty only when they hold
//! nothing stackable, and (greedy exactly, anneal mostly) play their highest-scoring playable
//! card. It is a belief: a fact it derives is dropped when a later play contradicts it, and a
//! world that cannot meet the facts falls back to the plain deal.

use crate::lean::Draws;
use croupier_sdk::uno::{Action, Color, Decision, Observation, Options, UnoCard};
use croupier_sdk::uno::{DeckExhaustion, DrawRule, Stacking, UnoCall};
use uno_common::greedy_score;

/// A set of card faces (bit = face code, 54 faces).
pub type Faces = u64;

const FACES: usize = 54;
const WILD: u8 = 52;
const WD4: u8 = 53;
/// Most constraints kept (the oldest go first).
const MAX_CONSTRAINTS: usize = 8;
/// Most replay nodes explored per gap (a gap is a few moves; this only bounds the odd case).
const MAX_NODES: u32 = 4000;
/// Most readings of one gap kept (more: the gap is not read).
const MAX_PATHS: usize = 8;
/// Random draws from the pool tried per card of a sampled hand before a scan of the allowed
/// cards (most sets forbid a small part of the pool, so a draw or two nearly always does).
const REJECTION_TRIES: usize = 4;

fn bit(c: UnoCard) -> Faces {
    if (c.0 as usize) < FACES {
        1u64 << c.0
    } else {
        0
    }
}

fn color_faces(col: Color) -> Faces {
    ((1u64 << 13) - 1) << (13 * col as u32)
}

fn kind_faces(kind: u8) -> Faces {
    (0..4).fold(0, |m, col| m | 1u64 << (col * 13 + kind as u32))
}

fn draw_twos() -> Faces {
    kind_faces(12)
}

/// "Of the opponent's current cards, at most `free` are in `faces`."
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
    pub faces: Faces,
    pub free: u8,
}

/// What the replay of a gap tells, in order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ev {
    /// The opponent's hand holds nothing in this set now.
    Avoid(Faces),
    /// The opponent drew this many cards.
    Drew(u8),
    /// The opponent played this card.
    Played(UnoCard),
    /// The opponent named this colour for the wild it just played: source E's bots name the
    /// colour they hold most of.
    Named(Color),
}

/// Whether the model applies to these rules.
pub fn applies(opts: &Options) -> bool {
    opts.num_players == 2
        && opts.deck_exhaustion == DeckExhaustion::EndHand
        && opts.stacking == Stacking::Progressive
        && !opts.wd4_challenge
        && opts.draw_rule == DrawRule::DrawOneMayPlay
        && opts.uno_call == UnoCall::Auto
}

/// Every card playable on `top` in colour `color` at a `Turn` (wilds included: a Wild Draw
/// Four is legal for a hand with no card of the colour, which a hand avoiding this set is).
fn playable_set(top: UnoCard, color: Color) -> Faces {
    let mut m = color_faces(color) | bit(UnoCard(WILD)) | bit(UnoCard(WD4));
    if let Some(k) = top.kind_index() {
        m |= kind_faces(k);
    }
    m
}

fn playable(top: UnoCard, color: Color, c: UnoCard) -> bool {
    playable_set(top, color) & bit(c) != 0
}

/// Cards greedy would have preferred to `played` among those playable on `top`/`color`.
fn preferred_to(top: UnoCard, color: Color, played: UnoCard) -> Faces {
    let set = playable_set(top, color);
    let s = greedy_score(played);
    (0..FACES as u8)
        .filter(|&f| set & (1u64 << f) != 0 && greedy_score(UnoCard(f)) > s)
        .fold(0, |m, f| m | 1u64 << f)
}

#[derive(Copy, Clone, Debug)]
struct St {
    top: UnoCard,
    color: Color,
    pending: u16,
    us: bool,
    penalty: bool,
    next: usize,
    d_opp: u32,
    d_us: u32,
}

struct Replay<'a> {
    cur: &'a Observation,
    cards: &'a [UnoCard],
    d_opp: u32,
    d_us: u32,
    plays_inform: bool,
    /// Our hand after our own move (cards we drew in the gap not included): a forced move
    /// of ours needs a hand without a playable card.
    mine: Vec<UnoCard>,
    nodes: u32,
    paths: Vec<Vec<Ev>>,
    /// Whether the walk stopped early (too many readings or nodes).
    truncated: bool,
}

impl Replay<'_> {
    fn done(&self, s: &St) -> bool {
        s.next == self.cards.len() && s.d_opp == self.d_opp && s.d_us == self.d_us
    }

    fn matches(&self, s: &St, decision: Decision) -> bool {
        self.done(s)
            && self.cur.decision == decision
            && self.cur.top == s.top
            && self.cur.color == s.color
            && self.cur.pending == s.pending
    }

    /// Whether our hand had a choice in `s` (then the host would have asked us).
    fn we_could_act(&self, s: &St) -> bool {
        let has_color = self.mine.iter().any(|c| c.color() == Some(s.color));
        self.mine.iter().any(|&c| {
            if s.penalty {
                (c.is_draw_two() && !s.top.is_wd4()) || (c.is_wd4() && !has_color)
            } else if c.is_wd4() {
                !has_color
            } else {
                playable(s.top, s.color, c)
            }
        })
    }

    /// Every reading of the gap, or `None` when there is none or the walk stopped early.
    fn result(self) -> Option<Vec<Vec<Ev>>> {
        (!self.truncated && !self.paths.is_empty()).then_some(self.paths)
    }

    fn record(&mut self, evs: &[Ev]) {
        if !self.paths.iter().any(|p| p == evs) {
            self.paths.push(evs.to_vec());
        }
    }

    /// The state after `card` is played (not stacked) by us (`us`) or the opponent.
    fn after_play(s: &St, us: bool, card: UnoCard, declare: Color) -> St {
        let mut t = *s;
        t.top = card;
        t.color = card.color().unwrap_or(declare);
        if card.is_draw() {
            t.pending = s.pending.saturating_add(card.draw_amount());
            t.us = !us;
            t.penalty = true;
        } else if matches!(card.kind_index(), Some(10 | 11)) {
            // Skip, or a two-player Reverse: the same player again.
            t.us = us;
            t.penalty = false;
        } else {
            t.us = !us;
            t.penalty = false;
        }
        t
    }

    /// The colours a play of `card` may have named.
    fn declares(card: UnoCard) -> &'static [Color] {
        if card.color().is_some() {
            &[Color::Red]
        } else {
            &Color::ALL
        }
    }

    fn walk(&mut self, s: St, evs: &mut Vec<Ev>) {
        self.nodes += 1;
        if self.nodes > MAX_NODES || self.paths.len() > MAX_PATHS {
            self.truncated = true;
            return;
        }
        if s.us {
            if !s.penalty {
                if self.matches(&s, Decision::Turn) {
                    self.record(evs);
                }
                // A forced draw (we held nothing playable).
                if s.d_us < self.d_us && !self.we_could_act(&s) {
                    let mut t = s;
                    t.d_us += 1;
                    if self.matches(&t, Decision::AfterDraw) {
                        self.record(evs);
                    }
                    t.us = false;
                    self.walk(t, evs);
                }
            } else {
                if self.matches(&s, Decision::PenaltyTurn) {
                    self.record(evs);
                }
                // A forced acceptance.
                if self.we_could_act(&s) {
                    return;
                }
                let mut t = s;
                t.d_us += s.pending as u32;
                t.pending = 0;
                t.penalty = false;
                t.us = false;
                if t.d_us <= self.d_us {
                    self.walk(t, evs);
                }
            }
            return;
        }
        let next = self.cards.get(s.next).copied();
        if !s.penalty {
            // A card from hand.
            if let Some(c) = next
                && playable(s.top, s.color, c)
            {
                for &d in Self::declares(c) {
                    let mut t = Self::after_play(&s, false, c, d);
                    t.next += 1;
                    let n = evs.len();
                    evs.push(Ev::Played(c));
                    if self.plays_inform {
                        evs.push(Ev::Avoid(preferred_to(s.top, s.color, c)));
                    }
                    if c.is_wild() {
                        evs.push(Ev::Named(d));
                    }
                    self.walk(t, evs);
                    evs.truncate(n);
                }
            }
            // A draw: nothing playable was held.
            if s.d_opp < self.d_opp {
                let avoid = playable_set(s.top, s.color);
                let mut t = s;
                t.d_opp += 1;
                let n = evs.len();
                // Kept: it was not playable either.
                evs.push(Ev::Drew(1));
                evs.push(Ev::Avoid(avoid));
                let mut k = t;
                k.us = true;
                self.walk(k, evs);
                evs.truncate(n);
                // Played at once.
                if let Some(c) = next
                    && playable(s.top, s.color, c)
                {
                    for &d in Self::declares(c) {
                        let mut p = Self::after_play(&t, false, c, d);
                        p.next += 1;
                        evs.push(Ev::Drew(1));
                        evs.push(Ev::Played(c));
                        evs.push(Ev::Avoid(avoid));
                        if c.is_wild() {
                            evs.push(Ev::Named(d));
                        }
                        self.walk(p, evs);
                        evs.truncate(n);
                    }
                }
            }
        } else {
            let on_wd4 = s.top.is_wd4();
            if let Some(c) = next
                && ((c.is_draw_two() && !on_wd4) || c.is_wd4())
            {
                for &d in Self::declares(c) {
                    let mut t = s;
                    t.top = c;
                    t.color = c.color().unwrap_or(d);
                    t.pending = s.pending.saturating_add(c.draw_amount());
                    t.next += 1;
                    t.us = true;
                    let n = evs.len();
                    evs.push(Ev::Played(c));
                    if self.plays_inform && c.is_wd4() && !on_wd4 {
                        // A Wild Draw Four stacked: greedy had no Draw Two to stack.
                        evs.push(Ev::Avoid(draw_twos()));
                    }
                    if c.is_wd4() {
                        evs.push(Ev::Named(d));
                    }
                    self.walk(t, evs);
                    evs.truncate(n);
                }
            }
            // Accepted: nothing stackable (a Wild Draw Four may have been barred by the
            // restriction, so only the Draw Twos are excluded).
            let mut t = s;
            t.d_opp += s.pending as u32;
            if t.d_opp <= self.d_opp {
                t.pending = 0;
                t.penalty = false;
                t.us = true;
                let n = evs.len();
                if !on_wd4 {
                    evs.push(Ev::Avoid(draw_twos()));
                }
                evs.push(Ev::Drew(s.pending.min(255) as u8));
                self.walk(t, evs);
                evs.truncate(n);
            }
        }
    }
}

/// What happened between our decision `prev`, where we chose `action`, and our decision
/// `cur`: every reading of the opponent's moves (each in order), or `None` when the gap
/// cannot be read (a reshuffle, counts that do not add up, too many readings). `plays_inform`: a play also
/// says that no playable card greedy prefers was held.
pub fn replay(
    prev: &Observation,
    action: Action,
    cur: &Observation,
    plays_inform: bool,
) -> Option<Vec<Vec<Ev>>> {
    if prev.players != 2 || cur.players != 2 || prev.hand_no != cur.hand_no {
        return None;
    }
    let opp = 1 - (prev.seat as usize).min(1);
    let ours = match action {
        Action::Play { card, .. } | Action::Stack { card, .. } => Some(card),
        Action::PlayDrawn { .. } => Some(prev.drawn?),
        _ => None,
    };
    let base = prev.discard.len();
    let start = base + usize::from(ours.is_some());
    if cur.discard.len() < start || cur.discard[..base] != prev.discard[..] {
        return None;
    }
    if let Some(c) = ours
        && cur.discard[base] != c
    {
        return None;
    }
    let cards = &cur.discard[start..];
    let total = prev.draw_pile.checked_sub(cur.draw_pile)? as i64;
    let d_us = cur.hand.len() as i64 + i64::from(ours.is_some()) - prev.hand.len() as i64;
    let d_opp = total - d_us;
    if d_us < 0 || d_opp < 0 {
        return None;
    }
    let opp_before = *prev.hand_sizes.get(opp)? as i64;
    let opp_now = *cur.hand_sizes.get(opp)? as i64;
    if opp_now != opp_before + d_opp - cards.len() as i64 {
        return None;
    }
    let mut r = Replay {
        cur,
        cards,
        d_opp: d_opp as u32,
        d_us: d_us as u32,
        plays_inform,
        mine: {
            let mut h = prev.hand.clone();
            if let Some(c) = ours
                && let Some(i) = h.iter().position(|x| *x == c)
            {
                h.swap_remove(i);
            }
            h
        },
        nodes: 0,
        paths: Vec::new(),
        truncated: false,
    };
    let s = St {
        top: prev.top,
        color: prev.color,
        pending: prev.pending,
        us: false,
        penalty: false,
        next: 0,
        d_opp: 0,
        d_us: 0,
    };
    let mut evs = Vec::new();
    match (prev.decision, action) {
        (Decision::ChooseStartColor, Action::ChooseColor(c)) => {
            r.walk(
                St {
                    color: c,
                    us: true,
                    ..s
                },
                &mut evs,
            );
        }
        (Decision::Turn, Action::Play { declare, .. })
        | (Decision::AfterDraw, Action::PlayDrawn { declare, .. }) => {
            let c = ours?;
            let t = Replay::after_play(&s, true, c, declare.unwrap_or(prev.color));
            r.walk(t, &mut evs);
        }
        (Decision::Turn, Action::Draw) => {
            let t = St { d_us: 1, ..s };
            if r.matches(&t, Decision::AfterDraw) {
                r.record(&[]);
            }
            r.walk(t, &mut evs);
        }
        (Decision::AfterDraw, Action::Keep) => r.walk(s, &mut evs),
        (Decision::PenaltyTurn, Action::Stack { card, declare, .. }) => {
            let t = St {
                top: card,
                color: card.color().or(declare).unwrap_or(prev.color),
                pending: prev.pending.saturating_add(card.draw_amount()),
                penalty: true,
                ..s
            };
            r.walk(t, &mut evs);
        }
        (Decision::PenaltyTurn, Action::AcceptPenalty) => {
            let t = St {
                pending: 0,
                d_us: prev.pending as u32,
                ..s
            };
            r.walk(t, &mut evs);
        }
        _ => return None,
    }
    r.result()
}

/// The opponent's moves before our first decision of the hand, replayed from the deal when
/// the start card is a plain number (no start effect to replay); `hand_size` = cards dealt.
pub fn replay_start(cur: &Observation, hand_size: u8, plays_inform: bool) -> Option<Vec<Vec<Ev>>> {
    if cur.players != 2 {
        return None;
    }
    let start = *cur.discard.first()?;
    let color = start.color()?;
    if start.kind_index()? > 9 {
        return None;
    }
    let seat = (cur.seat as usize).min(1);
    let opp = 1 - seat;
    let dealt = 108i64 - 2 * hand_size as i64 - 1;
    let total = dealt - cur.draw_pile as i64;
    let d_us = cur.hand.len() as i64 - hand_size as i64;
    let d_opp = total - d_us;
    let cards = &cur.discard[1..];
    if d_us < 0
        || d_opp < 0
        || *cur.hand_sizes.get(opp)? as i64 != hand_size as i64 + d_opp - cards.len() as i64
    {
        return None;
    }
    let mut r = Replay {
        cur,
        cards,
        d_opp: d_opp as u32,
        d_us: d_us as u32,
        plays_inform,
        // Our dealt hand is known only if we drew nothing since.
        mine: if d_us == 0 {
            cur.hand.clone()
        } else {
            Vec::new()
        },
        nodes: 0,
        paths: Vec::new(),
        truncated: false,
    };
    // The player to the dealer's left begins.
    let first = (cur.dealer as usize + 1) % 2;
    let s = St {
        top: start,
        color,
        pending: 0,
        us: first == seat,
        penalty: false,
        next: 0,
        d_opp: 0,
        d_us: 0,
    };
    r.walk(s, &mut Vec::new());
    r.result()
}

/// Applies the events of a gap to the constraints (`hand` = the opponent's hand size now).
pub fn update(cons: &mut Vec<Constraint>, evs: &[Ev], hand: u8) {
    for e in evs {
        match *e {
            Ev::Drew(k) => {
                for c in cons.iter_mut() {
                    c.free = c.free.saturating_add(k);
                }
            }
            Ev::Played(card) => {
                // A card of a constrained set came from the free part; none left there means
                // the belief was wrong: drop it.
                cons.retain_mut(|c| {
                    if c.faces & bit(card) == 0 {
                        true
                    } else if c.free > 0 {
                        c.free -= 1;
                        true
                    } else {
                        false
                    }
                });
            }
            Ev::Avoid(faces) if faces != 0 => {
                if let Some(c) = cons.iter_mut().find(|c| c.free == 0) {
                    c.faces |= faces;
                } else {
                    cons.push(Constraint { faces, free: 0 });
                }
            }
            Ev::Avoid(_) | Ev::Named(_) => {}
        }
    }
    cons.retain(|c| c.free < hand && c.faces != 0);
    if cons.len() > MAX_CONSTRAINTS {
        let drop = cons.len() - MAX_CONSTRAINTS;
        cons.drain(..drop);
    }
}

/// The colour the opponent named for a wild that was its last move, when every reading
/// agrees: the colour it holds most of now, by the model.
pub fn named_last(paths: &[Vec<Ev>]) -> Option<Color> {
    let mut out = None;
    for p in paths {
        let Some(Ev::Named(c)) = p.last() else {
            return None;
        };
        if out.is_some_and(|o| o != *c) {
            return None;
        }
        out = Some(*c);
    }
    out
}

/// "When the opponent named `color` for its last wild, it held most of that colour": source
/// E's bots name the colour they hold most of. Kept while the opponent only plays (its hand
/// then was its hand now and the coloured cards it played since, `played` per colour); a
/// draw ends it (which cards are new is not known).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Named {
    pub color: Color,
    pub played: [u8; 4],
}

impl Named {
    /// The fact after a gap's events, from `fact` before it.
    pub fn follow(mut fact: Option<Named>, evs: &[Ev]) -> Option<Named> {
        for e in evs {
            match *e {
                Ev::Named(color) => {
                    fact = Some(Named {
                        color,
                        played: [0; 4],
                    })
                }
                Ev::Drew(k) if k > 0 => fact = None,
                Ev::Played(card) => {
                    if let (Some(f), Some(col)) = (&mut fact, card.color()) {
                        f.played[col as usize] = f.played[col as usize].saturating_add(1);
                    }
                }
                _ => {}
            }
        }
        fact
    }

    /// Whether the opponent's hand now, `hand`, agrees.
    pub fn holds(&self, hand: &[UnoCard]) -> bool {
        let mut counts = self.played.map(u32::from);
        for c in hand {
            if let Some(col) = c.color() {
                counts[col as usize] += 1;
            }
        }
        let most = counts.iter().copied().max().unwrap_or(0);
        most == 0 || Color::ALL.iter().find(|c| counts[**c as usize] == most) == Some(&self.color)
    }

    /// The fact every reading of a gap agrees on (`None` if they differ).
    pub fn follow_paths(fact: Option<Named>, paths: &[Vec<Ev>]) -> Option<Named> {
        let mut out: Option<Option<Named>> = None;
        for p in paths {
            let f = Named::follow(fact, p);
            if out.is_some_and(|o| o != f) {
                return None;
            }
            out = Some(f);
        }
        out.flatten()
    }
}

/// Applies a gap with several readings: only the constraints every reading implies (one
/// reading's, each kept when every other reading has one as strict: a superset of faces with
/// no more free cards).
pub fn update_paths(cons: &mut Vec<Constraint>, paths: &[Vec<Ev>], hand: u8) {
    let results: Vec<Vec<Constraint>> = paths
        .iter()
        .map(|evs| {
            let mut c = cons.clone();
            update(&mut c, evs, hand);
            c
        })
        .collect();
    let Some((first, rest)) = results.split_first() else {
        return;
    };
    *cons = first
        .iter()
        .copied()
        .filter(|c| {
            rest.iter().all(|r| {
                r.iter()
                    .any(|d| d.faces & c.faces == c.faces && d.free <= c.free)
            })
        })
        .collect();
}

/// After a gap that could not be read: only what certainly holds. Every card drawn may be
/// the opponent's, so each frees one card of every constraint; a played card may be ours, so
/// none uses one up. `false` when even that cannot be said (a reshuffle, a new hand).
pub fn update_blind(
    cons: &mut Vec<Constraint>,
    prev: &Observation,
    cur: &Observation,
    opp: usize,
) -> bool {
    if prev.hand_no != cur.hand_no
        || cur.discard.len() < prev.discard.len()
        || cur.discard[..prev.discard.len()] != prev.discard[..]
    {
        return false;
    }
    let Some(&now) = cur.hand_sizes.get(opp) else {
        return false;
    };
    let drawn = prev.draw_pile.saturating_sub(cur.draw_pile).min(255) as u8;
    update(cons, &[Ev::Drew(drawn)], now);
    true
}

/// The unknown pool `unseen` (copies per face) as a list of cards, for [`sample_hand`]: built
/// once per decision, copied per world.
pub fn pool_of(unseen: &[u8]) -> Vec<UnoCard> {
    let mut pool = Vec::with_capacity(108);
    for (f, &k) in unseen.iter().enumerate().take(FACES) {
        for _ in 0..k {
            pool.push(UnoCard(f as u8));
        }
    }
    pool
}

/// A hand of `n` cards for the opponent from the unknown pool `all` ([`pool_of`]), meeting
/// `cons` (and the public caps, given as constraints too): the cards are dealt oldest first,
/// card `j` avoiding every set whose free count leaves it no room (`j < n - free`); each
/// uniformly among what is left (a few random draws, rejected when forbidden, then a scan:
/// the same distribution at a fraction of the cost). `None` when some card has no candidate.
/// Adds its work to `work`: the pool copied, and per card the constraints read, the draws
/// and any scan (for the agent's cost model: against an opponent the model does not fit,
/// most cards end in a scan).
pub fn sample_hand(
    all: &[UnoCard],
    n: usize,
    cons: &[Constraint],
    rng: &mut impl Draws,
    scratch: (&mut Vec<UnoCard>, &mut Vec<usize>),
    work: &mut u64,
) -> Option<Vec<UnoCard>> {
    let (pool, cands) = scratch;
    if all.len() < n {
        return None;
    }
    pool.clear();
    pool.extend_from_slice(all);
    *work += all.len() as u64 / 8;
    let mut hand = Vec::with_capacity(n);
    for j in 0..n {
        let forbid = cons
            .iter()
            .filter(|c| j + (c.free as usize) < n)
            .fold(0u64, |m, c| m | c.faces);
        *work += 1 + cons.len() as u64;
        let mut pick = None;
        for _ in 0..REJECTION_TRIES {
            *work += 1;
            let i = rng.below(pool.len());
            if forbid & bit(pool[i]) == 0 {
                pick = Some(i);
                break;
            }
        }
        let i = match pick {
            Some(i) => i,
            None => {
                *work += pool.len() as u64;
                cands.clear();
                cands.extend((0..pool.len()).filter(|&i| forbid & bit(pool[i]) == 0));
                if cands.is_empty() {
                    return None;
                }
                cands[rng.below(cands.len())]
            }
        };
        hand.push(pool.swap_remove(i));
    }
    Some(hand)
}

/// The public caps on the opponent's hand, as constraints.
pub fn cap_constraints(obs: &Observation, opp: usize, out: &mut Vec<Constraint>) {
    if let Some(cc) = obs.color_caps.get(opp) {
        for col in Color::ALL {
            let cap = cc[col as usize];
            if cap != 255 {
                out.push(Constraint {
                    faces: color_faces(col),
                    free: cap,
                });
            }
        }
    }
    if let Some(kc) = obs.kind_caps.get(opp) {
        for (k, &cap) in kc.iter().enumerate() {
            if cap != 255 {
                out.push(Constraint {
                    faces: kind_faces(k as u8),
                    free: cap,
                });
            }
        }
    }
}
