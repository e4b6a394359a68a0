"""What a request carries from the project's other files: the symbols the target code imports and
calls and those the instruction names, ranked and cut at a token budget, as read-only text."""

from __future__ import annotations

import math
import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Iterable

from steer_tui import lang
from steer_tui.lang.defs import TYPE_KINDS

CHARS_PER_TOKEN = 4  # a budget is counted in these: close enough for code, and free
CONTEXT_HEADER = "Other files of the project (for reference; do not edit them):"
ASIDE_HEADER = "What the request refers to in other files of the project (use it as it is; do not edit those files):"
FROM_WORDS = frozenset({"named in the request", "pinned by @"})  # items the instruction's words chose
# What the uses of the target code may take of the budget: the rest is kept for what the
# instruction names, so that words naming something always find room.
USES_SHARE = 0.5
MAX_NAMED = 5  # items the instruction's words bring in, at most
NAMED_FLOOR = 1 / 3  # ... each scoring at least this share of the best match's score
# Added for a symbol whose whole name the request writes ("build the className with cn"): `cn`
# is read in every component's signature, so its word alone scores low for its rarity, below
# components that share two of the request's plain words.
WHOLE_NAME = 1.5
MAX_MEMBERS = 14  # a class item lists at most this many members and methods
# A function this short that returns a value is shown whole: a small model copies the shape of
# what a helper returns (a unit, a path, a format) from its body far more reliably than from a
# signature. A procedure stays a signature: shown its body, the model writes the body out in place
# of the call.
SHORT_BODY_LINES = 8
SHORT_BODY_TOKENS = 120

_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_BARE = re.compile(r"(?<![\w$.])[A-Za-z_$][\w$]*")
_BUILTINS = frozenset(dir(__import__("builtins")))
_ATTR = re.compile(r"([A-Za-z_$][\w$]*)\s*\.\s*([A-Za-z_$][\w$]*)")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_COMMENT = {"python": "#", "ruby": "#", "bash": "#"}
_STOP = frozenset("""
a an the this that these those it its it's to of in on at by for from with without into onto as and or not no
is are be been being was were do does did done make makes made use uses used using let lets so such than then
there their them they we you your our my me i he she his her if else when while where which who what how all any
each every some one two new instead please also just only now here should must can could would will may might
same other another up down out over under about after before again more most less very much many return returns
returned change changes changed update updates add adds added replace replaces get gets set sets call calls
called put give take code file files project projects module modules defines defined define definition like
value values thing things way part true false""".split())  # a literal is a value, never a name's word
# Words that name a kind of thing, not a thing: they help rank what matched, never bring anything in alone.
_KIND_WORDS = frozenset({"helper", "function", "func", "method", "class", "constant", "const", "enum", "type",
                         "error", "exception", "variable", "setting", "default", "util", "utility", "interface"})
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ers", "er", "es", "ed", "ly", "s")
_LANG_FENCE = {"python": "python", "javascript": "javascript", "typescript": "typescript", "tsx": "tsx",
               "go": "go", "rust": "rust", "java": "java", "c": "c", "cpp": "cpp", "csharp": "csharp",
               "ruby": "ruby", "php": "php", "bash": "bash"}


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One piece of context: a symbol's signature and doc (or a whole file's), with why it is there."""

    kind: str  # "symbol" | "file"
    path: str  # relative to the project root
    name: str
    text: str
    tokens: int
    reason: str  # "imported", "called", "named in the request", "pinned by @", "--context"

    def as_json(self) -> dict:
        return {"path": self.path, "name": self.name, "reason": self.reason, "tokens": self.tokens}


def count_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


# ------------------------------------------------------------------ words


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A word reduced to a crude root, so that "formats", "formatted" and "formatting" meet."""
    word = word.lower()
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                break  # "class", "status", "analysis" are not plurals ("classes" -> "class" below)
            word = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # "formatt" from "formatting" is "format"
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]  # "price"/"pric", "date"/"dat": "priced", "prices" and "dates" meet
    return word


@lru_cache(maxsize=65536)
def name_words(name: str) -> tuple[str, ...]:
    """A name's words, lowercase: `formatMoney`, `format_money`, `FORMAT_MONEY` -> format, money."""
    out = []
    for part in re.split(r"[_$\W]+", name):
        out.extend(w.lower() for w in _CAMEL.findall(part))
    return tuple(w for w in out if w)


