/** @module Interface croupier:agent/common@0.2.0 **/
/**
 * A card as one byte. Durak and Toepen: `suit * 13 + (rank - 2)`, suits clubs, diamonds,
 * hearts, spades; ranks 2..14 (J 11, Q 12, K 13, A 14). UNO: `colour * 13 + kind` (red,
 * yellow, green, blue; kind 0-9, 10 skip, 11 reverse, 12 draw two), 52 wild, 53 wild draw four.
 */
export type Card = number;
/**
 * A set of French-suited cards: bit `card` is set when the card is in the set.
 */
export type Cards = bigint;
/**
 * An action in its game's compact encoding (documented in each game's interface). The
 * SDK turns it into an idiomatic enum.
 */
export type Action = number;
/**
 * What is left to spend on this decision.
 */
export interface Budget {
  /**
   * Fuel (roughly, WebAssembly instructions) for this decision.
   */
  fuel: bigint,
  /**
   * Wall-clock milliseconds for this decision.
   */
  millis: number,
  /**
   * Milliseconds left in this game's time bank, when the match has one.
   */
  bankMillis?: number,
}
/**
 * Sent once per game, before the first decision.
 */
export interface GameInfo {
  /**
   * This agent's seat.
   */
  seat: number,
  players: number,
  /**
   * The preset the rules start from, by its user-facing name (e.g. `teams`).
   */
  preset: string,
  /**
   * The options that differ from `preset`, as (name, value), e.g. ("transfer",
   * "true"); empty when the preset is played as it is. (0.1.0 sent every option; this
   * is cheaper to send and to parse at the start of every game.)
   */
  rules: Array<[string, string]>,
  /**
   * This agent's seed for this game (the `random` import is already seeded from it).
   */
  seed: bigint,
  /**
   * Free text given after `#` on the command line, e.g. `iters=500`.
   */
  args: string,
}
