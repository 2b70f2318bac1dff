#!/usr/bin/env bash
# Arena figures for BENCHMARKS.md. Prints, each measured in this one run:
#  1. ladder throughput (games/s rated) against `croupier match` on one thread, same agents;
#  2. from an upload to its first rated game, with the ladder busy;
#  3. page and API latency (wrk, p50/p99) with TEAMS teams and GAMES stored games, the
#     database's size per game, and how long a restart takes with and without the ratings
#     checkpoint;
#  4. workers: games/s with 1, 2 and 3 `croupier arena worker` processes (one thread each,
#     the server playing nothing) against `croupier match --threads N`, the server's CPU per
#     1000 games, and bytes per stored game; on PostgreSQL when PG_URL is set;
#  5. leases per second the server and its database hand out (8 clients leasing and giving
#     back as fast as they can, python3);
#  6. one worker on a core of its own (taskset; the server on the other core) against
#     `croupier match --threads 1 --duplicate` on that same core, in alternating rounds (ROUNDS,
#     9 by default), by games/s and by CPU time per game, with 8 and 50 deals per match
#     (DEALS6); the match is played with the other core idle and with it busy.
# Usage: scripts/bench-arena.sh            (TEAMS=200 GAMES=1000000 by default)
#        TEAMS=20 GAMES=20000 scripts/bench-arena.sh   (a quick run)
# Needs wrk (Debian package `wrk`) for part 3, python3 for reading JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
C=${CROUPIER:-$PWD/target/release/croupier}
TEAMS=${TEAMS:-200}
GAMES=${GAMES:-1000000}
PARTS=${PARTS:-123456} # which parts to run, e.g. PARTS=1
PG_URL=${PG_URL:-}    # parts 4 and 5 on this PostgreSQL (an empty database) instead of SQLite
A=target/agents/durak
tmp=$(mktemp -d)
pid=""
wpids=()
# Parts 1 and 6 stop processes with SIGSTOP between windows: a stopped process keeps a
# SIGTERM pending until it is continued, so each is continued before it is killed.
cleanup() {
  for p in $pid "${wpids[@]}"; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
  wait 2>/dev/null; rm -rf "$tmp"
}
trap cleanup EXIT