def _stems(words: Iterable[str]) -> frozenset[str]:
    return frozenset(stem(w) for w in words if len(w) > 1)


def instruction_stems(instruction: str, own_names: Iterable[str] = ()) -> frozenset[str]:
    """The words of an instruction that may name something: stop words, and the open file's own
    names it says in full, left out."""
    own = {n.lower() for n in own_names}
    words = []
    for token in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", instruction):
        if token.lower() in own:
            continue
        for w in name_words(token):
            if w not in _STOP and len(w) > 1:
                words.append(w)
    return frozenset(stem(w) for w in words)


# A name written as code in several words: an underscore or an inner capital.
_CODE_NAME = re.compile(r"\b[A-Za-z]*_[A-Za-z0-9_]*|\b[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*")


def compound_groups(instruction: str, own_names: Iterable[str] = ()) -> tuple[frozenset[str], ...]:
    """The stems of each name the instruction writes as code in several words
    (`IndexOutOfBoundsException`, `max_upload_bytes`), the open file's own left out: a name means
    itself, not every symbol that shares one of its words."""
    own = {n.lower() for n in own_names}
    out = []
    for m in _CODE_NAME.finditer(instruction):
        token = m.group(0)
        words = [w for w in name_words(token) if w not in _STOP and len(w) > 1]
        if token.lower() not in own and len(words) > 1:
            out.append(frozenset(stem(w) for w in words))
    return tuple(out)


def said_names(instruction: str, own_names: Iterable[str] = ()) -> frozenset[str]:
    """The instruction's words as written, each of which may be a whole name (`cn`, `formatDate`),
    the open file's own names left out."""
    own = set(own_names)
    return frozenset(t for t in re.findall(r"[A-Za-z_$][A-Za-z0-9_$]*", instruction)
                     if t not in own and t.lower() not in _STOP)


@dataclass(frozen=True)
class RequestWords:
    """What an instruction's words may name: their stems (`stems`), those of its plain words alone
    (`plain`: not only parts of a name written as code), each such name's stems (`compounds`), and
    the words as written (`said`: whole names)."""

    stems: frozenset[str]
    plain: frozenset[str]
    compounds: tuple[frozenset[str], ...]
    said: frozenset[str]

    @classmethod
    def of(cls, instruction: str, own_names: Iterable[str] = ()) -> "RequestWords":
        own = set(own_names)
        stems, compounds = instruction_stems(instruction, own), compound_groups(instruction, own)
        plain = instruction_stems(_CODE_NAME.sub(" ", instruction), own) if compounds else stems
        return cls(stems, plain, compounds, said_names(instruction, own))


def _abbreviates(short: str, word: str) -> bool:
    """`short` is an abbreviation of `word` (fmt: format, cfg: config, msg: message)."""
    if len(short) < 3 or len(short) >= len(word) or short[0] != word[0]:
        return False
    it = iter(word)
    return all(ch in it for ch in short)


# ------------------------------------------------------------------ items


def _fence(path: str) -> str:
    spec = lang.language(path)
    return _LANG_FENCE.get(spec.key, "") if spec is not None else ""


def _comment(path: str) -> str:
    spec = lang.language(path)
    return _COMMENT.get(spec.key, "//") if spec is not None else "#"


def _is_python(path: str) -> bool:
    spec = lang.language(path)
    return spec is not None and spec.key == "python"


def _stub(sym, path: str, indent: str = "") -> str:
    """A symbol as a reader of its file sees it, without its body: doc comment, then signature."""
    lines = []
    if sym.doc and sym.kind not in ("member",):
        lines.append(f"{indent}{_comment(path)} {sym.doc}")
    signature = sym.signature
    if _is_python(path) and signature.endswith(":") and sym.kind not in TYPE_KINDS:
        signature += " ..."
    for i, line in enumerate(signature.splitlines()):
        lines.append((indent if i == 0 else "") + line)
    if sym.kind == "member" and sym.doc:
        lines[-1] += f"  {_comment(path)} {sym.doc}"
    return "\n".join(lines)


_RETURNS_VALUE = re.compile(r"^[ \t]*return[ \t]*[^\s;]", re.M)


