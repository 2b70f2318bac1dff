/**
 * Durak (docs/rules/durak.md): actions, the observation, helpers and the agent base class; the
 * twin of `sdk/python/croupier/durak.py`.
 *
 *     import * as durak from './croupier/durak.js';
 *     class Cheapest extends durak.Agent {
 *       decide(obs, legal, ctx) {
 *         const card = durak.cheapest(obs.hand, obs.trumpSuit);
 *         return durak.choose(legal, card && durak.Action.lead(card));
 *       }
 *     }
 *     export const durakAgent = durak.export(Cheapest);
 */

import { Card, CardSet, Ctx, GameInfo, makeExport } from './index.js';

export const LEAD = 1;
export const LEAD_MANY = 2;
export const BEAT = 3;
export const TRANSFER = 4;
export const SHOW_TRUMP_TRANSFER = 5;
export const TAKE = 6;
export const THROW_IN = 7;
export const PASS = 8;

/** @type {Record<number, string>} */
const NAMES = { 1: 'lead', 2: 'lead', 3: 'beat', 4: 'transfer', 5: 'show', 6: 'take', 7: 'throw', 8: 'pass' };

/**
 * A Durak action: its code `kind | a << 8 | b << 16` (wit/v0.2/durak.wit), readable.
 * `toString()` is the Rust SDK's text (`beat 0 KS`, `take`).
 */
export class Action {
  /** @param {number} code */
  constructor(code) {
    /** @readonly */ this.code = code >>> 0;
  }
  /** @param {Card} card */
  static lead(card) {
    return new Action(LEAD | (card.code << 8));
  }
  /** Several cards of `rank` (a variant); `suits` is a bit mask. @param {number} rank @param {number} suits */
  static leadMany(rank, suits) {
    return new Action(LEAD_MANY | (rank << 8) | (suits << 16));
  }
  /** Cover the attack card in table `slot` with `card`. @param {number} slot @param {Card} card */
  static beat(slot, card) {
    return new Action(BEAT | (card.code << 8) | (slot << 16));
  }
  /** @param {Card} card */
  static transfer(card) {
    return new Action(TRANSFER | (card.code << 8));
  }
  /** @param {Card} card */
  static showTrumpTransfer(card) {
    return new Action(SHOW_TRUMP_TRANSFER | (card.code << 8));
  }
  /** @param {Card} card */
  static throwIn(card) {
    return new Action(THROW_IN | (card.code << 8));
  }
  /** @returns {number} */
  get kind() {
    return this.code & 0xff;
  }
  /** The card this action plays or shows (the lowest of a multiple lead), else null. @returns {Card | null} */
  get card() {
    const k = this.kind;
    if (k === LEAD || k === BEAT || k === TRANSFER || k === SHOW_TRUMP_TRANSFER || k === THROW_IN) {
      return Card.of((this.code >>> 8) & 0xff);
    }
    return k === LEAD_MANY ? this.cards.first() : null;
  }
  /** The table slot of a `beat`, else null. @returns {number | null} */
  get slot() {
    return this.kind === BEAT ? (this.code >>> 16) & 0xff : null;
  }
  /** The cards this action puts on the table (empty for take and pass). @returns {CardSet} */
  get cards() {
    if (this.kind === LEAD_MANY) {
      const rank = (this.code >>> 8) & 0xff;
      const suits = (this.code >>> 16) & 0xff;
      return CardSet.of([0, 1, 2, 3].filter((s) => (suits >> s) & 1).map((s) => Card.new(rank, s)));
    }
    const c = this.card;
    return c ? CardSet.of([c]) : new CardSet();
  }
  /** @param {Action | number | null | undefined} o */
  equals(o) {
    return o != null && (typeof o === 'number' ? o : o.code) === this.code;
  }
  toString() {
    const k = this.kind;
    if (k === BEAT) return `beat ${this.slot} ${this.card}`;
    if (k === LEAD_MANY) return `lead ${this.cards.cards().join(' ')}`;
    if (k === TAKE || k === PASS) return NAMES[k];
    return `${NAMES[k] ?? '?'} ${this.card}`;
  }
  static TAKE = new Action(TAKE);
  static PASS = new Action(PASS);
}

