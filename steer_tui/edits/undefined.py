"""Names a Python edit reads that nothing defines: the NameError the edit would raise when it runs.

A small model writes a call to a helper it imagines, or a module-level list it never created
(`AUDIT_LOG.append(...)` where the project has an `audit()` function). The edit parses and applies;
it fails only when that line runs. A name counts when the edited text reads it free and binds it
nowhere (no import, assignment, parameter, definition, handler, loop or comprehension target,
`global`), it is no builtin and no module dunder, and the text before the edit did not already read
it free (a file that relies on a name from elsewhere, such as one a framework injects, keeps doing
so). A star import may bind anything: nothing is reported. Pure: no I/O.
"""

from __future__ import annotations

import ast
import builtins

from steer_tui.edits.stdlib_imports import bound_names
from steer_tui.edits.syntax import parse_tree

__all__ = ["undefined_names"]

_BUILTINS = frozenset(dir(builtins)) | {"__file__", "__name__", "__doc__", "__spec__", "__loader__",
                                        "__package__", "__path__", "__builtins__", "__annotations__",
                                        "__class__", "__dict__", "__module__", "__qualname__"}


def _read_free(tree: ast.AST) -> dict[str, None]:
    """Names `tree` reads, in the order the text first reads them."""
    reads = [node for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)]
    return {node.id: None for node in sorted(reads, key=lambda n: (n.lineno, n.col_offset))}


def undefined_names(old: str, new: str, imports: str = "") -> list[str]:
    """The names `new` (with the import lines `imports` that will be added to it) reads that
    nothing in it binds, in order of first read; empty when either text does not parse."""
    tree = parse_tree(imports + "\n" + new if imports else new)
    before = parse_tree(old)
    if tree is None or before is None:
        return []
    bound = bound_names(tree)
    if bound is None or bound_names(before) is None:
        return []
    had = set(_read_free(before)) - (bound_names(before) or set())
    return [name for name in _read_free(tree)
            if name not in bound and name not in _BUILTINS and name not in had]