games() { curl -s "$1/api/leaderboard" | python3 -c 'import json,sys; print(json.load(sys.stdin)["games"])'; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# An arena in $1 with ladder matches of $2 deals; starts it, sets $url and $pid.
start() {
  local dir=$1 deals=$2
  "$C" arena init "$dir" --game durak --rules teams --listen 127.0.0.1:0 ${DB:+--database "$DB"} >/dev/null
  # Full speed: the storage budget's pace is for a course, not a benchmark.
  sed -i "s/^deals = .*/deals = $deals/; s/^per_hour = .*/per_hour = 1000/; s/^plan_days = .*/plan_days = 0/" "$dir/arena.toml"
}
serve() {
  local dir=$1 wait=${2:-10} # seconds to wait for it to listen
  "$C" arena serve "$dir" ${DB:+--database "$DB"} >"$dir/serve.log" 2>&1 &
  pid=$!
  for _ in $(seq $((wait * 20))); do
    url=$(grep -o 'http://[0-9.:]*' "$dir/serve.log" || true)
    [ -n "$url" ] && return
    sleep 0.05
  done
  echo "server did not start: $(cat "$dir/serve.log")"; exit 1
}
# An arena in $1 whose server plays nothing (`threads = 0`), with teams a and b and one
# worker token ($wt), served: the set-up of parts 5 and 6. Sets $url, $pid, $ta, $tb, $wt.
worker_arena() {
  local dir=$1 deals=${2:-50}
  DB=$PG_URL start "$dir" "$deals"
  sed -i "s/^threads = .*/threads = 0/" "$dir/arena.toml"
  ta=$(DB=$PG_URL; "$C" arena team add "$dir" ${DB:+--database "$DB"} a | tail -1)
  tb=$(DB=$PG_URL; "$C" arena team add "$dir" ${DB:+--database "$DB"} b | tail -1)
  wt=$(DB=$PG_URL; "$C" arena workers add "$dir" ${DB:+--database "$DB"} w | tail -1)
  DB=$PG_URL serve "$dir"
}

if [[ $PARTS == *1* ]]; then
echo "== 1. ladder throughput, random-lead vs trump-tosser, 2 v 2, one thread"
# Rounds alternate: a 5 s window of the ladder, then the server is stopped (SIGSTOP) while
# `croupier match --threads 1` plays 4000 games, and each round's ratio is taken on its own.
# On a shared machine the speed drifts by 10-20% within a minute; measuring one side after
# the other put that drift into the ratio.
for deals in 2 8 50; do
  d=$tmp/tp$deals; start "$d" "$deals"
  ta=$("$C" arena team add "$d" a | tail -1); tb=$("$C" arena team add "$d" b | tail -1)
  serve "$d"
  "$C" submit $A/random-lead.wasm --arena "$url" --token "$ta" >/dev/null
  "$C" submit $A/trump-tosser.wasm --arena "$url" --token "$tb" >/dev/null
  sleep 3
  rates=(); bases=(); ratios=()
  for round in 1 2 3 4 5; do
    kill -CONT "$pid"; sleep 1
    g0=$(games "$url"); t0=$(date +%s.%N); sleep 5; g1=$(games "$url"); t1=$(date +%s.%N)
    kill -STOP "$pid"
    rate=$(echo "($g1 - $g0) / ($t1 - $t0)" | bc -l)
    base=$("$C" match durak durak/random-lead durak/trump-tosser --rules teams --games 4000 --threads 1 --quiet --seed "$round" \
      | grep -o '([0-9]* games/s)' | tr -dc 0-9)
    rates+=("$rate"); bases+=("$base"); ratios+=("$(echo "100 * $rate / $base" | bc -l)")
  done
  kill -CONT "$pid"
  printf 'arena ladder, %s deals per match: %.0f games/s rated against croupier match --threads 1 %.0f games/s (medians of 5 alternating rounds): %.0f%% (median of the rounds'"'"' ratios; rounds %s)\n' \
    "$deals" "$(printf '%s\n' "${rates[@]}" | median)" "$(printf '%s\n' "${bases[@]}" | median)" \
    "$(printf '%s\n' "${ratios[@]}" | median)" "$(printf '%.0f%% ' "${ratios[@]}")"
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
if [[ $PARTS == *3* ]]; then
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
command -v wrk >/dev/null || echo "wrk is not installed (apt-get install wrk): no latency figures"
command -v wrk >/dev/null && for path in / /api/leaderboard /teams/1 /api/teams/1; do
  out=$(wrk -t2 -c8 -d15s --latency "$url$path")
  p50=$(echo "$out" | awk '/^ +50%/ {print $2}'); p99=$(echo "$out" | awk '/^ +99%/ {print $2}')
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  echo "$path: p50 $p50, p99 $p99, $rps requests/s (wrk, 2 threads, 8 connections, 15 s)"
done
# Restarts. After kill -9 with the ladder playing, the ratings come from the last checkpoint
# (ladder.checkpoint_seconds old at most) and the matches done since; then, with the
# checkpoint deleted, from every stored result, as every start did before checkpoints.
kill -9 "$pid"; wait "$pid" 2>/dev/null || true
t0=$(date +%s.%N); serve "$d" 600; t1=$(date +%s.%N)
printf 'restart after kill -9, ladder playing: listening after %.2f s (%s)\n' "$(echo "$t1 - $t0" | bc -l)" \
  "$(grep -o 'checkpoint at match.*since' "$d/serve.log" || echo 'no checkpoint used')"
if command -v sqlite3 >/dev/null; then
  kill "$pid"; wait "$pid" 2>/dev/null || true
  sqlite3 "$d/arena.db" "DELETE FROM board_checkpoint"
  t0=$(date +%s.%N); serve "$d" 600; t1=$(date +%s.%N)
  printf 'restart without a checkpoint: listening after %.2f s (%s games counted)\n' "$(echo "$t1 - $t0" | bc -l)" "$(games "$url")"
else
  echo "sqlite3 is not installed (apt-get install sqlite3): no figure for a start without a checkpoint"
fi
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
fi

# CPU seconds (user + system) a process has used.
cpu() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat"; }

if [[ $PARTS == *4* ]]; then
echo "== 4. workers on other processes: random-lead vs trump-tosser, 2 v 2, 50 deals per match${PG_URL:+, PostgreSQL}"
for k in 1 2 3; do
  base=$(for _ in 1 2 3; do
    "$C" match durak durak/random-lead durak/trump-tosser --rules teams --games 2000 --threads "$k" --quiet --seed $RANDOM \
      | grep -o '([0-9]* games/s)' | tr -dc 0-9; echo; done | median)
  # CPU seconds per 1000 games of `croupier match` itself (its children's user + system
  # time, from bash's `times`): what a worker's own CPU is compared with below.
  mcpu=$( ( "$C" match durak durak/random-lead durak/trump-tosser --rules teams --games 10000 --threads "$k" --quiet --seed 5 >/dev/null; times ) \
    | tail -1 | awk '{ split($1, u, "m"); split($2, s, "m"); print (u[1] * 60 + u[2] + s[1] * 60 + s[2]) / 10 }')
  d=$tmp/w$k; DB=$PG_URL start "$d" 50
  sed -i "s/^threads = .*/threads = 0/" "$d/arena.toml"
  ta=$(DB=$PG_URL; "$C" arena team add "$d" ${DB:+--database "$DB"} a | tail -1)
  tb=$(DB=$PG_URL; "$C" arena team add "$d" ${DB:+--database "$DB"} b | tail -1)
  DB=$PG_URL serve "$d"
  "$C" submit $A/random-lead.wasm --arena "$url" --token "$ta" >/dev/null
  "$C" submit $A/trump-tosser.wasm --arena "$url" --token "$tb" >/dev/null
  wpids=()
  for i in $(seq "$k"); do
    wt=$(DB=$PG_URL; "$C" arena workers add "$d" ${DB:+--database "$DB"} "w$i" | tail -1)
    CROUPIER_WORKER_TOKEN=$wt "$C" arena worker --server "$url" --threads 1 --cache "$d/cache$i" >"$d/w$i.log" 2>&1 &
    wpids+=($!)
  done
  sleep 5
  c0=$(cpu "$pid"); g0=$(games "$url"); t0=$(date +%s.%N)
  w0=0; for w in "${wpids[@]}"; do w0=$(echo "$w0 + $(cpu "$w")" | bc -l); done
  rate=$(for _ in 1 2 3; do a=$(games "$url"); s0=$(date +%s.%N); sleep 5; b=$(games "$url"); s1=$(date +%s.%N)
    echo "($b - $a) / ($s1 - $s0)" | bc -l; done | median)
  c1=$(cpu "$pid"); g1=$(games "$url")
  w1=0; for w in "${wpids[@]}"; do w1=$(echo "$w1 + $(cpu "$w")" | bc -l); done
  printf '%s worker(s): %.0f games/s rated (median of three 5 s windows), croupier match --threads %s: %s games/s (median of 3): %.0f%%; server CPU %.2f s per 1000 games\n' \
    "$k" "$rate" "$k" "$base" "$(echo "100 * $rate / $base" | bc -l)" "$(echo "1000 * ($c1 - $c0) / ($g1 - $g0)" | bc -l)"
  # On a machine of its own a worker is limited by its own CPU: compare it with match's.
  printf '   workers CPU %.3f s per 1000 games, croupier match %.3f s: the workers use %.0f%% of match'"'"'s CPU per game\n' \
    "$(echo "1000 * ($w1 - $w0) / ($g1 - $g0)" | bc -l)" "$mcpu" "$(echo "100000 * ($w1 - $w0) / ($g1 - $g0) / $mcpu" | bc -l)"
  kill "${wpids[@]}" 2>/dev/null; wait "${wpids[@]}" 2>/dev/null || true; wpids=()
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  if [ -z "$PG_URL" ]; then
    bytes=$(du -cb "$d"/arena.db* | tail -1 | cut -f1)
    echo "   SQLite: $((bytes / g1)) bytes per stored game ($g1 games)"
  fi
  # The next round needs an empty database.
  [ -n "$PG_URL" ] && PGOPTIONS='-c client_min_messages=warning' psql "$PG_URL" -qc 'DROP SCHEMA public CASCADE; CREATE SCHEMA public;' >/dev/null
done
fi

if [[ $PARTS == *5* ]]; then
echo "== 5. leases per second (8 clients lease and give back a match as fast as they can)${PG_URL:+, PostgreSQL}"
d=$tmp/lease; worker_arena "$d"
"$C" submit $A/random-lead.wasm --arena "$url" --token "$ta" >/dev/null
"$C" submit $A/trump-tosser.wasm --arena "$url" --token "$tb" >/dev/null
python3 - "$url" "$wt" <<'PY'
import json, sys, threading, time, urllib.request
url, token = sys.argv[1], sys.argv[2]
def call(path, body):
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.status, r.read()
call("/api/worker/lease", {})  # the first lease makes the scheduler queue matches
count = [0] * 8
stop = time.time() + 10
def client(i):
    while time.time() < stop:
        status, body = call("/api/worker/lease", {})
        if status == 200:
            job = json.loads(body)
            call("/api/worker/release", {"match_id": job["match_id"], "lease": job["lease"]})
            count[i] += 1
ts = [threading.Thread(target=client, args=(i,)) for i in range(8)]
[t.start() for t in ts]; [t.join() for t in ts]
print(f"{sum(count) / 10:.0f} leases per second (each: lease, then release; over HTTP)")
PY
fi

if [[ $PARTS == *6* ]]; then
# What a worker costs on a machine of its own, which is how it is deployed: the worker and
# the `croupier match` it is compared with each get core 1 to themselves (taskset), and the
# server with its SQLite writer gets core 0. On two shared cores (part 4) the server and the
# workers take turns on the same cores, which measures the machine, not the worker.
command -v taskset >/dev/null || { echo "taskset is not installed: no part 6"; exit 0; }
[ "$(nproc)" -ge 2 ] || { echo "part 6 needs two cores"; exit 0; }
for deals in ${DEALS6:-8 50}; do
echo "== 6. one worker on a core of its own (taskset): random-lead vs trump-tosser, 2 v 2, $deals deals per match${PG_URL:+, PostgreSQL}"
d=$tmp/pinned$deals; worker_arena "$d" "$deals"
taskset -pc 0 "$pid" >/dev/null; for t in /proc/"$pid"/task/*; do taskset -pc 0 "${t##*/}" >/dev/null; done
"$C" submit $A/random-lead.wasm --arena "$url" --token "$ta" >/dev/null
"$C" submit $A/trump-tosser.wasm --arena "$url" --token "$tb" >/dev/null
# Nanoseconds on a CPU of pid $1's threads (schedstat): "play rest", play being the thread
# that plays the matches and rest everything else (HTTP, encoding reports, the epoch ticker).
oncpu() {
  local p=0 o=0 t n v
  for t in /proc/"$1"/task/*; do
    read -r n < "$t/comm" || continue; read -r v _ < "$t/schedstat" || continue
    if [[ $n == play-* ]]; then p=$((p + v)); else o=$((o + v)); fi
  done
  echo "$p $o"
}
# Alternating windows, so that the machine's drift falls on both sides of each ratio. Each
# round gives two ratios: games per second (what the target is about), and the worker's CPU
# per game (every thread counted) against the match's, which is not moved by how much of
# the core the worker happened to get in its window.
#
# The two cores share caches and a host: while the worker plays, the server works on core 0
# (about half of it), and a busy neighbour slows core 1 by a few percent. So each round plays
# the match twice: with core 0 idle (everything stopped), and with core 0 fully busy (the
# server feeding a second worker pinned beside it). The worker's window has a neighbour in
# between, so the two ratios bound the worker's own overhead from both sides.
ratios=(); cratios=(); bratios=(); rates=(); bases=(); busys=(); rests=()
CROUPIER_WORKER_TOKEN=$wt taskset -c 1 "$C" arena worker --server "$url" --threads 1 --cache "$d/cache" >"$d/w.log" 2>&1 &
wpid=$!
wpids=("$wpid")
wt2=$(DB=$PG_URL; "$C" arena workers add "$d" ${DB:+--database "$DB"} neighbour | tail -1)
# The neighbour is started for each of its windows and stopped with SIGTERM, which gives
# its leased matches back: stopped with SIGSTOP, it kept them, and with two teams the
# scheduler queued no others for the measured worker.
neighbour() {
  CROUPIER_WORKER_TOKEN=$wt2 taskset -c 0 "$C" arena worker --server "$url" --threads 1 --cache "$d/cache2" --name neighbour >>"$d/w2.log" 2>&1 &
  npid=$!; wpids=("$wpid" "$npid")
}
sleep 5
match1() {
  taskset -c 1 "$C" match durak durak/random-lead durak/trump-tosser --rules teams --duplicate --games 8000 --threads 1 --quiet --seed "$1" \
    | grep -o '([0-9]* games/s)' | tr -dc 0-9
}
for round in $(seq "${ROUNDS:-9}"); do
  kill -CONT "$wpid"; sleep 1
  a=$(games "$url"); s0=$(date +%s.%N); read -r p0 o0 < <(oncpu "$wpid")
  sleep 4
  b=$(games "$url"); s1=$(date +%s.%N); read -r p1 o1 < <(oncpu "$wpid")
  kill -STOP "$wpid"
  rate=$(echo "($b - $a) / ($s1 - $s0)" | bc -l)
  wcpu=$(echo "($p1 + $o1 - $p0 - $o0) / ($b - $a)" | bc -l)   # ns per game
  rest=$(echo "100 * ($o1 - $o0) / ($p1 + $o1 - $p0 - $o0)" | bc -l)
  # The match alone on the core: its runner's wall time is its CPU time (process start-up,
  # about 0.1 s, is left out, as the worker's is).
  base=$(match1 "$round")
  neighbour; sleep 1
  busy=$(match1 "$round")
  kill "$npid"; wait "$npid" 2>/dev/null || true; wpids=("$wpid")
  mcpu=$(echo "1000000000 / $base" | bc -l)
  rates+=("$rate"); bases+=("$base"); busys+=("$busy"); rests+=("$rest")
  ratios+=("$(echo "100 * $rate / $base" | bc -l)"); cratios+=("$(echo "100 * $mcpu / $wcpu" | bc -l)")
  bratios+=("$(echo "100 * $rate / $busy" | bc -l)")
  printf '   round %s: worker %.0f games/s rated (%.1f µs CPU a game, %.1f%% of it off the play thread), croupier match --threads 1 %s games/s (%.1f µs), %s with core 0 busy: %.0f%% by games/s (%.0f%% against the busy-neighbour match), %.1f%% by CPU\n' \
    "$round" "$rate" "$(echo "$wcpu / 1000" | bc -l)" "$rest" "$base" "$(echo "$mcpu / 1000" | bc -l)" "$busy" "${ratios[-1]}" "${bratios[-1]}" "${cratios[-1]}"
done
kill -CONT "$wpid"; kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null || true; wpids=()
printf '1 worker on its own core, %s deals per match: %.0f games/s against croupier match --threads 1 on the same core %.0f games/s, %.0f with core 0 busy (medians): %.0f%% by games/s (%.0f%% against the busy-neighbour match), %.1f%% by CPU per game (medians of the rounds'"'"' ratios); %.1f%% of the worker'"'"'s CPU off the play thread\n' \
  "$deals" "$(printf '%s\n' "${rates[@]}" | median)" "$(printf '%s\n' "${bases[@]}" | median)" "$(printf '%s\n' "${busys[@]}" | median)" \
  "$(printf '%s\n' "${ratios[@]}" | median)" "$(printf '%s\n' "${bratios[@]}" | median)" \
  "$(printf '%s\n' "${cratios[@]}" | median)" "$(printf '%s\n' "${rests[@]}" | median)"
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
if [ -n "$PG_URL" ]; then
  PGOPTIONS='-c client_min_messages=warning' psql "$PG_URL" -qc 'DROP SCHEMA public CASCADE; CREATE SCHEMA public;' >/dev/null
fi
done
fi
