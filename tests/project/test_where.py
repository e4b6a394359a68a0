"""`?where ...` questions: the project lines a question's words name, and the references an answer makes."""

import subprocess
from pathlib import Path

import pytest

from steer_tui.project.context import name_words, stem
from steer_tui.project.where import places_block, question_words, references, where


def _project(tmp_path: Path, git: bool) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "config.py").write_text('"""Settings."""\nMAX_RETRIES = 5\nTIMEOUT_S = 3.0\n')
    (tmp_path / "pkg" / "client.py").write_text(
        "from pkg.config import MAX_RETRIES\n\n\ndef fetch(url):\n    for attempt in range(MAX_RETRIES):\n        pass\n")
    (tmp_path / "README.md").write_text("# demo\n")
    (tmp_path / "big.min.js").write_text("var retries=" + "1," * 400 + "0;\n")
    (tmp_path / "blob.bin").write_bytes(b"\0retry limit\0")
    if git:
        subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
        (tmp_path / ".gitignore").write_text("ignored/\n")
        (tmp_path / "ignored").mkdir()
        (tmp_path / "ignored" / "x.py").write_text("RETRY_LIMIT = 1\n")
    return tmp_path


def test_words_of_a_question_are_stems_without_the_question():
    assert question_words("Where is the retry limit set?") == ["retry", "limit"]
    assert question_words("where do we handle MAX_RETRIES") == ["max", "retry"]
    assert stem("retries") == stem("retry") == "retry"
    assert name_words("maxRetries") == name_words("MAX_RETRIES") == ("max", "retries")


@pytest.mark.parametrize("git", [True, False])
def test_where_finds_the_assignment_first_and_leaves_out_binary_long_and_ignored_lines(tmp_path, git):
    root = _project(tmp_path, git)
    files = ["pkg/config.py", "pkg/client.py", "README.md", "big.min.js", "blob.bin"]
    hits = where(root, "where is the retry limit set", files=None if git else files)
    assert hits[0].path == "pkg/config.py" and hits[0].line == 2 and hits[0].text == "MAX_RETRIES = 5"
    assert {h.path for h in hits} == {"pkg/config.py", "pkg/client.py"}
    block = places_block(hits)
    assert "pkg/config.py:2: MAX_RETRIES = 5" in block


def test_a_question_of_stop_words_or_no_match_finds_nothing(tmp_path):
    root = _project(tmp_path, True)
    assert where(root, "where is it?") == []
    assert where(root, "where is the spaceship") == []
    assert places_block([]) == ""


def test_references_in_an_answer():
    text = "It is set at `pkg/config.py:2` and read in pkg/client.py:5 (see note:3, ./pkg/config.py:2)."
    assert references(text) == [("pkg/config.py", 2), ("pkg/client.py", 5)]
    assert references(text, {"pkg/client.py"}) == [("pkg/client.py", 5)]


def test_references_written_in_words():
    text = "The retry limit is set in `pkg/config.py` at line 2; the client reads it in pkg/client.py, line 5."
    assert references(text) == [("pkg/config.py", 2), ("pkg/client.py", 5)]
