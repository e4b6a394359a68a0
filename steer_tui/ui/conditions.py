"""When each action applies: one condition per action, read from the app's state (the keys, key bar and palette follow it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from steer_tui.state import State
from steer_tui.ui.keys import ACTIONS

if TYPE_CHECKING:
    from steer_tui.ui.host import SteerHost

ALWAYS = frozenset({"quit", "help", "command_palette"})
# A modal screen on top has the keys: these are off under it.
OFF_UNDER_MODAL = frozenset({a for a, _, _ in ACTIONS} | {"clear_selection", "lane"})


def _state(app: SteerHost) -> str:
    return app.session.state if app.session is not None else State.IDLE


def _generating(app: SteerHost) -> bool:
    return _state(app) == State.GENERATING


def _busy(app: SteerHost) -> bool:
    """A turn is being written, or alternatives are (between two lanes the session is idle)."""
    return _generating(app) or app.lanes.writing


def _answering(app: SteerHost) -> bool:
    return app.asking is not None and app.asking.active


def _has_proposal(app: SteerHost) -> bool:
    """A proposal to review (not a lane's while alternatives are written: steer_tui.ui.lanes)."""
    return app.session is not None and app.session.has_proposal and not app.lanes.writing


def _can_do_it(app: SteerHost) -> bool:
    answer = app.asking.answer if app.asking is not None else None
    return (app.answer.visible and answer is not None and answer.done and bool(answer.answer_text)
            and app.session is not None and not _busy(app) and app.queued is None)


def _can_fix_tests(app: SteerHost) -> bool:
    return (app.tests.failed and not app.testing.running and app.session is not None and not _busy(app)
            and not _answering(app))


CONDITIONS: dict[str, Callable[[SteerHost], bool]] = {
    "take_back": lambda app: app.queued is not None,
    "stop": lambda app: _busy(app) or _answering(app),
    "ask": lambda app: (app.prompt_has_text and not _busy(app) and not _answering(app)
                        and app.document is not None),
    "do_it": _can_do_it,
    "close_answer": lambda app: app.answer.visible and not _answering(app),
    "accept_all": lambda app: (_has_proposal(app) and _state(app) in (State.REVIEW, State.INTERRUPTED)
                               and not app.session.conflict),
    "reject_all": lambda app: (_has_proposal(app) and not _generating(app)) or (app.lanes.shown and not _busy(app)),
    "undo": lambda app: app.session is not None and app.session.can_undo and not _busy(app),
    "redo": lambda app: app.session is not None and app.session.can_redo and not _busy(app),
    "alternatives": lambda app: app.lanes.can_ask() and not _answering(app) and app.queued is None,
    "lane": lambda app: app.lanes.shown,
    "toggle_view": lambda app: app.session is not None,
    "run_tests": lambda app: not app.testing.running,
    "fix_tests": _can_fix_tests,
    "toggle_tests": lambda app: app.tests.command is not None,
    "follow": _generating,
    "context": lambda app: app.session is not None,
    "clear_selection": lambda app: (app.code.selection is not None or app.tests.has_class("-visible")
                                    or app.answer.visible),
}
CONDITIONS["accept_hunk"] = CONDITIONS["accept_all"]
for _action in ("reject_hunk", "next_hunk", "prev_hunk"):
    CONDITIONS[_action] = lambda app: _has_proposal(app) and not _generating(app)


def applies(app: SteerHost, action: str, *, beneath: bool = False) -> bool:
    """Whether `action` applies now (Textual's check_action: False hides its key and palette entry).
    `beneath`: to the screen under the modal one on top (the command palette lists what applies there)."""
    action = action.partition("(")[0]  # "lane(1)": the palette names an action with its parameters
    if action in ALWAYS:
        return True
    if action in OFF_UNDER_MODAL and len(app.screen_stack) > 1 and not beneath:
        return False
    condition = CONDITIONS.get(action)
    return True if condition is None else condition(app)
