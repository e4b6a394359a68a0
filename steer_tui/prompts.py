"""System prompts per edit format and the message builders every backend uses.

Message layout is chosen for prefix caching: [system] + [user: the file] is the stable
prefix (the local engine evaluates it once, on prewarm), and everything that changes per
turn (region, instruction, follow-ups) comes after it, in later messages.
"""

from __future__ import annotations

import ast
import re
from pathlib import PurePath

from steer_tui import lang
from steer_tui.edits.anchor import may_delete
from steer_tui.edits.blocks import APPLY_PATCH, REWRITE, SEARCH_REPLACE, UDIFF  # each format is a block kind
from steer_tui.edits.pydefs import first_line
from steer_tui.edits.pytree import nodes, parse_tree
from steer_tui.edits.syntax import is_python
from steer_tui import intent, named_constants

FORMATS = (SEARCH_REPLACE, APPLY_PATCH, UDIFF, REWRITE)

# Measured by bench/formats.py on the embedded Qwen2.5-Coder-1.5B, 30 checked tasks, greedy:
# region rewrite 28/30 passed (median 11.0 s/task after prewarm) vs SEARCH/REPLACE 16/30 (9.8 s).
# The small model often copies a partial line into SEARCH, or writes the new code on both sides.
LOCAL_FORMAT = REWRITE

_COMMON = (
    "You are steer, a pair programmer working in the user's terminal. The user shows you one file, "
    "then asks for a change to it. Make exactly the change asked for and nothing else: keep every other "
    "line, comment, name and indentation as it is. Do not explain; reply with the edit only."
)

_SYSTEM = {
    SEARCH_REPLACE: _COMMON
    + """

Reply with one or more SEARCH/REPLACE blocks, in file order:

<<<<<<< SEARCH
lines copied exactly from the file
=======
the new lines that replace them
>>>>>>> REPLACE

Rules: SEARCH copies the current lines exactly (same indentation), whole lines only, and just enough
of them to be unique in the file. REPLACE holds the complete new lines. To insert, SEARCH for the
line before the insertion point and repeat it in REPLACE. To delete, leave REPLACE empty.
Example: to make `def area(r):` return a float, reply
<<<<<<< SEARCH
    return 3 * r * r
=======
    return 3.14159 * r * r
>>>>>>> REPLACE""",
    APPLY_PATCH: _COMMON
    + """

Reply with one patch in the apply_patch format:

*** Begin Patch
*** Update File: PATH
@@ def the_enclosing_function(
 a context line, unchanged (starts with a space)
-a line to remove (starts with -)
+a line to add (starts with +)
 another context line
*** End Patch

Give about three lines of context around each change, copied exactly from the file. Use one @@
section per changed place, in file order. Nothing before *** Begin Patch or after *** End Patch.""",
    UDIFF: _COMMON
    + """

Reply with a unified diff of the file (--- a/PATH, +++ b/PATH, then @@ hunks). Context lines start
with a space, removed lines with -, added lines with +, copied exactly from the file. Line numbers in
@@ headers may be approximate. Nothing but the diff.""",
    REWRITE: _COMMON
    + """

The user marks a region of the file (usually one function) and asks for a change inside it. Reply
with the complete new text of that region, and only that region, in a single fenced code block. Keep
the region's first line's indentation and every line you are not asked to change exactly as it is.
Every request needs a change: a reply identical to the region is wrong. Find the lines the request
is about and change them.

Example. Region:
```
def total(items):
    return sum(item.price for item in items)
```
Request: skip items without a price.
Reply:
```
def total(items):
    return sum(item.price for item in items if item.price is not None)
```""",
}

_REMINDER = {
    SEARCH_REPLACE: "Reply with SEARCH/REPLACE blocks only.",
    APPLY_PATCH: "Reply with the patch only.",
    UDIFF: "Reply with the unified diff only.",
    REWRITE: "Reply with the whole region, with the change made, in one code block, nothing else.",
}

_LANGS = {
    ".py": "python", ".js": "javascript", ".ts": "typescript", ".tsx": "tsx", ".jsx": "jsx", ".rs": "rust",
    ".go": "go", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".java": "java",
    ".rb": "ruby", ".sh": "bash", ".md": "markdown", ".toml": "toml", ".json": "json", ".yaml": "yaml",
    ".yml": "yaml", ".html": "html", ".css": "css", ".sql": "sql", ".kt": "kotlin", ".swift": "swift",
}


def system_prompt(fmt: str) -> str:
    """The system prompt (Responses `instructions`) for an edit format."""
    try:
        return _SYSTEM[fmt]
    except KeyError:
        raise ValueError(f"unknown edit format {fmt!r}; expected one of {', '.join(FORMATS)}") from None


