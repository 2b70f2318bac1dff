/** @module Interface croupier:agent/durak-agent@0.2.0 **/
export function start(info: GameInfo): void;
export function decide(obs: Observation, legal: Uint32Array, budget: Budget): Action;
export type GameInfo = import('./croupier-agent-common.js').GameInfo;
export type Action = import('./croupier-agent-common.js').Action;
export type Budget = import('./croupier-agent-common.js').Budget;
export type Observation = import('./croupier-agent-durak-types.js').Observation;
