"""Learn a Durak policy by imitating a search agent, export it as a sandboxed agent, and
measure it: about 4 minutes on 2 cores with NumPy alone (docs/learning.md, "A training
example").

    pip install 'croupier[env]'
    python3 examples/train/durak.py                 # records, trains, exports, evaluates
    python3 examples/train/durak.py --games 150 --epochs 3 --hidden 64 --eval-games 100

1. `croupier.env.record` plays the expert (`durak/ismcts#iters=200`) against the two source
   agents, `durak/random-lead` and `durak/trump-tosser`, and keeps the expert's decisions:
   its observation vector, the legal-action mask and the action it chose.
2. A one-hidden-layer network learns to choose as the expert did (softmax cross-entropy over
   the legal actions, Adam), in NumPy; then in DAgger rounds it plays the source agents
   itself (`croupier.env.VecEnv`), the expert labels every position it reaches
   (`VecEnv.ask`), and it trains again on every label so far.
3. `croupier.policy.save` writes it as safetensors and `croupier policy export` turns it into
   an agent component.
4. `croupier match --duplicate` plays it against each source agent on a seed the training
   never used, and prints its win rate with a 95% interval.

PyTorch users: the same network is `nn.Sequential(nn.Linear(D, H), nn.ReLU(), nn.Linear(H, A))`
trained with `F.cross_entropy(logits.masked_fill(mask == 0, -1e9), actions)`; save its two
linears with `croupier.policy.save` as in `export()` below. This script stays NumPy-only so
that the test command can run it where PyTorch is not installed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import time

import numpy as np

import croupier.env as ce
from croupier import policy

OPPONENTS = ["durak/random-lead", "durak/trump-tosser"]
# The observation's sections indexed by card (52 a block; docs/learning.md, "Durak").
CARD_SECTIONS = ("hand", "own_known", "known", "discard", "unseen", "shown", "low_trumps", "trump", "table")


def suit_symmetries(num_actions: int, rules: str = "classic") -> list:
    """Durak's rules treat the four suits alike, so renaming them (24 ways, the trump suit's
    name included) turns a decision into another one just as good. Each symmetry is index
    arrays `(obs, mask, action)`: `x[:, obs]`, `m[:, mask]` and `action[y]` are the renamed
    observation, mask and label. Training on a random renaming of each batch is 24 times the
    data for nothing, and it more than anything else here makes the network play well."""
    layout = ce.layout("durak", rules=rules)
    d = layout[-1][1] + layout[-1][2]
    a = num_actions
    out = []
    for sigma in itertools.permutations(range(4)):
        card = np.array([sigma[c // 13] * 13 + c % 13 for c in range(52)])  # code = 13 * suit + rank - 2
        to_obs = np.arange(d)
        for name, start, width in layout:
            if name in CARD_SECTIONS:
                for block in range(start, start + width, 52):
                    to_obs[block : block + 52] = block + card
            elif name == "trump_suit":
                to_obs[start : start + 4] = start + np.array(sigma)
        # Actions: four card-indexed blocks, take and pass, a multiple lead by rank and suit
        # mask, then a beat by slot and card (docs/learning.md, "Durak").
        to_act = np.arange(a)
        for block in (0, 52, 104, 156, *range(418, a, 52)):
            to_act[block : block + 52] = block + card
        for i in range(210, 418):
            rank, suits = divmod(i - 210, 16)
            to_act[i] = 210 + 16 * rank + sum(1 << sigma[s] for s in range(4) if suits >> s & 1)
        out.append((np.argsort(to_obs), np.argsort(to_act), to_act))
    return out


def record(expert: str, games: int, seed: int, threads: int) -> dict:
    """The expert's decisions against each opponent, half the games each."""
    parts = [
        ce.record("durak", [expert, opp], games // 2, seed=seed + k, rules="classic", keep=[0], threads=threads)
        for k, opp in enumerate(OPPONENTS)
    ]
    return {key: np.concatenate([p[key] for p in parts]) for key in ("obs", "mask", "action")}


class Net:
    """x -> relu(x W1' + b1) -> W2' + b2, trained by Adam on masked cross-entropy."""

    def __init__(self, d: int, h: int, a: int, rng):
        self.p = [
            rng.normal(0, np.sqrt(2 / d), (h, d)).astype(np.float32),
            np.zeros(h, np.float32),
            rng.normal(0, np.sqrt(1 / h), (a, h)).astype(np.float32),
            np.zeros(a, np.float32),
        ]
        self.m = [np.zeros_like(p) for p in self.p]
        self.v = [np.zeros_like(p) for p in self.p]
        self.t = 0

    def logits(self, x, mask):
        w1, b1, w2, b2 = self.p
        h = np.maximum(x @ w1.T + b1, 0)
        z = h @ w2.T + b2
        return h, np.where(mask > 0, z, np.float32(-1e9))

    def step(self, x, mask, actions, lr=1e-3):
        h, z = self.logits(x, mask)
        z = z - z.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        n = len(actions)
        loss = -np.log(p[np.arange(n), actions] + 1e-12).mean()
        dz = p
        dz[np.arange(n), actions] -= 1
        dz /= n
        w1, b1, w2, b2 = self.p
        dh = (dz @ w2) * (h > 0)
        grads = [dh.T @ x, dh.sum(0), dz.T @ h, dz.sum(0)]
        self.t += 1
        for i, g in enumerate(grads):
            self.m[i] = 0.9 * self.m[i] + 0.1 * g
            self.v[i] = 0.999 * self.v[i] + 0.001 * g * g
            mh = self.m[i] / (1 - 0.9**self.t)
            vh = self.v[i] / (1 - 0.999**self.t)
            self.p[i] -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        return loss

    def accuracy(self, x, mask, actions):
        return float((self.logits(x, mask)[1].argmax(1) == actions).mean())


def train(data: dict, hidden: int, epochs: int, seed: int, log=print, net: Net | None = None,
          symmetries: list | None = None) -> Net:
    """Epochs of Adam over 90% of `data`, each batch under a random suit renaming; reports the
    agreement with the expert on the other 10%."""
    rng = np.random.default_rng(seed)
    x, mask, y = data["obs"], data["mask"], data["action"]
    sym = symmetries or suit_symmetries(mask.shape[1])
    order = rng.permutation(len(y))
    held = order[: len(y) // 10]
    fit = order[len(y) // 10 :]
    net = net or Net(x.shape[1], hidden, mask.shape[1], rng)

    def batch(b):
        to_obs, to_mask, to_act = sym[rng.integers(len(sym))]
        return net.step(x[b][:, to_obs], mask[b][:, to_mask], to_act[y[b]])

    for epoch in range(epochs):
        rng.shuffle(fit)
        losses = [batch(b) for b in np.array_split(fit, max(1, len(fit) // 512))]
        log(f"epoch {epoch + 1}: loss {np.mean(losses):.3f}, held-out agreement with the expert "
            f"{net.accuracy(x[held], mask[held], y[held]):.1%}")
    return net


def dagger(net: Net, data: dict, expert: str, rounds: int, labels: int, epochs: int, seed: int,
           threads: int, log=print, symmetries: list | None = None) -> Net:
    """DAgger: the network plays the source agents itself, the expert labels every position
    it reaches (`VecEnv.ask`), and the network trains again on all the labels so far, so that
    it learns to recover from its own mistakes, which the expert's games never show."""
    vec = ce.VecEnv("durak", rules="classic", num_envs=256, seed=seed + 1, opponents=OPPONENTS, threads=threads)
    obs, mask = vec.reset()
    for r in range(rounds):
        xs, ms, ys = [], [], []
        while sum(len(y) for y in ys) < labels:
            y = vec.ask(expert)
            keep = y >= 0
            xs.append(obs[keep])
            ms.append(mask[keep])
            ys.append(y[keep])
            obs, mask, *_ = vec.step(net.logits(obs, mask)[1].argmax(1))
        data = {
            "obs": np.concatenate([data["obs"], *xs]),
            "mask": np.concatenate([data["mask"], *ms]),
            "action": np.concatenate([data["action"], *ys]),
        }
        log(f"DAgger round {r + 1}: {len(data['action'])} labels")
        net = train(data, 0, epochs, seed + 2 + r, log, net, symmetries)
    return net


def export(net: Net, out: str, name: str) -> str:
    w1, b1, w2, b2 = net.p
    os.makedirs(out, exist_ok=True)
    model = os.path.join(out, f"{name}.safetensors")
    policy.save(model, [(w1, b1), (w2, b2)], game="durak", rules="classic")
    subprocess.run(["croupier", "policy", "export", model, "--out", os.path.join(out, "agents")], check=True)
    return os.path.join(out, "agents", "durak", f"{name}.wasm")


def evaluate(agent: str, opponent: str, games: int, seed: int) -> dict:
    """`croupier match --duplicate` on `seed`: the agent's row of the JSON result."""
    result = os.path.join(os.path.dirname(agent), f"match-{opponent.replace('/', '-')}.json")
    subprocess.run(
        ["croupier", "match", "durak", agent, opponent, "--rules", "classic", "--games", str(games),
         "--duplicate", "--seed", str(seed), "--json", result],
        check=True, stdout=subprocess.DEVNULL,
    )
    with open(result) as f:
        rows = json.load(f)["agents"]
    return next(r for r in rows if r["name"] == agent)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--expert", default="durak/ismcts#iters=200")
    ap.add_argument("--games", type=int, default=4000, help="games recorded (half against each source agent)")
    ap.add_argument("--epochs", type=int, default=8, help="epochs over the recorded games")
    ap.add_argument("--round-epochs", type=int, default=3, help="epochs over all labels after a DAgger round")
    ap.add_argument("--rounds", type=int, default=3, help="DAgger rounds after the first training")
    ap.add_argument("--labels", type=int, default=20_000, help="expert labels a DAgger round")
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--seed", type=int, default=20261207, help="the training's seed (recording and network)")
    ap.add_argument("--eval-seed", type=int, default=7_000_001, help="the evaluation's seed, never used to train")
    ap.add_argument("--eval-games", type=int, default=500, help="deals per opponent (each played twice)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default="durak-policy")
    a = ap.parse_args(argv)
    start = time.time()
    data = record(a.expert, a.games, a.seed, a.threads)
    print(f"recorded {len(data['action'])} decisions of {a.expert} in {time.time() - start:.0f} s")
    symmetries = suit_symmetries(data["mask"].shape[1])
    net = train(data, a.hidden, a.epochs, a.seed, symmetries=symmetries)
    net = dagger(net, data, a.expert, a.rounds, a.labels, a.round_epochs, a.seed, a.threads, symmetries=symmetries)
    print(f"trained in {time.time() - start:.0f} s")
    wasm = export(net, a.out, "imitation")
    for opp in OPPONENTS:
        r = evaluate(wasm, opp, a.eval_games, a.eval_seed)
        lo, hi = r["win_rate_ci95"]
        print(f"against {opp}: {100 * r['win_rate']:.1f}% of {r['games']} games "
              f"(95% interval {100 * lo:.1f}-{100 * hi:.1f}%), "
              f"{r['fuel_per_decision'] / 1e6:.2f} M fuel a decision")
    print(f"done in {time.time() - start:.0f} s: {wasm}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
