"""croupier: write a Croupier card-game agent in Python.

The Python twin of the Rust SDK (`sdk/src`): readable types for cards, actions and
observations, the perfect-memory knowledge the host already derives, seeded randomness that
replays bit for bit, and logging into the game record. One module per game:

    from croupier import durak

    class First(durak.Agent):
        '''Plays the first legal action.'''
        def decide(self, obs, legal, ctx):
            return legal[0]

    DurakAgent = durak.export(First)   # the name componentize-py looks for

`croupier build DIR` builds such a directory (with its `agent.toml`) into a sandboxed
WebAssembly component; this package is included by the build, so an agent never copies it.

Cards, card sets and actions are `int` subclasses: they compare, hash and sort as the codes
of the WIT contract (`wit/v0.2`), so `action in legal` and `sorted(cards)` just work, and
`str()` gives the same text as the Rust SDK (`QS`, `10H`, `beat 0 KS`).
"""

from __future__ import annotations

import sys
from enum import IntEnum

__all__ = [
    "Budget",
    "Card",
    "CardSet",
    "Ctx",
    "GameInfo",
    "Level",
    "Local",
    "Rng",
    "Suit",
    "agent_rng",
]

MASK64 = (1 << 64) - 1


# ------------------------------------------------------------------ cards


class Suit(IntEnum):
    """The four French suits in the contract's order (the order also breaks rank ties)."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        """`C`, `D`, `H` or `S`."""
        return "CDHS"[self]

    def __str__(self) -> str:
        return self.letter


_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


class Card(int):
    """A French-suited card (Durak, Toepen): code `suit * 13 + (rank - 2)`.

    >>> Card.parse("QS").rank, Card.parse("QS").suit, str(Card(0))
    (12, <Suit.SPADES: 3>, '2C')
    """

    __slots__ = ()

    @classmethod
    def new(cls, rank: int, suit: int) -> "Card":
        """The card of `rank` (2..14, J 11, Q 12, K 13, A 14) and `suit`."""
        return cls(int(suit) * 13 + rank - 2)

    @classmethod
    def parse(cls, text: str) -> "Card":
        """`10H`, `QS`, `ac` ... (rank then suit letter); raises ValueError otherwise."""
        t = text.strip().upper()
        rank, suit = t[:-1], t[-1:]
        if rank not in _RANKS or suit not in "CDHS" or not suit:
            raise ValueError(f"`{text}` is not a card (e.g. 10H or QS)")
        return cls.new(_RANKS.index(rank) + 2, "CDHS".index(suit))

    @property
    def rank(self) -> int:
        """2..14 (J 11, Q 12, K 13, A 14)."""
        return self % 13 + 2

    @property
    def suit(self) -> Suit:
        return Suit(self // 13)

    @property
    def code(self) -> int:
        return int(self)

    def __str__(self) -> str:
        return _RANKS[self % 13] + "CDHS"[self // 13]

    def __repr__(self) -> str:
        return str(self)


class CardSet(int):
    """A set of French cards as the contract's 64-bit mask (bit `card` set = in the set).

    Iterates in card-code order (clubs first, low ranks first), as the Rust `CardSet` does.
    """

    __slots__ = ()

    @classmethod
    def of(cls, cards) -> "CardSet":
        """The set of `cards` (Card values or card names such as "QS")."""
        mask = 0
        for c in cards:
            mask |= 1 << (Card.parse(c) if isinstance(c, str) else int(c))
        return cls(mask)

    def __iter__(self):
        m = int(self)
        while m:
            low = m & -m
            yield Card(low.bit_length() - 1)
            m ^= low

    def __len__(self) -> int:
        return bin(self).count("1")

    def __contains__(self, card) -> bool:
        return (int(self) >> int(card)) & 1 == 1

    def __bool__(self) -> bool:
        return int(self) != 0

    def cards(self) -> list:
        """The cards as a list, in code order."""
        return list(self)

    def of_suit(self, suit: int) -> "CardSet":
        """The cards of one suit."""
        return CardSet(int(self) & (0x1FFF << (13 * int(suit))))

    def minus(self, other: int) -> "CardSet":
        return CardSet(int(self) & ~int(other))

    def union(self, other: int) -> "CardSet":
        return CardSet(int(self) | int(other))

    def inter(self, other: int) -> "CardSet":
        return CardSet(int(self) & int(other))

    def with_card(self, card: int) -> "CardSet":
        return CardSet(int(self) | (1 << int(card)))

    def without(self, card: int) -> "CardSet":
        return CardSet(int(self) & ~(1 << int(card)))

    def first(self):
        """The lowest card code in the set, or None."""
        m = int(self)
        return Card((m & -m).bit_length() - 1) if m else None

    def __str__(self) -> str:
        return " ".join(str(c) for c in self) or "-"

    def __repr__(self) -> str:
        return f"CardSet({self})"


# ------------------------------------------------------------------ randomness


def _rotl(v: int, n: int) -> int:
    return ((v << n) | (v >> (32 - n))) & 0xFFFFFFFF


def _chacha_block(key: list, counter: int, rounds: int = 8) -> list:
    """One ChaCha block (64-bit counter, stream 0) as sixteen 32-bit words."""
    x = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574, *key]
    x += [counter & 0xFFFFFFFF, counter >> 32, 0, 0]
    s = list(x)
    M = 0xFFFFFFFF
    for _ in range(rounds // 2):
        for a, b, c, d in (
            (0, 4, 8, 12),
            (1, 5, 9, 13),
            (2, 6, 10, 14),
            (3, 7, 11, 15),
            (0, 5, 10, 15),
            (1, 6, 11, 12),
            (2, 7, 8, 13),
            (3, 4, 9, 14),
        ):
            s[a] = (s[a] + s[b]) & M
            v = s[d] ^ s[a]
            s[d] = ((v << 16) | (v >> 16)) & M
            s[c] = (s[c] + s[d]) & M
            v = s[b] ^ s[c]
            s[b] = ((v << 12) | (v >> 20)) & M
            s[a] = (s[a] + s[b]) & M
            v = s[d] ^ s[a]
            s[d] = ((v << 8) | (v >> 24)) & M
            s[c] = (s[c] + s[d]) & M
            v = s[b] ^ s[c]
            s[b] = ((v << 7) | (v >> 25)) & M
    return [(s[i] + x[i]) & M for i in range(16)]


class Rng:
    """The seeded generator of the Rust SDK (`GameRng`: ChaCha8 seeded through PCG32), ported
    so that a Python agent draws exactly the numbers the same Rust agent draws.

    `ctx.rng` is this agent's generator for the game (seeded from the game's seed for the
    seat, like the Rust `ctx.rng()`); use `ctx.host_random()` for the host's own stream.
    """

    __slots__ = ("_key", "_counter", "_buf", "_pos")

    def __init__(self, seed: int):
        # rand_core's `seed_from_u64`: PCG32 fills the 32-byte ChaCha key.
        state = seed & MASK64
        key = []
        for _ in range(8):
            state = (state * 6364136223846793005 + 11634580027462260723) & MASK64
            xorshifted = (((state >> 18) ^ state) >> 27) & 0xFFFFFFFF
            rot = state >> 59
            key.append(((xorshifted >> rot) | (xorshifted << ((32 - rot) & 31))) & 0xFFFFFFFF)
        self._key = key
        self._counter = 0
        self._buf: list = []
        self._pos = 0

    @staticmethod
    def derive(seed: int, stream: int) -> int:
        """A seed for a sub-stream, mixed so that neighbours differ widely (SplitMix64)."""
        z = (seed ^ (stream * 0x9E3779B97F4A7C15)) & MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def next_u64(self) -> int:
        """The next 64-bit number."""
        if self._pos >= len(self._buf):
            # rand_chacha fills four blocks at a time; a u64 never straddles two fills.
            buf = []
            for i in range(4):
                buf += _chacha_block(self._key, self._counter + i)
            self._counter += 4
            self._buf, self._pos = buf, 0
        lo, hi = self._buf[self._pos], self._buf[self._pos + 1]
        self._pos += 2
        return lo | (hi << 32)

    def below(self, n: int) -> int:
        """Uniform in `0..n` (n > 0), without modulo bias: the Rust `below`, draw for draw."""
        if n <= 0:
            raise ValueError("below(0)")
        while True:
            v = self.next_u64()
            if v <= MASK64 - n or v < MASK64 - (MASK64 % n):
                return v % n

    def unit(self) -> float:
        """Uniform in [0, 1)."""
        return (self.next_u64() >> 11) * (1.0 / (1 << 53))

    def choose(self, items):
        """A uniformly chosen element of a sequence, or None when it is empty."""
        return items[self.below(len(items))] if items else None

    def shuffle(self, items: list) -> None:
        """Fisher-Yates from the last element down, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def agent_rng(seed: int) -> Rng:
    """The agent-side generator for a seat's seed (distinct from the host's `random` stream)."""
    return Rng(Rng.derive(seed, 0xA6E7))


