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
from functools import lru_cache

from steer_tui.edits.stdlib_imports import bound_names, caught_or_matched
from steer_tui.edits.pytree import nodes, parse_tree

__all__ = ["undefined_names"]

_BUILTINS = frozenset(dir(builtins)) | {"__file__", "__name__", "__doc__", "__spec__", "__loader__",
                                        "__package__", "__path__", "__builtins__", "__annotations__",
                                        "__class__", "__dict__", "__module__", "__qualname__"}


def _global_reads(text: str, tree: ast.Module) -> set[str] | None:
    """The names some scope of `text` (parsed: `tree`) reads as globals that the module never
    binds; None when the text does not compile to a symbol table. The module's own scope is read
    from the tree: symtable's lookup of a module symbol scans every child scope, which made a
    20,000-line file take seconds; the functions' and classes' scopes come from symtable."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            top = symtable.symtable(text, "<edit>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    bound, reads = _module_scope(tree)
    tables = list(top.get_children())
    while tables:
        table = tables.pop()
        tables.extend(table.get_children())
        for sym in table.get_symbols():
            if sym.is_declared_global() and sym.is_assigned():
                bound.add(sym.get_name())
            if sym.is_referenced() and sym.is_global():
                reads.add(sym.get_name())
    return reads - bound


_OWN_SCOPE = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _module_scope(tree: ast.Module) -> tuple[set[str], set[str]]:
    """(names the module's own scope binds, names it reads): what a definition, a lambda or a
    comprehension evaluates where it stands (decorators, defaults, annotations, bases, the first
    iterable) counts; their bodies are scopes of their own, but a `:=` in a comprehension binds
    here."""
    bound: set[str] = set()
    reads: set[str] = set()
    # Under `from __future__ import annotations` an annotation is never evaluated: no read.
    annotations = not any(isinstance(n, ast.ImportFrom) and n.module == "__future__"
                          and any(a.name == "annotations" for a in n.names) for n in tree.body)
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            stack += [d for d in (*args.defaults, *args.kw_defaults) if d is not None]
            if not isinstance(node, ast.Lambda):
                bound.add(node.name)
                stack += node.decorator_list
                if annotations:
                    stack += [a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs,
                                                     args.vararg, args.kwarg) if a is not None and a.annotation]
                    stack += [node.returns] if node.returns else []
            continue
        if isinstance(node, ast.AnnAssign) and not annotations:
            stack += [node.target] + ([node.value] if node.value else [])
            continue
        if isinstance(node, ast.ClassDef):
            bound.add(node.name)
            stack += [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
            continue
        if isinstance(node, _OWN_SCOPE):
            stack.append(node.generators[0].iter)
            bound.update(n.target.id for n in ast.walk(node) if isinstance(n, ast.NamedExpr))
            continue
        if isinstance(node, ast.Name):
            (reads if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif name := caught_or_matched(node):
            bound.add(name)
        stack.extend(ast.iter_child_nodes(node))
    return bound, reads


@lru_cache(maxsize=8)
def _analysis(text: str) -> dict[str, tuple[int, int]] | None:
    """The names `text` reads as globals that it never binds, each with where it first reads it;
    None where it does not parse or a star import may bind any name. Kept for the last few texts
    (small: no tree is kept): one turn's end asks of the same file before the edit, and of the
    same proposal, more than once."""
    tree = parse_tree(text)
    if tree is None or bound_names(tree) is None:
        return None
    reads = _global_reads(text, tree)
    if reads is None:
        return None
    first: dict[str, tuple[int, int]] = {}
    for node in nodes(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in reads:
            at = (node.lineno, node.col_offset)
            first[node.id] = min(first.get(node.id, at), at)
    return first


def undefined_names(old: str, new: str, imports: str = "") -> list[str]:
    """The names `new` (with the import lines `imports` that will be added to it) reads that
    nothing in it binds, in the order the text first reads them; empty when either text does not
    parse."""
    now, before = _analysis(imports + "\n" + new if imports else new), _analysis(old)
    if now is None or before is None:
        return []
    names = [name for name in now if name not in before and name not in _BUILTINS]
    return sorted(names, key=now.__getitem__)
