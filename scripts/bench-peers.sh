#!/usr/bin/env bash
# Croupier against the peers people compare it with, on UNO, one after the other on this
# machine: RLCard 1.2 (`uno`, two random agents) and OpenSpiel 2.0 (`crazy_eights`, two
# players, uniformly random actions; UNO's closest relative there) in a throw-away
# virtualenv, then Croupier sandboxed (`uno/greedy` against itself, `house` rules, two
# players, one thread). It prints games/s and decisions/s for each (median of RUNS runs) and
# Croupier's ratios to each peer.
#
#   scripts/bench-peers.sh                 GAMES=2000 RUNS=3
#   GAMES=5000 RUNS=5 scripts/bench-peers.sh
#   KEEP_VENV=1 scripts/bench-peers.sh     keep the virtualenv (in $TMPDIR) for the next run
#
# Needs python3 with venv and network access to PyPI for the first run (about 60 MB). Not
# part of scripts/test.sh: a benchmark, not a test (figures go to BENCHMARKS.md).
#
# What is compared: a peer's agents are plain Python calls in the peer's own process, with
# no sandbox, no limits and no records; Croupier's are WebAssembly components under fuel,
# memory and time limits, with every game checked and recorded. The agents differ too
# (random against greedy): a peer has no greedy UNO agent, and Croupier has no random one;
# greedy decides more cheaply per call than it costs to ask, so the comparison favours
# neither much. The unit that matters to a researcher is games per second on one core.
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES="${GAMES:-2000}"
RUNS="${RUNS:-3}"
RLCARD=rlcard==1.2.0
OPENSPIEL=open_spiel==2.0.2
venv="${TMPDIR:-/tmp}/croupier-bench-peers"
croupier="${CARGO_TARGET_DIR:-target}/release/croupier"

if [[ ! -x "$croupier" ]]; then
    echo "build croupier first: cargo build --release -p croupier-cli && $croupier build" >&2
    exit 1
fi
if [[ ! -x "$venv/bin/python" ]]; then
    echo "== a throw-away virtualenv in $venv: $RLCARD $OPENSPIEL"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$RLCARD" "$OPENSPIEL"
fi

# Each run writes one line: "<name> <games> <decisions> <seconds>".
lines=$(mktemp)
trap 'rm -f "$lines"; [[ -n "${KEEP_VENV:-}" ]] || rm -rf "$venv"' EXIT
echo "== the peers, $RUNS runs of $GAMES games each"
"$venv/bin/python" - "$GAMES" "$RUNS" >>"$lines" <<'EOF'
import random, sys, time

games, runs = int(sys.argv[1]), int(sys.argv[2])

def rlcard_uno():
    import rlcard
    from rlcard.agents import RandomAgent
    env = rlcard.make("uno", config={"seed": 7})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    decisions = 0
    t = time.perf_counter()
    for _ in range(games):
        trajectories, _ = env.run(is_training=False)
        # A trajectory is state, action, state, ..., state: one decision per action.
        decisions += sum((len(tr) - 1) // 2 for tr in trajectories)
    return decisions, time.perf_counter() - t

def openspiel_crazy_eights():
    import pyspiel
    game = pyspiel.load_game("crazy_eights", {"players": 2})
    rng = random.Random(7)
    decisions = 0
    t = time.perf_counter()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
    return decisions, time.perf_counter() - t

for name, run in [("rlcard-uno", rlcard_uno), ("openspiel-crazy-eights", openspiel_crazy_eights)]:
    for _ in range(runs):
        d, s = run()
        print(name, games, d, f"{s:.6f}", flush=True)
EOF
echo "== Croupier, sandboxed, one thread"
for _ in $(seq "$RUNS"); do
    json=$(mktemp)
    "$croupier" match uno uno/greedy uno/greedy --rules house --players 2 --games "$GAMES" \
        --threads 1 --quiet --json "$json" >/dev/null
    python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print("croupier-uno-greedy", v["games"], v["decisions"], v["elapsed_seconds"])' "$json" >>"$lines"
    rm -f "$json"
done

python3 - "$lines" <<'EOF'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, games, decisions, seconds = line.split()
    runs.setdefault(name, []).append((int(games) / float(seconds), int(decisions) / float(seconds)))
med = {n: (statistics.median(g for g, _ in r), statistics.median(d for _, d in r)) for n, r in runs.items()}
print(f"{'':26}{'games/s':>12}{'decisions/s':>14}   (median of {len(next(iter(runs.values())))} runs)")
for n, (g, d) in med.items():
    print(f"{n:26}{g:12.0f}{d:14.0f}")
c = med["croupier-uno-greedy"][0]
for peer in ("rlcard-uno", "openspiel-crazy-eights"):
    print(f"Croupier / {peer}: {c / med[peer][0]:.1f}x the games/s")
EOF
