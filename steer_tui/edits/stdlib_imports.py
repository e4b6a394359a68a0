"""The standard-library imports a Python edit needs but its file lacks.

A rewrite of one function cannot reach the file's imports, so `json.dumps(...)` written in it
arrives without `import json` and fails at run time. A name counts only when the edited text reads
`name.attr` with `name` free (bound nowhere in the text: no import, assignment, parameter,
definition, handler or loop target), the text before the edit did not already read it free (a
file that relies on a name from elsewhere keeps doing so), and the text has no star import (which
may bind anything). The import is the one under which every attribute read exists: `import json`
for `json.dumps`, `from datetime import datetime` for `datetime.now()` (the module has no `now`);
where neither holds, nothing is imported rather than a guess.

A bare name read free (`Optional[int]`, `@dataclass`, `defaultdict(list)`, `Path(p)`) is imported
from the one module that gives it (FROM_NAMES, or a standard-library module the file already imports
names from) with every use of it allowed (a call, a subscript, a base class, an attribute); a name
two of them give is taken from the one the file already imports from, else left alone."""

from __future__ import annotations

import ast
import builtins
import importlib
import sys
import warnings
from functools import lru_cache

from steer_tui.edits.pytree import nodes, parse_tree

# Names in sys.stdlib_module_names that code says for something else far more often than it
# means the module (`this.x`, a `test` object) or that are never imported by hand.
_NOT_MEANT = frozenset({"this", "antigravity", "test", "idlelib", "turtledemo", "__future__", "__main__"})


def bound_names(tree: ast.AST) -> frozenset[str] | None:
    """Every name `tree` binds anywhere; None when a star import may bind any. Found once per tree
    (a turn's end asks it of the same trees for imports, undefined names and context)."""
    if "_steer_bound" not in tree.__dict__:
        tree._steer_bound = _bound_names(tree)
    return tree._steer_bound


# The kinds of node that bind a name: the rest (most of a tree) is passed over by one set lookup.
_BINDERS = frozenset({ast.Name, ast.arg, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import,
                      ast.ImportFrom, ast.Global, ast.Nonlocal, ast.ExceptHandler, ast.MatchAs, ast.MatchStar,
                      ast.MatchMapping})


def _bound_names(tree: ast.AST) -> frozenset[str] | None:
    names: set[str] = set()
    for node in nodes(tree):
        if type(node) not in _BINDERS:
            continue
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
        elif name := caught_or_matched(node):
            names.add(name)
    return frozenset(names)


def caught_or_matched(node: ast.AST) -> str | None:
    """The name `except ... as NAME` or a match pattern (`case x`, `*rest`, `**rest`) binds; else None."""
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return node.name
    return node.rest if isinstance(node, ast.MatchMapping) else None


def _free_modules(tree: ast.AST, bound: set[str]) -> dict[str, set[str]]:
    """{standard-library module name read free as `name.attr` in `tree`: the attributes read}."""
    seen: dict[str, set[str]] = {}
    for node in nodes(tree):
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


# The names code conventionally imports one by one (`from typing import Optional`), by module: a
# table, not every public name, since many are also what a missing variable or a project's own
# helper is called (`log`, `sample`, `unique`, `Context`, `Error`, `replace`, `indent`). typing's
# aliases of collections' classes (Counter, OrderedDict, ChainMap) are left to collections.
_TYPING = tuple(n for n in __import__("typing").__all__ if n not in ("Counter", "OrderedDict", "ChainMap", "Text"))
FROM_NAMES: dict[str, tuple[str, ...]] = {
    "typing": _TYPING,
    "collections": ("ChainMap", "Counter", "OrderedDict", "UserDict", "UserList", "UserString", "defaultdict",
                    "deque", "namedtuple"),
    "dataclasses": ("dataclass", "field", "fields", "asdict", "astuple", "make_dataclass", "is_dataclass",
                    "InitVar", "KW_ONLY", "Field"),
    "pathlib": ("Path", "PurePath", "PosixPath", "WindowsPath", "PurePosixPath", "PureWindowsPath"),
    "datetime": ("date", "datetime", "timedelta", "timezone", "tzinfo"),
    "functools": ("wraps", "partial", "partialmethod", "lru_cache", "cache", "cached_property", "reduce",
                  "total_ordering", "singledispatch", "singledispatchmethod", "cmp_to_key"),
    "enum": ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "auto"),
    "contextlib": ("contextmanager", "asynccontextmanager", "suppress", "closing", "nullcontext", "ExitStack",
                   "AsyncExitStack", "redirect_stdout", "redirect_stderr"),
    "decimal": ("Decimal", "ROUND_HALF_UP", "ROUND_HALF_EVEN", "ROUND_DOWN", "ROUND_UP", "ROUND_CEILING",
                "ROUND_FLOOR", "InvalidOperation"),
    "fractions": ("Fraction",),
    "abc": ("ABC", "ABCMeta", "abstractmethod"),
    "math": ("sqrt", "isqrt", "floor", "ceil", "exp", "log2", "log10", "gcd", "lcm", "isclose", "hypot",
             "factorial", "comb", "perm", "prod", "fsum", "pi", "inf", "isnan", "isinf", "radians", "degrees",
             "sin", "cos", "tan", "atan2"),
    "random": ("choice", "choices", "randint", "randrange", "shuffle", "uniform", "gauss"),
    "time": ("sleep", "perf_counter", "monotonic"),
    "uuid": ("uuid4", "uuid1", "uuid5", "UUID"),
    "copy": ("copy", "deepcopy"),
    "textwrap": ("dedent", "TextWrapper"),
    "pprint": ("pprint", "pformat"),
    "statistics": ("mean", "median", "stdev", "pstdev", "variance", "fmean", "quantiles", "median_low",
                   "median_high"),
}


