// Tries the strategy on hand-made observations, in plain Node: `npm test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Budget, Ctx, GameInfo, Local, agentRng } from './croupier/index.js';
import { Action, Color, Decision, Observation, UnoCard } from './croupier/uno.js';
import { MyAgent } from './app.js';

function decide(obs, legal) {
  const agent = new MyAgent(new GameInfo({ seat: 0, players: 2, seed: 1 }));
  return agent.decide(obs, legal, new Ctx(new Budget(), agentRng(1), new Local()));
}

test('plays the card worth the most points', () => {
  const red3 = UnoCard.of(3);
  const redSkip = UnoCard.of(10);
  const obs = new Observation({ hand: [red3, redSkip], top: UnoCard.of(5), color: Color.RED });
  const legal = [Action.play(red3), Action.play(redSkip), Action.DRAW];
  assert.equal(String(decide(obs, legal)), 'play RSkip');
});

test('draws with nothing to play', () => {
  const obs = new Observation({ hand: [UnoCard.of(16)], top: UnoCard.of(5), color: Color.RED, decision: Decision.TURN });
  assert.equal(decide(obs, [Action.DRAW]), Action.DRAW);
});
