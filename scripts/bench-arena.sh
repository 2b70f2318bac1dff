#!/usr/bin/env bash
# Arena figures for BENCHMARKS.md. Prints, each measured in this one run:
#  1. ladder throughput (games/s rated) against `croupier match` on one thread, same agents;
#  2. from an upload to its first rated game, with the ladder busy;
#  3. page and API latency (wrk, p50/p99) with TEAMS teams and GAMES stored games, and the
#     database's size per game.
# Usage: scripts/bench-arena.sh            (TEAMS=200 GAMES=1000000 by default)
#        TEAMS=20 GAMES=20000 scripts/bench-arena.sh   (a quick run)
# Needs wrk (Debian package `wrk`) for part 3, python3 for reading JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
C=${CROUPIER:-$PWD/target/release/croupier}
TEAMS=${TEAMS:-200}
GAMES=${GAMES:-1000000}
PARTS=${PARTS:-123}   # which parts to run, e.g. PARTS=1
A=target/agents/durak
tmp=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

games() { curl -s "$1/api/leaderboard" | python3 -c 'import json,sys; print(json.load(sys.stdin)["games"])'; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# An arena in $1 with ladder matches of $2 deals; starts it, sets $url and $pid.
start() {
  local dir=$1 deals=$2
  "$C" arena init "$dir" --game durak --rules teams --listen 127.0.0.1:0 >/dev/null
  sed -i "s/^deals = .*/deals = $deals/; s/^per_hour = .*/per_hour = 1000/" "$dir/arena.toml"
}
serve() {
  local dir=$1
  "$C" arena serve "$dir" >"$dir/serve.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    url=$(grep -o 'http://[0-9.:]*' "$dir/serve.log" || true)
    [ -n "$url" ] && return
    sleep 0.1
  done
  echo "server did not start: $(cat "$dir/serve.log")"; exit 1
}

if [[ $PARTS == *1* ]]; then
echo "== 1. ladder throughput, random-lead vs trump-tosser, 2 v 2, one thread"
base=$(for _ in 1 2 3; do
  "$C" match durak durak/random-lead durak/trump-tosser --rules teams --games 2000 --threads 1 --quiet --seed $RANDOM \
    | grep -o '([0-9]* games/s)' | tr -dc 0-9; echo; done | median)
echo "croupier match --threads 1: $base games/s (median of 3)"
for deals in 2 8 50; do
  d=$tmp/tp$deals; start "$d" "$deals"
  ta=$("$C" arena team add "$d" a | tail -1); tb=$("$C" arena team add "$d" b | tail -1)
  serve "$d"
  "$C" submit $A/random-lead.wasm --arena "$url" --token "$ta" >/dev/null
  "$C" submit $A/trump-tosser.wasm --arena "$url" --token "$tb" >/dev/null
  sleep 3
  rate=$(for _ in 1 2 3; do g0=$(games "$url"); t0=$(date +%s.%N); sleep 5; g1=$(games "$url"); t1=$(date +%s.%N)
    echo "($g1 - $g0) / ($t1 - $t0)" | bc -l; done | median)
  printf 'arena ladder, %s deals per match: %.0f games/s rated (median of three 5 s windows), %.0f%% of match\n' \
    "$deals" "$rate" "$(echo "100 * $rate / $base" | bc -l)"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
done

fi
if [[ $PARTS == *2* ]]; then
echo "== 2. upload to first rated game (ladder busy with 2 teams, 2 deals per match)"
d=$tmp/up; start "$d" 2
ta=$("$C" arena team add "$d" a | tail -1); tb=$("$C" arena team add "$d" b | tail -1); tc=$("$C" arena team add "$d" c | tail -1)
serve "$d"
"$C" submit $A/random-lead.wasm --arena "$url" --token "$ta" >/dev/null
"$C" submit $A/trump-tosser.wasm --arena "$url" --token "$tb" >/dev/null
sleep 2
t0=$(date +%s.%N)
# Not the reference agent, whose compile the arena has cached already.
"$C" submit $A/hand-value.wasm --arena "$url" --token "$tc" >/dev/null
t1=$(date +%s.%N)
until curl -s "$url/api/teams/3" | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["games"] else 1)'; do sleep 0.05; done
t2=$(date +%s.%N)
printf 'upload and verdict: %.2f s; to its first stored game: %.2f s\n' "$(echo "$t1 - $t0" | bc -l)" "$(echo "$t2 - $t0" | bc -l)"
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""

fi
[[ $PARTS == *3* ]] || exit 0
echo "== 3. pages under load: $TEAMS teams, $GAMES games"
d=$tmp/load; start "$d" 50
agents=(cheapest random-lead trump-tosser hand-value)
serve "$d"
for i in $(seq "$TEAMS"); do
  tok=$("$C" arena team add "$d" "team$i" | tail -1)
  "$C" submit "$A/${agents[$((i % 4))]}.wasm" --arena "$url" --token "$tok" >/dev/null
done
start_fill=$(date +%s)
while [ "$(games "$url")" -lt "$GAMES" ]; do sleep 10; echo "  $(games "$url") games after $(( $(date +%s) - start_fill )) s"; done
# Measured with the ladder still playing on one core, as in a live competition.
stored=$(games "$url")
bytes=$(du -cb "$d"/arena.db* | tail -1 | cut -f1)
echo "stored: $stored games rated, database $((bytes / 1048576)) MiB, $((bytes / stored)) bytes per game"
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk): no latency figures"; exit 0; }
for path in / /api/leaderboard /teams/1 /api/teams/1; do
  out=$(wrk -t2 -c8 -d15s --latency "$url$path")
  p50=$(echo "$out" | awk '/^ +50%/ {print $2}'); p99=$(echo "$out" | awk '/^ +99%/ {print $2}')
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  echo "$path: p50 $p50, p99 $p99, $rps requests/s (wrk, 2 threads, 8 connections, 15 s)"
done
