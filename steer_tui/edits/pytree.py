"""One parse and one walk of each Python text, shared by every check that reads it (read-only trees).

A turn's end asks several checks of the same two texts (the file before the edit and the
proposal): the syntax guard, the imports it needs, names nothing defines, log calls, parameters
never read, restated definitions. Each used to parse both texts and walk each tree several times:
on a 20,000-line file that was nine parses and some twenty walks, seconds in the event loop.
Trees from here are shared: a caller that changes one must parse its own."""

from __future__ import annotations

import ast
import warnings
from functools import lru_cache

__all__ = ["parse_tree", "nodes"]

# A 20,000-line file's tree takes about 26 MB; a turn asks of two texts, a redirect of a third.
_KEPT = 4


@lru_cache(maxsize=_KEPT)
def parse_tree(text: str) -> ast.Module | None:
    """`text` parsed as Python, or None where it does not parse (nor past the compiler's limits);
    warnings about the user's code (invalid escape sequences) are not ours to report. The same
    tree for the same text while it is among the last few asked: never change it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of `tree` in `ast.walk`'s order, walked once per tree and kept on it."""
    found = tree.__dict__.get("_steer_nodes")
    if found is None:
        found = tree._steer_nodes = list(ast.walk(tree))
    return found
