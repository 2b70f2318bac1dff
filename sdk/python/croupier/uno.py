"""UNO (docs/rules/uno.md): cards, actions, the observation, helpers and the agent base class.

    from croupier import uno

    class FirstPlayable(uno.Agent):
        def decide(self, obs, legal, ctx):
            cards = uno.playable(obs, legal)
            if cards:
                return uno.play_action(obs, legal, cards[0], obs.color) or legal[0]
            return legal[0]

    UnoAgent = uno.export(FirstPlayable)
"""

from __future__ import annotations

from enum import IntEnum

from . import Ctx, GameInfo, _export

CHOOSE_COLOR, PLAY, DRAW, PLAY_DRAWN, KEEP, CHALLENGE, ACCEPT = 1, 2, 3, 4, 5, 6, 7
STACK, ACCEPT_PENALTY, CATCH_UNO, NO_CATCH = 8, 9, 10, 11
SKIP, REVERSE, DRAW_TWO = 10, 11, 12
_NAMES = {
    DRAW: "draw",
    KEEP: "keep",
    CHALLENGE: "challenge",
    ACCEPT: "accept",
    ACCEPT_PENALTY: "accept-penalty",
    CATCH_UNO: "catch",
    NO_CATCH: "no-catch",
}


class Color(IntEnum):
    RED = 0
    YELLOW = 1
    GREEN = 2
    BLUE = 3

    def __str__(self) -> str:
        return self.name.lower()


