"""Names a Python edit reads that nothing defines: the NameError the edit would raise when it runs.

A small model writes a call to a helper it imagines, a module-level list it never created
(`AUDIT_LOG.append(...)` where the project has an `audit()` function), or a parameter of the
function next door (`recipients` of `send_email`, read in `send_async_email`). The edit parses and
applies; it fails only when that line runs. Scopes are Python's own (`symtable`): a name counts
when a scope reads it as a global (not local, not from an enclosing function), the module binds it
nowhere (import, assignment, definition, loop or handler target, `global` in a function), it is no
builtin and no module dunder, and the text before the edit did not already read it so (a file that
relies on a name from elsewhere, such as one a framework injects, keeps doing so). A star import
may bind anything: nothing is reported. Pure: no I/O.
"""

from __future__ import annotations

import ast
import builtins
import symtable
import warnings

from steer_tui.edits.stdlib_imports import bound_names
from steer_tui.edits.syntax import parse_tree

__all__ = ["undefined_names"]

_BUILTINS = frozenset(dir(builtins)) | {"__file__", "__name__", "__doc__", "__spec__", "__loader__",
                                        "__package__", "__path__", "__builtins__", "__annotations__",
                                        "__class__", "__dict__", "__module__", "__qualname__"}


def _global_reads(text: str) -> set[str] | None:
    """The names some scope of `text` reads as globals that the module never binds; None when the
    text does not compile to a symbol table."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            top = symtable.symtable(text, "<edit>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    bound: set[str] = set()
    reads: set[str] = set()
    tables = [top]
    while tables:
        table = tables.pop()
        tables.extend(table.get_children())
        module = table is top
        for sym in table.get_symbols():
            name = sym.get_name()
            if (module and (sym.is_assigned() or sym.is_imported() or sym.is_namespace())) or (
                    sym.is_declared_global() and sym.is_assigned()):
                bound.add(name)
            if sym.is_referenced() and sym.is_global():
                reads.add(name)
    return reads - bound


def undefined_names(old: str, new: str, imports: str = "") -> list[str]:
    """The names `new` (with the import lines `imports` that will be added to it) reads that
    nothing in it binds, in the order the text first reads them; empty when either text does not
    parse."""
    text = imports + "\n" + new if imports else new
    tree, before_tree = parse_tree(text), parse_tree(old)
    # bound_names is None where a star import may bind any name
    if tree is None or before_tree is None or bound_names(tree) is None or bound_names(before_tree) is None:
        return []
    now, before = _global_reads(text), _global_reads(old)
    if now is None or before is None:
        return []
    names = now - before - _BUILTINS
    if not names:
        return []
    reads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names]
    return list(dict.fromkeys(n.id for n in sorted(reads, key=lambda n: (n.lineno, n.col_offset))))
