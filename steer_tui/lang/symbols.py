"""A file's outline for the project index: its definitions with signature and first doc line, its
constants, variables and class members bound outside a function, and its imports (every language
the layer knows but C# and Bash, whose imports name no file: steer_tui.lang.imports)."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache

import tree_sitter

from steer_tui.lang import imports as other_imports
from steer_tui.lang.defs import FUNCTION_KINDS, TYPE_KINDS, kind_of, name_of, sole
from steer_tui.lang.imports import Imp
from steer_tui.lang.parsing import language
from steer_tui.lang.table import Spec

# A constant's whole definition is its signature when it is at most this long (an enum, a small table).
_WHOLE_LINES = 10
_WHOLE_CHARS = 480
_SIGNATURE_CHARS = 240  # a header longer than this (a long parameter list) is cut
_DOC_CHARS = 160
_CONSTANT = re.compile(r"_*[A-Z][A-Z0-9_]*$")
_JS_LIKE = frozenset({"javascript", "typescript", "tsx"})
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function", "class",
                              "class_expression"})


@dataclass(frozen=True, slots=True)
class Sym:
    """One named thing of a file: 0-based `line`, exclusive `end`, its header and first doc line."""

    name: str
    kind: str  # a definition's kind (function, method, class, enum...), or constant, variable, member
    line: int
    end: int
    signature: str
    doc: str
    parent: str  # the enclosing type's name, or ""


class _Parsers(threading.local):
    def __init__(self) -> None:
        self.parsers: dict[str, tree_sitter.Parser] = {}


_local = _Parsers()


def outline(spec: Spec, text: str) -> tuple[list[Sym], list[Imp]]:
    """The symbols (file order) and imports of `text`, parsed fresh (no tree is kept)."""
    parser = _local.parsers.get(spec.key)
    if parser is None:
        parser = _local.parsers[spec.key] = tree_sitter.Parser(language(spec))
    data = text.encode("utf-8", "surrogatepass")
    root = parser.parse(data).root_node
    found: list[Sym] = []
    for node in tree_sitter.QueryCursor(_def_query(spec)).captures(root).get("def", []):
        sym = _definition(spec, data, node)
        if sym is not None:
            found.append(sym)
    imports: list[Imp] = []
    if spec.key == "python":
        _python_top(data, root, found, imports)
    elif spec.key in _JS_LIKE:
        _js_top(spec, data, root, found, imports)
    else:
        if spec.values:
            _values(spec, data, root, found)
        imports.extend(other_imports.read(spec.key, data, root))
    found.sort(key=lambda s: (s.line, s.end))
    return found, imports


@lru_cache(maxsize=None)
def _def_query(spec: Spec) -> tree_sitter.Query:
    types = [*spec.definitions, *spec.bound]
    return tree_sitter.Query(language(spec), "[" + " ".join(f"({t})" for t in types) + "] @def")


def _text(data: bytes, start: int, end: int) -> str:
    return data[start:end].decode("utf-8", "replace")


# A C# or C++ namespace is a scope, not a thing: what it declares is used by its own name once the
# namespace is imported (`using Shop.Models;`, `using namespace geo;`), so it is top level, and the
# namespace itself no symbol (it would be shown whole, the file it spans).
_SCOPES = frozenset({"namespace_declaration", "file_scoped_namespace_declaration", "namespace_definition"})


def _definition(spec: Spec, data: bytes, node: tree_sitter.Node) -> Sym | None:
    kind = kind_of(spec, node)
    if kind is None or node.type in _SCOPES:
        return None
    parent, parent_kind = "", ""
    up = node.parent
    while up is not None:
        up_kind = kind_of(spec, up)
        if up_kind is not None and up.type not in _SCOPES:
            if up_kind in FUNCTION_KINDS or up.type in spec.bound:
                return None  # a function's local definitions are its own business
            if not parent:
                parent, parent_kind = name_of(spec, up), up_kind
        up = up.parent
    name = name_of(spec, node)
    if not name:
        return None
    if kind == "function" and parent_kind in TYPE_KINDS:
        kind = "method"
    outer = _outer(spec, node)
    body = _body(spec, node)
    if kind in TYPE_KINDS - {"class", "impl"} or body is None:
        signature = _short_whole(data, outer) or _header(data, outer.start_byte, node.end_byte)
    else:
        signature = _header(data, outer.start_byte, _header_end(node, body))
    return Sym(name, kind, node.start_point[0], outer.end_point[0] + 1, signature, _doc(spec, data, node, outer, body),
               parent)


def _outer(spec: Spec, node: tree_sitter.Node) -> tree_sitter.Node:
    """The node with the wrappers a reader counts as the header (`export`, `const f =`), not decorators."""
    outer = node
    while (outer.parent is not None and outer.parent.type in spec.wrappers and outer.parent.type != "decorated_definition"
           and sole(spec, outer.parent, outer)):
        outer = outer.parent
    return outer


def _body(spec: Spec, node: tree_sitter.Node) -> tree_sitter.Node | None:
    if node.type in spec.bound:
        value = node.child_by_field_name("value")
        return value.child_by_field_name("body") if value is not None else None
    body = node.child_by_field_name("body")
    if body is None:
        for child in node.named_children:
            if child.type in spec.bodies or child.type.endswith(("_body", "block", "declaration_list")):
                return child
    return body


def _header_end(node: tree_sitter.Node, body: tree_sitter.Node) -> int:
    """Where the header ends: at a `:` that opens the body (Python), so a comment between them stays out."""
    colon = body.prev_sibling
    while colon is not None and colon.type == "comment":
        colon = colon.prev_sibling
    return colon.end_byte if colon is not None and colon.type == ":" and colon.parent == node else body.start_byte


def _header(data: bytes, start: int, end: int) -> str:
    head = _text(data, start, end).rstrip()
    if "\n" in head:
        head = " ".join(head.split()).replace("( ", "(").replace(" )", ")").replace(", )", ")")
    if len(head) > _SIGNATURE_CHARS:
        head = head[:_SIGNATURE_CHARS].rstrip() + " ..."
    return head


def _short_whole(data: bytes, node: tree_sitter.Node) -> str:
    """The node's whole text when it is short, else ""."""
    if node.end_point[0] - node.start_point[0] >= _WHOLE_LINES or node.end_byte - node.start_byte > _WHOLE_CHARS:
        return ""
    return _text(data, node.start_byte, node.end_byte).rstrip()


