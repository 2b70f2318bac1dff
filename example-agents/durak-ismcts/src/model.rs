//! The opponent model (two players, no transfer, one card led at a time): what the
//! opponent's own moves say about the cards it does not hold, and worlds whose opponent hand
//! respects it.
//!
//! The model is the base behaviour of `durak-common` (`durak/cheapest`, `durak/trump-tosser`,
//! and `durak/fuzzy`'s beats): a defender covers the first open card with the cheapest card
//! that beats it (a higher card of its suit, else the cheapest trump) and takes only when it
//! cannot cover the whole table; a thrower passes only with no plain card of a table rank; a
//! leader leads its cheapest card (plain before trump). Each move so read gives a [`Fact`],
//! "of the opponent's cards not seen by everybody, at most `free` are in `cards`": `free` is 0
//! when the move is made and grows by what the talon lost at every refill since (an upper
//! bound of what the opponent drew). A card the opponent later plays from its unseen part
//! uses one `free` up; if none is left the model was wrong about that kind of move, and every
//! fact of the kind is dropped and no more are derived (`durak/random-lead` leads at random,
//! `durak/fuzzy` takes and passes by its tables). Known cards check a fact when it is made.
//!
//! It is a belief, not a rule: [`Dealer::deal`] deals the opponent's unseen part to meet the
//! facts (by rejection, then greedily), and a world that cannot meet them is the plain deal.
//!
//! What is read, between two of our decisions (the agent sees only its own turns, so it reads
//! the table's changes): the opponent's beats and throw-ins, its `Take`, its lead of a new
//! bout, and its pass at the end of a bout that we defended (after our beat or our take).

use croupier_sdk::durak::{Action, Durak, Observation, Options};
use croupier_sdk::{Card, CardSet, Game, GameRng, Suit};
use durak_common::cheap_key;

/// What move a fact was read from (each kind is trusted or dropped as a whole).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Beat = 0,
    Take = 1,
    Pass = 2,
    Lead = 3,
}

/// "Of the opponent's cards nobody has seen, at most `free` are in `cards`."
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    pub cards: CardSet,
    pub free: u8,
    pub kind: Kind,
}

/// Rejection tries of a world before the greedy deal.
const TRIES: u32 = 16;

/// Whether the model reads these rules: two players, no transfer, single-card leads.
pub fn applies(opts: &Options) -> bool {
    opts.num_players == 2
        && !opts.transfer
        && !opts.transfer_by_showing_trump
        && !opts.multi_card_lead
}

/// The cards that would beat `attack` (trump `trump`) in the whole deck.
fn beaters(attack: Card, trump: Suit) -> CardSet {
    let higher = |suit: Suit, above: u8| {
        CardSet::from_cards(CardSet::suit(suit).iter().filter(|c| c.rank() > above))
    };
    let mut s = higher(attack.suit(), attack.rank());
    if attack.suit() != trump {
        s = s.union(CardSet::suit(trump));
    }
    s
}

/// The cards a base defender would have played instead of `defence` on `attack`: cards of
/// the attack's suit between the two, or, for a trump on a plain card, any higher card of the
/// attack's suit and any lower trump.
fn cheaper_cover(attack: Card, defence: Card, trump: Suit) -> CardSet {
    let between = |suit: Suit, lo: u8, hi: u8| {
        CardSet::from_cards(
            CardSet::suit(suit)
                .iter()
                .filter(|c| c.rank() > lo && c.rank() < hi),
        )
    };
    if defence.suit() == attack.suit() {
        between(attack.suit(), attack.rank(), defence.rank())
    } else {
        between(attack.suit(), attack.rank(), 15).union(between(trump, 0, defence.rank()))
    }
}

/// The cards on `table`.
fn cards_on(table: &[(Card, Option<Card>)]) -> CardSet {
    CardSet::from_cards(
        table
            .iter()
            .flat_map(|(a, d)| std::iter::once(*a).chain(*d)),
    )
}

/// Every card of the ranks on `table` (what may be thrown in).
fn of_ranks(table: &[(Card, Option<Card>)]) -> CardSet {
    CardSet::ranks(cards_on(table).iter().map(|c| c.rank()))
}

/// The table as it stood after our move (what the opponent saw next).
#[derive(Clone, Debug, Default)]
struct After {
    bout: u16,
    table: Vec<(Card, Option<Card>)>,
    taking: bool,
    we_defend: bool,
    /// Our action ended our part of the bout: a beat of the last open card, or a take.
    our_beat: bool,
    our_take: bool,
    talon: u8,
    hand: CardSet,
    limit: u8,
    attacks: usize,
    opp_known: CardSet,
    opp_size: u8,
}

