"""uno/python-primary: the Rust `uno/primary` strategy, written in Python on the SDK.

Among the cards it may play: a card of the top card's value (same number or symbol, any
colour), the first in hand order; else a number card of the current colour; else an action
card of the current colour; else a Wild, then a Wild Draw Four, naming a random colour. With
no card it draws (and plays the drawn card if it may). It stacks at a penalty turn whenever
it can, never challenges, always catches a forgotten UNO, and always calls UNO.

It plays exactly the games the Rust agent plays (cli/tests/cli/python.rs checks the records).
"""

from croupier import uno
from croupier.uno import Action, Decision, UnoCard


def pick(obs, cards):
    """Primary's choice among the playable `cards` (in hand order), or None."""
    value = obs.top.kind
    current = [c for c in cards if c.color == obs.color]
    for candidates in (
        [c for c in cards if value is not None and c.kind == value],
        [c for c in current if not c.is_action()],
        [c for c in current if c.is_action()],
        [c for c in cards if c == UnoCard.WILD],
        [c for c in cards if c.is_wd4()],
    ):
        if candidates:
            return candidates[0]
    return None


class Primary(uno.Agent):
    def decide(self, obs, legal, ctx):
        chosen = None
        if obs.decision == Decision.CHOOSE_START_COLOR:
            chosen = Action.choose_color(uno.random_color(ctx))
        elif obs.decision in (Decision.TURN, Decision.PENALTY_TURN, Decision.AFTER_DRAW):
            cards = uno.playable(obs, legal)
            if obs.decision == Decision.AFTER_DRAW:
                card = cards[0] if cards else None
            else:
                card = pick(obs, cards) if cards else None
            if card is not None:
                color = uno.random_color(ctx) if card.is_wild() else obs.color
                chosen = uno.play_action(obs, legal, card, color)
            else:
                chosen = next((a for a in (Action.DRAW, Action.ACCEPT_PENALTY, Action.KEEP) if a in legal), None)
        elif obs.decision == Decision.WD4_CHALLENGE:
            chosen = Action.ACCEPT
        elif obs.decision == Decision.UNO_CATCH:
            chosen = Action.CATCH
        return chosen if chosen is not None and chosen in legal else legal[0]


UnoAgent = uno.export(Primary)
