"""Questions about the project: the lines whose words a question names, as `path:line` hits, and the references an answer makes back to them."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from steer_tui.project.context import name_words, stem

# Words a question is made of that say nothing about where to look.
_STOP = frozenset("""
a an and any are as at be been being by can could did do does done for from get gets got has have how
i if in into is it its me my of on or our should so than that the their them then there these this those
to up us was we were what when where which while who why will with would you your set sets defined define
defines used use uses using find found happen happens handled handle code file files project place places
line lines show tell know see look value values work works""".split())

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_MAX_LINE = 300  # a minified or generated line says nothing a reader can use
_MAX_FILE_BYTES = 1 << 20


@dataclass(frozen=True)
class Hit:
    """One line of one project file (`line` 1-based, as references write it) and how well it matches."""

    path: str
    line: int
    text: str
    score: float


def question_words(question: str) -> list[str]:
    """The stems of the words a question looks for, in order, each once."""
    seen: list[str] = []
    for m in _WORD.finditer(question):
        for w in name_words(m.group(0)):
            s = stem(w)
            if len(s) >= 3 and w not in _STOP and s not in _STOP and s not in seen:
                seen.append(s)
    return seen


AROUND = 5.0  # what a question word scores that only the definitions around a line name


def _said(s: str, words: set[str]) -> bool:
    return s in words or any(w.startswith(s) for w in words)


def _line_score(text: str, stems: list[str]) -> tuple[float, list[str]]:
    """How well a line answers by its own words (10 a question word it says, more where it defines
    or sets a thing), and the question's words it does not say: the definitions around it may
    name those (`limit: 2` inside `defaultRetryOptions` is the retry limit: AROUND each)."""
    words = {stem(w) for w in name_words(text)}
    found = sum(1 for s in stems if _said(s, words))
    if not found:
        return 0.0, []
    score = found * 10.0
    stripped = text.strip()
    if re.match(r"(?:export\s+)?(?:async\s+)?(?:def|class|function|const|let|var|static|final|public|private)\b", stripped) \
            or re.match(r"[A-Za-z_][\w.]*\s*(?::[^=]+)?=(?!=)", stripped):
        score += 4.0  # a definition or an assignment: where a thing is set, not only read
    if stripped.startswith(("#", "//", "*", "/*")):
        score -= 2.0
    return score, [s for s in stems if not _said(s, words)]


# Files that talk about the code rather than being it: a test, a changelog, a README.
_PROSE = (".md", ".rst", ".txt", ".adoc")
_ABOUT_ASIDE = re.compile(r"\b(?:tests?|tested|testing|spec|specs|docs?|documented|documentation|readme|changelog|history)\b", re.I)


def _aside(path: str) -> bool:
    """A test or a document: where a question finds the words said, not done. A question asking
    where something is set or checked means the code; its lines count half there."""
    from steer_tui.project.context import is_test_file

    return is_test_file(path) or path.lower().endswith(_PROSE) or PurePosixPath(path).name.isupper()


def _asks_for_aside(question: str) -> bool:
    """The question is about the tests or the documents themselves."""
    return _ABOUT_ASIDE.search(question) is not None


def _roots(stems: list[str]) -> str:
    """A pattern that finds every spelling of the stems ("retry" must find `MAX_RETRIES`)."""
    return "|".join(re.escape(s[:-1] if s.endswith(("y", "e")) and len(s) > 3 else s) for s in stems)


def _git_lines(root: Path, stems: list[str]) -> list[tuple[str, int, str]] | None:
    """Every line of the tracked and untracked-but-not-ignored files naming a stem, by `git grep`; None outside a repository."""
    pattern = _roots(stems)
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "grep", "-n", "-I", "-i", "--untracked", "--exclude-standard", "-E", pattern],
            capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode not in (0, 1) or b"not a git repository" in out.stderr:
        return None
    rows = []
    for raw in out.stdout.decode("utf-8", "replace").splitlines():
        path, sep, rest = raw.partition(":")
        number, sep2, text = rest.partition(":")
        if sep and sep2 and number.isdigit():
            rows.append((path, int(number), text))
    return rows


def _text(path: Path) -> str | None:
    """A project file's text to search; None for one that is gone, over the size bound or binary."""
    try:
        if path.stat().st_size > _MAX_FILE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    return None if b"\0" in data[:8192] else data.decode("utf-8", "replace")


def _scan_lines(root: Path, files: list[str], stems: list[str]) -> list[tuple[str, int, str]]:
    pattern = re.compile(_roots(stems), re.I)
    rows = []
    for rel in files:
        text = _text(root / rel)
        if text is None or not pattern.search(text):
            continue
        for i, line in enumerate(text.splitlines(), 1):
            if pattern.search(line):
                rows.append((rel, i, line))
    return rows


