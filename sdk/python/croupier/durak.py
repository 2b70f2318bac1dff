"""Durak (docs/rules/durak.md): actions, the observation, helpers and the agent base class.

    from croupier import durak

    class Cheapest(durak.Agent):
        def decide(self, obs, legal, ctx):
            lead = durak.cheapest(obs.hand, obs.trump_suit)
            ...

    DurakAgent = durak.export(Cheapest)
"""

from __future__ import annotations

from enum import IntEnum

from . import Card, CardSet, Ctx, GameInfo, _export

__all__ = [
    "Action",
    "Agent",
    "BoutCard",
    "Decision",
    "Observation",
    "Phase",
    "SeatView",
    "cheap_key",
    "cheapest",
    "choose",
    "decision",
    "export",
    "is_trump",
    "plain",
]

LEAD, LEAD_MANY, BEAT, TRANSFER, SHOW_TRUMP_TRANSFER, TAKE, THROW_IN, PASS = 1, 2, 3, 4, 5, 6, 7, 8
_NAMES = {
    LEAD: "lead",
    LEAD_MANY: "lead",
    BEAT: "beat",
    TRANSFER: "transfer",
    SHOW_TRUMP_TRANSFER: "show",
    TAKE: "take",
    THROW_IN: "throw",
    PASS: "pass",
}


class Action(int):
    """A Durak action: its code `kind | a << 8 | b << 16` (wit/v0.2/durak.wit), readable.

    Build one with `Action.lead(card)`, `Action.beat(slot, card)`, `Action.TAKE`, ...; compare
    with `==` or `in legal`. `str()` is the Rust SDK's text (`beat 0 KS`, `take`).
    """

    __slots__ = ()

    LEAD = LEAD
    LEAD_MANY = LEAD_MANY
    BEAT = BEAT
    TRANSFER = TRANSFER
    SHOW_TRUMP_TRANSFER = SHOW_TRUMP_TRANSFER
    THROW_IN = THROW_IN
    # TAKE and PASS (the actions themselves) are set below the class.

    @classmethod
    def lead(cls, card: int) -> "Action":
        return cls(LEAD | int(card) << 8)

    @classmethod
    def lead_many(cls, rank: int, suits: int) -> "Action":
        """Several cards of `rank` (a variant); `suits` is a bit mask of suits."""
        return cls(LEAD_MANY | rank << 8 | suits << 16)

    @classmethod
    def beat(cls, slot: int, card: int) -> "Action":
        """Cover the attack card in table `slot` with `card`."""
        return cls(BEAT | int(card) << 8 | slot << 16)

    @classmethod
    def transfer(cls, card: int) -> "Action":
        return cls(TRANSFER | int(card) << 8)

    @classmethod
    def show_trump_transfer(cls, card: int) -> "Action":
        return cls(SHOW_TRUMP_TRANSFER | int(card) << 8)

    @classmethod
    def throw_in(cls, card: int) -> "Action":
        return cls(THROW_IN | int(card) << 8)

    @property
    def kind(self) -> int:
        return self & 0xFF

    @property
    def card(self):
        """The card this action plays or shows (the lowest of a multiple lead), else None."""
        k = self & 0xFF
        if k in (LEAD, BEAT, TRANSFER, SHOW_TRUMP_TRANSFER, THROW_IN):
            return Card((self >> 8) & 0xFF)
        if k == LEAD_MANY:
            return self.cards.first()
        return None

    @property
    def slot(self):
        """The table slot of a `beat`, else None."""
        return (self >> 16) & 0xFF if self & 0xFF == BEAT else None

    @property
    def cards(self) -> CardSet:
        """The cards this action puts on the table (empty for take and pass)."""
        k = self & 0xFF
        if k == LEAD_MANY:
            rank, suits = (self >> 8) & 0xFF, (self >> 16) & 0xFF
            return CardSet.of(Card.new(rank, s) for s in range(4) if suits >> s & 1)
        c = self.card
        return CardSet.of([c]) if c is not None else CardSet(0)

    def __str__(self) -> str:
        k = self & 0xFF
        if k == BEAT:
            return f"beat {self.slot} {self.card}"
        if k == LEAD_MANY:
            return "lead " + " ".join(str(c) for c in self.cards)
        if k in (TAKE, PASS):
            return _NAMES[k]
        return f"{_NAMES.get(k, '?')} {self.card}"

    def __repr__(self) -> str:
        return f"Action({self})"