def default_format(backend: str | None, model: str | None = None) -> str:
    """The edit format to ask for: apply_patch for GPT-5/Codex, the measured one locally, else blocks."""
    name = (model or "").lower()
    if re.search(r"gpt-5|codex", name):
        return APPLY_PATCH  # what OpenAI trains these models on
    if backend == "local":
        return LOCAL_FORMAT
    return SEARCH_REPLACE


def language(path: str | None) -> str:
    return _LANGS.get(PurePath(path or "").suffix.lower(), "")


def file_message(path: str, text: str, region: tuple[int, int] | None = None, file_tokens: int | None = None) -> dict:
    """The user message that shows the file: identical on every turn, so it stays cached.

    `file_tokens`: what the file may cost (steer_tui.project.window.file_budget); a file over it is
    shown in part, around `region` (steer_tui.project.window.file_view), so the message is the
    same for the same region. Without it, or when the file fits, the whole file."""
    from steer_tui.project.window import file_view, fits, view_note

    note = ""
    if not fits(text, file_tokens):
        note, text = view_note(path, text), file_view(path, text, region, file_tokens)
    body = text if text.endswith("\n") or not text else text + "\n"
    return {"role": "user", "content": f"File: {path}{note}\n```{language(path)}\n{body}```"}


def prewarm_input(fmt: str, path: str, text: str, region: tuple[int, int] | str | None = None,
                  typed: str = "", complete: bool = False, *, context=None,
                  file_tokens: int | None = None, once: bool = False) -> list[dict]:
    """Input for a `generate: false` prewarm: exactly the prefix `build_input` starts with.

    With `region` (the cursor's function, when the user is about to rewrite it), the prewarm also
    covers the region block (and, for a rewrite, the reminder after it) that opens the final message,
    so after Enter only the instruction is evaluated. Send it again when the file changes or the
    cursor moves to another region. `typed` (with a region): the instruction's whole words typed so
    far, which follow; `complete`: the typed words may be the whole instruction, so the message is
    the turn's own, end included (steer_tui/typing_prewarm.py decides which). `context`: what the
    project's other files say (steer_tui.project.context.RequestContext), placed as in `build_input`.
    `file_tokens`: the file's budget, as in `build_input`: a big file is shown in part (`view_focus`).
    `once`: as in `build_input`, a region that is all but a few lines of the file stands for it."""
    system_prompt(fmt)  # validates fmt
    focus = view_focus(fmt, region if isinstance(region, tuple) else None)
    out = [*_file_messages(fmt, path, text, region, focus, file_tokens, once), *context_messages(context)]
    aside = context.aside if context else ""
    if region is not None and typed and complete:
        out.append(instruction_message(fmt, typed, text, region, aside, path))
    elif region is not None:
        opening = message_opening(fmt, text, region, path)
        out.append({"role": "user", "content": opening + (aside_text(aside) + typed.strip() if typed else "")})
    return out


def region_lines(text: str, region: tuple[int, int]) -> str:
    start, end = region
    lines = text.splitlines(keepends=True)
    return "".join(lines[start:end])


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def enclosing_region(text: str, line: int, path: str | None = None) -> tuple[int, int]:
    """The (start, end) 0-based, end-exclusive line range of the innermost function/class around `line`.

    Python is parsed with `ast` (decorators included); a file in another language steer_tui.lang
    knows (by `path`) with its grammar (attributes and leading comments included); anything else,
    or code that does not parse, falls back to the indentation block around the line. The whole
    file if nothing encloses it.
    """
    lines = text.splitlines()
    other = _other_language(path, text)
    if other is not None:
        found = other.innermost(path, text, line)
        return (found.start, found.end) if found is not None else (0, len(lines))
    tree = parse_tree(text)
    if tree is None:
        return _indent_block(lines, line)
    return _innermost(tree, line, _DEFS) or (0, len(lines))


def _other_language(path: str | None, text: str):
    """steer_tui.lang when `path` is in a language it knows other than Python (which keeps `ast`)
    and `text` parses in it; else None (then the Python parse or the indentation guess)."""
    if path is None:
        return None
    from steer_tui import lang  # tree-sitter is loaded by the first file not in Python, not at start-up

    spec = lang.language(path)
    if spec is None or spec.key == "python" or lang.syntax_errors(path, text):
        return None
    return lang


def _innermost(tree: ast.AST, line: int, kinds: tuple[type, ...]) -> tuple[int, int] | None:
    """The lines of the innermost definition of one of `kinds` around 0-based `line` (decorators included)."""
    best: tuple[int, int] | None = None
    for node in nodes(tree):
        if isinstance(node, kinds):
            first, last = _span(node)
            if first <= line < last and (best is None or last - first < best[1] - best[0]):
                best = (first, last)
    return best


def _span(node: ast.AST) -> tuple[int, int]:
    """A definition's 0-based end-exclusive lines, its decorators included."""
    return first_line(node), node.end_lineno or node.lineno


