"""Where a new definition goes when the words ask for one alone, and how its lines sit there.

"add a function matches_any(...)" names nothing in the file, so a rewrite covers the whole file;
"add a Version method is_prerelease" names the type, so it covers all of `impl Version`. Either way
the model copies hundreds of lines to write a few (a minute on two cores, and every copied line a
chance to change one), or, past the file's budget, the request cannot be sent at all. Asked for a
new definition alone (intent ADDS_DEFINITION, nothing else changed: not ALSO_CHANGES), the region
is instead an empty one, an insertion point: at the end of the named type's body, or at the end of
the file's definitions (before a Python `if __name__` block, a trailing `module.exports`/`export
default`, a Rust `#[cfg(test)]` module, a header's closing `#endif`). The model writes the new code
alone; `fit` indents it as the place's members are and spaces it as the file does.
"""

from __future__ import annotations

import re

from steer_tui import intent, lang
from steer_tui.lang.defs import TYPE_KINDS

INSERT_MIN_LINES = 30  # a smaller region is rewritten whole: cheap, and the model sees it all
_LANGUAGES = frozenset({"python", "javascript", "typescript", "tsx", "go", "rust", "java", "csharp", "c", "cpp", "php"})
# Statements that close a file and must stay last: new definitions go before them.
_TAIL = re.compile(r"^(?:if\s+__name__\s*==|module\.exports\b|exports\.\w+\s*=|export\s+default\b|export\s*\{|"
                   r"#\[cfg\(test\)\])")
_CLOSING_LINE = re.compile(r"^\s*(?:#\s*endif\b|\?>\s*$)")


def _definitions(path: str | None, text: str) -> list:
    """The definitions of `text` by the language layer; none for a language it does not know."""
    return lang.definitions(path, text) if path and lang.language(path) else []


def is_type(text: str, region: tuple[int, int], path: str | None) -> bool:
    """`region` is one type's lines (a class, struct, impl, interface...)."""
    return _type_of(_definitions(path, text), region) is not None


def _type_of(defs, region: tuple[int, int]):
    start, end = region
    return next((d for d in defs if d.kind in TYPE_KINDS and d.end == end and d.start <= start <= d.line), None)


def around(text: str, at: int, path: str | None) -> tuple[int, int]:
    """The lines a view of a file too big to show whole is built around for an insertion at `at`:
    the definition just before it (the type's last member, the file's last function), so the model
    sees the code it writes beside; the line before where there is none."""
    every = _definitions(path, text)
    holder = _holder(every, at)
    defs = [d for d in every if d.end <= at + 1 and d is not holder
            and (holder is None and d.depth == 0 or holder is not None and d.depth == holder.depth + 1
                 and d.start > holder.line)]
    if defs:
        return (max(defs, key=lambda d: d.end).start, at)
    return (holder.line if holder is not None else max(0, at - 1), at)


def holder_head(text: str, at: int, path: str | None) -> str:
    """The head line of the type whose body an insertion at `at` goes into ("impl Version"), or ""."""
    d = _holder(_definitions(path, text), at)
    return text.split("\n")[d.line].strip().rstrip("{:").strip() if d is not None else ""


def wanted(instruction: str) -> bool:
    """The words ask for a new definition and nothing else."""
    return bool(intent.ADDS_DEFINITION.match(instruction)) and not intent.ALSO_CHANGES.search(instruction)


def point(text: str, instruction: str, region: tuple[int, int], path: str | None) -> int | None:
    """The line a new definition goes before, where `region` (the rewrite's, chosen by the words)
    is the whole file or one type of at least INSERT_MIN_LINES lines and the words ask for a new
    definition alone; else None."""
    spec = lang.language(path) if path else None
    if spec is None or spec.key not in _LANGUAGES or not wanted(instruction):
        return None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    start, end = region
    if end - start < INSERT_MIN_LINES:
        return None
    defs = lang.definitions(path, text)
    if (start, end) == (0, len(lines)):
        top = [d for d in defs if d.depth == 0]
        sole = [d for d in top if d.kind in TYPE_KINDS and d.end - d.start >= 0.8 * _used(lines)]
        if len(top) == 1 and sole:  # a Java or C# file: its one class
            return _type_end(lines, sole[0], spec.key)
        return _file_end(lines)
    found = _type_of(defs, region)
    return _type_end(lines, found, spec.key) if found is not None else None


