"""What the model sees of the open file: all of it when it fits a token budget, else the region,
the code around it and an outline of the rest, each run of lines left out marked where it was."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePath
from typing import Callable

# Characters a token holds, as the view counts: the embedded model's tokenizer measured 3.8-5.1 on
# Python (5.1 on argparse.py, 4.4 on steer's own modules, 3.8 on prompts.py): a view counted at 3.5
# costs at most its budget.
CHARS_PER_TOKEN = 3.5

# The budget for the embedded model: about what a 250-line file costs, so a file of any length costs
# no more to prewarm and read than one of that size (bench/bigfile.py). A remote backend with no
# context size known gets REMOTE_FILE_TOKENS; one that says its context gets a third of it.
LOCAL_FILE_TOKENS = 3000
REMOTE_FILE_TOKENS = 32000
MIN_FILE_TOKENS = 512

# What the view spends at most on each part before the outline, as shares of the budget.
_HEAD_SHARE = 0.15  # the file's imports and module-level lines before the first definition
_MEMBERS_SHARE = 0.10  # the lines of the classes around the region that are not definitions
_AROUND_SHARE = 0.45  # the definitions next to the region, whole
_WHOLE_STATEMENT_LINES = 3  # a module-level statement this short shows whole, else its first line
# What a line left out costs the estimate where it adds a mark ("# ... lines 120-480 omitted ...").
_MARK_TOKENS = 12


def estimate_tokens(text: str) -> int:
    """The tokens `text` costs at most, about (CHARS_PER_TOKEN characters a token)."""
    return -(-len(text) * 2 // 7)  # len / 3.5, rounded up, in integers


def fits(text: str, budget_tokens: int | None) -> bool:
    """The whole of `text` goes to the model (no budget, or it fits the budget)."""
    return budget_tokens is None or estimate_tokens(text) <= budget_tokens


def file_budget(configured: int | None, backend: str | None, engine: str | None, context: int | None) -> int:
    """The tokens the file's view may cost: the configured `file_tokens`; else LOCAL_FILE_TOKENS for
    the embedded model; else a third of the context a gateway says its engine has; else
    REMOTE_FILE_TOKENS (OpenAI, xAI: contexts of 128k tokens and more)."""
    if configured:
        return max(MIN_FILE_TOKENS, int(configured))
    if engine == "local" or (engine is None and backend == "local"):
        return LOCAL_FILE_TOKENS
    if context:
        return max(MIN_FILE_TOKENS, min(REMOTE_FILE_TOKENS, context // 3))
    return REMOTE_FILE_TOKENS


def session_budget(session) -> int:
    """file_budget for a Session (or anything with its `settings`, `server_engine`, `server_context`)."""
    settings = session.settings
    return file_budget(getattr(settings, "file_tokens", None), settings.backend, session.server_engine,
                       session.server_context)


def file_view(path: str, text: str, region: tuple[int, int] | None, budget_tokens: int) -> str:
    """What the model is shown of `text`: `text` itself when it fits `budget_tokens`; else, within
    the budget as far as the region allows (it is always shown whole): the region (0-based,
    end-exclusive lines) with the headers of the definitions around it, the file's imports, the
    definitions next to the region whole, and an outline of the rest (signatures, class heads,
    module constants), nearest first. Every run of lines left out is one comment line in the file's
    syntax (`# ... lines 120-480 omitted ...`; a body left out under its signature is `...`), so
    every line shown is a line of the file and the region's lines are where the file has them."""
    if fits(text, budget_tokens):
        return text
    if region is not None and region[0] == region[1]:  # an insertion point: around what it follows
        from steer_tui.insertion import around

        region = around(text, region[0], path)
    return _view(path, text, _clamp(region, text), budget_tokens)