@lru_cache(maxsize=64)
def _file_lines(path: str, mtime_ns: int) -> tuple[str, ...]:
    """A file's lines as of `mtime_ns` (a whole file's items read it once, not once a symbol)."""
    return tuple(Path(path).read_text(encoding="utf-8", errors="replace").splitlines())


def _short_source(index, sym) -> str:
    """`sym`'s whole definition where it is a function of at most SHORT_BODY_LINES lines that
    returns a value, else ""."""
    if sym.kind not in ("function", "method") or sym.end - sym.line > SHORT_BODY_LINES:
        return ""
    full = index.root / sym.path
    try:
        lines = _file_lines(str(full), full.stat().st_mtime_ns)
    except OSError:
        return ""
    body = lines[sym.line:sym.end]
    if not body or not body[0].lstrip().startswith(sym.signature.splitlines()[0].lstrip()[:12]):
        return ""  # the file changed since it was indexed
    indent = len(body[0]) - len(body[0].lstrip())
    text = "\n".join(line[indent:] if line[:indent].isspace() else line for line in body).rstrip()
    if count_tokens(text) > SHORT_BODY_TOKENS or not _RETURNS_VALUE.search(text):
        return ""
    doc = f"{_comment(sym.path)} {sym.doc}\n" if sym.doc and not _is_python(sym.path) else ""
    return doc + text


def symbol_text(index, sym) -> str:
    """What an item shows of `sym`: its signature and doc; a short function's whole definition; a
    class's head, doc and the signatures of its members and methods; a constant's or an enum's
    whole short definition."""
    short = _short_source(index, sym)
    if short:
        return short
    if sym.kind not in ("class", "impl", "trait", "interface", "struct") or sym.signature.count("\n") >= 2:
        return _stub(sym, sym.path)
    members = [s for s in index.symbols_in(sym.path) if s.parent == sym.name and sym.line <= s.line < sym.end]
    python = _is_python(sym.path)
    head = _stub(sym, sym.path)
    if not members:
        return head + ("\n    ..." if python else " {}")
    shown = members[:MAX_MEMBERS]
    body = "\n".join(_stub(m, sym.path, "    " if python else "  ") for m in shown)
    if len(members) > len(shown):
        body += "\n" + ("    " if python else "  ") + f"{_comment(sym.path)} ... {len(members) - len(shown)} more"
    return f"{head}\n{body}" if python else f"{head} {{\n{body}\n}}"


def _item(index, sym, reason: str) -> ContextItem:
    text = symbol_text(index, sym)
    return ContextItem("symbol", sym.path, sym.name, text, count_tokens(text) + 1, reason)


def _top(index, sym):
    """The symbol an item shows for `sym`: a member or method is shown with its class."""
    if not sym.parent:
        return sym
    for s in index.find(sym.parent):
        if s.path == sym.path and s.line <= sym.line < s.end:
            return s
    return sym


# ------------------------------------------------------------------ what the code uses


def _used_names(code: str) -> tuple[list[str], list[tuple[str, str]]]:
    """Identifiers of `code` in order of first use, and its `a.b` attribute uses."""
    seen: dict[str, None] = {}
    for name in _BARE.findall(code):  # `x.join` uses x's join, not a name of the project
        seen.setdefault(name, None)
    attrs: dict[tuple[str, str], None] = {}
    for a, b in _ATTR.findall(code):
        attrs.setdefault((a, b), None)
    return list(seen), list(attrs)


def _own_outline(path: str, text: str):
    try:
        return lang.outline(path, text)
    except Exception:
        return [], []


def _bound_in(text: str) -> set[str]:
    """The names Python `text` binds anywhere (empty when it does not parse)."""
    from steer_tui.edits.stdlib_imports import bound_names
    from steer_tui.edits.pytree import parse_tree

    tree = parse_tree(text)
    return (bound_names(tree) or set()) if tree is not None else set()


