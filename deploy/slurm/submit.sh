#!/bin/bash
# Submits a sharded croupier run to SLURM: a job array of N shards, then a merge job that
# runs only if every shard succeeded. Prints the two job ids.
#   deploy/slurm/submit.sh N [sbatch options…] -- tournament durak A B C --games 1000 --seed 1
# CROUPIER and CROUPIER_OUT (see tournament.sbatch) are passed on to the jobs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=${1:?usage: submit.sh N [sbatch options...] -- croupier arguments...}
shift
opts=()
while [[ $# -gt 0 && $1 != -- ]]; do
    opts+=("$1")
    shift
done
[[ ${1:-} == -- ]] && shift
[[ $# -gt 0 ]] || { echo "submit.sh: give the croupier command after --" >&2; exit 2; }
export CROUPIER_OUT=${CROUPIER_OUT:-$PWD/croupier-run} CROUPIER_SHARDS=$n
array=$(sbatch --parsable --export=ALL --array="0-$((n - 1))" "${opts[@]}" \
    "$here/tournament.sbatch" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --export=ALL --dependency="afterok:$array" --kill-on-invalid-dep=yes \
    --job-name=croupier-merge --cpus-per-task=1 "${opts[@]}" "$here/tournament.sbatch" "$@")
merge=${merge%%;*}
echo "$array $merge"
