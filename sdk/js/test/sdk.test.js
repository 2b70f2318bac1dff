// The JavaScript SDK on plain Node: `node --test sdk/js/test/` (cli/tests/js.rs runs it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Card, CardSet, Local, agentRng } from '../croupier/index.js';
import * as durak from '../croupier/durak.js';

test('cards read and print as the Rust SDK does', () => {
  assert.equal(String(Card.parse('10h')), '10H');
  assert.equal(Card.parse('QS').rank, 12);
  assert.equal(Card.parse('QS').suit, 3);
  assert.equal(Card.of(0).toString(), '2C');
  assert.equal(Card.parse('AS'), Card.of(51)); // interned: one object per code
  assert.throws(() => Card.parse('1Z'), /not a card/);
});

test('card sets hold all 52 cards, the high ones too', () => {
  const s = CardSet.of(['2C', 'KH', 'AS', '9D']);
  assert.equal(s.size, 4);
  assert.equal(String(s), '9D KH 2C AS'.split(' ').map((t) => Card.parse(t)).sort((a, b) => a.code - b.code).join(' '));
  assert.ok(s.has(Card.parse('AS')) && !s.has(Card.parse('AH')));
  assert.equal(CardSet.fromMask(s.mask()).mask(), s.mask());
  assert.equal(CardSet.fromMask(BigInt(s.mask())).mask(), s.mask());
  assert.equal(String(s.ofSuit(3)), 'AS');
  assert.equal(s.without(Card.parse('AS')).size, 3);
  assert.equal(String(new CardSet()), '-');
});

test('the generator draws exactly the Python (and Rust) numbers', () => {
  // python3 -c "import sys; sys.path.insert(0,'sdk/python'); from croupier import agent_rng;
  //   r=agent_rng(42); print([r.next_u64() for _ in range(3)]); r=agent_rng(2**63+12345);
  //   print([r.below(7) for _ in range(10)], r.unit())"
  const r = agentRng(42n);
  assert.deepEqual([r.nextU64(), r.nextU64(), r.nextU64()], [4237215954368412461n, 4791381984420237880n, 14065715860323681832n]);
  const s = agentRng(2n ** 63n + 12345n);
  assert.deepEqual(Array.from({ length: 10 }, () => s.below(7)), [6, 4, 2, 1, 2, 5, 0, 3, 5, 3]);
  assert.equal(s.unit(), 0.4226933957308081);
});

test('durak actions print as the Python SDK does', () => {
  const ks = Card.parse('KS');
  assert.equal(String(durak.Action.beat(0, ks)), 'beat 0 KS');
  assert.equal(String(durak.Action.lead(ks)), 'lead KS');
  assert.equal(String(durak.Action.TAKE), 'take');
  assert.equal(String(durak.Action.leadMany(6, 0b0101)), 'lead 6C 6H');
  assert.equal(new durak.Action(durak.Action.beat(2, ks).code).slot, 2);
});

test('an exported agent plays raw host values and logs its exceptions', () => {
  class Cheap extends durak.Agent {
    decide(obs, legal) {
      if (obs.hand.size === 0) throw new RangeError('empty hand');
      const c = durak.cheapest(obs.hand, obs.trumpSuit);
      return durak.choose(legal, c && durak.Action.lead(c));
    }
  }
  const local = new Local();
  globalThis.croupierHost = local;
  try {
    const a = durak.export(Cheap);
    a.start({ seat: 0, players: 2, preset: 'classic', rules: [], seed: 1, args: '' });
    const hand = CardSet.of(['AS', '6H', '7C']);
    const raw = {
      seat: 0, actingFor: 0, players: 2, teams: false, trump: Card.parse('9S').code, trumpHolder: null,
      talon: 20, hand: hand.mask(), out: 0, phase: 'lead', attacker: 0, defender: 1, h0: 6, limit: 6,
      taking: false, passed: 0, table: [], shown: 0, discard: 0, unseen: 0, bout: 1, leader: 0, dealer: 1,
      ownKnown: 0, lowTrumps: 0, seats: [{ handSize: 3, known: hand.mask(), finish: 0, lowTrumpRoom: 0 }],
    };
    const legal = [...hand].map((c) => durak.Action.lead(c).code);
    assert.equal(String(new durak.Action(a.decide(raw, legal, { fuel: 1, millis: 1, bankMillis: null }))), 'lead 6H');
    assert.throws(() => a.decide({ ...raw, hand: 0 }, legal, { fuel: 1, millis: 1 }), RangeError);
    assert.match(local.lines.at(-1)[1], /RangeError: empty hand/);
    assert.equal(local.lines.at(-1)[0], 'error');
  } finally {
    delete globalThis.croupierHost;
  }
});
