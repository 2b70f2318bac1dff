#!/usr/bin/env python3
"""Fits `uno/search`'s learned evaluation and writes its weights as data into the agent.

    scripts/fit-uno-eval.py            (about 4 minutes on 2 cores; needs numpy)
    scripts/fit-uno-eval.py --check    (the same, then fails if the weights differ from
                                        the file's: the shipped weights are this script's)

Why: the playouts stop after a few moves, and an unfinished hand was scored by the points
in hand alone (0.5 + points difference / 200). That scores a hand of one card worth 9 as
worse than one of five cards worth 8, and as a chance of winning it is badly calibrated
(held-out log-loss 1.2, against 0.57 for the model below).

What: `uno/search` (the points evaluation, `learned=0 steps=20`, 3 000 playouts a decision)
plays 6 000 house hands against `uno/greedy` (deals 1 000 000..) and 6 000 against
`uno/anneal` (deals 2 000 000..), natively, through the crate's ignored test `eval_data`.
Every position of those hands is written as seat 0's `Lean::features` with the hand's
result for seat 0. A logistic regression (Newton's method, L2 0.001 on every weight but the
bias) is fitted on the first 80% of each file's positions and scored on the rest; the weights
go into `example-agents/uno-search/src/weights.rs`.

Deals, games and the fit are deterministic: the same commit writes the same file (`--check`).
The deals are far from the tuning deals (0..2 399) and the benchmark's seeds.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WEIGHTS = os.path.join(ROOT, "example-agents", "uno-search", "src", "weights.rs")
GAMES = 6000
RUNS = [("greedy", 1_000_000), ("anneal", 2_000_000)]
ARGS = "iters=3000 budget=1000000000000 learned=0 steps=20"
L2 = 1e-3


def generate(folder):
    """Runs the two data games at once (one core each); returns the files."""
    cmd = ["cargo", "test", "--release", "-p", "uno-search", "--lib", "eval_data"]
    cmd += ["--", "--ignored"]
    subprocess.run(cmd + ["--list"], cwd=ROOT, check=True, capture_output=True)
    procs, files = [], []
    for opp, start in RUNS:
        out = os.path.join(folder, f"{opp}.csv")
        env = dict(os.environ, OPP=opp, GAMES=str(GAMES), START=str(start), OUT=out, ARGS=ARGS)
        procs.append(subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL))
        files.append(out)
    for p in procs:
        if p.wait() != 0:
            sys.exit("fit-uno-eval: the data games failed")
    return files


def load(path):
    rows = np.loadtxt(path, delimiter=",", dtype=np.float64, ndmin=2)
    if rows.shape[0] == 0:
        sys.exit(f"fit-uno-eval: {path} has no positions")
    return rows[:, :-1], rows[:, -1]


def fit(x, y):
    """Logistic regression by Newton's method; the bias (column 0) is not penalised."""
    w = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], L2)
    penalty[0] = 0.0
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) / len(y) + penalty * w
        hess = (x * (p * (1 - p))[:, None]).T @ x / len(y) + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-12:
            break
    return w


def log_loss(p, y):
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def render(w):
    lines = [
        "//! The learned evaluation's weights, one per `Lean::features` entry: written by",
        "//! `scripts/fit-uno-eval.py` (see there for the data and the fit); do not edit.",
        f"pub const WEIGHTS: [f64; {len(w)}] = [",
    ]
    lines += [f"    {float(v)!r}," for v in w]
    lines.append("];")
    return "\n".join(lines) + "\n"


def main():
    check = "--check" in sys.argv[1:]
    with tempfile.TemporaryDirectory() as folder:
        parts = [load(f) for f in generate(folder)]
    train_x, train_y, test_x, test_y = [], [], [], []
    for x, y in parts:
        n = int(len(y) * 0.8)
        train_x.append(x[:n])
        train_y.append(y[:n])
        test_x.append(x[n:])
        test_y.append(y[n:])
    x, y = np.vstack(train_x), np.concatenate(train_y)
    tx, ty = np.vstack(test_x), np.concatenate(test_y)
    w = fit(x, y)
    learned = 1.0 / (1.0 + np.exp(-(tx @ w)))
    # The points evaluation, from the same features: points / 50 are entries 5 and 5 + the
    # seat's count (the four shared entries first, then each seat's as many).
    other = 5 + (tx.shape[1] - 4) // 2
    points = np.clip(0.5 + (tx[:, other] - tx[:, 5]) * 50 / 200, 0, 1)
    print(f"positions: {len(y)} to fit, {len(ty)} held out")
    constant = np.full_like(ty, y.mean())
    print(f"held-out log-loss: learned {log_loss(learned, ty):.4f}, "
          f"points {log_loss(points, ty):.4f}, constant {log_loss(constant, ty):.4f}")
    brier = [np.mean((p - ty) ** 2) for p in (learned, points, constant)]
    print("held-out Brier: learned {:.4f}, points {:.4f}, constant {:.4f}".format(*brier))
    text = render(w)
    if check:
        with open(WEIGHTS) as f:
            if f.read() != text:
                sys.exit(f"fit-uno-eval: {WEIGHTS} is not what this script writes")
        print(f"{WEIGHTS}: the same")
        return
    with open(WEIGHTS, "w") as f:
        f.write(text)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
