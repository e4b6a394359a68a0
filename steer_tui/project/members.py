"""Members an edit reads from a project module that the module does not have: `logger.error` where
`logger = require('./logger')` exports only `createLogger` and `entries` (JavaScript, Python; in Go,
`money.Format` where the package money defines no `Format`).

A small model guesses a module's members from its name. The edit parses and applies, and fails only
when that line runs (a TypeError in JavaScript, an AttributeError in Python). A read counts when the
name is bound once, at the top of the edited text, to a project file (`const x = require('./m')`,
`import * as x from './m'`; Python's `import a.m as x`, `from a import m`), and is used nowhere but
as `x.member`; the module's members are known exactly (a JavaScript file's named exports or its
`module.exports = { ... }` object; every name a Python module binds, which has no star import and
no module `__getattr__`); and the text before the edit did not read the same member. Anything less
certain is passed over: never a guess.
"""

from __future__ import annotations

import ast
import posixpath
import re
from dataclasses import dataclass

from steer_tui import lang
from steer_tui.edits.pytree import parse_tree
from steer_tui.edits.stdlib_imports import bound_names
from steer_tui.lang.parsing import parse

_JS = ("javascript", "typescript", "tsx")


@dataclass(frozen=True)
class MissingMember:
    """`local.member` read (or, with `imported`, `member` imported by name) from the project file
    `source`, which has only `members`."""

    local: str
    member: str
    source: str
    members: tuple[str, ...]
    imported: bool = False

    def said(self) -> str:
        return f"`{self.member}` imported" if self.imported else f"`{self.local}.{self.member}`"


def member_problem(session, new_text: str, words: str = ""):
    """The RuntimeProblem (steer_tui.edits.runtime) of `new_text`, a proposal for `session`'s file
    in its project, reading members its project modules lack; None when it reads none. A member
    the request's `words` name is the user's own call (one they may be about to write): not held
    against the answer."""
    from steer_tui.edits.runtime import RuntimeProblem

    context = session.context
    if context is None or context.index is None or not context.relative_path:
        return None
    missing = [m for m in missing_members(context.relative_path, session.document.text, new_text, context.index)
               if not re.search(rf"(?<![\w$]){re.escape(m.member)}(?![\w$])", words)]
    if not missing:
        return None
    first = missing[0]
    has = _public(context.index, first.source) or [m for m in first.members if not m.startswith("_")]
    shown = ", ".join(f"`{m}`" for m in has[:12]) + (", ..." if len(has) > 12 else "")
    verb = "imports" if first.imported else "reads"
    return RuntimeProblem(
        "member", f"{first.said()}: {first.source} has no `{first.member}` (it fails when run)",
        f"it {verb} {first.said().removesuffix(' imported')}, but {first.source} has no `{first.member}`; what it "
        f"has: {shown}. Use only what that file defines.")


def _public(index, source: str) -> list[str]:
    from steer_tui.project.context import is_private

    return [s.name for s in sorted(index.symbols_in(source), key=lambda s: s.line)
            if not s.parent and not is_private(index, s)]


def missing_members(path: str, old: str, new: str, index) -> list[MissingMember]:
    """The members `new` (the edited text of the project file `path`) reads from project modules
    that do not have them and `old` did not read."""
    spec = lang.language(path)
    if spec is None or index is None:
        return []
    if spec.key == "go":
        return _go_missing(path, old, new, index)
    if spec.key == "python":
        reads = _python_reads(new)
        known = lambda source: _python_members(index, source)  # noqa: E731
    elif spec.key in _JS:
        reads = _js_reads(spec, new)
        known = lambda source: _js_members(index, source)  # noqa: E731
    else:
        return []
    if not reads:
        return []
    before = _python_reads(old) if spec.key == "python" else _js_reads(spec, old)
    out = []
    for local, (module, members) in reads.items():
        source = index.resolve(path, module)
        if not source or source.endswith("/"):
            continue
        have = known(source)
        if have is None:
            continue
        read_before = before.get(local, ("", set()))[1]
        imported = local.startswith("from ")
        for member in sorted(members - have - read_before):
            if imported and spec.key == "python" and index.resolve(path, f"{module}.{member}"):
                continue  # `from pkg import submodule`
            out.append(MissingMember(local, member, source, tuple(sorted(have)), imported))
    return out


