"""Comments and docstrings of a parsed text, and its code without them (to tell an edit of comments alone)."""

from __future__ import annotations

import tree_sitter

from steer_tui.lang.table import Spec


def comment_nodes(spec: Spec, tree: tree_sitter.Tree) -> list[tree_sitter.Node]:
    """The comment and docstring nodes, in file order."""
    found: list[tree_sitter.Node] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in spec.comments or _docstring(spec, node):
            found.append(node)
            continue
        stack.extend(reversed(node.children))
    return found


def spans(spec: Spec, tree: tree_sitter.Tree) -> list[tuple[int, int]]:
    """0-based (first, last) lines, inclusive, of each comment and docstring."""
    # A line comment may hold its newline: it then ends at column 0 of the next line.
    return [(n.start_point[0], max(n.start_point[0], n.end_point[0] - (n.end_point[1] == 0)))
            for n in comment_nodes(spec, tree)]


def code_tokens(spec: Spec, tree: tree_sitter.Tree) -> list[bytes]:
    """The text of every token that is neither comment nor docstring, in order: two texts with
    the same tokens differ only in layout, comments and docstrings."""
    tokens: list[bytes] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in spec.comments or _docstring(spec, node):
            continue
        if node.child_count == 0:
            tokens.append(node.text or b"")
        else:
            stack.extend(reversed(node.children))
    return tokens


def _docstring(spec: Spec, node: tree_sitter.Node) -> bool:
    """A statement of a string alone that comes first in its body (a module, class or function)."""
    if spec.docstrings is None or node.type != spec.docstrings[0]:
        return False
    if node.named_child_count != 1 or node.named_children[0].type != spec.docstrings[1]:
        return False
    first = node.parent.named_children[0] if node.parent is not None else None
    while first is not None and first.type in spec.comments:
        first = first.next_named_sibling
    return first is not None and first.id == node.id