def _uses(index, rel: str, text: str, region: tuple[int, int] | None, own: set[str]) -> list[tuple[object, str]]:
    """(symbol, reason) for what the region (else the file) imports from project files or calls
    that another project file defines, in order of use."""
    lines = text.splitlines()
    code = "\n".join(lines[region[0]:region[1]]) if region is not None else text
    used, attrs = _used_names(code)
    used_set = set(used)
    _, imports = _own_outline(rel, text)
    out: list[tuple[object, str]] = []
    local_to: dict[str, tuple[str, str]] = {}  # local name -> (file, imported name) for names
    module_alias: dict[str, str] = {}  # local name -> file, for modules
    for imp in imports:
        target = index.resolve(rel, imp.module)
        for name, local in imp.names:
            if name == "":
                if target:
                    module_alias[local] = target
            elif name == "*":
                if target:
                    for sym in _symbols_of(index, target):
                        if not sym.parent and sym.name in used_set:
                            local_to.setdefault(sym.name, (target, sym.name))
            else:
                sub = index.resolve(rel, imp.module.rstrip(".") + "." + name if imp.module.strip(".")
                                    else imp.module + name) if _is_python(rel) else ""
                if sub:
                    module_alias[local] = sub
                elif target:
                    local_to[local] = (target, name)
    for name in used:
        if name in local_to:
            target, real = local_to[name]
            for sym in _named_in(index, target, real):
                out.append((sym, "imported"))
    for a, b in attrs:
        if a in module_alias:
            for sym in _named_in(index, module_alias[a], b):
                out.append((sym, "imported"))
    # Every name an import binds, from the project or not: `Message` from flask_mail is not the
    # project's `Message` model. In Python, so is every name the file binds (a parameter `app`).
    imported_names = set(local_to) | set(module_alias) | {local for imp in imports for _, local in imp.names}
    python = _is_python(rel)
    if python:
        imported_names |= _bound_in(text)
    # A name used but not imported is taken for another file's only where that file is a neighbour
    # (the same folder: a script's sibling, a JS global): across a big tree, `format` or `name`
    # is defined somewhere and means nothing.
    # Code never calls into a test beside it (Go's x_test.go, Python's test_x.py), though a test
    # calls the code.
    folder = PurePosixPath(rel).parent
    in_tests = is_test_file(rel)
    for name in used:
        if (name in own or name in imported_names or len(name) < 3 or name.startswith("__")
                or (python and name in _BUILTINS)):
            continue
        found = [s for s in index.find(name) if s.path != rel and not s.parent and not is_private(index, s, rel)
                 and PurePosixPath(s.path).parent == folder and (in_tests or not is_test_file(s.path))]
        if len({s.path for s in found}) == 1:  # defined next door once: that is the one meant
            out.extend((s, "called") for s in found)
    return out


def _symbols_of(index, target: str) -> list:
    """The symbols of an import's target: a file's, those of the files that declare a C# namespace
    ("ns:Shop.Models"), or (a Go package, "folder/") those of the folder's files that are not tests."""
    if target.startswith("ns:"):
        return [s for rel in index.namespace_files(target[3:]) for s in index.symbols_in(rel)]
    if not target.endswith("/"):
        return index.symbols_in(target)
    return [s for rel in index.files() if _in_package(rel, target) for s in index.symbols_in(rel)]


def _in_package(rel: str, package: str) -> bool:
    """`rel` is one of the Go package `package`'s own files ("folder/"; its tests are not)."""
    return posixpath.dirname(rel) == package[:-1] and rel.endswith(".go") and not is_test_file(rel)


def _named_in(index, path: str, name: str) -> list:
    if path.startswith("ns:"):  # a C# namespace: the type of that name one of its files declares
        files = set(index.namespace_files(path[3:]))
        return [s for s in index.find(name) if not s.parent and s.path in files][:1]
    if path.endswith("/"):  # a Go package: `money.Format` is Format of one of its files
        return [s for s in index.find(name) if not s.parent and _in_package(s.path, path)][:1]
    syms = [s for s in index.symbols_in(path) if not s.parent]
    if name == "default":
        return [s for s in syms if s.signature.startswith("export default")][:1]
    return [s for s in syms if s.name == name][:1]


# ------------------------------------------------------------------ what the instruction names


@dataclass(frozen=True, slots=True)
class _Words:
    name: frozenset[str]
    raw_name: tuple[str, ...]
    doc: frozenset[str]
    kind: frozenset[str]
    path: frozenset[str]


_WORDS_CACHE: dict[object, _Words] = {}


