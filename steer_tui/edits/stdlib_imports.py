"""The standard-library imports a Python edit needs but its file lacks.

A rewrite of one function cannot reach the file's imports, so `json.dumps(...)` written in it
arrives without `import json` and fails at run time. A name counts only when the edited text reads
`name.attr` with `name` free (bound nowhere in the text: no import, assignment, parameter,
definition, handler or loop target), the text before the edit did not already read it free (a
file that relies on a name from elsewhere keeps doing so), and the text has no star import (which
may bind anything). The import is the one under which every attribute read exists: `import json`
for `json.dumps`, `from datetime import datetime` for `datetime.now()` (the module has no `now`);
where neither holds, nothing is imported rather than a guess."""

from __future__ import annotations

import ast
import builtins
import importlib
import sys
import warnings
from functools import lru_cache

# Names in sys.stdlib_module_names that code says for something else far more often than it
# means the module (`this.x`, a `test` object) or that are never imported by hand.
_NOT_MEANT = frozenset({"this", "antigravity", "test", "idlelib", "turtledemo", "__future__", "__main__"})


def _parse(text: str) -> ast.AST | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences in the user's strings
            return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _bound(tree: ast.AST) -> set[str] | None:
    """Every name `tree` binds anywhere; None when a star import may bind any."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    return None
                names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
    return names


def _free_modules(tree: ast.AST, bound: set[str]) -> dict[str, set[str]]:
    """{standard-library module name read free as `name.attr` in `tree`: the attributes read}."""
    seen: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and isinstance(node.value.ctx, ast.Load)):
            name = node.value.id
            if (name in sys.stdlib_module_names and name not in bound and name not in _NOT_MEANT
                    and not name.startswith("_") and not hasattr(builtins, name)):
                seen.setdefault(name, set()).add(node.attr)
    return seen


@lru_cache(maxsize=256)
def _module(name: str):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # deprecated modules warn on import
            return importlib.import_module(name)
    except Exception:  # a module this Python lacks (tkinter without Tk, say)
        return None


def _statement(name: str, attrs: set[str]) -> str | None:
    """The import under which `name.attr` exists for every attr read, or None."""
    module = _module(name)
    if module is None:
        return None
    if all(hasattr(module, a) for a in attrs):
        return f"import {name}"
    same = getattr(module, name, None)  # datetime.datetime, pprint.pprint, copy.copy
    if same is not None and all(hasattr(same, a) for a in attrs):
        return f"from {name} import {name}"
    return None


def missing(old: str, new: str) -> list[str]:
    """The import statements `new` (the edited text) needs, sorted; [] when `new` does not parse
    (the syntax guard speaks for it) or has a star import."""
    tree = _parse(new)
    if tree is None:
        return []
    bound = _bound(tree)
    if bound is None:
        return []
    wanted = _free_modules(tree, bound)
    if not wanted:
        return []
    before = _parse(old)
    if before is not None:
        before_bound = _bound(before)
        if before_bound is None:
            return []
        for name in _free_modules(before, before_bound):
            wanted.pop(name, None)
    return sorted(filter(None, (_statement(name, attrs) for name, attrs in wanted.items())))