/** The phases, as the host names them. */
export const Phase = Object.freeze({ LEAD: 'lead', DEFEND: 'defend', THROW_IN: 'throw-in', OVER: 'over' });

/** One attack card of the bout, its defence (null while uncovered) and who played it. */
export class BoutCard {
  /** @param {Card} attack @param {Card | null} defence @param {number} attacker */
  constructor(attack, defence = null, attacker = 0) {
    this.attack = attack;
    this.defence = defence;
    this.attacker = attacker;
  }
  toString() {
    return `${this.attack}/${this.defence ?? '-'}`;
  }
}

/** What this seat knows about one seat (its own included). */
export class SeatView {
  /** @param {{handSize?: number, known?: CardSet, finish?: number, lowTrumpRoom?: number}} f */
  constructor(f = {}) {
    this.handSize = f.handSize ?? 0;
    /** Cards known to be in that seat's hand (perfect memory). */
    this.known = f.known ?? new CardSet();
    /** Finishing place (1 = out first); 0 = still in. */
    this.finish = f.finish ?? 0;
    /** How many `lowTrumps` the unknown part of that hand can hold at most. */
    this.lowTrumpRoom = f.lowTrumpRoom ?? 0;
  }
}

/** @param {number | bigint} m */
const set = (m) => CardSet.fromMask(m);

/**
 * Everything this seat may know, including what a player with perfect memory knows (the
 * fields of wit/v0.2/durak.wit in camelCase, cards as `Card`, sets as `CardSet`). Make one
 * by hand for a test with the fields you need: `new Observation({ hand: CardSet.of(['6C']),
 * trump: Card.parse('7S') })`.
 */
export class Observation {
  /** @param {Partial<Observation>} f */
  constructor(f = {}) {
    this.seat = f.seat ?? 0;
    /** The seat this decision is made for (differs from `seat` when playing for a partner). */
    this.actingFor = f.actingFor ?? 0;
    this.players = f.players ?? 2;
    this.teams = f.teams ?? false;
    /** @type {Card} */
    this.trump = f.trump ?? Card.of(0);
    /** Who took the trump card into hand; null while it lies under the talon. @type {number | null} */
    this.trumpHolder = f.trumpHolder ?? null;
    this.talon = f.talon ?? 0;
    this.hand = f.hand ?? new CardSet();
    /** Bit s set: seat s is out. */
    this.out = f.out ?? 0;
    /** @type {string} one of `Phase` */
    this.phase = f.phase ?? Phase.LEAD;
    this.attacker = f.attacker ?? 0;
    this.defender = f.defender ?? 1;
    this.h0 = f.h0 ?? 6;
    this.limit = f.limit ?? 6;
    this.taking = f.taking ?? false;
    this.passed = f.passed ?? 0;
    /** The bout in progress, in the order the attack cards were played. @type {BoutCard[]} */
    this.table = f.table ?? [];
    this.shown = f.shown ?? new CardSet();
    this.discard = f.discard ?? new CardSet();
    this.unseen = f.unseen ?? new CardSet();
    this.bout = f.bout ?? 0;
    this.leader = f.leader ?? 0;
    this.dealer = f.dealer ?? 0;
    /** The cards of the own hand that everybody knows. */
    this.ownKnown = f.ownKnown ?? new CardSet();
    /** Trumps no hand held at the deal. */
    this.lowTrumps = f.lowTrumps ?? new CardSet();
    /** One entry per seat, indexed by seat. @type {SeatView[]} */
    this.seats = f.seats ?? [];
  }

  /** The trump suit. @returns {number} */
  get trumpSuit() {
    return this.trump.suit;
  }

  /** The observation as the host sent it, converted. @param {any} o @returns {Observation} */
  static fromWit(o) {
    return new Observation({
      ...o,
      trump: Card.of(o.trump),
      trumpHolder: o.trumpHolder ?? null,
      hand: set(o.hand),
      table: o.table.map(
        (/** @type {any} */ b) => new BoutCard(Card.of(b.attack), b.defence == null ? null : Card.of(b.defence), b.attacker),
      ),
      shown: set(o.shown),
      discard: set(o.discard),
      unseen: set(o.unseen),
      ownKnown: set(o.ownKnown),
      lowTrumps: set(o.lowTrumps),
      seats: o.seats.map((/** @type {any} */ s) => new SeatView({ ...s, known: set(s.known) })),
    });
  }