def needs_region(name: str, text: str, region: tuple[int, int] | None, budget_tokens: int | None) -> str:
    """Why an edit of `text` (shown to the model as `name`) on `region` cannot be asked, or "": the
    file is over the budget, so the model sees only part of it, and the region is the whole file
    (or there is none): no answer could restate it. Said before anything is sent."""
    if fits(text, budget_tokens):
        return ""
    n = len(text.splitlines())
    if region is not None and not (region[0] <= 0 and region[1] >= n):
        return ""
    return (f"{name} has {n:,} lines (about {estimate_tokens(text):,} tokens), too long to edit whole: the model "
            f"is shown about {budget_tokens:,} tokens of it, around the code to change. Name a function or class "
            "in the instruction, put the cursor in one, or select the lines (steer edit: --region START:END); "
            "nothing was sent")


def view_note(path: str, text: str) -> str:
    """What the file message's first line says of a file shown in part: its length and how the
    lines left out are marked."""
    n = len(text.splitlines())
    opening, closing = _comment(path)
    return f" ({n:,} lines, shown in part: `{opening} ... lines a-b omitted ...{closing}` marks lines left out)"


def _clamp(region: tuple[int, int] | None, text: str) -> tuple[int, int] | None:
    if region is None:
        return None
    n = len(text.splitlines())
    start, end = max(0, min(region[0], n)), max(0, min(region[1], n))
    return (start, end) if end > start else None


# ---------------------------------------------------------------------------- the file's blocks


@dataclass(frozen=True, slots=True)
class _Block:
    """A definition or a statement of a scope: lines `start`..`end` (exclusive), its signature
    `head` (a range), a closing line `tail` shown with it ('}', 'end'), its enclosing block."""

    start: int
    end: int
    head: tuple[int, int]
    tail: int | None
    depth: int
    parent: int  # index of the enclosing block, -1 for the module
    kind: str  # a definition's kind (lang.defs), or "statement"
    scope: bool  # it holds definitions or members to outline (a class, an impl, a namespace...)


_TYPE_SCOPES = frozenset({"class", "struct", "impl", "trait", "interface", "record", "enum", "union", "module",
                          "namespace"})


@lru_cache(maxsize=4)
def _blocks(path: str, text: str) -> tuple[_Block, ...]:
    """The file's definitions and the statements of its module and class bodies, in file order."""
    from steer_tui import lang

    lines = text.splitlines()
    spec = lang.language(path)
    if spec is None:
        return _indent_blocks(lines)
    from steer_tui.lang.parsing import parse

    tree = parse(spec, text)
    found = _definitions(spec, tree)
    def_lines = sorted(node.start_point[0] for _, _, _, node in found)
    out: list[tuple] = []
    stack: list[tuple[int, int]] = []  # (end, index in out) of the definitions open here
    for start, end, kind, node in found:
        while stack and stack[-1][0] <= start:
            stack.pop()
        parent = stack[-1][1] if stack else -1
        line = node.start_point[0]
        head = (_head_start(lines, start, line), _head_end(node, line))
        tail = end - 1 if end - 1 >= head[1] and _closes(lines[end - 1]) else None
        out.append((start, end, head, tail, len(stack), parent, kind, kind in _TYPE_SCOPES, node))
        stack.append((end, len(out) - 1))
    statements: list[tuple] = []
    scopes = [(tree.root_node, -1, 0)] + [
        (b[8].child_by_field_name("body"), i, b[4] + 1) for i, b in enumerate(out) if b[7]]
    for container, parent, depth in scopes:
        if container is None:
            continue
        for child in container.named_children:
            if child.type in spec.comments:
                continue
            first, (row, column) = child.start_point[0], child.end_point
            last = row - 1 if column == 0 and row > first else row
            i = bisect_left(def_lines, first)
            if i < len(def_lines) and def_lines[i] <= last:
                continue  # a definition (or what wraps one): outlined as one
            # A long statement shown by its first line keeps its last too: a docstring or a list
            # left open would run on over everything after it.
            statements.append((first, last + 1, (first, first + 1), last if last > first else None, depth, parent,
                               "statement", False))
    # Parents are indexes into the definitions: the merged order gets its own.
    merged = sorted([(*b[:8], i) for i, b in enumerate(out)] + [(*st, -1) for st in statements],
                    key=lambda b: (b[0], -b[1]))
    new_index = {b[8]: k for k, b in enumerate(merged) if b[8] >= 0}
    return tuple(_Block(b[0], b[1], b[2], b[3], b[4], new_index[b[5]] if b[5] >= 0 else -1, b[6], b[7]) for b in merged)


