"""My UNO agent. Start in `decide`: it gets everything this seat may know (`obs`), the legal
actions, and a context (`ctx.rng` for seeded random numbers, `ctx.log` for the game record),
and must return one of the legal actions.
"""

from croupier import uno
from croupier.uno import Action, Decision


class MyAgent(uno.Agent):
    def decide(self, obs, legal, ctx):
        # What you can use: obs.hand, obs.top, obs.color, obs.pending (cards a penalty makes
        # you draw), obs.seats[s].hand_size, obs.unseen (per card, how many are still out).
        if obs.decision == Decision.CHOOSE_START_COLOR:
            return Action.choose_color(uno.most_held_color(obs))
        cards = uno.playable(obs, legal)
        if cards:
            # Simple legal strategy: get rid of the most points first (wilds last resort).
            card = max(cards, key=lambda c: -1 if c.is_wd4() else c.points())
            color = uno.most_held_color(obs, card) if card.is_wild() else obs.color
            action = uno.play_action(obs, legal, card, color)
            if action is not None:
                return action
        for wanted in (Action.DRAW, Action.ACCEPT_PENALTY, Action.KEEP, Action.CATCH, Action.ACCEPT):
            if wanted in legal:
                return wanted
        return legal[0]


# The name componentize-py looks for (None in plain Python, e.g. in the unit tests).
UnoAgent = uno.export(MyAgent)