  toString() {
    const table = this.table.map(String).join(' ') || '-';
    return `P${this.seat} ${this.phase}: hand ${this.hand}; trump ${this.trump}; table ${table}; talon ${this.talon}; attacker P${this.attacker}, defender P${this.defender}`;
  }
}

// ------------------------------------------------------------------ helpers

/** @param {Card} card @param {number} trumpSuit */
export function isTrump(card, trumpSuit) {
  return card.suit === trumpSuit;
}

/**
 * Cheapness, as a number to compare: any plain card is cheaper than any trump, then lower
 * rank, then suit order (the Rust `durak_common::cheap_key`).
 * @param {Card} card @param {number} trumpSuit @returns {number}
 */
export function cheapKey(card, trumpSuit) {
  return (card.suit === trumpSuit ? 1000 : 0) + card.rank * 10 + card.suit;
}

/** The cheapest card (see `cheapKey`), or null. @param {Iterable<Card>} cards @param {number} trumpSuit @returns {Card | null} */
export function cheapest(cards, trumpSuit) {
  let best = null;
  for (const c of cards) if (best === null || cheapKey(c, trumpSuit) < cheapKey(best, trumpSuit)) best = c;
  return best;
}

/** The non-trump cards of a set. @param {CardSet} cards @param {number} trumpSuit @returns {CardSet} */
export function plain(cards, trumpSuit) {
  return cards.minus(cards.ofSuit(trumpSuit));
}

/** The kinds of decision. */
export const Decision = Object.freeze({ LEAD: 'lead', DEFEND: 'defend', THROW_IN: 'throw-in' });

/**
 * The kind of decision the legal actions describe (`take` is always legal when defending).
 * @param {Action[]} legal @returns {string}
 */
export function decision(legal) {
  if (legal.some((a) => a.kind === LEAD || a.kind === LEAD_MANY)) return Decision.LEAD;
  if (legal.some((a) => a.kind === TAKE)) return Decision.DEFEND;
  return Decision.THROW_IN;
}

/** The legal actions of one kind. @param {Action[]} legal @param {number} kind @returns {Action[]} */
export function ofKind(legal, kind) {
  return legal.filter((a) => a.kind === kind);
}

/** The cards that legal actions of `kind` play. @param {Action[]} legal @param {number} kind @returns {CardSet} */
export function cardsOf(legal, kind) {
  let s = new CardSet();
  for (const a of legal) {
    const c = a.kind === kind ? a.card : null;
    if (c) s = s.with(c);
  }
  return s;
}

/**
 * `wanted` if it is legal, else the first legal action: return through this and an agent
 * never plays an illegal action.
 * @param {Action[]} legal @param {Action | null | undefined} wanted @returns {Action}
 */
export function choose(legal, wanted) {
  if (wanted && legal.some((a) => a.code === wanted.code)) return wanted;
  return legal[0] ?? Action.PASS;
}

// ------------------------------------------------------------------ agents

/**
 * Extend this and implement `decide`. One instance lives for one game; `decide` is called
 * whenever this seat has a real choice (the host plays forced moves itself).
 */
export class Agent {
  /** @param {GameInfo} info */
  constructor(info) {
    this.info = info;
  }
  /**
   * Returns one of `legal`. Every agent writes its own: like the Python SDK's, the base
   * class throws, so a subclass that misspells `decide` fails its first game loudly
   * instead of quietly playing the first legal action.
   * @param {Observation} obs @param {Action[]} legal @param {Ctx} ctx @returns {Action}
   */
  decide(obs, legal, ctx) {
    void obs;
    void legal;
    void ctx;
    throw new Error(`${this.constructor.name}: implement decide(obs, legal, ctx)`);
  }
}

/**
 * The object to export as `durakAgent` from the agent's module.
 * @param {new (info: GameInfo) => Agent} AgentClass
 */
function exportAgent(AgentClass) {
  return makeExport(AgentClass, Observation.fromWit, (code) => new Action(code));
}

export { exportAgent as export };
