"""The files open in the app: each one's record, the one shown, its session started on the shared backend connection, and switching between them."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from steer_tui.state import State
from steer_tui.ui.messages import FileShown
from steer_tui.ui.open_files import OpenFile, ViewState, relative_label

if TYPE_CHECKING:
    from steer_tui.ui.host import SteerHost

_PLACE = re.compile(r"^(.+):(\d+)$")  # a place the finder gives back: "path:line"


class Workspace:
    """Owns the open files (`OpenFile` records, by resolved path) and which one is shown; the app's
    `path`, `document` and `session` are the shown file's. One backend connection serves every
    file: the first session opens it, the others wait for it and share it."""

    def __init__(self, app: "SteerHost") -> None:
        self.app = app
        self.records: dict[Path, OpenFile] = {}
        self.current: OpenFile | None = None
        self.backend_owner: OpenFile | None = None  # the file whose session opened the shared backend
        self.backend_started: asyncio.Event | None = None

    @property
    def open_files(self) -> list[OpenFile]:
        """The files opened so far, in the order they were first opened."""
        return list(self.records.values())

    def pending_question(self) -> str:
        """What quitting must ask first: the proposals pending in the open files ("" for none)."""
        pending = [r for r in self.records.values() if r.session is not None and r.session.has_proposal]
        if not pending:
            return ""
        if pending == [self.current]:
            return "A proposal is pending and has not been accepted.\nQuit anyway and drop it?"
        names = ", ".join(relative_label(r.path.resolve(), self.app.project_root) for r in pending)
        return f"Proposals are pending and have not been accepted: {names}.\nQuit anyway and drop them?"

    def quit(self) -> None:
        """Leave the app, asking first while a proposal is pending (pending_question)."""
        app = self.app
        question = self.pending_question()
        if not question or app.quitting:
            app.exit()
            return
        from steer_tui.ui.screens.confirm import ConfirmScreen

        def answer(ok: bool | None) -> None:
            if ok:
                app.quitting = True
                app.exit()

        app.push_screen(ConfirmScreen(question, yes="Quit", no="Stay"), answer)

    def record_for(self, path: Path) -> OpenFile:
        """The record of `path` (made on first use); the status line names it."""
        app = self.app
        key = path.resolve()
        record = self.records.get(key)
        if record is None:
            record = self.records[key] = OpenFile(path)
        app.status.file = relative_label(key, app.project_root)
        app.sub_title = app.status.file
        return record

    def show_no_file(self) -> None:
        app = self.app
        lines = ["", f"  No file is open in {app.project_root}.", "",
                 "  Ctrl+P finds a file of the project by name (type > first for the command palette).",
                 "  steer FILE opens one from the command line; a new name creates it on the first accepted edit."]
        app.code.set_document(lines, "")
        app.status.file = "no file"

    def open_document(self, document=None) -> None:
        """Read the shown file into the view (a path that does not exist yet is a new file);
        `document`: the file already read (_opened)."""
        app = self.app
        document = document if document is not None else self._opened(app.path)
        if document is None:
            return
        app.document = document
        if self.current is not None:
            self.current.document = app.document
        if app.document.is_new:
            app.notify(f"{app.path.name} is a new file: say what to write; accepting creates it", timeout=8)
            app.applier.show_extra()
        text = app.document.text
        app.applier.show_lines(text.split("\n")[:-1] if text.endswith("\n") else text.split("\n") if text else [])

    def changed_on_disk(self, path: Path) -> None:
        """The watcher saw the shown file change: the session takes it in (our own writes are no change)."""
        app = self.app
        if app.path is None or path != app.path.resolve():
            return  # said of a file no longer shown: it is checked again when shown
        if app.session is None:
            self.open_document()
            return
        if app.session.file_changed():
            app.notify(f"{app.path.name} changed on disk; reloaded", timeout=4)
        app.flush_now()  # a call, not a message: the review below starts from the reloaded hunks
        app.applier.after_state_change()

    def reload(self) -> None:
        """Read the shown file from disk again (its session takes the change in, as from the watcher)."""
        app = self.app
        if app.session is not None:
            app.session.file_changed()
            app.flush_now()
        elif app.path is not None:
            self.open_document()

    # ----- sessions ---------------------------------------------------------------------------

    def start_session(self) -> None:
        """Start the shown file's session (in the "session" worker group), unless it has one."""
        record = self.current
        if record is None or record.document is None or record.session is not None or record.starting:
            return
        record.starting = True
        self.app.run_worker(self._run_session(record), group="session", exit_on_error=False)

    def _events_of(self, record: OpenFile) -> Callable:
        """The session's event callback: a file not shown keeps its events to itself (coming back
        redraws from its session), except what is said of the shared connection and its notices."""
        from steer_tui.events import ConnectionChanged, Notice

        add = self.app.frames.add

        def on_event(ev) -> None:
            if record is self.current or isinstance(ev, (ConnectionChanged, Notice)):
                add(ev)

        return on_event

    async def _shared_client(self, record: OpenFile):
        """The backend connection `record`'s session uses: the app's given one, else the first
        session's once it is up (None: this session opens it)."""
        client = self.app.given_client
        owner = self.backend_owner
        if client is None and owner is not None and owner is not record:
            if self.backend_started is not None:
                await self.backend_started.wait()
            client = owner.session.client if owner.session is not None else None
        return client

    async def _run_session(self, record: OpenFile) -> None:
        from steer_tui.session import Session, SessionError

        app = self.app
        factory = app.session_factory or Session
        client = await self._shared_client(record)
        opens_backend = client is None
        if opens_backend:
            self.backend_owner = record
            self.backend_started = asyncio.Event()
        try:
            session = factory(record.document, app.settings, self._events_of(record), client=client)
            session.context = _project_context(record.document.path, app.settings)
        except Exception as exc:  # a bad setting: show it, keep the file usable
            record.starting = False
            if opens_backend:
                self.backend_started.set()
            app.status.connection = "error"
            app.notify(f"cannot start the session: {exc}", severity="error", timeout=10)
            return
        record.session = session
        record.starting = False
        if record is self.current:
            app.session = session
            app.applier.sync_code(force=True)
        try:
            await session.start()
        except SessionError as exc:
            app.status.connection = "error"
            app.status.detail = exc.code
            app.notify(f"no backend: {exc.message}", severity="error", timeout=15)
        except Exception as exc:
            app.status.connection = "error"
            app.notify(f"no backend: {exc}", severity="error", timeout=15)
        finally:
            if opens_backend:
                self.backend_started.set()
        app.refresh_bindings()

    def sessions_to_close(self) -> list:
        """Every file's session, the one that opened the shared backend last (closing it closes that)."""
        owner = self.backend_owner.session if self.backend_owner is not None else None
        sessions = [r.session for r in self.records.values() if r.session is not None and r.session is not owner]
        shown = self.app.session
        if shown is not None and shown not in sessions and shown is not owner:
            sessions.append(shown)
        return [*sessions, *([owner] if owner is not None else [])]

    async def close_sessions(self) -> None:
        """Close every file's session (the app closes), each within 3 s."""
        for session in self.sessions_to_close():
            try:
                await asyncio.wait_for(session.close(), 3)
            except Exception:
                pass

    # ----- finding a file, switching -------------------------------------------------------------

    def find_file(self) -> None:
        """Ctrl+P: the finder over the project's files (the answer's cited places first)."""
        from steer_tui.ui.screens.finder import FinderScreen  # not needed for the first frame

        app = self.app
        if isinstance(app.screen, FinderScreen):
            return

        def chosen(rel: str | None) -> None:
            if rel is None:
                return
            place = _PLACE.match(rel)
            if place is not None and not (app.project_root / rel).is_file():
                app.call_later(self.open_place, place.group(1), int(place.group(2)))
            else:
                app.call_later(self.open_file, app.project_root / rel)

        app.push_screen(FinderScreen(app.files, references=self.cited_places()), chosen)

    def cited_places(self) -> list[tuple[str, int]]:
        """The project's `path:line` places the answer on screen cites (the finder lists them first)."""
        app = self.app
        if not app.answer.visible:
            return []
        cited = []
        for path, line in app.answer_flow.cited():
            full = (app.project_root / path) if not Path(path).is_absolute() else Path(path)
            if full.is_file():
                cited.append((relative_label(full.resolve(), app.project_root), line))
        return cited

    async def open_place(self, path: str, line: int) -> None:
        """Open `path` (relative to the project root) with the cursor on `line` (1-based)."""
        app = self.app
        await self.open_file(path)
        current = self.current
        if current is not None and current.path.resolve() == (app.project_root / path).resolve() and app.code.lines:
            # after the refresh: the switch puts the file's saved scroll back then, which would hide the line
            app.call_after_refresh(app.code.show_line, max(0, min(line - 1, len(app.code.lines) - 1)))

    async def open_file(self, path: str | Path) -> None:
        """Show `path` (relative: to the project root), opening it if it is not open yet. The file
        shown keeps its session as it is (a proposal under review waits there); a turn it is writing
        or an answer streaming is asked about first: stop it and switch, or stay."""
        app = self.app
        path = Path(path)
        if not path.is_absolute():
            path = app.project_root / path
        current = self.current
        if current is not None and current.path.resolve() == path.resolve():
            return
        generating = app.session_state() == State.GENERATING
        if generating or (app.asking is not None and app.asking.active):
            from steer_tui.ui.screens.confirm import ConfirmScreen

            # A question's answer is no proposal: it was about this file, and closes with it.
            what, kept = (("An edit is being written", "what is complete stays as the proposal") if generating
                          else ("A question is being answered", "its answer closes"))

            def answer(ok: bool | None) -> None:
                if ok:
                    app.call_later(self._stop_and_switch, path)

            app.push_screen(ConfirmScreen(f"{what} in {app.status.file}.\nStop it ({kept}) and open "
                                          f"{relative_label(path.resolve(), app.project_root)}?",
                                          yes="Stop and open", no="Stay"), answer)
            return
        self.switch_to(path)

    async def _stop_and_switch(self, path: Path) -> None:
        await self.app.action_stop()  # awaited, not a message: the switch must see the stream stopped
        self.switch_to(path)

    def switch_to(self, path: Path) -> None:
        """Show `path` now: the view of the file shown is kept in its record, the new one's restored."""
        app = self.app
        known = self.records.get(path.resolve())
        opened = None
        if self.current is not None and (known is None or known.document is None):
            opened = self._opened(path)
            if opened is None:
                return  # the file shown stays, its view as it was; the toast says why the other cannot open
        app.flush_now()  # what the file shown has pending is drawn before it goes
        if app.queued is not None:
            # A call, not a message: still queued after the switch, the words would go to the next file's session.
            app.sender.queue.take_back("another file was opened")
        code = app.code
        if self.current is not None:
            self.current.view = ViewState.of(code, app.view_mode, app.current_hunk)
        if app.answer.visible:
            app.answer.close()  # the answer was about the other file
        record = self.record_for(path)
        self.current = record
        app.path, app.document, app.session = record.path, record.document, record.session
        app.typing_prewarmer = None  # the typing prewarm belongs to the session shown
        view = record.view
        app.view_mode, app.current_hunk = view.view_mode, view.current_hunk
        code.set_source(None)
        code.anchor = None
        if record.document is None:
            self.open_document(opened)
            if app.document is None:
                self.show_no_file()
                app.status.file = relative_label(path.resolve(), app.project_root)
                app.refresh_bindings()
                return
        if app.session is not None:
            # Not watched while it was not shown: it may have changed on disk meanwhile.
            if app.session.file_changed():
                app.notify(f"{app.path.name} changed on disk; reloaded", timeout=4)
            app.flush_now()
            app.applier.sync_code(force=True)
        elif app.connects:
            self.start_session()
        self._restore_view(view)
        app.post_message(FileShown(app.path))

    def _opened(self, path: Path):
        """`path` read as a document (steer_tui.files.Document; a new path is one), or None after a
        toast saying why it cannot be."""
        from steer_tui.files import Document, DocumentError

        try:
            return Document.open(path)
        except (DocumentError, OSError) as exc:
            self.app.notify(f"cannot open {exc}", severity="error", timeout=10)
            return None

    def _restore_view(self, view: ViewState) -> None:
        app = self.app
        code = app.code
        code.cursor_line = min(view.cursor_line, max(0, len(code.lines) - 1))
        code.anchor = view.anchor if view.anchor is not None and view.anchor < len(code.lines) else None
        code.cursor_placed = view.cursor_placed
        code.follow = view.follow
        code.growing = app.session_state() == State.GENERATING
        code.invalidate()
        app.call_after_refresh(code.scroll_back_to, *view.scroll)
        status = app.status
        status.state = app.session_state()
        status.set_numbers(None, None, None)
        app.applier.after_state_change()


def _project_context(path, settings):
    """The open file's project context (steer_tui/project/session_context.py): the project's one
    index, shared by the files open in it, built in the background and kept current."""
    from steer_tui.project.session_context import for_file

    return for_file(path, settings, watch=True, shared=True) if path is not None else None
