/** @module Interface croupier:agent/uno-types@0.2.0 **/
export type Card = import('./croupier-agent-common.js').Card;
/**
 * # Variants
 * 
 * ## `"red"`
 * 
 * ## `"yellow"`
 * 
 * ## `"green"`
 * 
 * ## `"blue"`
 */
export type Color = 'red' | 'yellow' | 'green' | 'blue';
/**
 * # Variants
 * 
 * ## `"choose-start-color"`
 * 
 * ## `"turn"`
 * 
 * ## `"after-draw"`
 * 
 * ## `"wd4-challenge"`
 * 
 * ## `"penalty-turn"`
 * 
 * ## `"uno-catch"`
 * 
 * ## `"over"`
 */
export type Decision = 'choose-start-color' | 'turn' | 'after-draw' | 'wd4-challenge' | 'penalty-turn' | 'uno-catch' | 'over';
/**
 * What this seat knows about one seat (its own included).
 */
export interface SeatView {
  handSize: number,
  score: bigint,
  /**
   * The most cards of each colour (red, yellow, green, blue) the seat can hold,
   * proved by play; 255 = no bound.
   */
  colorCaps: [number, number, number, number],
}
/**
 * A Wild Draw Four whose challenge is pending.
 */
export interface Wd4Pending {
  offender: number,
  victim: number,
  /**
   * The colour and top card just before the WD4 was played.
   */
  prevColor: Color,
  prevTop: Card,
  /**
   * The offender's hand size right after playing it (guilt is judged on that hand).
   */
  handLen: number,
  /**
   * That hand itself: only in the offender's own observation.
   */
  hand?: Uint8Array,
}
export interface Observation {
  seat: number,
  players: number,
  decision: Decision,
  handNo: number,
  dealer: number,
  /**
   * Own hand, sorted by face.
   */
  hand: Uint8Array,
  top: Card,
  color: Color,
  /**
   * +1 clockwise, -1 counter-clockwise.
   */
  direction: number,
  pending: number,
  drawPile: number,
  discardPile: number,
  drawn?: Card,
  /**
   * Per face (index = card), how many are in opponents' hands and the draw pile.
   */
  unseen: Uint8Array,
  /**
   * The seat that must decide now.
   */
  toAct?: number,
  /**
   * The whole discard pile, bottom first (its last card is `top`).
   */
  discard: Uint8Array,
  /**
   * Turns begun in this hand.
   */
  turns: number,
  /**
   * Cards this player knows to be in other hands (after a challenge), as (seat, card)
   * in seat order.
   */
  known: Array<[number, Card]>,
  /**
   * Per seat, thirteen bytes (kinds 0-9, skip, reverse, draw two): the same bound by
   * kind (`wd4_restriction=NoMatchingCard` only); 255 = no bound.
   */
  kindCaps: Uint8Array,
  /**
   * The player who did not call UNO (uno-catch), or who played the WD4 (wd4-challenge).
   */
  offender?: number,
  wd4?: Wd4Pending,
  /**
   * One entry per seat, indexed by seat. (0.1.0 sent hand sizes, scores and colour caps
   * as separate lists; every list costs a call into the agent's allocator.)
   */
  seats: Array<SeatView>,
}
