#!/usr/bin/env python3
"""Fails on an import cycle between the files of one crate.

    scripts/import-cycles.py [CRATE_DIR ...]     (default: every library and binary crate)

docs/layout.md promises that no file imports a file that imports it back. This reads each
crate's `src/` as the compiler would lay it out (`a/b.rs` or `a/b/mod.rs` is module
`a::b`) and draws an arrow A -> B for every path in A's code that names B's module: `use
crate::a::b::Item`, `crate::a::b::f()` in an expression or a macro, `super::x`, `self::x`,
a bare path into the file's own child module (`mod r;` then `r::f()` or `pub use r::X`)
and grouped `use crate::{a, b::c}`. A path names the deepest module it reaches, so an item
re-exported by `a/mod.rs` is an arrow to `a/mod.rs`. Declaring a child (`mod x;`) is no
arrow: a parent declares its children and may still be imported by them. Comments, string
literals, `#[cfg(test)]` modules (tests may reach anywhere), `macro_rules!` bodies and
`$crate::` paths (their paths resolve where the macro is expanded) are not read. Every cycle is printed
with the files that tie it, and the exit status is 1.

    scripts/import-cycles.py --self-test         (plants each kind of arrow in a scratch crate)
"""
import os
import re
import sys

CRATES = ["rules", "policy", "host", "tournament", "learn", "arena", "cli", "python", "bench", "sdk"]

# Folders of one crate that import one way, lowest first: a file may import its own wing
# and those below it, never one above (docs/layout.md).
WINGS = {"arena": ["store", "queue", "web"]}


def strip(text):
    """The code without comments, string or char literals, and `#[cfg(test)]` modules."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and not re.match(r"\w", text[i - 1:i] or " "):
            m = re.match(r'r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            out.append('""')
            i = n if end < 0 else end + 1 + len(m.group(1))
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            out.append('""')
            i += 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4]) or text.startswith("'\\u{", i):
            i = text.find("'", i + 2) + 1
            out.append("' '")
        else:
            out.append(c)
            i += 1
    code = "".join(out)
    # Drop `#[cfg(test)] mod name { ... }` bodies and `macro_rules!` bodies (whose paths
    # resolve where the macro is expanded, not here) by brace matching.
    while True:
        m = re.search(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{|macro_rules!\s*\w+\s*\{", code)
        if not m:
            return code
        depth, j = 1, m.end()
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        code = code[:m.start()] + code[j:]


def modules(src):
    """Module path (tuple) -> file, for every .rs file under src."""
    mods = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(root, f), src)[:-3].split(os.sep)
            if rel in (["lib"], ["main"]):
                path = ()
            elif rel[-1] == "mod":
                path = tuple(rel[:-1])
            else:
                path = tuple(rel)
            if rel[0] == "bin" or path and path[0] == "bin":
                continue
            mods[path] = os.path.join(root, f)
    return mods


def expand(prefix, body):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e'] (prefix included)."""
    parts, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        cur += ch
    parts.append(cur)
    paths = []
    for p in (p.strip() for p in parts):
        if not p:
            continue
        m = re.match(r"([\w:]*?)(::)?\{(.*)\}$", p, re.S)
        if m:
            paths += expand(prefix + m.group(1) + "::", m.group(3))
        else:
            paths.append(prefix + p.split(" as ")[0].strip())
    return paths


PATH = re.compile(r"(?<![\w:$])(crate|super|self)((?:::\w+)+)")
GROUP = re.compile(r"(?<![\w:$])((?:crate|super|self)(?:::\w+)*)::\{")


