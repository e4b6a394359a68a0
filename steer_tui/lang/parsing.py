"""Parsing a text with its language's tree-sitter grammar: one parser a language, the last trees kept for re-parses."""

from __future__ import annotations

import importlib
import threading
from collections import OrderedDict
from functools import lru_cache

import tree_sitter

from steer_tui.lang.table import Spec

# Trees kept a language, newest last: the review re-parses the same file with one hunk more or
# less, which an old tree edited to match parses in a fraction of a full parse.
_KEPT_TREES = 8


@lru_cache(maxsize=None)
def language(spec: Spec) -> tree_sitter.Language:
    module = importlib.import_module(spec.module)
    return tree_sitter.Language(getattr(module, spec.function)())


class _Parsers(threading.local):
    """A parser a language a thread: a tree_sitter.Parser is not to be shared between threads."""

    def __init__(self) -> None:
        self.parsers: dict[str, tree_sitter.Parser] = {}
        self.trees: dict[str, OrderedDict[bytes, tree_sitter.Tree]] = {}


_local = _Parsers()


def parse(spec: Spec, text: str) -> tree_sitter.Tree:
    """The syntax tree of `text`, re-parsed from the closest tree kept for this language."""
    data = text.encode("utf-8", "surrogatepass")
    kept = _local.trees.setdefault(spec.key, OrderedDict())
    tree = kept.get(data)
    if tree is not None:
        kept.move_to_end(data)
        return tree
    parser = _local.parsers.get(spec.key)
    if parser is None:
        parser = _local.parsers[spec.key] = tree_sitter.Parser(language(spec))
    base = _closest(kept, data)
    if base is not None:
        old_data, old_tree = base
        old_tree = old_tree.copy()
        _edit(old_tree, old_data, data)
        tree = parser.parse(data, old_tree)
    else:
        tree = parser.parse(data)
    kept[data] = tree
    while len(kept) > _KEPT_TREES:
        kept.popitem(last=False)
    return tree


def _closest(kept: OrderedDict[bytes, tree_sitter.Tree], data: bytes):
    """The kept (text, tree) sharing the longest prefix plus suffix with `data`, if it shares most of it."""
    best, best_shared = None, len(data) // 2
    for old in kept:
        prefix, suffix = _common(old, data)
        if prefix + suffix > best_shared:
            best, best_shared = (old, kept[old]), prefix + suffix
    return best


def _common(old: bytes, new: bytes) -> tuple[int, int]:
    """Lengths of the common prefix and (not overlapping it) common suffix of two texts."""
    limit = min(len(old), len(new))
    prefix = 0
    # Compare in blocks first: byte by byte in Python is slow on long files.
    step = 4096
    while prefix + step <= limit and old[prefix:prefix + step] == new[prefix:prefix + step]:
        prefix += step
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    room = limit - prefix
    a, b = len(old), len(new)
    while suffix + step <= room and old[a - suffix - step:a - suffix] == new[b - suffix - step:b - suffix]:
        suffix += step
    while suffix < room and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    return prefix, suffix


def _point(data: bytes, offset: int) -> tuple[int, int]:
    row = data.count(b"\n", 0, offset)
    return row, offset - (data.rfind(b"\n", 0, offset) + 1)


def _edit(tree: tree_sitter.Tree, old: bytes, new: bytes) -> None:
    """Tell `tree` (of `old`) that its text became `new`: one replaced span between the common ends."""
    prefix, suffix = _common(old, new)
    old_end, new_end = len(old) - suffix, len(new) - suffix
    tree.edit(start_byte=prefix, old_end_byte=old_end, new_end_byte=new_end,
              start_point=_point(old, prefix), old_end_point=_point(old, old_end),
              new_end_point=_point(new, new_end))