# ------------------------------------------------------------------ JavaScript / TypeScript


def _js_reads(spec, text: str) -> dict[str, tuple[str, set[str]]]:
    """{local name: (the module it is bound to, the members read through it)} for each name bound
    once at the top level to a whole module and used only as `name.member`."""
    tree = parse(spec, text)
    bound: dict[str, str] = {}
    named: dict[str, set[str]] = {}  # module -> the names imported from it by name
    for node in tree.root_node.named_children:
        if node.type == "import_statement":
            source = node.child_by_field_name("source")
            clause = next((c for c in node.named_children if c.type == "import_clause"), None)
            space = next((c for c in clause.named_children if c.type == "namespace_import"), None) if clause else None
            name = next((c for c in space.named_children if c.type == "identifier"), None) if space else None
            if source is not None and name is not None:
                bound[name.text.decode()] = _string(source)
            names = next((c for c in clause.named_children if c.type == "named_imports"), None) if clause else None
            if source is not None and names is not None:
                for spec_node in (c for c in names.named_children if c.type == "import_specifier"):
                    real = spec_node.child_by_field_name("name")
                    if real is not None and real.type == "identifier":
                        named.setdefault(_string(source), set()).add(real.text.decode())
        elif node.type in ("lexical_declaration", "variable_declaration"):
            for decl in (c for c in node.named_children if c.type == "variable_declarator"):
                name, value = decl.child_by_field_name("name"), decl.child_by_field_name("value")
                module = _required(value)
                if name is not None and name.type == "identifier" and module:
                    bound[name.text.decode()] = module
                elif name is not None and name.type == "object_pattern" and module:
                    named.setdefault(module, set()).update(_pattern_keys(name))
    out = {f"from {module}": (module, names) for module, names in named.items() if names}
    if not bound:
        return out
    reads: dict[str, set[str]] = {name: set() for name in bound}
    uses: dict[str, int] = {}  # each name as an identifier other than the `x` of `x.member`
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "member_expression":
            obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
            if obj is not None and obj.type == "identifier" and obj.text.decode() in reads:
                if prop is not None and prop.type == "property_identifier":
                    reads[obj.text.decode()].add(prop.text.decode())
                stack.extend(c for c in node.children if c != obj)
                continue
        elif node.type in ("identifier", "shorthand_property_identifier", "shorthand_property_identifier_pattern"):
            name = node.text.decode()
            if name in reads:
                uses[name] = uses.get(name, 0) + 1
        stack.extend(node.children)
    # the binding itself is one identifier use: a name used any other way is not only a namespace
    out.update({name: (bound[name], reads[name]) for name in bound if reads[name] and uses.get(name, 0) == 1})
    return out


def _pattern_keys(pattern) -> set[str]:
    """The property names `const { a, b: c } = ...` takes (a, b); none from a computed key or a rest."""
    keys = set()
    for child in pattern.named_children:
        if child.type == "shorthand_property_identifier_pattern":
            keys.add(child.text.decode())
        elif child.type == "pair_pattern":
            key = child.child_by_field_name("key")
            if key is not None and key.type == "property_identifier":
                keys.add(key.text.decode())
    return keys


def _string(node) -> str:
    return node.text.decode()[1:-1] if node.type == "string" else ""


