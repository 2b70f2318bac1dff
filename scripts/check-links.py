#!/usr/bin/env python3
"""Fails on a reference to a file of the repository that does not exist, or to a heading that
a markdown file does not have.

    scripts/check-links.py              (the repository this script is in)
    scripts/check-links.py DIR          (another tree)
    scripts/check-links.py --self-test  (plants a broken link, a broken anchor and a missing
                                         file in a scratch tree and checks each is caught)

What counts as a reference, in the docs (`*.md`) and in source files (`*.rs`, `*.py`, `*.js`,
`*.ts`, `*.c`, `*.h`, `*.sh`, `*.toml`, `*.wit`), with `target/`, `node_modules/`, `.git/` and
other hidden folders left out:

- in markdown, every relative link `[text](path)`, `[text](path#anchor)` or `[text](#anchor)`,
  resolved from the file's folder;
- anywhere, a path to a markdown file written out, `docs/rules/durak.md#transfer`, resolved
  from the repository's root or from the file's folder, and a bare name such as `RULES.md`,
  which must be the name of some markdown file in the tree.

An anchor must be the GitHub anchor of a heading of that file (lower case, spaces to `-`,
punctuation dropped, `-1`, `-2` for repeated headings) or an explicit `<a id="...">`.

The one exception: the contract folders `wit/v0.1/`, `wit/v0.2/` and `wit/v0.3/` are frozen
(docs/versioning.md#publishing-the-next-version-the-steps-file-by-file) and still cite
`RULES.md`, the shared rule book the repository replaced with docs/rules/. They may cite that
name and nothing else that is missing; a new version's folder must cite docs/rules/. This
script is not read either: its self-test plants broken references in its own text.
"""

import os
import re
import sys

SOURCE_EXTS = (".rs", ".py", ".js", ".ts", ".c", ".h", ".sh", ".toml", ".wit")
SKIP_DIRS = {"target", "node_modules", "__pycache__"}
FROZEN = {("wit/v0.1/", "RULES.md"), ("wit/v0.2/", "RULES.md"), ("wit/v0.3/", "RULES.md")}

URL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://[^\s)>\]`'\"]+")
# A markdown link or image: [text](target) with an optional title.
MD_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
# A path to a markdown file: segments of letters, digits, `.`, `_`, `-`, then `.md`.
MD_PATH = re.compile(r"(?<![\w/.\-@~$])((?:\.{1,2}/)*(?:[\w.\-]+/)*[\w\-]+(?:\.[\w\-]+)*\.md)(#[\w\-]+)?(?![\w/])")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
EXPLICIT_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")


def slug(text):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def numbered_lines(path):
    """`(line number, line)` for every line of a file; in markdown, the lines of code blocks
    are left out."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        lines = fh.read().split("\n")
    fence = None
    for i, line in enumerate(lines, 1):
        if path.endswith(".md"):
            stripped = line.lstrip()
            if stripped.startswith(("```", "~~~")):
                mark = stripped[:3]
                fence = None if fence == mark else (fence or mark)
                continue
            if fence:
                continue
        yield i, line


def anchors_of(path, cache):
    if path not in cache:
        found, seen = set(), {}
        for _, line in numbered_lines(path):
            found.update(EXPLICIT_ANCHOR.findall(line))
            m = HEADING.match(line)
            if m:
                s = slug(m.group(2))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else f"{s}-{n}")
        cache[path] = found
    return cache[path]


def walk(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith("."))
        for f in sorted(files):
            if f.endswith(".md") or f.endswith(SOURCE_EXTS):
                yield os.path.join(d, f)


def check(root):
    """Returns the list of problems, each `file:line: message`."""
    root = os.path.abspath(root)
    files = list(walk(root))
    md_names = {os.path.basename(f) for f in files if f.endswith(".md")}
    cache, problems, counted = {}, [], [0]

    def target_ok(rel, where, ref, line_no, bases):
        counted[0] += 1
        path, _, anchor = ref.partition("#")
        if not path:
            candidates = [where]
        else:
            candidates = [os.path.normpath(os.path.join(b, path)) for b in bases]
        hit = next((c for c in candidates if os.path.exists(c)), None)
        if hit is None:
            if "/" not in path and path in md_names:
                return  # a bare name of a markdown file that exists somewhere in the tree
            if any(rel.startswith(d) and path == name for d, name in FROZEN):
                return
            problems.append(f"{rel}:{line_no}: {ref}: no such file")
            return
        if anchor and hit.endswith(".md") and os.path.isfile(hit):
            if anchor not in anchors_of(hit, cache):
                problems.append(f"{rel}:{line_no}: {ref}: no heading with the anchor #{anchor}")

    me = os.path.abspath(__file__)
    for f in files:
        if os.path.abspath(f) == me:
            continue
        rel = os.path.relpath(f, root)
        here = os.path.dirname(f)
        is_md = f.endswith(".md")
        for i, line in numbered_lines(f):
            text = URL.sub(" ", line)
            linked = set()
            if is_md:
                for m in MD_LINK.finditer(text):
                    ref = m.group(1)
                    if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", ref):
                        continue  # mailto:, a scheme without //
                    linked.add(m.span(1))
                    target_ok(rel, f, ref, i, [here])
            for m in MD_PATH.finditer(text):
                if any(a <= m.start(1) < b for a, b in linked):
                    continue
                ref = m.group(1) + (m.group(2) or "")
                target_ok(rel, f, ref, i, [root, here])
    check.counted = (counted[0], len(files))
    return problems


def self_test():
    """A scratch tree with one good reference of each kind and four planted faults."""
    import tempfile

    files = {
        "docs/guide.md": "# Guide\n\n## The first part\n\n## Who may throw in?\n",
        "README.md": (
            "See [the guide](docs/guide.md#the-first-part) and [why](docs/guide.md#who-may-throw-in).\n"
            "Planted: [gone](docs/gone.md) and [a bad anchor](docs/guide.md#the-second-part).\n"
            "```\n[inside a code block](nothing.md)\n```\n"
            "A URL is not a file: https://example.com/x/RULES.md\n"
        ),
        "src/lib.rs": (
            "//! The rules, docs/guide.md#the-first-part, and guide.md by name.\n"
            "//! Planted: docs/guide.md#nowhere, and RULES.md.\n"
        ),
        "wit/v0.1/x.wit": "/// Frozen: RULES.md is allowed here, MISSING.md is not.\n",
    }
    expected = {
        "README.md:2: docs/gone.md",
        "README.md:2: docs/guide.md#the-second-part",
        "src/lib.rs:2: docs/guide.md#nowhere",
        "src/lib.rs:2: RULES.md",
        "wit/v0.1/x.wit:1: MISSING.md",
    }
    with tempfile.TemporaryDirectory() as t:
        for name, text in files.items():
            path = os.path.join(t, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as fh:
                fh.write(text)
        found = {p.split(": ")[0] + ": " + p.split(": ")[1] for p in check(t)}
    missed, extra = expected - found, found - expected
    for p in sorted(missed):
        print(f"self-test: missed {p}")
    for p in sorted(extra):
        print(f"self-test: flagged a good reference: {p}")
    if missed or extra:
        sys.exit(1)
    print(f"self-test: {len(expected)} planted faults caught, no good reference flagged")


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"check-links: {len(problems)} broken references", file=sys.stderr)
        sys.exit(1)
    refs, files = check.counted
    print(f"check-links: {refs} references in {files} files, each to a file and heading that exist")


if __name__ == "__main__":
    main()
