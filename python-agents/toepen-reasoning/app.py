"""toepen/python-reasoning: the Rust `toepen/reasoning` strategy, written in Python on the SDK.

* cannot follow suit: its lowest card;
* can follow but cannot win the trick: the lowest card of the led suit;
* can win: the lowest card that wins the trick as it stands;
* leading: in tricks 1-2 its lowest card, in tricks 3-4 its highest.

"Lowest" and "highest" are by Toepen strength (J < Q < K < A < 7 < 8 < 9 < 10), ties to the
lower card code. It never knocks, stays when another player knocks, claims no laundry and
challenges nobody (`toepen.default_answer`).

It plays exactly the games the Rust agent plays (cli/tests/cli/python.rs checks the records).
"""

from croupier import toepen
from croupier.toepen import Action, Trick, highest, lowest


def reasoning_card(cards, trick):
    if trick.leading():
        return lowest(cards) if trick.number <= 2 else highest(cards)
    winners = [c for c in cards if trick.wins_now(c)]
    return lowest(winners) if winners else lowest(cards)


class Reasoning(toepen.Agent):
    def decide(self, obs, legal, ctx):
        answer = toepen.default_answer(obs, legal)
        if answer is not None:
            return answer
        cards = toepen.legal_cards(legal)
        card = reasoning_card(cards, Trick(obs)) if cards else None
        if card is not None and card in cards:
            return Action.play(card)
        return toepen.fallback(legal) or Action.NO_CLAIM


ToepenAgent = toepen.export(Reasoning)
