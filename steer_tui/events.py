"""The typed events a Session sends its listener (the app, `steer edit`), and what a turn's end reports.

Listeners dispatch on these classes (`match ev:` / isinstance), never on their names.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from steer_tui.state import State


class NoticeCode(StrEnum):
    """What a Notice is about, so a listener can pick notices without reading their text."""

    PREWARM_FAILED = "prewarm_failed"
    REDIRECTED = "redirected"
    REDIRECT_FAILED = "redirect_failed"
    RETRY_NO_CHANGE = "retry_no_change"  # the answer changed nothing: asked again
    RETRY_REFUSED = "retry_refused"  # the answer did not apply: its feedback went back to the model
    NO_CHANGE = "no_change"  # verdict: the answers changed nothing
    REFUSED = "refused"  # verdict: the edit could not be applied
    NOTHING = "nothing"  # verdict: nothing to change
    ERROR = "error"  # the turn failed (backend error)
    SERVER = "server"  # a notice the server sent
    SYNTAX = "syntax"  # the proposal breaks the file's Python syntax
    UNUSED = "unused"  # the proposal gives a function a parameter it never reads
    UNDEFINED = "undefined"  # the proposal reads a Python name nothing defines
    MEMBER = "member"  # the proposal reads a member a project module does not have
    LOGGING_ARGS = "logging_args"  # the proposal's log call has arguments its message has no placeholder for
    CLASS_DOC_ONLY = "class_doc_only"  # asked for a class's docstring, the answer changed more: only it is kept
    CLASS_DOC_AGAIN = "class_doc_again"  # the class's docstring repeated the module's: asked again, saying what to write
    BUSY = "busy"  # an action that waits for the turn to stop
    CONFLICT = "conflict"  # the file changed under the proposal
    NOTHING_TO_ACCEPT = "nothing_to_accept"
    WRITE_FAILED = "write_failed"
    JOURNAL_STALE = "journal_stale"  # undo/redo refused: the file changed since
    FILE_DELETED = "file_deleted"
    FILE_UNREADABLE = "file_unreadable"
    FILE_CHANGED = "file_changed"  # changed while generating: re-located when the answer ends
    RELOCATED = "relocated"


VERDICTS = frozenset({NoticeCode.NO_CHANGE, NoticeCode.REFUSED, NoticeCode.NOTHING})  # a turn's final word


@dataclass(frozen=True, slots=True)
class StateChanged:
    state: State
    previous: State


@dataclass(frozen=True, slots=True)
class ProposalUpdated:
    """The live diff changed: redraw `live.changed_since(last drawn version)`."""

    version: int
    hunks: int
    cursor_row: int | None  # the row being written (follow it unless the user scrolled away)


@dataclass(frozen=True, slots=True)
class Stats:
    ttft_s: float | None
    tokens: int
    tokens_per_s: float | None
    elapsed_s: float
    final: bool = False


@dataclass(frozen=True, slots=True)
class Notice:
    level: str  # info | warning | error
    text: str
    code: NoticeCode


@dataclass(frozen=True, slots=True)
class ConnectionChanged:
    state: str  # connecting | loading | ready | lost | closed | error
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Applied:
    """The file on disk was written by the session: accept, accept_hunk, undo or redo."""

    action: str  # accept | accept_hunk | undo | redo
    diff: str  # unified diff of what was written
    hunks: int


@dataclass
class TurnResult:
    """How a turn ended, with what `steer edit --json` reports."""

    status: str  # proposal | nothing | refused | stopped | error
    reason: str = ""
    attempts: int = 0
    ttft_s: float | None = None
    tokens: int = 0
    tokens_per_s: float | None = None
    error_code: str = ""
    hunks: int = 0
    already_applied: bool = False
    raw_text: str = ""
    no_change: bool = False  # refused because the model's answer (retried once) changed nothing
    draft_accepted: int = 0  # output tokens that came from accepted speculative drafts (local engine)


@dataclass(frozen=True, slots=True)
class TurnEnded:
    """A turn (with its retries) is over; `result` says how."""

    result: TurnResult


Event = StateChanged | ProposalUpdated | Stats | Notice | ConnectionChanged | Applied | TurnEnded
