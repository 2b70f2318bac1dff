#!/bin/bash
# A sharded tournament on a real single-node SLURM cluster (slurmctld + slurmd on this
# machine, munge for authentication), submitted with deploy/slurm/submit.sh exactly as on a
# cluster; the merged table, JSON and log must equal the unsharded run's byte for byte, also
# after one shard, cut mid-game, is resubmitted alone and resumes its part.
#
# Needs Debian's `slurm-wlm` and `munge` (apt-get install slurm-wlm munge) and root, since
# the daemons run as root here. Starts its own daemons from a temp folder on free ports,
# with no cgroups (proctrack/linuxproc, task/none) and no systemd, and stops them at the end.
# Ports: 20000 + 2·(pid mod 10000) and the next one.
# Fails when SLURM is missing unless CROUPIER_REQUIRE_SLURM=0, which skips on purpose.
# Expects the release build and the example agents (scripts/setup.sh).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
croupier=${CROUPIER:-${CARGO_TARGET_DIR:-$repo/target}/release/croupier}
if [[ $(id -u) != 0 ]]; then
    if [[ ${CROUPIER_REQUIRE_SLURM:-1} == 0 ]]; then
        echo "test-slurm: not root; skipped (CROUPIER_REQUIRE_SLURM=0)"
        exit 0
    fi
    echo "test-slurm: slurmd runs jobs as their user, so it must run as root (or CROUPIER_REQUIRE_SLURM=0 to skip)" >&2
    exit 1
fi
for tool in munged slurmctld slurmd sbatch squeue sinfo; do
    if ! command -v "$tool" > /dev/null; then
        if [[ ${CROUPIER_REQUIRE_SLURM:-1} == 0 ]]; then
            echo "test-slurm: $tool missing; skipped (CROUPIER_REQUIRE_SLURM=0)"
            exit 0
        fi
        echo "test-slurm: $tool missing: apt-get install slurm-wlm munge (or CROUPIER_REQUIRE_SLURM=0 to skip)" >&2
        exit 1
    fi
done
[[ -x $croupier ]] || { echo "test-slurm: $croupier not built (scripts/setup.sh)" >&2; exit 1; }

dir=$(mktemp -d /tmp/croupier-slurm.XXXXXX)
chmod 755 "$dir"
pids=()
stop() {
    for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2> /dev/null || true; done
    if [[ ${KEEP:-0} == 1 ]]; then echo "kept $dir"; else rm -rf "$dir"; fi
}
trap stop EXIT

# munge: its own key, socket and state in the temp folder.
mkdir -p "$dir/munge" "$dir/log"
chmod 700 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
munged --foreground --force --key-file="$dir/munge/munge.key" \
    --socket="$dir/munge/munge.sock" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" \
    > "$dir/log/munged.out" 2>&1 &
pids+=($!)

node=$(hostname -s)
cpus=$(nproc)
mkdir -p "$dir/state" "$dir/spool"
# Ports of our own, so that a second run (or a real SLURM) on the machine does not collide.
port=$((20000 + ($$ % 10000) * 2))
cat > "$dir/slurm.conf" <<CONF
ClusterName=croupier-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MaxArraySize=1000
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$dir/slurm.conf
# Wait for munge before the daemons ask it for credentials.
for _ in $(seq 50); do [[ -S $dir/munge/munge.sock ]] && break; sleep 0.1; done
slurmctld -D -i -f "$SLURM_CONF" > "$dir/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" > "$dir/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 60); do
    state=$(sinfo -h -N -o %t 2> /dev/null || true)
    [[ $state == idle* ]] && break
    sleep 1
done
[[ ${state:-} == idle* ]] || { echo "test-slurm: the node never became idle (state '${state:-}')" >&2; tail -20 "$dir/log/"*.log >&2; exit 1; }
echo "test-slurm: single-node cluster up ($node, $cpus CPUs): $(sinfo -h -o '%P %a %D %t')"

