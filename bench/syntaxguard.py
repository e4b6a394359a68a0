"""Syntax guard corpus: how many syntax-breaking edits steer_tui.edits.syntax flags, and false alarms on good ones.

`python -m bench syntaxguard [--sites N]`. No model: the corpus is real code and mutations of it.

Real code: the editbench tasks (../shared/editbench: HumanEvalFix in Python, Java and C++, and
the Python polyglot exercises), each task's input (the file) and output (the reference fix),
and small real files for every language (tests/session/data/lang, bench/syntaxguard_files: each
compiles or passes `node --check`/`bash -n` where that tool is at hand). The answers that
parse are each task's input -> output, each small file's good edit (tests/lang/samples.py), and
edits that keep any file's syntax (a number changed, a top-level definition deleted or doubled):
a flag on one of them is a false alarm. The answers that break the syntax are mutations of
every file, made where the file's own tree says a token is (so never inside a comment or a
string), each broken by construction:

- drop a closing `}`, `)`, `]` (or a block's closing `end`, `fi`, `done`, `esac`);
- drop an opening `(`;
- leave the file's last string or template literal of its kind unclosed (no later quote
  of that kind can close it);
- add a stray closer (`}`, `end`, `fi`, `)`) on a line of its own after a top-level definition;
- Python: delete the `:` that ends a `def`, `if`, `for`... line.

Where a real parser is at hand it has the last word on "broken" (Python's compiler,
`node --check`, `bash -n`): a mutation it accepts is left out and counted. A file whose original
the grammar already rejects is left out too (its count is shown: a grammar gap).
"""

from __future__ import annotations

import ast
import difflib
import json
import shutil
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

from bench.table import print_table

ROOT = Path(__file__).resolve().parents[1]
FILES_DIR = Path(__file__).resolve().parent / "syntaxguard_files"  # real code written for this bench
SMALL_FILE_SITES = 4

CLOSERS = {"}": "{", ")": "(", "]": "[", "end": None, "fi": None, "done": None, "esac": None}
# What a stray closer on a line of its own is, by language key (a `}` everywhere else).
STRAY = {"python": ")", "ruby": "end", "bash": "fi"}
QUOTES = ('"', "'", "`")
_PY_COLON = ("def ", "if ", "for ", "while ", "class ", "elif ", "else", "try", "except", "with ")


@dataclass
class Row:
    files: int = 0
    rejected_originals: int = 0
    broken: int = 0
    flagged: int = 0
    oracle_accepted: int = 0  # mutations a real parser accepted: left out
    clean: int = 0
    false_alarms: int = 0
    on_broken: int = 0  # good edits of a file that already had an error
    blamed: int = 0


def main(argv: list[str] | None = None) -> int:
    argv = list(argv or [])
    sites = int(argv[argv.index("--sites") + 1]) if "--sites" in argv else 2
    from bench.editbench import editbench_dir

    rows: dict[str, Row] = {}
    examples: dict[str, list[str]] = {}
    for path, old, good in _editbench_files(editbench_dir()):
        _measure(path, old, good, sites, rows, examples)
    # Few files a language: more places broken in each.
    for path, old, good in _small_files():
        _measure(path, old, good, SMALL_FILE_SITES * sites, rows, examples)
    table = []
    total = Row()
    for name, r in sorted(rows.items()):
        table.append([name, r.files, r.rejected_originals, f"{r.flagged}/{r.broken}", _pct(r.flagged, r.broken),
                      r.oracle_accepted, r.clean, r.false_alarms, r.on_broken, r.blamed])
        for k in vars(total):
            setattr(total, k, getattr(total, k) + getattr(r, k))
    table.append(["all", total.files, total.rejected_originals, f"{total.flagged}/{total.broken}",
                  _pct(total.flagged, total.broken), total.oracle_accepted, total.clean, total.false_alarms,
                  total.on_broken, total.blamed])
    print_table("Syntax guard: breaking edits flagged, good edits left alone (steer_tui.edits.syntax.check)",
                ["language", "files", "originals with errors (left out)", "broken flagged", "%",
                 "mutations a real parser accepts (left out)", "good edits", "false alarms",
                 "good edits of a broken file", "blamed"], table)
    print("\nPython's check is its compiler's, which never judges a file that did not parse: its last two "
          "columns are 0 by that rule, not by the grammar. The broken edits are of the kinds listed in "
          "this bench's docstring (dropped or stray closers, an open string, a dropped colon): other kinds "
          "of error (a keyword misspelt, code the grammar's version does not know) are not measured here.")
    _costs()
    missed = [(k, v) for k, v in sorted(examples.items()) if v]
    if missed:
        print("\nMissed or false alarms (first few a language):")
        for name, said in missed:
            for line in said[:3]:
                print(f"- {name}: {line}")
    return 0


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}%" if b else "-"


