"""A copy of the project as it stands on disk, for a check to run in without touching the user's tree.

A check runs what the user runs, so the copy holds what their tree holds: every file git tracks or
would track (binaries and large fixtures too), and the ignored ones a build made (`_version.py`,
compiled extensions, generated sources, `.env`). Two kinds of ignored folder are not copied:
caches (`__pycache__`, `.pytest_cache`), which the check makes again, and installed dependencies
and build trees too large to copy for each candidate (`node_modules`, `.venv`, Rust's `target`),
which are linked: the check reads them where they are. Outside a git work tree every file is taken.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

# Folders the check reads but a copy for each candidate would cost minutes: linked, not copied.
LINKED_DIRS = frozenset({"node_modules", ".venv", "venv", ".tox", ".nox", "target", "bower_components", ".gradle"})
# Folders a run makes again: left out.
CACHE_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
                        ".hypothesis", ".steer"})


class ScratchProject:
    """The project around `path`, copied into a temp folder once per candidate (`copy`), and removed."""

    def __init__(self, path: str | os.PathLike[str]):
        from steer_tui.project.root import project_root

        self.path = Path(path).absolute()
        self.root = project_root(self.path)
        self.relative = self.path.resolve().relative_to(self.root) if self.path.exists() else \
            self.path.parent.resolve().relative_to(self.root) / self.path.name
        self._entries: tuple[list[str], list[str]] | None = None

    def entries(self) -> tuple[list[str], list[str]]:
        """(the files to copy, the folders to link), relative to the root; listed once."""
        if self._entries is None:
            listed = _git_entries(self.root)
            self._entries = _sorted(*(_walked(self.root, [""]) if listed is None else _expanded(self.root, listed)))
        return self._entries

    def copy(self, text: str, encode=None) -> Path:
        """A new temp folder holding the project with `text` as the file (its bytes: `encode(text)`)."""
        dest = Path(tempfile.mkdtemp(prefix="steer-check-"))
        try:
            files, linked = self.entries()
            for rel in files:
                target = dest / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                try:
                    shutil.copy2(self.root / rel, target, follow_symlinks=False)
                except OSError:
                    continue  # gone or unreadable since it was listed: the check sees the tree as it is
            for rel in linked:
                target = dest / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                if not os.path.lexists(target):
                    target.symlink_to(self.root / rel, target_is_directory=True)
            target = dest / self.relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(encode(text) if encode is not None else text.encode("utf-8"))
        except BaseException:
            shutil.rmtree(dest, ignore_errors=True)
            raise
        return dest


def _git_entries(root: Path) -> list[str] | None:
    """Every path git lists under `root`: tracked, untracked, and ignored (an ignored folder once,
    with a trailing '/'); None outside a work tree."""
    out: list[str] = []
    for extra in (["--cached", "--others", "--exclude-standard"], ["--others", "--ignored", "--exclude-standard",
                                                                     "--directory"]):
        try:
            done = subprocess.run(["git", "-c", "core.quotepath=off", "ls-files", "-z", *extra], cwd=root,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  timeout=60)
        except (OSError, subprocess.SubprocessError):
            return None
        if done.returncode != 0:
            return None
        out.extend(os.fsdecode(p) for p in done.stdout.split(b"\0") if p)
    return list(dict.fromkeys(out))


def _expanded(root: Path, listed: list[str]) -> tuple[list[str], list[str]]:
    """`listed` as files to copy and folders to link: an ignored folder walked into."""
    files: list[str] = []
    folders: list[str] = []
    for rel in listed:
        parts = rel.rstrip("/").split("/")
        if any(p in CACHE_DIRS for p in parts):
            continue
        if rel.endswith("/"):
            got_files, got_links = _walked(root, [rel.rstrip("/")])
            files += got_files
            folders += got_links
        elif os.path.lexists(root / rel) and not (root / rel).is_dir():
            files.append(rel)
    return files, folders


def _walked(root: Path, tops: list[str]) -> tuple[list[str], list[str]]:
    """The files under each of `tops` (relative to `root`, "" for the root itself), caches left
    out and LINKED_DIRS kept as folders to link."""
    files: list[str] = []
    links: list[str] = []
    for top in tops:
        base = root / top if top else root
        name = Path(top).name
        if name in LINKED_DIRS:
            links.append(top)
            continue
        for folder, dirs, names in os.walk(base):
            rel_folder = os.path.relpath(folder, root)
            rel_folder = "" if rel_folder == "." else rel_folder.replace(os.sep, "/")
            keep = []
            for d in dirs:
                rel = f"{rel_folder}/{d}" if rel_folder else d
                if d in CACHE_DIRS:
                    continue
                if d in LINKED_DIRS or os.path.islink(os.path.join(folder, d)):
                    links.append(rel)
                    continue
                keep.append(d)
            dirs[:] = keep
            files.extend(f"{rel_folder}/{n}" if rel_folder else n for n in names)
    return files, links


def _sorted(files: list[str], links: list[str]) -> tuple[list[str], list[str]]:
    """Both lists sorted, once each; a file inside a linked folder comes with the link."""
    links = sorted(set(links))
    under = tuple(f"{rel}/" for rel in links)
    return sorted({f for f in files if not f.startswith(under)}), links