def _words_of(sym) -> _Words:
    got = _WORDS_CACHE.get(sym)
    if got is None:
        if len(_WORDS_CACHE) > 400_000:
            _WORDS_CACHE.clear()
        raw = name_words(sym.name)
        sig_words = [w.lower() for w in _WORD.findall(sym.signature)] if sym.kind != "function" else []
        kind = {sym.kind, *(["helper", "function", "func", "util"] if sym.kind in ("function", "method") else []),
                *(["constant", "const", "setting", "default"] if sym.kind == "constant" else []),
                *(["error", "exception"] if re.search(r"(Error|Exception)\b", sym.signature) else []),
                *(["enum"] if re.search(r"\b(Enum|IntEnum|StrEnum|Flag|freeze)\b", sym.signature) else [])}
        parts = PurePosixPath(sym.path).with_suffix("").parts
        got = _WORDS_CACHE[sym] = _Words(
            name=_stems(raw), raw_name=raw,
            doc=_stems(w.lower() for w in _WORD.findall(sym.doc)) | _stems(sig_words),
            kind=_stems(kind),
            path=_stems(w for p in parts for w in name_words(p)))
    return got


def _matches(words: _Words, query: frozenset[str]) -> tuple[tuple[str, float, bool], ...]:
    """How a symbol answers the instruction's words, word by word: (word, points, says what the
    thing is). Its name's words count most, its doc, signature and file some; words naming a kind
    of thing only add to a match. Empty when nothing but kind or file words matched."""
    got = []
    substantive = False
    for q in query:
        if q in words.name:
            got.append((q, 3.0, True))
        elif any(_abbreviates(w, q) or (len(q) >= 4 and len(w) >= 4 and (w.startswith(q) or q.startswith(w)))
                 for w in words.raw_name):
            got.append((q, 2.0, True))
        elif q in words.doc:
            got.append((q, 1.0, q not in _KIND_STEMS))
        elif q in words.kind or q in words.path:
            got.append((q, 1.0, False))
        else:
            continue
        substantive = substantive or got[-1][2]
    return tuple(got) if substantive else ()


def _whole_compounds(got, words: _Words, plain: frozenset[str], compounds) -> tuple:
    """`got` without the matches of words that only come from a name written as code of which the
    symbol's name lacks more than one word (all of a two-word name's): `IndexOutOfBoundsException`
    does not mean `BoundField`, `MAX_UPLOAD_BYTES` may mean `MAX_UPLOAD_SIZE`."""
    whole = [g for g in compounds if len(g & words.name) >= max(2, len(g) - 1)]
    kept = tuple(m for m in got if m[0] in plain or any(m[0] in g for g in whole))
    return kept if any(says for _, _, says in kept) else ()


def _rarity(matching: int, total: int) -> float:
    """What a word's match is worth when `matching` of the project's `total` symbols match it, as a
    share of a word only one symbol matches (BM25's inverse document frequency): a word that names a
    tenth of a large project ("helper" among helper_1..helper_300) says little about which is meant."""
    def idf(n: int) -> float:
        return math.log(1 + (total - n + 0.5) / (n + 0.5))

    top = idf(1)
    return 1.0 if top <= 0 or matching <= 1 else max(0.0, idf(matching) / top)


_KIND_STEMS = frozenset(stem(w) for w in _KIND_WORDS)


_EXPORTS_CACHE: dict[tuple[str, str, int], frozenset[str] | None] = {}
_JS_EXPORT = re.compile(r"^\s*export\s+(?:default\s+)?(?:async\s+)?(?:function\*?|class|const|let|var|enum|interface|type)"
                        r"\s+([A-Za-z_$][\w$]*)", re.M)
_JS_EXPORT_LIST = re.compile(r"(?:^\s*export\s*|\bmodule\.exports\s*=\s*)\{([^}]*)\}", re.M)
_JS_EXPORT_ONE = re.compile(r"\bmodule\.exports\s*=\s*([A-Za-z_$][\w$]*)|\b(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=")


