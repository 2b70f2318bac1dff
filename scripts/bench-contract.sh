#!/usr/bin/env bash
# What each shape a decision call could take costs at wasmtime's component boundary: the
# measurements behind contract 0.3.0's design (issue #19; docs/benchmarks-history.md, "Contract 0.3.0:
# the candidates, measured"). Builds the probe's guest (bench/contract-probe/guest) as a
# component and runs host/examples/contract_probe.rs on the engine agents run in. Prints ns
# per call for each shape, medians of 7 rounds over 2000 Durak `teams` decision points.
#
# Usage: scripts/bench-contract.sh [FILTER [REPEAT]]  (FILTER keeps the shapes whose name
# contains it, e.g. for `perf record`; REPEAT runs each round that many times).
# Needs wasm-tools (`cargo install --locked wasm-tools@1.243.0`): the probe exports a world of
# its own, which `croupier build` does not make; no set-up or test installs it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
. scripts/lib/tools.sh
use_host_rust || true
# The guest with rustup's wasm32 target, not the host's Rust (which may have none).
env -u RUSTC cargo build -q --target wasm32-unknown-unknown --profile agent -p contract-probe-guest
mkdir -p "$target/probe"
wasm-tools component new "$target/wasm32-unknown-unknown/agent/contract_probe_guest.wasm" \
    -o "$target/probe/contract-probe.wasm"
cargo build -q --release -p croupier-host --example contract_probe
"$target/release/examples/contract_probe" "$target/probe/contract-probe.wasm" "$@"
