"""Pygments highlighting for the file view: lex once per text version, style per theme at render time."""

from __future__ import annotations

import fnmatch
import importlib
import os
from functools import lru_cache

from pygments.lexer import Lexer
from pygments.lexers import TextLexer, get_lexer_for_filename
from pygments.lexers._mapping import LEXERS
from pygments.styles import get_style_by_name
from pygments.token import Token, _TokenType
from pygments.util import ClassNotFound
from rich.color import Color
from rich.style import Style

# One line's highlighting: runs of (length, token type) covering the line.
LineTokens = tuple[tuple[int, _TokenType], ...]


def lexer_for(path: str | None) -> Lexer:
    """The lexer for a file name, importing only that lexer's module.

    pygments' own get_lexer_for_filename scans plugins and imports every candidate
    module (about a second at start-up); the built-in mapping table is enough here.
    """
    if path:
        name = os.path.basename(str(path))
        for cls_name, (module, _name, _aliases, patterns, _mimes) in LEXERS.items():
            if any(_matches(name, pattern) for pattern in patterns):
                try:
                    cls = getattr(importlib.import_module(module), cls_name)
                    return cls(stripnl=False, ensurenl=False)
                except (ImportError, AttributeError):
                    break
        try:
            return get_lexer_for_filename(name, stripnl=False, ensurenl=False)
        except ClassNotFound:
            pass
    return TextLexer(stripnl=False, ensurenl=False)


def _matches(name: str, pattern: str) -> bool:
    # Most patterns are "*.ext": a suffix test avoids compiling ~1,500 regexes at start-up.
    if pattern.startswith("*.") and not any(c in pattern[2:] for c in "*?[]"):
        return name.endswith(pattern[1:])
    return fnmatch.fnmatch(name, pattern)


def lex_lines(lexer: Lexer, text: str) -> list[LineTokens]:
    """Lex a whole text (multi-line strings need context) and split tokens into lines."""
    lines: list[LineTokens] = []
    current: list[tuple[int, _TokenType]] = []
    for ttype, value in lexer.get_tokens(text):
        if "\n" not in value:
            if value:
                current.append((len(value), ttype))
            continue
        parts = value.split("\n")
        for i, part in enumerate(parts):
            if part:
                current.append((len(part), ttype))
            if i < len(parts) - 1:
                lines.append(tuple(current))
                current = []
    if current:
        lines.append(tuple(current))
    return lines


class LineLexer:
    """Highlights single lines that are not in the document yet (added lines while streaming)."""

    def __init__(self, lexer: Lexer) -> None:
        self.lexer = lexer
        self._cache: dict[str, LineTokens] = {}

    def cached(self, line: str) -> bool:
        return line in self._cache

    def __call__(self, line: str) -> LineTokens:
        hit = self._cache.get(line)
        if hit is None:
            lexed = lex_lines(self.lexer, line)
            hit = lexed[0] if lexed else ()
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[line] = hit
        return hit


@lru_cache(maxsize=16)
def token_styles(style_name: str) -> dict[_TokenType, Style]:
    """Token type -> Rich Style (foreground and font only; the view owns the background)."""
    try:
        style = get_style_by_name(style_name)
    except ClassNotFound:
        style = get_style_by_name("default")
    out: dict[_TokenType, Style] = {}
    for ttype, spec in style:
        color = Color.parse("#" + spec["color"]) if spec["color"] else None
        out[ttype] = Style(
            color=color,
            bold=spec["bold"] or None,
            italic=spec["italic"] or None,
            underline=spec["underline"] or None,
        )
    return out


def style_for(styles: dict[_TokenType, Style], ttype: _TokenType) -> Style:
    while ttype not in styles and ttype is not Token:
        ttype = ttype.parent
    return styles.get(ttype, Style())