# "this method", "the current function", "that class": the definition at the cursor. "this"/"it"
# alone mean it only as what a deletion deletes ("delete this"; "make it faster" may mean more).
_AT_CURSOR = intent.AT_CURSOR  # steer_tui/intent.py
_IT = intent.THIS_OR_IT  # steer_tui/intent.py


def _deletes_this(words: str, lines: list[str], path: str | None = None) -> bool:
    """The words ask to delete "this" or "it" and name no definition to delete ("delete this")."""
    return bool(_IT.search(words or "")) and may_delete(words, lines, path) is True


def cursor_definition(text: str, line: int, words: str, path: str | None = None) -> tuple[int, int] | None:
    """The definition at the cursor (0-based `line`) that the words point at ("add a docstring to
    this method", "delete this"): its lines, or None when they point at none or the file does not
    parse (as Python, or as the language steer_tui.lang knows `path` to be in). The app's cursor region
    is the top-level block around the cursor (steer_tui.region), where "this method" no longer says
    which method."""
    said = _AT_CURSOR.search(words or "")
    if said is None and not _deletes_this(words, text.splitlines(), path):
        return None
    kind = said.group(1).lower() if said else ""
    other = _other_language(path, text)
    if other is not None:
        kinds = other.TYPE_KINDS if kind == "class" else other.FUNCTION_KINDS if kind else None
        found = other.innermost(path, text, line, kinds)
        return (found.start, found.end) if found is not None else None
    tree = parse_tree(text)
    if tree is None:
        return None
    kinds = (ast.ClassDef,) if kind == "class" else (ast.FunctionDef, ast.AsyncFunctionDef) if kind else _DEFS
    return _innermost(tree, line, kinds)


# A file this short is rewritten whole: the region could only leave out an import or a helper.
SMALL_FILE_LINES = 12
_RENAME = intent.RENAME  # steer_tui/intent.py


def rewrite_region(text: str, instruction: str = "", line: int | None = None, path: str | None = None) -> tuple[int, int]:
    """The region a region rewrite should cover: always a (start, end) 0-based end-exclusive range.

    In order: the function/class around `line` (the cursor) if there is one; the whole file when it
    is small, or when the instruction renames one of its definitions or constants (the uses change
    too); else the definitions the instruction names, the narrowest first (a method, not its class; see
    `_named`); several names: the span covering them all), or the module or class constants it names
    (steer_tui.named_constants); else the whole file. Give the same
    range to `build_input(region=...)` and to the parser (region_text=region_lines(text, r),
    region_start=r[0]). `path` tells the language: steer_tui.lang finds the definitions where it
    knows one besides Python."""
    whole = (0, len(text.splitlines()))
    if line is not None:
        found = enclosing_region(text, line, path)
        if found != whole:
            return found
    if whole[1] <= SMALL_FILE_LINES:
        return whole
    defs = definitions(text, path)
    renamed = _RENAME.search(instruction)
    if renamed:
        name = renamed.group(1).split(".")[-1]
        if name in defs or name in named_constants.constants(path, text):
            return whole
    tiers = _named(instruction)
    # A constant counts where it is written as code (backticked, or looking like a name). The
    # definitions named beside it win unless they hold it (its class): "make fetch retry
    # MAX_RETRIES times" is an edit of fetch. The last tier (every word, the verb too) is too loose
    # to outvote a constant: "add" is also a method's name.
    code = [n for n in tiers[0] + tiers[1] if n not in defs]
    held = named_constants.named(instruction, code, named_constants.constants(path, text)) if code else []
    for tier, names in enumerate(tiers):
        spans = _named_spans(instruction, names, defs) if defs else []
        if not spans:
            continue
        if held and (tier == len(tiers) - 1 or all(any(a <= c and d <= b for c, d in held) for a, b in spans)):
            break
        if tier < PLAIN_TIER:
            spans = _functions_beside_types(text, path, instruction, spans, tiers[PLAIN_TIER], defs)
        return deletion_region(text, instruction, _covering(spans), path)
    table = named_constants.constants(path, text)  # parsed once per text (cached)
    said = held or named_constants.named(instruction, named_constants.spoken(instruction, table), table)
    if not said:
        return whole
    if may_delete(instruction, text.splitlines(), path):  # shown only what is to go, the model writes it back
        return named_constants.paragraph(table, _covering(said))
    return _covering(said)


def edit_region(text: str, instruction: str, path: str | None) -> tuple[int, int]:
    """The region a rewrite asked in these words covers (`rewrite_region`), or the empty region at
    the insertion point where they ask for a new definition alone (steer_tui.insertion)."""
    from steer_tui import insertion

    region = rewrite_region(text, instruction, path=path)
    whole = (0, len(text.splitlines()))
    if region != whole and insertion.wanted(instruction) and not insertion.is_type(text, region, path):
        # A function the words reach ("natural_weekday ... of a date" reaches `naturaldate`, "a
        # function that is natural_list with an Oxford comma" names it) is no edit target of a new
        # definition asked alone: it goes where new functions go, the code it mentions untouched.
        region = whole
    at = insertion.point(text, instruction, region, path)
    return region if at is None else (at, at)


