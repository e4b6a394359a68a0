"""An import statement (Imp), and the imports of a C/C++, C#, Java, Rust, Ruby, PHP or Go file: the module
each names and the names it binds (Python's and JavaScript's are read with their outline, in
steer_tui.lang.symbols)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter


@dataclass(frozen=True, slots=True)
class Imp:
    """One import statement: the module as written and the (imported name, local name) pairs it
    binds; an imported name "" is the module itself, "*" all of it, "default" a JS default export."""

    module: str
    names: tuple[tuple[str, str], ...]
    line: int


_RUBY_REQUIRES = frozenset({"require", "require_relative", "load"})
# A C/C++ include, a Ruby require: every top-level name of the file it names is in reach.
_ALL = (("*", "*"),)


def read(key: str, data: bytes, root: tree_sitter.Node) -> list[Imp]:
    """The imports of the file (`key`: its language's short name); empty for another language."""
    reader = _READERS.get(key)
    return reader(data, root) if reader is not None else []


def _text(data: bytes, node: tree_sitter.Node) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _c(data: bytes, root: tree_sitter.Node) -> list[Imp]:
    """`#include "money.h"` and `#include <stdio.h>` (written with its brackets: the system's, never a
    project file), inside include guards too."""
    out = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "preproc_include":
            path = node.child_by_field_name("path")
            if path is not None and path.type == "string_literal":
                out.append(Imp(_text(data, path).strip('"'), _ALL, node.start_point[0]))
            elif path is not None and path.type == "system_lib_string":
                out.append(Imp(_text(data, path), (), node.start_point[0]))
        elif node.type.startswith(("translation_unit", "preproc_if", "preproc_else", "preproc_elif", "linkage",
                                   "declaration_list", "namespace")):
            stack.extend(reversed(node.named_children))
    return sorted(out, key=lambda i: i.line)


def _java(data: bytes, root: tree_sitter.Node) -> list[Imp]:
    """`import a.b.C;` binds C from a/b/C.java; `import static a.b.C.MAX;` MAX from it; `a.b.*` a package."""
    out = []
    for node in root.named_children:
        if node.type != "import_declaration" or any(c.type == "asterisk" for c in node.named_children):
            continue
        names = [c for c in node.named_children if c.type in ("scoped_identifier", "identifier")]
        if not names:
            continue
        dotted = _text(data, names[0])
        last = dotted.rsplit(".", 1)[-1]
        static = any(c.type == "static" for c in node.children)
        module = dotted.rsplit(".", 1)[0] if static and "." in dotted else dotted
        out.append(Imp(module, ((last, last),), node.start_point[0]))
    return out


def _csharp(data: bytes, root: tree_sitter.Node) -> list[Imp]:
    """`using Shop.Models;` (at the top or inside a namespace) brings every type of that namespace
    into reach; `using static` and `using M = ...` bring no namespace's types by their own names."""
    out = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "using_directive":
            kids = node.children
            if any(c.type in ("static", "=") for c in kids):
                continue
            name = next((c for c in node.named_children if c.type in ("identifier", "qualified_name")), None)
            if name is not None:
                out.append(Imp(_text(data, name), _ALL, node.start_point[0]))
        elif node.type in ("compilation_unit", "namespace_declaration", "file_scoped_namespace_declaration",
                           "declaration_list"):
            stack.extend(reversed(node.named_children))
    return sorted(out, key=lambda i: i.line)


def _rust(data: bytes, root: tree_sitter.Node) -> list[Imp]:
    """`use crate::money::format_price;` and `use crate::shop::{Cart, Item as It};`."""
    out = []
    for node in root.named_children:
        if node.type != "use_declaration":
            continue
        arg = node.child_by_field_name("argument")
        if arg is None:
            continue
        if arg.type == "scoped_identifier":
            path, name = arg.child_by_field_name("path"), arg.child_by_field_name("name")
            if path is not None and name is not None:
                out.append(Imp(_text(data, path), ((_text(data, name), _text(data, name)),), node.start_point[0]))
        elif arg.type == "scoped_use_list":
            path, items = arg.child_by_field_name("path"), arg.child_by_field_name("list")
            if path is None or items is None:
                continue
            names = []
            for item in items.named_children:
                if item.type == "identifier":
                    names.append((_text(data, item), _text(data, item)))
                elif item.type == "use_as_clause":
                    real, alias = item.child_by_field_name("path"), item.child_by_field_name("alias")
                    if real is not None and alias is not None and real.type == "identifier":
                        names.append((_text(data, real), _text(data, alias)))
            out.append(Imp(_text(data, path), tuple(names), node.start_point[0]))
    return out


def _ruby(data: bytes, root: tree_sitter.Node) -> list[Imp]:
    """`require_relative "money"` (written "./money" here, as a relative path reads) and `require "shop/cart"`."""
    out = []
    for node in root.named_children:
        if node.type != "call":
            continue
        method, args = node.child_by_field_name("method"), node.child_by_field_name("arguments")
        if method is None or args is None or _text(data, method) not in _RUBY_REQUIRES or args.named_child_count != 1:
            continue
        arg = args.named_children[0]
        if arg.type != "string" or arg.named_child_count != 1 or arg.named_children[0].type != "string_content":
            continue  # an interpolated path is not read
        path = _text(data, arg.named_children[0])
        if _text(data, method) == "require_relative" and not path.startswith("."):
            path = "./" + path
        out.append(Imp(path, _ALL, node.start_point[0]))
    return out


def _php(data: bytes, root: tree_sitter.Node) -> list[Imp]:
    """`use App\\Models\\User;` and `use App\\Support\\Money as Cash;` (namespaced classes); `require_once
    __DIR__ . '/lib/money.php'` and the other includes of a file beside this one (written "./lib/money.php"),
    which bring every name it defines."""
    out = []
    stack = list(root.named_children)
    while stack:
        node = stack.pop(0)
        if node.type == "namespace_definition":
            body = node.child_by_field_name("body")
            stack[:0] = body.named_children if body is not None else []
            continue
        if node.type == "expression_statement" and node.named_child_count == 1:
            included = _php_included(data, node.named_children[0])
            if included:
                out.append(Imp(included, _ALL, node.start_point[0]))
            continue
        if node.type != "namespace_use_declaration":
            continue
        for clause in node.named_children:
            if clause.type != "namespace_use_clause" or not clause.named_child_count:
                continue
            name = clause.named_children[0]
            alias = clause.child_by_field_name("alias")
            module = _text(data, name).lstrip("\\")
            last = module.rsplit("\\", 1)[-1]
            out.append(Imp(module, ((last, _text(data, alias) if alias is not None else last),), node.start_point[0]))
    return out


_PHP_INCLUDES = frozenset({"require_expression", "require_once_expression", "include_expression",
                           "include_once_expression"})


def _php_included(data: bytes, node: tree_sitter.Node) -> str:
    """The file an include names, as a path from the including file's folder ("./x.php"): a plain
    string, or `__DIR__` / `dirname(__FILE__)` joined to one; "" for anything computed."""
    if node.type not in _PHP_INCLUDES or not node.named_child_count:
        return ""
    arg = node.named_children[0]
    while arg.type == "parenthesized_expression" and arg.named_child_count == 1:
        arg = arg.named_children[0]
    if arg.type == "binary_expression" and arg.named_child_count == 2:
        left, right = arg.named_children
        here = _text(data, left).replace(" ", "") in ("__DIR__", "dirname(__FILE__)")
        return "./" + _php_string(data, right).lstrip("/") if here and _php_string(data, right) else ""
    text = _php_string(data, arg)
    return "./" + text if text and not text.startswith("/") else ""


def _php_string(data: bytes, node: tree_sitter.Node) -> str:
    """A string literal's text when it is one plain piece ("" for an interpolated one)."""
    if node.type not in ("string", "encapsed_string") or node.named_child_count != 1:
        return ""
    part = node.named_children[0]
    return _text(data, part) if part.type == "string_content" else ""


def _go(data: bytes, root: tree_sitter.Node) -> list[Imp]:
    """`import m "example.com/shop/money"`: the package binds its last path element (or its alias);
    a dot import all its names; a blank one nothing."""
    out = []
    for node in root.named_children:
        if node.type != "import_declaration":
            continue
        specs = [c for c in node.named_children if c.type == "import_spec"]
        for group in (c for c in node.named_children if c.type == "import_spec_list"):
            specs += [c for c in group.named_children if c.type == "import_spec"]
        for spec in specs:
            path, name = spec.child_by_field_name("path"), spec.child_by_field_name("name")
            if path is None:
                continue
            module = _text(data, path).strip('"`')
            if name is not None and name.type == "blank_identifier":
                continue
            if name is not None and name.type == "dot":
                out.append(Imp(module, _ALL, spec.start_point[0]))
                continue
            local = _text(data, name) if name is not None else _go_package(module)
            out.append(Imp(module, (("", local),), spec.start_point[0]))
    return out


def _go_package(path: str) -> str:
    """The name an import path binds: its last element, but not a major version's (`chi/v5` is chi,
    `gopkg.in/yaml.v3` yaml)."""
    parts = path.split("/")
    last = parts[-1]
    if re.fullmatch(r"v\d+", last) and len(parts) > 1:
        last = parts[-2]
    return re.sub(r"\.v\d+$", "", last)


_READERS = {"c": _c, "cpp": _c, "java": _java, "rust": _rust, "ruby": _ruby, "php": _php, "go": _go,
            "csharp": _csharp}
