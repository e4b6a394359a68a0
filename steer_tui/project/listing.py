"""The project's files: git's own list in a work tree, else a walk that honours `.gitignore`;
binary and huge files left out."""

from __future__ import annotations

import os
import re
import stat
import subprocess
from pathlib import Path

MAX_FILE_BYTES = 1 << 20  # a file over 1 MiB is data or generated: not offered, not opened for editing
MAX_FILES = 300_000  # a walk of a folder that is no project (a home folder) stops here
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv",
                       ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox"})
BINARY_EXTENSIONS = frozenset("""
png jpg jpeg gif bmp ico icns tif tiff webp psd xcf heic avif
mp3 mp4 m4a m4v wav ogg oga flac aac opus mov avi mkv webm wmv flv
zip gz tgz bz2 xz zst lz4 7z rar tar jar war ear whl egg apk dmg iso deb rpm
so dylib dll exe o a lib obj pyc pyo pyd class wasm bin dat pack idx
ttf otf woff woff2 eot
pdf doc docx xls xlsx ppt pptx odt ods odp
sqlite sqlite3 db mdb npy npz pkl pickle pt pth onnx gguf safetensors h5 hdf5 parquet feather arrow
""".split())


def is_binary_name(name: str) -> bool:
    """Known binary by its extension (the content is never read)."""
    _, dot, ext = name.rpartition(".")
    return bool(dot) and ext.lower() in BINARY_EXTENSIONS


def is_text_file(path: Path) -> bool:
    """The first 8 KiB hold no NUL byte and are UTF-8 (a character cut at the 8 KiB mark is fine)."""
    import codecs

    try:
        with open(path, "rb") as f:
            head = f.read(8192)
    except OSError:
        return False
    if b"\0" in head:
        return False
    try:
        # Only a head cut at 8 KiB may end inside a character.
        codecs.getincrementaldecoder("utf-8")().decode(head, final=len(head) < 8192)
    except UnicodeDecodeError:
        return False
    return True


def list_files(root: Path) -> list[str]:
    """The project's files as sorted POSIX paths relative to `root`: git's list of tracked and
    untracked-but-not-ignored files where `root` is in a git work tree, else a walk honouring
    `.gitignore` files. Files over MAX_FILE_BYTES, known binary by extension, deleted or not
    regular are left out. Never raises for an unreadable folder or a missing git."""
    root = Path(root)
    listed = _git_files(root)
    if listed is None:
        return _walk(root)
    kept = []
    for rel in listed:
        if is_binary_name(rel) or _skipped_dir_in(rel):
            continue
        if _small_regular(os.path.join(root, rel)):
            kept.append(rel)
    kept.sort()
    return kept


def _skipped_dir_in(rel: str) -> bool:
    # A committed virtualenv or node_modules is still not what anyone opens by name.
    parts = rel.split("/")
    return any(p in SKIP_DIRS for p in parts[:-1])


def _small_regular(full: str) -> bool:
    try:
        st = os.stat(full)
    except OSError:
        return False  # deleted in the work tree, a dangling link
    return stat.S_ISREG(st.st_mode) and st.st_size <= MAX_FILE_BYTES


def _git_files(root: Path) -> list[str] | None:
    """git's list relative to `root`, or None where `root` is not in a work tree (or git is missing)."""
    try:
        done = subprocess.run(
            ["git", "-c", "core.quotepath=off", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    # A path in conflict is listed once per stage: once is enough.
    return list(dict.fromkeys(os.fsdecode(p) for p in done.stdout.split(b"\0") if p))


# ----- the walk, for a folder that is not a git work tree -------------------------------------------


class _Rule:
    """One line of a .gitignore, matched against paths relative to that file's folder."""

    __slots__ = ("regex", "negate", "dir_only", "anchored")

    def __init__(self, regex: re.Pattern, negate: bool, dir_only: bool, anchored: bool) -> None:
        self.regex, self.negate, self.dir_only, self.anchored = regex, negate, dir_only, anchored


def _glob_regex(pattern: str) -> str:
    """A gitignore glob as a regex over a '/'-separated path: '*' and '?' stay within a name,
    '**' crosses folders, '[...]' is a class ('!' negates it)."""
    out = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                before_ok = i == 0 or pattern[i - 1] == "/"
                after = i + 2
                if before_ok and after < n and pattern[after] == "/":
                    out.append("(?:.*/)?")  # '**/': any folders, or none
                    i = after + 1
                    continue
                if before_ok and after == n:
                    out.append(".*")  # a trailing '/**': everything inside
                    i = after
                    continue
                out.append("[^/]*")
                i = after
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1:i + 2] in ("!", "^") else i + 1)
            if end == -1:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1:end]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def parse_gitignore(text: str) -> list[_Rule]:
    """The rules of one .gitignore file, in order (the last one that matches a path decides)."""
    rules = []
    for line in text.splitlines():
        line = line.rstrip("\r")
        if not line.strip() or line.startswith("#"):
            continue
        # Trailing spaces are not part of the pattern unless escaped.
        stripped = line.rstrip(" ")
        if stripped.endswith("\\") and len(stripped) < len(line):
            stripped += " "
        line = stripped
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        elif line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        try:
            regex = re.compile(_glob_regex(line) + r"\Z", re.DOTALL)
        except re.error:
            continue  # a malformed line is ignored, as git ignores it
        rules.append(_Rule(regex, negate, dir_only, anchored))
    return rules


def _ignored(levels: list[tuple[str, list[_Rule]]], rel: str, name: str, is_dir: bool) -> bool:
    """Whether `rel` (relative to the walk's root) is ignored by the .gitignore files above it."""
    verdict = False
    for base, rules in levels:
        sub = rel[len(base) + 1:] if base else rel
        for rule in rules:
            if rule.dir_only and not is_dir:
                continue
            if (rule.regex.match(sub) if rule.anchored else rule.regex.match(name)) is not None:
                verdict = not rule.negate
    return verdict


def _read_rules(folder: str) -> list[_Rule]:
    try:
        with open(os.path.join(folder, ".gitignore"), encoding="utf-8", errors="replace") as f:
            return parse_gitignore(f.read())
    except OSError:
        return []


def _walk(root: Path) -> list[str]:
    found: list[str] = []
    top = str(root)
    # (folder's path relative to root, "" for root; the .gitignore levels that apply inside it)
    stack: list[tuple[str, list[tuple[str, list[_Rule]]]]] = [("", [])]
    while stack and len(found) < MAX_FILES:
        rel_dir, levels = stack.pop()
        full_dir = os.path.join(top, rel_dir) if rel_dir else top
        rules = _read_rules(full_dir)
        if rules:
            levels = [*levels, (rel_dir, rules)]
        try:
            with os.scandir(full_dir) as it:
                entries = list(it)
        except OSError:
            continue  # unreadable or vanished: what can be read is listed
        for entry in entries:
            name = entry.name
            rel = f"{rel_dir}/{name}" if rel_dir else name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                if is_dir:
                    if name in SKIP_DIRS or _ignored(levels, rel, name, True):
                        continue
                    stack.append((rel, levels))
                    continue
                if is_binary_name(name) or _ignored(levels, rel, name, False):
                    continue
                st = entry.stat()  # follows a link: a link to a file is listed as that file
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and st.st_size <= MAX_FILE_BYTES:
                found.append(rel)
    found.sort()
    return found