PLAIN_TIER = 2  # _named's tier of plain words (the first word left out)


def _functions_beside_types(text: str, path: str | None, instruction: str, spans: list[tuple[int, int]],
                            plain: list[str], defs: dict) -> list[tuple[int, int]]:
    """`spans`, or where they are all classes (types) and the instruction also names functions or
    methods in plain words, those functions. A class name reads as code by its inner capitals
    (`TransportError`) where a function's one-word name (`fetch`) does not, so the tiers alone
    would pick the class in "make fetch raise TransportError"; a type named beside a function is
    what the function uses (raises, returns, takes), and a method named with its class is the
    method alone ("make RetryPolicy's delay grow")."""
    types = _type_spans(text, path)
    if not types or not all(span in types for span in spans):
        return spans
    functions = [span for span in _named_spans(instruction, plain, defs) if span not in types]
    return functions or spans


def _type_spans(text: str, path: str | None) -> set[tuple[int, int]]:
    """The spans of the classes (and other types: structs, interfaces, enums) of `text`."""
    if path is not None and not is_python(path):
        return {(d.start, d.end) for d in lang.definitions(path, text) if d.kind in lang.TYPE_KINDS}
    tree = parse_tree(text)
    return {_span(node) for node in nodes(tree) if isinstance(node, ast.ClassDef)} if tree is not None else set()


def _covering(spans: list[tuple[int, int]]) -> tuple[int, int]:
    """The lines from the first span's start to the last one's end."""
    return min(a for a, _ in spans), max(b for _, b in spans)


def deletion_request(text: str, instruction: str, region: tuple[int, int], path: str | None = None) -> str:
    """The instruction, with the name of the definition that is the region (the cursor's) added
    where it asks to delete "this" or "it" ("delete this method (`cheapest`)"): the request is then
    asked of the code around that definition (deletion_region), where "this" no longer says which."""
    lines = text.splitlines()
    if not _deletes_this(instruction, lines, path):
        return instruction
    name = next((n for n, span in definitions(text, path).items() if span == tuple(region)), None)
    if name is None:
        return instruction
    named = f"{instruction.rstrip()} (`{name}`)"
    return named if may_delete(named, lines, path) == {name} else instruction


def deletion_region(text: str, instruction: str, region: tuple[int, int], path: str | None = None) -> tuple[int, int]:
    """`region`, or where it holds nothing but definitions the instruction asks to delete ("delete
    the cheapest method", steer_tui.edits.anchor.may_delete), the code around them that stays: the class
    they are in, else the next definition (the one before when they are last), else the file.

    Shown only what is to go, the small model cannot answer with nothing: it wrote the method back
    as `pass`, renamed it, or copied the functions after it into the class. Shown the class, it
    writes the class without the method; a method it also leaves out stays (anchoring keeps every
    definition the instruction does not name)."""
    lines = text.splitlines()
    names = may_delete(instruction, lines, path)
    if not isinstance(names, frozenset):
        return region
    defs = definitions(text, path)
    going = [defs[n] for n in names if n in defs]
    start, end = region
    if not going or not all(any(a <= i < b for a, b in going) for i in range(start, end) if lines[i].strip()):
        return region
    lo, hi = _covering(going)
    around = [(a, b) for a, b in defs.values() if a <= lo and hi <= b and (a, b) != (lo, hi)]
    if around:
        return min(around, key=lambda s: s[1] - s[0])
    top = [(a, b) for a, b in defs.values() if not any(o != (a, b) and o[0] <= a and b <= o[1] for o in defs.values())]
    after = [s for s in top if s[0] >= hi]
    before = [s for s in top if s[1] <= lo]
    if after:
        return lo, min(after)[1]
    if before:
        return max(before)[0], hi
    return 0, len(lines)


WORDS = re.compile(r"[A-Za-z_](?:[A-Za-z0-9_.]*[A-Za-z0-9_])?")  # a name, dotted or not, as instructions write it


def reads_as_code(word: str) -> bool:
    """A name written as code, not a plain word: an underscore, a dot, a digit or inner capitals
    (`parse_line`, `Stack.pop`, `MAX_RETRIES`, `getValue`; not `items` or `Item`)."""
    return "_" in word or "." in word or any(c.isdigit() for c in word) or word[1:] != word[1:].lower()


