// uno/js-primary: the Rust `uno/primary` strategy, written in JavaScript on the SDK.
//
// Among the cards it may play: a card of the top card's value (same number or symbol, any
// colour), the first in hand order; else a number card of the current colour; else an action
// card of the current colour; else a Wild, then a Wild Draw Four, naming a random colour.
// With no card it draws (and plays the drawn card if it may). It stacks at a penalty turn
// whenever it can, never challenges, always catches a forgotten UNO, and always calls UNO.
//
// It plays exactly the games the Rust agent plays (cli/tests/cli/js.rs checks the records).
import * as uno from '../../sdk/js/croupier/uno.js';
import { Action, Decision, UnoCard } from '../../sdk/js/croupier/uno.js';

/**
 * Primary's choice among the playable `cards` (in hand order), or null.
 * @param {uno.Observation} obs @param {UnoCard[]} cards
 */
function pick(obs, cards) {
  const value = obs.top.kind;
  const current = cards.filter((c) => c.color === obs.color);
  for (const candidates of [
    cards.filter((c) => value !== null && c.kind === value),
    current.filter((c) => !c.isAction()),
    current.filter((c) => c.isAction()),
    cards.filter((c) => c === UnoCard.WILD),
    cards.filter((c) => c.isWd4()),
  ]) {
    if (candidates.length) return candidates[0];
  }
  return null;
}

class Primary extends uno.Agent {
  decide(obs, legal, ctx) {
    let chosen = null;
    const d = obs.decision;
    if (d === Decision.CHOOSE_START_COLOR) {
      chosen = Action.chooseColor(uno.randomColor(ctx));
    } else if (d === Decision.TURN || d === Decision.PENALTY_TURN || d === Decision.AFTER_DRAW) {
      const cards = uno.playable(obs, legal);
      const card = d === Decision.AFTER_DRAW ? (cards[0] ?? null) : pick(obs, cards);
      if (card) {
        const color = card.isWild() ? uno.randomColor(ctx) : obs.color;
        chosen = uno.playAction(obs, legal, card, color);
      } else {
        chosen = [Action.DRAW, Action.ACCEPT_PENALTY, Action.KEEP].find((a) => legal.some((l) => l.code === a.code)) ?? null;
      }
    } else if (d === Decision.WD4_CHALLENGE) {
      chosen = Action.ACCEPT;
    } else if (d === Decision.UNO_CATCH) {
      chosen = Action.CATCH;
    }
    return chosen && legal.some((l) => l.code === chosen.code) ? chosen : legal[0];
  }
}

export const unoAgent = uno.export(Primary);
