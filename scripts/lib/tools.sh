# Installers for what some commands need beyond Rust, sourced by scripts/setup.sh (--all)
# and scripts/test.sh. Each installs only what is missing, never asks for a password (as root,
# or through `sudo -n`), and on failure says what it skipped and goes on: the build or test
# that needs the tool then names it.
#
# Nothing here is built from source: C agents need Debian's packages only (croupier carries
# the bindings generator and the component encoder), JavaScript agents npm packages, Python
# agents a PyPI package.

# The versions croupier is tested with. cli/src/componentize.rs names the same componentize-py,
# cli/src/js_agent.rs the same npm packages (a unit test keeps them in step with this file).
COMPONENTIZE_PY="componentize-py==0.25.1"
SCHEMATHESIS="schemathesis==4.32.5"
# componentize-qjs (QuickJS in a component, the default engine), esbuild (bundles an agent
# with the SDK and strips TypeScript), typescript (tsc type-checks TypeScript agents),
# componentize-js (SpiderMonkey, `engine = "spidermonkey"`; it imports preview2-shim without
# declaring it, so that is named too) and jco 1.34 (`jco types`; 1.35 cannot read files).
JS_NPM=(componentize-qjs@0.4.5 esbuild@0.28.2 typescript@5.9.3 @bytecodealliance/componentize-js@0.23.0 @bytecodealliance/jco@1.34.0 @bytecodealliance/preview2-shim@0.25.0)
# clang and lld for wasm32, wasi-libc, compiler-rt's wasm32 builtins, libc++ for WASI (C++).
C_DEBS=(clang lld wasi-libc libclang-rt-dev-wasm32 libc++-dev-wasm32)