def _named(instruction: str) -> list[list[str]]:
    """The names an instruction may mean, in tiers tried in order: `backticked` names; words that
    look like code (an underscore, a digit, a dot, inner capitals, or a call's parenthesis); the
    other words, leaving out the first (usually the verb: "add a docstring to cheapest" means
    `cheapest`, not a method `add`); every word."""
    quoted = [n.split(".")[-1] for n in re.findall(r"`([A-Za-z_][A-Za-z0-9_.]*)", instruction)]
    code, plain = [], []
    for i, m in enumerate(WORDS.finditer(instruction)):
        word = m.group(0)
        looks_like_code = reads_as_code(word) or instruction[m.end() : m.end() + 1] == "("
        (code if looks_like_code else plain).append((i, word.split(".")[-1]))
    return [quoted, [w for _, w in code], [w for i, w in plain if i > 0], [w for _, w in plain]]


_LIST_GAP = re.compile(r"`?\s*(?:,\s*(?:(?:and|or)\s+)?|(?:and|or|&)\s+)`?", re.I)


def _named_spans(instruction: str, names: list[str], defs: dict) -> list[tuple[int, int]]:
    """The spans of the definitions among `names` and those listed with them, a method named with
    its class ("Stack.pop", or "pop in Stack") standing for the method alone."""
    spans = [defs[n] for n in _listed_with(instruction, [n for n in names if n in defs], defs)]
    return [s for s in spans if not any(o != s and s[0] <= o[0] and o[1] <= s[1] for o in spans)]


def _listed_with(instruction: str, names: list[str], defs: dict) -> list[str]:
    """`names` and the definitions listed with them ("parse_price and total", "push, pop or peek"):
    a plain word next to a code-like name in a list is named too, not just the code-like one."""
    words = [m for m in WORDS.finditer(instruction) if m.group(0).lower() not in ("and", "or")]
    out = list(names)
    grew = bool(out)
    while grew:
        grew = False
        for i in range(len(words) - 1):
            a, b = words[i], words[i + 1]
            na, nb = a.group(0).split(".")[-1], b.group(0).split(".")[-1]
            if (na in out) == (nb in out) or not _LIST_GAP.fullmatch(" " + instruction[a.end() : b.start()]):
                continue
            new = nb if na in out else na
            if new in defs:
                out.append(new)
                grew = True
    return out


def definitions(text: str, path: str | None = None) -> dict[str, tuple[int, int]]:
    """Name -> (start, end) of each def/class (innermost wins for nested names of the same name): by
    Python's `ast` for a Python file or no path, by steer_tui.lang for another language it knows."""
    if path is not None and not is_python(path):
        # The layer lists an outer definition before those inside it: the innermost is written last.
        return {d.name: (d.start, d.end) for d in lang.definitions(path, text) if d.name}
    tree = parse_tree(text)
    if tree is None:
        return {}
    out: dict[str, tuple[int, int]] = {}
    for node in nodes(tree):
        if isinstance(node, _DEFS):
            out[node.name] = _span(node)
    return out


def _indent_block(lines: list[str], line: int) -> tuple[int, int]:
    def indent(s: str) -> int:
        return len(s) - len(s.lstrip())

    if not lines:
        return (0, 0)
    line = max(0, min(line, len(lines) - 1))
    start = line
    while start > 0 and (not lines[start].strip() or indent(lines[start]) > 0):
        start -= 1
    base = indent(lines[start])
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or indent(lines[end]) > base):
        end += 1
    # A closing bracket at the block's own indent (C-like languages) belongs to it.
    if end < len(lines) and indent(lines[end]) == base and lines[end].strip()[:1] in ("}", ")", "]"):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return (start, end)


INSERT_REMINDER = "Reply with only the new code, in one code block, nothing else."


def _insertion_block(text: str, at: int, path: str | None = None) -> str:
    """An empty region: where the new code goes (an insertion point, steer_tui.insertion), and,
    inside a type, that only its new member is wanted (asked for a member, a small model writes the
    whole type out again)."""
    from steer_tui.insertion import holder_head

    head = holder_head(text, at, path)
    if head:
        return (f"The new code goes inside `{head}`, after line {at}, at the end of its body. Write only the new "
                "member, not the lines around it; every line of the file stays as it is.")
    rest = text.splitlines()[at:]
    where = f"before line {at + 1}" if any(ln.strip() for ln in rest) else "at the end of the file"
    return f"The new code goes after line {at} ({where}). Write only the new code; every line of the file stays as it is."


def _region_block(text: str | None, region: tuple[int, int] | str, path: str | None = None) -> str:
    if isinstance(region, tuple):
        if text is None:
            raise ValueError("a line-range region needs the file text")
        start, end = region
        if start == end:
            return _insertion_block(text, start, path)
        body = region_lines(text, region)
        label = f"Region (lines {start + 1}-{end}):"
    else:
        body = region
        label = "Region:"
    if body and not body.endswith("\n"):
        body += "\n"
    return f"{label}\n```\n{body}```"


# An empty file (a new one): no region to show, the answer is the whole file.
NEW_FILE_NOTE = "The file is empty: write the whole file."
NEW_FILE_REMINDER = "Reply with the complete file in one code block, nothing else."


