"""croupier.env from the installed wheel (scripts/test-wheel.sh runs this in a fresh venv with
no Rust on the PATH): PettingZoo's own API and seed tests for every game, the VecEnv's
determinism across threads, opponents of every kind, and every bad input named."""

import os
import sys

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import croupier.env as ce
from croupier import durak

# (constructor, kwargs): every game and preset, and the seat counts each allows.
SETTINGS = [
    (ce.durak_v0, dict(rules="classic")),
    (ce.durak_v0, dict(rules="perevodnoy")),
    (ce.durak_v0, dict(rules="teams")),
    (ce.durak_v0, dict(rules="classic", players=3)),
    (ce.durak_v0, dict(rules="classic", players=6)),
    (ce.toepen_v0, dict(rules="standard")),
    (ce.toepen_v0, dict(rules="plain", players=2)),
    (ce.toepen_v0, dict(rules="cafe", players=6)),
    (ce.uno_v0, dict(rules="official")),
    (ce.uno_v0, dict(rules="house", players=2)),
    (ce.uno_v0, dict(rules="two-player")),
    (ce.uno_v0, dict(rules="house", players=5)),
]
IDS = [f"{f.__name__}-{'-'.join(str(v) for v in k.values())}" for f, k in SETTINGS]


@pytest.mark.parametrize("make,kwargs", SETTINGS, ids=IDS)
def test_pettingzoo_api(make, kwargs):
    api_test(make(**kwargs), num_cycles=300)


@pytest.mark.parametrize("make,kwargs", SETTINGS, ids=IDS)
def test_pettingzoo_seed(make, kwargs):
    seed_test(lambda: make(**kwargs), num_cycles=100)


def test_registered_with_pettingzoo():
    from pettingzoo import make

    env = make("aec", "croupier/durak_v0", rules="teams")
    env.reset(seed=1)
    assert env.num_agents == 4


def play_out(env, seed, choose):
    env.reset(seed=seed)
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        env.step(None if term or trunc else choose(agent, obs, info))
    return totals


def test_rewards_are_results_and_teams_share_them():
    env = ce.durak_v0(rules="teams")
    for seed in range(5):
        totals = play_out(env, seed, lambda a, o, i: int(np.flatnonzero(o["action_mask"])[0]))
        assert sorted(totals.values()) in ([-1, -1, 1, 1], [0, 0, 0, 0]), totals
        assert totals["player_0"] == totals["player_2"]


def test_info_holds_what_an_sdk_agent_receives():
    """A rule-based SDK strategy plays from `info` unchanged: its chosen action, mapped to an
    index, is always legal."""
    env = ce.durak_v0(rules="classic")

    def cheapest(agent, obs, info):
        o, legal = info["observation"], info["legal"]
        assert isinstance(o, durak.Observation) and o.seat == int(agent[-1])
        assert len(legal) == int(obs["action_mask"].sum())
        lead = durak.cheapest(o.hand, o.trump_suit)
        choice = durak.choose(legal, durak.Action.lead(lead) if lead is not None else None)
        return env.unwrapped._table.index_of_code(int(choice))

    for seed in range(3):
        play_out(env, seed, cheapest)


def random_actions(rng, mask):
    u = (rng.random(mask.shape) + 1.0) * mask
    return u.argmax(1)


def run_batch(threads, steps=150, **kw):
    vec = ce.VecEnv("uno", rules="house", num_envs=16, seed=5, threads=threads, **kw)
    rng = np.random.default_rng(0)
    obs, mask = vec.reset()
    seen = [obs.copy()]
    rewards = []
    for _ in range(steps):
        obs, mask, r, term, trunc = vec.step(random_actions(rng, mask))
        assert mask[np.arange(16), random_actions(rng, mask)].all()
        seen.append(obs.copy())
        rewards.append(np.stack([r, term, trunc]))
    return np.stack(seen), np.stack(rewards), vec


