//! The UNO state machine: setup (docs/rules/uno.md#setup), matching (docs/rules/uno.md#matching),
//! the turn state machine (docs/rules/uno.md#turns), card effects (docs/rules/uno.md#card-effects),
//! the Wild Draw Four restriction and challenge (docs/rules/uno.md#wild-draw-four), drawing and
//! reshuffles (docs/rules/uno.md#drawing-and-the-empty-pile), UNO calls
//! (docs/rules/uno.md#calling-uno), going out and scoring
//! (docs/rules/uno.md#going-out-and-scoring), two players (docs/rules/uno.md#two-players) and
//! stacking (docs/rules/uno.md#stacking).

use super::cards::{Kind, deck, deck_counts};
use super::types::*;
use super::why::{Expected, Why};
use crate::cards::Seat;
use crate::game::{IllegalAction, Logged, Outcome, SeatResult, Visibility};
use crate::log::EventLog;
use crate::rng::GameRng;

/// "No upper bound" in a cap table.
pub(crate) const NO_CAP: u8 = 255;
/// Cap groups per seat: 4 colours, then 13 coloured kinds.
pub(crate) const GROUPS: usize = 17;
/// Safety cap on hands per game (not a rule, like `turn_limit`): a multi-hand game that has
/// not reached its target after this many hands ends as aborted.
pub(crate) const MAX_HANDS: u32 = 10_000;

/// The decision pending, with what it needs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    ChooseStartColor,
    Turn,
    /// The player just drew `drawn` (it is in his hand) and it is playable.
    AfterDraw {
        drawn: UnoCard,
    },
    /// The victim decides; the WD4's details are in `Uno::wd4`.
    Wd4Challenge,
    PenaltyTurn,
    /// `offender` played his next-to-last card without calling; `asked` seats have passed.
    UnoCatch {
        offender: Seat,
        asked: u8,
    },
    Over,
}

/// A Wild Draw Four that may still be challenged (docs/rules/uno.md#wild-draw-four).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Wd4Ctx {
    pub offender: Seat,
    pub victim: Seat,
    pub prev_color: Color,
    pub prev_top: UnoCard,
    /// The offender's hand right after playing the WD4 (guilt is judged on it).
    pub hand: [u8; FACES],
    pub hand_len: u8,
}

/// Cards `viewer` knows to be in `holder`'s hand (a shown hand minus later plays).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KnownHand {
    pub viewer: Seat,
    pub holder: Seat,
    pub cards: [u8; FACES],
    pub len: u8,
}

/// An UNO game in progress (one `Uno` holds the whole multi-hand game).
#[derive(Clone, Debug, PartialEq)]
pub struct Uno {
    pub(crate) opts: Options,
    pub(crate) n: u8,
    pub(crate) rng: GameRng,
    /// Per seat: copies of each face.
    pub(crate) hands: Vec<[u8; FACES]>,
    pub(crate) hand_len: Vec<u8>,
    /// Draw pile, top = last element.
    pub(crate) draw: Vec<UnoCard>,
    /// Discard pile, top = last element.
    pub(crate) discard: Vec<UnoCard>,
    pub(crate) color: Color,
    pub(crate) direction: i8,
    pub(crate) cur: Seat,
    pub(crate) phase: Phase,
    pub(crate) pending: u16,
    pub(crate) dealer: Seat,
    pub(crate) hand_no: u32,
    pub(crate) turns: u32,
    pub(crate) scores: Vec<i64>,
    pub(crate) known: Vec<KnownHand>,
    /// Per seat: public upper bounds on coloured cards per colour (0..4) and kind (4..17).
    pub(crate) caps: Vec<[u8; GROUPS]>,
    pub(crate) wd4: Option<Wd4Ctx>,
    pub(crate) outcome: Option<Outcome>,
    pub(crate) events: EventLog<Event>,
}

/// Cap groups of a coloured face: (colour group, kind group).
#[inline]
pub(crate) fn groups(f: UnoCard) -> Option<(usize, usize)> {
    if f.0 < 52 {
        Some(((f.0 / 13) as usize, 4 + (f.0 % 13) as usize))
    } else {
        None
    }
}

/// The hand as sorted faces.
pub(crate) fn counts_to_vec(c: &[u8; FACES]) -> Vec<UnoCard> {
    let mut v = Vec::with_capacity(c.iter().map(|&k| k as usize).sum());
    for (f, &k) in c.iter().enumerate() {
        for _ in 0..k {
            v.push(UnoCard(f as u8));
        }
    }
    v
}

/// True when a hand (counts) passes the WD4 restriction of docs/rules/uno.md#wild-draw-four against
/// colour `cc` and top card `top`: no coloured card of colour `cc` (and, with `NoMatchingCard`,
/// none of the top's number or symbol). Wild cards never count.
pub(crate) fn wd4_allowed(r: Wd4Restriction, hand: &[u8; FACES], cc: Color, top: UnoCard) -> bool {
    let base = cc as usize * 13;
    if hand[base..base + 13].iter().any(|&k| k > 0) {
        return false;
    }
    if r == Wd4Restriction::NoMatchingCard
        && let Some(kind) = top.kind_index()
    {
        return (0..4).all(|c| hand[c * 13 + kind as usize] == 0);
    }
    true
}

