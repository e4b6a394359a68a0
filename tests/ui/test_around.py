"""Pilot tests around the edit: external changes, lost connection, tests panel, quit, help, palette, views."""

from __future__ import annotations

import sys

from steer_tui import prompts
from steer_tui.ui.app import ACTIONS, make_app

from .conftest import replay_app, settings, wait_paused, wait_until
from .test_flow import send, send_until_review

# What a rewrite turn's message says before its region block (prompts.message_opening).
REWRITE_OPENS = prompts.message_opening(prompts.REWRITE, None, None)


async def test_external_change_during_review_relocates_the_proposal(sample, backends):
    b = await backends()
    app = replay_app(sample, b, watch=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await send_until_review(pilot, app)
        # Someone adds a line at the top: the hunks move down by one, nothing conflicts.
        sample.write_text("# edited elsewhere\n" + sample.read_text())
        await wait_until(pilot, lambda: app.code.lines[:1] == ["# edited elsewhere"], what="the view to reload")
        assert app.session.conflict is None
        assert app.session.live.hunk_count == 2
        assert app.check_action("accept_all", ())
        await pilot.press("ctrl+y")
        await pilot.pause()
        text = sample.read_text()
        assert text.startswith("# edited elsewhere\n") and "total = 0.0" in text


async def test_external_change_that_breaks_the_proposal_is_a_conflict(sample, backends):
    b = await backends()
    app = replay_app(sample, b, watch=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await send_until_review(pilot, app)
        changed = sample.read_text().replace("    def total_value(self):\n        total = 0\n",
                                             "    def total_value(self):\n        total = sum([])\n")
        sample.write_text(changed)
        await wait_until(pilot, lambda: app.session.conflict is not None, what="a conflict")
        assert "CONFLICT" in app.status.extra
        assert not app.check_action("accept_all", ())
        await pilot.press("ctrl+y")  # blocked: the external change is never overwritten
        await pilot.pause()
        assert sample.read_text() == changed
        assert "        total = sum([])" in app.code.lines


async def test_our_own_write_does_not_reload_or_notify(sample, backends):
    b = await backends()
    app = replay_app(sample, b, watch=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await send_until_review(pilot, app)
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: "total = 0.0" in sample.read_text(), what="the accept")
        await pilot.pause(1.0)  # long enough for the watcher (300 ms debounce) to report our write
        assert not any("changed on disk" in n.message for n in app._notifications)
        assert app.session.file_changed() is False  # the disk equals what we wrote


async def test_connection_lost_mid_stream_and_back(sample, backends):
    from .conftest import PAUSE_MID_SECOND_BLOCK

    b = await backends(pause_at=PAUSE_MID_SECOND_BLOCK)
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, app)
        await wait_paused(pilot, app, b)
        await b.drop()
        await wait_until(pilot, lambda: app.status.connection == "lost", what="connection lost")
        assert app.status.state == "interrupted"
        # the complete first block survives as the proposal; the file is untouched
        assert app.session.live.hunk_count == 1
        # the gateway comes back; the next instruction reconnects and streams again
        await b.restart()
        app.prompt.value = "try again"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.status.state == "review", what="review after reconnect")
        assert app.status.connection == "ready"
        assert app.session.live.hunk_count == 2


async def test_no_backend_is_shown_and_the_file_stays_usable(sample):
    s = settings(backend="ws://127.0.0.1:9/v1/responses")
    app = make_app(sample, s, watch=False, mask_timings=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: app.status.connection == "error", what="the backend error")
        assert app.code.row_count == len(sample.read_text().splitlines())
        app.prompt.value = "do something"
        await pilot.press("enter")
        assert app.prompt.value == "do something"  # what the user wrote is kept
        await pilot.press("tab", "down", "down")
        assert app.code.cursor_line == 2


async def test_ctrl_t_runs_the_test_command_only_when_asked_and_sends_the_failure(sample, backends, tmp_path):
    marker = tmp_path / "ran"
    command = f"{sys.executable} -c \"open(r'{marker}','w').write('x'); print('FAILED test_total'); raise SystemExit(1)\""
    b = await backends()
    app = replay_app(sample, b, test_command=command)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: app.status.connection == "ready", what="connection")
        await pilot.pause(0.3)
        assert not marker.exists()  # nothing runs on its own
        assert not app.check_action("fix_tests", ())
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: app.tests.returncode is not None, what="the test command")
        assert marker.exists()
        assert app.tests.has_class("-visible")
        assert "FAILED test_total" in app.tests.output
        assert app.check_action("fix_tests", ())
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: app.status.state == "review", what="the model's answer to the failure")
        assert "FAILED test_total" in app.session.instruction


async def test_ctrl_t_without_a_command_says_so(sample, backends):
    b = await backends()
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert any("no test command" in n.message for n in app._notifications)
        assert app.tests.command is None


