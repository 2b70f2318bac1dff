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
# The arena's PostgreSQL tests start their own server from Debian's/Ubuntu's `postgresql`
# package (initdb and pg_ctl under /usr/lib/postgresql/<version>/bin). Best effort, and only
# when missing: without it those tests fail, naming the install command.
have_postgres() {
  command -v initdb >/dev/null 2>&1 || compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null
}
if ! have_postgres && command -v apt-get >/dev/null 2>&1; then
  # Never a password prompt: without root or password-less sudo, only the warning below.
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo -n"; fi
  if [ -z "$SUDO" ] || command -v sudo >/dev/null 2>&1; then
    echo "== installing postgresql (for the arena's PostgreSQL tests)"
    { $SUDO apt-get update -qq \
        && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; } \
      || echo "warning: could not install postgresql; the arena's PostgreSQL tests will fail"
  fi
fi
if ! have_postgres; then
  echo "warning: postgresql is not installed; the arena's PostgreSQL tests will fail (CROUPIER_REQUIRE_POSTGRES=0 skips them)"
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
