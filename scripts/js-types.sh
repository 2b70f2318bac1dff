#!/usr/bin/env bash
# Regenerates the TypeScript types of the WIT contract that the JavaScript SDK ships
# (sdk/js/croupier/wit/), with the pinned jco (`jco types`, scripts/setup.sh installs it).
# Run it after a change to wit/v0.2; cli/tests/cli/js.rs fails while the committed types differ
# from what this script writes.
# Usage: scripts/js-types.sh [OUT]   (default sdk/js/croupier/wit)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-sdk/js/croupier/wit}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out"
mkdir -p "$out"
for world in durak toepen uno; do
  jco types wit/v0.2 -n "$world" -o "$tmp/$world" -q
  # The interfaces the worlds share (common, host) come out identical for each world.
  cp -r "$tmp/$world/." "$out/"
done
