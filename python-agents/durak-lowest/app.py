"""durak/python-lowest: a Durak agent in Python.

Plays the cheapest card it can (any plain card is cheaper than any trump), never throws in
trumps, never transfers, and takes or passes when no card fits. It runs in the same sandbox
as the Rust agents, under the same limits, with nothing but the game world: componentize-py
builds it with --stub-wasi, so the component imports no WASI at all.

Cards are bytes: suit * 13 + (rank - 2), suits clubs, diamonds, hearts, spades. Actions are
u32 codes: kind | a << 8 | b << 16 (see wit/durak.wit).
"""

from wit_world import exports
from wit_world.imports import common, durak_types, host

LEAD, BEAT, TRANSFER, THROW_IN, PASS, TAKE = 1, 3, 4, 7, 8, 6


def rank(card: int) -> int:
    return card % 13 + 2


def suit(card: int) -> int:
    return card // 13


class DurakAgent(exports.DurakAgent):
    def start(self, info: common.GameInfo) -> None:
        self.seat = info.seat
        host.log(host.Level.INFO, f"python-lowest in seat {info.seat} of {info.players}")

    def decide(self, obs: durak_types.Observation, legal: list[int], budget: common.Budget) -> int:
        trump = suit(obs.trump)

        def cost(card: int) -> int:
            return rank(card) + (20 if suit(card) == trump else 0)

        best = None
        for code in legal:
            kind, card = code & 0xFF, (code >> 8) & 0xFF
            if kind in (LEAD, BEAT) or (kind == THROW_IN and suit(card) != trump):
                if best is None or cost(card) < best[0]:
                    best = (cost(card), code)
        if best is not None:
            return best[1]
        for wanted in (PASS, TAKE):
            if wanted in legal:
                return wanted
        return legal[0]
