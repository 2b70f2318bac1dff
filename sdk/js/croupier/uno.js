/**
 * UNO (docs/rules/uno.md): cards, actions, the observation, helpers and the agent base class; the
 * twin of `sdk/python/croupier/uno.py`.
 *
 *     import * as uno from './croupier/uno.js';
 *     class FirstPlayable extends uno.Agent {
 *       decide(obs, legal, ctx) {
 *         const cards = uno.playable(obs, legal);
 *         if (cards.length) return uno.playAction(obs, legal, cards[0], obs.color) ?? legal[0];
 *         return legal[0];
 *       }
 *     }
 *     export const unoAgent = uno.export(FirstPlayable);
 */

import { Ctx, GameInfo, makeExport } from './index.js';

export const CHOOSE_COLOR = 1;
export const PLAY = 2;
export const DRAW = 3;
export const PLAY_DRAWN = 4;
export const KEEP = 5;
export const CHALLENGE = 6;
export const ACCEPT = 7;
export const STACK = 8;
export const ACCEPT_PENALTY = 9;
export const CATCH_UNO = 10;
export const NO_CATCH = 11;

/** Card kinds inside a colour past the numbers 0-9. */
export const SKIP = 10;
export const REVERSE = 11;
export const DRAW_TWO = 12;

/** @type {Record<number, string>} */
const NAMES = {
  3: 'draw',
  5: 'keep',
  6: 'challenge',
  7: 'accept',
  9: 'accept-penalty',
  10: 'catch',
  11: 'no-catch',
};

/** The colours as numbers, in the contract's order. */
export const Color = Object.freeze({ RED: 0, YELLOW: 1, GREEN: 2, BLUE: 3 });
const COLOR_NAMES = ['red', 'yellow', 'green', 'blue'];

/** A colour's name (`red`). @param {number} color */
export function colorName(color) {
  return COLOR_NAMES[color] ?? '?';
}

/** @param {string | number} c the host's colour (a name) or a number @returns {number} */
function colorOf(c) {
  if (typeof c === 'number') return c;
  const i = COLOR_NAMES.indexOf(c);
  if (i < 0) throw new RangeError(`\`${c}\` is not an UNO colour`);
  return i;
}

/**
 * An UNO card: `colour * 13 + kind` (kind 0-9, 10 skip, 11 reverse, 12 draw two), 52 wild,
 * 53 wild draw four. One object per code, so `===` compares cards. `toString()` as the Rust
 * SDK: `R7`, `BSkip`, `GD2`, `W`, `W4`.
 */
export class UnoCard {
  /** @param {number} code */
  constructor(code) {
    /** @readonly */ this.code = code;
    Object.freeze(this);
  }
  /** @param {number} code 0..53 @returns {UnoCard} */
  static of(code) {
    const c = UNO_CARDS[code];
    if (c === undefined) throw new RangeError(`${code} is not an UNO card code (0..53)`);
    return c;
  }
  /** The card's colour, null for a wild. @returns {number | null} */
  get color() {
    return this.code < 52 ? Math.floor(this.code / 13) : null;
  }
  /** 0..12 inside a colour (numbers, then skip, reverse, draw two); null for a wild. @returns {number | null} */
  get kind() {
    return this.code < 52 ? this.code % 13 : null;
  }
  isWild() {
    return this.code >= 52;
  }
  isWd4() {
    return this.code === 53;
  }
  /** Skip, Reverse or Draw Two. */
  isAction() {
    return this.code < 52 && this.code % 13 >= SKIP;
  }
  /** Scoring value: a wild 50, an action card 20, a number its face. */
  points() {
    if (this.code >= 52) return 50;
    const k = this.code % 13;
    return k <= 9 ? k : 20;
  }
  toString() {
    if (this.code === 52) return 'W';
    if (this.code === 53) return 'W4';
    const k = this.code % 13;
    return 'RYGB'[Math.floor(this.code / 13)] + (k === SKIP ? 'Skip' : k === REVERSE ? 'Rev' : k === DRAW_TWO ? 'D2' : String(k));
  }
  /** @type {UnoCard} */ static WILD;
  /** @type {UnoCard} */ static WILD_DRAW_FOUR;
}

/** @type {UnoCard[]} */
const UNO_CARDS = Array.from({ length: 54 }, (_, i) => new UnoCard(i));
UnoCard.WILD = UNO_CARDS[52];
UnoCard.WILD_DRAW_FOUR = UNO_CARDS[53];