def is_empty(text: str | None) -> bool:
    """True for a file with nothing in it but whitespace: a new file, written whole."""
    return text is not None and not text.strip()


def instruction_message(fmt: str, instruction: str, text: str | None = None, region: tuple[int, int] | str | None = None,
                        aside: str = "", path: str | None = None) -> dict:
    """The per-turn user message: the region (if any), the instruction and a format reminder (for a
    rewrite, the reminder first). `aside`: what the words name in other files (RequestContext.aside),
    between the region and the words."""
    if fmt == REWRITE and is_empty(text):
        parts = [NEW_FILE_NOTE, aside, instruction.strip(), NEW_FILE_REMINDER]
        return {"role": "user", "content": "\n\n".join(p for p in parts if p)}
    tail = instruction.strip() if fmt == REWRITE else f"{instruction.strip()}\n\n{_REMINDER[fmt]}"
    return {"role": "user", "content": message_opening(fmt, text, region, path) + aside_text(aside) + tail}


def aside_text(aside: str) -> str:
    """`aside` as it stands before the words: its own paragraph ("" for none)."""
    return aside + "\n\n" if aside else ""


def message_opening(fmt: str, text: str | None, region: tuple[int, int] | str | None, path: str | None = None) -> str:
    """What a turn's message on `region` says before the instruction (what a prewarm can evaluate
    before the words are known). A rewrite's reminder opens it and the user's words end it: the
    reminder stays cached when the region changes (a redirect narrowed to one method evaluates just
    that method's block and the words), and the blank line after the block is kept ("```\n\n" is
    one token)."""
    block = _region_block(text, region, path) + "\n\n" if region is not None else ""
    inserting = isinstance(region, tuple) and region[0] == region[1]
    reminder = INSERT_REMINDER if inserting else _REMINDER[fmt]
    return (reminder + "\n\n" + block) if fmt == REWRITE else block


def build_input(
    fmt: str,
    path: str,
    text: str,
    instruction: str,
    region: tuple[int, int] | str | None = None,
    history: list[dict] | None = None,
    *,
    context=None,
    file_tokens: int | None = None,
    focus: tuple[int, int] | None = None,
    once: bool = False,
) -> list[dict]:
    """Responses `input` for one edit turn (the system prompt goes in `instructions`).

    `region`: a (start, end) 0-based end-exclusive line range, or the region's text; the rewrite
    format needs one (the whole file is used without it). `history`: earlier turns of this
    conversation ({"role": "user"|"assistant", "content"}), placed after the file and before the
    new instruction so the file prefix stays cached. `context`: what the project's other files say
    (steer_tui.project.context.RequestContext), read-only: its message between the file and the
    history, its aside between the region and the words; None (no project around the file) leaves
    the input as it always was. `file_tokens`: what the file
    may cost (steer_tui.project.window); a file over it is shown in part: its head and outline in a
    rewrite, else around `focus` (default: the region's lines; `view_focus`), as `prewarm_input`
    shows it for the same region; None shows the whole file. `once`: nothing read the file's
    message ahead (a one-shot command), so a rewrite's region that is all but a few lines of the
    file is shown once, in its block, with no file message (steer_tui.project.window.region_once).
    """
    system_prompt(fmt)  # validates fmt
    if fmt == REWRITE and region is None:
        region = (0, len(text.splitlines()))
    if focus is None and isinstance(region, tuple):
        focus = region
    return [*_file_messages(fmt, path, text, region, view_focus(fmt, focus), file_tokens, once),
            *context_messages(context), *(history or []),
            instruction_message(fmt, instruction, text, region, context.aside if context else "", path)]


def _file_messages(fmt: str, path: str, text: str, region, focus: tuple[int, int] | None, file_tokens: int | None,
                   once: bool) -> list[dict]:
    """The file's message, or none where `once` lets a rewrite's region block stand for the file
    (steer_tui.project.window.region_once)."""
    from steer_tui.project.window import fits, region_once

    if once and fmt == REWRITE and fits(text, file_tokens) and region_once(text, region):
        return []
    return [file_message(path, text, focus, file_tokens)]


def view_follows_region(fmt: str) -> bool:
    """A file too big to show whole is shown around the region in `fmt`: not in a rewrite, whose
    region block shows the region whole after the file. A rewrite's view is then the same whatever
    the region (the file's head and outline), so it stays cached when the user goes on to another
    function: built around each region, the views of two regions shared little or nothing (a
    3,000-token view is some 30 s of reading on two cores; bench/results/region-switch.md)."""
    return fmt != REWRITE


def view_focus(fmt: str, focus: tuple[int, int] | None) -> tuple[int, int] | None:
    """The lines the file's view is built around in `fmt` (view_follows_region): `focus` or none.
    An insertion point (an empty region) has no block to show the code it goes beside: the view
    is built around it in every format."""
    inserting = isinstance(focus, tuple) and focus[0] == focus[1]
    return focus if view_follows_region(fmt) or inserting else None