def _used(lines: list[str]) -> int:
    return sum(1 for ln in lines if ln.strip())


def _last_code(lines: list[str], end: int) -> int:
    """The index after the last non-blank line before `end`."""
    while end > 0 and not lines[end - 1].strip():
        end -= 1
    return end


def _file_end(lines: list[str]) -> int:
    """After the file's last definition: before a header's closing `#endif` or PHP's `?>`, and
    before the file's last top-level statement where that is one that closes a file (`if __name__
    == ...`, `module.exports = ...`, `#[cfg(test)] mod tests`), with the comments and blank lines
    just above it."""
    end = _last_code(lines, len(lines))
    if end and _CLOSING_LINE.match(lines[end - 1]):
        return _last_code(lines, end - 1)
    start = next((i for i in range(end - 1, -1, -1) if lines[i] and not lines[i][0].isspace()
                  and not lines[i].startswith(("}", ")", "]", "#", "//", "@"))), None)
    while start and lines[start - 1].startswith(("#[", "@")):
        start -= 1  # its attributes (`#[cfg(test)]`) and decorators
    if start is None or not _TAIL.match(lines[start]):
        return end
    while start > 0 and (not lines[start - 1].strip() or lines[start - 1].lstrip().startswith(("#", "//"))):
        start -= 1
    return _last_code(lines, start) if start > 0 else end


def _type_end(lines: list[str], d, key: str) -> int:
    """Inside type `d`, after its last member: before its closing brace line, or (Python) after its
    last line."""
    end = _last_code(lines, d.end)
    if key != "python" and end > d.line + 1 and lines[end - 1].strip() in ("}", "};"):
        return _last_code(lines, end - 1)
    return end


def fit(lines: list[str], at: int, new: list[str], path: str | None) -> list[str]:
    """`new` (the lines an answer inserts before line `at` of `lines`) indented as the members
    there are and set off by the blank lines the file puts between its definitions."""
    body = _trimmed(new)
    holder = _holder(_definitions(path, "\n".join(lines) + "\n"), at)
    if holder is not None:
        body = _unwrapped(lines[holder.line], body)
    body = _unechoed(lines, at, body)
    if not body:
        return new
    indent = _member_indent(lines, holder)
    common = min(len(ln) - len(ln.lstrip()) for ln in body if ln.strip())
    body = [indent + ln[common:] if ln.strip() else "" for ln in body]
    spec = lang.language(path) if path else None
    gap = 2 if spec is not None and spec.key == "python" and not indent else 1
    before, after = lines[at - 1] if at > 0 else "", lines[at] if at < len(lines) else ""
    opens = before.rstrip().endswith(("{", ":")) or not before.strip()
    closes = not after.strip() or after.strip().startswith(("}", ")", "]"))
    return [""] * (0 if opens or at == 0 else gap) + body + [""] * (0 if closes else gap)


def _unechoed(lines: list[str], at: int, body: list[str]) -> list[str]:
    """`body` without the file's lines around the point that it repeats: its opening lines equal to
    the last non-blank lines before `at` (the method it follows), its closing lines equal to the
    first ones after (the type's closing brace). Lines of closing brackets alone go only where the
    body has more closers than openers without them: `}` is also how the new code's own last line reads."""
    def balance(part: list[str]) -> int:
        text = "\n".join(part)
        return sum(text.count(c) for c in "{([") - sum(text.count(c) for c in "})]")

    def cut(before: list[str], body: list[str]) -> list[str]:
        said = [i for i, ln in enumerate(body) if ln.strip()]
        for k in range(min(len(before), len(said) - 1), 0, -1):
            # As written, indentation too: a method's `}` is not its type's `}`.
            if [body[i].rstrip() for i in said[:k]] != [ln.rstrip() for ln in before[-k:]]:
                continue
            echo, rest = body[: said[k - 1] + 1], body[said[k - 1] + 1:]
            if all(ln.strip() in _CLOSERS for ln in echo if ln.strip()) and balance(body) >= 0:
                continue
            return _trimmed(rest)
        return body

    above = [ln for ln in lines[:at] if ln.strip()]
    below = [ln for ln in lines[at:] if ln.strip()]
    body = cut(above, body)
    return cut(below[::-1], body[::-1])[::-1]


