#!/usr/bin/env bash
# Goes on with one exact-check soak of 10^6 games recorded in a ledger, a part at a time,
# until games 0..1000000 are all checked or a file named STOP appears in the ledger's folder
# (the part under way finishes and is recorded first).
#
#   scripts/soak-continue.sh uno two-player [PART_GAMES] [LEDGER]
#
# Each part is `croupier soak --next`, so an interrupted run loses at most the part under
# way, and running this again goes on where the ledger ends. One runner per soak at a time.
set -euo pipefail
game=${1:?game, e.g. uno}
preset=${2:?preset, e.g. two-player}
part=${3:-10000}
ledger=${4:-docs/soak-ledger.jsonl}
croupier=${CROUPIER:-target/release/croupier}
stop="$(dirname "$ledger")/STOP"
while [ ! -e "$stop" ]; do
  out=$("$croupier" soak "$game" --rules "$preset" --seed 2026 --games "$part" --next \
    --until 1000000 --record "$ledger" --quiet) || { echo "$out"; exit 1; }
  # The summary line only; no pipe into head, whose early exit would SIGPIPE the echo and,
  # under pipefail, end the loop.
  echo "$(date -u +%H:%M:%S) ${out%%$'\n'*}"
  case $out in *"nothing left to check"*) exit 0 ;; esac
done
