#!/usr/bin/env python3
"""The time of each test file from cargo-nextest's JUnit report, as docs/testing.md's table.

Usage: scripts/test-times.py [target/nextest/default/junit.xml]
Prints one Markdown row per test module of an integration test binary (`croupier-cli::cli
arena`: the tests of cli/tests/cli/arena.rs, whose paths begin `arena::`) and per other test
binary (unit tests), slowest first: its tests, the sum of their times (what it costs the
run's two cores), and its slowest test.
"""
import sys
import xml.etree.ElementTree as ET

path = sys.argv[1] if len(sys.argv) > 1 else "target/nextest/default/junit.xml"
root = ET.parse(path).getroot()
groups = {}
for suite in root.iter("testsuite"):
    binary = suite.get("name", "?")
    for c in suite.iter("testcase"):
        name = c.get("name", "")
        key = binary
        # An integration test binary (`package::binary`, not `package::bin/name`) holds one
        # module per file.
        if "::" in binary and "/" not in binary and "::" in name:
            key = f"{binary} {name.split('::', 1)[0]}"
        groups.setdefault(key, []).append((float(c.get("time", "0")), name))
rows = []
for key, cases in groups.items():
    rows.append((sum(t for t, _ in cases), key, len(cases), max(cases)))
rows.sort(reverse=True)
print("| binary and module | tests | sum of test times | slowest test |")
print("|---|---|---|---|")
for total, name, n, (t, case) in rows:
    print(f"| `{name}` | {n} | {total:.0f} s | `{case}` {t:.0f} s |")
print(f"| all | {sum(r[2] for r in rows)} | {sum(r[0] for r in rows):.0f} s | |")