def test_vecenv_is_the_same_on_any_number_of_threads():
    opponents = [("uno/greedy", 1.0), ("uno/anneal", 1.0)]
    a, ra, _ = run_batch(1, opponents=opponents)
    b, rb, _ = run_batch(2, opponents=opponents)
    c, rc, vec = run_batch(3, opponents=opponents)
    assert np.array_equal(a, b) and np.array_equal(a, c)
    assert np.array_equal(ra, rb) and np.array_equal(ra, rc)
    assert ra[:, 1].sum() > 0, "no game finished"
    assert set(np.unique(ra[:, 0])) <= {-1.0, 0.0, 1.0}


def test_vecenv_seed_changes_the_games():
    vec = ce.VecEnv("durak", rules="classic", num_envs=8, seed=1, opponents=["durak/cheapest"])
    o1, _ = vec.reset()
    o2, _ = vec.reset(seed=2)
    o3, _ = vec.reset(seed=1)
    assert not np.array_equal(o1, o2) and np.array_equal(o1, o3)


def test_vecenv_shapes_and_dtypes():
    vec = ce.VecEnv("toepen", num_envs=4, seed=0, opponents=["toepen/greedy"])
    obs, mask = vec.reset()
    assert obs.shape == (4, vec.obs_len) and obs.dtype == np.float32
    assert mask.shape == (4, vec.num_actions) and mask.dtype == np.int8
    assert (mask.sum(1) >= 2).all(), "only real choices are asked for"
    out = vec.step(random_actions(np.random.default_rng(1), mask))
    assert [x.dtype for x in out] == [np.float32, np.int8, np.float32, np.bool_, np.bool_]


def sandboxed_opponents():
    """Components to play against in the sandbox: an example's own component, and the
    student's Python agent test-wheel.sh built (CROUPIER_TEST_AGENTS, one per line)."""
    extra = [p for p in os.environ.get("CROUPIER_TEST_AGENTS", "").split("\n") if p]
    return ["wasm:durak/cheapest"] + extra


@pytest.mark.parametrize("spec", sandboxed_opponents())
def test_sandboxed_opponents_play(spec):
    vec = ce.VecEnv("durak", rules="classic", num_envs=4, seed=3, opponents=[spec])
    rng = np.random.default_rng(2)
    _, mask = vec.reset()
    done = 0
    for _ in range(300):
        _, mask, _, term, trunc = vec.step(random_actions(rng, mask))
        done += int(term.sum() + trunc.sum())
    assert done > 0 and vec.faults == 0


def test_a_native_and_a_sandboxed_opponent_play_the_same_games():
    """The same agent natively and in the sandbox: the same seed gives the same games."""
    a, ra, _ = run_batch(1, steps=60, opponents=["uno/greedy"])
    b, rb, _ = run_batch(1, steps=60, opponents=["wasm:uno/greedy"])
    assert np.array_equal(a, b) and np.array_equal(ra, rb)


def test_ask_labels_every_learner_position_with_a_legal_action():
    vec = ce.VecEnv("durak", num_envs=8, seed=2, opponents=["durak/random-lead"], threads=2)
    rng = np.random.default_rng(3)
    _, mask = vec.reset()
    for _ in range(30):
        labels = vec.ask("durak/cheapest")
        assert labels.dtype == np.int64 and (mask[np.arange(8), labels] == 1).all()
        assert np.array_equal(labels, vec.ask("durak/cheapest")), "labels replay"
        _, mask, *_ = vec.step(random_actions(rng, mask))
    with pytest.raises(ValueError, match="opponent `durak/nobody`"):
        vec.ask("durak/nobody")


class FirstLegal(durak.Agent):
    def decide(self, obs, legal, ctx):
        assert isinstance(obs, durak.Observation)
        return legal[0]


def test_python_opponents_an_sdk_class_and_a_callable():
    for opp in (FirstLegal, lambda obs, legal: legal[-1]):
        vec = ce.VecEnv("durak", num_envs=2, seed=0, opponents=[opp], threads=2)
        rng = np.random.default_rng(0)
        _, mask = vec.reset()
        for _ in range(100):
            _, mask, *_ = vec.step(random_actions(rng, mask))
        assert vec.faults == 0


# ---------------------------------------------------------------- bad input


