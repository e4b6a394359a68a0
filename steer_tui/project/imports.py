"""The imports an edit needs: for what it took from the context (a name another project file defines,
shown to the model, that the edited code now uses but the file neither defines nor imports), and for
the standard-library modules a Python edit reads without an import."""

from __future__ import annotations

import ast
import functools
import posixpath
import re
import sys
from dataclasses import dataclass

from steer_tui import lang
from steer_tui.edits import go_imports
from steer_tui.edits.js_style import js_style
from steer_tui.edits.node_imports import missing as node_missing
from steer_tui.edits.pytree import parse_tree
from steer_tui.edits.stdlib_imports import missing as stdlib_missing
from steer_tui.lang.qualifiers import go_qualifiers
from steer_tui.project import import_lines

_JS_EXTS = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
_NATIVE = frozenset({"java", "c", "cpp", "csharp", "rust"})  # what the context gave, by steer_tui.project.import_lines


@dataclass(frozen=True)
class ImportLine:
    """Text to insert before 0-based `line` of the file as it was (one or more whole lines)."""

    line: int
    text: str
    # Where it goes when the edit itself changes the lines at `line` (a rewrite that wrote its own
    # imports there): right above the file's first definition.
    fallback: int | None = None
    fallback_text: str = ""


# What may not stand right before a name used on its own, by the separator that qualifies a name.
_NOT_BEFORE = {".": r"\w$.", "::": r"\w$.:"}
# What stands before a file's name in a path or a string (`'./src/units.js'`, `// src/units.js`):
# `units.js` there is no use of a module `units`.
_IN_A_PATH = r"/\\'\"`@-"


def _uses(text: str, name: str, separator: str = ".") -> bool:
    """`name` is used in `text` as a name of its own (not as `x.name`, or Rust's `x::name`, not
    inside a longer name)."""
    return re.search(rf"(?<![{_NOT_BEFORE[separator]}]){re.escape(name)}(?![\w$])", text) is not None


def _bound(path: str, text: str) -> set[str]:
    """The names `text` defines or imports at its top level."""
    try:
        symbols, imports = lang.outline(path, text)
    except Exception:
        return set()
    names = {s.name for s in symbols if not s.parent}
    for imp in imports:
        names.update(local for _, local in imp.names)
    return names


def needed(path: str, old: str, new: str, items=(), index=None) -> list[ImportLine]:
    """The import lines `new` (the edited text of `path`, relative to the index's root) needs: for
    the names of context `items` it uses that `old` did not mention and `new` neither defines nor
    imports, for the standard-library modules it reads that no line imports (Python:
    steer_tui.edits.stdlib_imports; JavaScript/TypeScript: the Node built-ins, node_imports), and
    (Python) for the names it reads that nothing binds but one file of the project defines
    (`_from_project`); placed after the file's imports (else after its docstring or 'use strict').
    Without `index` (no project around the file), the standard library's alone."""
    spec = lang.language(path)
    if spec is not None and spec.key in _NATIVE and index is not None:
        return _native(spec.key, path, old, new, items, index)
    if spec is not None and spec.key == "go":
        return _go(path, old, new, index)
    if spec is None or spec.key not in ("python", "javascript", "typescript", "tsx"):
        return []
    wanted, modules = _from_context(path, old, new, items, index) if index is not None else ({}, {})
    # A project module the context showed wins over a standard-library one of the same name.
    ours = set(modules.values()) | {sym.name for syms in wanted.values() for sym in syms}
    stdlib = (stdlib_missing(old, new, frozenset(ours)) if spec.key == "python"
              else node_missing(path, old, new, _is_esm(path, old, index)))
    if spec.key == "python" and index is not None:
        for sym in _from_project(path, old, new, index, "".join(f"{line}\n" for line in stdlib), wanted):
            wanted.setdefault(sym.path, []).append(sym)
    elif index is not None:
        for sym in _from_project_js(path, old, new, index, wanted, modules, stdlib):
            wanted.setdefault(sym.path, []).append(sym)
    if not wanted and not modules and not stdlib:
        return []
    at, blank = _place(spec.key, path, old)
    lines = list(stdlib)
    known = _modules(path, old, index) if index is not None else {}
    if spec.key != "python" and index is not None:
        known = _by_alias(path, known, [*modules, *wanted], index)
    for source, stem in modules.items():
        lines.append(_module_line(spec.key, path, old, source, stem, known.get(source), index))
    for source, syms in wanted.items():
        line = (_python_line(path, old, source, [s.name for s in syms], known.get(source)) if spec.key == "python"
                else _js_line(path, old, source, syms, index, known.get(source)))
        if line:
            lines.append(line)
    if not lines:
        return []
    first = _first_definition(path, old)
    fallback = first if first is not None and first > at else None
    gap = "\n\n" if spec.key == "python" else "\n"
    grouped = _beside_their_kind(path, old, lines[:len(stdlib)], at) if spec.key == "python" and not blank else {}
    out = [ImportLine(there, "".join(f"{line}\n" for line in group), fallback, "".join(f"{line}\n" for line in group) + gap)
           for there, group in grouped.items()]
    lines = [line for line in lines if not any(line in group for group in grouped.values())]
    if not lines:
        return out
    block = "\n".join(lines) + "\n"
    if blank:  # the file's first import: set apart from what comes before it, or after it at the top
        block = "\n" + block if at > 0 else block + "\n"
    return [*out, ImportLine(at, block, fallback, "\n".join(lines) + "\n" + gap)]


