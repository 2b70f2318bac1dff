#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine: set-up (without the main job), then every
# test of the workspace in release mode (the sandbox tests play real games through real
# components, which debug-mode wasmtime would make slow).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --no-run
echo "== tests"
cargo test --release --workspace
