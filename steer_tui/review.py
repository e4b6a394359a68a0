"""The proposal after its turn: accept (all or one hunk) through Document, reject, undo/redo
(steer_tui.journal), and a file changed on disk: the proposal carried over (steer_tui.edits.rebase) or a conflict."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from steer_tui.edits.lines import document_lines, join_lines, unified_diff
from steer_tui.edits.rebase import carry_over
from steer_tui.events import Applied, NoticeCode
from steer_tui.journal import Journal
from steer_tui.state import GENERATING, IDLE

if TYPE_CHECKING:
    from steer_tui.port import SessionPort


class Review:
    """The session's proposal against the file on disk. Never overwrites a change made elsewhere:
    `conflict` says why accept is blocked."""

    def __init__(self, session: "SessionPort"):
        self.session = session
        self.journal = Journal()
        self.conflict: str | None = None  # why accept is blocked (the file changed under the proposal)
        self.final_nl = document_lines(session.document.text)[1]  # whether the file ends with a newline
        # The file changed on disk while generating: re-located when the turn ends. Not a session
        # state: the turn goes on streaming exactly as it would without it.
        self.changed_while_generating = False
        self._syntax_key: tuple | None = None
        self._syntax = None

    def proposed_text(self) -> str:
        """The file's text with every pending hunk applied."""
        return join_lines(self.session.live.new_lines(), self.final_nl)

    def checked_syntax(self, new_text: str | None = None):
        """steer_tui.edits.syntax.check of the live proposal (whose text is `new_text` when the caller
        has it), kept per proposal version: the turn's verdict computes the one review reads."""
        s = self.session
        key = (s.live.version, s.document.digest)
        if self._syntax_key != key:
            from steer_tui.edits.syntax import check

            if new_text is None:
                new_text = self.proposed_text()
            self._syntax_key, self._syntax = key, check(s.document.path, s.document.text, new_text, self.pending_hunks())
        return self._syntax

    def can_accept(self) -> bool:
        s = self.session
        if s.state is GENERATING:
            s.notice("warning", NoticeCode.BUSY, "still generating: stop first (Esc)")
            return False
        if self.conflict:
            s.notice("error", NoticeCode.CONFLICT, f"cannot accept: {self.conflict}")
            return False
        if not s.has_proposal:
            s.notice("info", NoticeCode.NOTHING_TO_ACCEPT, "nothing to accept")
            return False
        return True

    def accept_all(self) -> bool:
        """Write every pending hunk to the file (atomically, through Document)."""
        s = self.session
        if not self.can_accept():
            return False
        if not self.write("accept", self.proposed_text(), s.live.hunk_count):
            return False
        self.rebase_to_document([])
        s.set_state(IDLE)
        return True

    def accept_hunk(self, i: int) -> bool:
        s = self.session
        if not self.can_accept():
            return False
        hunks = s.live.hunks()
        if not 0 <= i < len(hunks):
            return False
        h = hunks[i]
        lines = s.live.lines
        new_lines = lines[: h.start] + list(h.new) + lines[h.end :]
        shift = len(h.new) - (h.end - h.start)
        rest = [(x.start + (shift if x.start >= h.end else 0), x.end + (shift if x.start >= h.end else 0), list(x.new))
                for x in hunks if x.index != i]
        if not self.write("accept_hunk", join_lines(new_lines, self.final_nl), 1):
            return False
        self.rebase_to_document(rest)
        s.set_state(s.state if rest else IDLE)
        return True

    def reject_hunk(self, i: int) -> bool:
        s = self.session
        if s.state is GENERATING or not 0 <= i < s.live.hunk_count:
            return False
        s.live.remove_index(i)
        s.proposal_changed()
        if not s.has_proposal:
            self.conflict = None
            s.set_state(IDLE)
        return True

    def reject_all(self) -> bool:
        s = self.session
        if s.state is GENERATING:
            return False
        self.discard()
        s.set_state(IDLE)
        return True

    def discard(self, quiet: bool = False) -> None:
        """Drop the proposal (and a conflict over it); `quiet`: tell no listener (a retry follows)."""
        s = self.session
        s.live.clear()
        answer = s.turn.answer if s.turn is not None else None
        if answer is not None:
            answer.blocks = {}
        self.conflict = None
        if not quiet:
            s.proposal_changed()

    # ------------------------------------------------------------ writing, undo

    def write(self, action: str, new_text: str, hunks: int) -> bool:
        """Write `new_text` through Document (atomic; refused if the disk changed meanwhile)."""
        from steer_tui.files import DocumentError, FileChangedError

        s = self.session
        before = s.document.text
        try:
            s.document.write(new_text)
        except DocumentError as exc:
            s.notice("error", NoticeCode.WRITE_FAILED, f"not written: {exc}")
            if isinstance(exc, FileChangedError):
                self.file_changed()
            return False
        if action in ("accept", "accept_hunk"):
            self.journal.record(action, before, new_text)
        s.emit(Applied(action, unified_diff(s.path, before, new_text), hunks))
        return True

    def undo(self) -> bool:
        s = self.session
        entry = self.journal.undo_entry
        if s.state is GENERATING or entry is None:
            return False
        if s.document.text != entry.after:
            s.notice("error", NoticeCode.JOURNAL_STALE, "cannot undo: the file changed since that edit")
            return False
        pending = self.pending_hunks()
        if not self.write("undo", entry.before, 1):
            return False
        self.journal.undone()
        self.rebase(entry.after, pending)
        return True

    def redo(self) -> bool:
        s = self.session
        entry = self.journal.redo_entry
        if s.state is GENERATING or entry is None:
            return False
        if s.document.text != entry.before:
            s.notice("error", NoticeCode.JOURNAL_STALE, "cannot redo: the file changed since")
            return False
        pending = self.pending_hunks()
        if not self.write("redo", entry.after, 1):
            return False
        self.journal.redone()
        self.rebase(entry.before, pending)
        return True

    # ------------------------------------------------------------ the file changed

    def file_changed(self) -> bool:
        """The file may have changed on disk (watchfiles). Returns True if it really did.

        Our own writes leave the disk equal to the Document, so they are ignored. A pending
        proposal is re-located against the new text, or marked as a conflict that blocks accept.
        """
        from steer_tui.files import Document, DocumentError

        s = self.session
        new = getattr(s.document, "is_new", False)
        if new and not os.path.lexists(s.document.path):
            return False  # a new file not written yet: nothing on disk is expected
        if not os.path.exists(s.document.path):
            if s.has_proposal:
                self.conflict = "the file was deleted on disk"
            s.notice("error", NoticeCode.FILE_DELETED, "the file was deleted on disk")
            return True
        try:
            fresh = Document.read(s.document.path)
        except DocumentError as exc:
            s.notice("error", NoticeCode.FILE_UNREADABLE, f"cannot read the changed file: {exc}")
            return True
        if fresh.digest == s.document.digest and not new:
            return False
        if s.state is GENERATING:
            # Re-locating while blocks stream in would move them under the parser: do it at the end.
            self.changed_while_generating = True
            s.notice("warning", NoticeCode.FILE_CHANGED,
                      "the file changed on disk; the proposal will be re-located when the answer ends")
            return True
        old_text = s.document.text
        pending = self.pending_hunks()
        try:
            # Update in place: the UI holds this very Document.
            s.document.reload()
        except DocumentError as exc:
            s.notice("error", NoticeCode.FILE_UNREADABLE, f"cannot read the changed file: {exc}")
            return True
        self.rebase(old_text, pending)
        return True

    def turn_ended(self) -> None:
        """Carry the proposal over a change of the file that came while generating."""
        if self.changed_while_generating:
            self.changed_while_generating = False
            self.file_changed()

    def pending_hunks(self) -> list[tuple[int, int, list[str]]]:
        return [(h.start, h.end, list(h.new)) for h in self.session.live.hunks()]

    def rebase_to_document(self, hunks) -> None:
        """After a write of ours: the live diff starts from the document's text, with `hunks` still pending."""
        s = self.session
        lines, self.final_nl = document_lines(s.document.text)
        s.live.reset(lines, hunks)
        s.proposal_changed()
        s.prewarm()

    def rebase(self, old_text: str, pending: list[tuple[int, int, list[str]]]) -> None:
        """The document's text changed from old_text: carry the pending hunks over, or conflict."""
        s = self.session
        new_lines, self.final_nl = document_lines(s.document.text)
        moved = carry_over(document_lines(old_text)[0], new_lines, pending)
        try:
            if moved is None:
                raise ValueError("a hunk no longer fits")
            s.live.reset(new_lines, moved)
            if pending:
                s.notice("info", NoticeCode.RELOCATED, "the file changed; the proposal was re-located")
            self.conflict = None
        except ValueError:  # a hunk lost, or two that now overlap
            s.live.reset(new_lines, [])
            self.conflict = "the file changed on disk and the proposal no longer fits it"
            s.notice("error", NoticeCode.CONFLICT, self.conflict + " (reject it or ask again)")
        s.proposal_changed()
        s.prewarm()  # the file the model saw changed: cache the new one