def _beside_their_kind(path: str, old: str, stdlib: list[str], at: int) -> dict[int, list[str]]:
    """{line to insert before: the standard-library imports that go there} for those of `stdlib`
    that belong above `at` (after the file's last import): right after the file's import of the same
    module (`from datetime import timedelta` under `from datetime import datetime`), else after its
    last standard-library import, when third-party or project imports follow it, as isort groups them."""
    lines = old.splitlines()
    try:
        _, imports = lang.outline(path, old)
    except Exception:
        return {}
    top = [imp for imp in imports if not lines[imp.line][:1].isspace() and not imp.module.startswith(".")]
    std = [imp for imp in top if _package(imp.module) in sys.stdlib_module_names and imp.module != "__future__"]
    out: dict[int, list[str]] = {}
    for line in stdlib:
        package = _package(line.split()[1])
        same = [imp.line for imp in std if _package(imp.module) == package]
        anchor = max(same) if same else max((imp.line for imp in std), default=None)
        if anchor is None:
            continue
        there = _statement_end(lines, anchor)
        if there < at:
            out.setdefault(there, []).append(line)
    return out


def _package(module: str) -> str:
    return module.split(".", 1)[0]


def _native(key: str, path: str, old: str, new: str, items, index) -> list[ImportLine]:
    """Java, C/C++ and Rust: the context's names the edit took, by the line each language imports
    them with (steer_tui.project.import_lines), after the file's imports."""
    old_code, new_code = _without_comments(old), _without_comments(new)  # "/// Price before tax." uses no `tax`
    wanted, modules = _from_context(path, old_code, new_code, items, index, "::" if key == "rust" else ".")
    reached = [(source, [s.name for s in syms]) for source, syms in wanted.items()]
    if key == "rust":  # `config::PER_PAGE`: the module itself
        reached += [(source, []) for source in modules]
    elif key == "java":  # `Limits.MAX`: the class the file is named for
        reached += [(source, [stem]) for source, stem in modules.items()]
        reached += _nested_types(path, old_code, new_code, items, index)
    lines = list(dict.fromkeys(  # a .c file's definition and its header's prototype: one include
        text for source, names in reached if (text := import_lines.line(key, path, old, source, names, index))))
    if not lines:
        return []
    at, blank = _place(key, path, old)
    block = "\n".join(lines) + "\n"
    if blank:
        block = "\n" + block if at > 0 else block + "\n"
    return [ImportLine(at, block)]


