"""Tries the strategy on hand-made observations, in plain Python: `python3 -m unittest`."""

import unittest

from croupier import Budget, Card, CardSet, Ctx, GameInfo, Local, agent_rng
from croupier.toepen import Action, Decision, Observation

from app import MyAgent


def decide(obs, legal):
    agent = MyAgent(GameInfo(seat=0, players=4, seed=1))
    return agent.decide(obs, legal, Ctx(Budget(), agent_rng(1), Local()))


class StrategyTest(unittest.TestCase):
    def test_wins_the_trick_as_cheaply_as_possible(self):
        hand = CardSet.of(["QC", "10C", "8H"])
        obs = Observation(hand=hand, trick=[(1, Card.parse("JC"))], live=0b1111, seat=0)
        legal = [Action.play(Card.parse("QC")), Action.play(Card.parse("10C"))]
        self.assertEqual(str(decide(obs, legal)), "play QC")

    def test_never_knocks(self):
        obs = Observation(decision=Decision.KNOCK_WINDOW)
        self.assertEqual(decide(obs, [Action.KNOCK, Action.NO_KNOCK]), Action.NO_KNOCK)


if __name__ == "__main__":
    unittest.main()