def _doc(spec: Spec, data: bytes, node: tree_sitter.Node, outer: tree_sitter.Node, body) -> str:
    if spec.docstrings is not None and body is not None and body.named_child_count:
        first = body.named_children[0]
        if (first.type == spec.docstrings[0] and first.named_child_count == 1
                and first.named_children[0].type == spec.docstrings[1]):
            return _first_line(_text(data, first.start_byte, first.end_byte))
    while outer.parent is not None and outer.parent.type in spec.wrappers and sole(spec, outer.parent, outer):
        outer = outer.parent  # a decorated definition's comment sits above its decorators
    return _leading_comment(spec, data, outer)


def _leading_comment(spec: Spec, data: bytes, node: tree_sitter.Node) -> str:
    """The first line of the comments directly above `node`, else of one after it on its last line."""
    before = node.prev_named_sibling
    first = None
    row = node.start_point[0]
    while before is not None and before.type in spec.comments and before.end_point[0] >= row - 1:
        ahead = before.prev_sibling
        if ahead is not None and ahead.type not in spec.comments and ahead.end_point[0] == before.start_point[0]:
            break  # a trailing comment of the code before it
        first, row = before, before.start_point[0]
        before = before.prev_named_sibling
    if first is None:
        after = node.next_sibling
        if after is not None and after.type == ";":
            after = after.next_sibling
        if after is not None and after.type in spec.comments and after.start_point[0] == node.end_point[0]:
            first = after
    if first is None:
        return ""
    end = first.end_byte
    nxt = first.next_named_sibling
    while nxt is not None and nxt.type in spec.comments and nxt.start_byte < node.start_byte:
        end = nxt.end_byte  # a run of line comments reads as one
        nxt = nxt.next_named_sibling
    return _first_line(_text(data, first.start_byte, end))


def _first_line(comment: str) -> str:
    """The first line of prose of a comment or docstring: its markers, quotes and tags left out."""
    text = re.sub(r'^[rbuRBUfF]{0,2}("""|\'\'\'|"|\')', "", comment.strip())
    for line in text.splitlines():
        line = line.strip().lstrip("/#*!").strip().rstrip("*/").strip().strip("\"'").strip()
        if line and not line.startswith("@"):
            return line if len(line) <= _DOC_CHARS else line[:_DOC_CHARS].rstrip() + " ..."
    return ""


