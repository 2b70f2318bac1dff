/**
 * croupier: write a Croupier card-game agent in JavaScript or TypeScript.
 *
 * The JavaScript twin of the Rust and Python SDKs: readable cards, card sets and actions,
 * a seeded generator, logging into the game record, and the glue that turns an agent class
 * into the world's export. One module per game:
 *
 *     import * as durak from './croupier/durak.js';
 *
 *     class First extends durak.Agent {
 *       decide(obs, legal, ctx) { return legal[0]; }
 *     }
 *     export const durakAgent = durak.export(First);
 *
 * `croupier build DIR` bundles the module with esbuild and makes it a component. This SDK
 * never imports the world (`croupier:agent/host`) itself: the build's entry module hands it
 * over as `globalThis.croupierHost`, so the same agent module also runs under plain Node,
 * where `Local` services stand in (unit tests).
 *
 * Values from the host: record fields are camelCase, enums are strings, options are null or
 * undefined, and `u64` values are numbers under QuickJS (rounded to 53 bits; card sets use
 * bits 0-51 and stay exact) and BigInts under SpiderMonkey. Everything here accepts both.
 */

/** The four French suits in the contract's order. */
export const Suit = Object.freeze({ CLUBS: 0, DIAMONDS: 1, HEARTS: 2, SPADES: 3 });

const RANKS = ['2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K', 'A'];
const SUITS = 'CDHS';

/** A French-suited card (Durak, Toepen), code `suit * 13 + (rank - 2)`; one object per code. */
export class Card {
  /** @param {number} code */
  constructor(code) {
    /** @readonly */ this.code = code;
    /** 2..14 (J 11, Q 12, K 13, A 14). @readonly */ this.rank = (code % 13) + 2;
    /** @readonly */ this.suit = Math.floor(code / 13);
    Object.freeze(this);
  }

  /**
   * The card of a code; the same object every time, so `===` compares cards.
   * @param {number} code 0..51
   * @returns {Card}
   */
  static of(code) {
    const c = CARDS[code];
    if (c === undefined) throw new RangeError(`${code} is not a card code (0..51)`);
    return c;
  }

  /** @param {number} rank 2..14 @param {number} suit 0..3 @returns {Card} */
  static new(rank, suit) {
    return Card.of(suit * 13 + rank - 2);
  }

  /**
   * `10H`, `QS`, `ac` (rank then suit letter).
   * @param {string} text
   * @returns {Card}
   */
  static parse(text) {
    const t = String(text).trim().toUpperCase();
    const rank = RANKS.indexOf(t.slice(0, -1));
    const suit = SUITS.indexOf(t.slice(-1));
    if (rank < 0 || suit < 0 || t.length < 2) {
      throw new RangeError(`\`${text}\` is not a card (e.g. 10H or QS)`);
    }
    return Card.new(rank + 2, suit);
  }

  toString() {
    return RANKS[this.code % 13] + SUITS[this.suit];
  }
}

/** @type {Card[]} */
const CARDS = Array.from({ length: 52 }, (_, i) => new Card(i));

const TWO32 = 4294967296;

/** @param {number | Card} c */
const codeOf = (c) => (typeof c === 'number' ? c : c.code);

/**
 * A set of French cards: the contract's 64-bit mask, held as two 32-bit halves because
 * JavaScript's bit operators work on 32 bits. Immutable; iterates in code order.
 */
export class CardSet {
  /** @param {number} lo bits 0-31 @param {number} hi bits 32-63 */
  constructor(lo = 0, hi = 0) {
    /** @readonly */ this.lo = lo >>> 0;
    /** @readonly */ this.hi = hi >>> 0;
  }

  /**
   * The set of a mask as the host sends it (a number or a BigInt).
   * @param {number | bigint} mask
   * @returns {CardSet}
   */
  static fromMask(mask) {
    if (typeof mask === 'bigint') {
      return new CardSet(Number(mask & 0xffffffffn), Number((mask >> 32n) & 0xffffffffn));
    }
    return new CardSet(mask % TWO32, Math.floor(mask / TWO32));
  }

  /**
   * The set of some cards (Card objects, codes or names such as "QS").
   * @param {Iterable<Card | number | string>} cards
   * @returns {CardSet}
   */
  static of(cards) {
    let s = new CardSet();
    for (const c of cards) s = s.with(typeof c === 'string' ? Card.parse(c) : c);
    return s;
  }

