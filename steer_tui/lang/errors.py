"""The syntax errors of a parsed text (ERROR and MISSING nodes), and which of them an edit brought in."""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

import tree_sitter

from steer_tui.lang.parsing import language
from steer_tui.lang.table import Spec

_SHOWN = 30  # characters of an unexpected token quoted in a message
# Lines an error of a file may move by when an edit elsewhere changes how the parser recovers.
_DRIFT = 2


@dataclass(frozen=True, slots=True)
class ParseError:
    """A place the grammar could not parse: 0-based lines `line` to `end` (inclusive)."""

    line: int
    end: int
    missing: bool  # the parser had to assume a token (`}`, `;`, `end`) that is not there
    message: str


def syntax_errors(spec: Spec, tree: tree_sitter.Tree) -> list[ParseError]:
    """The outermost ERROR nodes, the MISSING nodes outside them and the language's stray tokens
    (Spec.stray), in file order."""
    found: list[ParseError] = []
    root = tree.root_node
    if root.is_error:
        found.append(_unexpected(root))
    elif root.has_error:
        _collect(root, found)
    if spec.stray:
        for node in tree_sitter.QueryCursor(_stray(spec)).captures(root).get("error", []):
            found.append(_unexpected(node))
        found.sort(key=lambda e: (e.line, e.end))
    return found


@lru_cache(maxsize=None)
def _stray(spec: Spec) -> tree_sitter.Query:
    return tree_sitter.Query(language(spec), spec.stray)


def _unexpected(node: tree_sitter.Node) -> ParseError:
    first = (node.text or b"").decode("utf-8", "replace").strip().split("\n", 1)[0][:_SHOWN]
    said = f"unexpected {_quote(first)}" if first else "unexpected end of input"
    return ParseError(node.start_point[0], node.end_point[0], False, said)


def _collect(node: tree_sitter.Node, found: list[ParseError]) -> None:
    stack = list(reversed(node.children))  # not recursive: code may nest deeper than Python's stack
    while stack:
        child = stack.pop()
        if child.is_missing:
            found.append(ParseError(child.start_point[0], child.start_point[0], True, f"missing {_quote(child.type)}"))
        elif child.is_error:
            found.append(_unexpected(child))
        elif child.has_error:
            stack.extend(reversed(child.children))


def _quote(token: str) -> str:
    return f'"{token}"' if "`" in token else f"`{token}`"


def introduced(old_errors: list[ParseError], new_errors: list[ParseError],
               old_lines: list[str], new_lines: list[str]) -> list[ParseError]:
    """The errors of the new text that the edit from the old one brought in.

    An error of the new text is the old one's when it lies on lines carried over unchanged from
    lines of an old error. Error recovery moves errors about (an unclosed brace's MISSING `}`
    sits at the end of the file, wherever that now is), so each old error not found that way
    excuses one more new error, those outside the changed lines first: a file that had errors is
    blamed only for errors beyond the ones it had, or (no more of them) for an error that now
    reaches unchanged lines that parsed before (recovery folded a new error into an old one).
    """
    if not new_errors or not old_errors:
        return list(new_errors)
    image = _carried(old_lines, new_lines)  # new line -> old line, for lines the edit left as they were
    near = _replaced(image, len(new_lines), len(old_lines))
    left_old = list(old_errors)
    unmatched: list[ParseError] = []
    for err in new_errors:
        # An error on a line the edit changed may be the one the lines it replaced had.
        spans = [near[n] if n not in image else (image[n], image[n]) for n in range(err.line, err.end + 1)
                 if n in image or n in near]
        match = next((o for o in left_old if any(o.line <= b and a <= o.end for a, b in spans)), None)
        if match is None:
            unmatched.append(err)
        else:
            left_old.remove(match)
    if len(unmatched) <= len(left_old):
        return _spread(old_errors, new_errors, image)
    # The ones on changed lines are the edit's; those on carried lines are excused first.
    unmatched.sort(key=lambda e: (all(n in image for n in range(e.line, e.end + 1)), e.line))
    kept = unmatched[: len(unmatched) - len(left_old)]
    return sorted(kept, key=lambda e: e.line)


def _spread(old_errors: list[ParseError], new_errors: list[ParseError], image: dict[int, int]) -> list[ParseError]:
    """The new errors that grew over code the edit left as it was and that parsed before: recovery
    folds a second error into the first one's ERROR node, which then reaches lines it did not."""
    was = {n for e in old_errors for n in range(e.line - _DRIFT, e.end + _DRIFT + 1)}
    return [e for e in new_errors
            if any(n in image and image[n] not in was for n in range(e.line, e.end + 1))]


def _replaced(image: dict[int, int], new_count: int, old_count: int) -> dict[int, tuple[int, int]]:
    """For each new line the edit wrote, the old lines (first, last) it stands in for: those it
    replaced, or for an insertion the two lines around it."""
    near: dict[int, tuple[int, int]] = {}
    before = -1  # the old line of the last carried line
    written: list[int] = []
    for n in range(new_count + 1):
        if n < new_count and n not in image:
            written.append(n)
            continue
        after = image[n] if n < new_count else old_count
        span = (before + 1, after - 1) if after - 1 >= before + 1 else (max(before, 0), min(after, old_count - 1))
        for m in written:
            near[m] = span
        written = []
        before = after
    return near


def _carried(old_lines: list[str], new_lines: list[str]) -> dict[int, int]:
    # The common ends are matched directly: the matcher is quadratic at worst, an edit is small.
    head = 0
    while head < min(len(old_lines), len(new_lines)) and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while (tail < min(len(old_lines), len(new_lines)) - head
           and old_lines[-1 - tail] == new_lines[-1 - tail]):
        tail += 1
    image = {n: n for n in range(head)}
    for k in range(1, tail + 1):
        image[len(new_lines) - k] = len(old_lines) - k
    middle = SequenceMatcher(None, old_lines[head:len(old_lines) - tail],
                             new_lines[head:len(new_lines) - tail], autojunk=False)
    for a, b, size in middle.get_matching_blocks():
        for k in range(size):
            image[head + b + k] = head + a + k
    return image