def _assignment_sym(spec: Spec, data: bytes, statement: tree_sitter.Node, name: str, parent: str) -> Sym:
    kind = "member" if parent else ("constant" if _CONSTANT.match(name) else "variable")
    return Sym(name, kind, statement.start_point[0], statement.end_point[0] + 1, _statement_signature(data, statement),
               _leading_comment(spec, data, statement) or _python_attribute_doc(data, statement), parent)


def _statement_signature(data: bytes, statement: tree_sitter.Node) -> str:
    """A binding's signature: its statement whole when short, else its first line and " ..."."""
    return _short_whole(data, statement) or (_text(data, statement.start_byte, statement.end_byte)
                                             .splitlines()[0].rstrip() + " ...")


def _python_attribute_doc(data: bytes, statement: tree_sitter.Node) -> str:
    """A string statement right after an assignment documents it (the attribute docstring convention)."""
    after = statement.next_named_sibling
    if (after is not None and after.type == "expression_statement" and after.named_child_count == 1
            and after.named_children[0].type == "string" and after.start_point[0] == statement.end_point[0] + 1):
        return _first_line(_text(data, after.start_byte, after.end_byte))
    return ""


# ------------------------------------------------------------------ the other languages, by their `values` query


@lru_cache(maxsize=None)
def _values_query(spec: Spec) -> tree_sitter.Query:
    return tree_sitter.Query(language(spec), spec.values)


def _values(spec: Spec, data: bytes, root: tree_sitter.Node, found: list[Sym]) -> None:
    """The names `spec.values` finds bound outside a function: at the top (a constant or a
    variable) or in a type's body (a member of it)."""
    defined = {s.name for s in found}
    for _, caps in tree_sitter.QueryCursor(_values_query(spec)).matches(root):
        declared = next((k for k in ("constant", "variable", "function") if caps.get(k)), None)
        if declared is None or not caps.get("name"):
            continue
        statement = caps[declared][0]
        parent = _owner(spec, statement)
        if parent is None:
            continue
        keyword = (caps.get("keyword") or [None])[0]
        for name_node in caps["name"]:
            name = _text(data, name_node.start_byte, name_node.end_byte)
            if declared == "function" and (parent or name in defined):
                continue  # a prototype of what the file defines itself: the definition is the entry
            found.append(_value_sym(spec, data, statement, name, parent, declared, keyword))


def _owner(spec: Spec, node: tree_sitter.Node) -> str | None:
    """The name of the type whose body binds `node` ("" at the top), None inside a function."""
    up = node.parent
    while up is not None:
        kind = kind_of(spec, up)
        if kind is not None and up.type not in _SCOPES:
            return None if kind in FUNCTION_KINDS or up.type in spec.bound else name_of(spec, up)
        up = up.parent
    return ""


def _value_sym(spec: Spec, data: bytes, statement: tree_sitter.Node, name: str, parent: str, declared: str,
               keyword: tree_sitter.Node | None) -> Sym:
    """A `values` binding as a Sym. Its kind: a prototype's is function; a member in a type's body,
    else a constant where the language declares one (`const`, `#define`) or the name reads as one,
    else a variable."""
    if declared == "function":
        kind = "function"
    else:
        kind = "member" if parent else ("constant" if declared == "constant" or _CONSTANT.match(name) else "variable")
    head = ""
    if keyword is not None and keyword.end_byte <= statement.start_byte:
        head = _text(data, keyword.start_byte, keyword.end_byte) + " "  # a spec in a block: `const (` ... `)`
    signature = head + _statement_signature(data, statement)
    doc = _leading_comment(spec, data, statement)
    if not doc and head and keyword.parent is not None and keyword.parent.start_point[0] == statement.start_point[0]:
        doc = _leading_comment(spec, data, keyword.parent)  # `// doc` above `const X = 1`: the declaration's
    end = statement.end_point[0] + (1 if statement.end_point[1] else 0)  # `#define` ends with its newline
    return Sym(name, kind, statement.start_point[0], max(end, statement.start_point[0] + 1), signature, doc, parent)


