"""How a JavaScript/TypeScript file writes its requires and imports, so that a line steer adds
reads like the file's own: `var x = require("x")` without a semicolon in a file written so,
`import {x} from './x.js'` where its imports list names without spaces inside the braces,
`const x = require('x');` where the file says nothing either way."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["JsStyle", "js_style"]

_REQUIRE = re.compile(r"""^(const|let|var)\s+[^=\n]+=\s*require\s*\(\s*(['"])[^'"\n]*\2\s*\)[^\n;]*(;?)[ \t]*$""", re.M)
_IMPORT = re.compile(r"""^import\s[^\n]*?\bfrom\s+(['"])[^'"\n]*\1[ \t]*(;?)[ \t]*$|^import\s+(['"])[^'"\n]*\3[ \t]*(;?)[ \t]*$""", re.M)
_STATEMENT_END = re.compile(r"[\w)\]'\"`]\s*$")
# The braces of an import's or a require's list of names: `{x, y}` or `{ x, y }`.
_NAMES = re.compile(r"""^(?:import(?:\s+type)?\s+(?:[\w$]+\s*,\s*)?|(?:const|let|var)\s+)\{(\s*)[\w$][^}\n]*?(\s*)\}""", re.M)


@dataclass(frozen=True)
class JsStyle:
    keyword: str = "const"
    quote: str = "'"
    semicolon: str = ";"
    padding: str = " "  # inside the braces of a list of names

    def names(self, names: list[str]) -> str:
        """`{ a, b }`, padded inside as the file pads its own lists."""
        return f"{{{self.padding}{', '.join(names)}{self.padding}}}"

    def require(self, binding: str, module: str) -> str:
        return f"{self.keyword} {binding} = require({self.quote}{module}{self.quote}){self.semicolon}"

    def import_(self, clause: str, module: str) -> str:
        return f"import {clause} from {self.quote}{module}{self.quote}{self.semicolon}"


def js_style(text: str) -> JsStyle:
    """The style of `text`'s first top-level require (keyword, quote, semicolon) or import (quote,
    semicolon), and the padding of its first list of names; without a require or an import, a
    semicolon where the file ends any statement with one."""
    listed = _NAMES.search(text)
    padding = "" if listed is not None and not listed.group(1) and not listed.group(2) else " "
    required = _REQUIRE.search(text)
    if required:
        return JsStyle(required.group(1), required.group(2), required.group(3), padding)
    imported = _IMPORT.search(text)
    if imported:
        quote = imported.group(1) or imported.group(3)
        semicolon = imported.group(2) if imported.group(1) else imported.group(4)
        return JsStyle(quote=quote, semicolon=semicolon, padding=padding)
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(("//", "*", "/*"))]
    ends = sum(ln.endswith(";") for ln in lines)
    bare = sum(1 for ln in lines if _STATEMENT_END.search(ln))
    return JsStyle(semicolon="" if bare > 3 and ends == 0 else ";")