Action.TAKE = Action(TAKE)
Action.PASS = Action(PASS)


class Phase(IntEnum):
    LEAD = 0
    DEFEND = 1
    THROW_IN = 2
    OVER = 3


_PHASES = {"Lead": 0, "Defend": 1, "ThrowIn": 2, "Over": 3}


class BoutCard:
    """One attack card of the bout, its defence (None while uncovered) and who played it."""

    __slots__ = ("attack", "defence", "attacker")

    def __init__(self, attack, defence=None, attacker=0):
        self.attack = Card(attack)
        self.defence = None if defence is None else Card(defence)
        self.attacker = attacker

    def __repr__(self) -> str:
        return f"{self.attack}/{self.defence or '-'}"


class SeatView:
    """What this seat knows about one seat (its own included)."""

    __slots__ = ("hand_size", "known", "finish", "low_trump_room")

    def __init__(self, hand_size=0, known=0, finish=0, low_trump_room=0):
        self.hand_size = hand_size
        #: Cards known to be in that seat's hand (perfect memory: every card it picked up).
        self.known = CardSet(known)
        #: Finishing place (1 = out first); 0 = still in.
        self.finish = finish
        #: How many `low_trumps` the unknown part of that hand can hold at most.
        self.low_trump_room = low_trump_room

    def __repr__(self) -> str:
        return f"SeatView(hand_size={self.hand_size}, known={self.known})"


class Observation:
    """Everything this seat may know, including what a player with perfect memory knows
    (the fields of wit/v0.2/durak.wit, with cards as `Card` and sets as `CardSet`).

    Make one by hand for a test: `Observation(hand=CardSet.of(["6C", "QS"]), trump=Card.parse("7S"))`;
    fields not given get neutral defaults.
    """

    _DEFAULTS = dict(
        seat=0,
        acting_for=0,
        players=2,
        teams=False,
        trump=0,
        trump_holder=None,
        talon=0,
        hand=0,
        out=0,
        phase=Phase.LEAD,
        attacker=0,
        defender=1,
        h0=6,
        limit=6,
        taking=False,
        passed=0,
        table=(),
        shown=0,
        discard=0,
        unseen=0,
        bout=0,
        leader=0,
        dealer=0,
        own_known=0,
        low_trumps=0,
        seats=(),
    )

    def __init__(self, **fields):
        unknown = set(fields) - set(self._DEFAULTS)
        if unknown:
            raise TypeError(f"unknown observation fields: {', '.join(sorted(unknown))}")
        d = dict(self._DEFAULTS, **fields)
        self.__dict__.update(d)
        self.trump = Card(d["trump"])
        self.phase = Phase(d["phase"])
        for name in ("hand", "shown", "discard", "unseen", "own_known", "low_trumps"):
            setattr(self, name, CardSet(d[name]))
        self.table = [t if isinstance(t, BoutCard) else BoutCard(*t) for t in d["table"]]
        self.seats = [s if isinstance(s, SeatView) else SeatView(*s) for s in d["seats"]]

    @property
    def trump_suit(self):
        """The trump suit (the trump card's suit)."""
        return self.trump.suit

    @classmethod
    def from_wit(cls, o) -> "Observation":
        """The observation the host sent (componentize-py's record), converted."""
        obs = cls.__new__(cls)
        d = obs.__dict__
        d["seat"] = o.seat
        d["acting_for"] = o.acting_for
        d["players"] = o.players
        d["teams"] = o.teams
        d["trump"] = Card(o.trump)
        d["trump_holder"] = o.trump_holder
        d["talon"] = o.talon
        d["hand"] = CardSet(o.hand)
        d["out"] = o.out
        d["phase"] = Phase(o.phase.value)
        d["attacker"] = o.attacker
        d["defender"] = o.defender
        d["h0"] = o.h0
        d["limit"] = o.limit
        d["taking"] = o.taking
        d["passed"] = o.passed
        d["table"] = [BoutCard(b.attack, b.defence, b.attacker) for b in o.table]
        d["shown"] = CardSet(o.shown)
        d["discard"] = CardSet(o.discard)
        d["unseen"] = CardSet(o.unseen)
        d["bout"] = o.bout
        d["leader"] = o.leader
        d["dealer"] = o.dealer
        d["own_known"] = CardSet(o.own_known)
        d["low_trumps"] = CardSet(o.low_trumps)
        d["seats"] = [SeatView(s.hand_size, s.known, s.finish, s.low_trump_room) for s in o.seats]
        return obs

    @classmethod
    def from_rules(cls, d: dict) -> "Observation":
        """The host's own observation (the rules crate's JSON, as `croupier.env` gives it in
        `info["observation"]`), converted as the host converts it for an agent."""
        n = d["players"]
        at = lambda key, s: d[key][s] if s < len(d[key]) else 0  # noqa: E731
        return cls(
            **{k: d[k] for k in ("seat", "acting_for", "players", "teams", "trump_holder", "talon",
                                 "hand", "out", "attacker", "defender", "h0", "limit", "taking",
                                 "passed", "shown", "discard", "unseen", "bout", "leader",
                                 "dealer", "own_known", "low_trumps")},
            trump=Card.parse(d["trump"]),
            phase=_PHASES[d["phase"]],
            table=[
                (Card.parse(a), None if b is None else Card.parse(b), by)
                for (a, b), by in zip(d["table"], d["attackers"])
            ],
            seats=[
                (at("hand_sizes", s), at("known", s), at("finish", s), at("low_trump_room", s))
                for s in range(n)
            ],
        )

    def __str__(self) -> str:
        table = " ".join(repr(b) for b in self.table) or "-"
        return (
            f"P{self.seat} {self.phase.name.lower()}: hand {self.hand}; trump {self.trump}; "
            f"table {table}; talon {self.talon}; attacker P{self.attacker}, defender P{self.defender}"
        )

    __repr__ = __str__


