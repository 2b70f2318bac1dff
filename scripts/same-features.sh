#!/usr/bin/env bash
# Checks that the three release builds of this repository compile every shared crate once:
# `cargo build -p croupier-cli --no-default-features` (scripts/setup.sh), `cargo build -p
# croupier-cli` (the arena added) and `cargo test --workspace` (scripts/test.sh). Each unit of
# the smaller build must be in the larger one with the same features; otherwise the larger
# build compiles it again, and everything above it (once: wasmtime, 12 minutes on 2 cores).
# cli/Cargo.toml pins the features that differed. Uses cargo's unit graph, a nightly-only
# flag, through stable cargo's test override; prints each unit that differs and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
export __CARGO_TEST_CHANNEL_OVERRIDE_DO_NOT_USE_THIS=nightly
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
graph() { cargo "$@" --release --unit-graph -Z unstable-options >"$dir/$1-$#.json"; echo "$dir/$1-$#.json"; }
lean=$(graph build -p croupier-cli --no-default-features)
full=$(graph build -p croupier-cli)
tests=$(graph test --workspace --no-run)
python3 - "$lean" "$full" "$tests" <<'PY'
import json, sys
def units(path):
    out = {}
    for u in json.load(open(path))["units"]:
        key = (u["pkg_id"].split("#")[-1], u["target"]["name"], tuple(u["target"]["kind"]),
               u["mode"], json.dumps(u["profile"], sort_keys=True))
        out.setdefault(key, set()).add(tuple(sorted(u["features"])))
    return out
lean, full, tests = (units(p) for p in sys.argv[1:])
bad = 0
for small, large, what in ((lean, full, "set-up -> arena"), (full, tests, "arena -> tests")):
    for key, feats in small.items():
        if key[0].startswith("croupier-cli@"):
            continue
        if key in large and not feats <= large[key]:
            bad += 1
            print(f"{what}: {key[0]} {key[1]} built with {sorted(feats - large[key])}, then {sorted(large[key])}")
print("one build per crate" if not bad else f"{bad} units differ")
sys.exit(1 if bad else 0)
PY
