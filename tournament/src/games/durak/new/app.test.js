// Tries the strategy on hand-made observations, in plain Node: `npm test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Budget, Card, CardSet, Ctx, GameInfo, Local, agentRng } from './croupier/index.js';
import { Action, BoutCard, Observation, Phase } from './croupier/durak.js';
import { MyAgent } from './app.js';

function decide(obs, legal) {
  const agent = new MyAgent(new GameInfo({ seat: 0, players: 2, seed: 1 }));
  return agent.decide(obs, legal, new Ctx(new Budget(), agentRng(1), new Local()));
}

test('leads the cheapest plain card', () => {
  const hand = CardSet.of(['6S', '9C', '7H']);
  const obs = new Observation({ hand, trump: Card.parse('10S'), phase: Phase.LEAD });
  const legal = hand.cards().map((c) => Action.lead(c));
  assert.equal(String(decide(obs, legal)), 'lead 7H');
});

test('beats rather than takes', () => {
  const obs = new Observation({
    hand: CardSet.of(['QH', '8S']),
    trump: Card.parse('10S'),
    phase: Phase.DEFEND,
    table: [new BoutCard(Card.parse('9H'), null, 1)],
  });
  const legal = [Action.beat(0, Card.parse('QH')), Action.beat(0, Card.parse('8S')), Action.TAKE];
  assert.equal(String(decide(obs, legal)), 'beat 0 QH');
});

test('never throws in a trump', () => {
  const obs = new Observation({ hand: CardSet.of(['9S']), trump: Card.parse('10S'), phase: Phase.THROW_IN });
  const legal = [Action.throwIn(Card.parse('9S')), Action.PASS];
  assert.equal(decide(obs, legal), Action.PASS);
});