def _free_names(tree: ast.AST, bound: set[str]) -> dict[str, set[str]]:
    """{name read free and bare (not as `name.attr` of a module): how it is used}: "call", "subscript",
    "base", "attr:NAME", or "read" for any other use."""
    free = [node for node in nodes(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
            and not (node.id in bound or hasattr(builtins, node.id) or node.id.startswith("_"))]
    if not free:  # most texts: then no parent need be looked at
        return {}
    use_of = _uses_by_parent(tree)
    uses: dict[str, set[str]] = {}
    for node in free:
        uses.setdefault(node.id, set()).add(use_of.get(id(node), "read"))
    return uses


def _uses_by_parent(tree: ast.AST) -> dict[int, str]:
    """{id(expression): how its parent uses it} where that is other than a plain read."""
    use_of: dict[int, str] = {}
    for node in nodes(tree):
        if isinstance(node, ast.Call):
            use_of[id(node.func)] = "call"
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            use_of.update((id(d), "call") for d in node.decorator_list)
            if isinstance(node, ast.ClassDef):
                use_of.update((id(b), "base") for b in node.bases)
        elif isinstance(node, ast.Subscript):
            use_of[id(node.value)] = "subscript"
        elif isinstance(node, ast.Attribute):
            use_of[id(node.value)] = "attr:" + node.attr
    return use_of


def _allows(obj, uses: set[str]) -> bool:
    """Every use of the name fits `obj` (a call of a class or function, a subscript of a generic, a
    class to derive from, an attribute it has); a value other than a class (math.pi, a rounding mode)
    only where it is read."""
    if obj is None:
        return False
    for use in uses:
        if use == "call" and not callable(obj):
            return False
        if use == "base" and not (isinstance(obj, type) or hasattr(obj, "__mro_entries__")):
            return False
        if use == "subscript" and not (hasattr(type(obj), "__getitem__") or hasattr(obj, "__class_getitem__")):
            return False
        if use.startswith("attr:") and not hasattr(obj, use[5:]):
            return False
    return True


@lru_cache(maxsize=64)
def _exports(module_name: str) -> frozenset[str]:
    """The names taken from `module_name`: the table's, or, for a module the file already imports names
    from, every class and function it defines (not one it imported: uuid holds the Enum it imported;
    not a submodule such as os.path)."""
    if module_name in FROM_NAMES:
        return frozenset(FROM_NAMES[module_name])
    module = _module(module_name)
    if module is None:
        return frozenset()
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    return frozenset(n for n in names if getattr(getattr(module, n, None), "__module__", None) == module_name)


def _from_modules(tree: ast.AST) -> list[str]:
    """The standard-library modules the text already imports names from (`from typing import ...`)."""
    return [node.module for node in nodes(tree)
            if isinstance(node, ast.ImportFrom) and node.module and not node.level
            and node.module.split(".")[0] in sys.stdlib_module_names]


def _from_statement(name: str, uses: set[str], already: list[str]) -> tuple[str, str] | None:
    """(module, name) to import `name` from, or None when no module, or two, give it."""
    if any(u.startswith("attr:") for u in uses) and name in sys.stdlib_module_names:
        return None  # `json.dumps`: the module itself (_statement)
    givers = []
    for module_name in dict.fromkeys([*already, *FROM_NAMES]):
        if name in _exports(module_name):
            module = _module(module_name)
            if module is not None and _allows(getattr(module, name, None), uses):
                givers.append(module_name)
    if len(givers) > 1:
        givers = [m for m in givers if m in already] or givers
    return (givers[0], name) if len(givers) == 1 else None


def missing(old: str, new: str, skip: frozenset[str] = frozenset()) -> list[str]:
    """The import statements `new` (the edited text) needs, sorted; [] when `new` does not parse
    (the syntax guard speaks for it) or has a star import. `skip`: names another import gives (a
    project module or name the context showed)."""
    return list(_missing(old, new, frozenset(skip)))


@lru_cache(maxsize=4)
def _missing(old: str, new: str, skip: frozenset[str]) -> tuple[str, ...]:
    """`missing`, kept for the last few proposals: a turn's end asks it of the same proposal for its
    verdict and again for the imports it adds."""
    return tuple(_statements(old, new, skip))


def _statements(old: str, new: str, skip: frozenset[str]) -> list[str]:
    tree = parse_tree(new)
    if tree is None:
        return []
    bound = bound_names(tree)
    if bound is None:
        return []
    modules = _free_modules(tree, bound)
    names = _free_names(tree, bound)
    if not modules and not names:
        return []
    before = parse_tree(old)
    if before is not None:
        before_bound = bound_names(before)
        if before_bound is None:
            return []
        for name in _free_modules(before, before_bound):
            modules.pop(name, None)
        for name in _free_names(before, before_bound):
            names.pop(name, None)
    for name in skip:
        modules.pop(name, None)
        names.pop(name, None)
    out = []
    taken: dict[str, list[str]] = {}  # one `from` line a module: `from datetime import datetime, timezone`
    for name, attrs in modules.items():
        line = _statement(name, attrs)
        if line and line.startswith("from "):
            module, _, got = line[5:].partition(" import ")
            taken.setdefault(module, []).append(got)
        elif line:
            out.append(line)
    already = _from_modules(tree)
    for name, uses in names.items():
        found = None if name in modules else _from_statement(name, uses, already)
        if found:
            taken.setdefault(found[0], []).append(name)
    out += [f"from {module} import {', '.join(sorted(set(got)))}" for module, got in taken.items()]
    return sorted(out)
