// durak/ts-cheapest: the Rust `durak/cheapest` strategy, written in TypeScript on the SDK.
//
// - Lead: the cheapest card (any plain card is cheaper than any trump; then rank; then suit).
// - Defend: plan the whole table, each unbeaten card in slot order: a trump by the cheapest
//   higher trump, a plain card by the cheapest higher card of its suit, else the cheapest
//   trump. Play the plan's first step; if some card cannot be beaten, transfer (only before
//   anything is beaten, with the cheapest plain card of the led rank) or take.
// - Throw in: a random plain card of a table rank, drawn from the seeded generator.
//
// It plays exactly the games the Rust agent plays (cli/tests/cli/js.rs checks the records).
import { Card, CardSet, Ctx } from '../../sdk/js/croupier/index.js';
import * as durak from '../../sdk/js/croupier/durak.js';
import { Action, Decision, cheapest, choose } from '../../sdk/js/croupier/durak.js';

/** The cheapest card of `hand` that beats `attack`, as the base defence chooses it. */
function cover(hand: CardSet, trump: number, attack: Card): Card | null {
  const higher = hand.ofSuit(attack.suit).cards().filter((c) => c.rank > attack.rank);
  if (higher.length > 0 || attack.suit === trump) return higher[0] ?? null;
  return cheapest(hand.ofSuit(trump), trump);
}

function defend(obs: durak.Observation, legal: Action[]): Action {
  const trump = obs.trumpSuit;
  let hand = obs.hand;
  let first: Action | null = null;
  let planned = true;
  for (const [slot, bout] of obs.table.entries()) {
    if (bout.defence !== null) continue;
    const card = cover(hand, trump, bout.attack);
    if (card === null) {
      planned = false;
      break;
    }
    hand = hand.without(card);
    first ??= Action.beat(slot, card);
  }
  if (planned && first !== null) return choose(legal, first);
  // The plan failed (or nothing is left to beat): transfer with a plain card, else take.
  if (obs.table.every((b) => b.defence === null)) {
    const transfers = legal
      .filter((a) => a.kind === durak.TRANSFER && a.card !== null && a.card.suit !== trump)
      .map((a) => a.card as Card);
    const card = cheapest(transfers, trump);
    if (card !== null) return Action.transfer(card);
  }
  return choose(legal, Action.TAKE);
}

class Cheapest extends durak.Agent {
  decide(obs: durak.Observation, legal: Action[], ctx: Ctx): Action {
    const kind = durak.decision(legal);
    if (kind === Decision.LEAD) {
      const card = cheapest(obs.hand, obs.trumpSuit);
      return choose(legal, card && Action.lead(card));
    }
    if (kind === Decision.DEFEND) return defend(obs, legal);
    const plain = durak.plain(durak.cardsOf(legal, durak.THROW_IN), obs.trumpSuit);
    if (plain.isEmpty()) return choose(legal, Action.PASS);
    return Action.throwIn(plain.cards()[ctx.rng.below(plain.size)]);
  }
}

export const durakAgent = durak.export(Cheapest);