def _definitions(spec, tree) -> list[tuple[int, int, str, object]]:
    """(start, end, kind, node) of every definition, in file order, an outer one first (a query
    runs in the parser's C code: walking a 20,000-line file's nodes in Python took 0.6 s)."""
    import tree_sitter

    from steer_tui.lang import defs

    nodes = tree_sitter.QueryCursor(_query(spec)).captures(tree.root_node).get("def", [])
    found = []
    for node in nodes:
        kind = defs.kind_of(spec, node)
        if kind is not None:
            start, end = defs.span_of(spec, node)
            found.append((start, end, kind, node))
    found.sort(key=lambda f: (f[0], -f[1], f[3].start_byte))
    return found


@lru_cache(maxsize=None)
def _query(spec):
    import tree_sitter

    from steer_tui.lang.parsing import language

    types = [*spec.definitions, *spec.bound]
    return tree_sitter.Query(language(spec), "[" + " ".join(f"({t})" for t in types) + "] @def")


def _head_start(lines: list[str], start: int, line: int) -> int:
    """The first line of a definition's signature: its decorators and attributes, not the comments above it."""
    first = line
    while first > start and lines[first - 1].lstrip().startswith(("@", "#[")):
        first -= 1
    return first


def _head_end(node, line: int) -> int:
    """The line after a definition's signature: with the body's `{` where it opens one, else up to
    the token before the body (Python's colon: comments at the top of a body are the body's)."""
    body = node.child_by_field_name("body")
    if body is None:
        return line + 1
    if (body.text or b"")[:1] == b"{":
        return body.start_point[0] + 1
    before = body.prev_sibling
    while before is not None and before.type == "comment":
        before = before.prev_sibling
    row = before.end_point[0] if before is not None else body.start_point[0]
    return max(row + 1, line + 1)


def _closes(line: str) -> bool:
    """A definition's last line that only closes it ('}', '};', 'end')."""
    s = line.strip()
    return bool(s) and (s[0] in "})]" and len(s) <= 3 or s == "end")


def _indent_blocks(lines: list[str]) -> tuple[_Block, ...]:
    """A language steer does not know: each line at column 0 opens a block running to the next one
    (a closing bracket at column 0 ends the block above it); its first line is its outline."""
    out: list[_Block] = []
    starts = [i for i, s in enumerate(lines) if s.strip() and not s[0].isspace() and not s.lstrip().startswith(("}", ")", "]"))]
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        tail = end - 1 if end - 1 > start and _closes(lines[end - 1]) else None
        kind = "block" if end - start > 1 else "statement"
        out.append(_Block(start, end, (start, start + 1), tail, 0, -1, kind, False))
    return tuple(out)


# ---------------------------------------------------------------------------- choosing lines


_IMPORT = re.compile(r"\s*(import\b|from\s+\S+\s+import\b|#\s*include\b|use\b|using\b|require\b|package\b|"
                     r"(const|let|var)\s+.*\brequire\s*\()")


