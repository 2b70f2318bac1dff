/** @module Interface croupier:agent/host@0.2.0 **/
/**
 * Adds a line to this agent's log for the current game. The host escapes control
 * characters and keeps a bounded number of bytes per game; past the budget the agent is
 * faulted (`log-flood`).
 */
export function log(level: Level, message: string): void;
/**
 * The next number of this seat's own random stream, seeded from the match seed, the game
 * and the seat, so that a whole tournament replays bit for bit.
 */
export function random(): bigint;
/**
 * # Variants
 * 
 * ## `"error"`
 * 
 * ## `"warn"`
 * 
 * ## `"info"`
 * 
 * ## `"debug"`
 */
export type Level = 'error' | 'warn' | 'info' | 'debug';
