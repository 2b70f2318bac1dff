#!/usr/bin/env bash
# Mutation testing (cargo-mutants) of the code where a silent bug would hurt most: what each
# seat may see (observation and knowledge), what `apply` refuses, how the match runner scores
# and forfeits, what replay filters and what the log reader accepts, and the statistics.
#
# NOT part of CI and not part of scripts/test.sh: on a 2-core machine the whole run takes
# hours (every mutant rebuilds a crate in release mode and runs its tests; the host groups
# relink against wasmtime). Results, and what was done about every
# missed mutant, are in docs/testing.md ("Mutation testing").
#
#   scripts/mutants.sh                 every group, in the order below
#   scripts/mutants.sh stats log       only these groups
#   scripts/mutants.sh --list          the groups
#   scripts/mutants.sh --count [GROUP] how many mutants each group has (nothing is built)
#
# Install the tool first: `cargo install --locked cargo-mutants` (written against 27.1).
#
# How it runs. Mutants are tested in place (`--in-place`) so the release build in the target
# directory is reused; a copy of the tree would rebuild wasmtime from scratch for every group.
# In-place means the source tree is edited while a mutant is tested, so this script:
#   - refuses to start unless the git work tree is clean (nothing of yours can be mixed with
#     a mutant, and nothing of yours can be lost when a file is restored);
#   - restores every mutated file from git if it is interrupted or a run dies, and checks the
#     tree is clean after each group;
#   - should not be run while you edit or build in the same checkout. Use a separate worktree
#     (`git worktree add ../croupier-mutants`) with its own CARGO_TARGET_DIR if you want to go
#     on working meanwhile.
# Each group lists the test targets that cover it (`-C --test=...` applies them to both the
# build and the test phase, so a mutant builds and runs only those). Tests of another package
# go after `--` with that package (`-- -p croupier-cli --test cli`): cargo-mutants 27.1 looks
# for `-C --test=` targets in the mutated package only, whatever `--test-package` says. Each
# crate's integration tests are one binary (`rules`, `cli`, `tournament`: docs/testing.md), so
# after a second `--` a group names the modules of it that cover the mutated file, as libtest
# filters (a test runs when its path contains one of them). The filters apply to the unit
# tests of `--lib` as well, so a group with `--lib` names their module too. Outcomes go to
# $CARGO_TARGET_DIR/mutants/<group>/mutants.out (caught.txt, missed.txt, timeout.txt,
# unviable.txt, outcomes.json, one log per mutant).
#
# Environment: CARGO_TARGET_DIR (default ./target), MUTANTS_TIMEOUT (seconds per test run;
# by default cargo-mutants derives it from the unmutated run, which matters: some mutants
# of the re-deal loops never end, and a fixed 300 s cost five minutes each), MUTANTS_NICE
# (default 10: share the machine), MUTANTS_ARGS (more cargo-mutants arguments, e.g.
# `--shard 0/2` to run the first half of a group in one sitting and `--shard 1/2` later),
# CARGO_INCREMENTAL (default 1) and CARGO_PROFILE_RELEASE_LTO (default off), below.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
# The host needs Debian's rustc-web when rustup's Rust is older (tools.sh): the same rustc as
# the set-up's build, or every mutant would rebuild wasmtime with another.
. scripts/lib/tools.sh
use_host_rust || true

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
# Incremental release builds: a mutant in croupier-tournament otherwise rebuilds the arena and
# the `croupier` binary from scratch (about 90 s a mutant for the runner and driver groups);
# incrementally, only what the mutated function reaches is recompiled (about 5 s). Only the
# workspace's crates are affected; the dependencies stay as `scripts/setup.sh` built them.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-1}"
# With incremental release builds, rustc's crate-local ThinLTO once left the `croupier` binary
# with an undefined hidden symbol from wasmtime (`drop_in_place<RegisteredType>`), and the
# link failed for the unmutated tree; without it (`lto = "off"`) the builds link. It changes
# the release profile, so the first run rebuilds every dependency in this target directory:
# give the script a target directory of its own.
export CARGO_PROFILE_RELEASE_LTO="${CARGO_PROFILE_RELEASE_LTO:-off}"
timeout_args=()
read -r -a extra_args <<<"${MUTANTS_ARGS:-}"
[[ -n "${MUTANTS_TIMEOUT:-}" ]] && timeout_args=(--timeout "$MUTANTS_TIMEOUT")
nice_level="${MUTANTS_NICE:-10}"

# Tests per game, modules of the rules crate's test binary. `--lib` (the rules crate's unit
# tests) only where the unit tests cover the mutated file (`toepen::`: rules/src/toepen/'s): it
# costs a second release build of the whole crate per mutant.
durak_tests=(durak_props:: durak_scenarios:: check_props::)
toepen_tests=(toepen:: toepen_props:: toepen_scenarios::)
uno_tests=(uno_props:: uno_scenarios::)

# group name | what it mutates | which tests
groups=(stats log durak-observe runner toepen-observe uno-observe durak-refusals
    toepen-refusals uno-refusals driver)

