"""The language layer: for a file path and its text, its language, definitions, syntax errors and comments (tree-sitter)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import PurePath

from steer_tui.lang import bodies, comments, defs, errors, symbols
from steer_tui.lang.defs import FUNCTION_KINDS, TYPE_KINDS, Definition
from steer_tui.lang.errors import ParseError
from steer_tui.lang.parsing import parse
from steer_tui.lang.table import LANGUAGES, Spec, spec_for

__all__ = ["FUNCTION_KINDS", "LANGUAGES", "TYPE_KINDS", "Definition", "ParseError", "Spec", "code_tokens", "comment_spans",
           "definitions", "function_bodies", "innermost", "introduced_errors", "language", "outline", "same_code",
           "syntax_errors"]

Path = str | PurePath | None


def language(path: Path) -> Spec | None:
    """The language of `path` by its extension; None for one the layer does not know (steer then
    does what it does without a language: the indentation guess, no syntax guard)."""
    return spec_for(path)


def definitions(path: Path, text: str) -> list[Definition]:
    """The definitions of `text` in file order; empty for an unknown language."""
    spec = spec_for(path)
    return defs.definitions(spec, parse(spec, text)) if spec is not None else []


def outline(path: Path, text: str) -> tuple[list[symbols.Sym], list[symbols.Imp]]:
    """The symbols of `text` (definitions with signature, first doc line and enclosing type; module
    constants and class members) and its imports; empty for an unknown language. The same lists for
    the same text while it is among the last few asked: not to be changed."""
    spec = spec_for(path)
    return _outline(spec, text) if spec is not None else ([], [])


# The open file's outline is asked by the request's context and, at a turn's end, several times
# over by the imports the edit needs: a full parse each on a 20,000-line file is 0.2 s.
@lru_cache(maxsize=8)
def _outline(spec: Spec, text: str) -> tuple[list[symbols.Sym], list[symbols.Imp]]:
    return symbols.outline(spec, text)


def innermost(path: Path, text: str, line: int, kinds: frozenset[str] | None = None) -> Definition | None:
    """The smallest definition (of one of `kinds`: TYPE_KINDS, FUNCTION_KINDS) holding 0-based
    `line`; None outside every one or for an unknown language."""
    return defs.innermost(definitions(path, text), line, kinds)


def syntax_errors(path: Path, text: str) -> list[ParseError]:
    """Where `text` does not parse, in file order; empty when it does or the language is unknown."""
    spec = spec_for(path)
    return errors.syntax_errors(spec, parse(spec, text)) if spec is not None else []


def introduced_errors(path: Path, old: str, new: str) -> list[ParseError]:
    """The syntax errors of `new` that the edit from `old` brought in (not those `old` already had)."""
    after = syntax_errors(path, new)
    if not after or old == new:
        return []
    return errors.introduced(syntax_errors(path, old), after, old.splitlines(), new.splitlines())


def comment_spans(path: Path, text: str) -> list[tuple[int, int]]:
    """0-based (first, last) lines of each comment and docstring of `text`."""
    spec = spec_for(path)
    return comments.spans(spec, parse(spec, text)) if spec is not None else []


def code_tokens(path: Path, text: str) -> list[bytes] | None:
    """`text`'s tokens without comments and docstrings; None for an unknown language or a text with errors."""
    spec = spec_for(path)
    if spec is None:
        return None
    tree = parse(spec, text)
    return None if tree.root_node.has_error else comments.code_tokens(spec, tree)


def same_code(path: Path, old: str, new: str) -> bool | None:
    """`old` and `new` differ only in layout, comments and docstrings (True) or in code (False);
    None when that cannot be told (unknown language, either text has syntax errors)."""
    a = code_tokens(path, old)
    b = code_tokens(path, new) if a is not None else None
    return None if a is None or b is None else a == b


def function_bodies(path: Path, text: str) -> dict[str, bool] | None:
    """{qualified name: its body has code (not only comments)} for each function with a body;
    None for an unknown language or a text with syntax errors."""
    spec = spec_for(path)
    if spec is None:
        return None
    tree = parse(spec, text)
    return None if tree.root_node.has_error else bodies.function_bodies(spec, tree)
