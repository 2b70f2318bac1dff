"""Toepen (docs/rules/toepen.md): actions, the observation, helpers and the agent base class.

    from croupier import toepen

    class Lowest(toepen.Agent):
        def decide(self, obs, legal, ctx):
            answer = toepen.default_answer(obs, legal)   # knock windows, laundry, ...
            if answer is not None:
                return answer
            return toepen.Action.play(toepen.lowest(toepen.legal_cards(legal)))

    ToepenAgent = toepen.export(Lowest)
"""

from __future__ import annotations

from enum import IntEnum

from . import Card, CardSet, Ctx, GameInfo, _export

PLAY, KNOCK, NO_KNOCK, STAY, FOLD = 1, 2, 3, 4, 5
CLAIM_LAUNDRY, CLAIM_WHITE_LAUNDRY, NO_CLAIM, CHALLENGE, NO_CHALLENGE = 6, 7, 8, 9, 10
_NAMES = {
    KNOCK: "knock",
    NO_KNOCK: "no-knock",
    STAY: "stay",
    FOLD: "fold",
    CLAIM_LAUNDRY: "laundry",
    CLAIM_WHITE_LAUNDRY: "white-laundry",
    NO_CLAIM: "no-claim",
    CHALLENGE: "challenge",
    NO_CHALLENGE: "no-challenge",
}


class Action(int):
    """A Toepen action: `play = 1 | card << 8`, the others their kind alone (toepen.wit).

    `Action.play(card)`, `Action.KNOCK`, `Action.STAY`, ...; `str()` as in the Rust SDK.
    """

    __slots__ = ()
    PLAY = PLAY

    @classmethod
    def play(cls, card: int) -> "Action":
        return cls(PLAY | int(card) << 8)

    @property
    def kind(self) -> int:
        return self & 0xFF

    @property
    def card(self):
        """The card of a `play`, else None."""
        return Card((self >> 8) & 0xFF) if self & 0xFF == PLAY else None

    def __str__(self) -> str:
        if self & 0xFF == PLAY:
            return f"play {self.card}"
        return _NAMES.get(self & 0xFF, "?")

    def __repr__(self) -> str:
        return f"Action({self})"


for _code, _name in _NAMES.items():
    setattr(Action, _name.upper().replace("-", "_"), Action(_code))
Action.CLAIM_LAUNDRY = Action(CLAIM_LAUNDRY)
Action.CLAIM_WHITE_LAUNDRY = Action(CLAIM_WHITE_LAUNDRY)


class Decision(IntEnum):
    LAUNDRY = 0
    LAUNDRY_CHALLENGE = 1
    POVERTY = 2
    PLAY = 3
    KNOCK_WINDOW = 4
    KNOCK_RESPONSE = 5
    OVER = 6


class SeatView:
    """What this seat knows about one seat (its own included)."""

    __slots__ = (
        "score",
        "played",
        "hand_count",
        "voids",
        "fold_stake",
        "revealed_by",
        "hand_knowers",
        "known_cards",
        "eliminated_at",
    )

    def __init__(
        self,
        score=0,
        played=0,
        hand_count=0,
        voids=0,
        fold_stake=0,
        revealed_by=0,
        hand_knowers=0,
        known_cards=0,
        eliminated_at=0,
    ):
        self.score = score
        #: Cards that seat has played this round.
        self.played = CardSet(played)
        self.hand_count = hand_count
        #: Bit i: known to lack suit i (it did not follow).
        self.voids = voids
        self.fold_stake = fold_stake
        self.revealed_by = CardSet(revealed_by)
        self.hand_knowers = hand_knowers
        #: The cards of its hand this player knows.
        self.known_cards = CardSet(known_cards)
        self.eliminated_at = eliminated_at

    def __repr__(self) -> str:
        return f"SeatView(score={self.score}, hand_count={self.hand_count}, played={self.played})"


_SEAT_FIELDS = SeatView.__slots__
_DECISIONS = {
    "Laundry": 0,
    "LaundryChallenge": 1,
    "Poverty": 2,
    "Play": 3,
    "KnockWindow": 4,
    "KnockResponse": 5,
    "Over": 6,
}