class _Scopes:
    """The stems of the names of the definitions around a line of a project file: from the project
    index where it has the file, else the file parsed, at most MAX_PARSED files a question."""

    MAX_PARSED = 24  # a parse is 5-50 ms: a question on a large tree must not wait seconds for them

    def __init__(self, root: Path, index=None) -> None:
        self.root = root
        self.index = index if index is not None and index.built.is_set() else None
        self.files: dict[str, list] = {}
        self.parsed = 0

    def __call__(self, path: str, line: int) -> set[str] | None:
        """The stems around `line` (1-based); None where the file is not in the index and the
        question has parsed its MAX_PARSED files already."""
        syms = self.files.get(path)
        if syms is None:
            syms = self._symbols(path)
            if syms is None:
                return None
            self.files[path] = syms
        at = line - 1
        return {stem(w) for s in syms if s.line <= at < s.end for w in name_words(s.name)}

    def _symbols(self, path: str) -> list | None:
        from steer_tui import lang

        if self.index is not None:
            syms = self.index.symbols_in(path)
            if syms:
                return syms
        if lang.language(path) is None:
            return []
        if self.parsed >= self.MAX_PARSED:
            return None
        self.parsed += 1
        text = _text(self.root / path)
        try:
            return lang.outline(path, text)[0] if text is not None else []
        except Exception:  # a file the layer cannot read has no scopes, never a failed question
            return []


@dataclass
class _Scored:
    """A matching line while it is ranked: its score so far, and the question's words it does not
    say, which the definitions around it may still add (AROUND each, times `weight`)."""

    score: float
    path: str
    line: int
    text: str
    unsaid: list[str]
    weight: float  # 0.5 in a test or a document, else 1

    @property
    def most(self) -> float:
        """The score it reaches if the definitions around it name every word it does not say."""
        return self.score + AROUND * len(self.unsaid) * self.weight


PER_FILE = 3  # places shown from one file at most


def _shown(rows: list, limit: int) -> list:
    """The first `limit` of `rows` (best first) that the places shown may hold: at most PER_FILE a file."""
    per_file: dict[str, int] = {}
    out = []
    for row in rows:
        if per_file.get(row.path, 0) < PER_FILE:
            per_file[row.path] = per_file.get(row.path, 0) + 1
            out.append(row)
            if len(out) == limit:
                break
    return out


def _floor(rows: list[_Scored], limit: int) -> float:
    """The least score a line needs to be among the places shown: half the best, and the score of
    the `limit`-th line `_shown` would take in order (those lines can only score more)."""
    ranked = sorted(rows, key=lambda r: -r.score)
    best = ranked[0].score if ranked else 0.0
    taken = _shown(ranked, limit)
    return max(best / 2, taken[-1].score) if len(taken) == limit else best / 2


def where(root: Path, question: str, files: list[str] | None = None, limit: int = 12, index=None) -> list[Hit]:
    """The project lines that best match the words of `question`, best first, at most 3 a file.

    `git grep` where `root` is in a repository (it honours .gitignore and is fast on large trees),
    else a scan of `files` (default: the project's list). `index`: the project's ProjectIndex, whose
    symbols say what definition a line is in (else a few files are parsed). Nothing matches: []."""
    stems = question_words(question)
    if not stems:
        return []
    rows = _git_lines(root, stems)
    if rows is None:
        if files is None:
            from steer_tui.project.listing import list_files

            files = list_files(root)
        rows = _scan_lines(root, files, stems)
    aside = _asks_for_aside(question)
    scored: list[_Scored] = []
    for path, number, text in rows:
        if len(text) > _MAX_LINE:
            continue
        score, unsaid = _line_score(text, stems)
        path_words = {stem(w) for w in name_words(path)}
        score += 3.0 * sum(1 for s in stems if s in path_words)
        if score > 0:
            weight = 0.5 if not aside and _aside(path) else 1.0
            scored.append(_Scored(score * weight, path, number, text.strip(), unsaid, weight))
    # A file is parsed for the definitions around its lines only where that could lift one of them
    # into the places shown: on a large tree a common word is on thousands of lines.
    floor = _floor(scored, limit)
    scopes = _Scopes(root, index)
    for row in sorted((r for r in scored if r.unsaid), key=lambda r: -r.most):
        if row.most < floor:
            break  # nor can any after it, in this order
        around = scopes(row.path, row.line)
        if around:
            row.score += AROUND * row.weight * sum(1 for s in row.unsaid if _said(s, around))
    hits = [Hit(r.path, r.line, r.text, r.score) for r in scored]
    hits.sort(key=lambda h: (-h.score, h.path, h.line))
    best = hits[0].score if hits else 0
    # Lines that match fewer words than the best hit's half are noise next to it (best first, so
    # they come after every line the places keep).
    return [h for h in _shown(hits, limit) if h.score >= best / 2]


