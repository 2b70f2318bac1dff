// toepen/js-reasoning: the Rust `toepen/reasoning` strategy, written in JavaScript on the SDK.
//
// - cannot follow suit: its lowest card;
// - can follow but cannot win the trick: the lowest card of the led suit;
// - can win: the lowest card that wins the trick as it stands;
// - leading: in tricks 1-2 its lowest card, in tricks 3-4 its highest.
//
// "Lowest" and "highest" are by Toepen strength (J < Q < K < A < 7 < 8 < 9 < 10), ties to the
// lower card code. It never knocks, stays when another player knocks, claims no laundry and
// challenges nobody (`toepen.defaultAnswer`). It draws no random numbers, so QuickJS (which
// rounds the 64-bit seed) plays it exactly.
//
// It plays exactly the games the Rust agent plays (cli/tests/cli/js.rs checks the records).
import * as toepen from '../../sdk/js/croupier/toepen.js';
import { Action, Trick, highest, lowest } from '../../sdk/js/croupier/toepen.js';

/** @param {import('../../sdk/js/croupier/index.js').CardSet} cards @param {Trick} trick */
function reasoningCard(cards, trick) {
  if (trick.leading()) return trick.number <= 2 ? lowest(cards) : highest(cards);
  const winners = cards.cards().filter((c) => trick.winsNow(c));
  return winners.length ? lowest(winners) : lowest(cards);
}

class Reasoning extends toepen.Agent {
  decide(obs, legal) {
    const answer = toepen.defaultAnswer(obs, legal);
    if (answer) return answer;
    const cards = toepen.legalCards(legal);
    const card = cards.isEmpty() ? null : reasoningCard(cards, new Trick(obs));
    if (card && cards.has(card)) return Action.play(card);
    return toepen.fallback(legal) ?? Action.NO_CLAIM;
  }
}

export const toepenAgent = toepen.export(Reasoning);
