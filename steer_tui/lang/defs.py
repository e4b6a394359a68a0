"""The definitions of a parsed text (functions, methods, classes, structs, impls...) and the one at a line."""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from steer_tui.lang.table import Spec

# Declarator chains (C, C++) end at a name a few levels down: `int *(*f)(void)`.
_MAX_DECLARATOR_DEPTH = 8
_NAME_TYPES = frozenset({"identifier", "field_identifier", "type_identifier", "name", "constant",
                         "namespace_identifier", "property_identifier", "word", "destructor_name",
                         "operator_name", "qualified_identifier", "scoped_identifier", "scoped_type_identifier"})
# A generic type names its definition by its base: `impl<'a> Lexer<'a>` is Lexer's impl.
_GENERIC_TYPES = frozenset({"generic_type", "template_type"})
# A function directly inside one of these is a method; "this class" means one of these.
TYPE_KINDS = frozenset({"class", "struct", "impl", "trait", "interface", "record", "enum", "union"})
# "this function", "this method" means one of these.
FUNCTION_KINDS = frozenset({"function", "method", "constructor"})


@dataclass(frozen=True, slots=True)
class Definition:
    """One definition: 0-based lines `start` (its decorators, attributes and leading comments
    included) to `end` (exclusive); `line` is where the definition itself starts."""

    name: str
    kind: str
    start: int
    end: int
    line: int
    qualname: str  # the names of the definitions around it and its own, joined with "."
    depth: int  # how many definitions hold it


def definitions(spec: Spec, tree: tree_sitter.Tree) -> list[Definition]:
    """Every definition in the tree, in file order (an outer one before those inside it)."""
    return [d for d, _ in with_nodes(spec, tree)]


def with_nodes(spec: Spec, tree: tree_sitter.Tree) -> list[tuple[Definition, tree_sitter.Node]]:
    """`definitions`, each with its node."""
    found: list[tuple[Definition, tree_sitter.Node]] = []
    _collect(spec, tree.root_node, found)
    return found


def innermost(defs: list[Definition], line: int, kinds: frozenset[str] | None = None) -> Definition | None:
    """The smallest definition (of one of `kinds`, when given) whose lines hold 0-based `line`."""
    best = None
    for d in defs:
        if kinds is not None and d.kind not in kinds:
            continue
        if d.start <= line < d.end and (best is None or d.end - d.start <= best.end - best.start):
            best = d
    return best


def _collect(spec: Spec, root: tree_sitter.Node, found: list) -> None:
    # Not recursive: code may nest deeper than Python's stack. Children are visited in file order.
    stack: list[tuple[tree_sitter.Node, tuple[str, ...], str]] = [
        (child, (), "") for child in reversed(root.named_children)]
    while stack:
        node, outer, outer_kind = stack.pop()
        kind = _kind(spec, node)
        if kind is None:
            stack.extend((child, outer, outer_kind) for child in reversed(node.named_children))
            continue
        if kind == "function" and outer_kind in TYPE_KINDS:
            kind = "method"
        name = _name(spec, node)
        start, end = _span(spec, node)
        qual = (*outer, *_receiver(node), name)
        found.append((Definition(name, kind, start, end, node.start_point[0], ".".join(qual), len(outer)), node))
        stack.extend((child, qual, kind) for child in reversed(node.named_children))


def kind_of(spec: Spec, node: tree_sitter.Node) -> str | None:
    """The kind of definition `node` is (a function bound to a name counts), None for none."""
    return _kind(spec, node)


def name_of(spec: Spec, node: tree_sitter.Node) -> str:
    """The name of the definition `node` ("" when it has none the layer can read)."""
    return _name(spec, node)


def sole(spec: Spec, wrapper: tree_sitter.Node, inner: tree_sitter.Node) -> bool:
    """`inner` is the only definition among `wrapper`'s named children (comments aside)."""
    return _sole(spec, wrapper, inner)


def span_of(spec: Spec, node: tree_sitter.Node) -> tuple[int, int]:
    """A definition node's 0-based first line and exclusive end, as `definitions` gives them (its
    wrapper, decorators, attributes and leading comments included)."""
    return _span(spec, node)


def _kind(spec: Spec, node: tree_sitter.Node) -> str | None:
    kind = spec.definitions.get(node.type)
    if kind is not None:
        # A struct/enum mentioned as a type (`struct S x;`) is no definition: only one with a body is.
        if node.type.endswith("_specifier") and node.child_by_field_name("body") is None:
            return None
        return kind
    values = spec.bound.get(node.type)
    if values is not None:
        value = node.child_by_field_name("value")
        if value is not None and value.type in values:
            return "class" if value.type == "class" else "function"
    return None


def _name(spec: Spec, node: tree_sitter.Node) -> str:
    for field_name in spec.name_fields:
        found = node.child_by_field_name(field_name)
        depth = 0
        # C and C++ name a function through its declarator: `int *f(int)` -> pointer -> function -> f.
        while found is not None and found.type not in _NAME_TYPES and depth < _MAX_DECLARATOR_DEPTH:
            if found.type in _GENERIC_TYPES:
                found = found.child_by_field_name("type") or found.child_by_field_name("name")
            else:
                found = found.child_by_field_name("declarator") or found.child_by_field_name("name")
            depth += 1
        if found is not None and found.type in _NAME_TYPES:
            return _text(found)
    return ""


def _receiver(node: tree_sitter.Node) -> tuple[str, ...]:
    """The type a method is declared on outside it (Go's `func (q *Queue) Push`), as its qualifier."""
    receiver = node.child_by_field_name("receiver")
    if receiver is None:
        return ()
    stack = [receiver]
    while stack:
        n = stack.pop()
        if n.type == "type_identifier":
            return (_text(n),)
        stack.extend(reversed(n.named_children))
    return ()


def _text(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _span(spec: Spec, node: tree_sitter.Node) -> tuple[int, int]:
    """0-based first line and exclusive end line, with its wrapper and what leads it."""
    outer = node
    while outer.parent is not None and outer.parent.type in spec.wrappers and _sole(spec, outer.parent, outer):
        outer = outer.parent
    start = outer.start_point[0]
    before = outer.prev_named_sibling
    while before is not None and before.type in spec.leading and _last_row(before) >= start - 1:
        # A trailing comment on the line of the code before it belongs to that code.
        ahead = before.prev_sibling
        if (before.type in spec.comments and ahead is not None and ahead.type not in spec.leading
                and _last_row(ahead) == before.start_point[0]):
            break
        start = before.start_point[0]
        before = before.prev_named_sibling
    row, column = outer.end_point
    return start, max(row + (column > 0), node.start_point[0] + 1)


def _last_row(node: tree_sitter.Node) -> int:
    """The last line a node has text on (a line comment may end at column 0 of the next)."""
    row, column = node.end_point
    return row - 1 if column == 0 and row > node.start_point[0] else row


def _sole(spec: Spec, wrapper: tree_sitter.Node, inner: tree_sitter.Node) -> bool:
    """`inner` is the only definition among `wrapper`'s named children (comments aside)."""
    for child in wrapper.named_children:
        if child.id != inner.id and child.type not in spec.comments and (
                _kind(spec, child) is not None or child.type in spec.wrappers):
            return False
    return True
