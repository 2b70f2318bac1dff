/** @module Interface croupier:agent/toepen-types@0.2.0 **/
export type Card = import('./croupier-agent-common.js').Card;
export type Cards = import('./croupier-agent-common.js').Cards;
/**
 * # Variants
 * 
 * ## `"laundry"`
 * 
 * ## `"laundry-challenge"`
 * 
 * ## `"poverty"`
 * 
 * ## `"play"`
 * 
 * ## `"knock-window"`
 * 
 * ## `"knock-response"`
 * 
 * ## `"over"`
 */
export type Decision = 'laundry' | 'laundry-challenge' | 'poverty' | 'play' | 'knock-window' | 'knock-response' | 'over';
/**
 * What this seat knows about one seat (its own included).
 */
export interface SeatView {
  score: number,
  /**
   * Cards that seat has played this round.
   */
  played: Cards,
  handCount: number,
  /**
   * Bit i: known to lack suit i.
   */
  voids: number,
  /**
   * The stake it folded at and will pay; 0 = not folded.
   */
  foldStake: number,
  /**
   * Its laundry hand revealed by a challenge (empty if none).
   */
  revealedBy: Cards,
  /**
   * Bit s set when seat s knows this seat's whole hand (0xff: everybody).
   */
  handKnowers: number,
  /**
   * The cards of its hand this player knows (own seat: the whole hand).
   */
  knownCards: Cards,
  /**
   * When it was eliminated (1, 2, ...); 0 = still in.
   */
  eliminatedAt: number,
}
export interface Observation {
  seat: number,
  players: number,
  decision: Decision,
  round: number,
  dealer: number,
  hand: Cards,
  /**
   * Bit s: seat s is eliminated.
   */
  eliminated: number,
  /**
   * Bit s: seat s is live in this round.
   */
  live: number,
  stake: number,
  lastKnocker?: number,
  stock: number,
  trickNo: number,
  leader: number,
  /**
   * The current trick as (seat, card) byte pairs in play order.
   */
  trick: Uint8Array,
  trickWinners: Uint8Array,
  unseen: Cards,
  ownLaundry: Cards,
  revealed: Cards,
  /**
   * The seat that must decide now.
   */
  toAct?: number,
  /**
   * Bit s: seat s was dealt in this round.
   */
  dealt: number,
  /**
   * Bit s: seat s's card in the current trick is dead (it folded after playing).
   */
  dead: number,
  /**
   * Completed tricks as (trick index, seat, card) byte triples.
   */
  pastTricks: Uint8Array,
  /**
   * Bit s: seat s is poor this round (poverty rule).
   */
  poor: number,
  laundryDone: number,
  claimed: number,
  whiteClaims: number,
  challenged: number,
  returned: number,
  claimant?: number,
  povertyDone: number,
  /**
   * Open knock window (any-card-boundary timing): (first seat asked, offset).
   */
  knockWindow?: [number, number],
  /**
   * Stock blocks of four whose cards some seats know, as (block, seat mask) pairs.
   */
  stockKnowers: Uint8Array,
  /**
   * Stock blocks this player knows the cards of: (block from the top, cards).
   */
  knownStock: Array<[number, Cards]>,
  /**
   * One entry per seat, indexed by seat. (0.1.0 sent each of these as its own list;
   * every list costs a call into the agent's allocator, so they travel together.)
   */
  seats: Array<SeatView>,
}
