#!/usr/bin/env bash
# `pip install croupier` as a student meets it: builds the wheel (scripts/wheel.sh), installs
# it into a fresh venv, then, with no Rust toolchain on the PATH and (as root) this source
# tree hidden under an empty tmpfs in a mount namespace of its own, so that nothing can
# quietly come from the checkout:
#   croupier new durak bot --lang python, the generated README's build command,
#   python3 -m unittest, and a 50-game match against durak/cheapest with no fault;
#   the SDK imports from the installed package;
#   croupier.env's tests (python/tests/test_env.py, with PettingZoo's API and seed tests),
#   with the student's Python agent and the JavaScript and C example agents as sandboxed
#   opponents. Fails when maturin is missing unless
# CROUPIER_REQUIRE_WHEEL=0, which skips on purpose.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
case $target in /*) ;; *) target=$repo/$target ;; esac
skip_or_fail() {
  if [ "${CROUPIER_REQUIRE_WHEEL:-1}" = 0 ]; then
    echo "test-wheel: $1; skipped (CROUPIER_REQUIRE_WHEEL=0)"
    exit 0
  fi
  echo "test-wheel: $1 (CROUPIER_REQUIRE_WHEEL=0 skips this on purpose)" >&2
  exit 1
}
command -v maturin >/dev/null 2>&1 || skip_or_fail "maturin is missing: pip install 'maturin>=1.9,<2'"

rm -f "$target"/wheels/croupier-*.whl
"$repo/scripts/wheel.sh" >"$target/wheel-build.log" 2>&1 \
  || { cat "$target/wheel-build.log" >&2; echo "test-wheel: scripts/wheel.sh failed" >&2; exit 1; }
wheel=$(ls "$target"/wheels/croupier-*.whl)
work=$(mktemp -d /tmp/croupier-wheel.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "test-wheel: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) KiB"
python3 -m venv "$work/venv"
# componentize-py comes with it, from PyPI: the wheel declares it.
"$work/venv/bin/pip" install --quiet --disable-pip-version-check "$wheel[env]" \
  pytest==8.4.2 pettingzoo==1.27.0 gymnasium==1.4.0
cp "$repo/python/tests/test_env.py" "$repo/python/tests/test_policy.py" \
  "$repo/python/tests/test_train.py" "$repo/examples/train/durak.py" "$work/"
# The JavaScript and C example agents as `croupier build` made them for the tests.
for a in "$target"/agents/durak/js-first.wasm "$target"/agents/durak/ts-cheapest.wasm "$target"/agents/durak/c-cheapest.wasm; do
  if [ -f "$a" ]; then
    cp "$a" "$work/"
  elif [ "${CROUPIER_REQUIRE_JS:-0}" = 1 ] && [ "${CROUPIER_REQUIRE_C:-0}" = 1 ]; then
    echo "test-wheel: $a is missing (croupier build makes it)" >&2
    exit 1
  fi
done

cat >"$work/student.sh" <<'STUDENT'
set -euo pipefail
cd "$WORK"
for tool in cargo rustc rustup; do
  if command -v "$tool" >/dev/null 2>&1; then echo "test-wheel: $tool is on the PATH" >&2; exit 1; fi
done
bin=$(command -v croupier)
case $bin in "$WORK"/venv/bin/croupier) ;; *) echo "test-wheel: croupier is $bin, not the venv's" >&2; exit 1 ;; esac
ext=$(python3 -c 'import croupier._native as n; print(n.__file__)')
if readelf -S "$ext" | grep -q '\.symtab'; then echo "test-wheel: $ext is not stripped" >&2; exit 1; fi
echo "test-wheel: $ext: $(du -k "$ext" | cut -f1) KiB, stripped"
croupier --version
# The SDK from the installed package, outside any project (its types for an editor).
python3 -c 'import croupier, croupier.durak, sys; assert "site-packages" in croupier.__file__, croupier.__file__; print("test-wheel: SDK at", croupier.__file__)'
croupier new durak bot --lang python >/dev/null
cd bot
# Each command the generated README gives, in its order.
grep -E '^(croupier build|python3 -m unittest)' README.md >commands.sh
[ "$(wc -l <commands.sh)" = 2 ] || { echo "test-wheel: the README's commands changed:" >&2; cat commands.sh >&2; exit 1; }
bash -euo pipefail commands.sh
croupier match durak agents/durak/bot.wasm durak/cheapest --games 50 --json result.json >/dev/null
python3 - <<'CHECK'
import json
r = json.load(open("result.json"))
games = r.get("games")
faults = sum(a["faults"] for a in r["agents"])
assert games == 50, f"{games} games, not 50: {r}"
assert faults == 0, f"{faults} faults: {r}"
print(f"test-wheel: 50 games of bot v durak/cheapest, no fault")
CHECK
# The environments, with the student's agent and every other language's as opponents.
agents="$PWD/agents/durak/bot.wasm"
for a in "$WORK"/js-first.wasm "$WORK"/ts-cheapest.wasm "$WORK"/c-cheapest.wasm; do
  [ -f "$a" ] && agents="$agents
$a"
done
echo "test-wheel: sandboxed opponents: $(echo "$agents" | xargs -n1 basename | tr '\n' ' ')"
cd "$WORK"
CROUPIER_TEST_AGENTS="$agents" python3 -m pytest -q -p no:cacheprovider test_env.py test_policy.py test_train.py
STUDENT

sys_path=/usr/local/bin:/usr/bin:/bin
if [ -e /usr/bin/cargo ] || [ -e /usr/bin/rustc ]; then
  # Debian's rustc-web, which builds the host where rustup's Rust is too old
  # (scripts/lib/tools.sh), is in /usr/bin; a student has no Rust, system or rustup, so the
  # student's PATH has /usr/bin's other programs only (/bin is /usr/bin on Debian).
  mkdir "$work/usr-bin"
  ln -s /usr/bin/* "$work/usr-bin/"
  rm -f "$work"/usr-bin/{cargo,rustc,rustdoc,cargo-clippy,clippy-driver}
  sys_path=/usr/local/bin:$work/usr-bin
  [ -L /bin ] || sys_path=$sys_path:/bin
fi
clean_env=(env -i "HOME=$work" "WORK=$work" "PATH=$work/venv/bin:$sys_path" "TMPDIR=/tmp")
if [ "$(id -u)" = 0 ] && unshare --mount --propagation private true 2>/dev/null; then
  # Hide the checkout, and with it the compile-time paths a binary could still read.
  hide="mount -t tmpfs tmpfs '$repo'"
  for d in "$HOME/.cargo" "$HOME/.rustup"; do
    [ -d "$d" ] && hide="$hide && mount -t tmpfs tmpfs '$d'"
  done
  unshare --mount --propagation private sh -c "$hide && exec ${clean_env[*]} bash '$work/student.sh'"
else
  echo "test-wheel: no mount namespace here (not root, or not allowed): the source tree stays visible to the installed croupier"
  "${clean_env[@]}" bash "$work/student.sh"
fi
echo "test-wheel: passed"