def _required(value) -> str:
    """The module of `require('m')` (a plain string argument), else ""."""
    if value is None or value.type != "call_expression":
        return ""
    func, args = value.child_by_field_name("function"), value.child_by_field_name("arguments")
    if func is None or func.text != b"require" or args is None or args.named_child_count != 1:
        return ""
    arg = args.named_children[0]
    return _string(arg) if arg.type == "string" else ""


def _js_members(index, source: str) -> frozenset[str] | None:
    """The names a module object of `source` has, as other files see them: its ES exports (`default`
    for a default export, `b` for `export { a as b }`), or the keys of `module.exports = { ... }`
    and `exports.x =` (CommonJS); None when they cannot be told (`export *`, a spread, a computed
    key, `module.exports` set to a value, both kinds at once)."""
    spec = lang.language(source)
    if spec is None or spec.key not in _JS:
        return None
    try:
        text = (index.root / source).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    esm: set[str] = set()
    cjs: set[str] = set()
    root = parse(spec, text).root_node
    if root.has_error:
        return None
    for node in root.named_children:
        if node.type == "export_statement":
            names = _es_exports(node)
            if names is None:
                return None
            esm |= names
        elif node.type == "expression_statement" and node.named_child_count == 1:
            assign = node.named_children[0]
            if assign.type != "assignment_expression":
                continue
            target = assign.child_by_field_name("left")
            if target is None:
                continue
            written = target.text.decode().replace(" ", "")
            if written == "module.exports":
                keys = _object_keys(assign.child_by_field_name("right"))
                if keys is None:
                    return None
                cjs |= keys
            elif (match := re.fullmatch(r"(?:module\.)?exports\.([A-Za-z_$][\w$]*)", written)) is not None:
                cjs.add(match.group(1))
    if bool(esm) == bool(cjs):
        return None  # neither (nothing to go by) or both (a mixed module)
    return frozenset(esm or cjs)


_DECLARATIONS = frozenset({"function_declaration", "generator_function_declaration", "class_declaration",
                           "abstract_class_declaration", "interface_declaration", "type_alias_declaration",
                           "enum_declaration", "function_signature"})


def _es_exports(node) -> set[str] | None:
    """The names one `export` statement gives; None for `export *` and what cannot be told."""
    if any(c.type == "default" for c in node.children) or node.text.startswith(b"export default"):
        return {"default"}
    out: set[str] = set()
    for child in node.named_children:
        if child.type in _DECLARATIONS:
            name = child.child_by_field_name("name")
            if name is None:
                return None
            out.add(name.text.decode())
        elif child.type in ("lexical_declaration", "variable_declaration"):
            for decl in (c for c in child.named_children if c.type == "variable_declarator"):
                name = decl.child_by_field_name("name")
                if name is None or name.type != "identifier":
                    return None  # a destructuring export
                out.add(name.text.decode())
        elif child.type == "export_clause":
            for spec_node in (c for c in child.named_children if c.type == "export_specifier"):
                name = spec_node.child_by_field_name("alias") or spec_node.child_by_field_name("name")
                if name is None:
                    return None
                out.add(name.text.decode())
        elif child.type == "namespace_export":
            name = next((c for c in child.named_children if c.type == "identifier"), None)
            if name is None:
                return None
            out.add(name.text.decode())
        elif child.type not in ("string", "comment", "decorator"):
            return None
    if not out and b"*" in node.text.split(b"from")[0]:
        return None  # export * from './x'
    return out


def _object_keys(node) -> set[str] | None:
    """The keys of an object literal `{ a, b: 1, c() {} }`; None for anything else, a spread or a computed key."""
    if node is None or node.type != "object":
        return None
    keys = set()
    for child in node.named_children:
        if child.type == "shorthand_property_identifier":
            keys.add(child.text.decode())
        elif child.type in ("pair", "method_definition"):
            key = child.child_by_field_name("key") or child.child_by_field_name("name")
            if key is None or key.type not in ("property_identifier", "string"):
                return None
            keys.add(key.text.decode().strip("'\""))
        elif child.type != "comment":
            return None
    return keys


