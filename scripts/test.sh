#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine: installs what the tests need (every agent
# language's toolchain, PostgreSQL, Chromium, SLURM, schemathesis, maturin) while the host and
# every test build in release mode (the sandbox tests play real games through real
# components, which debug-mode wasmtime would make slow), builds every example agent, then
# runs the tests with cargo-nextest (cargo test where it is missing), with the SLURM test
# beside them, then the wheel test. First it checks that no file of a crate imports a file
# that imports it back (scripts/import-cycles.py), that no source file is over 700 lines
# but the rules engines (scripts/file-lengths.py), and that every file a doc or a comment
# cites exists, with the heading it names (scripts/check-links.py).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/tools.sh
target="${CARGO_TARGET_DIR:-target}"
CROUPIER="$target/release/croupier"
mkdir -p "$target"

if command -v rustup >/dev/null 2>&1; then
  rustup target add wasm32-unknown-unknown >/dev/null
fi
# Debian's rustc-web for the host when rustup's Rust is older than it needs (tools.sh),
# before anything runs cargo: it is exported for every build and test below.
use_host_rust || true
# The installs wait on the network and the disk, the build on the CPU: side by side.
( install_python || true; install_c || true; install_js || true; install_test_only ) \
  >"$target/test-tools.log" 2>&1 &
tools=$!

# No file may import a file that imports it back, and the arena's wings import one way
# (docs/layout.md): seconds, so before anything is built. The self-test plants each kind of
# import the check must see, or must not.
python3 scripts/import-cycles.py --self-test
python3 scripts/import-cycles.py
python3 scripts/file-lengths.py
# Every file and heading the docs and the comments cite exists (docs/rules/ is the rule book
# they cite by section); the self-test plants a missing file and a missing heading.
python3 scripts/check-links.py --self-test
python3 scripts/check-links.py

# The set-up's build, the arena's and the tests' must share every crate below croupier-cli
# (cli/Cargo.toml pins the features that would differ): checked before building.
if ! scripts/same-features.sh; then
  echo "error: the builds would compile shared crates twice (see above; cli/Cargo.toml)" >&2
  [ "${CROUPIER_REQUIRE_ONE_BUILD:-1}" = 0 ] || exit 1
fi
echo "== building croupier, then every test (release; wasmtime takes a few minutes the first time)"
cargo build --release -p croupier-cli
cargo test --release --workspace --no-run

echo "== installs (${SECONDS} s in)"
wait "$tools" || true
cat "$target/test-tools.log"
echo "== building every example agent (${SECONDS} s in)"
"$CROUPIER" build

# A test that cannot run fails instead of passing quietly. Each of these is set unless the
# caller set it; `=0` skips those tests on purpose, with a note on stderr:
# cli/tests/cli/python.rs needs componentize-py, c.rs Debian's clang, lld and wasi-libc, js.rs
# node and the npm packages, arena_postgres.rs and arena_crash.rs PostgreSQL, browser.rs
# Chromium and chromedriver, arena_class.rs schemathesis.
for var in PYTHON C JS POSTGRES BROWSER SCHEMATHESIS; do
  export "CROUPIER_REQUIRE_$var=$(eval echo "\${CROUPIER_REQUIRE_$var:-1}")"
done
# The SLURM test waits mostly on its daemons, and nextest's two slots leave a core idle now
# and then: it runs beside the tests, into its log. (The wheel test does not: its maturin
# runs cargo, and even a build with nothing to do links target/release/croupier afresh, so
# for a moment the tests found no `croupier` at all.)
# A sharded tournament on a single-node SLURM cluster the script starts itself (about 20 s):
# needs slurm-wlm, munge and root; CROUPIER_REQUIRE_SLURM=0 skips it on purpose.
scripts/test-slurm.sh >"$target/test-slurm.log" 2>&1 &
slurm=$!
echo "== tests (${SECONDS} s in; SLURM beside them)"
status=0
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --release --workspace || status=1
  # nextest runs no doc tests.
  cargo test --release --workspace --doc || status=1
else
  echo "(cargo-nextest not found: cargo test, one test binary at a time)"
  # Each crate's integration tests are one binary, its tests threads of one process; the
  # arena's crash and worker tests run alone after, as .config/nextest.toml has them.
  cargo test --release --workspace -- --skip arena_workers:: --skip arena_crash:: || status=1
  cargo test --release -p croupier-cli --test cli -- arena_workers:: arena_crash:: \
    --test-threads=1 || status=1
fi
echo "== SLURM"
wait "$slurm" || status=1
cat "$target/test-slurm.log"
# `pip install croupier`: the wheel built (cargo's build above, not a second compile), installed into a
# fresh venv with no Rust on the PATH, a Python agent made, tested, built and played
# (CROUPIER_REQUIRE_WHEEL=0 skips it).
echo "== wheel (${SECONDS} s in)"
scripts/test-wheel.sh || status=1
if [ "$status" != 0 ]; then
  echo "== tests FAILED after ${SECONDS} s (see above)" >&2
  exit 1
fi
echo "== tests done in ${SECONDS} s"
