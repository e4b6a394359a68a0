"""The project's symbol index: every file's definitions (signature, first doc line, enclosing class),
module-level constants and imports, cached on disk and updated file by file."""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import posixpath
import re
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from steer_tui import lang
from steer_tui.project import tsconfig
from steer_tui.project.resolve import JS_EXTS, resolve_import
from steer_tui.project.tsconfig import Aliases

log = logging.getLogger(__name__)

# Bump when what a file's entry holds changes: an older cache is then read as empty.
_CACHE_VERSION = 4
# A C# file's namespaces: `namespace Shop.Models;` or `namespace Shop.Models {`.
_CS_NAMESPACE = re.compile(r"^\s*namespace\s+([\w.]+)", re.M)


def cs_namespaces(text: str) -> tuple[str, ...]:
    """The namespaces a C# text declares, in order."""
    return tuple(_CS_NAMESPACE.findall(text))
_MAX_FILE_BYTES = 1 << 20  # the listing leaves these out too: data or generated code
_SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache", "dist", "build"})


@dataclass(frozen=True, slots=True)
class Symbol:
    """A named thing a project file defines: 0-based `line`, exclusive `end`, path relative to the root."""

    name: str
    kind: str
    path: str
    line: int
    end: int
    signature: str
    doc: str
    parent: str


@dataclass(frozen=True, slots=True)
class Import:
    """An import of a file: the module as written, the (imported name, local name) pairs it binds
    ("" the module itself, "*" all of it, "default" a JS default export), and the project file it
    resolves to ("" for a module outside the project)."""

    module: str
    names: tuple[tuple[str, str], ...]
    path: str
    line: int


@dataclass(slots=True)
class _Entry:
    mtime_ns: int
    size: int
    symbols: list[Symbol]
    imports: list[tuple]  # lang.symbols.Imp as plain tuples; resolved when asked (the file set changes)


def default_cache_dir() -> Path:
    from steer_tui.config import cache_dir

    return cache_dir() / "index"