class Observation:
    """Everything this seat may know (the fields of wit/v0.2/toepen.wit). Cards are `Card`,
    sets `CardSet`; `trick` is a list of (seat, Card) in play order and `past_tricks` a list
    of such lists, one per completed trick.

    Make one by hand for a test: `Observation(hand=CardSet.of(["JC", "10H"]), trick_no=1)`.
    """

    _DEFAULTS = dict(
        seat=0,
        players=4,
        decision=Decision.PLAY,
        round=1,
        dealer=0,
        hand=0,
        eliminated=0,
        live=0,
        stake=1,
        last_knocker=None,
        stock=0,
        trick_no=1,
        leader=0,
        trick=(),
        trick_winners=(),
        unseen=0,
        own_laundry=0,
        revealed=0,
        to_act=None,
        dealt=0,
        dead=0,
        past_tricks=(),
        poor=0,
        laundry_done=0,
        claimed=0,
        white_claims=0,
        challenged=0,
        returned=0,
        claimant=None,
        poverty_done=0,
        knock_window=None,
        stock_knowers=(),
        known_stock=(),
        seats=(),
    )
    _SETS = ("hand", "unseen", "own_laundry", "revealed")

    def __init__(self, **fields):
        unknown = set(fields) - set(self._DEFAULTS)
        if unknown:
            raise TypeError(f"unknown observation fields: {', '.join(sorted(unknown))}")
        d = dict(self._DEFAULTS, **fields)
        self.__dict__.update(d)
        self.decision = Decision(d["decision"])
        for name in self._SETS:
            setattr(self, name, CardSet(d[name]))
        self.trick = [(s, Card(c)) for s, c in d["trick"]]
        self.past_tricks = [[(s, Card(c)) for s, c in t] for t in d["past_tricks"]]
        self.trick_winners = list(d["trick_winners"])
        self.seats = [s if isinstance(s, SeatView) else SeatView(*s) for s in d["seats"]]

    @classmethod
    def from_wit(cls, o) -> "Observation":
        """The observation the host sent (componentize-py's record), converted."""
        obs = cls.__new__(cls)
        d = obs.__dict__
        for name in cls._DEFAULTS:
            d[name] = getattr(o, name)
        d["decision"] = Decision(o.decision.value)
        for name in cls._SETS:
            d[name] = CardSet(d[name])
        t = o.trick
        d["trick"] = [(t[i], Card(t[i + 1])) for i in range(0, len(t) - 1, 2)]
        past: list = []
        p = o.past_tricks
        for i in range(0, len(p) - 2, 3):
            while len(past) <= p[i]:
                past.append([])
            past[p[i]].append((p[i + 1], Card(p[i + 2])))
        d["past_tricks"] = past
        d["known_stock"] = [(b, CardSet(s)) for b, s in o.known_stock]
        d["seats"] = [SeatView(*(getattr(s, f) for f in _SEAT_FIELDS)) for s in o.seats]
        return obs

    @classmethod
    def from_rules(cls, d: dict) -> "Observation":
        """The host's own observation (the rules crate's JSON, as `croupier.env` gives it in
        `info["observation"]`), converted as the host converts it for an agent."""
        n = d["players"]
        at = lambda key, s: d[key][s] if s < len(d[key]) else 0  # noqa: E731
        fields = {k: d[k] for k in cls._DEFAULTS if k in d and k not in ("decision", "seats")}
        fields["trick"] = [(s, Card.parse(c)) for s, c in d["trick"]]
        fields["past_tricks"] = [[(s, Card.parse(c)) for s, c in t] for t in d["past_tricks"]]
        fields["known_stock"] = [(b, CardSet(c)) for b, c in d["known_stock"]]
        fields["stock_knowers"] = [x for pair in d["stock_knowers"] for x in pair]
        fields["knock_window"] = None if d["knock_window"] is None else tuple(d["knock_window"])
        rename = {"score": "scores", "played": "played", "hand_count": "hand_counts",
                  "voids": "voids", "fold_stake": "fold_stakes", "revealed_by": "revealed_by",
                  "hand_knowers": "hand_knowers", "known_cards": "known_cards",
                  "eliminated_at": "eliminated_at"}
        seats = [tuple(at(rename[f], s) for f in _SEAT_FIELDS) for s in range(n)]
        return cls(decision=_DECISIONS[d["decision"]], seats=[SeatView(*v) for v in seats], **fields)

    def __str__(self) -> str:
        trick = " ".join(f"P{s}:{c}" for s, c in self.trick) or "-"
        return (
            f"P{self.seat} {self.decision.name.lower()}: hand {self.hand}; trick {self.trick_no} "
            f"{trick}; stake {self.stake}"
        )

    __repr__ = __str__