# ------------------------------------------------------------------ helpers


def is_trump(card: int, trump_suit: int) -> bool:
    return int(card) // 13 == int(trump_suit)


def cheap_key(card: int, trump_suit: int) -> tuple:
    """Sort key of cheapness: any plain card is cheaper than any trump, then lower rank, then
    suit order (the Rust `durak_common::cheap_key`)."""
    c = int(card)
    return (c // 13 == int(trump_suit), c % 13, c // 13)


def cheapest(cards, trump_suit: int):
    """The cheapest card of `cards` (see `cheap_key`), or None."""
    return min(cards, key=lambda c: cheap_key(c, trump_suit), default=None)


def plain(cards: CardSet, trump_suit: int) -> CardSet:
    """The non-trump cards of a set."""
    return CardSet(cards).minus(CardSet(0x1FFF << (13 * int(trump_suit))))


class Decision(IntEnum):
    LEAD = 0
    DEFEND = 1
    THROW_IN = 2


def decision(legal) -> Decision:
    """The kind of decision the legal actions describe (`take` is always legal when
    defending, `pass` when throwing in)."""
    kinds = {a & 0xFF for a in legal}
    if LEAD in kinds or LEAD_MANY in kinds:
        return Decision.LEAD
    if TAKE in kinds:
        return Decision.DEFEND
    return Decision.THROW_IN


def of_kind(legal, kind: int) -> list:
    """The legal actions of one kind (`of_kind(legal, Action.THROW_IN)`)."""
    return [a for a in legal if a & 0xFF == kind]


def cards_of(legal, kind: int) -> CardSet:
    """The cards that legal actions of `kind` play (e.g. every card that may be thrown in)."""
    mask = 0
    for a in legal:
        if a & 0xFF == kind:
            mask |= 1 << ((a >> 8) & 0xFF)
    return CardSet(mask)


def choose(legal, wanted) -> Action:
    """`wanted` if it is legal, else the first legal action: return through this and an
    agent can never play an illegal action."""
    if wanted is not None and wanted in legal:
        return Action(wanted)
    return Action(legal[0]) if legal else Action.PASS


# ------------------------------------------------------------------ agents


class Agent:
    """Subclass this and implement `decide`. One instance lives for one game: it is created
    at the deal with the game's `GameInfo`; `decide` is called whenever this seat has a real
    choice (the host plays forced moves itself)."""

    def __init__(self, info: GameInfo):
        self.info = info

    def decide(self, obs: Observation, legal: list, ctx: Ctx) -> Action:
        """Returns one of `legal` (anything else loses the game by default)."""
        raise NotImplementedError


def export(agent_cls):
    """The class to bind to the name `DurakAgent` in the agent's module. Outside a built
    component (a unit test importing the agent's module) there is nothing to bind: None."""
    try:
        from wit_world import exports
    except ImportError:
        return None

    return _export(agent_cls, "durak", exports.DurakAgent, Observation.from_wit, Action)