def imports(code, here, mods):
    """The module paths this file's code names, resolved to modules that have a file."""
    found = []
    for m in GROUP.finditer(code):
        depth, j = 1, m.end()
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        found += expand(m.group(1) + "::", code[m.end():j - 1])
    found += [m.group(1) + m.group(2) for m in PATH.finditer(code)]
    # Bare paths into this file's own child modules (`mod remote;` then `remote::Remote` or
    # `use remote::{..}`), which Rust resolves from here.
    children = set(re.findall(r"(?<![\w:])mod\s+(\w+)\s*;", code))
    for child in children:
        for m in re.finditer(r"(?<![\w:$])" + child + r"::(\{)?", code):
            if m.group(1):
                depth, j = 1, m.end()
                while j < len(code) and depth:
                    depth += {"{": 1, "}": -1}.get(code[j], 0)
                    j += 1
                found += expand("self::" + child + "::", code[m.end():j - 1])
            else:
                found.append("self::" + child + "::" + re.match(r"[\w:]*", code[m.end():]).group(0))
    targets = set()
    # A file's own module path; `super` of `a/b.rs` is `a`, of `a/b/mod.rs` also `a`.
    for p in found:
        segs = p.split("::")
        base = list(here)
        while segs and segs[0] in ("crate", "self", "super"):
            s = segs.pop(0)
            if s == "crate":
                base = []
            elif s == "super":
                base = base[:-1]
        full = base + [s for s in segs if s]
        # The deepest module with a file.
        for k in range(len(full), -1, -1):
            if tuple(full[:k]) in mods:
                targets.add(tuple(full[:k]))
                break
    targets.discard(tuple(here))
    return targets


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check(crate_dir):
    src = os.path.join(crate_dir, "src")
    mods = modules(src)
    graph = {}
    for path, f in mods.items():
        with open(f, encoding="utf-8") as fh:
            code = strip(fh.read())
        graph[path] = imports(code, path, mods)
    found = cycles(graph)
    name = lambda p: os.path.relpath(mods[p])
    wings = WINGS.get(os.path.basename(os.path.abspath(crate_dir)), [])
    against = 0
    rank = lambda p: wings.index(p[0]) if p and p[0] in wings else None
    for p in sorted(graph):
        for q in sorted(graph[p]):
            if rank(p) is not None and rank(q) is not None and rank(q) > rank(p):
                print(f"{name(p)} imports {name(q)}: the {p[0]} wing must not import the {q[0]} wing")
                against += 1
    for comp in found:
        members = set(comp)
        print(f"import cycle in {crate_dir}: " + ", ".join(name(p) for p in comp))
        for p in comp:
            for q in sorted(graph[p] & members):
                print(f"  {name(p)} -> {name(q)}")
    return len(found) + against, len(mods)


def self_test():
    """Each case is a scratch crate: files, and whether a cycle must be found."""
    import tempfile
    cases = {
        "use of an item": ({"lib": "mod a; mod b;", "a": "use crate::b::X;", "b": "use crate::a::Y;"}, True),
        "grouped use": ({"lib": "", "a": "use crate::{c, b::{X, Y}};", "b": "fn f() { crate::a::g(); }", "c": ""}, True),
        "super from a folder": ({"lib": "", "q/mod": "pub use self::j::J; mod j;", "q/j": "use super::Job;"}, True),
        "a path in a macro": ({"lib": "", "a": "on_pool!(crate::b::run());", "b": "use crate::a::A;"}, True),
        "a declared child": ({"lib": "", "q/mod": "pub mod j; pub struct Job;", "q/j": "use super::Job;"}, False),
        "a child re-exported": ({"lib": "", "w": "mod r; pub use r::{R, S};", "w/r": "use super::Queue;"}, True),
        "a child named bare": ({"lib": "", "w": "mod r; fn f() { r::go(); }", "w/r": "use super::Queue;"}, True),
        "comments and strings": ({"lib": "", "a": "// crate::b::X\n/* crate::b */ const S: &str = \"crate::b::X\";",
                                  "b": "use crate::a::S;"}, False),
        "a test module": ({"lib": "", "a": "#[cfg(test)]\nmod tests { use crate::b::X; }", "b": "use crate::a::S;"}, False),
        "a macro's body": ({"lib": "", "c/mod": "mod v; macro_rules! g { () => { super::game_info(); } }", "c/v": "super::g!();"}, False),
        "arena: a wing above": ({"lib": "", "store/mod": "pub mod db;", "store/db": "use crate::web::x;",
                                 "web/mod": "pub mod x;", "web/x": ""}, True),
        "arena: a wing below": ({"lib": "", "store/mod": "pub mod db;", "store/db": "",
                                 "web/mod": "pub mod x;", "web/x": "use crate::store::db::Db;"}, False),
        "a macro's $crate": ({"lib": "pub mod p { pub use crate::g::*; }", "g": "macro_rules! m { () => { $crate::p::X } }"}, False),
    }
    failed = 0
    for name, (files, cyclic) in cases.items():
        with tempfile.TemporaryDirectory() as t:
            # Named `arena`, so that its wings are checked (WINGS).
            d = os.path.join(t, "arena")
            for f, text in files.items():
                path = os.path.join(d, "src", f + ".rs")
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as fh:
                    fh.write(text.replace("\\n", "\n"))
            import io, contextlib
            with contextlib.redirect_stdout(io.StringIO()):
                n, _ = check(d)
        if (n > 0) != cyclic:
            print(f"self-test: {name}: {'missed the cycle' if cyclic else 'saw a cycle that is not there'}")
            failed += 1
    if failed:
        sys.exit(1)
    print(f"self-test: {len(cases)} cases right")


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    crates = sys.argv[1:] or [c for c in CRATES if os.path.isdir(c)]
    total, files = 0, 0
    for c in crates:
        n, f = check(c)
        total += n
        files += f
    if total:
        print(f"{total} import cycle(s) or imports against a wing; a file must not import a file that imports it back "
              "(docs/layout.md): move what both need into a leaf module")
        sys.exit(1)
    print(f"no import cycle in {len(crates)} crates ({files} files)")


if __name__ == "__main__":
    main()
