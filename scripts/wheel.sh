#!/usr/bin/env bash
# Builds the `croupier` wheel (pip install croupier) into target/wheels/: the extension
# `croupier._native` (python/: the environments and the `croupier` command in one stripped
# module, PyO3's stable ABI), the Python SDK as the `croupier` package, and the Rust example
# agents' components (`durak/cheapest` and the rest, about 1.5 MB) as data. Needs Rust, the
# wasm target and maturin (`pip install 'maturin>=1.9,<2'`). The module shares every crate
# with the release build the tests use (pyproject.toml), so after the tests this compiles the
# extension's own crates and links.
# Usage: scripts/wheel.sh [--data-only] [maturin build options, e.g. --target x86_64-apple-darwin]
#   --data-only  only lay out the example agents for the wheel (the release workflow does this
#                once, then builds each platform's wheel with maturin's own action)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/tools.sh
target="${CARGO_TARGET_DIR:-target}"
data_only=""
if [ "${1:-}" = --data-only ]; then
  data_only=1
  shift
fi
[ -n "$data_only" ] || command -v maturin >/dev/null 2>&1 \
  || { echo "scripts/wheel.sh: maturin is missing: pip install 'maturin>=1.9,<2'" >&2; exit 1; }
if command -v rustup >/dev/null 2>&1; then
  rustup target add wasm32-unknown-unknown >/dev/null
fi
# Debian's rustc-web for the host when rustup's Rust is older than it needs (tools.sh);
# maturin's cargo below inherits it.
use_host_rust || true
cargo build --release -p croupier-cli
# The data folder pyproject.toml names (always target/, whatever CARGO_TARGET_DIR says).
data=target/wheel-data/data/share/croupier/agents
rm -rf target/wheel-data
mkdir -p "$data"
examples=()
for d in example-agents/*/; do
  case $d in *-common/) ;; *) examples+=("$d") ;; esac
done
"$target/release/croupier" build "${examples[@]}" --out "$data" >/dev/null
# The policy agent of each game, that `croupier policy export` embeds a network in: found in
# share/croupier/policy beside the example agents.
"$target/release/croupier" build policy/agents/* --out target/wheel-data/data/share/croupier/policy >/dev/null
[ -n "$data_only" ] || maturin build --release --out "$target/wheels" "$@"