PLACES_NOTE = "Places in the project whose words match the question (path:line: code):"


def places_block(hits: list[Hit]) -> str:
    """The part of a question's message that shows the matching places; "" when there are none."""
    if not hits:
        return ""
    rows = "\n".join(f"{h.path}:{h.line}: {h.text}" for h in hits)
    cite = f"Where the answer is one of these places, cite it as path:line (for example {hits[0].path}:{hits[0].line})."
    return f"{PLACES_NOTE}\n```\n{rows}\n```\n{cite}"


# `path:line` as answers write it, the path with at least one dot or slash so "note:3" is no reference;
# small models also write "`path` at line N", "path file at lines N and M" or "path, line N".
_PATH = r"((?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)+|(?:[\w.-]+/)+[\w.-]+)"
_PATH_WORD = re.compile(r"(?<![\w/.-])" + _PATH)  # a path as a word of prose
REFERENCE = re.compile(r"(?<![\w/.-])`?" + _PATH + r"`?(?::(\d+)|,?\s+(?:file,?\s+)?(?:at|on)?\s*lines?\s+(\d+(?:(?:\s*,\s*|\s+and\s+)\d+)*))",
                       re.I)


_ASKS_WHERE = re.compile(r"\bwhere\b|\bwhich\s+(?:file|line|function|method|class|module)\b", re.I)


def places_for(file: Path, question: str, relative_to: Path | None = None, limit: int = 12, index=None) -> list[Hit]:
    """The places a question asked about `file` shows (`places_block`): the lines of its project
    (the enclosing repository, else its folder) the words name, paths relative to `relative_to`
    (default: the project's root); [] when nothing matches, or when only the open file does and
    the question does not ask where (what `mean` does is about the file the model reads whole; a
    question asking where wants the line, which the file it reads does not number, and an answer
    naming `getHttpVersionToken` is cited by the place that shows it). `index`: the project's
    index, where the session has one (what definition a line is in)."""
    from steer_tui.project.root import project_root

    root = project_root(Path(file).resolve())
    if index is not None and Path(index.root).resolve() != root:
        index = None  # another project's: its paths are not these
    hits = where(root, question, limit=limit, index=index)
    only_here = all((root / h.path).resolve() == Path(file).resolve() for h in hits)
    if not hits or (only_here and not _ASKS_WHERE.search(question)):
        return []
    if relative_to is not None:
        base = Path(relative_to).resolve()
        hits = [Hit(_relative(root / h.path, base), h.line, h.text, h.score) for h in hits]
    return hits


def _relative(path: Path, base: Path) -> str:
    import os

    rel = os.path.relpath(path, base)
    # A project outside the shell's folder: a path that still opens from there.
    return str(path) if rel.startswith("..") else Path(rel).as_posix()


def _path_of(m: re.Match) -> str:
    """The path a REFERENCE or _PATH_WORD match writes, without a leading "./"."""
    return m.group(1)[2:] if m.group(1).startswith("./") else m.group(1)


def references(text: str, known: set[str] | None = None) -> list[tuple[str, int]]:
    """The `path:line` references in an answer, in order, each once; with `known`, only paths in it."""
    out: list[tuple[str, int]] = []
    for m in REFERENCE.finditer(text):
        path = _path_of(m)
        for number in re.findall(r"\d+", m.group(2) or m.group(3)):
            ref = (path, int(number))
            if (known is None or path in known) and ref not in out:
                out.append(ref)
    return out


# A name in prose that reads as code: in backticks, or with an underscore, a dot or an inner capital.
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def _code_names(text: str) -> list[str]:
    """The names an answer writes as code, in order, each once: a code span that is a name
    (`getip`, `req._remoteAddress`, `certifi.where()`: its last part), and a name outside code
    spans that reads as code (an underscore or an inner capital). A span of code (`morgan.token('url',
    function getUrlToken (req) {...})`) quotes other names than the one it points at, and a path's
    parts are no names (`src/requests/utils.py` names no `requests`)."""
    out: list[str] = []

    def add(name: str) -> None:
        if len(name) >= 3 and name not in out:
            out.append(name)

    pos = 0
    for span in _CODE_SPAN.finditer(text):
        _plain_names(text[pos:span.start()], add)
        whole = re.fullmatch(r"\s*(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)(?:\(\))?\s*", span.group(1))
        if whole:
            add(whole.group(1))
        pos = span.end()
    _plain_names(text[pos:], add)
    return out


def _reads_as_code(name: str) -> bool:
    """An underscore inside or an inner capital: no word of prose is written so."""
    return "_" in name.strip("_") or re.search(r"[a-z][A-Z]", name) is not None


def _plain_names(prose: str, add) -> None:
    prose = _PATH_WORD.sub(lambda m: " " * len(m.group(0)) if "/" in m.group(1) else m.group(0), prose)
    for m in _IDENT.finditer(prose):
        if _reads_as_code(m.group(0)):
            add(m.group(0))


