#!/usr/bin/env python3
"""The time of each test binary from cargo-nextest's JUnit report, as docs/testing.md's table.

Usage: scripts/test-times.py [target/nextest/default/junit.xml]
Prints one Markdown row per test binary, slowest first: its tests, the sum of their times
(what the binary costs the run's two cores), and its slowest test.
"""
import sys
import xml.etree.ElementTree as ET

path = sys.argv[1] if len(sys.argv) > 1 else "target/nextest/default/junit.xml"
root = ET.parse(path).getroot()
rows = []
for suite in root.iter("testsuite"):
    cases = [(float(c.get("time", "0")), c.get("name", "")) for c in suite.iter("testcase")]
    if not cases:
        continue
    total = sum(t for t, _ in cases)
    slowest = max(cases)
    rows.append((total, suite.get("name", "?"), len(cases), slowest))
rows.sort(reverse=True)
print("| binary | tests | sum of test times | slowest test |")
print("|---|---|---|---|")
for total, name, n, (t, case) in rows:
    print(f"| `{name}` | {n} | {total:.0f} s | `{case}` {t:.0f} s |")
print(f"| all | {sum(r[2] for r in rows)} | {sum(r[0] for r in rows):.0f} s | |")
