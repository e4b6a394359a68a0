"""The imports a Go edit needs: the standard-library packages it now reads without an import, and where
an import path goes in a Go file (its group of the import block, in order; a file with no block
gets one line per path after its `package` clause)."""

from __future__ import annotations

import re

from steer_tui.lang.qualifiers import go_qualifiers

# The standard library's packages by the name code reads them with. A name two packages share
# (`rand`: math/rand and crypto/rand; `template`: text/ and html/) is not here: never a guess.
STD = {
    "bufio": "bufio", "bytes": "bytes", "context": "context", "errors": "errors", "flag": "flag",
    "fmt": "fmt", "io": "io", "log": "log", "math": "math", "os": "os", "reflect": "reflect",
    "regexp": "regexp", "runtime": "runtime", "sort": "sort", "strconv": "strconv", "strings": "strings",
    "sync": "sync", "time": "time", "unicode": "unicode", "utf8": "unicode/utf8", "slices": "slices",
    "maps": "maps", "cmp": "cmp", "atomic": "sync/atomic", "json": "encoding/json", "xml": "encoding/xml",
    "csv": "encoding/csv", "base64": "encoding/base64", "hex": "encoding/hex", "binary": "encoding/binary",
    "http": "net/http", "url": "net/url", "httptest": "net/http/httptest", "filepath": "path/filepath",
    "fs": "io/fs", "exec": "os/exec", "signal": "os/signal", "sha256": "crypto/sha256", "sha1": "crypto/sha1",
    "md5": "crypto/md5", "hmac": "crypto/hmac", "subtle": "crypto/subtle", "tls": "crypto/tls",
    "bits": "math/bits", "big": "math/big", "heap": "container/heap", "list": "container/list",
    "sql": "database/sql", "slog": "log/slog", "netip": "net/netip", "mail": "net/mail", "tabwriter": "text/tabwriter",
    "zlib": "compress/zlib", "gzip": "compress/gzip", "debug": "runtime/debug", "testing": "testing",
    "utf16": "unicode/utf16", "iter": "iter", "embed": "embed", "html": "html", "mime": "mime",
}


def missing(old: str, new: str, taken: frozenset[str] = frozenset()) -> list[str]:
    """The standard-library import paths `new` needs: packages it reads (`strings.ToLower`) by a name
    it neither imports nor uses any other way, that `old` did not already read so (a file relying
    on a name from elsewhere keeps doing so), and that is not among `taken` (names the package
    declares in its other files, the project's own packages)."""
    before = go_qualifiers(old)
    imported = imported_names(new)
    out = []
    for name in sorted(go_qualifiers(new)):
        if name in STD and name not in before and name not in imported and name not in taken:
            out.append(STD[name])
    return out


def imported_names(text: str) -> set[str]:
    """The names the import declarations of `text` bind (their alias, else the package's name)."""
    return {local for imp in _imports(text) for _, local in imp.names}


def _imports(text: str) -> list:
    """The imports of a Go text (steer_tui.lang.imports: the one reader of Go import specs)."""
    from steer_tui import lang

    return lang.outline("x.go", text)[1]


def placements(text: str, paths: list[str], module: str = "") -> list[tuple[int, str]]:
    """(line of `text` to insert before, the lines to insert) that import `paths`: each into the
    group of the file's import block that holds its kind (the standard library, or paths sharing its
    first element), at its place in the order; a kind the block has no group for becomes a group
    of its own (the standard library's first, others last); without a block, an `import "p"` line
    each after the last import, else a new import after the `package` clause. `module` is the project's own
    module path (go.mod's), a kind of its own even without a dot."""
    lines = text.splitlines()
    block = _block(lines)
    if block is None:
        specs = _imports(text)
        body = "".join(f'import "{p}"\n' for p in paths)
        if specs:
            return [(max(imp.line for imp in specs) + 1, body)]
        clause = next((i for i, ln in enumerate(lines) if re.match(r"package\s+\w+", ln)), None)
        if clause is None:
            return []
        if len(paths) > 1:
            body = "import (\n" + "".join(f'\t"{p}"\n' for p in paths) + ")\n"
        return [(clause + 1, "\n" + body)]
    start, end, groups = block
    out: dict[int, list[str]] = {}
    for path in paths:
        group = next((g for g in groups if _kind(_path(lines[g[0]]), module) == _kind(path, module)), None)
        if group is None:
            if _kind(path, module) == "":
                out.setdefault(start + 1, []).append(f'\t"{path}"\n' + ("\n" if groups else ""))
            else:
                out.setdefault(end, []).append(("\n" if groups else "") + f'\t"{path}"\n')
            continue
        at = next((i for i in group if _path(lines[i]) > path), group[-1] + 1)
        out.setdefault(at, []).append(f'\t"{path}"\n')
    return [(at, "".join(texts)) for at, texts in sorted(out.items())]


def _block(lines: list[str]) -> tuple[int, int, list[list[int]]] | None:
    """The first `import (` block: (its opening line, its `)` line, its groups of spec lines)."""
    start = next((i for i, ln in enumerate(lines) if re.match(r"import\s*\(\s*$", ln.strip())), None)
    if start is None:
        return None
    groups: list[list[int]] = [[]]
    for i in range(start + 1, len(lines)):
        stripped = lines[i].strip()
        if stripped.startswith(")"):
            return start, i, [g for g in groups if g]
        if not stripped:
            groups.append([])
        elif _path(lines[i]):
            groups[-1].append(i)
    return None


def _path(line: str) -> str:
    found = re.search(r'"([^"]+)"', line)
    return found.group(1) if found else ""


def _kind(path: str, module: str) -> str:
    """The standard library is one kind (""), the project's module another; any other path's kind
    is its first element (its host)."""
    if module and (path == module or path.startswith(module + "/")):
        return "module"
    first = path.split("/", 1)[0]
    return "" if "." not in first else first