def test_bad_names_are_named():
    with pytest.raises(ValueError, match="unknown game `chess`"):
        ce.env("chess")
    with pytest.raises(ValueError, match="unknown preset `clasic`"):
        ce.durak_v0(rules="clasic")
    with pytest.raises(ValueError, match="players"):
        ce.durak_v0(rules="classic", players=9)
    with pytest.raises(ValueError, match="unknown option `trnsfer`"):
        ce.durak_v0(options={"trnsfer": True})
    with pytest.raises(ValueError, match="opponent `durak/nobody`"):
        ce.VecEnv("durak", opponents=["durak/nobody"])
    with pytest.raises(TypeError, match="opponents"):
        ce.VecEnv("durak", opponents=[42])


def test_bad_seeds_are_named():
    env = ce.uno_v0()
    with pytest.raises(TypeError, match="seed: expected an int, got str"):
        env.reset(seed="42")
    with pytest.raises(ValueError, match="seed"):
        ce.VecEnv("uno", opponents=["uno/greedy"], seed=-1)
    with pytest.raises(TypeError, match="seed"):
        ce.VecEnv("uno", opponents=["uno/greedy"], seed=1.5)


def test_bad_actions_leave_the_batch_usable():
    vec = ce.VecEnv("uno", rules="house", num_envs=3, seed=0, opponents=["uno/greedy"])
    obs, mask = vec.reset()
    good = random_actions(np.random.default_rng(0), mask)
    with pytest.raises(ValueError, match=r"expected shape \(3,\), got \(2,\)"):
        vec.step(good[:2])
    with pytest.raises(TypeError, match="expected integers, got dtype float64"):
        vec.step(good.astype(np.float64))
    bad = good.copy()
    bad[1] = int(np.flatnonzero(mask[1] == 0)[0])
    with pytest.raises(ce.IllegalActionError, match=rf"environment 1: action {bad[1]} is not legal now; the legal actions are \["):
        vec.step(bad)
    # Nothing was applied: the same legal actions step as if the errors never happened.
    fresh = ce.VecEnv("uno", rules="house", num_envs=3, seed=0, opponents=["uno/greedy"])
    fresh.reset()
    a, b = vec.step(good), fresh.step(good)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_an_illegal_aec_action_is_refused_and_nothing_changes():
    env = ce.durak_v0()
    env.reset(seed=0)
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ce.IllegalActionError, match=f"action {illegal} is not legal now"):
        env.step(illegal)
    obs2, *_ = env.last()
    assert np.array_equal(obs["observation"], obs2["observation"])
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_missing_and_broken_components_are_named(tmp_path):
    missing = tmp_path / "nope.wasm"
    with pytest.raises(ValueError, match="nope.wasm"):
        ce.VecEnv("durak", opponents=[str(missing)])
    broken = tmp_path / "broken.wasm"
    broken.write_bytes(b"\0asm not really")
    with pytest.raises(ValueError, match="broken.wasm"):
        ce.VecEnv("durak", opponents=[str(broken)])


def test_a_python_opponent_that_raises_is_named_and_the_batch_goes_on():
    calls = []

    def bad_once(obs, legal):
        calls.append(1)
        if len(calls) == 3:
            raise KeyError("oops")
        return legal[0]

    vec = ce.VecEnv("durak", num_envs=2, seed=0, opponents=[bad_once])
    rng = np.random.default_rng(0)
    _, mask = vec.reset()
    with pytest.raises(ce.OpponentError, match="opponent decide: KeyError: 'oops'") as raised:
        for _ in range(20):
            _, mask, *_ = vec.step(random_actions(rng, mask))
    assert vec.faults == 1
    # The seat played its first legal action; the batch steps on from the outputs it gave.
    _, mask, *_ = raised.value.outputs
    for _ in range(20):
        _, mask, *_ = vec.step(random_actions(rng, mask))


def test_the_layout_tiles_the_observation():
    sections = ce.layout("durak", "teams")
    assert sections[0][:2] == ("hand", 0)
    assert sum(length for _, _, length in sections) == ce.VecEnv(
        "durak", rules="teams", opponents=["durak/cheapest"]
    ).obs_len


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
