#!/usr/bin/env bash
# Host memory over a long match (hardening finding 4): peak resident memory of
# `croupier match` with 10^3, 10^4 and 10^5 games between two agents that log twenty lines
# at every decision (inside their budget), so that every game's record carries a log. A
# host that kept records until the end would grow with the games; this one stays flat.
#
#   scripts/bench-memory.sh [MAX_GAMES]      (default 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
croupier="${CROUPIER:-$target/release/croupier}"
max=${1:-100000}
"$croupier" build tests/hostile-agent --out "$target/test-agents" >/dev/null
agent="$target/test-agents/durak/hostile.wasm#log-chatty"
echo "games     peak RSS (MiB)   seconds"
for games in 1000 10000 100000; do
  [ "$games" -le "$max" ] || break
  python3 - "$croupier" "$agent" "$games" <<'PY'
import resource, subprocess, sys, time
croupier, agent, games = sys.argv[1:]
t = time.time()
subprocess.run([croupier, "match", "durak", agent, agent, "--games", games, "--quiet"],
               check=True, stdout=subprocess.DEVNULL)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"{int(games):>6}    {rss:>10.1f}      {time.time() - t:>8.1f}")
PY
done