class ProjectIndex:
    """The symbols of the project under `root`. `build()` reads the cache and parses only the files
    that changed since; `update`/`remove` keep it current (steer_tui.project.watch calls them).
    Safe to read from one thread while another builds or updates it."""

    # A project this small is indexed in milliseconds: no cache file is written for it (a folder
    # of a few scripts, a test's temporary folder).
    min_cached_files = 24

    def __init__(self, root: Path, cache_dir: Path | None = None):
        self.root = Path(root).resolve()
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self._entries: dict[str, _Entry] = {}
        self._by_name: dict[str, list[Symbol]] = {}
        self._lock = threading.RLock()
        self._dirty = False
        self.version = 0  # goes up with every change of what the index holds
        # folder -> (module path, its go.mod's folder) of the nearest go.mod, read when a Go import is resolved
        self._go_mods: dict[str, tuple[str, str] | None] = {}
        self._js_aliases: dict[str, Aliases | None] = {}  # folder -> its nearest tsconfig/jsconfig's aliases
        self._cs_namespaces: dict[str, tuple[int, tuple[str, ...]]] = {}  # C# file -> (mtime, its namespaces)
        self.built = threading.Event()
        self.build_lock = threading.Lock()  # held by whoever builds it first (ProjectContext.build)
        self.parsed = 0  # files parsed by the last build (the others came from the cache)

    # ------------------------------------------------------------ building

    @property
    def cache_path(self) -> Path:
        key = hashlib.sha256(str(self.root).encode("utf-8", "surrogatepass")).hexdigest()[:20]
        return self.cache_dir / f"{key}.pickle"

    def build(self) -> ProjectIndex:
        """Index every project file in a language steer_tui.lang knows: from the cache where its
        mtime and size are unchanged, parsed otherwise; the cache is written back when anything changed."""
        cached = self._load_cache()
        entries: dict[str, _Entry] = {}
        parsed = 0
        for rel in _indexable(self.root):
            stat = _stat(self.root / rel)
            if stat is None:
                continue
            old = cached.get(rel)
            if old is not None and (old.mtime_ns, old.size) == stat:
                entries[rel] = old
                continue
            entry = self._parse(rel, stat)
            if entry is not None:
                entries[rel] = entry
                parsed += 1
        with self._lock:
            self._entries = entries
            self._by_name = _by_name(entries)
            self._dirty = parsed > 0 or entries.keys() != cached.keys()
            self.version += 1
        self.parsed = parsed
        self.save()
        self.built.set()
        return self

    def update(self, rel_path: str) -> bool:
        """Re-read one file (saved, created); True when its entry changed. A file gone is removed."""
        rel = _posix(rel_path)
        if lang.language(rel) is None:
            return False
        stat = _stat(self.root / rel)
        if stat is None or stat[1] > _MAX_FILE_BYTES:
            return self.remove(rel)
        with self._lock:
            old = self._entries.get(rel)
        if old is not None and (old.mtime_ns, old.size) == stat:
            return False
        entry = self._parse(rel, stat)
        if entry is None:
            return self.remove(rel)
        with self._lock:
            self._drop_names(old)
            self._entries[rel] = entry
            for sym in entry.symbols:
                self._by_name.setdefault(sym.name, []).append(sym)
            self._dirty = True
            self.version += 1
        return True

    def remove(self, rel_path: str) -> bool:
        """Forget one file (deleted, moved away); True when it was indexed."""
        rel = _posix(rel_path)
        with self._lock:
            old = self._entries.pop(rel, None)
            self._drop_names(old)
            if old is not None:
                self._dirty = True
                self.version += 1
        return old is not None

    def _drop_names(self, old: _Entry | None) -> None:
        for sym in old.symbols if old is not None else ():
            same = self._by_name.get(sym.name)
            if same is not None:
                same[:] = [s for s in same if s.path != sym.path]
                if not same:
                    del self._by_name[sym.name]

    def _parse(self, rel: str, stat: tuple[int, int]) -> _Entry | None:
        spec = lang.language(rel)
        if spec is None:
            return None
        try:
            data = (self.root / rel).read_bytes()
        except OSError:
            return None
        if b"\0" in data[:8192]:
            return None
        text = data.decode("utf-8", "replace")
        try:
            found, imports = lang.outline(rel, text)
        except Exception as exc:  # a grammar that cannot take this file: the index goes on without it
            log.warning("index: cannot read %s: %s", rel, exc)
            return None
        symbols = [Symbol(s.name, s.kind, rel, s.line, s.end, s.signature, s.doc, s.parent) for s in found]
        return _Entry(stat[0], stat[1], symbols, [(i.module, i.names, i.line) for i in imports])

    # ------------------------------------------------------------ the cache

    def save(self) -> None:
        """Write the index to its cache file (atomically) if it changed since it was read or written."""
        with self._lock:
            if not self._dirty or len(self._entries) < self.min_cached_files:
                return
            payload = {rel: (e.mtime_ns, e.size,
                             [(s.name, s.kind, s.line, s.end, s.signature, s.doc, s.parent) for s in e.symbols],
                             e.imports) for rel, e in self._entries.items()}
            self._dirty = False
        data = pickle.dumps((_CACHE_VERSION, str(self.root), payload), protocol=pickle.HIGHEST_PROTOCOL)
        path = self.cache_path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
        except OSError as exc:  # a cache that cannot be written only costs the next start time
            log.warning("index: cannot write the cache %s: %s", path, exc)

    def _load_cache(self) -> dict[str, _Entry]:
        try:
            data = self.cache_path.read_bytes()
        except OSError:
            return {}
        try:
            version, root, payload = _PlainUnpickler.loads(data)
        except Exception:
            return {}  # an unreadable or foreign cache is rebuilt
        if version != _CACHE_VERSION or root != str(self.root) or not isinstance(payload, dict):
            return {}
        entries = {}
        for rel, (mtime_ns, size, symbols, imports) in payload.items():
            entries[rel] = _Entry(mtime_ns, size, [Symbol(n, k, rel, ln, e, sig, d, p) for n, k, ln, e, sig, d, p in symbols],
                                  imports)
        return entries

    # ------------------------------------------------------------ reading

    def files(self) -> list[str]:
        """The indexed files, sorted, relative to the root."""
        with self._lock:
            return sorted(self._entries)

    def symbols_in(self, rel_path: str) -> list[Symbol]:
        with self._lock:
            entry = self._entries.get(_posix(rel_path))
            return list(entry.symbols) if entry is not None else []

    def find(self, name: str) -> list[Symbol]:
        """The symbols called `name`, in every file."""
        with self._lock:
            return list(self._by_name.get(name, ()))

    def names(self) -> list[str]:
        with self._lock:
            return list(self._by_name)

    def all_symbols(self) -> Iterable[Symbol]:
        with self._lock:
            entries = list(self._entries.values())
        for entry in entries:
            yield from entry.symbols

    def imports_of(self, rel_path: str) -> list[Import]:
        """The imports of a file, each resolved to a project file where it names one."""
        rel = _posix(rel_path)
        with self._lock:
            entry = self._entries.get(rel)
            known = self._entries.keys()
            raw = list(entry.imports) if entry is not None else []
            go, aliases = self.go_module(rel), self.js_aliases(rel)
            if rel.endswith(".cs"):
                return [Import(module, tuple(tuple(n) for n in names), self._namespace(module), line)
                        for module, names, line in raw]
            return [Import(module, tuple(tuple(n) for n in names), resolve_import(rel, module, known, *go, aliases), line)
                    for module, names, line in raw]

    def resolve(self, importer: str, module: str) -> str:
        """The project file `module` (as `importer` writes it) is, "" if none is; for a C# `using`,
        "ns:" and the namespace where project files declare it (namespace_files)."""
        rel = _posix(importer)
        if rel.endswith(".cs"):
            return self._namespace(module)
        go, aliases = self.go_module(rel), self.js_aliases(rel)
        with self._lock:
            return resolve_import(rel, module, self._entries.keys(), *go, aliases)

    def _namespace(self, module: str) -> str:
        return f"ns:{module}" if self.namespace_files(module) else ""

    def namespace_files(self, namespace: str) -> list[str]:
        """The C# files of the project that declare `namespace` (read again when they change)."""
        with self._lock:
            files = sorted(rel for rel in self._entries if rel.endswith(".cs"))
        return [rel for rel in files if namespace in self.namespaces_of(rel)]

    def namespaces_of(self, rel: str) -> tuple[str, ...]:
        """The namespaces the C# file `rel` declares, in order (read again when it changes)."""
        rel = _posix(rel)
        with self._lock:
            entry = self._entries.get(rel)
        if entry is None:
            return ()
        got = self._cs_namespaces.get(rel)
        if got is None or got[0] != entry.mtime_ns:
            try:
                text = (self.root / rel).read_text(encoding="utf-8", errors="replace")
            except OSError:
                return ()
            got = self._cs_namespaces[rel] = (entry.mtime_ns, cs_namespaces(text))
        return got[1]

    def go_module(self, rel: str) -> tuple[str, str]:
        """For a Go file `rel`, the module it belongs to: (the module path its nearest go.mod
        declares, that go.mod's folder); ("", "") without one, and for any other file."""
        if not rel.endswith(".go"):
            return "", ""
        return self._nearest(self._go_mods, posixpath.dirname(rel), self._go_mod_in) or ("", "")

    def js_aliases(self, rel: str) -> Aliases | None:
        """For a JavaScript/TypeScript file `rel`, the module aliases of the nearest tsconfig.json or
        jsconfig.json above it (None without one, and for any other file)."""
        if not rel.endswith(JS_EXTS):
            return None
        return self._nearest(self._js_aliases, posixpath.dirname(rel), self._aliases_in)

    def _nearest(self, cache: dict, folder: str, here):
        """What `here` finds in `folder` or the nearest folder above it that has its file (`here`
        gives a 1-tuple there, None elsewhere); None where none has. Kept per folder in `cache`."""
        if folder not in cache:
            found = here(folder)
            if found is not None:
                cache[folder] = found[0]
            else:
                cache[folder] = self._nearest(cache, posixpath.dirname(folder), here) if folder else None
        return cache[folder]

    def _aliases_in(self, folder: str) -> tuple[Aliases | None] | None:
        """(the aliases of the folder's tsconfig.json or jsconfig.json,), None without one: a config
        that declares none still governs its folder."""
        config = next((posixpath.join(folder, n) for n in tsconfig.CONFIG_NAMES if (self.root / folder / n).is_file()), None)
        return (tsconfig.read(self.root, config),) if config is not None else None

    def _go_mod_in(self, folder: str) -> tuple[tuple[str, str]] | None:
        """((the module path the folder's go.mod declares, the folder),), None without one."""
        try:
            text = (self.root / folder / "go.mod").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        module = re.search(r"^module\s+(\S+)", text, re.M)
        return ((module.group(1).strip('"'), folder),) if module is not None else None

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