def context_messages(context) -> list[dict]:
    """The context's message (steer_tui.project.context.RequestContext) as the list a request's input
    splices in: empty without one."""
    return [context.message] if context and context.message else []


def build_messages(fmt: str, path: str, text: str, instruction: str, region=None, history=None) -> list[dict]:
    """The flattened chat (system first) for engines and tests that bypass the gateway."""
    return [{"role": "system", "content": system_prompt(fmt)}, *build_input(fmt, path, text, instruction, region, history)]


# ---------------------------------------------------------------------------- redirects

# Words that add to the request rather than change it ("also X", "and make it Y", "X too").
_ADDS = intent.ADDS  # steer_tui/intent.py


def redirect_adds(words: str) -> bool:
    """The redirect's words extend the request ("also X") rather than narrow, replace or correct it."""
    return bool(_ADDS.search(words or ""))


# Words that take back part of the request rather than add to it: "no, only to push", "use a dict,
# not a list", "no, add an is_empty method instead", "rename it to running instead".
_CORRECTS = intent.CORRECTS  # steer_tui/intent.py


def redirect_corrects(words: str) -> bool:
    """The words correct the request (narrow, replace or correct it) rather than add to it."""
    return not redirect_adds(words) and bool(_CORRECTS.search(words or ""))


def refers_back(words: str) -> bool:
    """The words go on from the request before them ("no, only to pop", "also add a docstring to
    it"), as against a request that stands on its own ("add a docstring to load")."""
    return redirect_adds(words) or redirect_corrects(words)


def addition_instruction(words: str) -> str:
    """The request of an addition said while an answer was written ("also make it ignore commas"),
    asked on its own of the code as that answer left it: the words without "also"/"too"."""
    bare = _ADDED_TAIL.sub("", _FILLER.sub("", words.strip())).strip()
    return bare[:1].upper() + bare[1:] if bare else words.strip()


def redirect_instruction(first: str, said: list[str], same_region: bool = False) -> str:
    """The instruction of a turn that a redirect started over: the first request and what the user
    said while it was being answered (oldest first), as one request.

    The small model follows a request stated once, plainly, far better than a transcript where its
    own half-written answer precedes the new words (it goes on in the pattern it started), and it
    follows the first line of a message over later ones (bench/redirect.py): so the new words come
    first, and the request they replace follows only as context. Words that add ("also X") keep
    the request they add to. A correction of the first request that keeps its region (`same_region`:
    "use a dict, not a list") follows that request instead, as "Correction: ...": it was followed as
    often (5 of 6 scripted corrections either way) and only its own words are evaluated after Enter
    (15-19 tokens against 43-50)."""
    request, replaced = first.strip(), ""
    for words in said:
        words = words.strip()
        if not words:
            continue
        if redirect_adds(words) and request:
            request = f"{request}\n{words}"
        elif _stands_alone(words):
            request, replaced = words, ""
        elif (merged := _merge(request, words)) is not None:
            request, replaced = merged, ""
        else:
            request, replaced = words, (request or replaced)
    if not replaced:
        return request
    if same_region and replaced == first.strip():
        # A correction of the first request on its own region: the message opens as the first
        # request's did, so all of it up to the correction is still in the engine's cache.
        return f"{replaced}\n\nCorrection: {request}"
    # Every token of this note is evaluated after the redirect's Enter: it is kept short.
    return f"{request}\n\n(Earlier request: \"{replaced}\". Take what the line above leaves out from it; change nothing else.)"


_ADDED_TAIL = intent.ADDED_TAIL  # steer_tui/intent.py


# A request that replaces the earlier one and says all it means ("no, only add a docstring to pop"):
# shown the earlier request as context, the small model did that one instead (bench/redirect.py).
_REPLACES = intent.REPLACES  # steer_tui/intent.py
_ACTS = intent.ACTION_VERB  # steer_tui/intent.py
_REFERS = intent.REFERS  # steer_tui/intent.py


def _stands_alone(words: str) -> bool:
    """The words replace the request and need nothing from it: "only"/"instead", an action, no "it"."""
    bare = _FILLER.sub("", words.strip())
    return bool(_REPLACES.search(words) and _ACTS.match(bare) and not _REFERS.search(bare))


_TAIL = intent.POLITE_TAIL  # steer_tui/intent.py
_RENAMED = intent.RENAMED_IT  # steer_tui/intent.py
_TARGET = intent.TARGET_ONLY  # steer_tui/intent.py