class UnoCard(int):
    """An UNO card: `colour * 13 + kind` (kind 0-9, 10 skip, 11 reverse, 12 draw two), 52 wild,
    53 wild draw four. `str()` as the Rust SDK: `R7`, `BSkip`, `GD2`, `W`, `W4`."""

    __slots__ = ()

    @property
    def color(self):
        """The card's colour, None for a wild."""
        return Color(self // 13) if self < 52 else None

    @property
    def kind(self):
        """0..12 inside a colour (numbers, then skip, reverse, draw two); None for a wild."""
        return self % 13 if self < 52 else None

    def is_wild(self) -> bool:
        return self in (52, 53)

    def is_wd4(self) -> bool:
        return self == 53

    def is_action(self) -> bool:
        """Skip, Reverse or Draw Two."""
        return self < 52 and self % 13 >= SKIP

    def points(self) -> int:
        """Scoring value: a wild 50, an action card 20, a number its face."""
        if self >= 52:
            return 50
        k = self % 13
        return k if k <= 9 else 20

    def __str__(self) -> str:
        if self == 52:
            return "W"
        if self == 53:
            return "W4"
        letter = "RYGB"[self // 13]
        k = self % 13
        return letter + {SKIP: "Skip", REVERSE: "Rev", DRAW_TWO: "D2"}.get(k, str(k))

    def __repr__(self) -> str:
        return str(self)


UnoCard.WILD = UnoCard(52)
UnoCard.WILD_DRAW_FOUR = UnoCard(53)


class Action(int):
    """An UNO action: `kind | card << 8 | declare << 16 | uno << 24` (uno.wit), readable."""

    __slots__ = ()

    CHOOSE_COLOR = CHOOSE_COLOR
    PLAY = PLAY
    PLAY_DRAWN = PLAY_DRAWN
    STACK = STACK

    @classmethod
    def choose_color(cls, color: int) -> "Action":
        return cls(CHOOSE_COLOR | (int(color) + 1) << 16)

    @classmethod
    def play(cls, card: int, declare=None, uno: bool = False) -> "Action":
        d = 0 if declare is None else int(declare) + 1
        return cls(PLAY | int(card) << 8 | d << 16 | int(uno) << 24)

    @property
    def kind(self) -> int:
        return self & 0xFF

    @property
    def card(self):
        """The card of a play or stack (None otherwise; a play-drawn plays `obs.drawn`)."""
        return UnoCard((self >> 8) & 0xFF) if self & 0xFF in (PLAY, STACK) else None

    @property
    def declare(self):
        """The colour named (for a wild or choose-color), else None."""
        d = (self >> 16) & 0xFF
        return Color(d - 1) if d else None

    @property
    def uno(self) -> bool:
        """Whether this play calls UNO."""
        return (self >> 24) & 1 == 1

    def __str__(self) -> str:
        k = self & 0xFF
        if k == CHOOSE_COLOR:
            return f"color {self.declare}"
        if k in (PLAY, STACK, PLAY_DRAWN):
            text = {PLAY: f"play {self.card}", STACK: f"stack {self.card}"}.get(k, "play-drawn")
            if self.declare is not None:
                text += f" {self.declare}"
            return text + (" uno" if self.uno else "")
        return _NAMES.get(k, "?")

    def __repr__(self) -> str:
        return f"Action({self})"


for _code, _name in _NAMES.items():
    setattr(Action, _name.upper().replace("-", "_"), Action(_code))


class Decision(IntEnum):
    CHOOSE_START_COLOR = 0
    TURN = 1
    AFTER_DRAW = 2
    WD4_CHALLENGE = 3
    PENALTY_TURN = 4
    UNO_CATCH = 5
    OVER = 6


_DECISIONS = {
    "ChooseStartColor": 0,
    "Turn": 1,
    "AfterDraw": 2,
    "Wd4Challenge": 3,
    "PenaltyTurn": 4,
    "UnoCatch": 5,
    "Over": 6,
}
_COLORS = {"Red": 0, "Yellow": 1, "Green": 2, "Blue": 3}


class SeatView:
    __slots__ = ("hand_size", "score", "color_caps")

    def __init__(self, hand_size=0, score=0, color_caps=(255, 255, 255, 255)):
        self.hand_size = hand_size
        self.score = score
        #: The most cards of each colour the seat can hold, proved by play; 255 = no bound.
        self.color_caps = tuple(color_caps)

    def __repr__(self) -> str:
        return f"SeatView(hand_size={self.hand_size}, score={self.score})"


class Observation:
    """Everything this seat may know (the fields of wit/v0.2/uno.wit). Cards are `UnoCard`,
    colours `Color`; `known` is a list of (seat, UnoCard). `wd4` stays the host's record.

    Make one by hand for a test: `Observation(hand=[UnoCard(3)], top=UnoCard(5), color=Color.RED)`.
    """

    _DEFAULTS = dict(
        seat=0,
        players=2,
        decision=Decision.TURN,
        hand_no=1,
        dealer=0,
        hand=(),
        top=0,
        color=Color.RED,
        direction=1,
        pending=0,
        draw_pile=0,
        discard_pile=0,
        drawn=None,
        unseen=(),
        to_act=None,
        discard=(),
        turns=0,
        known=(),
        kind_caps=(),
        offender=None,
        wd4=None,
        seats=(),
    )

    def __init__(self, **fields):
        unknown = set(fields) - set(self._DEFAULTS)
        if unknown:
            raise TypeError(f"unknown observation fields: {', '.join(sorted(unknown))}")
        d = dict(self._DEFAULTS, **fields)
        self.__dict__.update(d)
        self.decision = Decision(d["decision"])
        self.hand = [UnoCard(c) for c in d["hand"]]
        self.top = UnoCard(d["top"])
        self.color = Color(d["color"])
        self.drawn = None if d["drawn"] is None else UnoCard(d["drawn"])
        self.discard = [UnoCard(c) for c in d["discard"]]
        self.known = [(s, UnoCard(c)) for s, c in d["known"]]
        self.seats = [s if isinstance(s, SeatView) else SeatView(*s) for s in d["seats"]]

    @classmethod
    def from_wit(cls, o) -> "Observation":
        """The observation the host sent (componentize-py's record), converted."""
        obs = cls.__new__(cls)
        d = obs.__dict__
        for name in cls._DEFAULTS:
            d[name] = getattr(o, name)
        d["decision"] = Decision(o.decision.value)
        d["hand"] = [UnoCard(c) for c in o.hand]
        d["top"] = UnoCard(o.top)
        d["color"] = Color(o.color.value)
        d["drawn"] = None if o.drawn is None else UnoCard(o.drawn)
        d["discard"] = [UnoCard(c) for c in o.discard]
        d["known"] = [(s, UnoCard(c)) for s, c in o.known]
        d["seats"] = [SeatView(s.hand_size, s.score, s.color_caps) for s in o.seats]
        return obs

    @classmethod
    def from_rules(cls, d: dict) -> "Observation":
        """The host's own observation (the rules crate's JSON, as `croupier.env` gives it in
        `info["observation"]`), converted as the host converts it for an agent."""
        n = d["players"]
        at = lambda key, s, dflt=0: d[key][s] if s < len(d[key]) else dflt  # noqa: E731
        fields = {k: d[k] for k in cls._DEFAULTS if k in d and k not in ("decision", "color", "known", "kind_caps", "wd4", "seats")}
        fields["known"] = [(s, c) for s, hand in enumerate(d["known"]) for c in hand]
        fields["kind_caps"] = [x for caps in d["kind_caps"] for x in caps]
        w = d["wd4"]
        fields["wd4"] = None if w is None else dict(w, prev_color=_COLORS[w["prev_color"]])
        seats = [
            SeatView(at("hand_sizes", s), at("scores", s), tuple(at("color_caps", s, [255] * 4)))
            for s in range(n)
        ]
        return cls(decision=_DECISIONS[d["decision"]], color=_COLORS[d["color"]], seats=seats, **fields)

    def __str__(self) -> str:
        hand = " ".join(str(c) for c in self.hand)
        return (
            f"P{self.seat} {self.decision.name.lower()}: hand {hand}; top {self.top} "
            f"({self.color}); pending {self.pending}"
        )

    __repr__ = __str__


# ------------------------------------------------------------------ helpers


def card_of(action: int, drawn=None):
    """The card an action plays (`drawn` for a play-drawn), else None."""
    k = action & 0xFF
    if k in (PLAY, STACK):
        return UnoCard((action >> 8) & 0xFF)
    if k == PLAY_DRAWN:
        return drawn
    return None


def playable(obs: Observation, legal) -> list:
    """The distinct cards the legal actions let this player play, in hand (code) order."""
    cards = {card_of(a, obs.drawn) for a in legal}
    cards.discard(None)
    return sorted(cards)


def play_action(obs: Observation, legal, card, color):
    """The legal action that plays `card` naming `color` (any colour if that one is not
    offered), calling UNO when that is an option; None if `card` cannot be played."""
    best = None
    for a in legal:
        if card_of(a, obs.drawn) != card:
            continue
        d = (a >> 16) & 0xFF
        rank = (2 if d == 0 or d - 1 == int(color) else 0) + ((a >> 24) & 1)
        if best is None or rank > best[0]:
            best = (rank, a)
    return Action(best[1]) if best is not None else None


def most_held_color(obs: Observation, except_card=None) -> Color:
    """The colour this player holds most of, not counting one copy of `except_card` (ties in
    colour order); the current colour when it holds no coloured card."""
    counts = [0, 0, 0, 0]
    skipped = False
    for c in obs.hand:
        if not skipped and c == except_card:
            skipped = True
            continue
        if c < 52:
            counts[c // 13] += 1
    best, most = obs.color, 0
    for col in Color:
        if counts[col] > most:
            best, most = col, counts[col]
    return best


def random_color(ctx: Ctx) -> Color:
    """A uniformly random colour from the agent's seeded generator."""
    return Color(ctx.rng.below(4))


# ------------------------------------------------------------------ agents


class Agent:
    """Subclass this and implement `decide` (one instance per game; see `croupier.durak.Agent`)."""

    def __init__(self, info: GameInfo):
        self.info = info

    def decide(self, obs: Observation, legal: list, ctx: Ctx) -> Action:
        """Returns one of `legal`."""
        raise NotImplementedError


def export(agent_cls):
    """The class to bind to the name `UnoAgent` in the agent's module. Outside a built
    component (a unit test importing the agent's module) there is nothing to bind: None."""
    try:
        from wit_world import exports
    except ImportError:
        return None

    return _export(agent_cls, "uno", exports.UnoAgent, Observation.from_wit, Action)
