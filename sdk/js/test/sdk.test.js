// The JavaScript SDK on plain Node: `node --test sdk/js/test/` (cli/tests/cli/js.rs runs it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Card, CardSet, Local, agentRng } from '../croupier/index.js';
import * as durak from '../croupier/durak.js';
import * as toepen from '../croupier/toepen.js';
import * as uno from '../croupier/uno.js';

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

test('toepen actions, helpers and observations read as the Python SDK does', async () => {
  const toepen = await import('../croupier/toepen.js');
  const { Action, Decision } = toepen;
  const c = (/** @type {string} */ t) => Card.parse(t);
  assert.deepEqual(
    [Action.play(c('10H')), Action.NO_KNOCK, Action.CLAIM_WHITE_LAUNDRY, Action.NO_CHALLENGE].map(String),
    ['play 10H', 'no-knock', 'white-laundry', 'no-challenge'],
  );
  // J < Q < K < A < 7 < 8 < 9 < 10; ties to the lower code.
  assert.equal(String(toepen.lowest(['JC', '10C', 'AC', '7C', 'JH'].map(c))), 'JC');
  assert.equal(String(toepen.highest(['JC', '10C', 'AC', '7C', '10H'].map(c))), '10H');
  const legal = [Action.play(c('JC')), Action.KNOCK, Action.play(c('9D'))];
  assert.equal(String(toepen.legalCards(legal)), 'JC 9D');
  // The raw shape the host sends: trick as (seat, card) byte pairs, past tricks as triples.
  const raw = {
    seat: 1, players: 4, decision: 'play', round: 2, dealer: 0, hand: CardSet.of(['JC', '9D']).mask(),
    eliminated: 0, live: 0b1111, stake: 2, lastKnocker: 3, stock: 8, trickNo: 2, leader: 0,
    trick: Uint8Array.from([0, c('8D').code, 3, c('10D').code]), trickWinners: Uint8Array.from([0]),
    unseen: 0, ownLaundry: 0, revealed: 0, toAct: 1, dealt: 0b1111, dead: 0b1000,
    pastTricks: Uint8Array.from([0, 0, c('AC').code, 0, 1, c('KC').code]), poor: 0, laundryDone: 0,
    claimed: 0, whiteClaims: 0, challenged: 0, returned: 0, claimant: undefined, povertyDone: 0,
    knockWindow: undefined, stockKnowers: Uint8Array.from([1, 0b11]), knownStock: [[1, CardSet.of(['QS']).mask()]],
    seats: Array.from({ length: 4 }, () => ({ score: 0, played: 0, handCount: 3, voids: 0, foldStake: 0, revealedBy: 0, handKnowers: 0, knownCards: 0, eliminatedAt: 0 })),
  };
  const obs = toepen.Observation.fromWit(raw);
  assert.equal(obs.decision, Decision.PLAY);
  assert.equal(String(obs), 'P1 play: hand JC 9D; trick 2 P0:8D P3:10D; stake 2');
  assert.deepEqual(obs.pastTricks[0].map((p) => `${p.seat}:${p.card}`), ['0:AC', '1:KC']);
  assert.deepEqual(obs.stockKnowers, [[1, 3]]);
  assert.equal(String(obs.knownStock[0][1]), 'QS');
  assert.equal(obs.claimant, null);
  // Seat 3's 10D is dead (it folded), so 8D is the card to beat; seat 2 still plays.
  const trick = new toepen.Trick(obs);
  assert.equal(String(trick.best), '8D');
  assert.equal(trick.stillToPlay, 1);
  assert.ok(trick.winsNow(c('9D')) && !trick.winsNow(c('JD')) && !trick.winsNow(c('10C')));
  // The cautious answers.
  const answer = (/** @type {string} */ d, /** @type {any[]} */ l) => String(toepen.defaultAnswer(new toepen.Observation({ decision: d }), l));
  assert.equal(answer(Decision.KNOCK_WINDOW, [Action.KNOCK, Action.NO_KNOCK]), 'no-knock');
  assert.equal(answer(Decision.KNOCK_RESPONSE, [Action.FOLD, Action.STAY]), 'stay');
  assert.equal(answer(Decision.LAUNDRY, [Action.CLAIM_LAUNDRY, Action.NO_CLAIM]), 'no-claim');
  assert.equal(answer(Decision.LAUNDRY_CHALLENGE, [Action.CHALLENGE, Action.NO_CHALLENGE]), 'no-challenge');
  assert.equal(toepen.defaultAnswer(new toepen.Observation({ decision: Decision.PLAY }), legal), null);
});

