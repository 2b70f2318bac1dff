#!/usr/bin/env bash
# Sets up a fresh machine and runs the main job: the wasm target, the host (release), every
# example agent as a component, then a 1000-game 2 v 2 Durak match (source A's experiment).
# Usage: scripts/setup.sh [--no-run] [--tests]
#   --no-run  set up only, without the main job
#   --tests   also build every test of the workspace (scripts/test.sh passes it; see below)
set -euo pipefail
cd "$(dirname "$0")/.."

if command -v rustup >/dev/null 2>&1; then
  rustup target add wasm32-unknown-unknown >/dev/null
fi
# The Python example agent is built with componentize-py (from PyPI). Best effort: without
# it the Rust agents still build, and `croupier build` says what was skipped.
if command -v python3 >/dev/null 2>&1 && ! command -v componentize-py >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check componentize-py==0.25.1 \
    || echo "warning: could not install componentize-py; the Python example agent will be skipped"
fi
# C agents (c-agents/, `croupier new --lang c`): Debian's clang and lld for wasm32, its
# wasi-libc (malloc for the bindings' lists), compiler-rt builtins and libc++ for WASI (C++
# agents), then wit-bindgen-cli and wasm-tools from crates.io, pinned to the versions this host's Cargo.lock uses
# (wit-bindgen 0.63, wasm-tools 1.243 = wit-component 0.243), with only the features the C
# route needs. Best effort: the first install compiles both, about 6 minutes on 2 busy
# cores; a failure only skips C, and says so.
c_skipped=""
c_debs=(clang lld wasi-libc libclang-rt-dev-wasm32 libc++-dev-wasm32)
if ! { command -v clang >/dev/null 2>&1 && command -v wasm-ld >/dev/null 2>&1 \
    && [ -f /usr/lib/wasm32-wasi/libc.a ] && [ -f /usr/lib/wasm32-wasi/libc++.a ]; }; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "== installing ${c_debs[*]} (C agents)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${c_debs[@]}" >/dev/null; } \
      || c_skipped="apt-get install ${c_debs[*]} failed"
  else
    c_skipped="needs root for apt-get install ${c_debs[*]}"
  fi
fi
if [ -z "$c_skipped" ] && ! command -v wit-bindgen >/dev/null 2>&1; then
  echo "== cargo install wit-bindgen-cli 0.63.0 (C bindings; a few minutes)"
  cargo install --quiet --locked wit-bindgen-cli@0.63.0 --no-default-features --features c \
    || c_skipped="cargo install wit-bindgen-cli failed"
fi
if [ -z "$c_skipped" ] && ! command -v wasm-tools >/dev/null 2>&1; then
  echo "== cargo install wasm-tools 1.243.0 (components from C modules; a few minutes)"
  cargo install --quiet --locked wasm-tools@1.243.0 --no-default-features \
    --features component,validate,print,metadata,parse \
    || c_skipped="cargo install wasm-tools failed"
fi
if [ -n "$c_skipped" ]; then
  echo "warning: C skipped ($c_skipped): the C agents are not built and cli/tests/c.rs fails unless CROUPIER_REQUIRE_C=0"
fi
# JavaScript and TypeScript agents (js-agents/, `croupier new --lang js|ts`): Debian's nodejs
# and npm, then these npm packages, pinned (cli/src/js_agent.rs names the same versions):
# componentize-qjs (QuickJS in a component, the default engine), esbuild (bundles an agent
# with the SDK and strips TypeScript), typescript (tsc type-checks TypeScript agents),
# componentize-js (SpiderMonkey, `engine = "spidermonkey"`; it imports preview2-shim without
# declaring it, so that is named too) and jco 1.34 (`jco types`; 1.35 cannot read files). Installed
# globally so that the tools are on the PATH; about 15 s and 400 MB. Best effort: a failure
# only skips JavaScript, and says so.
js_skipped=""
js_npm=(componentize-qjs@0.4.5 esbuild@0.28.2 typescript@5.9.3 @bytecodealliance/componentize-js@0.23.0 @bytecodealliance/jco@1.34.0 @bytecodealliance/preview2-shim@0.25.0)
if ! { command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; }; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "== installing nodejs npm (JavaScript agents)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; } \
      || js_skipped="apt-get install nodejs npm failed"
  else
    js_skipped="needs root for apt-get install nodejs npm"
  fi
