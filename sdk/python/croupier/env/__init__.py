"""Croupier's games for learning in Python (docs/learning.md).

    import croupier.env as ce

    env = ce.durak_v0(rules="classic")            # a PettingZoo AEC environment
    vec = ce.VecEnv("uno", rules="house", num_envs=256, seed=0, opponents=["uno/greedy"])
    obs, mask = vec.reset()
    obs, mask, reward, terminated, truncated = vec.step(actions)

The engines run natively in `croupier._native` (Rust): every encoding, rule and opponent is
the host's own, and the observation of a seat holds only what that seat may legally know.
"""

from __future__ import annotations

import json

import numpy as np

from .. import _cli, _native

IllegalActionError = _native.IllegalActionError


class OpponentError(RuntimeError):
    """A Python opponent raised. Its seat played its first legal action instead and the batch
    stepped on: `outputs` holds what the call returned (`(obs, mask)` for `reset`, the five
    arrays for `step`), so training can go on after logging it."""

    def __init__(self, message: str, outputs: tuple):
        super().__init__(message)
        self.outputs = outputs

GAMES = tuple(_native.GAMES)

__all__ = [
    "GAMES",
    "CroupierEnv",
    "IllegalActionError",
    "OpponentError",
    "VecEnv",
    "durak_v0",
    "env",
    "layout",
    "record",
    "toepen_v0",
    "uno_v0",
]

# Sandboxed opponents are compiled by this installation's `croupier` command.
_cli.host_paths()


def _options(options) -> list:
    """`{"transfer": True}` or `["transfer=true"]` as the host's NAME=VALUE settings."""
    if options is None:
        return []
    if isinstance(options, dict):
        return [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in options.items()]
    if isinstance(options, str):
        raise TypeError("options: expected a dict or a list of 'NAME=VALUE' strings, not a str")
    return [str(o) for o in options]


