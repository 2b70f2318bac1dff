#!/usr/bin/env bash
# Checks that two croupier binaries give byte-identical results: the same commands and seeds
# must write the same --log files, the same --json (apart from `elapsed_seconds`), the same
# replays, tournament tables and soak reports. Used to prove a refactoring changed nothing.
#
#   scripts/compare-outputs.sh OLD_CROUPIER NEW_CROUPIER
#
# Both run against the same built example agents ($CROUPIER_AGENTS, default target/agents).
set -euo pipefail
old=${1:?the old croupier binary}
new=${2:?the new croupier binary}
export CROUPIER_AGENTS="${CROUPIER_AGENTS:-$(cd "$(dirname "$0")/.." && pwd)/target/agents}"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for v in old new; do
  b=${!v}
  cd "$dir"
  "$b" match durak durak/random-lead durak/trump-tosser --rules teams --games 1000 \
    --json $v-1.json --log $v-1.log --quiet > /dev/null
  "$b" match toepen toepen/random toepen/feeble toepen/reasoning toepen/greedy --rules plain \
    --games 100 --duplicate --json $v-2.json --log $v-2.log --quiet > /dev/null
  "$b" match uno uno/primary uno/greedy --rules house --players 2 --games 300 \
    --json $v-3.json --log $v-3.log --quiet > /dev/null
  "$b" tournament durak durak/cheapest durak/random-lead durak/trump-tosser --games 100 \
    --duplicate --json $v-4.json --quiet > $v-4.out
  "$b" replay $v-1.log --game 3 --seat 0 > $v-5.out
  "$b" replay $v-2.log --game 7 > $v-6.out
  "$b" soak durak --games 300 --quiet | sed 's/in [0-9.]* s, [0-9]* games\/s/in T/' > $v-7.out
done
status=0
for f in 1.json 2.json 3.json 4.json; do
  if diff <(grep -v elapsed_seconds "old-$f") <(grep -v elapsed_seconds "new-$f") > /dev/null; then
    echo "$f: identical (elapsed_seconds aside)"
  else echo "$f: DIFFERENT"; status=1; fi
done
for f in 1.log 2.log 3.log 4.out 5.out 6.out 7.out; do
  if cmp -s "old-$f" "new-$f"; then echo "$f: identical"; else echo "$f: DIFFERENT"; status=1; fi
done
exit $status