def _merge(earlier: str, words: str) -> str | None:
    """Words that say only part of the new request, completed from the earlier one, or None:
    "rename it to B" after "rename A to C" -> "rename A to B"; "only to X" after "add Y to Z" ->
    "add Y to X only". Quoted as context, the earlier request is what the small model carried out."""
    bare = _TAIL.sub("", _FILLER.sub("", words.strip()))
    renamed = _RENAMED.match(bare)
    if renamed:
        head = re.match(r"^(.*\brename\s+.+?\s+to\s+)`?[A-Za-z_]\w*`?\s*$", earlier.strip(), re.I | re.S)
        return f"{head.group(1)}{renamed.group(1)}" if head else None
    target = _TARGET.match(bare)
    if target:
        head = re.match(r"^(.+?)\s+(?:to|in|on|for)\s+\S", earlier.strip(), re.S)
        if head:
            return f"{head.group(1)} to {target.group(1) or target.group(2)} only, and change nothing else"
    return None


_FILLER = intent.REDIRECT_FILLER  # steer_tui/intent.py


def names_a_definition(text: str, words: str, path: str | None = None) -> bool:
    """A redirect's words name one of the file's definitions after their first word (the verb, once
    "no, only" and the like are left out: "no, only add" names no method `add`)."""
    return _clearly_named(text, words, path) is not None


# After a word, what makes it a definition's name ("the Inventory class").
_KIND_AFTER = intent.KIND_AFTER  # steer_tui/intent.py
# Words before a noun that make a plain word a thing, not a name ("return the new size").
_DETERMINER = intent.DETERMINER  # steer_tui/intent.py


def addition_region(text: str, region: tuple[int, int] | None, words: str,
                    narrow: bool = False, path: str | None = None) -> tuple[int, int] | None:
    """The region an addition said during a rewrite ("also add a docstring to cheapest") is asked on.

    When the words name definitions apart from the turn's region: those definitions alone (what
    the earlier answer changed is kept: rebase.with_earlier; given the span from the region to
    them, the small model changed the methods in between too). When they name some inside it:
    those alone with `narrow` (an addition asked after the answer: given the whole class, the
    small model put a docstring asked for one method on the next one too), else the region
    (asked before the request, narrowed, it did no better: bench/redirect.py). When they name one
    that overlaps it: the span taking in both. Otherwise the region as it is.

    Only a clear name counts: `backticked`, code-like, or a plain word that is not the first (the
    verb: "also add a docstring to it" names no method `add`) and has no determiner before it
    ("also make it return the new size" names no method `size`), unless what it is follows ("the
    Inventory class", "the size method")."""
    if region is None:
        return None
    named = _clearly_named(text, words, path)
    if named is None:
        return region
    lo, hi = named
    if hi <= region[0] or lo >= region[1] or (narrow and region[0] <= lo and hi <= region[1]):
        return lo, hi
    return min(region[0], lo), max(region[1], hi)


def _clearly_named(text: str, words: str, path: str | None = None) -> tuple[int, int] | None:
    """The span of the definitions that a redirect's or an addition's words name clearly (see
    addition_region: "wrap the add in an if" names no method `add`), or None."""
    defs = definitions(text, path)
    bare = _FILLER.sub("", words.strip())
    # The first word is the verb ("add a docstring to it" names no method `add`), unless it is none ("only pop").
    plain = [m.group(0) for i, m in enumerate(WORDS.finditer(bare))
             if (i > 0 or not _ACTS.match(bare))
             and (not _DETERMINER.search(bare[: m.start()]) or _KIND_AFTER.match(bare, m.end()))]
    for names in (*_named(bare)[:2], plain):
        spans = _named_spans(bare, names, defs)
        if spans:
            return _covering(spans)
    return None


def redirect_region(text: str, region: tuple[int, int] | None, said: list[str],
                    path: str | None = None) -> tuple[int, int] | None:
    """The region of a turn that a redirect started over: narrowed to the definitions the new words name
    inside it ("no, only add a docstring to pop"), widened to take in those they name outside it or
    add to the request ("also fix peek"); as it was when the words name none.

    Given the whole class, the small model changes every method alike, whatever the words say; a
    region of just the method named cannot be changed elsewhere."""
    if region is None:
        return None
    whole = (0, len(text.splitlines()))
    if whole[1] <= SMALL_FILE_LINES:
        return region  # rewritten whole (rewrite_region)
    for words in said:
        # Leading "no, only ..." is not the verb: the request's first word is skipped as one.
        bare = _FILLER.sub("", words.strip())
        named = _clearly_named(text, words, path)
        renamed = _RENAME.search(bare)
        if named is None or (renamed and renamed.group(1).split(".")[-1] in definitions(text, path)):
            continue  # names no definition clearly, or renames one (its uses change too: rewrite_region)
        named = deletion_region(text, bare, named, path)
        if region[0] <= named[0] and named[1] <= region[1] and not redirect_adds(words):
            region = named
        else:  # outside the region (or added to it): the span covering both
            region = (min(region[0], named[0]), max(region[1], named[1]))
    return region