# ------------------------------------------------------------------ Python


def _python_top(data: bytes, root: tree_sitter.Node, found: list[Sym], imports: list[Imp]) -> None:
    from steer_tui.lang.table import spec_for

    spec = spec_for("x.py")
    classes = [(s.name, s.line) for s in found if s.kind == "class" and not s.parent]
    for node in root.named_children:
        _python_statement(spec, data, node, "", found, imports)
    if not classes:
        return
    wanted = {line for _, line in classes}
    for node in root.named_children:
        cls = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
        if cls is None or cls.type != "class_definition" or cls.start_point[0] not in wanted:
            continue
        body = cls.child_by_field_name("body")
        name = name_of(spec, cls)
        for statement in body.named_children if body is not None else ():
            _python_statement(spec, data, statement, name, found, None)


def _python_statement(spec, data, node, parent, found, imports) -> None:
    if node.type == "expression_statement" and node.named_child_count == 1:
        assignment = node.named_children[0]
        if assignment.type == "assignment":
            left = assignment.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                found.append(_assignment_sym(spec, data, node, _text(data, left.start_byte, left.end_byte), parent))
        return
    if imports is None:
        return
    if node.type == "import_statement":
        for name in node.children_by_field_name("name"):
            if name.type == "aliased_import":
                module = _text(data, name.child_by_field_name("name").start_byte, name.child_by_field_name("name").end_byte)
                alias = name.child_by_field_name("alias")
                local = _text(data, alias.start_byte, alias.end_byte)
            else:
                module = _text(data, name.start_byte, name.end_byte)
                local = module.split(".")[0]
            imports.append(Imp(module, (("", local),), node.start_point[0]))
    elif node.type == "import_from_statement":
        module_node = node.child_by_field_name("module_name")
        module = _text(data, module_node.start_byte, module_node.end_byte) if module_node is not None else ""
        names: list[tuple[str, str]] = []
        for name in node.children_by_field_name("name"):
            if name.type == "aliased_import":
                real, alias = name.child_by_field_name("name"), name.child_by_field_name("alias")
                names.append((_text(data, real.start_byte, real.end_byte), _text(data, alias.start_byte, alias.end_byte)))
            else:
                text = _text(data, name.start_byte, name.end_byte)
                names.append((text, text))
        if any(c.type == "wildcard_import" for c in node.named_children):
            names.append(("*", "*"))
        imports.append(Imp(module, tuple(names), node.start_point[0]))
    elif node.type in ("if_statement", "try_statement"):
        # `try: import x except ImportError: ...` and `if TYPE_CHECKING:` imports count too.
        for block in node.named_children:
            for inner in (block.named_children if block.type in ("block", "except_clause", "else_clause",
                                                                  "finally_clause") else ()):
                for statement in (inner.named_children if inner.type == "block" else (inner,)):
                    if statement.type in ("import_statement", "import_from_statement"):
                        _python_statement(spec, data, statement, parent, found, imports)


# ------------------------------------------------------------------ JavaScript / TypeScript


def _js_top(spec: Spec, data: bytes, root: tree_sitter.Node, found: list[Sym], imports: list[Imp]) -> None:
    for node in root.named_children:
        statement = node
        declaration = node
        if node.type == "export_statement":
            declaration = node.child_by_field_name("declaration") or node
            source = node.child_by_field_name("source")
            if source is not None:
                continue  # a re-export: the names live in the other module
        if declaration.type in ("lexical_declaration", "variable_declaration"):
            for declarator in declaration.named_children:
                if declarator.type == "variable_declarator":
                    _js_declarator(spec, data, statement, declarator, found, imports)
        elif node.type == "import_statement":
            _js_import(data, node, imports)
        elif node.type == "expression_statement" and node.named_child_count == 1:
            _js_exports_assignment(spec, data, node, found)
    for node in tree_sitter.QueryCursor(_field_query(spec)).captures(root).get("field", []):
        cls = node.parent.parent if node.parent is not None else None
        if cls is None or kind_of(spec, cls) != "class":
            continue
        name_node = node.child_by_field_name("property") or node.child_by_field_name("name")
        if name_node is None:
            continue
        found.append(_assignment_sym(spec, data, node, _text(data, name_node.start_byte, name_node.end_byte),
                                     name_of(spec, cls)))