def exported(index, path: str) -> frozenset[str] | None:
    """The names a JavaScript/TypeScript file exports (ES `export`, CommonJS `module.exports`); None
    for another language or a file that exports nothing the patterns read (then all may be used)."""
    spec = lang.language(path)
    if spec is None or spec.key not in ("javascript", "typescript", "tsx"):
        return None
    full = index.root / path
    try:
        key = (str(index.root), path, full.stat().st_mtime_ns)
    except OSError:
        return None
    if key in _EXPORTS_CACHE:
        return _EXPORTS_CACHE[key]
    try:
        text = full.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    names = set(_JS_EXPORT.findall(text))
    for group in _JS_EXPORT_LIST.findall(text):
        for part in group.split(","):
            part = part.split(":")[-1].strip() if ":" in part else part.split(" as ")[0].strip()
            if part:
                names.add(part.split("=")[0].strip())
    for one, attr in _JS_EXPORT_ONE.findall(text):
        names.add(one or attr)
    got = frozenset(names) or None
    if len(_EXPORTS_CACHE) > 4096:
        _EXPORTS_CACHE.clear()
    _EXPORTS_CACHE[key] = got
    return got


def is_private(index, sym, seen_from: str | None = None) -> bool:
    """A top-level symbol its JavaScript file does not export, a Python one whose name says it is
    internal (`_root`, not `__all__`), a C/C++ `static` or header guard: no other file is meant to use
    it. A Python package's modules share their underscored helper functions (`from .i18n import
    _gettext`), never its state: seen from the same package (`seen_from`: the file that would use it),
    such a function is not private."""
    if sym.parent:
        return False
    spec = lang.language(sym.path)
    key = spec.key if spec is not None else None
    if key == "python":
        shared = seen_from is not None and sym.kind == "function" and same_package(seen_from, sym.path)
        return _internal(sym) and not shared
    if key in ("c", "cpp"):
        # `static`: the file's own; a macro with no value only guards its header
        return sym.signature.startswith("static ") or re.fullmatch(r"#\s*define\s+\w+\s*", sym.signature) is not None
    names = exported(index, sym.path)
    return names is not None and sym.name not in names


def _internal(sym) -> bool:
    """A Python top-level name written as internal (`_rules`, not `__all__`)."""
    return not sym.parent and sym.name.startswith("_") and not sym.name.startswith("__") and _is_python(sym.path)


def same_package(a: str, b: str) -> bool:
    """Two project paths in one Python package: the same folder, or the same top-level folder (a
    `src/` layout's package below it)."""
    fa, fb = PurePosixPath(a).parent.parts, PurePosixPath(b).parent.parts
    if fa == fb:
        return True
    fa, fb = (f[1:] if f[:1] == ("src",) else f for f in (fa, fb))
    return bool(fa) and bool(fb) and fa[0] == fb[0]


def beyond_packages(packages: frozenset[str] | None, rel: str, path: str) -> bool:
    """`path` is a Python file the open Python file `rel` cannot import by a dotted name: the open
    file lives in a regular package (`packages`: the folders with an __init__.py; None where the
    open file's own folder has none) and `path` in a folder that is no package (alembic's
    migrations/, scripts/, tests/). A module at the root, or next to the open file, is importable.
    Projects of namespace packages (no __init__.py anywhere near the open file) are not judged."""
    if packages is None or not _is_python(path):
        return False
    folder = posixpath.dirname(path)
    if not folder or folder == posixpath.dirname(rel):
        return False
    parts = folder.split("/")
    if parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]  # a src/ layout imports from inside src/
    return any("/".join(parts[: i + 1]) not in packages and f"src/{'/'.join(parts[: i + 1])}" not in packages
               for i in range(len(parts)))


_TEST_FOLDERS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testing"})
_TEST_NAME = re.compile(r"^(test_.*\.py|.*_test\.(py|go)|.*\.(test|spec)\.[cm]?[jt]sx?|.*Tests?\.(java|cs))$")


# Folders of code the project carries but does not write (a copied library, generated stubs): what
# it defines is reached through an import, never what a request's words mean.
_VENDORED = frozenset({"vendor", "vendored", "third_party", "thirdparty", "third-party", "external", "externals",
                       "extern", "deps", "_vendor"})


def is_vendored(path: str) -> bool:
    """`path` lies in a folder of vendored or third-party code (`ThirdParty/`, `vendor/`)."""
    return any(p.lower() in _VENDORED for p in PurePosixPath(path).parts[:-1])


def is_test_file(path: str) -> bool:
    """`path` is a test (under a test folder, or named as one): what it defines is the tests' own,
    never what an instruction's words mean in the code under test."""
    parts = PurePosixPath(path).parts
    return any(p in _TEST_FOLDERS for p in parts[:-1]) or bool(parts and _TEST_NAME.match(parts[-1]))