/// The opponent model of one game (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct Model {
    facts: Vec<Fact>,
    broken: [bool; 4],
    after: Option<After>,
    /// The opponent threw in a trump (`durak/cheapest` never does).
    pub throws_trumps: bool,
    /// Plain cards the opponent threw in.
    pub plain_throw_ins: u32,
}

/// The chance that `durak/trump-tosser` throws in a plain card where it may throw in: about
/// the share of plain cards in a hand (a quarter of the deck is trump).
pub const TOSSER_PLAIN: f64 = 0.75;

impl Model {
    /// The facts now believed.
    pub fn facts(&self) -> &[Fact] {
        &self.facts
    }

    /// The chance that the opponent plays as `durak/trump-tosser` rather than as
    /// `durak/cheapest`, from an even prior: certain once it threw in a trump, less likely
    /// with every plain card it threw in instead (the odds fall by [`TOSSER_PLAIN`]); even
    /// once a move showed that it plays neither way.
    pub fn tosser_chance(&self) -> f64 {
        if self.throws_trumps {
            return 1.0;
        }
        if self.broken.iter().any(|b| *b) {
            return 0.5;
        }
        let odds = TOSSER_PLAIN.powi(self.plain_throw_ins.min(1000) as i32);
        odds / (odds + 1.0)
    }

    fn add(&mut self, kind: Kind, cards: CardSet, opp_known: CardSet) {
        if self.broken[kind as usize] {
            return;
        }
        if !cards.intersect(opp_known).is_empty() {
            // It held such a card openly and still moved so: not the base behaviour.
            self.drop_kind(kind);
            return;
        }
        if !cards.is_empty() {
            self.facts.push(Fact {
                cards,
                free: 0,
                kind,
            });
        }
    }

    fn drop_kind(&mut self, kind: Kind) {
        self.broken[kind as usize] = true;
        self.facts.retain(|f| f.kind != kind);
    }

    /// The opponent played `card` from its unseen part: it uses up one `free` of every fact
    /// that holds it, or breaks the fact's kind.
    fn played_unseen(&mut self, card: Card) {
        let mut broke = Vec::new();
        for f in &mut self.facts {
            if f.cards.contains(card) {
                if f.free == 0 {
                    broke.push(f.kind);
                } else {
                    f.free -= 1;
                }
            }
        }
        for k in broke {
            self.drop_kind(k);
        }
    }

    /// Reads what the opponent did since our last decision; call at every decision of ours,
    /// forced ones included, before [`Model::dealer`].
    pub fn observe(&mut self, opts: &Options, obs: &Observation) {
        if !applies(opts) || obs.players != 2 || obs.seat > 1 {
            return;
        }
        let me = obs.seat;
        let opp = 1 - me;
        let trump = obs.trump_suit;
        let opp_known = obs.known.get(opp as usize).copied().unwrap_or_default();
        let mut base: Vec<(Card, Option<Card>)> = Vec::new();
        let mut base_taking = false;
        // What everybody knew of its hand before these moves.
        let mut known_before = opp_known;
        if let Some(after) = self.after.take() {
            known_before = after.opp_known;
            if after.taking && after.bout != obs.bout && !after.we_defend {
                known_before = known_before.union(cards_on(&after.table));
            }
            if after.bout == obs.bout {
                base = after.table;
                base_taking = after.taking;
            } else {
                // The bout we last saw ended. If we took, the opponent may have thrown in
                // cards that are now in our hand, among what we drew.
                let thrown_at_most = if after.our_take {
                    let new = obs.hand.minus(after.hand).minus(cards_on(&after.table));
                    new.intersect(of_ranks(&after.table)).len()
                } else {
                    0
                };
                // If we defended it and it ended without our move, the opponent passed as
                // thrower. A thrower may add cards while the defender holds some to beat
                // them with (a taker's limit is in `limit`).
                let room = after.our_take || !after.hand.is_empty();
                if after.we_defend
                    && (after.our_beat || after.our_take)
                    && room
                    && after.attacks + thrown_at_most < usize::from(after.limit)
                {
                    let cards = of_ranks(&after.table).minus(CardSet::suit(trump));
                    // What it held openly when it passed: not what it threw in since.
                    self.add(Kind::Pass, cards, after.opp_known.minus(obs.hand));
                }
                // The refill: what the opponent holds now and has led, less what it held at
                // the end of the bout (plus any throw-ins of its onto our take); at most what
                // the talon lost.
                let led = obs.attackers.iter().filter(|&&s| s == opp).count();
                let took = if after.taking && !after.we_defend {
                    cards_on(&after.table).len()
                } else {
                    0
                };
                let size = obs.hand_sizes.get(opp as usize).copied().unwrap_or(0);
                let drawn = (usize::from(size) + led + thrown_at_most)
                    .saturating_sub(usize::from(after.opp_size) + took)
                    .min(usize::from(after.talon.saturating_sub(obs.talon)));
                let drawn = drawn as u8;
                for f in &mut self.facts {
                    f.free = f.free.saturating_add(drawn);
                }
            }
        }
        // The table's changes since our move, in slot order.
        for (i, &(attack, defence)) in obs.table.iter().enumerate() {
            let by = obs.attackers.get(i).copied().unwrap_or(me);
            let before = base.get(i);
            if by == opp && before.is_none() {
                if !known_before.contains(attack) {
                    self.played_unseen(attack);
                }
                if i > 0 {
                    if attack.suit() == trump {
                        self.throws_trumps = true;
                    } else {
                        self.plain_throw_ins += 1;
                    }
                } else {
                    // Its lead: nothing cheaper in its hand.
                    let cheaper = CardSet::from_cards(
                        (0..52)
                            .filter_map(Card::from_code)
                            .filter(|c| cheap_key(*c, trump) < cheap_key(attack, trump)),
                    );
                    self.add(Kind::Lead, cheaper, opp_known);
                }
            }
            let newly_covered = matches!(before, None | Some((_, None)));
            if let (Some(d), true) = (defence, newly_covered)
                && by == me
            {
                if !known_before.contains(d) {
                    self.played_unseen(d);
                }
                self.add(Kind::Beat, cheaper_cover(attack, d, trump), opp_known);
            }
        }
        if obs.taking && !base_taking && obs.defender == opp {
            let open: Vec<Card> = obs
                .table
                .iter()
                .filter(|(_, d)| d.is_none())
                .map(|(a, _)| *a)
                .collect();
            if let [attack] = open[..] {
                self.add(Kind::Take, beaters(attack, trump), opp_known);
            }
        }
        // A fact that allows as many cards as could be there says nothing.
        let unseen = obs.unseen;
        self.facts
            .retain(|f| usize::from(f.free) < f.cards.intersect(unseen).len());
    }