def _editbench_files(folder: Path):
    names = {"humanevalfix_python.jsonl": "solution.py", "polyglot_python.jsonl": "solution.py",
             "humanevalfix_java.jsonl": "Solution.java", "humanevalfix_cpp.jsonl": "solution.cpp"}
    for set_name, file_name in names.items():
        path = folder / set_name
        if not path.is_file():
            print(f"bench syntaxguard: {path} not found, left out", file=sys.stderr)
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                task = json.loads(line)
                yield file_name, _ended(task["input"]), _ended(task["output"])


def _small_files():
    sys.path.insert(0, str(ROOT))
    from tests.lang.samples import SAMPLES

    for s in SAMPLES:
        yield s.path, s.text, s.text.replace(*s.good)
    for path in sorted(FILES_DIR.iterdir()):
        text = path.read_text(encoding="utf-8")
        yield path.name, text, text


def _ended(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def _measure(path: str, old: str, good: str, sites: int, rows: dict[str, Row], examples: dict[str, list[str]]):
    from steer_tui import lang
    from steer_tui.edits.syntax import check

    spec = lang.language(path)
    row = rows.setdefault(spec.name, Row())
    said = examples.setdefault(spec.name, [])
    row.files += 1
    if not _parses(path, old) or not _parses(path, good):
        row.rejected_originals += 1
        return
    for kind, new in [("the reference edit", good), *_good_edits(spec, old, sites)]:
        if new == old or (_oracle(spec.key) and not _oracle_accepts(spec.key, new)):
            continue
        row.clean += 1
        problem = check(path, old, new, _hunks(old, new))
        if problem is not None:
            row.false_alarms += 1
            said.append(f"false alarm on `{kind}` in {path}: {problem.describe()}")
    for kind, new in _mutations(spec, old, sites):
        if new == old:
            continue
        if _oracle_accepts(spec.key, new):
            row.oracle_accepted += 1
            continue
        row.broken += 1
        if check(path, old, new, _hunks(old, new)) is not None:
            row.flagged += 1
        else:
            said.append(f"missed `{kind}` in {path}: {_first_change(old, new)}")
        # The broken file edited well (a number changed): its error is not the edit's.
        for _, edited in _numbers_changed(spec, new, 1):
            row.on_broken += 1
            if check(path, new, edited, _hunks(new, edited)) is not None:
                row.blamed += 1
                said.append(f"blamed a number changed in {path} broken by `{kind}`: {_first_change(new, edited)}")


def _parses(path: str, text: str) -> bool:
    """The original parses: by Python's compiler for Python, else by the grammar."""
    from steer_tui import lang

    if lang.language(path).key == "python":
        return _py_parses(text)
    return not lang.syntax_errors(path, text)


def _py_parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


_ORACLES = {"javascript": ["node", "--check"], "bash": ["bash", "-n"]}


def _oracle(key: str) -> bool:
    return key == "python" or (key in _ORACLES and shutil.which(_ORACLES[key][0]) is not None)


def _oracle_accepts(key: str, text: str) -> bool:
    """A real parser at hand reads `text` without error (False where none is at hand)."""
    if key == "python":
        return _py_parses(text)
    if not _oracle(key):
        return False
    command = _ORACLES[key]
    suffix = {"javascript": ".mjs", "bash": ".sh"}[key]
    with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False) as f:
        f.write(text)
    try:
        return subprocess.run([*command, f.name], capture_output=True, timeout=30).returncode == 0
    finally:
        Path(f.name).unlink()


def _hunks(old: str, new: str):
    a, b = old.splitlines(), new.splitlines()
    return [(i1, i2, b[j1:j2]) for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
            if op != "equal"]


def _first_change(old: str, new: str) -> str:
    for (op, i1, i2, j1, j2) in difflib.SequenceMatcher(None, old.splitlines(), new.splitlines()).get_opcodes():
        if op != "equal":
            return f"line {i1 + 1}: {' / '.join(old.splitlines()[i1:i2])[:60]!r} -> {' / '.join(new.splitlines()[j1:j2])[:60]!r}"
    return "?"


