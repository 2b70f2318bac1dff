/** @module Interface croupier:agent/durak-types@0.2.0 **/
export type Card = import('./croupier-agent-common.js').Card;
export type Cards = import('./croupier-agent-common.js').Cards;
/**
 * # Variants
 * 
 * ## `"lead"`
 * 
 * ## `"defend"`
 * 
 * ## `"throw-in"`
 * 
 * ## `"over"`
 */
export type Phase = 'lead' | 'defend' | 'throw-in' | 'over';
/**
 * What this seat knows about one seat (its own included).
 */
export interface SeatView {
  handSize: number,
  /**
   * Cards known to be in that seat's hand.
   */
  known: Cards,
  /**
   * Finishing place (1 = out first; shared when out together); 0 = still in.
   */
  finish: number,
  /**
   * How many `low-trumps` the unknown part of that hand can hold at most.
   */
  lowTrumpRoom: number,
}
/**
 * One attack card of the bout and its defence.
 */
export interface BoutCard {
  attack: Card,
  /**
   * None while uncovered.
   */
  defence?: Card,
  /**
   * Who played the attack card (the player whose hand it left).
   */
  attacker: number,
}
/**
 * Everything this seat may know, including what a player with perfect memory knows.
 */
export interface Observation {
  seat: number,
  /**
   * The seat this decision is made for (differs from `seat` when playing for a partner
   * who is out).
   */
  actingFor: number,
  players: number,
  teams: boolean,
  trump: Card,
  /**
   * Who took the trump card into hand; none while it lies under the talon.
   */
  trumpHolder?: number,
  /**
   * Cards in the talon, the trump card included.
   */
  talon: number,
  hand: Cards,
  /**
   * Bit s set: seat s is out.
   */
  out: number,
  phase: Phase,
  attacker: number,
  defender: number,
  h0: number,
  limit: number,
  taking: boolean,
  /**
   * Bit s set: seat s passed since the table last changed.
   */
  passed: number,
  /**
   * The bout in progress, in the order the attack cards were played.
   */
  table: Array<BoutCard>,
  shown: Cards,
  discard: Cards,
  unseen: Cards,
  bout: number,
  /**
   * The seat that led the bout in progress (differs from `attacker` after a transfer).
   */
  leader: number,
  dealer: number,
  /**
   * The cards of the own hand that everybody knows.
   */
  ownKnown: Cards,
  /**
   * Trumps no hand held at the deal (below the revealed lowest trump).
   */
  lowTrumps: Cards,
  /**
   * One entry per seat, indexed by seat. (0.1.0 sent each of these as its own list;
   * every list costs a call into the agent's allocator, so they travel together.)
   */
  seats: Array<SeatView>,
}