def _go(path: str, old: str, new: str, index) -> list[ImportLine]:
    """Go: the project's packages and the standard library's that the edit now reads by a name it
    does not import. A project package is the one folder whose package has that name and defines a
    name read from it (two such folders: none); the file's own package's names in its other files
    are never taken for a package."""
    module, home = index.go_module(path) if index is not None else ("", "")
    folder = posixpath.dirname(path)
    ours: set[str] = set()  # what the package declares in its other files
    paths: list[str] = []
    if index is not None:
        for rel in index.files():
            if rel.endswith(".go") and rel != path and posixpath.dirname(rel) == folder:
                ours.update(s.name for s in index.symbols_in(rel) if not s.parent)
        before, imported = go_qualifiers(old), go_imports.imported_names(new)
        for name, reads in sorted(go_qualifiers(new).items()):
            if name in before or name in imported or name in ours or not module:
                continue
            found = _go_package_folders(index, name, reads, folder)
            if len(found) == 1:
                ours.add(name)  # the project's package wins over a standard-library one of its name
                theirs, top = index.go_module(posixpath.join(found[0], "x.go"))
                if theirs:
                    rest = posixpath.relpath(found[0] or ".", top or ".")
                    paths.append(theirs if rest == "." else f"{theirs}/{rest}")
    paths = go_imports.missing(old, new, frozenset(ours)) + paths
    return [ImportLine(at, text) for at, text in go_imports.placements(old, paths, module)] if paths else []


def _go_package_folders(index, name: str, reads: set[str], here: str) -> list[str]:
    """The project's folders (not `here`) whose Go package is called `name` and defines at top level
    one of `reads`."""
    folders: set[str] = set()
    for read in reads:
        for sym in index.find(read):
            if sym.path.endswith(".go") and not sym.parent and posixpath.dirname(sym.path) != here:
                folders.add(posixpath.dirname(sym.path))
    return sorted(f for f in folders if _go_package_name(index, f) == name)


def _go_package_name(index, folder: str) -> str:
    for rel in index.files():
        if rel.endswith(".go") and not rel.endswith("_test.go") and posixpath.dirname(rel) == folder:
            try:
                text = (index.root / rel).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            found = re.search(r"^package\s+(\w+)", text, re.M)
            if found:
                return found.group(1)
    return ""


_C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def _without_comments(text: str) -> str:
    """A C-family text with its comments blanked (a `//` inside a string ends that line early: a
    name used after it there is missed, never one invented)."""
    return _C_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _nested_types(path: str, old: str, new: str, items, index) -> list[tuple[str, list[str]]]:
    """Java: a type nested in a context item's class that the edit names bare (`Insufficient` for
    `StockException.Insufficient`), as (its file, ["StockException.Insufficient"]): Java imports it so."""
    bound = _bound(path, new)
    out: dict[str, list[str]] = {}
    for item in items:
        if item.kind != "symbol" or item.path == path:
            continue
        for sym in index.symbols_in(item.path):
            if (sym.parent == item.name and sym.kind in lang.TYPE_KINDS and sym.name not in bound
                    and not _uses(old, sym.name) and _uses(new, sym.name)):
                out.setdefault(item.path, []).append(f"{sym.parent}.{sym.name}")
    return list(out.items())


def _from_context(path: str, old: str, new: str, items, index, separator: str = ".") -> tuple[dict, dict]:
    """({source file: the symbols of `items` it gives that `new` now uses}, {source file: the module
    name `new` reaches it by, `stem` then `separator`}) for the context's names the edit took."""
    # An outline of the new text, made only where a name of the context is new in it.
    bound = functools.cache(lambda: _bound(path, new))

    wanted: dict[str, list] = {}  # source file -> the symbols it gives
    for item in items:
        syms = index.find(item.name) if item.kind == "symbol" else [s for s in index.symbols_in(item.path)
                                                                     if not s.parent]
        for sym in syms:
            if sym.path != item.path or sym.path == path:
                continue
            if sym.parent:  # `Limits.MAX_PAGE_SIZE`: what is imported is its type
                sym = next((s for s in index.symbols_in(sym.path) if s.name == sym.parent and not s.parent), None)
                if sym is None:
                    continue
            if _uses(old, sym.name, separator) or not _uses(new, sym.name, separator) or sym.name in bound():
                continue
            if sym.name not in [s.name for s in wanted.get(sym.path, [])]:
                wanted.setdefault(sym.path, []).append(sym)
    # `settings.PAGE_SIZE`: the model reached the item through its module, by the file's name.
    modules: dict[str, str] = {}
    for item in items:
        stem = posixpath.splitext(posixpath.basename(item.path))[0]
        taken = {sym.name for syms in wanted.values() for sym in syms}
        if (item.path != path and stem.isidentifier() and stem not in taken and not _uses(old, stem, separator)
                and re.search(rf"(?<![{_NOT_BEFORE[separator]}{_IN_A_PATH}]){re.escape(stem)}{re.escape(separator)}[A-Za-z_$]", new)
                and stem not in bound()):
            modules.setdefault(item.path, stem)
    return wanted, modules