_DEF_WORDS = r"(?:def|class|function|fn|func|struct|enum|interface|type|trait|impl|module|const|let|var|val)"


def _defines(text: str, name: str) -> int:
    """How surely a line is where `name` is set, not read: 2 after a definition's keyword anywhere
    (`morgan.token('x', function NAME (req) {`); 1 assigned at the line's start, after modifiers and
    a type (`self.NAME = 1`, `static final int NAME = 1;`, `module.exports.NAME = NAME`); else 0."""
    n = re.escape(name)
    if re.search(_DEF_WORDS + r"\s+(?:[\w.]+\.)?" + n + r"\b", text):
        return 2
    return int(bool(re.match(r"\s*(?:[\w<>\[\],]+\s+)*(?:[\w.]+\.)?" + n + r"\s*(?::[^=\n]*)?=(?!=)", text)))


def _read(base: Path | None, rel: str) -> list[str] | None:
    """The lines of a project file the answer names (relative to `base`); None when there is none to read."""
    if base is None or rel.startswith("/") or ".." in PurePosixPath(rel).parts or not (base / rel).is_file():
        return None
    text = _text(base / rel)
    return None if text is None else text.splitlines()


def _named_paths(text: str, hits: list[Hit], base: Path | None = None) -> set[str]:
    """The files the answer names: the places' files, by their path or, where no other place's file
    shares it, their file name or the end of their path (`requests/models.py` for
    `src/requests/models.py`: a small model drops the leading folder); and other paths it writes
    (with `base`, a bare file name found there)."""
    names: dict[str, set[str]] = {}
    for h in hits:
        names.setdefault(PurePosixPath(h.path).name, set()).add(h.path)
    found = {h.path for h in hits if h.path in text}
    for name, paths in names.items():
        if len(paths) == 1 and re.search(r"(?<![\w/.-])" + re.escape(name) + r"(?![\w-])", text):
            found |= paths
    for m in _PATH_WORD.finditer(text):
        rel = _path_of(m)
        # A path with a folder names a file ("req._remoteAddress" names none); a bare file name, one that is there.
        ends = {h.path for h in hits if h.path.endswith("/" + rel)}
        if len(ends) == 1 and not any(h.path == rel for h in hits):
            found |= ends
        elif "/" in rel or (base is not None and (base / rel).is_file()):
            found.add(rel)
    return found


def _first_mention(text: str, path: str) -> int:
    at = [i for i in (text.find(path), text.find(PurePosixPath(path).name)) if i >= 0]
    return min(at, default=len(text))


def cited(text: str, hits: list[Hit], base: Path | None = None, most: int = 2) -> list[Hit]:
    """The places an answer points at without writing `path:line`, from the `hits` the question
    showed and, with `base` (the folder their paths start from), the files the answer names.

    A name it writes as code (`POSTS_PER_PAGE`) cites the places that hold it, at most `most`: in
    the files the answer names if it names any (there, also the line that defines the name), and
    narrowed to the lines that define or set it where any do; a plain word (`request`) only where
    a line defines it. A file it names with one place cites that place. Never a guess between
    more: a name on more places than that, or a file with several, cites none. A file the answer
    already gives a line in gets no other place of it."""
    paths = _named_paths(text, hits, base)
    pinned = {path for path, _ in references(text)}  # files the answer gives a line in: it said where in them
    out: list[Hit] = []
    seen: set[tuple[str, int]] = set()

    def add(chosen: list[Hit]) -> None:
        for h in chosen:
            if h.path not in pinned and (h.path, h.line) not in seen:
                seen.add((h.path, h.line))
                out.append(h)

    files = {p: _read(base, p) for p in paths}
    for name in _code_names(text):
        word = re.compile(r"(?<![\w])" + re.escape(name) + r"(?![\w])")
        found = [h for h in hits if word.search(h.text)]
        if paths:  # the answer says which files: a name's places elsewhere are not what it points at
            found = [h for h in found if h.path in paths]
            at = {(h.path, h.line) for h in found}
            for path, lines in files.items():
                found += [Hit(path, i, line.strip(), 0.0) for i, line in enumerate(lines or (), 1)
                          if (path, i) not in at and word.search(line) and _defines(line, name)]
        how = [_defines(h.text, name) for h in found]
        surest = max(how, default=0)
        if surest < 2 and not _reads_as_code(name):
            continue  # a plain word (`request`, `req`) is prose as often as code: only its definition tells
        found = [h for h, sure in zip(found, how) if sure == surest]
        if 0 < len(found) <= most:
            add(found)
    for path in sorted(paths, key=lambda p: _first_mention(text, p)):
        in_file = [h for h in hits if h.path == path]
        if len(in_file) == 1:
            add(in_file)
    return out