    /// Records our move (call with the action returned).
    pub fn acted(&mut self, opts: &Options, obs: &Observation, action: Action) {
        if !applies(opts) || obs.players != 2 || obs.seat > 1 {
            return;
        }
        let me = obs.seat;
        let mut table = obs.table.clone();
        let mut taking = obs.taking;
        let (mut our_beat, mut our_take) = (false, false);
        match action {
            Action::Lead(c) | Action::ThrowIn(c) => table.push((c, None)),
            Action::Beat { slot, card } => {
                if let Some(p) = table.get_mut(slot as usize) {
                    p.1 = Some(card);
                }
                our_beat = table.iter().all(|(_, d)| d.is_some());
            }
            Action::Take => {
                taking = true;
                our_take = true;
            }
            _ => {}
        }
        let attacks = table.len();
        let opp = 1 - me;
        self.after = Some(After {
            bout: obs.bout,
            table,
            taking,
            we_defend: obs.defender == me,
            our_beat,
            our_take,
            talon: obs.talon,
            hand: match action {
                Action::Lead(c) | Action::ThrowIn(c) | Action::Beat { card: c, .. } => {
                    let mut h = obs.hand;
                    h.remove(c);
                    h
                }
                _ => obs.hand,
            },
            limit: obs.limit,
            attacks,
            opp_known: obs.known.get(opp as usize).copied().unwrap_or_default(),
            opp_size: obs.hand_sizes.get(opp as usize).copied().unwrap_or(0),
        });
    }

    /// The worlds of one decision ([`Dealer::deal`]): what every world shares is worked out
    /// once, not per world.
    pub fn dealer<'a>(&'a self, opts: &'a Options, obs: &'a Observation) -> Dealer<'a> {
        let opp = usize::from(1 - obs.seat.min(1));
        let known = obs.known.get(opp).copied().unwrap_or_default();
        let size = usize::from(obs.hand_sizes.get(opp).copied().unwrap_or(0));
        let pool: Vec<Card> = obs.unseen.iter().collect();
        let need = size.saturating_sub(known.len());
        // Shaped worlds need facts, two players and a hidden part the unseen cards can fill.
        let shaped = !self.facts.is_empty()
            && obs.players == 2
            && obs.seat <= 1
            && need > 0
            && need <= pool.len()
            && obs.known.len() > opp;
        Dealer {
            facts: &self.facts,
            opts,
            obs,
            opp,
            known,
            need,
            order: pool.clone(),
            pool,
            dealt: 0,
            // The low-trump inference is one more fact.
            low: Fact {
                cards: obs.low_trumps.intersect(obs.unseen),
                free: obs.low_trump_room.get(opp).copied().unwrap_or(0),
                kind: Kind::Beat,
            },
            scratch: shaped.then(|| obs.clone()),
        }
    }
}