  /** The mask as a number (exact: French cards use 52 bits). @returns {number} */
  mask() {
    return this.hi * TWO32 + this.lo;
  }

  /** @param {Card | number} card @returns {boolean} */
  has(card) {
    const c = codeOf(card);
    return c < 32 ? ((this.lo >>> c) & 1) === 1 : ((this.hi >>> (c - 32)) & 1) === 1;
  }

  /** @param {Card | number} card @returns {CardSet} */
  with(card) {
    const c = codeOf(card);
    return c < 32 ? new CardSet(this.lo | (1 << c), this.hi) : new CardSet(this.lo, this.hi | (1 << (c - 32)));
  }

  /** @param {Card | number} card @returns {CardSet} */
  without(card) {
    const c = codeOf(card);
    return c < 32 ? new CardSet(this.lo & ~(1 << c), this.hi) : new CardSet(this.lo, this.hi & ~(1 << (c - 32)));
  }

  /** @param {CardSet} o @returns {CardSet} */
  union(o) {
    return new CardSet(this.lo | o.lo, this.hi | o.hi);
  }

  /** @param {CardSet} o @returns {CardSet} */
  inter(o) {
    return new CardSet(this.lo & o.lo, this.hi & o.hi);
  }

  /** @param {CardSet} o @returns {CardSet} */
  minus(o) {
    return new CardSet(this.lo & ~o.lo, this.hi & ~o.hi);
  }

  /** The cards of one suit. @param {number} suit @returns {CardSet} */
  ofSuit(suit) {
    let s = new CardSet();
    for (let r = 0; r < 13; r++) if (this.has(suit * 13 + r)) s = s.with(suit * 13 + r);
    return s;
  }

  /** @param {CardSet} o @returns {boolean} */
  equals(o) {
    return this.lo === o.lo && this.hi === o.hi;
  }

  /** @returns {boolean} */
  isEmpty() {
    return this.lo === 0 && this.hi === 0;
  }

  /** How many cards. @returns {number} */
  get size() {
    let n = 0;
    for (let w of [this.lo, this.hi]) {
      for (; w !== 0; n++) w &= w - 1;
    }
    return n;
  }

  /** @returns {Generator<Card>} */
  *[Symbol.iterator]() {
    for (let c = 0; c < 52; c++) if (this.has(c)) yield CARDS[c];
  }

  /** The cards in code order. @returns {Card[]} */
  cards() {
    return [...this];
  }

  /** The lowest card, or null when empty. @returns {Card | null} */
  first() {
    for (const c of this) return c;
    return null;
  }

  toString() {
    return this.cards().join(' ') || '-';
  }
}

// ------------------------------------------------------------------ randomness

const M64 = (1n << 64n) - 1n;

/** @param {number} v @param {number} n */
const rotl = (v, n) => ((v << n) | (v >>> (32 - n))) >>> 0;

/** One ChaCha8 block (64-bit counter, stream 0) as sixteen 32-bit words. */
function chachaBlock(/** @type {number[]} */ key, /** @type {number} */ counter) {
  const x = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574, ...key, counter >>> 0, Math.floor(counter / TWO32) >>> 0, 0, 0];
  const s = x.slice();
  const q = (/** @type {number} */ a, /** @type {number} */ b, /** @type {number} */ c, /** @type {number} */ d) => {
    s[a] = (s[a] + s[b]) >>> 0; s[d] = rotl(s[d] ^ s[a], 16);
    s[c] = (s[c] + s[d]) >>> 0; s[b] = rotl(s[b] ^ s[c], 12);
    s[a] = (s[a] + s[b]) >>> 0; s[d] = rotl(s[d] ^ s[a], 8);
    s[c] = (s[c] + s[d]) >>> 0; s[b] = rotl(s[b] ^ s[c], 7);
  };
  for (let i = 0; i < 4; i++) {
    q(0, 4, 8, 12); q(1, 5, 9, 13); q(2, 6, 10, 14); q(3, 7, 11, 15);
    q(0, 5, 10, 15); q(1, 6, 11, 12); q(2, 7, 8, 13); q(3, 4, 9, 14);
  }
  return s.map((v, i) => (v + x[i]) >>> 0);
}

/**
 * The Rust SDK's generator (`GameRng`: ChaCha8 seeded through PCG32), ported so that, given
 * the exact seed, an agent draws exactly the numbers the same Rust agent draws.
 */
