"""My Durak agent. Start in `decide`: it gets everything this seat may know (`obs`), the legal
actions, and a context (`ctx.rng` for seeded random numbers, `ctx.log` for the game record),
and must return one of the legal actions.
"""

from croupier import durak
from croupier.durak import Action, Decision, choose


def cost(card, trump):
    """Lower is cheaper: any plain card is cheaper than any trump."""
    return card.rank + (20 if card.suit == trump else 0)


class MyAgent(durak.Agent):
    def __init__(self, info):
        # info.seat is our seat, info.players the table size, info.rules the rule options.
        super().__init__(info)

    def decide(self, obs, legal, ctx):
        # What you can use: obs.hand, obs.table (attack/defence pairs), obs.trump_suit,
        # obs.discard (cards gone for good), obs.seats[s].known (cards known to be in each
        # hand), obs.unseen, obs.seats[s].hand_size. str(obs) and str(action) are readable.
        trump = obs.trump_suit
        # Simple legal strategy: play the cheapest card we can (lead, beat, throw in);
        # transferring is a choice to try later.
        playable = [a for a in legal if a.card is not None and a.kind != Action.TRANSFER]
        if not playable:
            return legal[0]  # take or pass: the only actions without a card
        best = min(playable, key=lambda a: cost(a.card, trump))
        # Keep trumps for defence: pass instead of throwing one in.
        if durak.decision(legal) == Decision.THROW_IN and best.card.suit == trump:
            return choose(legal, Action.PASS)
        return best


# The name componentize-py looks for (None in plain Python, e.g. in the unit tests).
DurakAgent = durak.export(MyAgent)
