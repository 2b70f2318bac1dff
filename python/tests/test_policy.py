"""`croupier policy export` from the installed wheel: a network written with NumPy becomes an
agent component that chooses exactly what the network chooses, and every bad file is named."""

import subprocess

import numpy as np
import pytest

from croupier import _native, policy

GAMES = [("durak", "classic"), ("toepen", "standard"), ("uno", "house")]
DECISIONS = 10_000
# Native NumPy and the component sum in different orders: outputs this close may rank either
# way, so such decisions are not compared (their count is reported and bounded).
TIE = 1e-5


def network(rng, sizes):
    return [
        (rng.normal(0, 1 / np.sqrt(i), (o, i)).astype(np.float32), rng.normal(0, 0.1, o).astype(np.float32))
        for i, o in zip(sizes, sizes[1:])
    ]


def export(model, out, *args):
    return subprocess.run(
        ["croupier", "policy", "export", str(model), "--out", str(out), *args],
        capture_output=True,
        text=True,
    )


@pytest.mark.parametrize("game,rules", GAMES)
def test_the_component_chooses_what_the_network_chooses(game, rules, tmp_path):
    table = _native.Table(game, rules)
    rng = np.random.default_rng(20261207)
    layers = network(rng, [table.obs_len, 32, table.num_actions])
    model = tmp_path / "net.safetensors"
    policy.save(model, layers, game=game, rules=rules)
    done = export(model, tmp_path / "agents")
    assert done.returncode == 0, done.stderr
    wasm = str(tmp_path / "agents" / game / "net.wasm")
    mlp = policy.load(model)
    compared = ties = seed = 0
    while compared + ties < DECISIONS:
        table.reset(seed)
        seed += 1
        while table.to_act() is not None and compared + ties < DECISIONS:
            x, mask = table.observe(table.to_act()), table.mask()
            logits = np.where(mask > 0, mlp.forward(x), -np.inf)
            top = np.sort(logits)[-2:]
            if top[1] - top[0] < TIE:
                ties += 1
            else:
                assert table.ask(wasm) == int(logits.argmax()), f"seed {seed - 1}"
                compared += 1
            table.step(int(rng.choice(np.flatnonzero(mask))))
    print(f"{game}: {compared} decisions compared, {ties} near-ties left out")
    assert ties < DECISIONS // 100


def write_raw(path, header: bytes, body: bytes = b""):
    import struct

    header += b" " * (-len(header) % 8)
    path.write_bytes(struct.pack("<Q", len(header)) + header + body)


def test_bad_models_are_named(tmp_path):
    table = _native.Table("durak", "classic")
    rng = np.random.default_rng(1)
    out = tmp_path / "agents"

    wrong = tmp_path / "wrong.safetensors"
    policy.save(wrong, network(rng, [table.obs_len + 1, 8, table.num_actions]), game="durak", rules="classic")
    r = export(wrong, out)
    assert r.returncode == 2 and "wrong.safetensors" in r.stderr
    assert f"reads {table.obs_len + 1} values" in r.stderr and f"has {table.obs_len} observation values" in r.stderr

    nan = tmp_path / "nan.safetensors"
    layers = network(rng, [table.obs_len, 8, table.num_actions])
    layers[1][0][3, 5] = np.nan
    policy.save(nan, layers, game="durak")
    r = export(nan, out)
    assert r.returncode == 2 and "nan.safetensors" in r.stderr
    assert "tensor `layers.1.weight` holds a NaN or infinite value at index" in r.stderr

    missing = tmp_path / "missing.safetensors"
    write_raw(missing, b'{"layers.0.weight":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]}}', b"\0\0\0\0")
    r = export(missing, out, "--game", "durak")
    assert r.returncode == 2 and "missing.safetensors: tensor `layers.0.bias` is missing" in r.stderr

    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"PK\x03\x04 this is a zip file, not safetensors")
    r = export(junk, out, "--game", "durak")
    assert r.returncode == 2 and "junk.safetensors: not a safetensors file" in r.stderr

    other = tmp_path / "other.safetensors"
    policy.save(other, network(rng, [4, 4]), game="uno")
    r = export(other, out, "--game", "durak")
    assert r.returncode == 2 and "trained for uno" in r.stderr
    assert not out.exists(), "nothing is written for a bad model"
