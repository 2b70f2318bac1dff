/**
 * Toepen (docs/rules/toepen.md): actions, the observation, helpers and the agent base class; the
 * twin of `sdk/python/croupier/toepen.py`.
 *
 *     import * as toepen from './croupier/toepen.js';
 *     class Lowest extends toepen.Agent {
 *       decide(obs, legal, ctx) {
 *         const answer = toepen.defaultAnswer(obs, legal); // knock windows, laundry, ...
 *         if (answer) return answer;
 *         return toepen.Action.play(toepen.lowest(toepen.legalCards(legal)));
 *       }
 *     }
 *     export const toepenAgent = toepen.export(Lowest);
 */

import { Card, CardSet, Ctx, GameInfo, makeExport } from './index.js';

export const PLAY = 1;
export const KNOCK = 2;
export const NO_KNOCK = 3;
export const STAY = 4;
export const FOLD = 5;
export const CLAIM_LAUNDRY = 6;
export const CLAIM_WHITE_LAUNDRY = 7;
export const NO_CLAIM = 8;
export const CHALLENGE = 9;
export const NO_CHALLENGE = 10;

/** @type {Record<number, string>} */
const NAMES = {
  2: 'knock',
  3: 'no-knock',
  4: 'stay',
  5: 'fold',
  6: 'laundry',
  7: 'white-laundry',
  8: 'no-claim',
  9: 'challenge',
  10: 'no-challenge',
};

/**
 * A Toepen action: `play = 1 | card << 8`, the others their kind alone (wit/v0.2/toepen.wit).
 * `Action.play(card)`, `Action.KNOCK`, `Action.STAY`, ...; `toString()` as in the Rust SDK.
 */
export class Action {
  /** @param {number} code */
  constructor(code) {
    /** @readonly */ this.code = code >>> 0;
  }
  /** @param {Card} card */
  static play(card) {
    return new Action(PLAY | (card.code << 8));
  }
  /** @returns {number} */
  get kind() {
    return this.code & 0xff;
  }
  /** The card of a `play`, else null. @returns {Card | null} */
  get card() {
    return this.kind === PLAY ? Card.of((this.code >>> 8) & 0xff) : null;
  }
  /** @param {Action | number | null | undefined} o */
  equals(o) {
    return o != null && (typeof o === 'number' ? o : o.code) === this.code;
  }
  toString() {
    return this.kind === PLAY ? `play ${this.card}` : (NAMES[this.kind] ?? '?');
  }
  static KNOCK = new Action(KNOCK);
  static NO_KNOCK = new Action(NO_KNOCK);
  static STAY = new Action(STAY);
  static FOLD = new Action(FOLD);
  static CLAIM_LAUNDRY = new Action(CLAIM_LAUNDRY);
  static CLAIM_WHITE_LAUNDRY = new Action(CLAIM_WHITE_LAUNDRY);
  static NO_CLAIM = new Action(NO_CLAIM);
  static CHALLENGE = new Action(CHALLENGE);
  static NO_CHALLENGE = new Action(NO_CHALLENGE);
}

/** The decisions, as the host names them. */
export const Decision = Object.freeze({
  LAUNDRY: 'laundry',
  LAUNDRY_CHALLENGE: 'laundry-challenge',
  POVERTY: 'poverty',
  PLAY: 'play',
  KNOCK_WINDOW: 'knock-window',
  KNOCK_RESPONSE: 'knock-response',
  OVER: 'over',
});

/** What this seat knows about one seat (its own included). */
export class SeatView {
  /**
   * @param {{score?: number, played?: CardSet, handCount?: number, voids?: number,
   *   foldStake?: number, revealedBy?: CardSet, handKnowers?: number, knownCards?: CardSet,
   *   eliminatedAt?: number}} f
   */
  constructor(f = {}) {
    this.score = f.score ?? 0;
    /** Cards that seat has played this round. */
    this.played = f.played ?? new CardSet();
    this.handCount = f.handCount ?? 0;
    /** Bit i: known to lack suit i (it did not follow). */
    this.voids = f.voids ?? 0;
    /** The stake it folded at and will pay; 0 = not folded. */
    this.foldStake = f.foldStake ?? 0;
    /** Its laundry hand revealed by a challenge (empty if none). */
    this.revealedBy = f.revealedBy ?? new CardSet();
    /** Bit s set when seat s knows this seat's whole hand. */
    this.handKnowers = f.handKnowers ?? 0;
    /** The cards of its hand this player knows. */
    this.knownCards = f.knownCards ?? new CardSet();
    /** When it was eliminated (1, 2, ...); 0 = still in. */
    this.eliminatedAt = f.eliminatedAt ?? 0;
  }
}

/** @param {number | bigint} m */
const set = (m) => CardSet.fromMask(m);