# Waits until none of the jobs given (a comma-separated list) is queued or running.
wait_for() {
    for _ in $(seq 300); do
        [[ -z $(squeue -h -j "$1" 2> /dev/null) ]] && return 0
        sleep 1
    done
    echo "test-slurm: jobs $1 still queued after 300 s" >&2
    squeue >&2
    exit 1
}

# The run: a duplicate-deal tournament of three agents, 10 deals per pairing, in 3 shards of
# uneven size (3 + 3 + 4 deals: the shards cut between whole deals).
cmd=(tournament durak durak/cheapest durak/random-lead durak/trump-tosser --games 10 --seed 9 --duplicate)
cd "$dir"
export CROUPIER=$croupier CROUPIER_OUT=$dir/run
read -r array merge < <("$repo/deploy/slurm/submit.sh" 3 -- "${cmd[@]}")
echo "test-slurm: submitted array job $array (3 shards) and merge job $merge"
wait_for "$array,$merge"
[[ -f $dir/run/table.txt ]] || { echo "test-slurm: the merge job wrote no table" >&2; cat "$dir"/croupier-*.out >&2 || true; tail -20 "$dir/log/"*.log >&2; exit 1; }

# The same run in one piece, here.
"$croupier" "${cmd[@]}" --quiet --json "$dir/whole.json" --log "$dir/whole.jsonl" > "$dir/whole.txt"
ok=1
for pair in "whole.txt run/table.txt" "whole.json run/result.json" "whole.jsonl run/games.jsonl"; do
    read -r a b <<< "$pair"
    if cmp -s "$dir/$a" "$dir/$b"; then
        echo "test-slurm: $b = $a ($(wc -c < "$dir/$a") bytes)"
    else
        echo "test-slurm: $b differs from $a" >&2
        diff "$dir/$a" "$dir/$b" | head -20 >&2
        ok=0
    fi
done
echo "test-slurm: parts: $(cd "$dir/run" && wc -l part-*.jsonl | tr '\n' ' ')"

# A shard that died mid-write (here: its log cut in the middle of its third game) is played
# again alone, as one would after losing a node, and continues its part; the merge job run
# on its own then gives the same results again.
part=$dir/run/part-1.jsonl
cp "$part" "$dir/part-1.whole"
head -n 3 "$dir/part-1.whole" > "$part"
sed -n 4p "$dir/part-1.whole" | head -c 200 >> "$part"
rm "$dir/run/table.txt" "$dir/run/result.json" "$dir/run/games.jsonl"
again=$(CROUPIER_SHARDS=3 sbatch --parsable --export=ALL --array=1 "$repo/deploy/slurm/tournament.sbatch" "${cmd[@]}")
again=${again%%;*}
merge2=$(sbatch --parsable --export=ALL --dependency="afterok:$again" "$repo/deploy/slurm/tournament.sbatch" "${cmd[@]}")
merge2=${merge2%%;*}
echo "test-slurm: shard 1 cut to $(wc -c < "$part") bytes; resubmitted alone as job $again, merge job $merge2"
wait_for "$again,$merge2"
if cmp -s "$part" "$dir/part-1.whole"; then
    echo "test-slurm: the resumed part-1.jsonl = the uninterrupted one ($(wc -c < "$part") bytes)"
else
    echo "test-slurm: the resumed part-1.jsonl differs from the uninterrupted one" >&2
    ok=0
fi
for pair in "whole.txt run/table.txt" "whole.json run/result.json" "whole.jsonl run/games.jsonl"; do
    read -r a b <<< "$pair"
    if cmp -s "$dir/$a" "$dir/$b"; then
        echo "test-slurm: after the resubmission, $b = $a"
    else
        echo "test-slurm: after the resubmission, $b differs from $a" >&2
        ok=0
    fi
done
cat "$dir/run/table.txt"
[[ $ok == 1 ]] && echo "test-slurm: ok"
[[ $ok == 1 ]]
