"""Tries the strategy on hand-made observations, in plain Python: `python3 -m unittest`."""

import unittest

from croupier import Budget, Ctx, GameInfo, Local, agent_rng
from croupier.uno import Action, Color, Observation, UnoCard

from app import MyAgent


def decide(obs, legal):
    agent = MyAgent(GameInfo(seat=0, players=2, seed=1))
    return agent.decide(obs, legal, Ctx(Budget(), agent_rng(1), Local()))


class StrategyTest(unittest.TestCase):
    def test_plays_the_most_points(self):
        r3, r_skip = UnoCard(3), UnoCard(10)
        obs = Observation(hand=[r3, r_skip], top=UnoCard(5), color=Color.RED)
        legal = [Action.play(r3), Action.play(r_skip), Action.DRAW]
        self.assertEqual(str(decide(obs, legal)), "play RSkip")

    def test_draws_without_a_playable_card(self):
        obs = Observation(hand=[UnoCard(16)], top=UnoCard(5), color=Color.RED)
        self.assertEqual(decide(obs, [Action.DRAW]), Action.DRAW)


if __name__ == "__main__":
    unittest.main()