# ------------------------------------------------------------------ host services


class Level(IntEnum):
    """Log levels of the host's `log` import."""

    ERROR = 0
    WARN = 1
    INFO = 2
    DEBUG = 3


class _Sandbox:
    """The component's imports (`croupier:agent/host`)."""

    def __init__(self):
        from wit_world.imports import host  # only exists inside a built component

        self._host = host
        self._levels = [host.Level.ERROR, host.Level.WARN, host.Level.INFO, host.Level.DEBUG]

    def random(self) -> int:
        return self._host.random()

    def log(self, level: Level, message: str) -> None:
        self._host.log(self._levels[int(level)], message)


class Local:
    """Services outside the sandbox (unit tests): a seeded stream and stderr."""

    def __init__(self, seed: int = 0):
        self._rng = Rng(seed)
        self.lines: list = []

    def random(self) -> int:
        return self._rng.next_u64()

    def log(self, level: Level, message: str) -> None:
        self.lines.append((Level(level), message))
        print(f"[{Level(level).name.lower()}] {message}", file=sys.stderr)


def _services():
    try:
        return _Sandbox()
    except ImportError:
        return Local()


class Budget:
    """What is left to spend on this decision."""

    __slots__ = ("fuel", "millis", "bank_millis")

    def __init__(self, fuel: int = 0, millis: int = 0, bank_millis=None):
        #: Fuel (roughly, WebAssembly instructions) for this decision.
        self.fuel = fuel
        #: Wall-clock milliseconds for this decision.
        self.millis = millis
        #: Milliseconds left in this game's time bank, when the match has one.
        self.bank_millis = bank_millis

    def __repr__(self) -> str:
        return f"Budget(fuel={self.fuel}, millis={self.millis}, bank_millis={self.bank_millis})"