/** A played card and who played it. @typedef {{seat: number, card: Card}} Play */

/**
 * Everything this seat may know (the fields of wit/v0.2/toepen.wit in camelCase). Cards are
 * `Card`, sets `CardSet`; `trick` is the current trick as `{seat, card}` in play order and
 * `pastTricks` one such list per completed trick. Make one by hand for a test:
 * `new Observation({ hand: CardSet.of(['JC', '10H']), trickNo: 1 })`.
 */
export class Observation {
  /** @param {Partial<Observation>} f */
  constructor(f = {}) {
    this.seat = f.seat ?? 0;
    this.players = f.players ?? 4;
    /** @type {string} one of `Decision` */
    this.decision = f.decision ?? Decision.PLAY;
    this.round = f.round ?? 1;
    this.dealer = f.dealer ?? 0;
    this.hand = f.hand ?? new CardSet();
    /** Bit s: seat s is eliminated. */
    this.eliminated = f.eliminated ?? 0;
    /** Bit s: seat s is live in this round. */
    this.live = f.live ?? 0;
    this.stake = f.stake ?? 1;
    /** @type {number | null} */
    this.lastKnocker = f.lastKnocker ?? null;
    this.stock = f.stock ?? 0;
    /** The trick number, 1..4. */
    this.trickNo = f.trickNo ?? 1;
    this.leader = f.leader ?? 0;
    /** @type {Play[]} */
    this.trick = f.trick ?? [];
    /** Who won each completed trick. @type {number[]} */
    this.trickWinners = f.trickWinners ?? [];
    this.unseen = f.unseen ?? new CardSet();
    this.ownLaundry = f.ownLaundry ?? new CardSet();
    this.revealed = f.revealed ?? new CardSet();
    /** The seat that must decide now. @type {number | null} */
    this.toAct = f.toAct ?? null;
    /** Bit s: seat s was dealt in this round. */
    this.dealt = f.dealt ?? 0;
    /** Bit s: seat s's card in the current trick is dead (it folded after playing). */
    this.dead = f.dead ?? 0;
    /** @type {Play[][]} */
    this.pastTricks = f.pastTricks ?? [];
    /** Bit s: seat s is poor this round (poverty rule). */
    this.poor = f.poor ?? 0;
    this.laundryDone = f.laundryDone ?? 0;
    this.claimed = f.claimed ?? 0;
    this.whiteClaims = f.whiteClaims ?? 0;
    this.challenged = f.challenged ?? 0;
    this.returned = f.returned ?? 0;
    /** @type {number | null} */
    this.claimant = f.claimant ?? null;
    this.povertyDone = f.povertyDone ?? 0;
    /** Open knock window: [first seat asked, offset]. @type {[number, number] | null} */
    this.knockWindow = f.knockWindow ?? null;
    /** Stock blocks of four some seats know: [block, seat mask] pairs. @type {[number, number][]} */
    this.stockKnowers = f.stockKnowers ?? [];
    /** Stock blocks this player knows: [block from the top, cards]. @type {[number, CardSet][]} */
    this.knownStock = f.knownStock ?? [];
    /** One entry per seat, indexed by seat. @type {SeatView[]} */
    this.seats = f.seats ?? [];
  }

  /** The observation as the host sent it, converted. @param {any} o @returns {Observation} */
  static fromWit(o) {
    const t = o.trick;
    /** @type {Play[]} */
    const trick = [];
    for (let i = 0; i + 1 < t.length; i += 2) trick.push({ seat: t[i], card: Card.of(t[i + 1]) });
    const p = o.pastTricks;
    /** @type {Play[][]} */
    const past = [];
    for (let i = 0; i + 2 < p.length; i += 3) {
      while (past.length <= p[i]) past.push([]);
      past[p[i]].push({ seat: p[i + 1], card: Card.of(p[i + 2]) });
    }
    const sk = o.stockKnowers;
    /** @type {[number, number][]} */
    const stockKnowers = [];
    for (let i = 0; i + 1 < sk.length; i += 2) stockKnowers.push([sk[i], sk[i + 1]]);
    return new Observation({
      ...o,
      hand: set(o.hand),
      lastKnocker: o.lastKnocker ?? null,
      trick,
      trickWinners: Array.from(o.trickWinners),
      unseen: set(o.unseen),
      ownLaundry: set(o.ownLaundry),
      revealed: set(o.revealed),
      toAct: o.toAct ?? null,
      pastTricks: past,
      claimant: o.claimant ?? null,
      knockWindow: o.knockWindow ?? null,
      stockKnowers,
      knownStock: o.knownStock.map((/** @type {[number, any]} */ [b, s]) => [b, set(s)]),
      seats: o.seats.map(
        (/** @type {any} */ s) =>
          new SeatView({ ...s, played: set(s.played), revealedBy: set(s.revealedBy), knownCards: set(s.knownCards) }),
      ),
    });
  }

