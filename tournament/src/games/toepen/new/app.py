"""My Toepen agent. Start in `decide`: it gets everything this seat may know (`obs`), the legal
actions, and a context (`ctx.rng` for seeded random numbers, `ctx.log` for the game record),
and must return one of the legal actions.
"""

from croupier import toepen
from croupier.toepen import Action, Trick


class MyAgent(toepen.Agent):
    def decide(self, obs, legal, ctx):
        # Knock windows, knock answers, laundry and poverty: never knock, stay in, claim
        # nothing. Replace this with your own betting when the card play works.
        answer = toepen.default_answer(obs, legal)
        if answer is not None:
            return answer
        # What you can use: obs.hand, obs.trick (seat, card) pairs, obs.trick_no,
        # obs.unseen, obs.seats[s].voids (suits a seat is known to lack), obs.stake.
        cards = toepen.legal_cards(legal)
        trick = Trick(obs)
        # Simple legal strategy: win the trick as cheaply as possible, else throw the weakest.
        winners = [c for c in cards if trick.wins_now(c)]
        card = toepen.lowest(winners) if winners else toepen.lowest(cards)
        return Action.play(card) if card is not None else legal[0]


# The name componentize-py looks for (None in plain Python, e.g. in the unit tests).
ToepenAgent = toepen.export(MyAgent)
