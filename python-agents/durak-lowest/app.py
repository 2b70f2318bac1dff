"""durak/python-lowest: the Rust `durak/cheapest` strategy, written in Python on the SDK.

* Lead: the cheapest card (any plain card is cheaper than any trump; then rank; then suit).
* Defend: plan the whole table, each unbeaten card in slot order: a trump by the cheapest
  higher trump, a plain card by the cheapest higher card of its suit, else the cheapest
  trump. Play the plan's first step; if some card cannot be beaten, transfer (only before
  anything is beaten, with the cheapest plain card of the led rank) or take.
* Throw in: a random plain card of a table rank, drawn from the seeded generator.

It plays exactly the games the Rust agent plays (cli/tests/cli/python.rs checks the records).
"""

from croupier import CardSet, durak
from croupier.durak import Action, Decision, cheap_key, cheapest, choose


def cover(hand, trump, attack):
    """The cheapest card of `hand` that beats `attack`, as the base defence chooses it."""
    higher = [c for c in hand.of_suit(attack.suit) if c.rank > attack.rank]
    if higher or attack.suit == trump:
        return min(higher, key=lambda c: c.rank, default=None)
    return cheapest(hand.of_suit(trump), trump)


def defend(obs, legal):
    hand, trump = obs.hand, obs.trump_suit
    first = None
    for slot, bout in enumerate(obs.table):
        if bout.defence is not None:
            continue
        card = cover(hand, trump, bout.attack)
        if card is None:
            first = None
            break
        hand = hand.without(card)
        if first is None:
            first = Action.beat(slot, card)
    else:
        if first is not None:
            return choose(legal, first)
    # The plan failed (or nothing is left to beat): transfer with a plain card, else take.
    if not any(b.defence is not None for b in obs.table):
        transfers = [a.card for a in legal if a.kind == Action.TRANSFER and a.card.suit != trump]
        if transfers:
            return Action.transfer(min(transfers, key=lambda c: cheap_key(c, trump)))
    return choose(legal, Action.TAKE)


class Lowest(durak.Agent):
    def decide(self, obs, legal, ctx):
        kind = durak.decision(legal)
        if kind == Decision.LEAD:
            card = cheapest(obs.hand, obs.trump_suit)
            return choose(legal, Action.lead(card) if card is not None else None)
        if kind == Decision.DEFEND:
            return defend(obs, legal)
        plain = durak.plain(durak.cards_of(legal, Action.THROW_IN), obs.trump_suit)
        if not plain:
            return choose(legal, Action.PASS)
        return Action.throw_in(plain.cards()[ctx.rng.below(len(plain))])


DurakAgent = durak.export(Lowest)
