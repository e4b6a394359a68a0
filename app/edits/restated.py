"""Classes an answer wrote again inside its region: a method's rewrite that brings back its class.

Asked to rewrite one method, a small model sometimes writes back its whole class, or the file.
Where that text is not an exact copy of the lines around the region (app.edits.anchor strips
those), it lands in the method's place as classes nested in the class: `Stack.Stack`,
`Stack.Point`. No edit means that, so the answer is refused. Judged on the whole Python file,
old against new; only when both parse. Pure: no I/O.
"""

from __future__ import annotations

import ast

from app.edits.pydefs import definitions

__all__ = ["restated_classes"]


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