/// Deals the worlds of one decision (see [`Model::dealer`]).
pub struct Dealer<'a> {
    facts: &'a [Fact],
    opts: &'a Options,
    obs: &'a Observation,
    opp: usize,
    known: CardSet,
    need: usize,
    pool: Vec<Card>,
    order: Vec<Card>,
    low: Fact,
    /// The observation that each shaped world rewrites (`None`: the plain deal).
    scratch: Option<Observation>,
    /// Cards shuffled or scanned in shaping the worlds so far (each try's and the greedy
    /// pass's), for the agent's cost model.
    pub dealt: u64,
}

impl Dealer<'_> {
    fn meets(&self, hand: CardSet) -> bool {
        self.facts
            .iter()
            .chain(std::iter::once(&self.low))
            .all(|f| hand.intersect(f.cards).len() <= usize::from(f.free))
    }

    /// A world for the search: [`Game::determinize`] with the opponent's unseen part dealt to
    /// meet the facts when a deal can.
    pub fn deal(&mut self, rng: &mut GameRng) -> Durak {
        if self.scratch.is_none() {
            return Durak::determinize(self.opts, self.obs, rng);
        }
        let need = self.need;
        self.order.copy_from_slice(&self.pool);
        let mut found = None;
        for _ in 0..TRIES {
            self.dealt += self.order.len() as u64;
            rng.shuffle(&mut self.order);
            let hand = CardSet::from_cards(self.order[..need].iter().copied());
            if self.meets(hand) {
                found = Some(hand);
                break;
            }
        }
        if found.is_none() {
            // Greedy: take the cards in random order while every fact still allows them.
            self.dealt += self.order.len() as u64;
            let mut hand = CardSet::EMPTY;
            for &c in &self.order {
                if hand.len() == need {
                    break;
                }
                let mut with = hand;
                with.insert(c);
                if self.meets(with) {
                    hand = with;
                }
            }
            if hand.len() == need {
                found = Some(hand);
            }
        }
        let (Some(hand), Some(o)) = (found, self.scratch.as_mut()) else {
            return Durak::determinize(self.opts, self.obs, rng);
        };
        o.known[self.opp] = self.known.union(hand);
        o.unseen = self.obs.unseen.minus(hand);
        Durak::determinize(self.opts, o, rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use durak_common::{CHEAPEST, Style, TRUMP_TOSSER, base_decide_obs};

    /// Seat 0 plays the base behaviour and keeps the model; at each of its decisions every
    /// fact is checked against seat 1's true hand. Returns (facts checked, kinds broken).
    fn check(opp: u8, games: u64) -> (usize, [u32; 4], [usize; 4]) {
        let opts = Options::classic(2);
        let mut checked = 0;
        let mut broken = [0u32; 4];
        let mut by_kind = [0usize; 4];
        let mut legal = Vec::new();
        for seed in 0..games {
            let mut g = Durak::new(&opts, seed).unwrap();
            let mut m = Model::default();
            let mut rng = GameRng::new(seed + 77);
            while let Some(p) = g.to_act() {
                g.legal_actions(&mut legal);
                let obs = g.observe(p);
                let style = if p == 0 { CHEAPEST } else { opp };
                if p == 0 {
                    m.observe(&opts, &obs);
                    let hidden = g.hand(1).minus(obs.known[1]);
                    for f in m.facts() {
                        let n = hidden.intersect(f.cards).len();
                        assert!(
                            n <= usize::from(f.free),
                            "seed {seed}: {f:?} but its unseen cards are {hidden:?}"
                        );
                        checked += 1;
                        by_kind[f.kind as usize] += 1;
                    }
                }
                let a = base_decide_obs(Style::from_code(style), &obs, &legal, &mut rng);
                if p == 0 {
                    m.acted(&opts, &obs, a);
                }
                g.apply(a).unwrap();
            }
            for (n, b) in broken.iter_mut().zip(m.broken) {
                *n += u32::from(b);
            }
        }
        (checked, broken, by_kind)
    }

    #[test]
    fn model_holds_against_the_base_behaviour() {
        for opp in [CHEAPEST, TRUMP_TOSSER] {
            let (checked, broken, by_kind) = check(opp, 200);
            eprintln!("style {opp}: {checked} facts checked {by_kind:?}, broken {broken:?}");
            assert_eq!(broken, [0; 4]);
            assert!(checked > 1000);
        }
    }
}