/** An UNO action: `kind | card << 8 | declare << 16 | uno << 24` (uno.wit), readable. */
export class Action {
  /** @param {number} code */
  constructor(code) {
    /** @readonly */ this.code = code >>> 0;
  }
  /** @param {number} color */
  static chooseColor(color) {
    return new Action(CHOOSE_COLOR | ((color + 1) << 16));
  }
  /**
   * @param {UnoCard} card @param {number | null} [declare] the colour a wild names
   * @param {boolean} [uno] call UNO with it
   */
  static play(card, declare = null, uno = false) {
    const d = declare === null || declare === undefined ? 0 : declare + 1;
    return new Action((PLAY | (card.code << 8) | (d << 16) | ((uno ? 1 : 0) << 24)) >>> 0);
  }
  /** @returns {number} */
  get kind() {
    return this.code & 0xff;
  }
  /** The card of a play or stack (null otherwise; a play-drawn plays `obs.drawn`). @returns {UnoCard | null} */
  get card() {
    const k = this.kind;
    return k === PLAY || k === STACK ? UnoCard.of((this.code >>> 8) & 0xff) : null;
  }
  /** The colour named (for a wild or choose-color), else null. @returns {number | null} */
  get declare() {
    const d = (this.code >>> 16) & 0xff;
    return d ? d - 1 : null;
  }
  /** Whether this play calls UNO. */
  get uno() {
    return ((this.code >>> 24) & 1) === 1;
  }
  /** @param {Action | number | null | undefined} o */
  equals(o) {
    return o != null && (typeof o === 'number' ? o : o.code) === this.code;
  }
  toString() {
    const k = this.kind;
    if (k === CHOOSE_COLOR) return `color ${colorName(this.declare ?? -1)}`;
    if (k === PLAY || k === STACK || k === PLAY_DRAWN) {
      let text = k === PLAY ? `play ${this.card}` : k === STACK ? `stack ${this.card}` : 'play-drawn';
      if (this.declare !== null) text += ` ${colorName(this.declare)}`;
      return text + (this.uno ? ' uno' : '');
    }
    return NAMES[k] ?? '?';
  }
  static DRAW = new Action(DRAW);
  static KEEP = new Action(KEEP);
  static CHALLENGE = new Action(CHALLENGE);
  static ACCEPT = new Action(ACCEPT);
  static ACCEPT_PENALTY = new Action(ACCEPT_PENALTY);
  static CATCH = new Action(CATCH_UNO);
  static NO_CATCH = new Action(NO_CATCH);
}

/** The decisions, as the host names them. */
export const Decision = Object.freeze({
  CHOOSE_START_COLOR: 'choose-start-color',
  TURN: 'turn',
  AFTER_DRAW: 'after-draw',
  WD4_CHALLENGE: 'wd4-challenge',
  PENALTY_TURN: 'penalty-turn',
  UNO_CATCH: 'uno-catch',
  OVER: 'over',
});

/** What this seat knows about one seat (its own included). */
export class SeatView {
  /** @param {{handSize?: number, score?: number | bigint, colorCaps?: number[]}} f */
  constructor(f = {}) {
    this.handSize = f.handSize ?? 0;
    this.score = Number(f.score ?? 0);
    /** The most cards of each colour the seat can hold, proved by play; 255 = no bound. */
    this.colorCaps = Array.from(f.colorCaps ?? [255, 255, 255, 255]);
  }
}

/**
 * A Wild Draw Four whose challenge is pending.
 * @typedef {{offender: number, victim: number, prevColor: number, prevTop: UnoCard,
 *   handLen: number, hand: UnoCard[] | null}} Wd4Pending
 */

/** @param {Iterable<number>} codes */
const cards = (codes) => Array.from(codes, (c) => UnoCard.of(c));

/**
 * Everything this seat may know (the fields of wit/v0.2/uno.wit in camelCase). Cards are
 * `UnoCard`, colours numbers (`Color`); `known` is a list of [seat, UnoCard]. Make one by
 * hand for a test: `new Observation({ hand: [UnoCard.of(3)], top: UnoCard.of(5), color: Color.RED })`.
 */
export class Observation {
  /** @param {Partial<Observation>} f */
  constructor(f = {}) {
    this.seat = f.seat ?? 0;
    this.players = f.players ?? 2;
    /** @type {string} one of `Decision` */
    this.decision = f.decision ?? Decision.TURN;
    this.handNo = f.handNo ?? 1;
    this.dealer = f.dealer ?? 0;
    /** Own hand, sorted by face. @type {UnoCard[]} */
    this.hand = f.hand ?? [];
    /** @type {UnoCard} */
    this.top = f.top ?? UnoCard.of(0);
    /** The colour in force (a wild's declared colour). */
    this.color = f.color ?? Color.RED;
    /** +1 clockwise, -1 counter-clockwise. */
    this.direction = f.direction ?? 1;
    this.pending = f.pending ?? 0;
    this.drawPile = f.drawPile ?? 0;
    this.discardPile = f.discardPile ?? 0;
    /** The card just drawn (after-draw). @type {UnoCard | null} */
    this.drawn = f.drawn ?? null;
    /** Per face (index = card code), how many are in opponents' hands and the draw pile. @type {number[]} */
    this.unseen = f.unseen ?? [];
    /** @type {number | null} */
    this.toAct = f.toAct ?? null;
    /** The whole discard pile, bottom first (its last card is `top`). @type {UnoCard[]} */
    this.discard = f.discard ?? [];
    this.turns = f.turns ?? 0;
    /** Cards known to be in other hands (after a challenge). @type {[number, UnoCard][]} */
    this.known = f.known ?? [];
    /** Per seat, thirteen bounds by kind; 255 = no bound. @type {number[]} */
    this.kindCaps = f.kindCaps ?? [];
    /** @type {number | null} */
    this.offender = f.offender ?? null;
    /** @type {Wd4Pending | null} */
    this.wd4 = f.wd4 ?? null;
    /** One entry per seat, indexed by seat. @type {SeatView[]} */
    this.seats = f.seats ?? [];
  }