def _costs() -> None:
    """What a check costs on a long file: a fresh parse, a re-parse after a one-line edit (the
    layer edits its kept tree of the text before), and the whole syntax check of a one-hunk edit
    with no tree kept (both texts parsed, their errors compared)."""
    from steer_tui import lang
    from steer_tui.edits.syntax import check
    from steer_tui.lang import parsing

    rows = []
    for path in sorted(FILES_DIR.iterdir()):
        text = path.read_text(encoding="utf-8")
        spec = lang.language(path.name)
        big = text * max(1, 5000 // len(text.splitlines()))  # about 5,000 lines
        lines = big.splitlines(keepends=True)
        mid = len(lines) // 2
        edited = "".join(lines[:mid] + [lines[mid].rstrip("\n") + " \n"] + lines[mid + 1:])
        fresh = _best(lambda: _fresh_parse(spec, big))
        again = _best(lambda: parsing.parse(spec, edited), before=lambda: parsing.parse(spec, big), clear=spec)
        hunks = _hunks(big, edited)
        checked = _best(lambda: check(path.name, big, edited, hunks), clear=spec)
        rows.append([spec.name, f"{len(lines):,}", f"{fresh * 1000:.1f} ms", f"{again * 1000:.1f} ms",
                     f"{checked * 1000:.1f} ms"])
    print_table("Parse cost on a long file (best of 5)",
                ["language", "lines", "fresh parse", "re-parse after a one-line edit", "check() of a one-line edit"],
                rows)


def _fresh_parse(spec, text: str) -> None:
    import tree_sitter

    from steer_tui.lang.parsing import language

    tree_sitter.Parser(language(spec)).parse(text.encode("utf-8"))


def _best(run, before=None, clear=None) -> float:
    """The shortest of 5 runs of `run`, each after `before` (untimed), the kept trees of `clear` dropped first."""
    import time

    from steer_tui.lang import parsing

    times = []
    for _ in range(5):
        if clear is not None:
            parsing._local.trees.pop(clear.key, None)
        if before is not None:
            before()
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return min(times)


# ------------------------------------------------------------------ mutations


def _mutations(spec, text: str, sites: int):
    """(kind, mutated text) for each kind of break, at up to `sites` places spread over the file."""
    from steer_tui.lang.parsing import parse

    data = text.encode("utf-8")
    leaves = list(_leaves(parse(spec, text).root_node))
    closers = [n for n in leaves if n.type in CLOSERS and (n.text or b"").decode() == n.type]
    for n in _spread(closers, sites):
        yield f"drop {n.type}", _cut(data, n.start_byte, n.end_byte)
    openers = [n for n in leaves if n.type == "(" and (n.text or b"") == b"("]
    for n in _spread(openers, sites):
        yield "drop (", _cut(data, n.start_byte, n.end_byte)
    for q in QUOTES:
        yield from _unclosed(data, leaves, q)
    yield from _stray(spec, text, sites)
    if spec.key == "python":
        lines = text.splitlines(keepends=True)
        found = [i for i, line in enumerate(lines) if line.rstrip().endswith(":") and line.lstrip().startswith(_PY_COLON)]
        for i in _spread(found, sites):
            line = lines[i].rstrip()
            yield "delete :", "".join(lines[:i] + [line[:-1] + "\n"] + lines[i + 1:])


def _good_edits(spec, text: str, sites: int):
    """Edits that keep the syntax: a number changed, a top-level definition deleted or doubled."""
    from steer_tui import lang
    from steer_tui.lang.parsing import parse

    yield from _numbers_changed(spec, text, sites)
    lines = text.splitlines(keepends=True)
    tops = [d for d in lang.definitions(f"x{spec.extensions[0]}", text) if d.depth == 0]
    for d in _spread(tops, sites):
        yield "delete a definition", "".join(lines[:d.start] + lines[d.end:])
        yield "double a definition", "".join(lines[:d.end] + ["\n"] + lines[d.start:d.end] + lines[d.end:])


def _numbers_changed(spec, text: str, sites: int):
    from steer_tui.lang.parsing import parse

    data = text.encode("utf-8")
    numbers = [n for n in _leaves(parse(spec, text).root_node) if (n.text or b"").isdigit()]
    for n in _spread(numbers, sites):
        yield "change a number", (data[:n.start_byte] + str(int(n.text) + 1).encode() + data[n.end_byte:]).decode()


def _leaves(node):
    stack = [node]
    while stack:
        n = stack.pop()
        if n.child_count == 0:
            yield n
        else:
            stack.extend(reversed(n.children))


def _spread(items: list, n: int) -> list:
    if len(items) <= n:
        return items
    step = len(items) / n
    return [items[int(step * k + step / 2)] for k in range(n)]


def _cut(data: bytes, start: int, end: int) -> str:
    return (data[:start] + data[end:]).decode("utf-8")


def _unclosed(data: bytes, leaves, quote: str):
    """The last closing `quote` token of the file dropped: no later one can close its string."""
    q = quote.encode()
    ends = [n for n in leaves if (n.text or b"") == q and n.parent is not None
            and any(w in n.parent.type for w in ("string", "template", "char"))]
    if len(ends) < 2:
        return
    last = ends[-1]
    if data.find(q, last.end_byte) != -1:
        return
    yield f"unclosed {quote}", _cut(data, last.start_byte, last.end_byte)


def _stray(spec, text: str, sites: int):
    from steer_tui import lang

    lines = text.splitlines(keepends=True)
    tops = [d for d in lang.definitions(f"x{spec.extensions[0]}", text) if d.depth == 0]
    for d in _spread(tops, sites):
        closer = STRAY.get(spec.key, "}")
        yield f"stray {closer}", "".join(lines[:d.end] + [closer + "\n"] + lines[d.end:])
