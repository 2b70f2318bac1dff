#!/usr/bin/env bash
# Sets up a fresh machine and runs the main job: the wasm target, the croupier host
# (release), the example agents whose toolchain is here (the Rust ones need nothing more),
# then a 1000-game 2 v 2 Durak match (source A's experiment).
# Usage: scripts/setup.sh [--all] [--no-run]
#   --all     also install every language's toolchain first (componentize-py for Python,
#             Debian's clang, lld, wasi-libc and libc++ for C and C++, Node.js, npm and the
#             pinned npm packages for JavaScript and TypeScript), so every example agent
#             builds, and build croupier with the arena (`croupier arena`, `croupier submit`)
#   --no-run  set up only, without the main job
# Without --all it installs nothing beyond rustup's wasm target, builds croupier without the
# arena, and says what --all would add. scripts/test.sh installs what the tests need itself.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/tools.sh

run_main=1 all=""
for arg in "$@"; do
  case $arg in
    --no-run) run_main="" ;;
    --all) all=1 ;;
    *) echo "scripts/setup.sh: unknown argument $arg (expected --all or --no-run)" >&2; exit 2 ;;
  esac
done

if command -v rustup >/dev/null 2>&1; then
  rustup target add wasm32-unknown-unknown >/dev/null
fi
# Debian's rustc-web for the host when rustup's Rust is older than it needs (tools.sh).
use_host_rust || true
if [ -n "$all" ]; then
  install_python || true
  install_c || true
  install_js || true
fi
if [ -n "$all" ]; then
  echo "== building croupier (release; wasmtime takes a few minutes the first time)"
  cargo build --release -p croupier-cli
else
  # Without the arena (`croupier arena`, `croupier submit`): nearly half the build's CPU time,
  # and the main job does not need it. `cargo build --release -p croupier-cli` adds it.
  echo "== building croupier without the arena (release; wasmtime takes a few minutes the first time)"
  cargo build --release -p croupier-cli --no-default-features
fi
CROUPIER="${CARGO_TARGET_DIR:-target}/release/croupier"
echo "== building the example agents into components"
"$CROUPIER" build
if [ -z "$all" ]; then
  say_what_all_adds
  echo "  the arena (croupier arena, croupier submit): cargo build --release -p croupier-cli"
fi

if [ -n "$run_main" ]; then
  echo "== main job: source A, 1000 games of random-lead vs trump-tosser, 2 v 2, 52 cards, transfer"
  "$CROUPIER" match durak durak/random-lead durak/trump-tosser --rules teams --games 1000
fi
echo "== done: $CROUPIER is built (\`$CROUPIER agents\` lists the agents) in ${SECONDS} s"