impl Uno {
    /// A state with no cards anywhere yet; callers fill it in.
    pub(crate) fn skeleton(opts: &Options, rng: GameRng) -> Uno {
        let n = opts.num_players.max(1);
        Uno {
            opts: opts.clone(),
            n,
            rng,
            hands: vec![[0; FACES]; n as usize],
            hand_len: vec![0; n as usize],
            draw: Vec::with_capacity(108),
            discard: Vec::with_capacity(108),
            color: Color::Red,
            direction: 1,
            cur: 0,
            phase: Phase::Turn,
            pending: 0,
            dealer: 0,
            hand_no: 1,
            turns: 0,
            scores: vec![0; n as usize],
            known: Vec::new(),
            caps: vec![[NO_CAP; GROUPS]; n as usize],
            wd4: None,
            outcome: None,
            events: EventLog::default(),
        }
    }

    /// Deals the first hand (options already validated).
    pub(crate) fn deal_new(opts: &Options, seed: u64) -> Uno {
        let mut rng = GameRng::new(seed);
        let dealer = match opts.dealer {
            Some(d) => d,
            None => rng.below(opts.num_players as usize) as Seat,
        };
        let mut g = Uno::skeleton(opts, rng);
        g.dealer = dealer;
        g.start_hand(None);
        g
    }

    // ----- small helpers -------------------------------------------------------------

    #[inline]
    fn log(&mut self, vis: Visibility, event: Event) {
        self.events.push(Logged { vis, event });
    }
    #[inline]
    fn public(&mut self, event: Event) {
        self.log(Visibility::Public, event);
    }

    /// The top card of the discard pile.
    #[inline]
    pub(crate) fn top(&self) -> UnoCard {
        self.discard.last().copied().unwrap_or(UnoCard::WILD)
    }

    /// `advance(k)` from `from` in the current direction.
    #[inline]
    pub(crate) fn advance(&self, from: Seat, k: i32) -> Seat {
        (from as i32 + k * self.direction as i32).rem_euclid(self.n as i32) as Seat
    }

    #[inline]
    pub(crate) fn add_card(&mut self, seat: Seat, f: UnoCard) {
        self.hands[seat as usize][f.0 as usize] += 1;
        self.hand_len[seat as usize] += 1;
    }

    #[inline]
    fn remove_card(&mut self, seat: Seat, f: UnoCard) {
        self.hands[seat as usize][f.0 as usize] -= 1;
        self.hand_len[seat as usize] -= 1;
    }

    pub(crate) fn hand_vec(&self, seat: Seat) -> Vec<UnoCard> {
        counts_to_vec(&self.hands[seat as usize])
    }

    pub(crate) fn hand_value(&self, seat: Seat) -> i64 {
        self.hands[seat as usize]
            .iter()
            .enumerate()
            .map(|(f, &k)| k as i64 * UnoCard(f as u8).points() as i64)
            .sum()
    }

    fn explicit(&self) -> bool {
        self.opts.uno_call == UnoCall::Explicit
    }

    // ----- matching (docs/rules/uno.md#matching, docs/rules/uno.md#wild-draw-four,
    // docs/rules/uno.md#stacking) ----------------------------------------------

    /// Whether `seat` may play `card` now on the top card (docs/rules/uno.md#matching).
    pub(crate) fn playable(&self, seat: Seat, card: UnoCard) -> bool {
        match card.0 {
            52 => true,
            53 => {
                self.opts.wd4_challenge
                    || wd4_allowed(
                        self.opts.wd4_restriction,
                        &self.hands[seat as usize],
                        self.color,
                        self.top(),
                    )
            }
            c if c < 52 => {
                c / 13 == self.color as u8 || self.top().kind_index().is_some_and(|k| k == c % 13)
            }
            _ => false,
        }
    }

    /// Whether `seat` may stack `card` on the pending penalty (docs/rules/uno.md#stacking).
    pub(crate) fn stackable(&self, seat: Seat, card: UnoCard) -> bool {
        let on_wd4 = self.top().is_wd4();
        let kind_ok = match self.opts.stacking {
            Stacking::None => false,
            Stacking::SameKind => (card.is_draw_two() && !on_wd4) || (card.is_wd4() && on_wd4),
            Stacking::Progressive => (card.is_draw_two() && !on_wd4) || card.is_wd4(),
        };
        kind_ok
            && (!card.is_wd4()
                || wd4_allowed(
                    self.opts.wd4_restriction,
                    &self.hands[seat as usize],
                    self.color,
                    self.top(),
                ))
    }

