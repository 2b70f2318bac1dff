#!/usr/bin/env bash
# Sets up a fresh machine and runs the main job: the wasm target, the host (release), every
# example agent as a component, then a 1000-game 2 v 2 Durak match (source A's experiment).
# Usage: scripts/setup.sh [--no-run]
set -euo pipefail
cd "$(dirname "$0")/.."

if command -v rustup >/dev/null 2>&1; then
  rustup target add wasm32-unknown-unknown >/dev/null
fi
# The Python example agent is built with componentize-py (from PyPI). Best effort: without
# it the Rust agents still build, and `croupier build` says what was skipped.
if command -v python3 >/dev/null 2>&1 && ! command -v componentize-py >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check componentize-py==0.25.1 \
    || echo "warning: could not install componentize-py; the Python example agent will be skipped"
fi
echo "== building the croupier host (release; wasmtime takes a few minutes the first time)"
cargo build --release -p croupier-cli
echo "== building the example agents into components"
CROUPIER="${CARGO_TARGET_DIR:-target}/release/croupier"
"$CROUPIER" build
"$CROUPIER" agents

if [ "${1:-}" != "--no-run" ]; then
  echo "== main job: source A, 1000 games of random-lead vs trump-tosser, 2 v 2, 52 cards, transfer"
  "$CROUPIER" match durak durak/random-lead durak/trump-tosser --rules teams --games 1000
fi