@lru_cache(maxsize=None)
def _field_query(spec: Spec) -> tree_sitter.Query:
    types = ["field_definition"] if spec.key == "javascript" else ["public_field_definition"]
    return tree_sitter.Query(language(spec), "[" + " ".join(f"({t})" for t in types) + "] @field")


def _require_source(data: bytes, value: tree_sitter.Node | None) -> str | None:
    if value is None or value.type != "call_expression":
        return None
    fn = value.child_by_field_name("function")
    args = value.child_by_field_name("arguments")
    if fn is None or _text(data, fn.start_byte, fn.end_byte) != "require" or args is None or args.named_child_count != 1:
        return None
    arg = args.named_children[0]
    return _string(data, arg) if arg.type == "string" else None


def _string(data: bytes, node: tree_sitter.Node) -> str:
    return _text(data, node.start_byte, node.end_byte).strip("'\"`")


def _js_declarator(spec, data, statement, declarator, found, imports) -> None:
    name = declarator.child_by_field_name("name")
    value = declarator.child_by_field_name("value")
    source = _require_source(data, value)
    if source is not None:
        if name is not None and name.type == "identifier":
            imports.append(Imp(source, (("", _text(data, name.start_byte, name.end_byte)),), statement.start_point[0]))
        elif name is not None and name.type == "object_pattern":
            imports.append(Imp(source, tuple(_pattern_names(data, name)), statement.start_point[0]))
        return
    if name is None or name.type != "identifier" or (value is not None and value.type in _FUNCTION_VALUES):
        return  # a function or class bound to a name is a definition already
    found.append(_assignment_sym(spec, data, statement, _text(data, name.start_byte, name.end_byte), ""))


def _pattern_names(data: bytes, pattern: tree_sitter.Node) -> list[tuple[str, str]]:
    names = []
    for child in pattern.named_children:
        if child.type == "shorthand_property_identifier_pattern":
            text = _text(data, child.start_byte, child.end_byte)
            names.append((text, text))
        elif child.type == "pair_pattern":
            key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
            if key is not None and value is not None and value.type == "identifier":
                names.append((_text(data, key.start_byte, key.end_byte), _text(data, value.start_byte, value.end_byte)))
    return names


def _js_import(data: bytes, node: tree_sitter.Node, imports: list[Imp]) -> None:
    source = node.child_by_field_name("source")
    if source is None:
        return
    names: list[tuple[str, str]] = []
    for clause in node.named_children:
        if clause.type != "import_clause":
            continue
        for part in clause.named_children:
            if part.type == "identifier":
                names.append(("default", _text(data, part.start_byte, part.end_byte)))
            elif part.type == "namespace_import":
                ident = part.named_children[-1] if part.named_child_count else None
                if ident is not None:
                    names.append(("", _text(data, ident.start_byte, ident.end_byte)))
            elif part.type == "named_imports":
                for spec_node in part.named_children:
                    if spec_node.type != "import_specifier":
                        continue
                    real = spec_node.child_by_field_name("name")
                    alias = spec_node.child_by_field_name("alias") or real
                    if real is not None:
                        names.append((_text(data, real.start_byte, real.end_byte),
                                      _text(data, alias.start_byte, alias.end_byte)))
    imports.append(Imp(_string(data, source), tuple(names), node.start_point[0]))


def _js_exports_assignment(spec, data, node, found) -> None:
    """`exports.NAME = value` / `module.exports.NAME = value` defines NAME (functions included)."""
    assignment = node.named_children[0]
    if assignment.type != "assignment_expression":
        return
    left = assignment.child_by_field_name("left")
    if left is None or left.type != "member_expression":
        return
    target = _text(data, left.start_byte, left.end_byte)
    if not target.startswith(("exports.", "module.exports.")):
        return
    name = target.rsplit(".", 1)[1]
    value = assignment.child_by_field_name("right")
    if value is not None and value.type in _FUNCTION_VALUES and value.child_by_field_name("body") is not None:
        body = value.child_by_field_name("body")
        found.append(Sym(name, "function", node.start_point[0], node.end_point[0] + 1,
                         _header(data, node.start_byte, body.start_byte), _leading_comment(spec, data, node), ""))
        return
    found.append(_assignment_sym(spec, data, node, name, ""))
