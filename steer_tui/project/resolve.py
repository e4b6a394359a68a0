"""Which project file an import names, by the importing file's language (its rules of where modules live)."""

from __future__ import annotations

import posixpath
from typing import Iterator

from steer_tui.project.tsconfig import Aliases

_PY_EXTS = (".py", ".pyi")
JS_EXTS = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")


def resolve_import(importer: str, module: str, known, go_module: str = "", go_root: str = "",
                   aliases: Aliases | None = None) -> str:
    """The project file (relative path) `module`, imported by the file `importer`, is; "" if none is.
    A Go import names a package, a folder: its path then ends with "/" (the root's is "/");
    `go_module` is the module path the importer's go.mod declares, `go_root` that go.mod's folder.
    `aliases`: a JavaScript/TypeScript importer's tsconfig/jsconfig `paths` and `baseUrl`."""
    if importer.endswith(".go"):
        return _go(module, go_module, go_root)
    other = _OTHER.get(posixpath.splitext(importer)[1].lower())
    if other is not None:
        return next((c for c in other(importer, module, known) if c in known), "")
    if importer.endswith(JS_EXTS):
        if module.startswith("."):
            bases = [posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))]
        else:
            bases = list(aliases.candidates(module)) if aliases is not None else []
        for base in bases:
            for candidate in (base, *(base + ext for ext in JS_EXTS), *(f"{base}/index{ext}" for ext in JS_EXTS)):
                if candidate in known:
                    return candidate
        return ""
    if not importer.endswith(_PY_EXTS):
        return ""
    dots = len(module) - len(module.lstrip("."))
    parts = [p for p in module[dots:].split(".") if p]
    if dots:
        folder = posixpath.dirname(importer)
        for _ in range(dots - 1):
            folder = posixpath.dirname(folder)
        bases = [folder]
    else:
        # An absolute import: from the root, a src/ layout, or the importer's own folder (a script's sibling).
        bases = ["", "src", posixpath.dirname(importer)]
    for folder in bases:
        stem = posixpath.join(folder, *parts) if parts else folder
        for candidate in (stem + ".py", stem + ".pyi", posixpath.join(stem, "__init__.py")):
            candidate = candidate.lstrip("/")
            if candidate in known:
                return candidate
    return ""


def _folders_up(importer: str) -> Iterator[str]:
    """The importer's folder, then each one above it, up to the project's root ("")."""
    folder = posixpath.dirname(importer)
    while True:
        yield folder
        if not folder:
            return
        folder = posixpath.dirname(folder)


def _join(folder: str, path: str) -> str:
    return posixpath.normpath(posixpath.join(folder, path)).lstrip("/")


def _c(importer: str, module: str, known=()) -> Iterator[str]:
    """`#include "x.h"`: beside the importer, then from each folder above it, or its include/
    (`<x.h>` is the system's)."""
    if module.startswith("<"):
        return
    for folder in _folders_up(importer):
        yield _join(folder, module)
        yield _join(folder, posixpath.join("include", module))


def _java(importer: str, module: str, known=()) -> Iterator[str]:
    """`a.b.C`: a/b/C.java under a source root, which is one of the folders above the importer."""
    path = module.replace(".", "/") + ".java"
    for folder in _folders_up(importer):
        yield _join(folder, path)


def crate_root(rel: str, known) -> str | None:
    """The folder of the Rust crate root (the nearest lib.rs or main.rs) above the file `rel`; None
    where there is none."""
    return next((folder for folder in _folders_up(rel)
                 if _join(folder, "lib.rs") in known or _join(folder, "main.rs") in known), None)


def _rust(importer: str, module: str, known) -> Iterator[str]:
    """`crate::a::b`: a/b.rs or a/b/mod.rs beside the crate's root; `self::a` below the importer's
    own module, `super::a` below its parent's; `crate`, `self` or `super` alone: that module's file."""
    parts = module.split("::")
    root = crate_root(importer, known)
    if root is None:
        return
    if parts[0] == "crate":
        folder = root
    elif parts[0] in ("self", "super"):
        folder = _rust_children(importer, root)
        while parts and parts[0] in ("self", "super"):
            if parts.pop(0) == "super":
                if folder == root:
                    return  # above the crate's root
                folder = posixpath.dirname(folder)
        parts.insert(0, "")
    else:
        return
    rest = "/".join(p for p in parts[1:] if p)
    if rest:
        stem = _join(folder, rest)
        yield stem + ".rs"
        yield stem + "/mod.rs"
    elif folder == root:
        yield _join(root, "lib.rs")
        yield _join(root, "main.rs")
    else:
        yield folder + ".rs"
        yield folder + "/mod.rs"


def _rust_children(rel: str, root: str) -> str:
    """The folder a Rust file's child modules live in: its own for the crate root and a mod.rs,
    else the folder named for it (src/shop/cart.rs: src/shop/cart)."""
    name = posixpath.basename(rel)
    folder = posixpath.dirname(rel)
    if name == "mod.rs" or (folder == root and name in ("lib.rs", "main.rs")):
        return folder
    return posixpath.join(folder, posixpath.splitext(name)[0])


def _ruby(importer: str, module: str, known=()) -> Iterator[str]:
    """`require_relative` (written "./x"): beside the importer; `require "a/b"`: a folder above, or its lib/."""
    path = module if module.endswith(".rb") else module + ".rb"
    if module.startswith("."):
        yield _join(posixpath.dirname(importer), path)
        return
    for folder in _folders_up(importer):
        yield _join(folder, posixpath.join("lib", path))
        yield _join(folder, path)


def _php(importer: str, module: str, known=()) -> Iterator[str]:
    """`App\\Models\\User`: its path from a folder above the importer, the vendor prefix as written,
    lower-cased (Laravel's app/) or mapped to src/ (the usual PSR-4 roots); an included "./x.php"
    beside the importer."""
    if module.startswith("./"):  # an included file, from the includer's folder
        yield _join(posixpath.dirname(importer), module)
        return
    parts = [p for p in module.split("\\") if p]
    if not parts:
        return
    rest = "/".join(parts[1:])
    for folder in _folders_up(importer):
        yield _join(folder, "/".join(parts) + ".php")
        if rest:
            yield _join(folder, f"{parts[0].lower()}/{rest}.php")
            yield _join(folder, f"src/{rest}.php")


def _go(module: str, go_module: str, go_root: str = "") -> str:
    """`example.com/shop/money` in the module `example.com/shop` (its go.mod in `go_root`): the
    folder money/ there."""
    if not go_module:
        return ""
    if module == go_module:
        return go_root + "/" if go_root else "/"
    if module.startswith(go_module + "/"):
        return posixpath.join(go_root, module[len(go_module) + 1:].strip("/")) + "/"
    return ""


_C_EXTS = (".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp")
_OTHER = {**{ext: _c for ext in _C_EXTS}, ".java": _java, ".rs": _rust, ".rb": _ruby, ".rake": _ruby, ".php": _php}
