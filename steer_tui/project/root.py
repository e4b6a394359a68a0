"""Where a project starts: the git work tree around a path, else the path's own folder."""

from __future__ import annotations

from pathlib import Path


def project_root(path: Path) -> Path:
    """The enclosing git work tree of a file or folder, else the folder itself (a file's parent).

    A path that does not exist yet (a new file) is taken from its nearest existing folder.
    The answer is absolute and resolved; nothing is run (a `.git` entry, a folder or a
    worktree's file, marks the top of a work tree)."""
    path = Path(path).expanduser().absolute()
    folder = path if path.is_dir() else path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    folder = folder.resolve()
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return folder