async def test_ctrl_t_offers_the_command_the_project_names_and_runs_it_only_on_yes(sample, backends):
    """No test_command configured, but the project configures pytest: Ctrl+T asks before running
    it, in the project's root; "no" runs nothing; once said yes to, Ctrl+T runs it again unasked."""
    root = sample.parent
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\ntestpaths = ['tests']\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_marker.py").write_text(
        "import pathlib\n\n\ndef test_marker():\n    pathlib.Path('ran-here').write_text('x')\n")
    b = await backends()
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", what="the question")
        assert "python -m pytest -q" in app.screen.question and "pyproject.toml configures pytest" in app.screen.question
        await pilot.press("n")
        await pilot.pause(0.3)
        assert app.tests.command is None and not (root / "ran-here").exists()
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen", what="the question again")
        await pilot.press("y")
        await wait_until(pilot, lambda: app.tests.returncode is not None, what="the test command", timeout=60)
        assert app.tests.command == "python -m pytest -q"
        if app.tests.returncode == 0:  # python on PATH has pytest (CI's venv): it ran in the project's root
            assert (root / "ran-here").exists()


async def test_quit_with_a_pending_proposal_asks_first(sample, backends):
    b = await backends()
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await send_until_review(pilot, app)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmScreen"
        await pilot.press("n")
        await pilot.pause()
        assert type(app.screen).__name__ == "Screen" and app.is_running
        assert app.session.live.hunk_count == 2
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
    assert app.return_code == 0


async def test_quit_without_a_proposal_does_not_ask(sample, backends):
    b = await backends()
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0


async def test_help_lists_every_key_and_palette_every_action(sample, backends):
    b = await backends()
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen"
        listed = " ".join(k for _, keys in app.help_sections() for k, _ in keys)
        for key in ("Ctrl+y", "Ctrl+n", "Ctrl+z", "Ctrl+r", "Ctrl+t", "Ctrl+q", "escape", "Alt+down", "Alt+y",
                    "Enter", "Ctrl+P", "f1", "Ctrl+k", "Ctrl+d", "?question"):
            assert key in listed, key
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "Screen"
        # with a proposal pending every action is offered by the palette
        await send_until_review(pilot, app)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for action, title, _ in ACTIONS:
            if action in ("stop", "fix_tests", "toggle_tests", "follow", "redo", "undo", "clear_selection",
                          "take_back", "ask", "do_it", "close_answer"):
                continue  # offered only when they apply (checked below / elsewhere: test_ask, test_queue)
            assert title in titles or action in ("quit", "help"), title
        assert "Stop generating" not in titles
        app.prompt.value = "what does add do"
        await pilot.pause()
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert "Ask about the code" in titles  # words in the prompt: they can be asked


async def test_toggle_view_shows_unified_diff_then_raw_text(sample, backends):
    b = await backends()
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await send_until_review(pilot, app)
        await pilot.press("ctrl+o")
        src = app.code.source
        texts = [src.row(i).text for i in range(src.row_count)]
        assert app.view_mode == "diff" and any(t.startswith("@@") for t in texts)
        assert '+        total = 0.0' in texts
        await pilot.press("ctrl+o")
        src = app.code.source
        texts = [src.row(i).text for i in range(src.row_count)]
        assert app.view_mode == "raw" and "<<<<<<< SEARCH" in texts
        await pilot.press("ctrl+o")
        assert app.view_mode == "file" and app.code.source is app.session.live


async def test_prompt_history_up_down_keeps_the_draft(sample, backends):
    b = await backends()
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, app, "first")
        await wait_until(pilot, lambda: app.status.state == "review", what="review")
        await pilot.press("ctrl+n")
        await send(pilot, app, "second")
        await wait_until(pilot, lambda: app.status.state == "review", what="review")
        app.prompt.value = "draft"
        await pilot.press("up")
        assert app.prompt.value == "second"
        await pilot.press("up")
        assert app.prompt.value == "first"
        await pilot.press("down", "down")
        assert app.prompt.value == "draft"


async def test_selection_by_keyboard_and_mouse_scopes_the_edit(sample, backends):
    b = await backends()
    sent = []
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: app.session is not None and app.status.connection == "ready", what="ready")
        real_send = app.session.send

        async def spy(instruction, region=None, **kw):
            sent.append(region)
            await real_send(instruction, region, **kw)

        app.session.send = spy
        await pilot.press("tab")
        for _ in range(16):
            await pilot.press("down")
        await pilot.press("shift+down", "shift+down", "shift+down")
        assert app.code.selection == (16, 20)
        await pilot.press("tab")
        app.prompt.value = "validate"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.status.state == "review", what="review")
        assert sent[-1] == (16, 20)
        await pilot.press("ctrl+n")
        # mouse: drag over lines 3..6 (rows 2..5 on screen, file starts at the top)
        code = app.code
        code.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        await pilot.mouse_down(code, offset=(10, 2))
        await pilot.hover(code, offset=(10, 5))
        await pilot.mouse_up(code, offset=(10, 5))
        assert code.selection == (2, 6)
        # Esc clears the selection when nothing is generating; then the cursor's block is the region
        await pilot.press("escape")
        assert code.selection is None
        code.cursor_line = 29  # inside total_value()
        assert code.cursor_placed
        assert app.region_for_send()[0] <= 29 < app.region_for_send()[1]


