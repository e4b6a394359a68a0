"""New files: Document.new, a Session that writes the whole file, `steer edit NEW_PATH` (recorded answers)."""

from __future__ import annotations

import os
import stat

import pytest

from steer_tui.config import Settings
from steer_tui.files import Document, DocumentError, FileChangedError
from steer_tui.prompts import NEW_FILE_NOTE
from steer_tui.session import Session
from steer_tui.transport.client import ResponsesClient

from .conftest import recorded, until
from .test_edit_command import steer_edit


def dice_file() -> str:
    """The file the recorded answer new_dice.txt writes: its fenced block."""
    text = recorded("new_dice.txt")
    return text.split("```python\n", 1)[1].split("```", 1)[0]


def umask_mode() -> int:
    old = os.umask(0o022)
    os.umask(old)
    return 0o666 & ~old


def test_document_new_is_an_empty_buffer_created_on_first_write(tmp_path):
    path = tmp_path / "new.py"
    doc = Document.open(path)
    assert doc.is_new and doc.text == "" and not path.exists()
    assert not doc.changed_on_disk()
    doc.write("x = 1\n")
    assert path.read_text() == "x = 1\n" and not doc.is_new
    assert stat.S_IMODE(path.stat().st_mode) == umask_mode() == doc.mode
    assert [p.name for p in tmp_path.iterdir()] == ["new.py"]  # no temp file left behind
    doc.write("x = 2\n")  # from here on an ordinary file
    assert path.read_text() == "x = 2\n"


def test_document_new_follows_the_umask(tmp_path):
    old = os.umask(0o077)
    try:
        doc = Document.new(tmp_path / "private.py")
        doc.write("secret = 1\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "private.py").stat().st_mode) == 0o600


def test_document_new_needs_the_folder(tmp_path):
    with pytest.raises(DocumentError, match="folder .* does not exist"):
        Document.open(tmp_path / "no" / "such" / "new.py")
    (tmp_path / "plain").write_text("")
    with pytest.raises(DocumentError, match="is not a folder"):
        Document.open(tmp_path / "plain" / "new.py")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain"]


def test_document_new_never_overwrites_a_file_that_appeared(tmp_path):
    path = tmp_path / "new.py"
    doc = Document.new(path)
    path.write_text("someone else's\n")
    assert doc.changed_on_disk()
    with pytest.raises(FileChangedError):
        doc.write("mine\n")
    assert path.read_text() == "someone else's\n"
    assert [p.name for p in tmp_path.iterdir()] == ["new.py"]


@pytest.mark.parametrize("edit_format", ["search_replace", "rewrite"])
async def test_session_writes_the_whole_new_file(replay, tmp_path, edit_format):
    url, engine = await replay(["new_dice.txt"])
    path = tmp_path / "dice.py"
    client = ResponsesClient(url)
    await client.connect()
    session = Session(Document.open(path), Settings(backend=url), None, client=client, edit_format=edit_format)
    try:
        await session.start()
        assert session.format == "rewrite"  # whatever was asked for: an empty file is written whole
        result = await session.edit("a dice roller")
        assert result.status == "proposal", result.reason
        assert not path.exists()  # nothing on disk before accept
        ask = engine.requests[0].messages[-1]["content"]
        assert ask.startswith(NEW_FILE_NOTE) and "a dice roller" in ask and "Region" not in ask
        assert session.accept_all()
        assert path.read_text() == dice_file()
        assert not session.document.is_new
        assert not session.file_changed()  # our own write
    finally:
        await session.close()
        await client.close()


async def test_session_reject_leaves_nothing_on_disk(replay, tmp_path):
    url, _ = await replay(["new_dice.txt"])
    path = tmp_path / "dice.py"
    client = ResponsesClient(url)
    await client.connect()
    session = Session(Document.open(path), Settings(backend=url), None, client=client)
    try:
        await session.start()
        assert not session.file_changed()  # a new file not written yet is not "deleted on disk"
        await session.edit("a dice roller")
        assert session.has_proposal
        assert session.reject_all()
        await until(lambda: session.state == "idle")
        assert list(tmp_path.iterdir()) == []
    finally:
        await session.close()
        await client.close()


async def test_steer_edit_creates_a_new_file(replay, tmp_path):
    url, engine = await replay(["new_dice.txt"])
    path = tmp_path / "dice.py"
    code, out, err = await steer_edit(str(path), "-m", "a dice roller", "--backend", url)
    assert code == 0, err
    assert path.read_text() == dice_file()
    assert stat.S_IMODE(path.stat().st_mode) == umask_mode()
    assert f"created {path}" in err
    assert "+def roll(sides: int = 6) -> int:" in out


async def test_steer_edit_dry_run_prints_the_new_file_and_writes_nothing(replay, tmp_path):
    url, _ = await replay(["new_dice.txt"])
    path = tmp_path / "dice.py"
    code, out, err = await steer_edit(str(path), "-m", "a dice roller", "--backend", url, "--dry-run")
    assert code == 0, err
    assert "+def roll(sides: int = 6) -> int:" in out and "@@ -0,0 +1," in out
    assert not path.exists() and list(tmp_path.iterdir()) == []


async def test_steer_edit_new_file_in_a_missing_folder_exits_2(tmp_path):
    code, out, err = await steer_edit(str(tmp_path / "nope" / "new.py"), "-m", "x",
                                      "--backend", "ws://127.0.0.1:9/v1/responses")
    assert code == 2 and "does not exist" in err
