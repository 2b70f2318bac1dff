"""Tries the strategy on hand-made observations, in plain Python: `python3 -m unittest`."""

import unittest

from croupier import Budget, Card, CardSet, Ctx, GameInfo, Local, agent_rng
from croupier.durak import Action, Observation, Phase

from app import MyAgent


def decide(obs, legal):
    agent = MyAgent(GameInfo(seat=0, players=2, seed=1))
    return agent.decide(obs, legal, Ctx(Budget(), agent_rng(1), Local()))


class StrategyTest(unittest.TestCase):
    def test_leads_the_cheapest_plain_card(self):
        hand = CardSet.of(["6S", "9C", "7H"])
        obs = Observation(hand=hand, trump=Card.parse("10S"), phase=Phase.LEAD)
        legal = [Action.lead(c) for c in hand]
        self.assertEqual(str(decide(obs, legal)), "lead 7H")

    def test_beats_rather_than_takes(self):
        obs = Observation(
            hand=CardSet.of(["QH", "8S"]),
            trump=Card.parse("10S"),
            phase=Phase.DEFEND,
            table=[(Card.parse("9H"), None, 1)],
        )
        legal = [Action.beat(0, Card.parse("QH")), Action.beat(0, Card.parse("8S")), Action.TAKE]
        self.assertEqual(str(decide(obs, legal)), "beat 0 QH")

    def test_never_throws_in_a_trump(self):
        obs = Observation(hand=CardSet.of(["9S"]), trump=Card.parse("10S"), phase=Phase.THROW_IN)
        legal = [Action.throw_in(Card.parse("9S")), Action.PASS]
        self.assertEqual(decide(obs, legal), Action.PASS)


if __name__ == "__main__":
    unittest.main()
