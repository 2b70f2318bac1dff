#!/usr/bin/env python3
"""Fails on a source file over 700 lines (docs/layout.md): a file that long holds more than
one concern. Exempt: the three rules engines (one game's rules read best in one place) and
tests (`tests/`, `tests.rs`).

    scripts/file-lengths.py [MAX]
"""
import os
import sys

CRATES = ["rules", "host", "tournament", "arena", "cli", "bench", "sdk"]
EXEMPT = {"rules/src/durak/engine.rs", "rules/src/toepen/engine.rs", "rules/src/uno/engine.rs"}


def main():
    cap = int(sys.argv[1]) if len(sys.argv) > 1 else 700
    long = []
    for crate in CRATES:
        for root, _, files in os.walk(os.path.join(crate, "src")):
            for f in files:
                path = os.path.join(root, f)
                if not f.endswith(".rs") or f == "tests.rs" or path in EXEMPT:
                    continue
                with open(path, encoding="utf-8") as fh:
                    n = sum(1 for _ in fh)
                if n > cap:
                    long.append((n, path))
    for n, path in sorted(long, reverse=True):
        print(f"{path}: {n} lines, over {cap}: split it by concern (docs/layout.md)")
    if long:
        sys.exit(1)
    print(f"no source file over {cap} lines but the rules engines")


if __name__ == "__main__":
    main()
