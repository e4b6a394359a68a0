"""Logging calls an edit wrote whose arguments their message has no placeholder for.

Turning `print("skipped:", entry_id)` into a log call, a small model writes
`log.warning("skipped:", entry_id)`: the logging module formats the message with `%`, so the record
fails when it is emitted ("not all arguments converted during string formatting") and the line
is lost. A call counts when it is `X.debug/info/warning/warn/error/exception/critical(...)` (or
`X.log(level, ...)`) on a name whose text mentions a logger, its message a string literal with
fewer `%` placeholders than it is given arguments, and the text before the edit had no such call.
Loggers that format otherwise are left alone: a message with `{}` fields (loguru's style), and any
call in a file that imports loguru or textual (whose `log` takes any arguments). Pure: no I/O.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache

from steer_tui.edits.pytree import nodes, parse_tree

__all__ = ["unformatted_logging_calls"]

_LEVELS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal"})
_BRACES = re.compile(r"\{[^{}]*\}")
_OWN_FORMAT = frozenset({"loguru", "textual"})  # their loggers do not format with %
_PLACEHOLDER = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[diouxXeEfFgGcrsa%]")


def _placeholders(message: str) -> int:
    return sum(1 for m in _PLACEHOLDER.finditer(message) if not m.group().endswith("%"))


def _receiver(node: ast.expr) -> str:
    """`log` of `log.warning`, `self.logger` of `self.logger.info`, `logging` of `logging.info`."""
    return ast.unparse(node) if isinstance(node, (ast.Name, ast.Attribute, ast.Call)) else ""


def _other_loggers(tree: ast.AST) -> bool:
    for node in nodes(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] in _OWN_FORMAT for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in _OWN_FORMAT:
            return True
    return False


def _mismatched(tree: ast.AST, source: str) -> list[str]:
    if _other_loggers(tree):
        return []
    out = []
    for node in nodes(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        method, args = node.func.attr, list(node.args)
        if method == "log" and args:
            args = args[1:]
        elif method not in _LEVELS:
            continue
        receiver = _receiver(node.func.value)
        if "log" not in receiver.lower() or not args or any(isinstance(a, ast.Starred) for a in args):
            continue
        message = args[0]
        if not (isinstance(message, ast.Constant) and isinstance(message.value, str)) or _BRACES.search(message.value):
            continue
        if len(args) - 1 > _placeholders(message.value):
            out.append(ast.get_source_segment(source, node) or ast.unparse(node))
    return out


@lru_cache(maxsize=8)
def _calls_of(text: str) -> tuple[str, ...] | None:
    """`_mismatched` of `text` (None where it does not parse), kept for the last few texts: a
    turn's end asks of the file before the edit, and of a proposal, more than once."""
    tree = parse_tree(text)
    return None if tree is None else tuple(_mismatched(tree, text))


def unformatted_logging_calls(old: str, new: str) -> list[str]:
    """The logging calls of `new` (as written) that give their message more arguments than it has
    `%` placeholders, leaving out any the text before the edit already had; empty when `new` does not parse."""
    calls = _calls_of(new)
    if calls is None:
        return []
    had = set(_calls_of(old) or ())
    return [call for call in calls if call not in had]