# ------------------------------------------------------------------ Go


def _go_missing(path: str, old: str, new: str, index) -> list[MissingMember]:
    """Go: `pkg.Name` read through an import of a project package whose files (tests aside) define
    no top-level `Name`: the compiler's "undefined: pkg.Name"."""
    from steer_tui.lang.qualifiers import go_qualifiers

    try:
        _, imports = lang.outline(path, new)
    except Exception:
        return []
    reads, before = go_qualifiers(new), go_qualifiers(old)
    out = []
    for imp in imports:
        if len(imp.names) != 1 or imp.names[0][0] != "":
            continue  # a dot import binds every name
        local = imp.names[0][1]
        wanted = reads.get(local, set()) - before.get(local, set())
        folder = index.resolve(path, imp.module) if wanted else ""
        if not folder.endswith("/"):
            continue
        folder = "" if folder == "/" else folder.rstrip("/")
        files = [f for f in index.files() if f.endswith(".go") and not f.endswith("_test.go")
                 and posixpath.dirname(f) == folder]
        try:
            on_disk = {p.name for p in (index.root / folder).glob("*.go") if not p.name.endswith("_test.go")}
        except OSError:
            continue
        if not files or on_disk != {posixpath.basename(f) for f in files}:
            continue  # a file the index left out (too big, ignored) may define anything
        have = {s.name for f in files for s in index.symbols_in(f) if not s.parent}
        exported = tuple(sorted(n for n in have if n[:1].isupper()))
        for name in sorted(wanted - have):
            where = f"{folder}/" if folder else "the root folder"
            out.append(MissingMember(local, name, f"package {local} ({where})", exported))
    return out


# ------------------------------------------------------------------ Python


def _python_reads(text: str) -> dict[str, tuple[str, set[str]]]:
    """As `_js_reads`, for Python: names the module's own imports bind to a module (`import a.m as
    x`, `import m`, `from a import m`, relative ones too) and that are used only as `x.member`."""
    tree = parse_tree(text)
    if tree is None:
        return {}
    bound: dict[str, str] = {}
    out: dict[str, tuple[str, set[str]]] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname or "." not in alias.name:
                    bound[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (f"{node.module}." if node.module else "")
            for alias in node.names:
                bound[alias.asname or alias.name] = base + alias.name
            if node.module and not any(a.name == "*" for a in node.names):
                module = "." * node.level + node.module
                out.setdefault(f"from {module}", (module, set()))[1].update(a.name for a in node.names)
    if not bound:
        return out
    reads: dict[str, set[str]] = {name: set() for name in bound}
    objects = set()  # the Name nodes that are the `x` of an `x.member`
    other = set()  # used some other way, or bound again
    for node in ast.walk(tree):  # breadth first: an Attribute comes before the Name it holds
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in reads:
            reads[node.value.id].add(node.attr)
            objects.add(id(node.value))
        elif isinstance(node, ast.Name) and node.id in reads and id(node) not in objects:
            other.add(node.id)
        elif isinstance(node, ast.arg) and node.arg in reads:
            other.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in reads:
            other.add(node.name)
    out.update({name: (bound[name], reads[name]) for name in bound if reads[name] and name not in other})
    return out


def _python_members(index, source: str) -> frozenset[str] | None:
    """Every name the module `source` binds (anywhere: a function's locals too, which only widens
    what counts as there); None for a package's __init__ (its submodules are members too), a star
    import, a module `__getattr__`, or a file that does not parse."""
    if not source.endswith(".py") or source.endswith("__init__.py"):
        return None
    try:
        text = (index.root / source).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    tree = parse_tree(text)
    if tree is None:
        return None
    names = bound_names(tree)
    if names is None or "__getattr__" in names:
        return None
    return names | {"__name__", "__file__", "__doc__", "__dict__", "__spec__", "__loader__", "__package__",
                    "__path__", "__all__"}
