// Tries the strategy on hand-made observations, in plain Node: `npm test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Budget, Card, CardSet, Ctx, GameInfo, Local, agentRng } from './croupier/index.js';
import { Action, Decision, Observation } from './croupier/toepen.js';
import { MyAgent } from './app.js';

function decide(obs, legal) {
  const agent = new MyAgent(new GameInfo({ seat: 0, players: 4, seed: 1 }));
  return agent.decide(obs, legal, new Ctx(new Budget(), agentRng(1), new Local()));
}

const c = (t) => Card.parse(t);

test('wins the trick as cheaply as possible', () => {
  const obs = new Observation({
    hand: CardSet.of(['10D', '8D', 'JC']),
    live: 0b1111,
    trick: [{ seat: 3, card: c('7D') }],
  });
  const legal = ['10D', '8D'].map((t) => Action.play(c(t)));
  assert.equal(String(decide(obs, legal)), 'play 8D');
});

test('never knocks', () => {
  const obs = new Observation({ decision: Decision.KNOCK_WINDOW });
  assert.equal(decide(obs, [Action.KNOCK, Action.NO_KNOCK]), Action.NO_KNOCK);
});
