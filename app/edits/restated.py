"""Definitions an answer wrote again: a method's rewrite that brings back its class, or a
function's rewrite that runs on into the functions after it.

Asked to rewrite one method, a small model sometimes writes back its whole class, or the file.
Where that text is not an exact copy of the lines around the region (app.edits.anchor strips
those), it lands in the method's place as classes nested in the class: `Stack.Stack`,
`Stack.Point`. No edit means that, so the answer is refused. Judged on the whole Python file,
old against new; only when both parse. Pure: no I/O.
"""

from __future__ import annotations

import ast

from app.edits.pydefs import definitions

__all__ = ["copied_definitions", "restated_classes", "restated_definitions"]


def restated_classes(old: str, new: str) -> list[str]:
    """Names of the classes `new` nests somewhere `old` has none, that repeat an enclosing class's
    name or a top-level class of `old` (empty when either text does not parse)."""
    before, after = _classes(old), _classes(new)
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


def restated_definitions(old: str, new: str) -> list[str]:
    """Qualified names of the functions and classes that `new` defines more often than `old` does,
    in the same module or class body, where `old` already defines them there: a region's rewrite
    that wrote the definitions next to it again (where they differ from the file's lines by a
    byte, app.edits.anchor cannot strip them as an echo), so each would be defined twice.
    Decorated definitions are not counted (property setters, overloads, registrations repeat a
    name by design), nor those under `if` or `try`. Empty when either text does not parse."""
    before, after = _counts(old), _counts(new)
    if before is None or after is None:
        return []
    return sorted(q for q, n in after.items() if before.get(q, 0) and n > before[q])


def _counts(text: str) -> dict[str, int] | None:
    """How many undecorated functions and classes each module or class body defines, by qualified name."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
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


def copied_definitions(old: str, new: str) -> list[str]:
    """Qualified names of the functions and classes `new` adds that are copies of a definition of
    `old` found elsewhere, the same name and the same code, that `new` still has where it was: a
    span's rewrite that wrote the functions after it into the class (`Inventory.load` next to
    `load`). A move leaves no original behind and is not a copy. Empty when either text does not
    parse."""
    before, after = definitions(old), definitions(new)
    if before is None or after is None:
        return []
    by_name: dict[str, list[str]] = {}
    for q in before:
        by_name.setdefault(q.rsplit(".", 1)[-1], []).append(q)
    out = []
    for q, node in after.items():
        if q in before:
            continue
        same = ast.dump(node)
        if any(o in after and ast.dump(before[o]) == same for o in by_name.get(q.rsplit(".", 1)[-1], [])):
            out.append(q)
    return sorted(out)
