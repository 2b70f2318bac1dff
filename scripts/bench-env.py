#!/usr/bin/env python3
"""Environment steps per second with random legal actions: Croupier's Python environments
(`croupier.env`: the PettingZoo AEC environments and the batched `VecEnv`) beside the peers
people train card-game agents on: RLCard 1.2 (`uno`), PettingZoo classic (`leduc_holdem_v4`,
`texas_holdem_v4`) and OpenSpiel (`leduc_poker`, `hearts`, `crazy_eights`).

Usage: scripts/bench-env.py [--seconds 5] [--repeats 3] [--warmup 1] [--only TEXT] [--json FILE]
(scripts/bench-env.sh makes the virtualenv with the peers pinned and runs this.)

Each row builds its environment once (not timed), runs a warm-up, then times --repeats runs of
about --seconds each and reports the median steps/s. A peer that does not import is "not
installed", Croupier's rows are "not built" when `croupier.env` does not import; both are
skipped. Any other failure is shown in its row and makes the exit status 1.

What one step is differs by row, and the "counts" column says which: every seat's decision
(RLCard, PettingZoo, OpenSpiel, Croupier AEC), never the `None` steps that PettingZoo asks of
agents that are done, nor OpenSpiel's chance nodes (sampled in Python, not counted); for the
VecEnv only the learner's decisions (num_envs per `step` call), the opponents' moves being made
inside the call. Random legal actions are Python's `random` on one decision at a time,
except the VecEnv's, drawn for all environments at once in NumPy.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from importlib import metadata

import numpy as np

CHECK = 64  # steps between two looks at the clock in the one-decision loops
VEC_ENVS = 256


class Skip(Exception):
    """A row that cannot run here (the peer is not installed, Croupier is not built)."""


def version(dist: str) -> str:
    try:
        return f"{dist} {metadata.version(dist)}"
    except metadata.PackageNotFoundError:
        return dist


def import_croupier_env():
    try:
        import croupier.env as ce
    except ImportError as e:
        raise Skip(f"not built ({e})") from e
    return ce


# ---------------------------------------------------------------------------------------------
# Each row's setup returns loop(deadline) -> steps counted before the deadline. Setup (imports,
# making the environment) is not timed. The loops keep their game going from one call to the
# next, so the warm-up and the repeats run one long sequence of games.


def rlcard_uno():
    try:
        import rlcard
    except ImportError as e:
        raise Skip("not installed") from e
    env = rlcard.make("uno", config={"seed": 0})
    rng = random.Random(0)
    choice = rng.choice
    state, _ = env.reset()

    def loop(deadline: float) -> int:
        nonlocal state
        steps = 0
        while True:
            for _ in range(CHECK):
                state, _ = env.step(choice(list(state["legal_actions"].keys())))
                steps += 1
                if env.is_over():
                    state, _ = env.reset()
            if time.perf_counter() >= deadline:
                return steps

    return loop


def aec_loop(env):
    """The PettingZoo AEC loop of the docs, with random legal actions from the action mask.
    Counts only real actions: the `None` steps of agents that are done are not decisions."""
    env.reset(seed=0)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(i)

    def loop(deadline: float) -> int:
        steps = 0
        n = 0
        while True:
            if not env.agents:
                env.reset()
            for agent in env.agent_iter():
                obs, rew, term, trunc, info = env.last()
                if term or trunc:
                    a = None
                else:
                    a = env.action_space(agent).sample(obs["action_mask"])
                    steps += 1
                env.step(a)
                n += 1
                if n % CHECK == 0 and time.perf_counter() >= deadline:
                    return steps

    return loop


def pettingzoo_classic(name: str):
    def setup():
        try:
            import pettingzoo
        except ImportError as e:
            raise Skip("not installed") from e
        if hasattr(pettingzoo, "make"):  # 1.27's registry; the modules are deprecated there
            env = pettingzoo.make("aec", f"classic/{name}")
        else:
            import importlib

            env = importlib.import_module(f"pettingzoo.classic.{name}").env()
        return aec_loop(env)

    return setup


def openspiel(name: str, params: dict | None = None):
    def setup():
        try:
            import pyspiel
        except ImportError as e:
            raise Skip("not installed") from e
        if name not in pyspiel.registered_names():
            raise Skip(f"not in this OpenSpiel (`{name}` not registered)")
        game = pyspiel.load_game(name, params or {})
        rng = random.Random(0)
        state = game.new_initial_state()

        def loop(deadline: float) -> int:
            nonlocal state
            steps = 0
            while True:
                for _ in range(CHECK):
                    if state.is_terminal():
                        state = game.new_initial_state()
                    elif state.is_chance_node():
                        outcomes, probs = zip(*state.chance_outcomes())
                        state.apply_action(rng.choices(outcomes, probs)[0])
                    else:
                        state.apply_action(rng.choice(state.legal_actions()))
                        steps += 1
                if time.perf_counter() >= deadline:
                    return steps

        return loop

    return setup


def croupier_aec(make: str, **kwargs):
    def setup():
        ce = import_croupier_env()
        return aec_loop(getattr(ce, make)(**kwargs))

    return setup


def croupier_vec(game: str, threads: int, opponent: str, **kwargs):
    def setup():
        ce = import_croupier_env()
        vec = ce.VecEnv(game, num_envs=VEC_ENVS, seed=0, opponents=[opponent], threads=threads,
                        **kwargs)
        obs, mask = vec.reset()
        rng = np.random.default_rng(0)
        n = mask.shape[0]

        def loop(deadline: float) -> int:
            nonlocal obs, mask
            steps = 0
            while time.perf_counter() < deadline:
                # A uniform legal action per environment, all at once: legal actions score in
                # [1, 2), illegal ones 0 (so a draw of exactly 0 cannot pick an illegal one).
                u = rng.random(mask.shape, dtype=np.float32)
                u += 1.0
                u *= mask
                actions = u.argmax(1).astype(np.int64, copy=False)
                obs, mask, rewards, terminated, truncated = vec.step(actions)
                steps += n
            return steps

        return loop

    return setup


EVERY_SEAT = "every seat's decisions"
AEC_COUNTS = "every agent's real actions (not the None steps of done agents)"
OS_COUNTS = "every player's decisions (chance nodes sampled, not counted)"
VEC_COUNTS = f"the learner's decisions only ({VEC_ENVS} per step call)"


def rows(durak_opponent: str) -> list:
    """(key, label, distribution for the version column, setup, counts) for each row."""
    return [
        ("rlcard-uno", "RLCard `uno` (2 players)", "rlcard", rlcard_uno, EVERY_SEAT),
        ("pettingzoo-leduc", "PettingZoo `leduc_holdem_v4` (AEC)", "pettingzoo",
         pettingzoo_classic("leduc_holdem_v4"), AEC_COUNTS),
        ("pettingzoo-texas", "PettingZoo `texas_holdem_v4` (AEC)", "pettingzoo",
         pettingzoo_classic("texas_holdem_v4"), AEC_COUNTS),
        ("openspiel-leduc", "OpenSpiel `leduc_poker`", "open_spiel", openspiel("leduc_poker"),
         OS_COUNTS),
        ("openspiel-hearts", "OpenSpiel `hearts`", "open_spiel", openspiel("hearts"), OS_COUNTS),
        ("openspiel-crazy-eights", "OpenSpiel `crazy_eights` (2 players)", "open_spiel",
         openspiel("crazy_eights", {"players": 2}), OS_COUNTS),
        ("croupier-aec-uno", "Croupier `uno_v0` house, 2 players (AEC)", "croupier",
         croupier_aec("uno_v0", rules="house", players=2), AEC_COUNTS),
        ("croupier-aec-durak", "Croupier `durak_v0` classic (AEC)", "croupier",
         croupier_aec("durak_v0", rules="classic"), AEC_COUNTS),
        ("croupier-vec-uno-t1", "Croupier VecEnv UNO house 2p, `uno/greedy`, 1 thread", "croupier",
         croupier_vec("uno", 1, "uno/greedy", rules="house"), VEC_COUNTS),
        ("croupier-vec-uno-t2", "Croupier VecEnv UNO house 2p, `uno/greedy`, 2 threads", "croupier",
         croupier_vec("uno", 2, "uno/greedy", rules="house"), VEC_COUNTS),
        ("croupier-vec-durak-t1", f"Croupier VecEnv Durak classic, `{durak_opponent}`, 1 thread",
         "croupier", croupier_vec("durak", 1, durak_opponent, rules="classic"), VEC_COUNTS),
        ("croupier-vec-durak-t2", f"Croupier VecEnv Durak classic, `{durak_opponent}`, 2 threads",
         "croupier", croupier_vec("durak", 2, durak_opponent, rules="classic"), VEC_COUNTS),
        ("croupier-vec-uno-wasm-t1",
         "Croupier VecEnv UNO house 2p, `wasm:uno/greedy` (sandboxed), 1 thread", "croupier",
         croupier_vec("uno", 1, "wasm:uno/greedy", rules="house"), VEC_COUNTS),
    ]


def run_row(setup, seconds: float, repeats: int, warmup: float) -> dict:
    loop = setup()
    loop(time.perf_counter() + warmup)
    steps, elapsed = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        s = loop(t0 + seconds)
        steps.append(s)
        elapsed.append(time.perf_counter() - t0)
    rates = [s / e for s, e in zip(steps, elapsed)]
    return {"status": "ok", "steps": steps, "seconds": elapsed, "rates": rates,
            "median": statistics.median(rates)}


def fmt(rate: float) -> str:
    return f"{rate:,.0f}"


def ratio(num, den) -> str:
    if num is None or den is None or den == 0:
        return "n/a (a row is missing)"
    return f"{num / den:.1f}x"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=5.0, help="length of one timed run (5)")
    p.add_argument("--repeats", type=int, default=3, help="timed runs per row, median (3)")
    p.add_argument("--warmup", type=float, default=1.0, help="untimed seconds first (1)")
    p.add_argument("--only", action="append", default=[],
                   help="run only rows whose key contains TEXT (repeatable), e.g. croupier")
    p.add_argument("--durak-opponent", default="durak/cheapest",
                   help="the VecEnv Durak rows' opponent (durak/cheapest; Durak has no greedy)")
    p.add_argument("--json", metavar="FILE", help="write the raw figures here")
    args = p.parse_args()

    results = {}
    failed = False
    for key, label, dist, setup, counts in rows(args.durak_opponent):
        if args.only and not any(o in key for o in args.only):
            continue
        print(f"... {key}", file=sys.stderr, flush=True)
        row = {"key": key, "label": label, "version": version(dist), "counts": counts}
        try:
            row.update(run_row(setup, args.seconds, args.repeats, args.warmup))
        except Skip as e:
            row.update(status="skipped", note=str(e))
        except Exception as e:  # a row that fails must not stop the others
            row.update(status="error", note=f"{type(e).__name__}: {e}")
            failed = True
        results[key] = row

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    print(f"Steps per second with random legal actions, median of {args.repeats} runs of "
          f"{args.seconds:g} s after {args.warmup:g} s of warm-up; Python "
          f"{platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} cores"
          + (f", load average {load:.1f} at the end (other work skews the figures)."
             if load is not None else "."))
    print()
    print("| environment | version | steps/s (median) | min – max | counts |")
    print("|---|---|---:|---|---|")
    for row in results.values():
        if row["status"] == "ok":
            spread = f"{fmt(min(row['rates']))} – {fmt(max(row['rates']))}"
            print(f"| {row['label']} | {row['version']} | {fmt(row['median'])} | {spread} | "
                  f"{row['counts']} |")
        else:
            note = row["note"].replace("|", "\\|").replace("\n", " ")
            print(f"| {row['label']} | {row['version']} | {row['status']}: {note} | | |")

    def med(key):
        row = results.get(key)
        return row["median"] if row and row["status"] == "ok" else None

    vec_uno = [v for v in (med("croupier-vec-uno-t1"), med("croupier-vec-uno-t2")) if v]
    vec_best = max(vec_uno) if vec_uno else None
    pz = [v for v in (med("pettingzoo-leduc"), med("pettingzoo-texas")) if v]
    pz_mean = statistics.mean(pz) if len(pz) == 2 else None
    ratios = {
        "vec_uno_best / rlcard_uno (goal >= 50x)": (vec_best, med("rlcard-uno")),
        "aec_uno / pettingzoo_leduc_texas_mean (goal >= 5x)": (med("croupier-aec-uno"), pz_mean),
        "aec_durak / pettingzoo_leduc_texas_mean (goal >= 5x)":
            (med("croupier-aec-durak"), pz_mean),
        "vec_uno_sandboxed_t1 / vec_uno_native_t1":
            (med("croupier-vec-uno-wasm-t1"), med("croupier-vec-uno-t1")),
    }
    print()
    print("Ratios the goals name:")
    print(f"- VecEnv UNO (best thread count) / RLCard UNO: "
          f"{ratio(*ratios['vec_uno_best / rlcard_uno (goal >= 50x)'])} (goal >= 50x)")
    print(f"- Croupier AEC UNO / mean of PettingZoo leduc and texas: "
          f"{ratio(*ratios['aec_uno / pettingzoo_leduc_texas_mean (goal >= 5x)'])} (goal >= 5x)")
    print(f"- Croupier AEC Durak / mean of PettingZoo leduc and texas: "
          f"{ratio(*ratios['aec_durak / pettingzoo_leduc_texas_mean (goal >= 5x)'])} "
          f"(goal >= 5x)")
    print(f"- VecEnv UNO sandboxed opponent / native opponent, 1 thread: "
          f"{ratio(*ratios['vec_uno_sandboxed_t1 / vec_uno_native_t1'])}")

    if args.json:
        out = {
            "seconds": args.seconds, "repeats": args.repeats, "warmup": args.warmup,
            "python": platform.python_version(), "numpy": np.__version__,
            "cpus": os.cpu_count(), "platform": platform.platform(), "load_average": load,
            "rows": list(results.values()),
            "ratios": {k: (n / d if n is not None and d else None)
                       for k, (n, d) in ratios.items()},
        }
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
            f.write("\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