test('uno cards, actions, helpers and observations read as the Python SDK does', async () => {
  const uno = await import('../croupier/uno.js');
  const { Action, Color, Decision, UnoCard } = uno;
  const wildGreen = Action.play(UnoCard.WILD, Color.GREEN, true);
  assert.equal(wildGreen.code, 16987138);
  assert.deepEqual(
    [wildGreen, Action.chooseColor(Color.BLUE), new Action(uno.STACK | (12 << 8)), new Action(uno.PLAY_DRAWN), Action.CATCH, Action.ACCEPT_PENALTY].map(String),
    ['play W green uno', 'color blue', 'stack RD2', 'play-drawn', 'catch', 'accept-penalty'],
  );
  assert.deepEqual([23, 38, 53].map((n) => String(UnoCard.of(n))), ['YSkip', 'GD2', 'W4']);
  assert.equal(UnoCard.of(23).color, Color.YELLOW);
  assert.equal(UnoCard.of(23).points(), 20);
  assert.equal(UnoCard.WILD.color, null);
  const raw = {
    seat: 0, players: 2, decision: 'turn', handNo: 1, dealer: 1, hand: Uint8Array.from([3, 16, 52]), top: 29,
    color: 'green', direction: 1, pending: 0, drawPile: 80, discardPile: 1, drawn: undefined,
    unseen: new Uint8Array(54), toAct: 0, discard: Uint8Array.from([29]), turns: 0, known: [[1, 5]],
    kindCaps: new Uint8Array(26), offender: undefined, wd4: undefined,
    seats: [{ handSize: 3, score: 10n, colorCaps: [255, 255, 255, 255] }, { handSize: 7, score: 0, colorCaps: [255, 1, 255, 255] }],
  };
  const obs = uno.Observation.fromWit(raw);
  assert.equal(String(obs), 'P0 turn: hand R3 Y3 W; top G3 (green); pending 0');
  assert.equal(obs.color, Color.GREEN);
  assert.equal(obs.seats[0].score, 10);
  assert.equal(String(obs.known[0][1]), 'R5');
  // A wild may name any colour: the wanted colour with UNO wins over another colour.
  const legal = [
    Action.play(UnoCard.of(3)),
    Action.play(UnoCard.WILD, Color.RED),
    Action.play(UnoCard.WILD, Color.BLUE),
    Action.play(UnoCard.WILD, Color.BLUE, true),
    Action.DRAW,
  ];
  assert.deepEqual(uno.playable(obs, legal).map(String), ['R3', 'W']);
  assert.equal(String(uno.playAction(obs, legal, UnoCard.WILD, Color.BLUE)), 'play W blue uno');
  // Green is not offered: any colour, and UNO when that is an option.
  assert.equal(String(uno.playAction(obs, legal, UnoCard.WILD, Color.GREEN)), 'play W blue uno');
  assert.equal(uno.playAction(obs, legal, UnoCard.of(16), Color.RED), null);
  assert.equal(uno.mostHeldColor(obs), Color.RED); // a tie between red and yellow: colour order
  assert.equal(uno.mostHeldColor(obs, UnoCard.of(3)), Color.YELLOW);
  assert.equal(obs.decision, Decision.TURN);
});

test('an agent that does not write decide fails loudly, as in the Python SDK', () => {
  class Forgot extends durak.Agent {}
  for (const [game, Agent] of [['durak', Forgot], ['toepen', toepen.Agent], ['uno', uno.Agent]]) {
    const agent = new Agent({ seat: 0, players: 2 });
    assert.throws(() => agent.decide({}, [1], {}), /implement decide/, game);
  }
});
