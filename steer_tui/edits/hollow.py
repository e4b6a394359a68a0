"""Functions an answer hollowed out: their code gone, only a docstring, `pass` or `...` left.

A small model asked to document a function sometimes answers with the signature and the new
docstring and nothing else. Anchoring (steer_tui.edits.anchor) keeps code an answer leaves out around
what it restates, but a body that ends at the docstring restates the function's head: taken as
written, the function loses its code. Judged on the whole file, old against new, by qualified
name; only when both parse (Python by `ast`, other languages by steer_tui.lang). Pure: no I/O.
"""

from __future__ import annotations

import ast

from steer_tui.edits.pydefs import definitions
from steer_tui.edits.syntax import is_python
from steer_tui import intent

__all__ = ["asks_to_stub", "hollowed", "trivial"]

# Words that ask for a body to go: a stub, a placeholder, an empty function.
_STUB = intent.STUB  # steer_tui/intent.py


def asks_to_stub(instruction: str | None) -> bool:
    """The instruction may want a function emptied ("make it a stub", "replace the body with pass")."""
    return bool(instruction and _STUB.search(instruction))


def hollowed(old: str, new: str, path: str | None = None) -> list[str]:
    """Qualified names of the functions with code in `old` whose body in `new` is only a docstring,
    `pass` or `...` (empty when either text does not parse). `path` in another language that
    steer_tui.lang knows: whose body in `new` is empty or only comments; in a language it does not
    know: none."""
    if path is None or is_python(path):
        before, after = _bodies(old), _bodies(new)
    else:
        from steer_tui import lang  # tree-sitter is loaded by the first file not in Python, not at start-up

        before, after = lang.function_bodies(path, old), lang.function_bodies(path, new)
    if before is None or after is None:
        return []
    return [name for name, has_code in before.items() if has_code and after.get(name) is False]


def _bodies(text: str) -> dict[str, bool] | None:
    """{qualified name: the body has code} for every function, or None when `text` does not parse."""
    defs = definitions(text)
    if defs is None:
        return None
    return {name: any(not trivial(s) for s in node.body) for name, node in defs.items()
            if not isinstance(node, ast.ClassDef)}


def trivial(stmt: ast.stmt) -> bool:
    """A docstring, `pass` or `...`: no code."""
    if isinstance(stmt, ast.Pass):
        return True
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and (
        isinstance(stmt.value.value, str) or stmt.value.value is Ellipsis)