def _seed(seed, name="seed") -> int:
    if isinstance(seed, (bool, float)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{name}: expected an int, got {type(seed).__name__}")
    seed = int(seed)
    if not 0 <= seed < 1 << 64:
        raise ValueError(f"{name}: {seed} is not between 0 and 2**64 - 1")
    return seed


def layout(game: str, rules: str | None = None, players: int | None = None, options=None):
    """The observation vector's sections as `(name, offset, length)` (docs/learning.md)."""
    return _native.Table(game, rules, players, _options(options)).layout()


class _Info(dict):
    """An agent's info: `info["observation"]` is the seat's observation as the Python SDK's
    agents receive it and `info["legal"]` the legal actions as SDK actions, both made only when
    read (they cost more than a step) and forgotten at the next step: read them at the step
    they are for."""

    __slots__ = ("_make",)

    def __init__(self, make):
        super().__init__()
        self._make = make

    def __missing__(self, key):
        if key not in ("observation", "legal"):
            raise KeyError(key)
        obs, legal = self._make()
        self["observation"], self["legal"] = obs, legal
        return self[key]

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default


def _sdk(game: str):
    from .. import durak, toepen, uno

    return {"durak": durak, "toepen": toepen, "uno": uno}[game]


class CroupierEnv:
    """Placeholder replaced below once PettingZoo is imported (it is needed only for the AEC
    environments, not for `VecEnv`)."""


def _aec_class():
    from gymnasium import spaces
    from pettingzoo import AECEnv

    class CroupierEnv(AECEnv):
        """One game as a PettingZoo AEC environment: agents `player_0` .. `player_{n-1}` (the
        seats), observations `{"observation": float32 vector, "action_mask": int8 vector}`,
        actions the indices of docs/learning.md, and a reward at the end for every seat: 1
        for a win, -1 for a loss, 0 for a draw (in team games each seat gets its team's).
        Only real choices are asked for: a decision with one legal action is played at once."""

        metadata = {"render_modes": ["human", "ansi"], "name": "croupier_v0", "is_parallelizable": False}

        def __init__(self, game: str, rules=None, players=None, options=None, render_mode=None):
            super().__init__()
            if render_mode is not None and render_mode not in self.metadata["render_modes"]:
                raise ValueError(f"render_mode: {render_mode!r} is not one of human, ansi")
            self.render_mode = render_mode
            self._table = _native.Table(game, rules, players, _options(options))
            self.metadata = dict(self.metadata, name=f"{game}_v0")
            n = self._table.seats
            self.possible_agents = [f"player_{i}" for i in range(n)]
            self._seat = {a: i for i, a in enumerate(self.possible_agents)}
            d, a = self._table.obs_len, self._table.num_actions
            obs_space = spaces.Dict(
                {
                    "observation": spaces.Box(0.0, np.inf, (d,), np.float32),
                    "action_mask": spaces.Box(0, 1, (a,), np.int8),
                }
            )
            self.observation_spaces = {ag: obs_space for ag in self.possible_agents}
            self.action_spaces = {ag: spaces.Discrete(a) for ag in self.possible_agents}
            self._no_mask = np.zeros(a, np.int8)
            self._module = _sdk(game)

        def observation_space(self, agent):
            return self.observation_spaces[agent]

        def action_space(self, agent):
            return self.action_spaces[agent]

        def observe(self, agent):
            seat = self._seat[agent]
            mask = self._table.mask() if self._table.to_act() == seat else self._no_mask.copy()
            return {"observation": self._table.observe(seat), "action_mask": mask}

        def _info(self, seat: int):
            """The info of `seat`: its values are made when read, from the table as it is then,
            and forgotten at each step (`_Info.clear`)."""
            table, module = self._table, self._module

            def make():
                obs = module.Observation.from_rules(json.loads(table.observation_json(seat)))
                legal = [module.Action(c) for c in table.legal_codes()] if table.to_act() == seat else []
                return obs, legal

            return _Info(make)

        def reset(self, seed=None, options=None):
            if seed is None:
                # Unseeded: a fresh seed from NumPy's entropy, so that games differ.
                seed = int(np.random.SeedSequence().generate_state(2, np.uint64)[0])
            self._table.reset(_seed(seed))
            self.agents = self.possible_agents[:]
            self.rewards = {a: 0.0 for a in self.agents}
            self._cumulative_rewards = {a: 0.0 for a in self.agents}
            self.terminations = {a: False for a in self.agents}
            self.truncations = {a: False for a in self.agents}
            self.infos = {a: self._info(i) for i, a in enumerate(self.agents)}
            self._settle()

        def _settle(self):
            to_act = self._table.to_act()
            if to_act is not None:
                self.agent_selection = self.possible_agents[to_act]
                return
            rewards = self._table.rewards() or [0.0] * len(self.possible_agents)
            aborted = self._table.aborted()
            for a in self.agents:
                self.rewards[a] = float(rewards[self._seat[a]])
                self.terminations[a] = not aborted
                self.truncations[a] = aborted

        def step(self, action):
            agent = self.agent_selection
            if self.terminations[agent] or self.truncations[agent]:
                self._was_dead_step(action)
                return
            if action is None:
                raise ValueError(f"{agent}: action None, but the game is not over")
            try:
                index = int(action)
            except (TypeError, ValueError):
                raise TypeError(f"{agent}: action {action!r} is not an action index (int)") from None
            self._table.step(index)
            self._cumulative_rewards[agent] = 0.0
            for a in self.agents:
                self.rewards[a] = 0.0
                self.infos[a].clear()
            self._settle()
            self._accumulate_rewards()
            if self.render_mode == "human":
                self.render()

        def render(self):
            if self.render_mode is None:
                return None
            text = self._text()
            if self.render_mode == "human":
                print(text)
                return None
            return text

        def _text(self) -> str:
            to_act = self._table.to_act()
            if to_act is None:
                return f"{self._table.game}: {self._table.summary() or 'not dealt'}"
            legal = ", ".join(self._table.action_text(i) for i in self._table.legal())
            return f"{self._table.game}: player_{to_act} to act: {legal}"

        def close(self):
            pass

    return CroupierEnv


_AEC = None


def env(game: str, rules: str | None = None, players: int | None = None, options=None, render_mode=None):
    """A PettingZoo AEC environment of `game` (durak, toepen or uno) with a preset (`rules`),
    a number of seats and `NAME=VALUE` options; the game's first preset by default."""
    global _AEC, CroupierEnv
    if _AEC is None:
        _AEC = _aec_class()
        CroupierEnv = _AEC
    return _AEC(game, rules, players, options, render_mode)


def durak_v0(rules: str = "classic", players: int | None = None, options=None, render_mode=None):
    """Durak: `classic` (36 cards, 2 seats), `perevodnoy`, `teams` (2 v 2, 52 cards, transfer);
    `players` 2-6 where the deck allows."""
    return env("durak", rules, players, options, render_mode)


def toepen_v0(rules: str = "standard", players: int | None = None, options=None, render_mode=None):
    """Toepen: `standard`, `drinking`, `cafe`, `plain`; `players` 2-8."""
    return env("toepen", rules, players, options, render_mode)


def uno_v0(rules: str = "official", players: int | None = None, options=None, render_mode=None):
    """UNO: `official` (matches to 500 points), `house`, `two-player`; `players` 2-10."""
    return env("uno", rules, players, options, render_mode)


def _register():
    try:
        from pettingzoo import register
    except ImportError:
        return
    for name in ("durak_v0", "toepen_v0", "uno_v0"):
        register("aec", f"croupier/{name}", entry_point=f"croupier.env:{name}")


_register()


def _opponent(spec, game: str):
    """An opponent as the native layer takes it: a name or file (str), or a factory for a
    Python player (an SDK agent class, or any callable `f(observation, legal) -> action`)."""
    if isinstance(spec, str):
        return spec
    if isinstance(spec, type):
        return _sdk_factory(spec, game)
    if callable(spec):
        return _callable_factory(spec, game)
    raise TypeError(
        f"opponents: {spec!r} is not an agent's name or file, an SDK agent class or a callable"
    )


def _sdk_factory(agent_cls, game: str):
    """Plays an SDK agent class (`durak.Agent` subclass) as it would run in the sandbox: one
    instance a game, `decide(obs, legal, ctx)` with the SDK's observation and actions."""
    from .. import Budget, Ctx, GameInfo, Local, agent_rng

    module = _sdk(game)

    def start(seat, players, preset, rules, seed, args):
        info = GameInfo(seat=seat, players=players, preset=preset, rules=rules, seed=seed, args=args)
        agent = agent_cls(info)
        ctx = Ctx(Budget(), agent_rng(seed), Local(seed))

        def decide(obs_json, codes):
            obs = module.Observation.from_rules(json.loads(obs_json))
            return int(agent.decide(obs, [module.Action(c) for c in codes], ctx))

        return decide

    return start


def _callable_factory(fn, game: str):
    module = _sdk(game)

    def start(seat, players, preset, rules, seed, args):
        def decide(obs_json, codes):
            obs = module.Observation.from_rules(json.loads(obs_json))
            return int(fn(obs, [module.Action(c) for c in codes]))

        return decide

    return start


def record(game: str, agents, games: int, seed: int = 0, rules: str | None = None,
           players: int | None = None, options=None, keep=None, threads: int = 1,
           path=None) -> dict:
    """Plays `games` games between `agents` (names or component files, one a seat, rotated one
    seat a game) and keeps every real decision of the agents whose indices are in `keep` (all
    by default): `obs` (rows, D) float32, `mask` (rows, A) int8, `action` (the index chosen),
    `agent`, `seat`, `game`, and `result`, that seat's reward at the end of its game. With
    `path`, also written there as `.npz`. The same seed gives the same rows on any number of
    threads. Data to imitate an agent from (docs/learning.md)."""
    if isinstance(agents, str):
        raise TypeError("agents: expected a list of agents, one a seat, not a str")
    for name, value in (("games", games), ("threads", threads)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"{name}: expected a whole number, got {value!r}")
    data = _native.record(game, [str(a) for a in agents], int(games), _seed(seed), rules,
                          players, _options(options), list(keep or []), int(threads))
    if path is not None:
        np.savez(path, **{k: v for k, v in data.items() if k != "faults"})
    return data


class VecEnv:
    """`num_envs` games stepped together, at native speed, with the GIL released.

    Only the learner's seat comes back to Python; every other seat is played inside by an
    opponent drawn per game from `opponents` (weights optional):

    - a Rust example agent by name, natively (`"uno/greedy"`);
    - any agent component, through the sandbox with the host's usual limits
      (`"bot.wasm"`, or `"wasm:uno/greedy"` for an example's own component);
    - a Python SDK agent class or a callable `f(observation, legal) -> action`: the slow path
      (the GIL is taken for each of its decisions). If it raises, the call raises
      `OpponentError` with the call's outputs in it; its seat played its first legal action.

    `opponents=[("uno/greedy", 3), ("uno/anneal", 1)]` draws greedy in three games of four.
    The learner's seat rotates with the game number. A finished game is dealt again at once:
    the step that ends it reports its reward (1 win, -1 loss, 0 draw), `terminated` (or
    `truncated` when the engine's safety limit ended it), and the next game's first
    observation. One seed gives the same results on any number of `threads`.
    """

    def __init__(
        self,
        game: str,
        rules: str | None = None,
        num_envs: int = 1,
        seed: int = 0,
        opponents=None,
        players: int | None = None,
        options=None,
        threads: int = 1,
    ):
        if opponents is None:
            raise ValueError("opponents: give at least one, e.g. opponents=['uno/greedy']")
        if isinstance(opponents, (str, type)) or callable(opponents):
            opponents = [opponents]
        specs = []
        for item in opponents:
            spec, weight = item if isinstance(item, tuple) else (item, 1.0)
            if isinstance(weight, bool) or not isinstance(weight, (int, float, np.number)):
                raise TypeError(f"opponents: the weight of {spec!r} is not a number")
            specs.append((_opponent(spec, game), float(weight)))
        for name, value in (("num_envs", num_envs), ("threads", threads)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name}: expected an int at least 1, got {value!r}")
        self._batch = _native.Batch(
            game,
            specs,
            rules=rules,
            players=players,
            options=_options(options),
            num_envs=int(num_envs),
            seed=_seed(seed),
            threads=int(threads),
        )
        self.num_envs = self._batch.num_envs
        self.obs_len = self._batch.obs_len
        self.num_actions = self._batch.num_actions
        self.game = game

    def reset(self, seed: int | None = None):
        """Deals every environment's first game; returns `(obs, mask)`."""
        try:
            obs, mask, _, _, _ = self._batch.reset(None if seed is None else _seed(seed))
        except _native.OpponentError as e:
            raise OpponentError(e.args[0], e.args[1][:2]) from None
        return obs, mask

    def step(self, actions):
        """One action index per environment (any integer array of shape `(num_envs,)`);
        returns `(obs, mask, reward, terminated, truncated)`. An illegal action raises
        `IllegalActionError` naming the environment, the action and the legal ones, and
        changes nothing."""
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions: expected shape ({self.num_envs},), got {a.shape}")
        if a.dtype.kind not in "iu":
            raise TypeError(f"actions: expected integers, got dtype {a.dtype}")
        try:
            return self._batch.step(np.ascontiguousarray(a, dtype=np.int64))
        except _native.OpponentError as e:
            raise OpponentError(e.args[0], e.args[1]) from None

    def ask(self, agent: str):
        """What `agent` (a name or component file) would choose in each environment's learner
        seat now, as action indices (int64; -1 where it faults), without applying anything:
        an expert's labels for the positions the learner reached (DAgger). Deterministic for
        a seed."""
        return self._batch.ask(str(agent))

    @property
    def faults(self) -> int:
        """Opponent faults so far (the seat then plays its first legal action)."""
        return self._batch.faults

    @property
    def games(self) -> int:
        """Games dealt so far."""
        return self._batch.games
