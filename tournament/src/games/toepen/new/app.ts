// My Toepen agent. Start in `decide`: it gets everything this seat may know (`obs`), the legal
// actions, and a context (`ctx.rng` for seeded random numbers, `ctx.log` for the game record),
// and must return one of the legal actions.
import { Ctx } from './croupier/index.js';
import * as toepen from './croupier/toepen.js';
import { Action, Trick } from './croupier/toepen.js';

export class MyAgent extends toepen.Agent {
  decide(obs: toepen.Observation, legal: Action[], ctx: Ctx): Action {
    void ctx;
    // Knock windows, knock answers, laundry and poverty: never knock, stay in, claim nothing.
    // Replace this with your own betting when the card play works.
    const answer = toepen.defaultAnswer(obs, legal);
    if (answer !== null) return answer;
    // What you can use: obs.hand, obs.trick ({seat, card} in play order), obs.trickNo,
    // obs.unseen, obs.seats[s].voids (suits a seat is known to lack), obs.stake.
    const cards = toepen.legalCards(legal);
    const trick = new Trick(obs);
    // Simple legal strategy: win the trick as cheaply as possible, else throw the weakest.
    const winners = cards.cards().filter((c) => trick.winsNow(c));
    const card = winners.length > 0 ? toepen.lowest(winners) : toepen.lowest(cards);
    return card !== null ? Action.play(card) : legal[0];
  }
}

// The name `croupier build` looks for.
export const toepenAgent = toepen.export(MyAgent);