  /** The observation as the host sent it, converted. @param {any} o @returns {Observation} */
  static fromWit(o) {
    const w = o.wd4;
    return new Observation({
      ...o,
      hand: cards(o.hand),
      top: UnoCard.of(o.top),
      color: colorOf(o.color),
      drawn: o.drawn == null ? null : UnoCard.of(o.drawn),
      unseen: Array.from(o.unseen),
      toAct: o.toAct ?? null,
      discard: cards(o.discard),
      known: o.known.map((/** @type {[number, number]} */ [s, c]) => [s, UnoCard.of(c)]),
      kindCaps: Array.from(o.kindCaps),
      offender: o.offender ?? null,
      wd4:
        w == null
          ? null
          : {
              offender: w.offender,
              victim: w.victim,
              prevColor: colorOf(w.prevColor),
              prevTop: UnoCard.of(w.prevTop),
              handLen: w.handLen,
              hand: w.hand == null ? null : cards(w.hand),
            },
      seats: o.seats.map((/** @type {any} */ s) => new SeatView(s)),
    });
  }

  toString() {
    return `P${this.seat} ${this.decision}: hand ${this.hand.join(' ')}; top ${this.top} (${colorName(this.color)}); pending ${this.pending}`;
  }
}

// ------------------------------------------------------------------ helpers

/**
 * The card an action plays (`drawn` for a play-drawn), else null.
 * @param {Action} action @param {UnoCard | null} [drawn] @returns {UnoCard | null}
 */
export function cardOf(action, drawn = null) {
  const k = action.kind;
  if (k === PLAY || k === STACK) return UnoCard.of((action.code >>> 8) & 0xff);
  if (k === PLAY_DRAWN) return drawn;
  return null;
}

/**
 * The distinct cards the legal actions let this player play, in code order.
 * @param {Observation} obs @param {Action[]} legal @returns {UnoCard[]}
 */
export function playable(obs, legal) {
  const seen = new Set();
  for (const a of legal) {
    const c = cardOf(a, obs.drawn);
    if (c) seen.add(c);
  }
  return [...seen].sort((a, b) => a.code - b.code);
}

/**
 * The legal action that plays `card` naming `color` (any colour if that one is not offered),
 * calling UNO when that is an option; null if `card` cannot be played.
 * @param {Observation} obs @param {Action[]} legal @param {UnoCard} card @param {number} color
 * @returns {Action | null}
 */
export function playAction(obs, legal, card, color) {
  /** @type {Action | null} */
  let best = null;
  let bestRank = -1;
  for (const a of legal) {
    if (cardOf(a, obs.drawn) !== card) continue;
    const d = (a.code >>> 16) & 0xff;
    const rank = (d === 0 || d - 1 === color ? 2 : 0) + ((a.code >>> 24) & 1);
    if (rank > bestRank) {
      best = a;
      bestRank = rank;
    }
  }
  return best;
}

/**
 * The colour this player holds most of, not counting one copy of `exceptCard` (ties in
 * colour order); the current colour when it holds no coloured card.
 * @param {Observation} obs @param {UnoCard | null} [exceptCard] @returns {number}
 */
export function mostHeldColor(obs, exceptCard = null) {
  const counts = [0, 0, 0, 0];
  let skipped = false;
  for (const c of obs.hand) {
    if (!skipped && c === exceptCard) {
      skipped = true;
      continue;
    }
    if (c.code < 52) counts[Math.floor(c.code / 13)]++;
  }
  let best = obs.color;
  let most = 0;
  for (let col = 0; col < 4; col++) {
    if (counts[col] > most) {
      best = col;
      most = counts[col];
    }
  }
  return best;
}

/** A uniformly random colour from the agent's seeded generator. @param {Ctx} ctx @returns {number} */
export function randomColor(ctx) {
  return ctx.rng.below(4);
}

// ------------------------------------------------------------------ agents

/** Extend this and implement `decide` (one instance per game; see `durak.Agent`). */
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
 * The object to export as `unoAgent` from the agent's module.
 * @param {new (info: GameInfo) => Agent} AgentClass
 */
function exportAgent(AgentClass) {
  return makeExport(AgentClass, Observation.fromWit, (code) => new Action(code));
}

export { exportAgent as export };