class GameInfo:
    """What an agent is told when a game starts."""

    __slots__ = ("seat", "players", "preset", "rules", "seed", "args")

    def __init__(self, seat=0, players=2, preset="", rules=(), seed=0, args=""):
        #: This agent's seat.
        self.seat = seat
        self.players = players
        #: The rule preset's name (e.g. `classic`).
        self.preset = preset
        #: The options that differ from the preset, as a dict of text values.
        self.rules = dict(rules)
        #: This agent's seed for this game.
        self.seed = seed
        #: Free text after `#` on the command line (`iters=500`).
        self.args = args

    def arg(self, key: str, convert=str, default=None):
        """Looks up `key=value` in the args (`iters=500,c=1.4`), converted; `default` when
        missing or not convertible."""
        for kv in self.args.replace(";", ",").replace(" ", ",").split(","):
            k, sep, v = kv.partition("=")
            if sep and k.strip() == key:
                try:
                    return convert(v.strip())
                except ValueError:
                    return default
        return default

    @classmethod
    def from_wit(cls, info) -> "GameInfo":
        return cls(info.seat, info.players, info.preset, info.rules, info.seed, info.args)


class Ctx:
    """An agent's view of the host during one decision."""

    __slots__ = ("budget", "rng", "_services")

    def __init__(self, budget: Budget, rng: Rng, services=None):
        #: What is left to spend on this decision.
        self.budget = budget
        #: This seat's seeded generator for the game: the whole match replays bit for bit.
        #: The same numbers as the Rust SDK's `ctx.rng()`.
        self.rng = rng
        self._services = services if services is not None else _services()

    def host_random(self) -> int:
        """The next number of the host's seeded stream for this seat (one host call)."""
        return self._services.random()

    def log(self, message, level: Level = Level.INFO) -> None:
        """Adds a line to this agent's log for the game (the host bounds it)."""
        self._services.log(level, str(message))

    def debug(self, message) -> None:
        self.log(message, Level.DEBUG)

    def warn(self, message) -> None:
        self.log(message, Level.WARN)


class _Slot:
    """One game's agent, its generator and the host services, shared by the game modules."""

    def __init__(self, agent_cls, info: GameInfo):
        self.services = _services()
        self.rng = agent_rng(info.seed)
        self.agent = agent_cls(info)

    def ctx(self, b) -> Ctx:
        return Ctx(Budget(b.fuel, b.millis, b.bank_millis), self.rng, self.services)


def _export(agent_cls, game_module, base, observation_from_wit, action_cls):
    """The class componentize-py instantiates for a world's exports."""

    class Export(base):
        slot = None

        def start(self, info) -> None:
            Export.slot = _Slot(agent_cls, GameInfo.from_wit(info))

        def decide(self, obs, legal, budget) -> int:
            slot = Export.slot
            if slot is None:
                raise RuntimeError("decide called before start")
            try:
                action = slot.agent.decide(
                    observation_from_wit(obs), [action_cls(a) for a in legal], slot.ctx(budget)
                )
            except BaseException as e:
                # Without stderr in the sandbox, the record's log is where the student looks.
                slot.services.log(Level.ERROR, f"{type(e).__name__}: {e}")
                raise
            return int(action)

    Export.__name__ = Export.__qualname__ = f"{game_module}_export"
    return Export