    /// The `uno` flag values a play by `seat` may carry: both only when the play leaves him
    /// one card with `uno_call=Explicit`.
    // Decision: in every other case only `uno=false` is legal (the flag would mean nothing,
    // and two actions with the same effect would be duplicates).
    fn uno_flags(&self, seat: Seat) -> &'static [bool] {
        if self.explicit() && self.hand_len[seat as usize] == 2 {
            &[false, true]
        } else {
            &[false]
        }
    }

    fn push_card_actions(
        out: &mut Vec<Action>,
        card: UnoCard,
        unos: &[bool],
        make: impl Fn(Option<Color>, bool) -> Action,
    ) {
        for &uno in unos {
            if card.is_wild() {
                for c in Color::ALL {
                    out.push(make(Some(c), uno));
                }
            } else {
                out.push(make(None, uno));
            }
        }
    }

    // ----- legal actions --------------------------------------------------------------

    pub(crate) fn to_act(&self) -> Option<Seat> {
        if self.phase == Phase::Over {
            None
        } else {
            Some(self.cur)
        }
    }

    pub(crate) fn legal_into(&self, out: &mut Vec<Action>) {
        out.clear();
        let p = self.cur;
        match self.phase {
            Phase::Over => {}
            Phase::ChooseStartColor => out.extend(Color::ALL.map(Action::ChooseColor)),
            Phase::Turn => {
                let unos = self.uno_flags(p);
                let hand = &self.hands[p as usize];
                for f in 0..FACES as u8 {
                    let card = UnoCard(f);
                    if hand[f as usize] > 0 && self.playable(p, card) {
                        Self::push_card_actions(out, card, unos, |declare, uno| Action::Play {
                            card,
                            declare,
                            uno,
                        });
                    }
                }
                out.push(Action::Draw);
            }
            Phase::AfterDraw { drawn } => {
                let unos = self.uno_flags(p);
                Self::push_card_actions(out, drawn, unos, |declare, uno| Action::PlayDrawn {
                    declare,
                    uno,
                });
                if self.opts.draw_rule == DrawRule::DrawOneMayPlay {
                    out.push(Action::Keep);
                }
            }
            Phase::Wd4Challenge => {
                out.push(Action::Challenge);
                out.push(Action::Accept);
            }
            Phase::PenaltyTurn => {
                let unos = self.uno_flags(p);
                let hand = &self.hands[p as usize];
                for f in 0..FACES as u8 {
                    let card = UnoCard(f);
                    if hand[f as usize] > 0 && self.stackable(p, card) {
                        Self::push_card_actions(out, card, unos, |declare, uno| Action::Stack {
                            card,
                            declare,
                            uno,
                        });
                    }
                }
                out.push(Action::AcceptPenalty);
            }
            Phase::UnoCatch { .. } => {
                out.push(Action::CatchUno);
                out.push(Action::NoCatch);
            }
        }
    }

    fn what_is_expected(&self) -> Why {
        let expected = match self.phase {
            Phase::Over => return Why::GameOver,
            Phase::ChooseStartColor => Expected::StartColour,
            Phase::Turn => Expected::Turn,
            Phase::AfterDraw { .. } => {
                if self.opts.draw_rule == DrawRule::DrawOneMayPlay {
                    Expected::DrawnMayPlay
                } else {
                    Expected::DrawnMustPlay
                }
            }
            Phase::Wd4Challenge => Expected::Wd4Challenge,
            Phase::PenaltyTurn => Expected::Penalty {
                pending: self.pending,
            },
            Phase::UnoCatch { offender, .. } => Expected::Catch { offender },
        };
        Why::WrongDecision {
            seat: self.cur,
            expected,
        }
    }

    /// Checks a card-carrying action; `None` when it is legal.
    fn check_card(
        &self,
        card: UnoCard,
        declare: Option<Color>,
        uno: bool,
        stack: bool,
        from_hand: bool,
    ) -> Option<Why> {
        let p = self.cur;
        if !card.is_valid() {
            return Some(Why::NotACard(card.0));
        }
        if from_hand && self.hands[p as usize][card.0 as usize] == 0 {
            return Some(Why::NotHeld { seat: p, card });
        }
        if card.is_wild() && declare.is_none() {
            return Some(Why::NeedsColour(card));
        }
        if !card.is_wild() && declare.is_some() {
            return Some(Why::NotWild(card));
        }
        if uno && !self.uno_flags(p).contains(&true) {
            return Some(if self.explicit() {
                Why::UnoFlagNotLastCard
            } else {
                Why::UnoFlagNotExplicit
            });
        }
        if stack {
            if !self.stackable(p, card) {
                return Some(if card.is_wd4() && self.stackable_kind(card) {
                    Why::Wd4Restricted { seat: p }
                } else {
                    Why::CannotStack {
                        card,
                        top: self.top(),
                        stacking: self.opts.stacking,
                    }
                });
            }
        } else if !self.playable(p, card) {
            return Some(if card.is_wd4() {
                Why::Wd4Restricted { seat: p }
            } else {
                Why::NoMatch {
                    card,
                    top: self.top(),
                    colour: self.color,
                }
            });
        }
        None
    }

    fn stackable_kind(&self, card: UnoCard) -> bool {
        match self.opts.stacking {
            Stacking::None => false,
            Stacking::SameKind => card.is_wd4() == self.top().is_wd4(),
            Stacking::Progressive => card.is_wd4() || !self.top().is_wd4(),
        }
    }

    /// `None` when `a` is legal now, else why not.
    pub(crate) fn why_illegal(&self, a: Action) -> Option<Why> {
        let ok = match (self.phase, a) {
            (Phase::Over, _) => return Some(Why::GameOver),
            (Phase::ChooseStartColor, Action::ChooseColor(_)) => return None,
            (Phase::Turn, Action::Play { card, declare, uno }) => {
                return self.check_card(card, declare, uno, false, true);
            }
            (Phase::Turn, Action::Draw) => return None,
            (Phase::AfterDraw { drawn }, Action::PlayDrawn { declare, uno }) => {
                return self.check_card(drawn, declare, uno, false, false);
            }
            (Phase::AfterDraw { .. }, Action::Keep) => {
                if self.opts.draw_rule == DrawRule::DrawUntilPlayable {
                    return Some(Why::DrawnMustBePlayed);
                }
                true
            }
            (Phase::Wd4Challenge, Action::Challenge | Action::Accept) => true,
            (Phase::PenaltyTurn, Action::Stack { card, declare, uno }) => {
                return self.check_card(card, declare, uno, true, true);
            }
            (Phase::PenaltyTurn, Action::AcceptPenalty) => true,
            (Phase::UnoCatch { .. }, Action::CatchUno | Action::NoCatch) => true,
            _ => false,
        };
        if ok {
            None
        } else {
            Some(self.what_is_expected())
        }
    }

    // ----- apply ----------------------------------------------------------------------

    pub(crate) fn apply_action(&mut self, a: Action) -> Result<(), IllegalAction<Action, Why>> {
        if let Some(why) = self.why_illegal(a) {
            return Err(IllegalAction { action: a, why });
        }
        let p = self.cur;
        match a {
            Action::ChooseColor(c) => {
                self.color = c;
                self.public(Event::ChooseColor { seat: p, color: c });
                self.begin_turn(p, false);
            }
            Action::Play { card, declare, uno } => self.play(p, card, declare, uno, false),
            Action::Draw => self.voluntary_draw(p),
            Action::PlayDrawn { declare, uno } => {
                if let Phase::AfterDraw { drawn } = self.phase {
                    self.play(p, drawn, declare, uno, false);
                }
            }
            Action::Keep => {
                self.public(Event::Keep { seat: p });
                let next = self.advance(p, 1);
                self.begin_turn(next, false);
            }
            Action::Challenge => self.challenge(),
            Action::Accept => {
                let victim = p;
                self.wd4 = None;
                self.public(Event::Accept { seat: victim });
                self.draw_cards(victim, 4);
                let next = self.advance(victim, 1);
                self.begin_turn(next, false);
            }
            Action::Stack { card, declare, uno } => self.play(p, card, declare, uno, true),
            Action::AcceptPenalty => {
                let count = self.pending;
                self.pending = 0;
                self.public(Event::AcceptPenalty { seat: p, count });
                self.draw_cards(p, count as usize);
                let next = self.advance(p, 1);
                self.begin_turn(next, false);
            }
            Action::CatchUno => {
                if let Phase::UnoCatch { offender, .. } = self.phase {
                    self.public(Event::CatchUno { seat: p, offender });
                    self.draw_cards(offender, self.opts.uno_penalty as usize);
                    self.effect(offender);
                }
            }
            Action::NoCatch => {
                if let Phase::UnoCatch { offender, asked } = self.phase {
                    self.public(Event::NoCatch { seat: p });
                    let asked = asked + 1;
                    if asked as usize + 1 >= self.n as usize {
                        self.effect(offender);
                    } else {
                        self.phase = Phase::UnoCatch { offender, asked };
                        self.cur = self.advance(offender, asked as i32 + 1);
                    }
                }
            }
        }
        Ok(())
    }

    /// `Draw` in `Turn` (docs/rules/uno.md#turns, docs/rules/uno.md#drawing-and-the-empty-pile).
    fn voluntary_draw(&mut self, p: Seat) {
        let until = self.opts.draw_rule == DrawRule::DrawUntilPlayable;
        let mut got = Vec::new();
        let mut playable = None;
        loop {
            let before = got.len();
            self.take(p, 1, &mut got);
            let Some(&c) = got.get(before) else { break };
            if self.playable(p, c) {
                playable = Some(c);
                break;
            }
            if !until {
                break;
            }
        }
        self.emit_draw(p, &got);
        match playable {
            Some(drawn) => self.phase = Phase::AfterDraw { drawn },
            None => {
                // The automatic Keep of docs/rules/uno.md#turns: the same event as a chosen Keep.
                self.public(Event::Keep { seat: p });
                let next = self.advance(p, 1);
                self.begin_turn(next, false);
            }
        }
    }

    /// Plays `card` from `p`'s hand and runs the after-play pipeline
    /// (docs/rules/uno.md#card-effects).
    fn play(&mut self, p: Seat, card: UnoCard, declare: Option<Color>, uno: bool, stack: bool) {
        let prev_color = self.color;
        let prev_top = self.top();
        self.remove_card(p, card);
        self.discard.push(card);
        self.color = card.color().or(declare).unwrap_or(prev_color);
        self.caps_after_play(p, card);
        if card.is_wd4() && !self.opts.wd4_challenge {
            // The engine enforced the restriction, so everybody now knows p held none of
            // the restricted cards (docs/rules/uno.md#information derived knowledge).
            self.set_void(p, prev_color, prev_top, 0);
        }
        self.known_after_play(p, card);
        if self.opts.stacking != Stacking::None && card.is_draw() {
            self.pending += card.draw_amount();
        }
        if stack {
            self.public(Event::Stack {
                seat: p,
                card,
                declare,
                pending: self.pending,
            });
        } else {
            self.public(Event::Play {
                seat: p,
                card,
                declare,
            });
        }
        let left = self.hand_len[p as usize];
        if uno && left == 1 {
            self.public(Event::Uno { seat: p });
        }
        // (1) going out.
        if left == 0 {
            self.going_out(p, card);
            return;
        }
        if card.is_wd4() && self.opts.wd4_challenge {
            self.wd4 = Some(Wd4Ctx {
                offender: p,
                victim: self.advance(p, 1),
                prev_color,
                prev_top,
                hand: self.hands[p as usize],
                hand_len: left,
            });
        }
        // (2) the UNO catch window.
        if left == 1 && self.explicit() && !uno {
            self.phase = Phase::UnoCatch {
                offender: p,
                asked: 0,
            };
            self.cur = self.advance(p, 1);
            return;
        }
        // (3) the card's effect.
        self.effect(p);
    }

    /// Step (3) of the after-play pipeline: the top card's effect, played by `p`.
    fn effect(&mut self, p: Seat) {
        let card = self.top();
        if card.is_wd4()
            && let Some(ctx) = &self.wd4
        {
            self.cur = ctx.victim;
            self.phase = Phase::Wd4Challenge;
            return;
        }
        if self.opts.stacking != Stacking::None && card.is_draw() {
            let next = self.advance(p, 1);
            self.begin_turn(next, true);
            return;
        }
        match card.kind() {
            Some(Kind::DrawTwo) | Some(Kind::WildDrawFour) => {
                let victim = self.advance(p, 1);
                self.draw_cards(victim, card.draw_amount() as usize);
                self.public(Event::Skipped { seat: victim });
                let next = self.advance(p, 2);
                self.begin_turn(next, false);
            }
            Some(Kind::Skip) => {
                let victim = self.advance(p, 1);
                self.public(Event::Skipped { seat: victim });
                let next = self.advance(p, 2);
                self.begin_turn(next, false);
            }
            Some(Kind::Reverse) => {
                self.direction = -self.direction;
                self.public(Event::Reversed {
                    direction: self.direction,
                });
                if self.n == 2 {
                    // docs/rules/uno.md#two-players: a Reverse acts as a Skip.
                    let other = self.advance(p, 1);
                    self.public(Event::Skipped { seat: other });
                    self.begin_turn(p, false);
                } else {
                    let next = self.advance(p, 1);
                    self.begin_turn(next, false);
                }
            }
            _ => {
                let next = self.advance(p, 1);
                self.begin_turn(next, false);
            }
        }
    }

    fn challenge(&mut self) {
        let Some(ctx) = self.wd4.take() else { return };
        let victim = self.cur;
        let guilty = !wd4_allowed(
            self.opts.wd4_restriction,
            &ctx.hand,
            ctx.prev_color,
            ctx.prev_top,
        );
        self.public(Event::Challenge {
            seat: victim,
            offender: ctx.offender,
            guilty,
        });
        self.log(
            Visibility::only(victim),
            Event::Shown {
                seat: victim,
                offender: ctx.offender,
                cards: counts_to_vec(&ctx.hand),
            },
        );
        self.set_known(victim, ctx.offender, &ctx.hand);
        if guilty {
            self.draw_cards(ctx.offender, 4);
            self.begin_turn(victim, false);
        } else {
            // Not guilty proves the offender held no restricted card then; cards drawn
            // since (an UNO penalty) are unknown.
            let since = self.hand_len[ctx.offender as usize].saturating_sub(ctx.hand_len);
            self.set_void(ctx.offender, ctx.prev_color, ctx.prev_top, since);
            self.draw_cards(victim, 6);
            let next = self.advance(victim, 1);
            self.begin_turn(next, false);
        }
    }

    fn going_out(&mut self, p: Seat, card: UnoCard) {
        self.wd4 = None;
        if card.is_draw() {
            // docs/rules/uno.md#going-out-and-scoring / docs/rules/uno.md#stacking: the next player
            // still draws, and the cards count.
            let victim = self.advance(p, 1);
            let k = if self.opts.stacking != Stacking::None {
                self.pending
            } else {
                card.draw_amount()
            };
            self.pending = 0;
            self.draw_cards(victim, k as usize);
        }
        self.end_hand(Some(p));
    }

    /// A turn boundary (docs/rules/uno.md#turns): the next `Turn`/`PenaltyTurn`, unless the hand
    /// ends here.
    fn begin_turn(&mut self, seat: Seat, penalty: bool) {
        self.turns += 1;
        if self.turns > self.opts.turn_limit {
            self.finish_aborted(format!(
                "aborted: hand {} reached the turn limit of {}",
                self.hand_no, self.opts.turn_limit
            ));
            return;
        }
        if self.opts.deck_exhaustion == DeckExhaustion::EndHand && self.draw.is_empty() {
            self.end_hand(None);
            return;
        }
        self.cur = seat;
        self.phase = if penalty {
            Phase::PenaltyTurn
        } else {
            Phase::Turn
        };
    }

    // ----- drawing (docs/rules/uno.md#drawing-and-the-empty-pile)
    // -------------------------------------------------------------

    /// Moves up to `k` cards from the draw pile into `seat`'s hand, reshuffling the discard
    /// pile when the rules allow; appends them to `got`.
    fn take(&mut self, seat: Seat, k: usize, got: &mut Vec<UnoCard>) {
        for _ in 0..k {
            if self.draw.is_empty() && !self.refill() {
                break;
            }
            let Some(c) = self.draw.pop() else { break };
            self.add_card(seat, c);
            got.push(c);
        }
    }

    /// `deck_exhaustion=Reshuffle`: the discard pile except its top becomes the draw pile.
    fn refill(&mut self) -> bool {
        if self.opts.deck_exhaustion != DeckExhaustion::Reshuffle || self.discard.len() <= 1 {
            return false;
        }
        let Some(top) = self.discard.pop() else {
            return false;
        };
        let mut pile = std::mem::replace(&mut self.discard, Vec::with_capacity(108));
        self.discard.push(top);
        self.rng.shuffle(&mut pile);
        let cards = pile.len() as u16;
        self.draw = pile;
        self.public(Event::Reshuffle { cards });
        true
    }

    /// A draw of `k` cards by `seat` with its events; returns how many were drawn.
    fn draw_cards(&mut self, seat: Seat, k: usize) -> usize {
        let mut got = Vec::with_capacity(k);
        self.take(seat, k, &mut got);
        self.emit_draw(seat, &got);
        got.len()
    }

    fn emit_draw(&mut self, seat: Seat, got: &[UnoCard]) {
        self.public(Event::Draw {
            seat,
            count: got.len() as u8,
        });
        if !got.is_empty() && self.events.is_on() {
            self.log(
                Visibility::only(seat),
                Event::Drew {
                    seat,
                    cards: got.to_vec(),
                },
            );
        }
        self.caps_after_draw(seat, got.len());
    }

    // ----- derived public knowledge: caps and shown hands -----------------------------

    fn normalize_caps(&mut self, seat: Seat) {
        let len = self.hand_len[seat as usize];
        for c in self.caps[seat as usize].iter_mut() {
            if *c != NO_CAP && *c >= len {
                *c = NO_CAP;
            }
        }
    }

    fn caps_after_draw(&mut self, seat: Seat, m: usize) {
        for c in self.caps[seat as usize].iter_mut() {
            if *c != NO_CAP {
                *c = (*c as usize + m).min(NO_CAP as usize - 1) as u8;
            }
        }
        self.normalize_caps(seat);
    }

    fn caps_after_play(&mut self, seat: Seat, card: UnoCard) {
        if let Some((cg, kg)) = groups(card) {
            let caps = &mut self.caps[seat as usize];
            for g in [cg, kg] {
                if caps[g] != NO_CAP {
                    caps[g] = caps[g].saturating_sub(1);
                }
            }
        }
        self.normalize_caps(seat);
    }

    /// `seat` is proved to hold at most `since` cards of the groups the WD4 restriction
    /// names (colour `cc`; with `NoMatchingCard` also the top's number/symbol).
    fn set_void(&mut self, seat: Seat, cc: Color, top: UnoCard, since: u8) {
        let caps = &mut self.caps[seat as usize];
        let cg = cc as usize;
        caps[cg] = caps[cg].min(since);
        if self.opts.wd4_restriction == Wd4Restriction::NoMatchingCard
            && let Some(k) = top.kind_index()
        {
            let kg = 4 + k as usize;
            caps[kg] = caps[kg].min(since);
        }
        self.normalize_caps(seat);
    }

    fn set_known(&mut self, viewer: Seat, holder: Seat, cards: &[u8; FACES]) {
        self.known
            .retain(|k| !(k.viewer == viewer && k.holder == holder));
        let len: u8 = cards.iter().sum();
        if len > 0 {
            self.known.push(KnownHand {
                viewer,
                holder,
                cards: *cards,
                len,
            });
        }
    }

    fn known_after_play(&mut self, holder: Seat, card: UnoCard) {
        if self.known.is_empty() {
            return;
        }
        for k in self.known.iter_mut().filter(|k| k.holder == holder) {
            let c = &mut k.cards[card.0 as usize];
            if *c > 0 {
                *c -= 1;
                k.len -= 1;
            }
        }
        self.known.retain(|k| k.len > 0);
    }

    // ----- hands: setup, end, scoring (docs/rules/uno.md#setup,
    // docs/rules/uno.md#going-out-and-scoring) ----------------------------------

    /// Deals a hand: from `deck` (top first) when given, else from a fresh shuffle.
    pub(crate) fn start_hand(&mut self, deck_order: Option<Vec<UnoCard>>) {
        let n = self.n as usize;
        for h in self.hands.iter_mut() {
            *h = [0; FACES];
        }
        self.hand_len.iter_mut().for_each(|l| *l = 0);
        self.draw.clear();
        self.discard.clear();
        self.known.clear();
        self.caps.iter_mut().for_each(|c| *c = [NO_CAP; GROUPS]);
        self.wd4 = None;
        self.pending = 0;
        self.direction = 1;
        self.turns = 0;
        self.color = Color::Red;
        let d = match deck_order {
            Some(d) => d,
            None => {
                let mut d = deck();
                self.rng.shuffle(&mut d);
                d
            }
        };
        self.public(Event::HandStart {
            hand_no: self.hand_no,
            dealer: self.dealer,
        });
        let dealt = (n * self.opts.hand_size as usize).min(d.len());
        for (k, &c) in d[..dealt].iter().enumerate() {
            let seat = ((self.dealer as usize + 1 + k) % n) as Seat;
            self.add_card(seat, c);
        }
        for s in 0..n as Seat {
            let cards = self.hand_vec(s);
            self.log(Visibility::only(s), Event::Hand { seat: s, cards });
        }
        self.draw = d[dealt..].iter().rev().copied().collect();
        // The start card (docs/rules/uno.md#setup step 3).
        let redraw_wild = self.opts.start_wild == StartWild::Redraw;
        let returnable = move |c: UnoCard| c.is_wd4() || (redraw_wild && c == UnoCard::WILD);
        let start = loop {
            let Some(c) = self.draw.pop() else {
                self.finish_aborted("aborted: no card left for the start card".into());
                return;
            };
            self.public(Event::StartCard { card: c });
            // Decision: if every card left in the draw pile would also have to go back, the
            // card stays as the start card and counts as a plain Wild (no draw).
            if returnable(c) && self.draw.iter().any(|&x| !returnable(x)) {
                self.public(Event::StartReturned { card: c });
                self.draw.push(c);
                self.rng.shuffle(&mut self.draw);
                continue;
            }
            break c;
        };
        self.discard.push(start);
        let left = ((self.dealer as usize + 1) % n) as Seat;
        match start.kind() {
            Some(Kind::Wild) | Some(Kind::WildDrawFour) | None => {
                self.cur = left;
                self.phase = Phase::ChooseStartColor;
            }
            Some(kind) => {
                self.color = start.color().unwrap_or(Color::Red);
                match kind {
                    Kind::Skip => {
                        self.public(Event::Skipped { seat: left });
                        let next = self.advance(left, 1);
                        self.begin_turn(next, false);
                    }
                    Kind::DrawTwo => {
                        // No stacking on a start card [ENG].
                        self.draw_cards(left, 2);
                        self.public(Event::Skipped { seat: left });
                        let next = self.advance(left, 1);
                        self.begin_turn(next, false);
                    }
                    Kind::Reverse => {
                        self.direction = -1;
                        self.public(Event::Reversed { direction: -1 });
                        let first = if self.n == 2
                            || self.opts.start_reverse == StartReverse::DealerStarts
                        {
                            self.dealer
                        } else {
                            self.advance(self.dealer, 1)
                        };
                        self.begin_turn(first, false);
                    }
                    _ => self.begin_turn(left, false),
                }
            }
        }
    }

    /// The hand ends: `Some(p)` went out, `None` = the draw pile ran out (`EndHand`).
    fn end_hand(&mut self, out: Option<Seat>) {
        let n = self.n as usize;
        let values: Vec<i64> = (0..n as Seat).map(|s| self.hand_value(s)).collect();
        let winners: Vec<Seat> = match out {
            Some(w) => vec![w],
            None => {
                let best = values.iter().copied().min().unwrap_or(0);
                let fewest = (0..n)
                    .filter(|&s| values[s] == best)
                    .map(|s| self.hand_len[s])
                    .min()
                    .unwrap_or(0);
                (0..n)
                    .filter(|&s| values[s] == best && self.hand_len[s] == fewest)
                    .map(|s| s as Seat)
                    .collect()
            }
        };
        let unique = winners.len() == 1;
        // The texts and the shown hands go only into the event: a simulation that records
        // none skips them (they were a tenth of `uno/search`'s playout instructions).
        let text = self.events.is_on();
        let how = || {
            let names = seat_list(&winners);
            match out {
                Some(w) => format!("P{w} goes out"),
                None if unique => format!("draw pile empty: {names} has the lowest hand"),
                None => format!("draw pile empty: {names} share the lowest hand"),
            }
        };
        let summary = match self.opts.scoring {
            Scoring::WinnerTakesAll | Scoring::SingleHand => {
                // docs/rules/uno.md#going-out-and-scoring [ENG]: shared EndHand winners score
                // nothing. Decision: SingleHand scores the hand like WinnerTakesAll.
                if unique {
                    let w = winners[0] as usize;
                    let gain: i64 = (0..n).filter(|&s| s != w).map(|s| values[s]).sum();
                    self.scores[w] += gain;
                    text.then(|| format!("{} and scores {gain}", how()))
                } else {
                    text.then(|| format!("{}; nobody scores", how()))
                }
            }
            Scoring::CumulativePenalty => {
                for (score, v) in self.scores.iter_mut().zip(&values) {
                    *score += v;
                }
                text.then(|| format!("{}; everyone adds his hand value", how()))
            }
        };
        if let Some(summary) = summary {
            let hands = (0..n as Seat).map(|s| self.hand_vec(s)).collect();
            self.public(Event::HandEnd {
                hands,
                scores: self.scores.clone(),
                summary,
            });
        }
        let target = self.opts.target_score as i64;
        let results: Option<Vec<SeatResult>> = match self.opts.scoring {
            Scoring::SingleHand => Some(
                (0..n as Seat)
                    .map(|s| match (winners.contains(&s), unique) {
                        (true, true) => SeatResult::Win,
                        (true, false) => SeatResult::Draw,
                        _ => SeatResult::Loss,
                    })
                    .collect(),
            ),
            Scoring::WinnerTakesAll => {
                let best = self.scores.iter().copied().max().unwrap_or(0);
                (best >= target).then(|| share_results(&self.scores, best))
            }
            Scoring::CumulativePenalty => {
                let reached = self.scores.iter().any(|&s| s >= target);
                let low = self.scores.iter().copied().min().unwrap_or(0);
                reached.then(|| share_results(&self.scores, low))
            }
        };
        match results {
            Some(r) => self.finish(r, false),
            None if self.hand_no >= MAX_HANDS => {
                self.finish_aborted(format!("aborted: no winner after {MAX_HANDS} hands"))
            }
            None => {
                self.hand_no += 1;
                self.dealer = (self.dealer + 1) % self.n;
                self.start_hand(None);
            }
        }
    }

    fn finish(&mut self, results: Vec<SeatResult>, aborted: bool) {
        let text = self.events.is_on();
        let outcome = make_outcome(results, self.scores.clone(), aborted, text);
        if text {
            self.public(Event::GameEnd {
                summary: outcome.summary.clone(),
            });
        }
        self.outcome = Some(outcome);
        self.phase = Phase::Over;
    }

    fn finish_aborted(&mut self, why: String) {
        let results = vec![SeatResult::Draw; self.n as usize];
        let mut outcome = make_outcome(results, self.scores.clone(), true, true);
        outcome.summary = why;
        self.public(Event::GameEnd {
            summary: outcome.summary.clone(),
        });
        self.outcome = Some(outcome);
        self.phase = Phase::Over;
    }

    // ----- invariants -----------------------------------------------------------------

    #[allow(clippy::needless_range_loop)]
    pub(crate) fn invariants(&self) -> Result<(), String> {
        let n = self.n as usize;
        if self.hands.len() != n || self.hand_len.len() != n || self.caps.len() != n {
            return Err("per-seat tables have the wrong length".into());
        }
        let mut total = [0u32; FACES];
        for s in 0..n {
            let sum: u32 = self.hands[s].iter().map(|&k| k as u32).sum();
            if sum != self.hand_len[s] as u32 {
                return Err(format!(
                    "P{s}: hand_len {} but {sum} cards",
                    self.hand_len[s]
                ));
            }
            for (t, &k) in total.iter_mut().zip(&self.hands[s]) {
                *t += k as u32;
            }
        }
        for c in self.draw.iter().chain(self.discard.iter()) {
            if !c.is_valid() {
                return Err(format!("invalid face {} in a pile", c.0));
            }
            total[c.0 as usize] += 1;
        }
        let want = deck_counts();
        for (f, (&t, &w)) in total.iter().zip(&want).enumerate() {
            if t != w as u32 {
                return Err(format!(
                    "{t} copies of {} in play, the deck has {w}",
                    UnoCard(f as u8)
                ));
            }
        }
        if self.discard.is_empty() {
            return Err("empty discard pile".into());
        }
        if self.direction != 1 && self.direction != -1 {
            return Err(format!("direction {}", self.direction));
        }
        if (self.phase == Phase::Over) != self.outcome.is_some() {
            return Err("outcome and phase Over disagree".into());
        }
        if self.phase == Phase::Over {
            return Ok(());
        }
        if self.cur as usize >= n {
            return Err(format!("seat to act {} out of range", self.cur));
        }
        if let Some(c) = self.top().color()
            && self.phase != Phase::ChooseStartColor
            && c != self.color
        {
            return Err(format!(
                "top {} but current colour {}",
                self.top(),
                self.color
            ));
        }
        if self.opts.stacking == Stacking::None && self.pending != 0 {
            return Err("pending penalty without stacking".into());
        }
        if self.phase == Phase::PenaltyTurn && self.pending == 0 {
            return Err("penalty turn with nothing pending".into());
        }
        match self.phase {
            Phase::AfterDraw { drawn }
                if !drawn.is_valid() || self.hands[self.cur as usize][drawn.0 as usize] == 0 =>
            {
                return Err(format!("drawn card {drawn} is not in the hand"));
            }
            Phase::UnoCatch { offender, asked }
                if offender as usize >= n || asked as usize + 1 >= n || offender == self.cur =>
            {
                return Err("bad UNO catch window".into());
            }
            Phase::Wd4Challenge if self.wd4.as_ref().map(|w| w.victim) != Some(self.cur) => {
                return Err("WD4 challenge without its context".into());
            }
            _ => {}
        }
        if let Some(w) = &self.wd4 {
            let h = &self.hands[w.offender as usize];
            if (0..FACES).any(|f| w.hand[f] > h[f]) {
                return Err("WD4 snapshot is not part of the offender's hand".into());
            }
            if !matches!(self.phase, Phase::Wd4Challenge | Phase::UnoCatch { .. }) {
                return Err("stale WD4 context".into());
            }
        }
        for k in &self.known {
            let h = &self.hands[k.holder as usize];
            if (0..FACES).any(|f| k.cards[f] > h[f]) {
                return Err(format!(
                    "P{} knows cards that P{} does not hold",
                    k.viewer, k.holder
                ));
            }
        }
        for s in 0..n {
            // Most seats have no proved bound at all: nothing to count.
            if self.caps[s].iter().all(|&c| c == NO_CAP) {
                continue;
            }
            let mut g = [0u8; GROUPS];
            for f in 0..52u8 {
                if let Some((cg, kg)) = groups(UnoCard(f)) {
                    g[cg] += self.hands[s][f as usize];
                    g[kg] += self.hands[s][f as usize];
                }
            }
            for i in 0..GROUPS {
                if g[i] > self.caps[s][i] {
                    return Err(format!(
                        "P{s} holds {} cards of cap group {i}, proved at most {}",
                        g[i], self.caps[s][i]
                    ));
                }
            }
        }
        // That the seat to act has a legal action is checked by `check::play_checked` in
        // every state it reaches (a list per call here was a tenth of a soak's time).
        Ok(())
    }
}