def packages(index, rel: str) -> frozenset[str] | None:
    """The folders with an __init__.py, where the open Python file's own folder is one; else None."""
    if not _is_python(rel):
        return None
    folders = frozenset(posixpath.dirname(f) for f in index.files() if posixpath.basename(f) == "__init__.py")
    return folders if posixpath.dirname(rel) in folders else None


def _near(index, rel: str) -> set[str]:
    """The files next to the open one: those it imports and those in its folder."""
    folder = PurePosixPath(rel).parent
    near = {p for p in (index.resolve(rel, imp.module) for imp in index.imports_of(rel)) if p}
    for p in [p for p in near if p.startswith("ns:")]:  # a C# namespace: its files
        near.update(index.namespace_files(p[3:]))
    packages_near = {p[:-1] for p in near if p.endswith("/")}  # Go: an imported package's folder
    near.update(p for p in index.files()
                if PurePosixPath(p).parent == folder or posixpath.dirname(p) in packages_near)
    return near


def _named(index, rel: str, request: RequestWords) -> list[tuple[float, object]]:
    query = request.stems
    if not query:
        return []
    near = _near(index, rel)
    hits = []
    matching: dict[str, int] = {}  # word -> how many symbols it says something about
    total = 0
    folders = packages(index, rel)
    beyond: dict[str, bool] = {}  # by file: a file's symbols share the answer (tens of thousands on a big tree)
    in_tests = is_test_file(rel)
    for sym in index.all_symbols():
        if sym.path not in beyond:
            beyond[sym.path] = (beyond_packages(folders, rel, sym.path) or (not in_tests and is_test_file(sym.path))
                                or (is_vendored(sym.path) and not is_vendored(rel)))
        if sym.path == rel or is_private(index, sym, rel) or beyond[sym.path]:
            continue
        total += 1
        words = _words_of(sym)
        got = _matches(words, query)
        if got and request.compounds:
            got = _whole_compounds(got, words, request.plain, request.compounds)
        if got and _internal(sym) and not any(points >= 2.0 for _, points, _ in got):
            continue  # a package's own helper is meant where the words say its name, not its doc or file
        if got:
            hits.append((sym, got))
            for q, _, says in got:
                if says:
                    matching[q] = matching.get(q, 0) + 1
    scored = []
    for sym, got in hits:
        score = sum(points * (_rarity(matching[q], total) if says else 1.0) for q, points, says in got)
        if sym.path in near:
            score += 1  # of two equal matches, the one next door is meant
        if sym.name in request.said:
            score += WHOLE_NAME
        if sym.parent:
            score -= 0.5  # a member counts for its class, a little below a top-level match
        if score > 0:
            scored.append((score, sym))
    scored.sort(key=lambda x: (-x[0], x[1].path, x[1].line))
    return scored


# ------------------------------------------------------------------ selection


def _relative(index, path: str | Path) -> str:
    p = Path(path)
    if p.is_absolute():
        try:
            return p.resolve().relative_to(index.root).as_posix()
        except ValueError:
            return ""
    return PurePosixPath(p.as_posix()).as_posix()


def _pinned_items(index, rel: str, pinned: Iterable[str]) -> list[ContextItem]:
    out = []
    for raw in pinned:
        by_at = raw.startswith("@")
        word = raw[1:] if by_at else raw
        reason = "pinned by @" if by_at else "--context"
        target = _relative(index, word) if Path(word).is_absolute() else word
        full = index.root / target if target else None
        if target and full is not None and full.is_file():
            if target == rel:
                continue  # the open file is the request's own
            out.append(_file_item(index, target, reason))
            continue
        for sym in index.find(word):
            if sym.path != rel:
                out.append(_item(index, _top(index, sym), reason))
                break
    return out


def _file_item(index, target: str, reason: str) -> ContextItem:
    """A whole file, where its outline says less: the outline (its top-level symbols' stubs) when
    the index knows the file's language, else the file's text."""
    syms = [s for s in index.symbols_in(target) if not s.parent]
    if syms:
        text = "\n\n".join(symbol_text(index, s) for s in syms)
    else:
        try:
            text = (index.root / target).read_text(encoding="utf-8", errors="replace").rstrip("\n")
        except OSError:
            text = ""
    return ContextItem("file", target, target, text, count_tokens(text) + 1, reason)


