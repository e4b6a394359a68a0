"""Definitions an answer wrote again: a method's rewrite that brings back its class, or a
function's rewrite that runs on into the functions after it.

Asked to rewrite one method, a small model sometimes writes back its whole class, or the file.
Where that text is not an exact copy of the lines around the region (steer_tui.edits.anchor strips
those), it lands in the method's place as classes nested in the class: `Stack.Stack`,
`Stack.Point`. No edit means that, so the answer is refused. Judged on the whole file, old against
new, only when both parse: Python by its `ast`, other languages by steer_tui.lang's definitions
(given the file's `path`; an unknown language has none). Pure: no I/O.
"""

from __future__ import annotations

import ast
from collections import Counter

from steer_tui import lang
from steer_tui.edits.pydefs import definitions
from steer_tui.edits.pytree import parse_tree
from steer_tui.edits.syntax import is_python

__all__ = ["copied_definitions", "restated_classes", "restated_definitions"]


def restated_classes(old: str, new: str, path: str | None = None) -> list[str]:
    """Names of the classes `new` nests somewhere `old` has none, that repeat an enclosing class's
    name or a top-level class of `old` (empty when either text does not parse)."""
    if _python(path):
        before, after = _classes(old), _classes(new)
    else:
        before, after = (None if (d := _layer(path, t)) is None else {x.qualname for x in d if x.kind in lang.TYPE_KINDS}
                         for t in (old, new))
    if before is None or after is None:
        return []
    top = {q for q in before if "." not in q}
    out = []
    for q in sorted(after):
        if q in before or "." not in q:
            continue
        parts = q.split(".")
        if parts[-1] in parts[:-1] or parts[-1] in top:
            out.append(q)
    return out


def _classes(text: str) -> set[str] | None:
    """Qualified names of every class (nested ones as Outer.Inner, through functions too)."""
    defs = definitions(text)
    return None if defs is None else {name for name, node in defs.items() if isinstance(node, ast.ClassDef)}


def restated_definitions(old: str, new: str, path: str | None = None) -> list[str]:
    """Qualified names of the functions and classes that `new` defines more often than `old` does,
    in the same module or class body, where `old` already defines them there: a region's rewrite
    that wrote the definitions next to it again (where they differ from the file's lines by a
    byte, steer_tui.edits.anchor cannot strip them as an echo), so each would be defined twice.
    Decorated definitions are not counted (property setters, overloads, registrations repeat a
    name by design), nor those under `if` or `try`. Empty when either text does not parse.
    In another language, functions and methods are counted by qualified name and first line (an
    overload has its own), not classes (a Rust `impl`, a Ruby class opens again by design)."""
    before, after = (_counts(old), _counts(new)) if _python(path) else (_layer_counts(path, old), _layer_counts(path, new))
    if before is None or after is None:
        return []
    twice = [q for q, n in after.items() if before.get(q, 0) and n > before[q]]
    return sorted(q if isinstance(q, str) else q[0] for q in twice)


def _counts(text: str) -> dict[str, int] | None:
    """How many undecorated functions and classes each module or class body defines, by qualified name."""
    tree = parse_tree(text)
    if tree is None:
        return None
    out: dict[str, int] = {}

    def walk(body, prefix: str) -> None:
        for node in body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            name = prefix + node.name
            if not node.decorator_list:
                out[name] = out.get(name, 0) + 1
            if isinstance(node, ast.ClassDef):
                walk(node.body, name + ".")

    walk(tree.body, "")
    return out


def copied_definitions(old: str, new: str, path: str | None = None) -> list[str]:
    """Qualified names of the methods `new` adds that are copies of a top-level function of `old`,
    the same name and the same code, with no `self` (nor a decorator), while `new` still has the
    function where it was: a method span's rewrite that ran on into the functions after the class
    (`Inventory.load` next to `load`). A move leaves no original behind and is not a copy; a method
    like one of another class (`Queue.is_empty` as `Stack.is_empty`) may be meant and is left
    alone. Empty when either text does not parse. In another language: the same name and the same
    body, line for line, whatever the method's first line (`fn load(` in an `impl`, `load(` in a class)."""
    if not _python(path):
        return _layer_copies(path, old, new)
    before, after = definitions(old), definitions(new)
    if before is None or after is None:
        return []
    out = []
    for q, node in after.items():
        name = q.rsplit(".", 1)[-1]
        if q in before or "." not in q or name not in before or name not in after:
            continue
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.decorator_list:
            continue
        first = (node.args.posonlyargs + node.args.args)[:1]
        if first and first[0].arg in ("self", "cls"):
            continue
        if ast.dump(before[name]) == ast.dump(node):
            out.append(q)
    return sorted(out)


def _python(path: str | None) -> bool:
    """Judged by Python's `ast`: a Python file, or no path (the callers that predate the layer)."""
    return path is None or is_python(path)


def _layer(path: str | None, text: str) -> list[lang.Definition] | None:
    """The layer's definitions of `text`; None for an unknown language or a text that does not parse."""
    if lang.language(path) is None or lang.syntax_errors(path, text):
        return None
    return lang.definitions(path, text)


def _layer_counts(path: str | None, text: str) -> dict[tuple[str, str], int] | None:
    """How many functions and methods `text` defines, by (qualified name, first line stripped)."""
    defs = _layer(path, text)
    if defs is None:
        return None
    lines = text.split("\n")
    return dict(Counter((d.qualname, lines[d.line].strip()) for d in defs if d.kind in lang.FUNCTION_KINDS))


def _layer_copies(path: str | None, old: str, new: str) -> list[str]:
    """copied_definitions by the layer: methods `new` adds whose body is that of a top-level function of
    `old` of their name, that `new` still has at the top level."""
    before, after = _layer(path, old), _layer(path, new)
    if before is None or after is None:
        return []
    old_lines, new_lines = old.split("\n"), new.split("\n")

    def body(d: lang.Definition, lines: list[str]) -> tuple[str, ...]:
        return tuple(x.strip() for x in lines[d.line + 1:d.end] if x.strip())

    tops = {d.name: body(d, old_lines) for d in before if d.depth == 0 and d.kind == "function"}
    still = {d.name for d in after if d.depth == 0 and d.kind == "function"}
    known = {d.qualname for d in before}
    return sorted(d.qualname for d in after
                  if d.depth > 0 and d.kind == "method" and d.qualname not in known and d.name in still
                  and d.name in tops and tops[d.name] and body(d, new_lines) == tops[d.name])