async def test_cursor_region_is_the_enclosing_top_level_block(sample, backends):
    app = make_app(sample, settings(backend="ws://127.0.0.1:9/v1/responses"), watch=False, connect=False)
    async with app.run_test(size=(100, 40)):
        lines = app.code.lines
        assert app.region_for_send() is None  # the cursor was never placed: the whole file
        app.code.cursor_placed = True
        app.code.cursor_line = lines.index("        total = 0")
        start, end = app.region_for_send()
        assert lines[start] == "@dataclass" and lines[start + 1] == "class Inventory:"
        assert lines[end - 1].strip() == "return min(self.items.values(), key=lambda item: item.price)"


async def test_output_printed_while_running_does_not_break_the_app(sample, backends):
    """A library that warns on stderr or prints while the app runs: Textual captures it and
    calls the app's flush hook; the app must keep working and keep its own pending updates."""
    import sys

    b = await backends()
    app = replay_app(sample, b)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: app.session is not None and app.status.connection == "ready",
                         what="connection")
        print("a library's message", file=sys.stderr, flush=True)
        print("a stray print", flush=True)
        app.prompt.value = "validate quantity"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.status.state == "review", what="review")
        assert app.session.live.hunk_count == 2


async def test_cursor_resting_in_a_block_prewarms_it_as_the_next_region(sample, backends):
    """Rewrite format: the cursor rests in a function, so the engine evaluates that function's
    block ahead; the turn sent from there opens with exactly that block (only the instruction
    is left to evaluate). Moving inside the same block does not prewarm again."""
    b = await backends()
    prewarms: list[list[dict]] = []
    turns: list[list[dict]] = []
    original = b.engine.stream

    def recording(request, cancel):
        (turns if request.generate else prewarms).append(request.messages)
        return original(request, cancel)

    b.engine.stream = recording
    app = replay_app(sample, b, edit_format="rewrite")
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: app.session is not None and app.status.connection == "ready",
                         what="connection")
        await wait_until(pilot, lambda: len(prewarms) == 1, what="the file prewarm")
        assert "Region" not in prewarms[0][-1]["content"]
        app.code.action_move_to(30)  # in total_value: the block is the top-level class around it
        await wait_until(pilot, lambda: len(prewarms) == 2, what="the block prewarm")
        block = prewarms[1][-1]["content"]
        assert block.startswith(REWRITE_OPENS + "Region (lines 13-36):") and "class Inventory:" in block
        app.code.action_move_to(20)  # the same block
        await pilot.pause(0.6)
        assert len(prewarms) == 2
        app.code.action_move_to(39)  # parse_line: another block
        await wait_until(pilot, lambda: len(prewarms) == 3, what="the other block's prewarm")
        assert prewarms[2][-1]["content"].startswith(REWRITE_OPENS + "Region (lines 39-41):")
        app.code.action_move_to(30)
        await wait_until(pilot, lambda: len(prewarms) == 4, what="the class prewarm again")
        app.prompt.value = "use sum()"
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(turns) == 1, what="the turn")
        assert turns[0][-1]["content"].startswith(block)


async def test_status_names_the_model_a_gateway_url_serves(sample, backends):
    from steer_tui.config import Settings
    from steer_tui.transport.backends import open_backend, resolve_backend

    b = await backends()
    client = await open_backend(resolve_backend(Settings(backend=b.url)))
    app = make_app(sample, settings(backend=b.url, model=None), client=client, watch=False, mask_timings=True)
    try:
        async with app.run_test(size=(100, 40)) as pilot:
            await wait_until(pilot, lambda: app.status.connection == "ready", what="connection")
            assert app.status.backend == f"{b.url} · replay"
    finally:
        await client.close()


async def test_a_refused_edit_is_said_once(sample, backends):
    """The turn's notice says how it ended; the app adds no second toast that repeats it."""
    b = await backends("<<<<<<< SEARCH\n    def nowhere(self):\n=======\n    def nowhere(self, x):\n>>>>>>> REPLACE\n")
    app = replay_app(sample, b)
    before = sample.read_text()
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, app)
        await wait_until(pilot, lambda: app.session.last_result is not None, what="the turn to end")
        app.flush_now()
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        ended = [m for m in messages if "refused" in m]
        assert len(ended) == 1 and ended[0].startswith("edit refused, nothing changed:"), messages
        assert sample.read_text() == before
