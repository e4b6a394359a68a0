"""The project's files: git's list in a repository, a .gitignore-honouring walk elsewhere, binary and huge files left out."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from steer_tui.project.listing import MAX_FILE_BYTES, is_text_file, list_files, parse_gitignore
from steer_tui.project.root import project_root

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def write(root: Path, rel: str, text: str = "x\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


@needs_git
def test_git_repository_lists_tracked_and_untracked_not_ignored_nor_deleted(tmp_path):
    write(tmp_path, ".gitignore", "build/\n*.log\n")
    write(tmp_path, "src/app.py")
    write(tmp_path, "src/gone.py")
    write(tmp_path, "README.md")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "init")
    write(tmp_path, "src/new_module.py")  # untracked, not ignored: listed
    write(tmp_path, "debug.log")  # ignored
    write(tmp_path, "build/out.py")  # ignored folder
    (tmp_path / "src" / "gone.py").unlink()  # deleted in the work tree, still in the index
    write(tmp_path, "logo.png", "not really a png")  # binary by extension
    write(tmp_path, "data/huge.txt", "a" * (MAX_FILE_BYTES + 1))
    assert list_files(tmp_path) == [".gitignore", "README.md", "src/app.py", "src/new_module.py"]
    # A sub-folder of the repository lists its own files, relative to itself; its root is the repository's.
    assert list_files(tmp_path / "src") == ["app.py", "new_module.py"]
    assert project_root(tmp_path / "src" / "app.py") == tmp_path.resolve()
    assert project_root(tmp_path / "src") == tmp_path.resolve()
    assert project_root(tmp_path / "src" / "not_yet.py") == tmp_path.resolve()


def test_plain_folder_walk_honours_gitignore_files(tmp_path):
    write(tmp_path, ".gitignore", "# comment\n*.log\n/dist\ncache/\n!keep.log\ndocs/**/draft*.md\n")
    write(tmp_path, "main.py")
    write(tmp_path, "run.log")
    write(tmp_path, "keep.log")
    write(tmp_path, "dist/bundle.js")
    write(tmp_path, "pkg/dist/kept.js")  # '/dist' is anchored to the root: this one stays
    write(tmp_path, "pkg/cache/skip.py")  # 'cache/' matches a folder at any depth
    write(tmp_path, "pkg/mod.py")
    write(tmp_path, "pkg/.gitignore", "secret.py\n")
    write(tmp_path, "pkg/secret.py")
    write(tmp_path, "secret.py")  # the nested .gitignore applies below pkg/ only
    write(tmp_path, "docs/a/b/draft1.md")
    write(tmp_path, "docs/a/final.md")
    write(tmp_path, "node_modules/lib/index.js")
    write(tmp_path, "__pycache__/main.cpython-311.pyc")
    write(tmp_path, ".venv/lib/site.py")
    write(tmp_path, "image.JPG", "binary by extension")
    write(tmp_path, "big.sql", "-" * (MAX_FILE_BYTES + 1))
    assert list_files(tmp_path) == [".gitignore", "docs/a/final.md", "keep.log", "main.py", "pkg/.gitignore",
                                    "pkg/dist/kept.js", "pkg/mod.py", "secret.py"]
    assert project_root(tmp_path / "main.py") == tmp_path.resolve()


def test_unreadable_folder_is_skipped_without_an_error(tmp_path, monkeypatch):
    write(tmp_path, "ok.py")
    write(tmp_path, "locked/hidden.py")
    write(tmp_path, "locked/.gitignore", "*.py\n")
    real_scandir, real_open = os.scandir, open
    locked = str(tmp_path / "locked")

    def scandir(path):  # what a folder without read permission does (whoever runs the test)
        if str(path) == locked:
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    def guarded_open(path, *args, **kwargs):
        if str(path).startswith(locked + os.sep):
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("steer_tui.project.listing.os.scandir", scandir)
    monkeypatch.setattr("builtins.open", guarded_open)
    assert list_files(tmp_path) == ["ok.py"]


def test_gitignore_rules_parse_like_git():
    rules = parse_gitignore("\\#not-a-comment\n  \nfoo\\ \n")
    assert [r.regex.match("#not-a-comment") is not None for r in rules[:1]] == [True]
    assert rules[1].regex.match("foo ") is not None


def test_is_text_file(tmp_path):
    text = write(tmp_path, "a.py", "print('héllo')\n")
    nul = tmp_path / "b.dat"
    nul.write_bytes(b"abc\0def")
    latin = tmp_path / "c.txt"
    latin.write_bytes("caf\xe9".encode("latin-1"))
    cut = tmp_path / "d.txt"
    cut.write_bytes(b"a" * 8191 + "é".encode())  # a character cut at the 8 KiB mark
    assert is_text_file(text) and is_text_file(cut)
    assert not is_text_file(nul) and not is_text_file(latin) and not is_text_file(tmp_path / "missing")
