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
# The browser test (cli/tests/browser.rs) drives Debian's chromium through chromium-driver.
# Installed with apt-get as root or through sudo (never prompting: CI has no terminal);
# otherwise only named, and that test fails until they are there (or is skipped on purpose
# with CROUPIER_REQUIRE_BROWSER=0).
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  as_root=()
  if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
  fi
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" = 0 ] || [ ${#as_root[@]} -gt 0 ]; }; then
    echo "== installing chromium and chromium-driver (for the browser test)"
    "${as_root[@]}" apt-get update -qq \
      && "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq chromium chromium-driver >/dev/null \
      || echo "warning: could not install chromium and chromium-driver; the browser test will fail"
  else
    echo "warning: the browser test needs Debian's chromium and chromium-driver:" \
      "run \`apt-get install chromium chromium-driver\` as root"
  fi
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
