"""The import line a Java, C/C++, C# or Rust file needs for a project file's definitions: the class by its
package, the header by its include path, the type by its namespace, the item by its crate path; and where such a line goes when
the file has no import yet."""

from __future__ import annotations

import posixpath
import re

from steer_tui import lang
from steer_tui.project.index import cs_namespaces
from steer_tui.project.resolve import crate_root

_C_HEADER = (".h", ".hh", ".hpp", ".hxx", ".h++")
_C_SOURCE = (".c", ".cc", ".cpp", ".cxx", ".c++")
_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)
_INCLUDE_DEPTH = 4  # headers including headers: how far an include already in the file is followed


def line(key: str, path: str, text: str, source: str, names: list[str], index) -> str:
    """The line `path` (its text `text`) needs to reach `names` of the project file `source` (none:
    the Rust module itself); "" when it needs none (the same package or module, a header it includes
    already) or none can be written."""
    if key == "java":
        return _java(text, source, names, index)
    if key in ("c", "cpp"):
        return _c(path, source, names, index)
    if key == "rust":
        return _rust(path, source, names, index)
    if key == "csharp":
        return _csharp(path, text, source, index)
    return ""


def first_place(key: str, lines: list[str]) -> int | None:
    """Where a file with no import gets its first one: after Java's `package` line, after Rust's
    inner doc comments and attributes; None for the other languages (the caller's default)."""
    if key == "java":
        return next((i + 1 for i, ln in enumerate(lines) if _PACKAGE.match(ln)), 0)
    if key == "rust":
        at = 0
        for i, ln in enumerate(lines):
            if ln.lstrip().startswith(("//!", "#![")):
                at = i + 1
            elif ln.strip():
                break
        return at
    return None


def _read(index, rel: str) -> str:
    try:
        return (index.root / rel).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _java(text: str, source: str, names: list[str], index) -> str:
    if not source.endswith(".java"):
        return ""
    theirs = _PACKAGE.search(_read(index, source))
    ours = _PACKAGE.search(text)
    if theirs is None:
        return ""  # the default package cannot be imported from
    if ours is not None and ours.group(1) == theirs.group(1):
        names = [n for n in names if "." in n]  # the same package needs no import but of a nested type
    return "\n".join(f"import {theirs.group(1)}.{name};" for name in names)


def _csharp(path: str, text: str, source: str, index) -> str:
    """`using Shop.Models;` for a type of `source`'s namespace, unless the file is in it, in a
    namespace inside it (an enclosing namespace's types are in scope), or uses it already."""
    if not source.endswith(".cs"):
        return ""
    theirs = index.namespaces_of(source)
    if not theirs:
        return ""  # the global namespace: in scope everywhere
    namespace = theirs[0]
    if any(n == namespace or n.startswith(namespace + ".") for n in cs_namespaces(text)):
        return ""
    if namespace in {imp.module for imp in lang.outline(path, text)[1]}:
        return ""
    return f"using {namespace};"


def _c(path: str, source: str, names: list[str], index) -> str:
    header = source if source.endswith(_C_HEADER) else _header_of(source, names, index)
    if not header or header == path or header in _included(path, index):
        return ""
    parts = header.split("/")
    if "include" in parts[:-1]:  # include/net/x.h is "net/x.h" to a build that adds -Iinclude
        last = len(parts) - 1 - parts[::-1].index("include")
        written = "/".join(parts[last + 1:])
    else:
        written = posixpath.relpath(header, posixpath.dirname(path) or ".")
    return f'#include "{written}"'


def _header_of(source: str, names: list[str], index) -> str:
    """The header that declares `names` of a .c file: the one header of the project that does."""
    if not source.endswith(_C_SOURCE):
        return ""
    headers = {s.path for name in names for s in index.find(name) if s.path.endswith(_C_HEADER)}
    return headers.pop() if len(headers) == 1 else ""


def _included(path: str, index) -> set[str]:
    """The project headers `path` includes, and those they include, some levels deep."""
    seen: set[str] = set()
    frontier = [path]
    for _ in range(_INCLUDE_DEPTH):
        found = {imp.path for rel in frontier for imp in index.imports_of(rel) if imp.path} - seen
        if not found:
            break
        seen |= found
        frontier = list(found)
    return seen


def _rust(path: str, source: str, names: list[str], index) -> str:
    known = set(index.files())
    module = _crate_path(source, known)
    if module is None or module == _crate_path(path, known):
        return ""
    if not names:  # the module itself, for `money::format_cents`
        return f"use {module};"
    if len(names) == 1:
        return f"use {module}::{names[0]};"
    return f"use {module}::{{{', '.join(names)}}};"


def _crate_path(rel: str, known: set[str]) -> str | None:
    """`crate::a::b` for src/a/b.rs (or src/a/b/mod.rs) under the crate root above it."""
    folder = crate_root(rel, known)
    if folder is None:
        return None
    inner = posixpath.relpath(posixpath.splitext(rel)[0], folder or ".").split("/")
    if inner[-1] == "mod":
        inner = inner[:-1]
    if inner in ([], ["lib"], ["main"]):
        return "crate"
    return "::".join(["crate", *inner])