def select_context(index, path, text: str, region: tuple[int, int] | None, instruction: str,
                   budget_tokens: int, pinned: Iterable[str] = (), dropped: Iterable[str] = ()) -> list[ContextItem]:
    """The context for a request on `path` (its `text`, the edit's `region`, the `instruction`):
    pinned items first, then what the region uses from other project files (imports, calls), then
    what the instruction's words name, deduplicated and cut at `budget_tokens`; never the open
    file's own symbols, never a `dropped` one (a path, a name, or "path:name")."""
    if index is None or budget_tokens <= 0:
        return []
    rel = _relative(index, path)
    drop = set(dropped)
    own_syms, _ = _own_outline(rel or str(path), text)
    own = {s.name for s in own_syms}
    chosen: list[ContextItem] = []
    keys: set[tuple[str, str]] = set()
    spent = 0

    def take(item: ContextItem, limit: float) -> bool:
        nonlocal spent
        key = (item.path, item.name)
        if key in keys or item.path == rel or {item.path, item.name, f"{item.path}:{item.name}"} & drop:
            return False
        if spent + item.tokens > limit:
            return False
        keys.add(key)
        chosen.append(item)
        spent += item.tokens
        return True

    for item in _pinned_items(index, rel, pinned):
        take(item, budget_tokens)
    uses_limit = max(spent, budget_tokens * USES_SHARE)
    for sym, reason in _uses(index, rel, text, region, own):
        top = _top(index, sym)
        if (top.path, top.name) not in keys:
            take(_item(index, top, reason), uses_limit)
    named = 0
    seen_top: set[tuple[str, str]] = set()
    ranked = _named(index, rel, RequestWords.of(instruction, own))
    floor = ranked[0][0] * NAMED_FLOOR if ranked else 0
    for score, sym in ranked:
        if named >= MAX_NAMED or score < floor:
            break
        top = _top(index, sym)
        if (top.path, top.name) in seen_top:
            continue
        seen_top.add((top.path, top.name))
        if take(_item(index, top, "named in the request"), budget_tokens):
            named += 1
    return chosen


def _blocks(items: list[ContextItem]) -> list[str]:
    """Each file's items in one code block that opens with the file's name, the files in the order
    their first item was chosen."""
    grouped: dict[str, list[str]] = {}
    for item in items:
        grouped.setdefault(item.path, []).append(item.text)
    out = []
    for path, texts in grouped.items():
        body = "\n\n".join(texts)
        out.append(f"```{_fence(path)}\n{_comment(path)} {path}\n{body}\n```")
    return out


def context_message(items: list[ContextItem]) -> dict | None:
    """The read-only user message a request carries for `items` (None for none)."""
    if not items:
        return None
    return {"role": "user", "content": "\n".join([CONTEXT_HEADER, *_blocks(items)])}


def context_aside(items: list[ContextItem]) -> str:
    """The read-only text a request's last message carries for `items`, before the words ("" for none)."""
    return "\n".join([ASIDE_HEADER, *_blocks(items)]) if items else ""


@dataclass(frozen=True)
class RequestContext:
    """What a request carries from the project's other files, in two places. `message`: what the
    file and the region call for (their imports and calls, `--context`), a message right after the
    file, prewarmed with it. `aside`: what the instruction's words name (and `@` pins), in the last
    message between the region block and the words, so that words naming something re-evaluate
    only these items and the words after Enter, not the region block behind them."""

    message: dict | None = None
    aside: str = ""

    @classmethod
    def of(cls, items: list[ContextItem]) -> "RequestContext":
        early = [i for i in items if i.reason not in FROM_WORDS]
        return cls(context_message(early), context_aside([i for i in items if i.reason in FROM_WORDS]))

    def __bool__(self) -> bool:
        return self.message is not None or bool(self.aside)


def summary(items: list[ContextItem]) -> str:
    """One line saying what context went in: `money.py:format_money (imported), api.js:Status (named)`."""
    if not items:
        return "no context from other files"
    shown = ", ".join(f"{i.path}:{i.name}" if i.kind == "symbol" else i.path for i in items[:8])
    more = f" and {len(items) - 8} more" if len(items) > 8 else ""
    return f"context: {shown}{more} ({sum(i.tokens for i in items)} tokens)"