def _from_project(path: str, old: str, new: str, index, stdlib: str, wanted: dict) -> list:
    """The project's definitions of the names Python `new` reads that nothing binds (not even the
    standard-library imports `stdlib` or the context's `wanted` names), each where exactly one
    other file of the project defines it at top level for others to use: the import an editor
    would offer. A name two files define is left alone: never a guess between two places."""
    from steer_tui.edits.undefined import undefined_names
    from steer_tui.project.context import beyond_packages, is_private, packages

    taken = {sym.name for syms in wanted.values() for sym in syms}
    out = []
    names = [n for n in undefined_names(old, new, stdlib) if n not in taken]
    folders = packages(index, path) if names else None
    for name in names:
        syms = [s for s in index.find(name) if not s.parent and s.path != path and s.path.endswith(".py")
                and not is_private(index, s, path) and not beyond_packages(folders, path, s.path)]
        if len({s.path for s in syms}) == 1:
            out.append(syms[0])
    return out


# Globals of JavaScript and its hosts a bare call may mean: a project file that exports one of these
# names (a `fetch` wrapper) is never imported for it, as the call may mean the global.
_JS_GLOBALS = frozenset("""
AbortController Array ArrayBuffer BigInt Blob Boolean DataView Date Error EvalError Event EventTarget
FormData Function Headers Image Intl JSON Map Math Number Object Promise Proxy RangeError ReferenceError
Reflect RegExp Request Response Set SharedArrayBuffer String Symbol SyntaxError TextDecoder TextEncoder
TypeError URIError URL URLSearchParams WeakMap WeakRef WeakSet Worker XMLHttpRequest alert atob btoa
cancelAnimationFrame clearInterval clearTimeout console decodeURI decodeURIComponent encodeURI
encodeURIComponent eval fetch isFinite isNaN parseFloat parseInt queueMicrotask require
requestAnimationFrame setImmediate setInterval setTimeout structuredClone""".split())


def _from_project_js(path: str, old: str, new: str, index, wanted: dict, modules: dict, builtins: list[str]) -> list:
    """The project's definitions of the names JavaScript/TypeScript `new` calls, constructs or
    renders (`cn(...)`, `<Badge />`) that nothing binds, and neither the context's `wanted` nor the
    Node built-in imports (`builtins`) give, each where exactly one other file of the project
    exports it: the import an editor offers. A name two files export, or a global's name, is left alone."""
    from steer_tui.edits.node_imports import called_free
    from steer_tui.project.context import exported

    taken = ({sym.name for syms in wanted.values() for sym in syms} | set(modules.values())
             | {w for line in builtins for w in re.findall(r"[\w$]+", line)})
    out = []
    for name in sorted(called_free(path, old, new) - taken - _JS_GLOBALS):
        syms = [s for s in index.find(name) if not s.parent and s.path != path and s.path.endswith(_JS_EXTS)
                and name in (exported(index, s.path) or ())]
        if len({s.path for s in syms}) == 1:
            out.append(syms[0])
    return out


def _is_esm(path: str, text: str, index) -> bool:
    """A JavaScript/TypeScript file is an ES module (else CommonJS, Node's default)."""
    return _module_kind(path, text, index) == "esm"


def _module_kind(path: str, text: str, index) -> str | None:
    """"esm" or "cjs" where something says which a JavaScript/TypeScript file is: its own
    statements first (an import or export statement makes it an ES module, where a require would
    throw, even beside a require), else its extension, else the nearest package.json's "type";
    None where nothing says (Node then takes it for CommonJS; the module it imports from may say
    more: _js_line)."""
    if re.search(r"^\s*(import|export)\s", text, re.M):
        return "esm"
    if re.search(r"\brequire\s*\(|\bmodule\.exports\b", text):
        return "cjs"
    suffix = posixpath.splitext(path)[1]
    if suffix in (".mjs", ".mts", ".ts", ".tsx"):
        return "esm"
    if suffix in (".cjs", ".cts"):
        return "cjs"
    from pathlib import Path

    folder = (index.root / path).parent if index is not None else Path(path).resolve().parent
    top = index.root if index is not None else None
    while True:
        manifest = folder / "package.json"
        if manifest.is_file():
            try:
                kind = re.findall(r'"type"\s*:\s*"(\w+)"', manifest.read_text(encoding="utf-8"))
            except OSError:
                return None
            return {"module": "esm", "commonjs": "cjs"}.get(kind[0]) if kind else None
        if folder == top or folder.parent == folder:
            return None
        folder = folder.parent


