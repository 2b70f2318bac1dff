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
# Debian packages some tests drive for real, installed only when missing, with one
# `apt-get update` (never a password prompt: as root, or through sudo -n; otherwise only
# named, and those tests fail until they are there or are skipped on purpose):
# - postgresql: the arena's PostgreSQL tests start their own server with initdb and pg_ctl
#   (CROUPIER_REQUIRE_POSTGRES=0 skips them);
# - chromium and chromium-driver: the arena's browser test (CROUPIER_REQUIRE_BROWSER=0);
# - slurm-wlm and munge: scripts/test-slurm.sh runs a sharded tournament on a single-node
#   SLURM cluster it starts itself (CROUPIER_REQUIRE_SLURM=0).
have_postgres() {
  command -v initdb >/dev/null 2>&1 || compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null
}
missing=()
have_postgres || missing+=(postgresql)
{ [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; } || missing+=(chromium chromium-driver)
{ command -v slurmctld >/dev/null 2>&1 && command -v munged >/dev/null 2>&1; } || missing+=(slurm-wlm munge)
if [ ${#missing[@]} -gt 0 ]; then
  as_root=()
  if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
  fi
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" = 0 ] || [ ${#as_root[@]} -gt 0 ]; }; then
    echo "== installing ${missing[*]} (for the arena's PostgreSQL and browser tests, and the SLURM test)"
    "${as_root[@]}" apt-get update -qq \
      && "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq "${missing[@]}" >/dev/null \
      || echo "warning: could not install ${missing[*]}; the tests that need them will fail"
  else
    echo "warning: some tests need Debian's ${missing[*]}: run \`apt-get install ${missing[*]}\` as root"
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