group_args() {
    case "$1" in
    stats)
        # Wilson intervals, Elo and Bradley-Terry: the unit tests pin values. (The CLI tests
        # that check the summary JSON live in croupier-cli, a crate that is not mutated here.)
        args=(--package croupier-tournament -f tournament/src/stats.rs -C --lib) ;;
    log)
        # The unit tests in log.rs, and the golden records, which digest every event log.
        args=(--package croupier-rules -f rules/src/log.rs -C --lib -C --test=rules
            -- -- log::tests:: golden::) ;;
    durak-observe)
        args=(--package croupier-rules -f rules/src/durak/observe.rs -C --test=rules
            -- -- "${durak_tests[@]}") ;;
    toepen-observe)
        args=(--package croupier-rules -f rules/src/toepen/observe.rs -C --lib -C --test=rules
            -- -- "${toepen_tests[@]}") ;;
    uno-observe)
        args=(--package croupier-rules -f rules/src/uno/observe.rs -C --test=rules
            -- -- "${uno_tests[@]}") ;;
    durak-refusals)
        # The golden records catch a refusal that changes which actions are legal.
        args=(--package croupier-rules -f rules/src/durak/engine.rs --re 'validate_action'
            -C --test=rules -- -- "${durak_tests[@]}" golden::) ;;
    toepen-refusals)
        args=(--package croupier-rules -f rules/src/toepen/engine.rs --re 'why_illegal'
            -C --lib -C --test=rules -- -- "${toepen_tests[@]}" golden::) ;;
    uno-refusals)
        args=(--package croupier-rules -f rules/src/uno/engine.rs --re 'why_illegal|check_card'
            -C --test=rules -- -- "${uno_tests[@]}" golden::) ;;
    runner)
        # Scoring (`tally`), the forfeit policy and one game's play loop: the runner's unit
        # tests, and croupier-cli's end-to-end `cli` (forfeits, teams, JSON totals) and
        # `sandbox` (agents that fault, in the sandbox). `hardening` is left out: its
        # resource tests take minutes a run and test the loader and limits, not these.
        args=(--package croupier-tournament -f tournament/src/runner.rs
            --re 'tally|forfeit|play_game'
            -- -p croupier-tournament -p croupier-cli --lib --test cli
            -- runner::tests:: cli:: sandbox::) ;;
    driver)
        # Replay's per-viewer filtering, the log reader and resuming from a log: tested end
        # to end by croupier-cli's `cli` and `play` tests, and the replay documents by
        # croupier-tournament's `replay` test (every viewer of every preset), which run here.
        # (`play::` also matches `browser_play::`, Chromium's, skipped.)
        args=(--package croupier-tournament -f tournament/src/matches/log.rs
            -f tournament/src/matches/resume.rs -f tournament/src/replay.rs
            --re 'replay|read_log|read_resume'
            -- -p croupier-cli -p croupier-tournament --test cli --test tournament
            -- cli:: play:: replay:: --skip browser_play::) ;;
    *)
        echo "unknown group: $1 (groups: ${groups[*]})" >&2
        exit 2 ;;
    esac
}

mode=run
if [[ "${1:-}" == --list ]]; then
    printf '%s\n' "${groups[@]}"
    exit 0
fi
if [[ "${1:-}" == --count ]]; then
    mode=count
    shift
fi
selected=("$@")
[[ ${#selected[@]} -eq 0 ]] && selected=("${groups[@]}")

if ! cargo mutants --version >/dev/null 2>&1; then
    echo "cargo-mutants is not installed: cargo install --locked cargo-mutants" >&2
    exit 1
fi

if [[ $mode == count ]]; then
    for g in "${selected[@]}"; do
        group_args "$g"
        printf '%-16s %s\n' "$g" "$(cargo mutants --list "${args[@]}" | wc -l)"
    done
    exit 0
fi

if [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then
    echo "the work tree has changes: commit or stash them first (mutants are tested in place)" >&2
    exit 1
fi

restore() {
    # cargo-mutants restores each file itself; this covers a killed run.
    if [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then
        echo "restoring mutated files:" >&2
        git status --porcelain --untracked-files=no >&2
        git checkout -- rules/src host/src tournament/src
    fi
}
trap restore EXIT INT TERM

failed=0
for g in "${selected[@]}"; do
    group_args "$g"
    out="$CARGO_TARGET_DIR/mutants/$g"
    mkdir -p "$out"
    echo "== $g ($(date -u +%H:%M:%S) UTC)"
    # Exit codes: 0 all caught, 2 some missed, 3 some timed out; go on to the next group.
    rc=0
    nice -n "$nice_level" cargo mutants --in-place --no-shuffle --profile release \
        "${timeout_args[@]}" "${extra_args[@]}" --output "$out" "${args[@]}" || rc=$?
    if [[ $rc -ne 0 && $rc -ne 2 && $rc -ne 3 ]]; then
        echo "cargo mutants failed for $g (exit $rc)" >&2
        failed=1
    fi
    if [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then
        echo "the tree is not clean after $g" >&2
        restore
        failed=1
    fi
    for k in caught missed timeout unviable; do
        printf '   %-9s %s\n' "$k" "$(wc -l <"$out/mutants.out/$k.txt" 2>/dev/null || echo 0)"
    done
    if [[ -s "$out/mutants.out/missed.txt" ]]; then
        sed 's/^/   MISSED /' "$out/mutants.out/missed.txt"
    fi
done
exit "$failed"
