"""The names a Go text uses only as a package qualifier (`strings.ToLower`, `time.Duration`), each with the exported names it reads from it."""

from __future__ import annotations

from functools import lru_cache

import tree_sitter

from steer_tui.lang.parsing import parse
from steer_tui.lang.table import spec_for


# A turn's end asks it of the same two texts several times: for the imports the edit needs (the
# project's packages, then the standard library's) and for the members it reads.
@lru_cache(maxsize=8)
def go_qualifiers(text: str) -> dict[str, frozenset[str]]:
    """{name: the exported names read through it} for each name `text` reads as `name.Exported`
    and never uses any other way. A name that is also declared, passed or read on its own is a
    variable (`url.Host` with a parameter `url`): left out, so a package is never guessed where a
    variable could be meant. The same dict for the same text while it is among the last few asked:
    not to be changed."""
    spec = spec_for("x.go")
    if spec is None:
        return {}
    tree = parse(spec, text)
    reads: dict[str, set[str]] = {}
    other: set[str] = set()
    stack: list[tree_sitter.Node] = [tree.root_node]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "selector_expression":
            operand, field = node.child_by_field_name("operand"), node.child_by_field_name("field")
            if operand is not None and operand.type == "identifier" and field is not None:
                name, read = operand.text.decode(), field.text.decode()
                if read[:1].isupper():
                    reads.setdefault(name, set()).add(read)
                else:
                    other.add(name)  # a package exports only capitalised names
                stack.append(field)
                continue
        elif kind == "qualified_type":
            package, name = node.child_by_field_name("package"), node.child_by_field_name("name")
            if package is not None and name is not None:
                reads.setdefault(package.text.decode(), set()).add(name.text.decode())
                continue
        elif kind in ("identifier", "type_identifier", "package_identifier"):
            other.add(node.text.decode())
        stack.extend(node.children)
    return {name: frozenset(read) for name, read in reads.items() if name not in other}