class _PlainUnpickler(pickle.Unpickler):
    """Reads plain containers, strings and numbers only: a cache file never names a class to load."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"the index cache names {module}.{name}")

    @classmethod
    def loads(cls, data: bytes):
        import io

        return cls(io.BytesIO(data)).load()


def _by_name(entries: dict[str, _Entry]) -> dict[str, list[Symbol]]:
    out: dict[str, list[Symbol]] = {}
    for entry in entries.values():
        for sym in entry.symbols:
            out.setdefault(sym.name, []).append(sym)
    return out


def _posix(rel: str) -> str:
    return Path(rel).as_posix() if os.sep != "/" else posixpath.normpath(rel)


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size) if path.is_file() else None


def _indexable(root: Path) -> list[str]:
    """The project's files in a language steer_tui.lang knows."""
    return [rel for rel in _list_files(root) if lang.language(rel) is not None]


def _list_files(root: Path) -> list[str]:
    try:
        from steer_tui.project.listing import list_files
    except ImportError:
        return _fallback_files(root)
    return list_files(root)


def _fallback_files(root: Path) -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=root,
                             capture_output=True, timeout=30, check=True).stdout
        return sorted(p for p in out.decode("utf-8", "surrogateescape").split("\0") if p)
    except (OSError, subprocess.SubprocessError):
        pass
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
        rel = os.path.relpath(folder, root)
        for name in names:
            found.append(name if rel == "." else Path(rel, name).as_posix())
    return sorted(found)
