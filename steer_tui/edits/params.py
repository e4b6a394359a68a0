"""Parameters an edit gave a Python function that its body never uses (`def f(x, sep=" ")`, `sep` unread).

Asked to add a parameter, the small model sometimes adds it to the signature and leaves the body
as it was: the edit parses and changes nothing the caller can see. Judged on the whole file, old
against new, by qualified name, for functions both texts define and whose new body has code.
Pure: no I/O.
"""

from __future__ import annotations

import ast

from steer_tui.edits.hollow import trivial
from steer_tui.edits.pydefs import definitions

__all__ = ["unused_new_parameters"]


def unused_new_parameters(old: str, new: str) -> list[tuple[str, str]]:
    """(function's qualified name, parameter) for each named parameter `new` gives a function of
    `old` that the new body never reads. `*args`, `**kwargs` and names starting with `_` are
    left alone (often kept for callers), as are stubs. Empty when either text does not parse."""
    before, after = definitions(old), definitions(new)
    if before is None or after is None:
        return []
    out = []
    for name, node in after.items():
        was = before.get(name)
        if isinstance(node, ast.ClassDef) or was is None or isinstance(was, ast.ClassDef):
            continue
        if all(trivial(stmt) for stmt in node.body):
            continue
        had = set(_named(was))
        new_params = [p for p in _named(node) if p not in had and not p.startswith("_")]
        if not new_params:  # most functions: nothing to look for in the body
            continue
        read = {n.id for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.Name)}
        out += [(name, p) for p in new_params if p not in read]
    return out


def _named(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    args = node.args
    return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