export class Rng {
  /** @param {bigint | number} seed */
  constructor(seed) {
    // rand_core's `seed_from_u64`: PCG32 fills the 32-byte ChaCha key.
    let state = BigInt(seed) & M64;
    /** @type {number[]} */
    this.key = [];
    for (let i = 0; i < 8; i++) {
      state = (state * 6364136223846793005n + 11634580027462260723n) & M64;
      const xorshifted = Number((((state >> 18n) ^ state) >> 27n) & 0xffffffffn);
      const rot = Number(state >> 59n);
      this.key.push(((xorshifted >>> rot) | (xorshifted << ((32 - rot) & 31))) >>> 0);
    }
    this.counter = 0;
    /** @type {number[]} */
    this.buf = [];
    this.pos = 0;
  }

  /**
   * A seed for a sub-stream, mixed so that neighbours differ widely (SplitMix64).
   * @param {bigint | number} seed @param {bigint | number} stream @returns {bigint}
   */
  static derive(seed, stream) {
    let z = (BigInt(seed) ^ (BigInt(stream) * 0x9e3779b97f4a7c15n)) & M64;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
    return z ^ (z >> 31n);
  }

  /** The next 64-bit number. @returns {bigint} */
  nextU64() {
    if (this.pos >= this.buf.length) {
      // rand_chacha fills four blocks at a time; a u64 never straddles two fills.
      this.buf = [];
      for (let i = 0; i < 4; i++) this.buf.push(...chachaBlock(this.key, this.counter + i));
      this.counter += 4;
      this.pos = 0;
    }
    const lo = BigInt(this.buf[this.pos]);
    const hi = BigInt(this.buf[this.pos + 1]);
    this.pos += 2;
    return lo | (hi << 32n);
  }

  /**
   * Uniform in `0..n` without modulo bias: the Rust `below`, draw for draw.
   * @param {number} n > 0 @returns {number}
   */
  below(n) {
    if (!(n > 0)) throw new RangeError('below(0)');
    const b = BigInt(n);
    for (;;) {
      const v = this.nextU64();
      if (v <= M64 - b || v < M64 - (M64 % b)) return Number(v % b);
    }
  }

  /** Uniform in [0, 1). @returns {number} */
  unit() {
    return Number(this.nextU64() >> 11n) / 9007199254740992;
  }

  /** @template T @param {T[]} items @returns {T | null} */
  choose(items) {
    return items.length ? items[this.below(items.length)] : null;
  }

  /** Fisher-Yates from the last element down, in place. @template T @param {T[]} items */
  shuffle(items) {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.below(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
  }
}

/**
 * The agent-side generator for a seat's seed (distinct from the host's `random` stream).
 * @param {bigint | number} seed @returns {Rng}
 */
export function agentRng(seed) {
  return new Rng(Rng.derive(seed, 0xa6e7));
}

// ------------------------------------------------------------------ host services

/** Log levels of the host's `log` import. */
export const Level = Object.freeze({ ERROR: 'error', WARN: 'warn', INFO: 'info', DEBUG: 'debug' });

/** Services outside the sandbox (unit tests): a seeded stream, and log lines kept and printed. */
export class Local {
  constructor(seed = 0) {
    this.rng = new Rng(seed);
    /** @type {[string, string][]} */
    this.lines = [];
  }
  /** @returns {bigint} */
  random() {
    return this.rng.nextU64();
  }
  /** @param {string} level @param {string} message */
  log(level, message) {
    this.lines.push([level, message]);
    if (typeof console !== 'undefined') console.error(`[${level}] ${message}`);
  }
}

/** @returns {{ log(level: string, message: string): void, random(): bigint | number }} */
function services() {
  // @ts-ignore: set by the build's entry module inside a component
  return globalThis.croupierHost ?? new Local();
}

/** What is left to spend on this decision. */
export class Budget {
  /** @param {bigint | number} fuel @param {number} millis @param {number | null} bankMillis */
  constructor(fuel = 0, millis = 0, bankMillis = null) {
    /** Fuel (roughly, WebAssembly instructions) for this decision. */
    this.fuel = Number(fuel);
    /** Wall-clock milliseconds for this decision. */
    this.millis = millis;
    /** Milliseconds left in this game's time bank, when the match has one. */
    this.bankMillis = bankMillis ?? null;
  }
}

/** What an agent is told when a game starts. */
export class GameInfo {
  /**
   * @param {{seat?: number, players?: number, preset?: string,
   *   rules?: [string, string][] | Record<string, string>, seed?: bigint | number, args?: string}} f
   */
  constructor(f = {}) {
    /** This agent's seat. */
    this.seat = f.seat ?? 0;
    this.players = f.players ?? 2;
    /** The rule preset's name (e.g. `classic`). */
    this.preset = f.preset ?? '';
    /** @type {Record<string, string>} The options that differ from the preset. */
    this.rules = Array.isArray(f.rules) ? Object.fromEntries(f.rules) : { ...(f.rules ?? {}) };
    /** This agent's seed for this game (a BigInt when the engine passes it exactly). */
    this.seed = f.seed ?? 0;
    /** Free text after `#` on the command line (`iters=500`). */
    this.args = f.args ?? '';
  }

