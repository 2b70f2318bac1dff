"""Policies as Croupier exports them: a multilayer perceptron in a safetensors file
(docs/learning.md, "Exporting a policy"), written and read with NumPy alone.

    from croupier import policy
    policy.save("model.safetensors", [(w0, b0), (w1, b1)], game="durak", rules="classic")
    # then: croupier policy export model.safetensors --out agents

Layer `i` is `layers.{i}.weight` (shape `[outputs, inputs]`) and `layers.{i}.bias`
(`[outputs]`), float32, with ReLU between layers and none after the last: a PyTorch
`nn.Sequential(nn.Linear, nn.ReLU, ..., nn.Linear)` saves as
`policy.save(path, [(l.weight.detach().numpy(), l.bias.detach().numpy()) for l in linears])`.
"""

from __future__ import annotations

import json
import struct

import numpy as np

__all__ = ["Mlp", "load", "save"]


def save(path, layers, *, game: str, rules: str | None = None, players: int | None = None,
         options=None, activation: str = "relu") -> None:
    """Writes `layers` (a list of `(weight, bias)`) as a safetensors file with the metadata
    `croupier policy export` reads."""
    meta = {"game": game, "activation": activation}
    if rules is not None:
        meta["rules"] = rules
    if players is not None:
        meta["players"] = str(players)
    if options:
        items = options.items() if isinstance(options, dict) else (o.split("=", 1) for o in options)
        meta["options"] = ",".join(f"{k}={v}" for k, v in items)
    header: dict = {"__metadata__": meta}
    blobs = []
    offset = 0
    for i, (w, b) in enumerate(layers):
        for name, t in ((f"layers.{i}.weight", w), (f"layers.{i}.bias", b)):
            a = np.ascontiguousarray(np.asarray(t, dtype="<f4"))
            data = a.tobytes()
            header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + len(data)]}
            blobs.append(data)
            offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for data in blobs:
            f.write(data)


class Mlp:
    """A policy read back: `forward(x)` gives the outputs, `act(x, mask)` the legal action
    index with the highest output (ties to the lowest index), in float32 as the exported agent
    computes them (its sums run in another order, so outputs within about 1e-6 of each other
    may rank the other way there)."""

    def __init__(self, layers, activation: str = "relu", metadata=None):
        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.activation = activation
        self.metadata = dict(metadata or {})

    def forward(self, x):
        h = np.asarray(x, np.float32)
        for i, (w, b) in enumerate(self.layers):
            h = h @ w.T + b
            if i < len(self.layers) - 1 and self.activation == "relu":
                h = np.maximum(h, 0)
        return h

    def act(self, x, mask):
        logits = np.where(np.asarray(mask) > 0, self.forward(x), -np.inf)
        return logits.argmax(-1)


def load(path) -> Mlp:
    """Reads a file `save` wrote (or any safetensors file of that layout)."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", {})
    body = raw[8 + n:]

    def tensor(name):
        t = header[name]
        a, b = t["data_offsets"]
        return np.frombuffer(body[a:b], "<f4").reshape(t["shape"])

    layers = []
    while f"layers.{len(layers)}.weight" in header:
        i = len(layers)
        layers.append((tensor(f"layers.{i}.weight"), tensor(f"layers.{i}.bias")))
    return Mlp(layers, meta.get("activation", "relu"), meta)
