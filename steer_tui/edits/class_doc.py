"""A request for a class's docstring alone ("add a docstring to the Stack class") gets that docstring alone.

Asked for a class's docstring, the small model writes the class again with a docstring on every
method, or restates the module's docstring and imports above it (examples/inventory.py,
bench/redirect.py). None of that was asked for. The answer is
read for the one thing that was: the docstring it gives that class; the rest of the answer is left
out, and the file keeps every other line as it is. Pure: no I/O.
"""

from __future__ import annotations

import ast
import io
import tokenize

from steer_tui.edits.lines import document_lines, join_lines
from steer_tui.edits.locate import _indent
from steer_tui.edits.pydefs import definitions, first_line
from steer_tui.edits.pytree import parse_tree
from steer_tui import intent

__all__ = ["DOC_CLOSE", "asked_class", "docstring_place", "docstring_prefix", "only_the_docstring", "repeats_module_doc",
           "saying_what"]

DOC_CLOSE = '"""'  # what ends the docstring an answer prefix opens (docstring_prefix)

# "add a docstring to the Stack class", "Stack needs a docstring": one docstring, the class's own.
_ASKS = intent.CLASS_DOCSTRING  # steer_tui/intent.py
_FILLER = intent.DOC_FILLER  # steer_tui/intent.py


def asked_class(instruction: str | None, text: str) -> str | None:
    """The qualified name of the class in `text` whose docstring alone `instruction` asks for, or
    None (another request, no such class, or two classes of that name)."""
    if "\n" in (instruction or "").strip():
        return None  # a request with more said after it (a redirect's) asks more than the docstring
    words = _FILLER.sub("", " ".join((instruction or "").split())).rstrip(" .!")
    for pattern in _ASKS:
        m = pattern.match(words)
        if m:
            name = next(g for g in m.groups() if g)
            break
    else:
        return None
    defs = definitions(text) or {}
    found = [q for q, node in defs.items() if isinstance(node, ast.ClassDef) and (q == name or q.endswith("." + name))]
    return found[0] if len(found) == 1 else None


def _doc_node(node: ast.ClassDef) -> ast.Expr | None:
    first = node.body[0] if node.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first
    return None


def _alone(lines: list[str], doc: ast.Expr) -> str | None:
    """What precedes docstring `doc` on its first line of `lines`, where it shares no line with code
    (a comment after it may follow); None where it does."""
    # ast's column offsets count UTF-8 bytes.
    was = lines[doc.lineno - 1].encode()[: doc.col_offset].decode(errors="replace")
    rest = lines[doc.end_lineno - 1].encode()[doc.end_col_offset:].decode(errors="replace").strip()
    return None if was.strip() or (rest and not rest.startswith("#")) else was


def only_the_docstring(old: str, new: str, name: str) -> str | None:
    """`old` with class `name`'s docstring as `new` gives it, and nothing else of `new`; `new` as it
    is where that cannot be told apart line by line (a body on the header's line, a docstring that
    shares a line with code, a text that does not parse); None where `new` gives the class no
    docstring of its own (none, or the one it had)."""
    before, after = definitions(old), definitions(new)
    if before is None or after is None or not isinstance(before.get(name), ast.ClassDef):
        return new
    cls, got = before[name], after.get(name)
    if not isinstance(got, ast.ClassDef):
        return None
    doc = _doc_node(got)
    if doc is None:
        return None
    text = ast.get_docstring(got) or ""
    if not text.strip() or text == ast.get_docstring(cls):
        return None
    new_lines, _ = document_lines(new)
    old_lines, ending = document_lines(old)
    was = _alone(new_lines, doc)
    if was is None:
        return new  # the docstring shares a line with code
    body = cls.body[0]
    start = first_line(body)
    if start < cls.lineno or not old_lines[start][: body.col_offset].isspace():
        return new  # the body begins on the header's line
    indent = _indent(old_lines[start])
    written = [indent + line[len(was):] if line.startswith(was) else line
               for line in new_lines[doc.lineno - 1: doc.end_lineno]]
    old_doc = _doc_node(cls)
    end = old_doc.end_lineno if old_doc is not None else start
    return join_lines(old_lines[:start] + written + old_lines[end:], ending)


def docstring_place(text: str, name: str) -> tuple[int, int, int, str] | None:
    """(start, header_end, end, indent): the lines [start, end) (0-based) of class `name`'s header,
    from its first decorator to the line its colon ends ([start, header_end)), with the docstring it
    has directly under it, and the indent of its body. None where that cannot be rewritten alone:
    no such class, a body that begins on the header's line, code after the colon, a docstring that
    shares a line with code or has a comment or blank line above it."""
    defs = definitions(text)
    cls = (defs or {}).get(name)
    if not isinstance(cls, ast.ClassDef) or not cls.body:
        return None
    lines = document_lines(text)[0]
    start = first_line(cls)
    colon = _colon_line(lines, cls.lineno - 1)
    first = first_line(cls.body[0])
    if colon is None or first <= colon:
        return None
    indent = _indent(lines[first])
    doc = _doc_node(cls)
    if doc is None:
        return start, colon + 1, colon + 1, indent
    if doc.lineno - 1 != colon + 1 or _alone(lines, doc) is None:
        return None
    return start, colon + 1, doc.end_lineno, indent


def _colon_line(lines: list[str], at: int) -> int | None:
    """The line (0-based) where the class statement on line `at` ends with its colon, when nothing
    but a comment follows the colon there; else None."""
    depth, colon = 0, None
    try:
        for tok in tokenize.generate_tokens(io.StringIO("\n".join(lines[at:]) + "\n").readline):
            if colon is not None:
                if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE):
                    if tok.type != tokenize.COMMENT:
                        return at + colon
                    continue
                return None  # code after the colon: the body is on the header's line
            if tok.type == tokenize.OP and tok.string in "([{":
                depth += 1
            elif tok.type == tokenize.OP and tok.string in ")]}":
                depth -= 1
            elif tok.type == tokenize.OP and tok.string == ":" and depth == 0:
                colon = tok.start[0] - 1
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return None


def docstring_prefix(text: str, place: tuple[int, int, int, str]) -> str:
    """The start of an answer that rewrites `place` (docstring_place) with a new docstring: the
    fence, the class's header as it is, and the docstring's opening quotes at the body's indent.
    The model writes the docstring's text from there; it ends at DOC_CLOSE."""
    start, header_end, _, indent = place
    header = [line.rstrip("\r\n") for line in document_lines(text)[0][start:header_end]]
    return "```python\n" + "\n".join(header) + "\n" + indent + DOC_CLOSE


def repeats_module_doc(text: str, written: str) -> bool:
    """`written` (a docstring's text) is the module's own docstring in `text`, word for word.

    Asked for a class's docstring with the answer opened at its quotes, the small model wrote the
    module's in 12 of 15 classes ("Bank accounts." for `Account`), and in 5 of 5 written afterwards
    to check it (bench/results/class-docstring-words.md)."""
    tree = parse_tree(text)
    doc = ast.get_docstring(tree) if tree is not None else None
    return bool(doc) and " ".join(doc.split()) == " ".join(written.split())


def saying_what(request: str, name: str) -> str:
    """`request` for class `name`'s docstring, asked again after an answer that repeated the module's
    docstring: the words say what the class's own docstring is about. With them, 1 of those 15 and
    0 of those 5 repeated it (bench/results/class-docstring-words.md)."""
    short = name.rsplit(".", 1)[-1]
    article = "an" if short[:1].lower() in "aeiou" else "a"
    return f"{request.strip().rstrip('.')} saying what {article} {short} object is and what it holds"