  /**
   * Looks up `key=value` in the args (`iters=500,c=1.4`), converted; `dflt` when missing or
   * not convertible.
   * @template T @param {string} key @param {(v: string) => T} convert @param {T} dflt @returns {T}
   */
  arg(key, convert, dflt) {
    for (const kv of this.args.split(/[,; ]/)) {
      const i = kv.indexOf('=');
      if (i > 0 && kv.slice(0, i).trim() === key) {
        const v = convert(kv.slice(i + 1).trim());
        return typeof v === 'number' && Number.isNaN(v) ? dflt : v;
      }
    }
    return dflt;
  }
}

/** An agent's view of the host during one decision. */
export class Ctx {
  /** @param {Budget} budget @param {Rng} rng @param {ReturnType<typeof services>} [svc] */
  constructor(budget, rng, svc) {
    /** What is left to spend on this decision. */
    this.budget = budget;
    /** This seat's seeded generator for the game: the whole match replays bit for bit. */
    this.rng = rng;
    this.svc = svc ?? services();
  }
  /** The next number of the host's seeded stream for this seat. @returns {bigint | number} */
  hostRandom() {
    return this.svc.random();
  }
  /** Adds a line to this agent's log for the game (the host bounds it). @param {unknown} message */
  log(message, level = Level.INFO) {
    this.svc.log(level, String(message));
  }
  /** @param {unknown} message */
  debug(message) {
    this.log(message, Level.DEBUG);
  }
  /** @param {unknown} message */
  warn(message) {
    this.log(message, Level.WARN);
  }
}

/**
 * Builds a world's export object from an agent class: `{ start(info), decide(obs, legal,
 * budget) }` on raw WIT values. Game modules call it; agents use `<game>.export(Class)`.
 * @param {new (info: GameInfo) => { decide(obs: any, legal: any[], ctx: Ctx): any }} AgentClass
 * @param {(raw: any) => any} observation raw WIT observation -> SDK observation
 * @param {(code: number) => any} action action code -> SDK action
 */
export function makeExport(AgentClass, observation, action) {
  /** @type {{ agent: any, rng: Rng, svc: ReturnType<typeof services> } | null} */
  let slot = null;
  return {
    /** @param {any} raw */
    start(raw) {
      const svc = services();
      const info = new GameInfo(raw);
      const rng = agentRng(info.seed);
      // Inside the sandbox there is no clock, and QuickJS's own Math.random repeats in every
      // game: make both explicit (a seeded Math.random, a clock that says why it is absent).
      if (svc !== null && !(svc instanceof Local)) {
        Math.random = () => rng.unit();
        Date.now = () => {
          throw new Error('no clock in the sandbox: use budget.millis');
        };
      }
      slot = { agent: new AgentClass(info), rng, svc };
    },
    /** @param {any} rawObs @param {number[]} legal @param {any} b @returns {number} */
    decide(rawObs, legal, b) {
      if (slot === null) throw new Error('decide called before start');
      try {
        const ctx = new Ctx(new Budget(b.fuel, b.millis, b.bankMillis), slot.rng, slot.svc);
        const chosen = slot.agent.decide(observation(rawObs), Array.from(legal, action), ctx);
        return typeof chosen === 'number' ? chosen : chosen.code;
      } catch (e) {
        // Without a console in the sandbox, the game's log is where the student looks.
        const err = /** @type {any} */ (e);
        const text = err instanceof Error ? `${err.name}: ${err.message}${err.stack ? `\n${err.stack}` : ''}` : String(err);
        slot.svc.log(Level.ERROR, text);
        throw e;
      }
    },
  };
}
