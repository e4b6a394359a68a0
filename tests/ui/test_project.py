"""Pilot tests of the project: Ctrl+P finds and opens a file, '>' reaches the command palette,
switching files keeps each one's proposal, undo history and view, `steer .` and `steer` open the project."""

from __future__ import annotations

import shutil

import pytest

from steer_tui.ui.app import make_app

from .conftest import EXAMPLE, PAUSE_MID_SECOND_BLOCK, replay_app, settings, wait_paused, wait_until
from .test_flow import send, send_until_review

HELPERS = "def money(cents):\n    return f'{cents / 100:.2f}'\n\n\ndef plural(n, word):\n    return word if n == 1 else word + 's'\n"


@pytest.fixture
def project(tmp_path):
    """A small project (not a git repository): the demo file, a helpers module, an ignored file."""
    root = tmp_path / "shop"
    (root / "pkg").mkdir(parents=True)
    shutil.copyfile(EXAMPLE, root / "inventory.py")
    (root / "pkg" / "helpers.py").write_text(HELPERS)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "notes.log").write_text("ignored\n")
    (root / ".gitignore").write_text("*.log\n")
    return root


async def find_and_open(pilot, app, query: str) -> None:
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: type(app.screen).__name__ == "FinderScreen", what="the finder")
    await wait_until(pilot, lambda: app.files.index is not None, what="the file list")
    await pilot.press(*query)
    await pilot.pause()
    await pilot.press("enter")
    await wait_until(pilot, lambda: type(app.screen).__name__ == "Screen", what="the finder to close")


async def test_ctrl_p_finds_a_file_and_enter_opens_it(project, backends):
    b = await backends()
    app = replay_app(project / "inventory.py", b)
    async with app.run_test(size=(100, 34)) as pilot:
        assert app.status.file == "inventory.py"
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "FinderScreen", what="the finder")
        await wait_until(pilot, lambda: app.files.index is not None, what="the file list")
        assert sorted(app.files.files) == [".gitignore", "inventory.py", "pkg/__init__.py", "pkg/helpers.py"]
        await pilot.press(*"hlp")
        await pilot.pause()
        assert app.screen.match_list.chosen_path == "pkg/helpers.py"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.path is not None and app.path.name == "helpers.py", what="the file")
        assert app.status.file == "pkg/helpers.py"
        assert app.code.lines[:2] == HELPERS.splitlines()[:2]
        await wait_until(pilot, lambda: app.session is not None and app.session.document.path.name == "helpers.py",
                         what="its session")
        # Esc closes the finder and changes nothing.
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "FinderScreen", what="the finder")
        await pilot.press(*"inv", "escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "Screen" and app.path.name == "helpers.py"
        assert app.prompt.value == ""  # the finder's words never reach the prompt


async def test_a_file_that_cannot_be_opened_leaves_the_file_shown_as_it_was(project, backends):
    """Not UTF-8: the toast says why, and the file shown stays, with its view and its name."""
    (project / "latin.py").write_bytes(b"# caf\xe9\nx = 1\n")
    b = await backends()
    app = replay_app(project / "inventory.py", b)
    async with app.run_test(size=(100, 34)) as pilot:
        await wait_until(pilot, lambda: app.session is not None, what="the session")
        shown = list(app.code.lines)
        await find_and_open(pilot, app, "latin")
        await pilot.pause()
        assert app.path.name == "inventory.py" and app.status.file == "inventory.py"
        assert app.code.lines == shown and app.session.document.path.name == "inventory.py"
        assert any("not valid UTF-8" in n.message for n in app._notifications)


async def test_typing_gt_in_the_finder_opens_the_command_palette(project, backends):
    b = await backends()
    app = replay_app(project / "inventory.py", b)
    async with app.run_test(size=(100, 34)) as pilot:
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "FinderScreen", what="the finder")
        await pilot.press(">")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "CommandPalette", what="the palette")
        titles = {c.title for c in app.get_system_commands(app.screen_stack[0])}
        assert "Find a file" in titles
        await pilot.press(*"them")
        await pilot.pause()
        from textual.command import CommandInput

        assert app.screen.query_one(CommandInput).value == "them"
        await pilot.press("escape")
        await pilot.pause()
        # The key bar and the help say how: Ctrl+P on the right, '>' in the help's project section.
        keybar = app.query_one("KeyBar")
        assert keybar._palette is not None and keybar._palette[0] == "ctrl+p" and "> commands" in keybar._palette[2]
        project_keys = dict(next(keys for title, keys in app.help_sections() if title == "Project"))
        assert "Ctrl+P" in project_keys and ">" in project_keys


