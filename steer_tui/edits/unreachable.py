"""Code an edit adds after a `return`, `raise`/`throw`, `break` or `continue` the file already had: lines that never run.

A small model asked for a guard or a fallback in a function sometimes writes it after the
function's last `return`, at the end of the region it copies out. The file still parses and the
tests of the old behaviour still pass, so nothing else catches it; the user gets an edit that does
nothing. Only statements on lines the edit adds, after a terminator on a line it kept, count: an
early `return` the edit writes itself is what was asked for, and makes the code after it dead on
purpose.
"""

from __future__ import annotations

import difflib

from steer_tui import lang
from steer_tui.lang.parsing import parse

# Per language: the nodes whose children run one after another, and the statements that leave them.
_BLOCKS = {
    "python": {"block"},
    "javascript": {"statement_block"},
    "typescript": {"statement_block"},
    "tsx": {"statement_block"},
    "java": {"block", "constructor_body", "switch_block_statement_group"},
    "csharp": {"block"},
    "c": {"compound_statement"},
    "cpp": {"compound_statement"},
    "go": {"block", "statement_list"},
    "php": {"compound_statement"},
}
_LEAVES = {"return_statement", "raise_statement", "throw_statement", "break_statement", "continue_statement"}
_COMMENTS = {"comment", "line_comment", "block_comment"}  # passed over: they neither run nor end anything
# Where control may arrive from elsewhere: what follows it is not dead.
_ENTRIES = {"labeled_statement", "case_statement", "switch_label", "default_statement", "expression_case",
            "default_case"}


def unreachable_added(old: str, new: str, path: str | None) -> list[tuple[int, int]]:
    """(the 1-based line of `new` where a statement the edit added starts, that of the terminator `old`
    had which it follows), for each such statement."""
    spec = lang.language(path) if path else None
    blocks = _BLOCKS.get(spec.key) if spec is not None else None
    if not blocks or old == new:
        return []
    tree = parse(spec, new)
    if tree.root_node.has_error:
        return []  # the syntax guard speaks for a broken answer
    added, kept_at = _added_lines(old, new)
    out: list[tuple[int, int]] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type not in blocks:
            continue
        leaving = None
        for child in node.named_children:
            if child.type in _COMMENTS:
                continue
            if child.type in _ENTRIES:
                leaving = None
                continue
            if leaving is not None and child.start_point[0] in added:
                out.append((child.start_point[0] + 1, leaving.start_point[0] + 1))
            if child.type in _LEAVES and child.start_point[0] in kept_at:
                leaving = child
    return sorted(set(out))


def _added_lines(old: str, new: str) -> tuple[set[int], set[int]]:
    """(the 0-based lines of `new` the edit added or changed, those it kept as they were)."""
    a, b = old.splitlines(), new.splitlines()
    added: set[int] = set()
    kept: set[int] = set()
    for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        (kept if tag == "equal" else added).update(range(j1, j2))
    return added, kept
