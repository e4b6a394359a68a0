"""Whether each function of a parsed text has code in its body (not only comments): for the hollowed-function check."""

from __future__ import annotations

import tree_sitter

from steer_tui.lang.defs import FUNCTION_KINDS, with_nodes
from steer_tui.lang.table import Spec

# A body whose statements sit in one list node of their own (Go's block holds a statement_list).
_LISTS = frozenset({"statement_list"})


def function_bodies(spec: Spec, tree: tree_sitter.Tree) -> dict[str, bool]:
    """{qualified name: its body has code} for each function or method with a body (the first of
    a repeated name); signatures and abstract methods have none and are left out."""
    out: dict[str, bool] = {}
    for d, node in with_nodes(spec, tree):
        if d.kind not in FUNCTION_KINDS:
            continue
        found, body = _body(spec, node)
        if found:
            out.setdefault(d.qualname, body is not None and _has_code(spec, body))
    return out


def _body(spec: Spec, node: tree_sitter.Node) -> tuple[bool, tree_sitter.Node | None]:
    """(whether the function has a body at all, its body node: None for an empty one without a node)."""
    body = node.child_by_field_name("body")
    value = node.child_by_field_name("value")
    if body is None and value is not None:  # const f = () => {...}
        body = value.child_by_field_name("body")
    if body is not None:
        return True, body
    if spec.bodies:
        return True, next((c for c in node.named_children if c.type in spec.bodies), None)
    return False, None


def _has_code(spec: Spec, body: tree_sitter.Node) -> bool:
    if body.named_child_count == 0:
        # A leaf is an expression body (`() => 1`): code; an empty block (`{}`) has tokens but no code.
        return body.child_count == 0
    code = [c for c in body.named_children if c.type not in spec.comments]
    if len(code) == 1 and code[0].type in _LISTS:
        code = [c for c in code[0].named_children if c.type not in spec.comments]
    return bool(code)