async def test_switching_files_keeps_the_proposal_the_undo_history_and_the_view(project, backends):
    b = await backends()
    first = project / "inventory.py"
    app = replay_app(first, b)
    async with app.run_test(size=(100, 34)) as pilot:
        await send_until_review(pilot, app)
        assert app.session.live.hunk_count == 2
        await pilot.press("alt+y")  # the first hunk is written: one step of undo history, one hunk pending
        await wait_until(pilot, lambda: app.session.live.hunk_count == 1, what="one hunk left")
        written = first.read_text()
        assert app.session.can_undo
        session = app.session
        app.code.focus()
        await pilot.press("down", "down", "down")
        cursor = app.code.cursor_line
        await find_and_open(pilot, app, "helpers")
        await wait_until(pilot, lambda: app.session is not None and app.session is not session, what="its session")
        assert app.path.name == "helpers.py" and app.status.state == "idle"
        assert not app.session.has_proposal and not app.session.can_undo
        assert app.session.client is session.client  # one backend connection for all the files
        assert app.code.cursor_line == 0
        # Only the open file is ever written: nothing happened to the file left.
        assert first.read_text() == written and (project / "pkg" / "helpers.py").read_text() == HELPERS
        await find_and_open(pilot, app, "inventory")
        assert app.path == first and app.session is session
        assert app.session.live.hunk_count == 1 and app.status.state == "review"
        assert app.code.source is session.live and app.code.cursor_line == cursor
        assert app.status.file == "inventory.py"
        await pilot.press("ctrl+y")  # the pending hunk is still there to accept
        await wait_until(pilot, lambda: not app.session.has_proposal, what="the accept")
        assert "total = 0.0" in first.read_text()
        await pilot.press("ctrl+z")
        await pilot.press("ctrl+z")  # both steps undone: the history survived the switch
        await wait_until(pilot, lambda: first.read_text() == EXAMPLE.read_text(), what="the undo")


async def test_switching_while_an_edit_is_written_asks_first(project, backends):
    b = await backends(pause_at=PAUSE_MID_SECOND_BLOCK)
    first = project / "inventory.py"
    app = replay_app(first, b)
    async with app.run_test(size=(100, 34)) as pilot:
        await send(pilot, app, "validate quantity")
        await wait_paused(pilot, app, b)
        session = app.session
        await app.open_file(project / "pkg" / "helpers.py")
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmScreen"
        await pilot.press("n")  # stay: the edit goes on
        await pilot.pause()
        assert app.path == first and app.session.state == "generating"
        await app.open_file("pkg/helpers.py")
        await pilot.pause()
        await pilot.press("y")  # stop it and open the other file
        await wait_until(pilot, lambda: app.path.name == "helpers.py", what="the switch")
        assert session.state == "interrupted" and session.live.hunk_count == 1  # the complete block stays
        await app.open_file(first)
        await pilot.pause()
        assert app.status.state == "interrupted" and app.session.live.hunk_count == 1


async def test_a_pending_proposal_in_a_file_not_shown_is_asked_about_on_quit(project, backends):
    b = await backends()
    app = replay_app(project / "inventory.py", b)
    async with app.run_test(size=(100, 34)) as pilot:
        await send_until_review(pilot, app)
        await find_and_open(pilot, app, "helpers")
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmScreen"
        assert "inventory.py" in str(app.screen.question)


@pytest.mark.parametrize("how", ["dot", "no argument"])
async def test_steer_dot_and_steer_alone_open_the_project_with_the_finder(project, backends, monkeypatch, how):
    b = await backends()
    monkeypatch.chdir(project / "pkg")  # inside the project: its root is found (here: the folder itself)
    monkeypatch.chdir(project)
    from pathlib import Path

    app = make_app(Path(".") if how == "dot" else None, settings(), client=b.client, watch=False, mask_timings=True)
    async with app.run_test(size=(100, 34)) as pilot:
        await wait_until(pilot, lambda: type(app.screen).__name__ == "FinderScreen", what="the finder")
        assert app.path is None and app.document is None and app.status.file == "no file"
        assert any("Ctrl+P finds a file" in line for line in app.code.lines)
        assert app.project_root == project.resolve()
        await pilot.press("escape")
        app.prompt.value = "make it faster"
        await pilot.press("enter")  # no file: the words stay
        await pilot.pause()
        assert app.prompt.value == "make it faster"
        await find_and_open(pilot, app, "inventory")
        assert app.path.resolve() == (project / "inventory.py").resolve()
        await wait_until(pilot, lambda: app.session is not None and app.status.connection == "ready", what="ready")
        await send_until_review(pilot, app)
        assert app.session.live.hunk_count == 2


async def test_opening_a_cited_place_shows_its_line(project, backends):
    """A `path:line` the finder lists (an answer's place) opens with that line a third of the way
    down the view: the view the file had (its top) is restored first, then the place is shown."""
    (project / "pkg" / "long.py").write_text("".join(f"X_{i} = {i}\n" for i in range(300)))
    b = await backends()
    app = replay_app(project / "inventory.py", b)
    async with app.run_test(size=(100, 34)) as pilot:
        await app.workspace.open_place("pkg/long.py", 250)
        await pilot.pause()
        await pilot.pause()
        assert app.path.name == "long.py"
        assert app.code.cursor_line == 249
        top = int(app.code.scroll_offset.y)
        assert 249 - top == app.code.size.height // 3, (top, app.code.size.height)  # a third of the way down