# ------------------------------------------------------------------ helpers


def strength(card: int) -> int:
    """Toepen strength: J < Q < K < A < 7 < 8 < 9 < 10 (1..8; 0 for other ranks)."""
    r = int(card) % 13 + 2
    if 11 <= r <= 14:
        return r - 10
    if 7 <= r <= 10:
        return r - 2
    return 0


def bit(seat: int) -> int:
    """The bit of seat `seat` in a seat mask."""
    return 1 << seat if 0 <= seat < 8 else 0


def _key(c) -> tuple:
    return (strength(c), int(c))


def lowest(cards):
    """The weakest card (ties by card code), or None."""
    return min(cards, key=_key, default=None)


def highest(cards):
    """The strongest card (ties by card code), or None."""
    return max(cards, key=_key, default=None)


def legal_cards(legal) -> CardSet:
    """The cards the legal actions let this player play."""
    mask = 0
    for a in legal:
        if a & 0xFF == PLAY:
            mask |= 1 << ((a >> 8) & 0xFF)
    return CardSet(mask)


def fallback(legal):
    """The first legal action that is not a knock (else the first), or None."""
    for a in legal:
        if a != KNOCK:
            return Action(a)
    return Action(legal[0]) if legal else None


def default_answer(obs: Observation, legal):
    """The cautious answer to every decision that is not a card play: never knock, stay in,
    claim nothing, challenge nobody (the Rust `toepen_common::default_answer`). None for a
    card play. Always one of `legal` when it is not None."""
    d = obs.decision
    if d == Decision.PLAY:
        return None
    wanted = {
        Decision.KNOCK_WINDOW: (NO_KNOCK,),
        Decision.KNOCK_RESPONSE: (STAY,),
        Decision.POVERTY: (STAY,),
        Decision.LAUNDRY: (NO_CLAIM,),
        Decision.LAUNDRY_CHALLENGE: (NO_CHALLENGE,),
    }.get(d, ())
    for w in wanted:
        if w in legal:
            return Action(w)
    return fallback(legal)


class Trick:
    """The trick in progress as the deciding player sees it."""

    __slots__ = ("led", "best", "still_to_play", "number")

    def __init__(self, obs: Observation):
        #: The led suit (None when this player leads).
        self.led = obs.trick[0][1].suit if obs.trick else None
        #: The strongest live card of the led suit so far (what a card must beat to win now).
        self.best = None
        if self.led is not None:
            live = [c for s, c in obs.trick if c.suit == self.led and not obs.dead & bit(s)]
            self.best = max(live, key=strength, default=None)
        played = bit(obs.seat)
        for s, _ in obs.trick:
            played |= bit(s)
        #: Live players who still play to this trick after the deciding player.
        self.still_to_play = bin(obs.live & ~played & 0xFF).count("1")
        #: The trick number, 1..4.
        self.number = obs.trick_no

    def leading(self) -> bool:
        return self.led is None

    def can_follow(self, hand: CardSet) -> bool:
        return self.led is not None and bool(CardSet(hand).of_suit(self.led))

    def wins_now(self, card) -> bool:
        """Would `card` win the trick if it were played now and nobody played after it?"""
        if self.led is None:
            return True
        if card.suit != self.led:
            return False
        return self.best is None or strength(card) > strength(self.best)


# ------------------------------------------------------------------ agents


class Agent:
    """Subclass this and implement `decide` (one instance per game; see `croupier.durak.Agent`)."""

    def __init__(self, info: GameInfo):
        self.info = info

    def decide(self, obs: Observation, legal: list, ctx: Ctx) -> Action:
        """Returns one of `legal`."""
        raise NotImplementedError


def export(agent_cls):
    """The class to bind to the name `ToepenAgent` in the agent's module. Outside a built
    component (a unit test importing the agent's module) there is nothing to bind: None."""
    try:
        from wit_world import exports
    except ImportError:
        return None

    return _export(agent_cls, "toepen", exports.ToepenAgent, Observation.from_wit, Action)
