"""A Python text's definitions by qualified name (`Class.method`), from one parse per text."""

from __future__ import annotations

import ast
from functools import lru_cache

from steer_tui.edits.pytree import parse_tree

__all__ = ["definitions", "first_line"]


@lru_cache(maxsize=2)
def definitions(text: str) -> dict[str, ast.AST] | None:
    """{qualified name: node} of every function and class (the first of a repeated name; through
    functions too), or None when `text` does not parse. Cached: the judge's checks read the same
    old and new text."""
    tree = parse_tree(text)
    if tree is None:
        return None
    out: dict[str, ast.AST] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                out.setdefault(name, child)
                walk(child, f"{name}.")

    walk(tree, "")
    return out


def first_line(node: ast.stmt) -> int:
    """The 0-based line where a statement begins, its decorators included."""
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
