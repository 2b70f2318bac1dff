// My UNO agent. Start in `decide`: it gets everything this seat may know (`obs`), the legal
// actions, and a context (`ctx.rng` for seeded random numbers, `ctx.log` for the game record),
// and must return one of the legal actions.
import * as uno from './croupier/uno.js';
import { Action, Decision } from './croupier/uno.js';

/** Wild Draw Fours last; otherwise the card worth the most points first. */
const worth = (card) => (card.isWd4() ? -1 : card.points());

export class MyAgent extends uno.Agent {
  decide(obs, legal, ctx) {
    // What you can use: obs.hand, obs.top, obs.color, obs.pending (cards a penalty makes you
    // draw), obs.seats[s].handSize, obs.unseen (per card code, how many are still out).
    if (obs.decision === Decision.CHOOSE_START_COLOR) return Action.chooseColor(uno.mostHeldColor(obs));
    const cards = uno.playable(obs, legal);
    if (cards.length > 0) {
      // Simple legal strategy: get rid of the most points first (wilds as a last resort).
      let card = cards[0];
      for (const c of cards) if (worth(c) > worth(card)) card = c;
      const color = card.isWild() ? uno.mostHeldColor(obs, card) : obs.color;
      const action = uno.playAction(obs, legal, card, color);
      if (action !== null) return action;
    }
    for (const wanted of [Action.DRAW, Action.ACCEPT_PENALTY, Action.KEEP, Action.CATCH, Action.ACCEPT]) {
      const found = legal.find((a) => a.code === wanted.code);
      if (found) return found;
    }
    return legal[0];
  }
}

// The name `croupier build` looks for.
export const unoAgent = uno.export(MyAgent);
