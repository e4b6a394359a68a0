"""What a Turn and a Review may read of the session they serve and do to it: the narrow port
steer_tui.session.Session implements, so that neither imports the session nor reaches into it."""

from __future__ import annotations

from typing import Any, Protocol

from steer_tui.events import Event, NoticeCode
from steer_tui.state import State


class SessionPort(Protocol):
    """The session as its turns and its review see it."""

    # What it reads: the file, the settings, the backend and what the gateway serves.
    document: object  # steer_tui.files.Document
    settings: object  # steer_tui.config.Settings
    live: object  # steer_tui.edits.livediff.LiveDiff: the proposal as the view draws it
    review: object  # steer_tui.review.Review
    client: object  # steer_tui.backend.Backend
    model: str | None
    stream_id: str
    state: State
    connection: str
    instruction: str | None
    region: tuple[int, int] | None  # the turn's region (a Turn moves it: Turn._move_to)
    refuse_broken_syntax: bool  # `steer edit`: a proposal that breaks Python syntax is a refused attempt

    @property
    def turn(self): ...  # the steer_tui.turn.Turn under way or last run
    @property
    def path(self) -> str: ...
    @property
    def prompt_path(self) -> str: ...
    @property
    def format(self) -> str: ...
    @property
    def server_engine(self) -> str | None: ...
    @property
    def server_features(self) -> frozenset[str]: ...
    @property
    def server_context(self) -> int | None: ...
    @property
    def has_proposal(self) -> bool: ...
    def request_context(self, region: tuple[int, int] | None, instruction: str) -> Any: ...  # the project's

    # What it may do: tell the listener, change state, drop or redraw the proposal.
    def emit(self, ev: Event) -> None: ...
    def notice(self, level: str, code: NoticeCode, text: str) -> None: ...
    def proposal_changed(self) -> None: ...
    def discard_proposal(self, quiet: bool = False) -> None: ...
    def set_state(self, state: State) -> None: ...
    def set_connection(self, state: str, detail: str = "") -> None: ...
    def interrupt(self) -> None: ...
    def prewarm(self, region: tuple[int, int] | None = None, typed: str = "", complete: bool = False, *,
                lane: str | None = None, behind: bool = False) -> None: ...