def _first_definition(path: str, text: str) -> int | None:
    """The first line of the file's first top-level definition, with the comments and decorators on it."""
    try:
        symbols, _ = lang.outline(path, text)
    except Exception:
        return None
    tops = [s.line for s in symbols if not s.parent and s.kind not in ("constant", "variable")]
    if not tops:
        return None
    lines = text.splitlines()
    line = min(tops)
    while line > 0 and lines[line - 1].lstrip().startswith(("@", "#", "//", "/*", "*")):
        line -= 1
    return line


def _modules(path: str, text: str, index) -> dict[str, str]:
    """{project file: the module name the file already imports it by}: a new import says it the same way."""
    try:
        _, imports = lang.outline(path, text)
    except Exception:
        return {}
    out: dict[str, str] = {}
    for imp in imports:
        target = index.resolve(path, imp.module)
        if target and imp.module.strip("."):
            out.setdefault(target, imp.module)
    return out


def _by_alias(path: str, known: dict[str, str], sources: list[str], index) -> dict[str, str]:
    """`known` with, for each of `sources` it lacks, its tsconfig alias (`@/lib/utils`) where the
    file already imports a project file through one: a new import is written as the others are."""
    aliases = index.js_aliases(path)
    if aliases is None or not any(not module.startswith(".") for module in known.values()):
        return known
    out = dict(known)
    for source in sources:
        if source not in out and (module := aliases.module_for(source)) is not None:
            out[source] = module
    return out


# ------------------------------------------------------------------ where


def _statement_end(lines: list[str], start: int) -> int:
    """The line after the statement that starts at `start` (brackets closed)."""
    depth, i = 0, start
    while i < len(lines):
        depth += sum(lines[i].count(c) for c in "([{") - sum(lines[i].count(c) for c in ")]}")
        i += 1
        if depth <= 0:
            break
    return i