  toString() {
    const trick = this.trick.map((p) => `P${p.seat}:${p.card}`).join(' ') || '-';
    return `P${this.seat} ${this.decision}: hand ${this.hand}; trick ${this.trickNo} ${trick}; stake ${this.stake}`;
  }
}

// ------------------------------------------------------------------ helpers

/**
 * Toepen strength: J < Q < K < A < 7 < 8 < 9 < 10 (1..8; 0 for other ranks).
 * @param {Card} card @returns {number}
 */
export function strength(card) {
  const r = card.rank;
  if (r >= 11 && r <= 14) return r - 10;
  if (r >= 7 && r <= 10) return r - 2;
  return 0;
}

/** The bit of seat `seat` in a seat mask. @param {number} seat */
export function bit(seat) {
  return seat >= 0 && seat < 8 ? 1 << seat : 0;
}

/** @param {Card} a @param {Card} b */
const cmp = (a, b) => strength(a) - strength(b) || a.code - b.code;

/** The weakest card (ties by card code), or null. @param {Iterable<Card>} cards @returns {Card | null} */
export function lowest(cards) {
  let best = null;
  for (const c of cards) if (best === null || cmp(c, best) < 0) best = c;
  return best;
}

/** The strongest card (ties by card code), or null. @param {Iterable<Card>} cards @returns {Card | null} */
export function highest(cards) {
  let best = null;
  for (const c of cards) if (best === null || cmp(c, best) > 0) best = c;
  return best;
}

/** The cards the legal actions let this player play. @param {Action[]} legal @returns {CardSet} */
export function legalCards(legal) {
  let s = new CardSet();
  for (const a of legal) {
    const c = a.card;
    if (c) s = s.with(c);
  }
  return s;
}

/** The first legal action that is not a knock (else the first), or null. @param {Action[]} legal */
export function fallback(legal) {
  return legal.find((a) => a.code !== KNOCK) ?? legal[0] ?? null;
}

/** @type {Record<string, number>} */
const CAUTIOUS = {
  [Decision.KNOCK_WINDOW]: NO_KNOCK,
  [Decision.KNOCK_RESPONSE]: STAY,
  [Decision.POVERTY]: STAY,
  [Decision.LAUNDRY]: NO_CLAIM,
  [Decision.LAUNDRY_CHALLENGE]: NO_CHALLENGE,
};

/**
 * The cautious answer to every decision that is not a card play: never knock, stay in, claim
 * nothing, challenge nobody (the Rust `toepen_common::default_answer`). Null for a card play;
 * otherwise always one of `legal`.
 * @param {Observation} obs @param {Action[]} legal @returns {Action | null}
 */
export function defaultAnswer(obs, legal) {
  if (obs.decision === Decision.PLAY) return null;
  const wanted = CAUTIOUS[obs.decision];
  return legal.find((a) => a.code === wanted) ?? fallback(legal);
}

/** The trick in progress as the deciding player sees it. */
export class Trick {
  /** @param {Observation} obs */
  constructor(obs) {
    /** The led suit (null when this player leads). @type {number | null} */
    this.led = obs.trick.length ? obs.trick[0].card.suit : null;
    /** The strongest live card of the led suit so far (what a card must beat to win now). @type {Card | null} */
    this.best = null;
    if (this.led !== null) {
      for (const { seat, card } of obs.trick) {
        if (card.suit === this.led && !(obs.dead & bit(seat)) && (this.best === null || strength(card) > strength(this.best))) {
          this.best = card;
        }
      }
    }
    let played = bit(obs.seat);
    for (const { seat } of obs.trick) played |= bit(seat);
    let rest = obs.live & ~played & 0xff;
    let n = 0;
    for (; rest !== 0; n++) rest &= rest - 1;
    /** Live players who still play to this trick after the deciding player. */
    this.stillToPlay = n;
    /** The trick number, 1..4. */
    this.number = obs.trickNo;
  }
  leading() {
    return this.led === null;
  }
  /** @param {CardSet} hand */
  canFollow(hand) {
    return this.led !== null && !hand.ofSuit(this.led).isEmpty();
  }
  /** Would `card` win the trick if it were played now and nobody played after it? @param {Card} card */
  winsNow(card) {
    if (this.led === null) return true;
    if (card.suit !== this.led) return false;
    return this.best === null || strength(card) > strength(this.best);
  }
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
 * The object to export as `toepenAgent` from the agent's module.
 * @param {new (info: GameInfo) => Agent} AgentClass
 */
function exportAgent(AgentClass) {
  return makeExport(AgentClass, Observation.fromWit, (code) => new Action(code));
}

export { exportAgent as export };
