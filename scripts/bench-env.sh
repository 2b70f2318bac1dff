#!/usr/bin/env bash
# Croupier's Python environments against the peers people train card-game agents on, in steps
# per second with random legal actions: RLCard 1.2 (`uno`), PettingZoo 1.27 classic
# (`leduc_holdem_v4`, `texas_holdem_v4`) and OpenSpiel 2.0 (`leduc_poker`, `hearts`,
# `crazy_eights`) beside `croupier.env`'s AEC environments (UNO house 2 players, Durak classic)
# and its VecEnv (256 environments, 1 and 2 threads, native opponents, and UNO against the same
# greedy agent through the WebAssembly sandbox). Prints one Markdown table (median of
# --repeats runs of about --seconds each) and the ratios the goals name: VecEnv UNO / RLCard UNO
# (>= 50x), Croupier AEC / PettingZoo leduc and texas (>= 5x), sandboxed / native opponent.
#
#   scripts/bench-env.sh                              5 s a run, 3 runs a row, 13 rows: ~4 min
#   scripts/bench-env.sh --seconds 2 --only croupier --json bench-env.json
#
# The virtualenv is kept in ${CARGO_TARGET_DIR:-target}/bench-env-venv (about 360 MB; needs
# python3 with venv and PyPI the first time). The newest target/wheels/croupier-*.whl
# (scripts/wheel.sh) goes in on every run; without one Croupier's rows say "not built". An
# OpenSpiel that does not install here is left out and its rows say "not installed". Not part
# of scripts/test.sh: a benchmark, not a test (figures go to BENCHMARKS.md). The other rows'
# agents run in the benchmark's own process with no sandbox; see scripts/bench-env.py for
# what each row counts as a step.
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}"
venv="$target/bench-env-venv"
pip=("$venv/bin/python" -m pip --quiet --disable-pip-version-check)
# PettingZoo without its `classic` extra, whose open_spiel would make the whole install fail
# wherever OpenSpiel has no wheel: leduc and texas need rlcard and pygame-ce only.
PEERS=(rlcard==1.2.0 pettingzoo==1.27.0 gymnasium==1.4.0 pygame-ce==2.5.8)
OPENSPIEL=open_spiel==2.0.2

if [[ ! -x "$venv/bin/python" ]]; then
    echo "== a virtualenv in $venv: ${PEERS[*]} $OPENSPIEL" >&2
    python3 -m venv "$venv"
    "${pip[@]}" install "${PEERS[@]}"
    "${pip[@]}" install "$OPENSPIEL" \
        || echo "== $OPENSPIEL does not install here: its rows will say not installed" >&2
fi

wheel=$(ls -t "$target"/wheels/croupier-*.whl 2>/dev/null | head -n 1 || true)
if [[ -n "$wheel" ]]; then
    echo "== $wheel" >&2
    "${pip[@]}" install --force-reinstall --no-deps "$wheel"
    "${pip[@]}" install "$wheel"
else
    echo "== no $target/wheels/croupier-*.whl (scripts/wheel.sh): Croupier's rows are skipped" >&2
fi

exec "$venv/bin/python" scripts/bench-env.py "$@"
