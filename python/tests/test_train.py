"""The training example (examples/train/durak.py) on a short, fixed budget, from the installed
wheel: it records, trains and exports, and by one-sided binomial tests its agent beats a
uniformly random legal player and the same network before training (which alone would beat
a random player: Durak punishes random play). Not a timed test; the full run's figures are
in BENCHMARKS.md."""

import importlib.util
import json
import math
import os
import subprocess

import numpy as np

import croupier.env as ce

HERE = os.path.dirname(os.path.abspath(__file__))


def load_example():
    path = os.environ.get("CROUPIER_TRAIN_EXAMPLE", os.path.join(HERE, "durak.py"))
    spec = importlib.util.spec_from_file_location("train_durak", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def binomial_tail(wins: int, n: int) -> float:
    """P(X >= wins) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, k) for k in range(wins, n + 1)) / 2**n


def test_a_short_training_beats_a_random_player(tmp_path):
    example = load_example()
    data = example.record("durak/cheapest", games=120, seed=11, threads=2)
    assert len(data["action"]) > 1000
    net = example.train(data, hidden=32, epochs=3, seed=11, log=lambda *_: None)
    wasm = example.export(net, str(tmp_path), "short")
    # The exported agent plays every other seat; the learner's seat plays uniformly at random.
    vec = ce.VecEnv("durak", rules="classic", num_envs=32, seed=99, opponents=[wasm])
    rng = np.random.default_rng(5)
    _, mask = vec.reset()
    random_won = finished = 0
    while finished < 300:
        actions = ((rng.random(mask.shape) + 1) * mask).argmax(1)
        _, mask, reward, terminated, truncated = vec.step(actions)
        done = terminated & (reward != 0)
        finished += int(done.sum())
        random_won += int((reward[done] > 0).sum())
    agent_won = finished - random_won
    p = binomial_tail(agent_won, finished)
    assert vec.faults == 0
    assert p < 1e-3, f"the trained agent won {agent_won} of {finished} (p = {p:.3g})"

    untrained = example.export(
        example.train(data, hidden=32, epochs=0, seed=11, log=lambda *_: None), str(tmp_path / "u"), "untrained"
    )
    result = tmp_path / "match.json"
    subprocess.run(
        ["croupier", "match", "durak", wasm, untrained, "--games", "300", "--duplicate", "--seed", "3",
         "--json", str(result)],
        check=True, stdout=subprocess.DEVNULL,
    )
    row = json.loads(result.read_text())["agents"][0]
    decided = row["wins"] + row["losses"]
    p = binomial_tail(row["wins"], decided)
    assert p < 1e-3, f"trained against untrained: {row['wins']} of {decided} (p = {p:.3g})"


def test_suit_renamings_keep_observation_mask_and_label_together():
    """The example's 24 suit renamings: a renamed expert label is legal under the renamed mask;
    in a lead the renamed legal leads are the renamed hand; the renamed trump card is of the
    renamed trump suit; and renaming back restores the original."""
    example = load_example()
    data = example.record("durak/cheapest", games=40, seed=12, threads=2)
    x, mask, y = data["obs"], data["mask"], data["action"]
    sections = {name: (start, width) for name, start, width in ce.layout("durak", rules="classic")}
    hand, phase, trump, suit = (slice(s, s + w) for s, w in
                                (sections[k] for k in ("hand", "phase", "trump", "trump_suit")))
    leads = x[:, phase].argmax(1) == 0
    assert leads.any() and (~leads).any()
    symmetries = example.suit_symmetries(mask.shape[1])
    assert len(symmetries) == 24
    for to_obs, to_mask, to_act in symmetries:
        xs, ms, ys = x[:, to_obs], mask[:, to_mask], to_act[y]
        assert (ms[np.arange(len(ys)), ys] == 1).all()
        assert (ms[leads, :52] == xs[leads, hand]).all()
        assert (xs[:, trump].argmax(1) // 13 == xs[:, suit].argmax(1)).all()
        assert (xs[:, np.argsort(to_obs)] == x).all() and (ms[:, np.argsort(to_mask)] == mask).all()