def _place(key: str, path: str, text: str) -> tuple[int, bool]:
    """(line to insert before, the file has no imports yet: the new ones need a blank line)."""
    lines = text.splitlines()
    try:
        _, imports = lang.outline(path, text)
    except Exception:
        imports = []
    top = [imp.line for imp in imports if not lines[imp.line][:1].isspace()] if imports else []
    if top:
        return _statement_end(lines, max(top)), False
    first = import_lines.first_place(key, lines)
    if first is not None:
        return first, True
    at = 0
    if key == "python":
        tree = parse_tree(text)
        body = tree.body if tree is not None else []
        for node in body:
            is_doc = (node is body[0] and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                      and isinstance(node.value.value, str))
            if is_doc or (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
                at = node.end_lineno or at
            else:
                break
    else:
        for i, line in enumerate(lines):
            if re.match(r"""\s*(['"])use strict\1;?\s*$""", line):
                at = i + 1
                break
            if line.strip() and not line.lstrip().startswith(("//", "/*", "*", "#!")):
                break
    return at, True


# ------------------------------------------------------------------ how


def _module_line(key: str, path: str, text: str, source: str, stem: str, module: str | None, index=None) -> str:
    """The import of a whole project module under its file's name."""
    if key == "python":
        dotted = module or posixpath.splitext(source)[0].replace("/", ".")
        package, _, name = dotted.rpartition(".")
        return f"from {package} import {name}" if package else f"import {name}"
    rel = posixpath.relpath(source, posixpath.dirname(path) or ".")
    rel = module or (rel if rel.startswith(".") else "./" + rel)
    style = js_style(text)
    if _module_kind(path, text, index) != "esm":
        return style.require(stem, _required(rel) if module is None else rel)
    return style.import_(f"* as {stem}", module or _es_specifier(path, text, rel))


_TS_EXTS = (".ts", ".mts", ".cts", ".tsx")


def _required(rel: str) -> str:
    """How a `require` names the project file at `rel`: without the extensions Node's resolution
    tries itself (`.js`; `.ts`/`.tsx`/`.jsx` for the loaders that compile them), with any other
    (`./units.cjs`: a bare `./units` does not find it)."""
    base, ext = posixpath.splitext(rel)
    return base if ext in (".js", ".ts", ".tsx", ".jsx") else rel


def _es_specifier(path: str, text: str, rel: str) -> str:
    """How an ES import in `path` names the project file at `rel` (`./units.js`): as the file's
    relative imports do. Node's own resolution wants the extension, so JavaScript keeps it where
    they do (or there are none); TypeScript never names its `.ts` source (an error without
    allowImportingTsExtensions): extensionless, or `.js` where its imports write `.js`."""
    base, ext = posixpath.splitext(rel)
    imports = re.findall(r"""(?:from|import)\s+['"](\.[^'"]*)['"]""", text)
    if path.endswith(_TS_EXTS) or ext in _TS_EXTS:
        return base + ".js" if any(i.endswith(".js") for i in imports) else base
    with_ext = not imports or any(re.search(r"\.(?:m?js|ts)$", i) for i in imports)
    return rel if with_ext and ext in _JS_EXTS else base


def _python_line(path: str, text: str, source: str, names: list[str], module: str | None = None) -> str:
    if module:
        return f"from {module} import {', '.join(names)}"
    relative = re.search(r"^from\s+\.", text, re.M) is not None
    if relative:
        here = posixpath.dirname(path).split("/") if posixpath.dirname(path) else []
        there = posixpath.splitext(source)[0].split("/")
        common = 0
        while common < min(len(here), len(there) - 1) and here[common] == there[common]:
            common += 1
        module = "." * (len(here) - common + 1) + ".".join(there[common:])
    else:
        module = posixpath.splitext(source)[0].replace("/", ".")
    if module.endswith("__init__"):
        module = module[: -len("__init__")].rstrip(".") or "."
    return f"from {module} import {', '.join(names)}"


def _js_line(path: str, text: str, source: str, syms, index, module: str | None = None) -> str:
    try:
        exporter = (index.root / source).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    kind = _module_kind(path, text, index)
    common_js = kind == "cjs" or (kind is None and re.search(r"\bmodule\.exports\b|\bexports\.", exporter) is not None)
    rel = posixpath.relpath(source, posixpath.dirname(path) or ".")
    rel = rel if rel.startswith(".") else "./" + rel
    stem = _required(rel) if module is None else module
    names = [s.name for s in syms]
    style = js_style(text)
    if common_js:
        whole = [n for n in names if re.search(rf"\bmodule\.exports\s*=\s*{re.escape(n)}\b", exporter)]
        if whole:
            return style.require(whole[0], stem)
        return style.require(style.names(names), stem)
    target = module or _es_specifier(path, text, rel)
    default = [s.name for s in syms if s.signature.startswith("export default")]
    named = [n for n in names if n not in default]
    parts = ([default[0]] if default else []) + ([style.names(named)] if named else [])
    return style.import_(", ".join(parts), target)


def needed_for(session, new_text: str) -> list[ImportLine]:
    """The import lines `new_text`, a proposal for `session`'s file, needs (`needed`, with the
    names the session's last request showed from other files)."""
    import logging

    context = session.context
    try:
        if context is not None and context.last:
            return needed(context.relative_path, session.document.text, new_text, context.last, context.index)
        return needed(session.path or "", session.document.text, new_text)
    except Exception as exc:  # an import left out is the model's miss, never a failed turn
        logging.getLogger(__name__).warning("context imports: %s", exc)
        return []


def add_needed_imports(session) -> None:
    """The proposal uses a name the context showed, or a standard-library module, that the file
    neither defines nor imports: its import goes into the proposal too, after the file's imports (a
    rewrite of one function cannot reach them). Where the edit itself changes those lines, it goes
    above the first definition; where it changes that place too, nothing is added."""
    if not session.has_proposal:
        return
    lines = needed_for(session, session.review.proposed_text())
    for n, imp in enumerate(lines):
        key = ("context-import", n)
        for line, text in ((imp.line, imp.text), (imp.fallback, imp.fallback_text)):
            if line is None:
                continue
            try:
                session.live.add(key, line, line)
            except ValueError:
                continue  # the edit changes these lines itself
            session.live.finish(key, text)
            break
    if lines:
        session.proposal_changed()