fi
if [ -z "$js_skipped" ]; then
  js_have=$(npm ls -g --depth=0 2>/dev/null || true)
  js_need=()
  for p in "${js_npm[@]}"; do
    grep -q -- " ${p}\$" <<<"$js_have" || js_need+=("$p")
  done
  if [ ${#js_need[@]} -gt 0 ]; then
    echo "== npm install -g ${js_need[*]} (JavaScript agents)"
    npm install -g --silent --no-audit --no-fund "${js_need[@]}" \
      || js_skipped="npm install -g ${js_need[*]} failed"
  fi
fi
if [ -n "$js_skipped" ]; then
  echo "warning: JavaScript skipped ($js_skipped): the JS agents are not built and cli/tests/js.rs fails unless CROUPIER_REQUIRE_JS=0"
fi
# Debian packages some tests drive for real, installed only when missing, with one
# `apt-get update` (never a password prompt: as root, or through sudo -n; otherwise only
# named, and those tests fail until they are there or are skipped on purpose):
# - postgresql: the arena's PostgreSQL tests start their own server with initdb and pg_ctl
#   (CROUPIER_REQUIRE_POSTGRES=0 skips them);
# - chromium and chromium-driver: the arena's browser test (CROUPIER_REQUIRE_BROWSER=0);
# - slurm-wlm and munge: scripts/test-slurm.sh runs a sharded tournament on a single-node
#   SLURM cluster it starts itself (CROUPIER_REQUIRE_SLURM=0).
have_postgres() {
  command -v initdb >/dev/null 2>&1 || compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null
}
missing=()
have_postgres || missing+=(postgresql)
{ [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; } || missing+=(chromium chromium-driver)
{ command -v slurmctld >/dev/null 2>&1 && command -v munged >/dev/null 2>&1; } || missing+=(slurm-wlm munge)
if [ ${#missing[@]} -gt 0 ]; then
  as_root=()
  if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
  fi
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" = 0 ] || [ ${#as_root[@]} -gt 0 ]; }; then
    echo "== installing ${missing[*]} (for the arena's PostgreSQL and browser tests, and the SLURM test)"
    "${as_root[@]}" apt-get update -qq \
      && "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq "${missing[@]}" >/dev/null \
      || echo "warning: could not install ${missing[*]}; the tests that need them will fail"
  else
    echo "warning: some tests need Debian's ${missing[*]}: run \`apt-get install ${missing[*]}\` as root"
  fi
fi
run_main=1 tests=""
for arg in "$@"; do
  case $arg in
    --no-run) run_main="" ;;
    --tests) tests=1 ;;
    *) echo "scripts/setup.sh: unknown argument $arg (expected --no-run or --tests)" >&2; exit 2 ;;
  esac
done
if [ -n "$tests" ]; then
  # The tests' dev-dependencies (fantoccini's, for the browser test) turn on features of
  # crates the host shares (syn, through it every proc macro, wasmtime, cranelift, sqlx), so
  # the binary `cargo build` makes and the one `cargo test` makes are two builds of
  # wasmtime: about 8 minutes of CI spent compiling it twice. Built the tests' way here,
  # `croupier` (target/release/croupier) is the very binary the tests then find up to date.
  echo "== building the croupier host and every test (release; wasmtime takes a few minutes the first time)"
  cargo test --release --workspace --no-run
else
  echo "== building the croupier host (release; wasmtime takes a few minutes the first time)"
  cargo build --release -p croupier-cli
fi
echo "== building the example agents into components"
CROUPIER="${CARGO_TARGET_DIR:-target}/release/croupier"
"$CROUPIER" build
"$CROUPIER" agents

if [ -n "$run_main" ]; then
  echo "== main job: source A, 1000 games of random-lead vs trump-tosser, 2 v 2, 52 cards, transfer"
  "$CROUPIER" match durak durak/random-lead durak/trump-tosser --rules teams --games 1000
fi