_CLOSERS = frozenset({"}", "};", ")", "]", "});", "})", ");", "end"})


def _trimmed(new: list[str]) -> list[str]:
    a, b = 0, len(new)
    while a < b and not new[a].strip():
        a += 1
    while b > a and not new[b - 1].strip():
        b -= 1
    return new[a:b]


def _holder(defs: list, at: int):
    """The innermost type of `defs` (a file's definitions) whose body holds line `at`, or None (the top level)."""
    holding = [d for d in defs if d.kind in TYPE_KINDS and d.line < at <= d.end]
    return max(holding, key=lambda d: d.depth) if holding else None


def _unwrapped(head: str, body: list[str]) -> list[str]:
    """`body` without the type's own head (and closing brace) around it: asked for a member, a
    small model writes `impl Version { ... }` or `class User:` again around it."""
    def norm(line: str) -> str:
        return " ".join(line.replace("{", " {").split())

    if len(body) < 2 or norm(body[0]) != norm(head):
        return body
    inner = body[1:]
    if head.rstrip().endswith("{") or body[0].rstrip().endswith("{"):
        if inner[-1].strip() not in ("}", "};"):
            return body
        inner = inner[:-1]
    return _trimmed(inner)


def _member_indent(lines: list[str], d) -> str:
    """The indentation of the members of type `d` (_holder's; "" at the top level, None)."""
    if d is None:
        return ""
    head = lines[d.line]
    own = head[: len(head) - len(head.lstrip())]
    for ln in lines[d.line + 1: d.end]:
        if ln.strip() and ln.strip() not in ("{", "}", "};"):
            mine = ln[: len(ln) - len(ln.lstrip())]
            if len(mine) > len(own):
                return mine
            break
    return own + ("\t" if own.startswith("\t") else "    ")


COPY_LINES = 5  # an insertion's answer opening with this many of the file's lines, in a row, is copying it
COPY_REASON = "the answer writes out code the file already has instead of only the new code"
COPY_FEEDBACK = ("Your answer starts writing out code the file already has, so nothing was changed. Reply with "
                 "only the new code, in one code block: not the type or the functions around it.")


_OMITTED = re.compile(r"\.\.\. lines? \d+(?:-\d+)? omitted \.\.\.")


class CopyWatch:
    """Watches an insertion's answer as it streams for a copy of the file's own lines (the type
    it goes into written out again): one check per new line, stopped at once."""

    def __init__(self, text: str):
        code = [ln.rstrip() for ln in text.split("\n") if ln.strip()]
        self._runs = {tuple(code[i:i + COPY_LINES]) for i in range(max(0, len(code) - COPY_LINES + 1))}
        self._seen = 0  # characters of the answer looked at: a delta that ends no line is not read again

    def copying(self, answer: str) -> bool:
        """The answer so far opens its code with COPY_LINES lines the file has, in a row."""
        if len(answer) >= self._seen and "\n" not in answer[self._seen:]:
            return False
        self._seen = len(answer)
        lines = answer.split("\n")
        opening = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("```")), None)
        if opening is None:
            return False
        code = [ln.rstrip() for ln in lines[opening + 1:-1] if ln.strip() and not ln.lstrip().startswith("```")]
        if any(_OMITTED.search(ln) for ln in code):
            return True  # the view's marker of lines left out: it is writing out what it was shown
        return len(code) >= COPY_LINES and tuple(code[:COPY_LINES]) in self._runs
