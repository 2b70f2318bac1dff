// My Durak agent. Start in `decide`: it gets everything this seat may know (`obs`), the legal
// actions, and a context (`ctx.rng` for seeded random numbers, `ctx.log` for the game record),
// and must return one of the legal actions.
import * as durak from './croupier/durak.js';
import { Action, Decision, choose } from './croupier/durak.js';

/** Lower is cheaper: any plain card is cheaper than any trump. */
function cost(card, trump) {
  return card.rank + (card.suit === trump ? 20 : 0);
}

export class MyAgent extends durak.Agent {
  decide(obs, legal, ctx) {
    // What you can use: obs.hand, obs.table (attack/defence pairs), obs.trumpSuit,
    // obs.discard (cards gone for good), obs.seats[s].known (cards known to be in each hand),
    // obs.unseen, obs.seats[s].handSize. String(obs) and String(action) are readable.
    const trump = obs.trumpSuit;
    // Simple legal strategy: play the cheapest card we can (lead, beat, throw in);
    // transferring is a choice to try later.
    const playable = legal.filter((a) => a.card !== null && a.kind !== durak.TRANSFER);
    if (playable.length === 0) return legal[0]; // take or pass: the only actions without a card
    let best = playable[0];
    for (const a of playable) if (cost(a.card, trump) < cost(best.card, trump)) best = a;
    // Keep trumps for defence: pass instead of throwing one in.
    if (durak.decision(legal) === Decision.THROW_IN && best.card.suit === trump) {
      return choose(legal, Action.PASS);
    }
    return best;
  }
}

// The name `croupier build` looks for.
export const durakAgent = durak.export(MyAgent);