# `apt-get install` of the packages given, with one `apt-get update` per run of the script.
apt_install() {
  local as_root=()
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      as_root=(sudo -n)
    else
      echo "warning: needs root: run \`apt-get install $*\`" >&2
      return 1
    fi
  fi
  command -v apt-get >/dev/null 2>&1 || { echo "warning: no apt-get: install $* by hand" >&2; return 1; }
  if [ -z "${TOOLS_APT_UPDATED:-}" ]; then
    "${as_root[@]}" apt-get update -qq || return 1
    TOOLS_APT_UPDATED=1
  fi
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# The Rust the host needs: the workspace's rust-version (Cargo.toml; wasmtime 49 needs 1.96).
host_rust_needed() { sed -n 's/^rust-version = "\([0-9.]*\)"$/\1/p' Cargo.toml | head -n 1; }

# A Rust version ("1.96", or `rustc -V`'s "rustc 1.95.0 (...)") as one number, 1096.
rust_version_number() { sed -n 's/^\(rustc \)\{0,1\}\([0-9]*\)\.\([0-9]*\).*/\2 \3/p' | { read -r a b && echo $((a * 1000 + b)); }; }

# When the Rust found (RUSTC, or the `rustc` on the PATH: rustup's) is older than the host
# needs, the host is built with Debian's rustc-web instead (bookworm's security archive has
# 1.96, where rustup here offers 1.95): installed if missing, as root or through `sudo -n`
# like every package here, exported as RUSTC for cargo, with its rustdoc as RUSTDOC (rustup's
# cannot read crates another rustc compiled, E0514: the doc tests would fail), and said in one
# line. It has no wasm32 standard library, so agents keep rustup's toolchain and its wasm32
# target: `croupier build` does not pass such a RUSTC on (cli/src/componentize.rs), and a
# script's own wasm32 build runs with `env -u RUSTC`. Returns 1, with a warning, when no Rust
# new enough could be had: the build then fails naming the version it needs.
use_host_rust() {
  local need found debian=/usr/bin/rustc how=""
  need=$(host_rust_needed)
  found=$("${RUSTC:-rustc}" -V 2>/dev/null || true)
  if [ -z "$need" ] || [ -z "$found" ] \
    || [ "$(rust_version_number <<<"$found")" -ge "$(rust_version_number <<<"$need")" ]; then
    return 0
  fi
  if ! { [ -x "$debian" ] && [ "$(rust_version_number < <("$debian" -V))" -ge "$(rust_version_number <<<"$need")" ]; }; then
    how=", installed now"
    apt_install rustc-web cargo-web || true
    if ! { [ -x "$debian" ] && [ "$(rust_version_number < <("$debian" -V))" -ge "$(rust_version_number <<<"$need")" ]; }; then
      echo "warning: ${found%% (*} is older than the $need the host needs, and apt-get install rustc-web gave none newer: install Rust $need or later (rustup update)" >&2
      return 1
    fi
  fi
  export RUSTC=$debian RUSTDOC=/usr/bin/rustdoc
  echo "== ${found%% (*} is older than the $need the host needs: the host builds with Debian's rustc-web $("$debian" -V | cut -d' ' -f2) (RUSTC=$debian$how), agents with rustup's wasm32 target"
}

# `cargo clippy` with the Rust use_host_rust chose. rustup's clippy cannot read crates that
# another rustc compiled (E0514), so with Debian's rustc it is Debian's clippy
# (rust-web-clippy, the same release), installed if missing.
host_clippy() {
  if [ "${RUSTC:-}" = /usr/bin/rustc ]; then
    [ -x /usr/bin/cargo-clippy ] || apt_install rust-web-clippy \
      || { echo "warning: apt-get install rust-web-clippy failed: no clippy for Debian's rustc" >&2; return 1; }
    /usr/bin/cargo-clippy clippy "$@"
  else
    cargo clippy "$@"
  fi
}

have_c() {
  command -v clang >/dev/null 2>&1 && command -v wasm-ld >/dev/null 2>&1 \
    && [ -f /usr/lib/wasm32-wasi/libc.a ] && [ -f /usr/lib/wasm32-wasi/libc++.a ]
}

have_js() {
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || return 1
  local have p
  have=$(npm ls -g --depth=0 2>/dev/null || true)
  for p in "${JS_NPM[@]}"; do grep -q -- " ${p}\$" <<<"$have" || return 1; done
}

have_python() { command -v componentize-py >/dev/null 2>&1; }

have_postgres() {
  command -v initdb >/dev/null 2>&1 || compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null
}

have_browser() { [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; }

have_slurm() { command -v slurmctld >/dev/null 2>&1 && command -v munged >/dev/null 2>&1; }

install_c() {
  have_c && return 0
  echo "== installing ${C_DEBS[*]} (C and C++ agents)"
  apt_install "${C_DEBS[@]}" || { echo "warning: C skipped: apt-get install ${C_DEBS[*]} failed" >&2; return 1; }
}

install_js() {
  have_js && return 0
  if ! { command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; }; then
    echo "== installing nodejs npm (JavaScript and TypeScript agents)"
    apt_install nodejs npm || { echo "warning: JavaScript skipped: no node and npm" >&2; return 1; }
  fi
  echo "== npm install -g ${JS_NPM[*]} (JavaScript and TypeScript agents; about 400 MB)"
  npm install -g --silent --no-audit --no-fund "${JS_NPM[@]}" \
    || { echo "warning: JavaScript skipped: npm install -g failed" >&2; return 1; }
}

install_python() {
  have_python && return 0
  echo "== pip install $COMPONENTIZE_PY (Python agents)"
  python3 -m pip install --quiet --disable-pip-version-check "$COMPONENTIZE_PY" \
    || { echo "warning: Python skipped: pip install $COMPONENTIZE_PY failed" >&2; return 1; }
}

# What only the tests need: PostgreSQL (the arena's PostgreSQL tests start their own server),
# Chromium and its driver (the browser test), SLURM and munge (scripts/test-slurm.sh),
# schemathesis (the API fuzz test), maturin (the wheel test).
install_test_only() {
  local missing=()
  have_postgres || missing+=(postgresql)
  have_browser || missing+=(chromium chromium-driver)
  have_slurm || missing+=(slurm-wlm munge)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing ${missing[*]} (PostgreSQL, browser and SLURM tests)"
    apt_install "${missing[@]}" || echo "warning: could not install ${missing[*]}; the tests that need them will fail" >&2
  fi
  local pips=()
  command -v st >/dev/null 2>&1 || pips+=("$SCHEMATHESIS")
  command -v maturin >/dev/null 2>&1 || pips+=("maturin>=1.9,<2")
  if [ ${#pips[@]} -gt 0 ]; then
    echo "== pip install ${pips[*]} (API fuzz and wheel tests)"
    python3 -m pip install --quiet --disable-pip-version-check "${pips[@]}" \
      || echo "warning: could not install ${pips[*]}; the tests that need them will fail" >&2
  fi
}

# One line per language whose toolchain is missing, with what `--all` would install.
say_what_all_adds() {
  local lines=()
  have_python || lines+=("  Python agents: pip install $COMPONENTIZE_PY")
  have_c || lines+=("  C and C++ agents: apt-get install ${C_DEBS[*]}")
  have_js || lines+=("  JavaScript and TypeScript agents: nodejs, npm, then npm install -g ${JS_NPM[*]}")
  echo "== not here (scripts/setup.sh --all adds them; the Rust agents and the main job need none):"
  [ ${#lines[@]} -eq 0 ] || printf '%s\n' "${lines[@]}"
}
