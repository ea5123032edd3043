#!/usr/bin/env python3
"""Lists the file circles of a Rust crate: two files each naming items of the other.

A reference is an explicit path: `crate::a::b::Item`, `$crate::a::Item`, `super::Item` or a
`use crate::{a::Item, ...}` tree. A path to a module points at that module's file; a path to an
item at the crate root (`crate::Item`, a re-export) points at the file that declares the item.
Glob imports (`use crate::*`) name nothing in particular and are not followed, unless
`--names` is given: then a file with a glob import from the crate (`use crate::*`,
`use crate::prelude::*`) also points at the file declaring each capitalised name it mentions.

Usage: file_circles.py [--names] CRATE_SRC_DIR [...]   (exit status 1 when a circle is found)
"""

import re
import sys
from pathlib import Path

DECL = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|trait|type|fn|const|static|union|macro_rules!)\s+(\w+)"
    r"|^\s*pub\s+(?:struct|enum)\s+(\w+)",  # also inside the declaring macros (wire_object! ...)
    re.M,
)
PATH = re.compile(r"(?<![\w:])\$?(crate|super)((?:::\w+)+)")
USE_TREE = re.compile(r"\buse\s+crate::\{([^;]*)\};", re.S)
INLINE_MOD = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", re.M)
COMMENT = re.compile(r"//.*")


def module_of(src: Path, file: Path) -> tuple:
    parts = list(file.relative_to(src).with_suffix("").parts)
    if parts in (["lib"], ["main"]):
        return ()
    if parts[-1] == "mod":
        parts = parts[:-1]
    return tuple(parts)


GLOB = re.compile(r"\buse\s+crate::(?:\w+::)*\*;")
NAME = re.compile(r"\b[A-Z]\w*\b")


def crate_circles(src: Path, names: bool = False) -> list:
    files = {module_of(src, f): f for f in sorted(src.rglob("*.rs"))}
    texts = {m: COMMENT.sub("", f.read_text()) for m, f in files.items()}
    declared = {}
    for module, text in texts.items():
        for match in DECL.finditer(text):
            declared.setdefault(match.group(1) or match.group(2), module)

    def target(base: tuple, segments: list):
        """The module file a path names: its longest module prefix, or a declaring file."""
        module = base
        for segment in segments:
            if module + (segment,) in files:
                module = module + (segment,)
            else:
                if module == () and segment in declared:
                    return declared[segment]
                break
        return module

    edges = {m: set() for m in files}
    for module, text in texts.items():
        inline = INLINE_MOD.search(text)  # `super::` inside an inline module means this file
        for match in PATH.finditer(text):
            segments = match.group(2).split("::")[1:]
            if match.group(1) == "crate":
                to = target((), segments)
            elif inline and match.start() > inline.start():
                continue
            else:
                to = target(module[:-1], segments)
            edges[module].add(to)
        for match in USE_TREE.finditer(text):
            for item in re.split(r"[,{}]", match.group(1)):
                head = item.strip().split("::")
                if head[0]:
                    edges[module].add(target((), head))
        if names and GLOB.search(text):
            for name in set(NAME.findall(text)):
                if declared.get(name, module) != module:
                    edges[module].add(declared[name])
    circles = []
    for a in files:
        for b in edges[a]:
            if a < b and b != a and a in edges.get(b, ()):
                circles.append((files[a], files[b]))
    return circles


def main() -> int:
    args = sys.argv[1:]
    names = "--names" in args
    found = 0
    for arg in [a for a in args if a != "--names"] or ["src"]:
        src = Path(arg)
        for a, b in crate_circles(src, names):
            print(f"{a.relative_to(src)} <-> {b.relative_to(src)}")
            found += 1
    print(f"{found} file circle(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