class _Picker:
    """The lines chosen so far and what they cost (an estimate: the final view is measured)."""

    def __init__(self, lines: list[str], budget: int):
        self.lines = lines
        self.budget = budget
        self.shown = bytearray(len(lines))
        self.cost = 0
        self.taken: list[list[tuple[int, int]]] = []  # each unit taken, in order (the must first)

    def price(self, ranges: list[tuple[int, int]]) -> int:
        chars, marks = 0, 0
        for a, b in ranges:
            new = [i for i in range(a, b) if not self.shown[i]]
            if not new:
                continue
            chars += sum(len(self.lines[i]) + 1 for i in new)
            marks += 1
        return -(-chars * 2 // 7) + marks * _MARK_TOKENS if chars else 0  # as estimate_tokens counts

    def take(self, ranges: list[tuple[int, int]], within: int | None = None, force: bool = False) -> bool:
        """Show `ranges` if they fit the budget (and `within`, a tier's own limit on its cost)."""
        cost = self.price(ranges)
        if cost == 0:
            return True
        if not force and (self.cost + cost > self.budget or (within is not None and cost > within)):
            return False
        for a, b in ranges:
            for i in range(a, b):
                self.shown[i] = 1
        self.cost += cost
        self.taken.append(ranges)
        return True


def _outline_ranges(b: _Block) -> list[tuple[int, int]]:
    ranges = [b.head]
    if b.tail is not None:
        ranges.append((b.tail, b.tail + 1))
    return ranges


def _distance(b: _Block, focus: tuple[int, int] | None) -> int:
    if focus is None:
        return b.start
    if b.end <= focus[0]:
        return focus[0] - b.end
    if b.start >= focus[1]:
        return b.start - focus[1]
    return 0


@lru_cache(maxsize=8)
def _view(path: str, text: str, region: tuple[int, int] | None, budget: int) -> str:
    lines = text.splitlines()
    blocks = _blocks(path, text)
    pick = _Picker(lines, budget)
    around: list[int] = []  # the blocks holding the region, innermost last
    if region is not None:
        a, z = region
        for k, b in enumerate(blocks):
            if b.start <= a and z <= b.end and (b.start, b.end) != (a, z) and b.kind != "statement":
                around.append(k)
            elif b.kind != "statement" and (b.start < a < b.end or b.start < z - 1 < b.end) and not (a <= b.start and b.end <= z):
                around.append(k)  # a definition the region cuts into: its signature is context too
        around.sort(key=lambda k: (blocks[k].start, -blocks[k].end))
        pick.take([region, *(r for k in around for r in _outline_ranges(blocks[k]))], force=True)
    must = len(pick.taken)
    # The file's head: imports first, then the other module-level lines before the first definition.
    first_def = next((b.start for b in blocks if b.kind != "statement" and b.depth == 0), len(lines))
    head = [b for b in blocks if b.kind == "statement" and b.parent == -1 and b.end <= first_def]
    head.sort(key=lambda b: (not _IMPORT.match(lines[b.start]), b.start))
    spent = pick.cost
    for b in head:
        whole = b.end - b.start <= _WHOLE_STATEMENT_LINES
        pick.take([(b.start, b.end)] if whole else _outline_ranges(b), within=int(budget * _HEAD_SHARE) - (pick.cost - spent))
    # The members of the classes around the region that are not definitions (fields, attributes).
    scopes = set(around)
    members = sorted((b for b in blocks if b.kind == "statement" and b.parent in scopes), key=lambda b: _distance(b, region))
    spent = pick.cost
    for b in members:
        pick.take([(b.start, b.end)] if b.end - b.start <= 2 else _outline_ranges(b),
                  within=int(budget * _MEMBERS_SHARE) - (pick.cost - spent))
    if region is not None:
        _surroundings(pick, blocks, around, region, int(budget * _AROUND_SHARE))
    _outline(pick, blocks, around, region)
    view = _render(path, lines, pick.shown, blocks)
    if estimate_tokens(view) <= budget or len(pick.taken) == must:
        return view
    # The marks cost more than estimated: leave out the last units taken until the view fits.
    units = pick.taken
    lo, hi = must, len(units) - 1
    best = _render(path, lines, _shown(len(lines), units[:must]), blocks)
    while lo <= hi:
        mid = (lo + hi) // 2
        candidate = _render(path, lines, _shown(len(lines), units[:mid]), blocks)
        if estimate_tokens(candidate) <= budget:
            best, lo = candidate, mid + 1
        else:
            hi = mid - 1
    return best


def _shown(n: int, units: list[list[tuple[int, int]]]) -> bytearray:
    shown = bytearray(n)
    for ranges in units:
        for a, b in ranges:
            shown[a:b] = b"\x01" * (b - a)
    return shown


def _surroundings(pick: _Picker, blocks: tuple[_Block, ...], around: list[int], region: tuple[int, int], share: int) -> None:
    """The definitions and statements next to the region, whole, nearest first, growing out one
    level at a time (the methods beside it, then the class's neighbours) while `share` lasts."""
    lo, hi = region
    first, last = region
    spent = pick.cost
    levels = [k for k in around if blocks[k].start <= lo and hi <= blocks[k].end][::-1]  # innermost first
    for level in [*levels, -1]:
        siblings = sorted((b for b in blocks if b.parent == level and (b.end <= lo or b.start >= hi)), key=lambda b: b.start)
        before = [b for b in siblings if b.end <= lo][::-1]
        after = [b for b in siblings if b.start >= hi]
        floor = blocks[level].head[1] if level >= 0 else 0
        ceiling = (blocks[level].tail if blocks[level].tail is not None else blocks[level].end) if level >= 0 else len(pick.lines)
        open_before, open_after = True, True
        while (open_before and before) or (open_after and after):
            left = pick.cost - spent
            # Nearest to the region first: the two sides take turns as their next block is closer.
            gap_before = first - before[0].start if open_before and before else None
            gap_after = after[0].end - last if open_after and after else None
            if gap_after is None or (gap_before is not None and gap_before < gap_after):
                b = before.pop(0)
                if pick.take([(b.start, lo)], within=share - left):
                    lo = b.start
                else:
                    open_before = False
            else:
                b = after.pop(0)
                if pick.take([(hi, b.end)], within=share - left):
                    hi = b.end
                else:
                    open_after = False
        if open_before and not before and lo > floor:
            pick.take([(floor, lo)], within=share - (pick.cost - spent))
        if open_after and not after and hi < ceiling:
            pick.take([(hi, ceiling)], within=share - (pick.cost - spent))
        if not (open_before and open_after) or level < 0:
            return
        lo, hi = blocks[level].start, blocks[level].end


def _outline(pick: _Picker, blocks: tuple[_Block, ...], around: list[int], region: tuple[int, int] | None) -> None:
    """Signatures (and closing lines), nearest first: the members of the blocks around the region,
    then the module's definitions and constants, then the members of the other classes, then the rest."""
    scopes = set(around)

    def group(b: _Block) -> int:
        if b.parent in scopes:
            return 0
        if b.parent == -1:
            return 1
        if blocks[b.parent].scope and blocks[b.parent].parent == -1:
            return 2
        return 3

    order = sorted(range(len(blocks)), key=lambda k: (group(blocks[k]), _distance(blocks[k], region), blocks[k].start))
    for k in order:
        b = blocks[k]
        if b.parent >= 0 and not pick.shown[blocks[b.parent].head[0]]:
            continue  # a member of a class whose own signature is left out would stand under the wrong one
        pick.take(_outline_ranges(b))


# ---------------------------------------------------------------------------- the text shown


_HASH = frozenset({"python", "ruby", "bash"})
_BY_SUFFIX = {".toml": ("#", ""), ".yaml": ("#", ""), ".yml": ("#", ""), ".sh": ("#", ""), ".r": ("#", ""),
              ".pl": ("#", ""), ".cfg": ("#", ""), ".ini": (";", ""), ".sql": ("--", ""), ".lua": ("--", ""),
              ".hs": ("--", ""), ".html": ("<!--", " -->"), ".xml": ("<!--", " -->"), ".md": ("<!--", " -->"),
              ".vue": ("<!--", " -->"), ".css": ("/*", " */"), ".kt": ("//", ""), ".swift": ("//", ""),
              ".scala": ("//", ""), ".dart": ("//", ""), ".zig": ("//", "")}


# At most this many non-blank lines outside a rewrite's region (imports, a class's head and brace)
# let the region's block stand for the file where nothing read the file's message ahead (a one-shot
# command): shown twice, the region is read twice, some 2-3 s of a small file's edit on two cores
# (bench/results/region-once.md). A file message with the region cut out of it was copied as the
# answer by the small model; more lines outside are shown as always.
ONCE_OUTSIDE = 6


def region_once(text: str, region: tuple[int, int] | str | None) -> bool:
    """The region's block alone may show the file: `region` is a line range holding all but
    ONCE_OUTSIDE of the file's non-blank lines."""
    if not isinstance(region, tuple) or region[0] >= region[1]:
        return False
    lines = text.splitlines()
    start, end = max(0, region[0]), min(len(lines), region[1])
    outside = sum(1 for ln in lines[:start] + lines[end:] if ln.strip())
    return outside <= ONCE_OUTSIDE


def _comment(path: str) -> tuple[str, str]:
    """The file's comment syntax: (opening, closing) of a one-line comment."""
    from steer_tui import lang

    spec = lang.language(path)
    if spec is not None:
        return ("#", "") if spec.key in _HASH else ("//", "")
    return _BY_SUFFIX.get(PurePath(path or "").suffix.lower(), ("#", ""))


def _render(path: str, lines: list[str], shown: bytearray, blocks: tuple[_Block, ...]) -> str:
    opening, closing = _comment(path)
    python = opening == "#" and PurePath(path or "").suffix.lower() in (".py", ".pyi", ".pyw")
    # A gap that is just the body under a signature shown: ('...' in Python, '// ...' elsewhere).
    bodies = {b.head[1]: (b.tail if b.tail is not None else b.end) for b in blocks if b.kind != "statement"}
    out: list[str] = []
    n = len(lines)
    i = 0
    while i < n:
        if shown[i]:
            out.append(lines[i])
            i += 1
            continue
        j = i
        while j < n and not shown[j]:
            j += 1
        _gap(out, lines, i, j, bodies.get(i) if i > 0 and shown[i - 1] else None, python, opening, closing)
        i = j
    return "\n".join(out) + "\n"


def _gap(out: list[str], lines: list[str], i: int, j: int, body_end: int | None, python: bool,
         opening: str, closing: str) -> None:
    """The lines i..j (left out) as the view shows them: blank lines as they are, a body under the
    signature just shown (ending at `body_end`) as `...`, anything else as one comment line saying
    which lines they were."""
    while i < j and not lines[i].strip():
        out.append(lines[i])
        i += 1
    if i == j:
        return
    trailing = j
    while trailing > i and not lines[trailing - 1].strip():
        trailing -= 1
    text = [k for k in range(i, trailing) if lines[k].strip()]
    indent = min(len(lines[k]) - len(lines[k].lstrip()) for k in text)
    pad = lines[text[0]][:indent]
    if body_end is not None and i < body_end <= j:
        pad = lines[text[0]][: len(lines[text[0]]) - len(lines[text[0]].lstrip())]  # the body's own indent
        out.append(f"{pad}..." if python else f"{pad}{opening} ...{closing}")
        _gap(out, lines, body_end, j, None, python, opening, closing)
        return
    span = f"line {i + 1}" if trailing == i + 1 else f"lines {i + 1}-{trailing}"
    out.append(f"{pad}{opening} ... {span} omitted ...{closing}")
    out.extend(lines[trailing:j])


def turn_focus(text: str, shown, region: tuple[int, int] | None, budget: int,
               named: Callable[[], tuple[int, int]]) -> tuple[int, int] | None:
    """The lines a file too big to show whole is shown around for a turn: the region the prompt
    shows (`shown`, the turn's, while it shows an answer's text instead), else the turn's `region`;
    in a format with no region, `named()` (the definitions the words name). None where the file
    fits. The prewarm of the same region shows the same view, so it stays cached."""
    if isinstance(shown, tuple):
        return shown
    if region is not None:
        return region
    return None if fits(text, budget) else named()