/// `Win` for the seats whose score equals `best` (shared → `Draw`), `Loss` for the rest.
fn share_results(scores: &[i64], best: i64) -> Vec<SeatResult> {
    let k = scores.iter().filter(|&&s| s == best).count();
    scores
        .iter()
        .map(|&s| match (s == best, k == 1) {
            (true, true) => SeatResult::Win,
            (true, false) => SeatResult::Draw,
            _ => SeatResult::Loss,
        })
        .collect()
}

pub(crate) fn seat_list(seats: &[Seat]) -> String {
    let v: Vec<String> = seats.iter().map(|s| format!("P{s}")).collect();
    match v.len() {
        0 => String::new(),
        1 => v[0].clone(),
        k => format!("{} and {}", v[..k - 1].join(", "), v[k - 1]),
    }
}

/// The outcome with its one-line summary (a function of results and scores only, so that
/// `determinize` rebuilds it from an observation); without `text`, for a simulation that
/// records no events, the summary is left empty.
pub(crate) fn make_outcome(
    results: Vec<SeatResult>,
    scores: Vec<i64>,
    aborted: bool,
    text: bool,
) -> Outcome {
    if !text {
        return Outcome {
            results,
            scores,
            aborted,
            summary: String::new(),
        };
    }
    let winners: Vec<Seat> = (0..results.len())
        .filter(|&s| results[s] != SeatResult::Loss)
        .map(|s| s as Seat)
        .collect();
    let shared = results.contains(&SeatResult::Draw);
    let who = seat_list(&winners);
    let scores_txt: Vec<String> = scores
        .iter()
        .enumerate()
        .map(|(s, v)| format!("P{s} {v}"))
        .collect();
    let summary = if aborted {
        "aborted by the engine's safety limit".to_string()
    } else if shared {
        format!("{who} share the win (scores: {})", scores_txt.join(", "))
    } else {
        format!("{who} wins (scores: {})", scores_txt.join(", "))
    };
    Outcome {
        results,
        scores,
        aborted,
        summary,
    }
}
