"""Prewarm as you type: which region and instruction words the engine evaluates while the user types.

A rewrite turn's last message is the region block, the format reminder and then the instruction
(prompts.instruction_message). The region is known as soon as the typed words name a
definition (prompts.rewrite_region, as the turn computes it) or the cursor rests in a block, and
the words typed so far open the instruction: prewarming region + words leaves Enter only the last
words to evaluate; once the user pauses, the whole message is prewarmed as if it
were final, and Enter leaves a token or two. `plan` decides (plain strings, no UI); the
`TypingPrewarmer` sends its plans to a Session, one word's prewarm in flight at a time (a
pause's whole message queues behind it).
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from steer_tui import named_constants, prompts
from steer_tui.state import GENERATING, IDLE, REVIEW

log = logging.getLogger(__name__)

PAUSE_S = 0.3  # no key for this long: the words typed may be the whole instruction
GUESS_CHARS = 4  # a word this long that only one definition's name starts with names it

_LAST_SPACE = re.compile(r"\s(?=\S*$)")


@dataclass(frozen=True)
class Warm:
    """One prewarm of a rewrite turn's opening: file text, region, instruction words and whether the
    words are taken as the whole instruction (the end of the message included)."""

    text: str
    region: tuple[int, int]
    typed: str
    complete: bool = False


def whole_words(value: str) -> str:
    """The words of the prompt that are finished (a space follows them), as the instruction will start
    with them; the word being typed is left out (its tokens are not known yet)."""
    s = value.lstrip()
    m = _LAST_SPACE.search(s)
    return s[: m.start()].rstrip() if m else ""


def leads(typed: str, instruction: str) -> bool:
    """`typed` opens `instruction` word for word (an empty `typed` opens anything)."""
    instruction = instruction.strip()
    return not typed or instruction == typed or (instruction.startswith(typed) and instruction[len(typed)].isspace())


@lru_cache(maxsize=2)
def _names(text: str, path: str | None = None) -> frozenset[str]:
    """The names the words may give a region by: the file's definitions, and its constants with a name
    that reads as code (prompts.reads_as_code, as rewrite_region takes a constant written plainly: a
    plain one, `items`, is no region); one parse per version of the file, not one per key; `path`
    tells the language, as to prompts.rewrite_region."""
    constants = (n for n in named_constants.constants(path, text) if prompts.reads_as_code(n))
    return frozenset(prompts.definitions(text, path)) | frozenset(constants)


def guess_name(text: str, value: str, path: str | None = None) -> str | None:
    """The definition the word being typed names: the word itself, or the only name it starts
    (GUESS_CHARS characters or more; "parse_l" is `parse_line`), so the region is known a few keys
    before the word ends. None when it is the first word, as in _names_one."""
    stripped = value.strip()
    if not stripped or value[-1:].isspace() or not any(c.isspace() for c in stripped):
        return None
    words = prompts.WORDS.findall(stripped.rsplit(None, 1)[-1])
    if not words:
        return None
    word = words[-1].split(".")[-1]
    names = _names(text, path)
    if word in names:
        return word
    if len(word) < GUESS_CHARS:
        return None
    starting = [n for n in names if n.startswith(word)]
    return starting[0] if len(starting) == 1 else None


def _names_one(text: str, words: str, path: str | None = None) -> bool:
    """A word after the first names a definition. The first is left out: it is usually the verb, and
    "add a docstring to" (a method `add`, the region rewrite_region finds for it alone) is
    followed by the name the user means more often than not."""
    names = _names(text, path)
    return any(w.split(".")[-1] in names for w in prompts.WORDS.findall(words)[1:])


def plan(text: str, value: str, region: tuple[int, int] | None, last: Warm | None, *, paused: bool = False,
         path: str | None = None) -> Warm | None:
    """What to prewarm for the prompt's `value`, or None (nothing worth it, or nothing new).

    `region`: the region Enter would send (the selection or the block at the cursor), None when
    the turn takes it from the instruction's words (Session.send: rewrite_region). `last`: what
    was prewarmed last. `paused`: the user stopped typing, so the whole value is taken as the
    instruction. Words that name no definition (the first word aside), with no region from the
    cursor, prewarm nothing: the turn would rewrite the whole file, or a name typed next would
    change the region."""
    stripped = value.strip()
    if not stripped or stripped.startswith(("?", "/")) or prompts.is_empty(text):
        return None  # a question or a command is not an edit instruction
    typed = stripped if paused else whole_words(value)
    if region is None:
        # The word being typed counts for the region only when it names a definition (guess_name).
        guess = None if paused else guess_name(text, value, path)
        words = stripped if paused else f"{typed} {guess}" if guess else typed
        if not _names_one(text, words, path):
            return None
        region = prompts.edit_region(text, words, path) if paused else prompts.rewrite_region(text, words, path=path)
        if region == (0, len(text.splitlines())):
            return None
    want = Warm(text, region, typed, paused and bool(typed))
    if last is not None and last.text == text and last.region == region and leads(typed, last.typed):
        # The cache holds these words already (a backspace only shortens them); only a complete
        # prewarm adds something: the end of the message after exactly these words.
        if not want.complete or (last.complete and last.typed == typed):
            return None
    return want


def redirect_plan(text: str, value: str, last: tuple | None, *, paused: bool = False) -> tuple | None:
    """What to prewarm of a redirect being typed while the model writes: (typed, complete, naming),
    or None when nothing new is known since `last`. The words are taken whole as in `plan`, all of
    them after a pause; `naming` adds the definition the word being typed names (guess_name), for
    the region only: "no, only add a docstring to remo" narrows to `remove` before the word ends,
    and the method's block is most of what the redirect's turn evaluates. The session works out
    the turn they would start (Session.prewarm_redirect)."""
    stripped = value.strip()
    if not stripped or stripped.startswith(("?", "/")):
        return None
    typed = stripped if paused else whole_words(value)
    guess = None if paused else guess_name(text, value)
    naming = f"{typed} {guess}".strip() if guess else typed
    if not naming:
        return None
    want = (typed, paused, naming)
    if last is not None and last == want:
        return None
    return want


class TypingPrewarmer:
    """Sends `plan`'s prewarms to a session as the user types: at once when a word is finished,
    the whole message after a pause; never while a turn is stopped half-way (an answer under
    review is fine: the next turn replaces it); one word's prewarm in flight at a time (the newest
    plan waits for it, never cancels it: each prewarm extends the cache the last one left), and
    the pause's whole message queued behind it (Session.prewarm(behind=True)). While the
    model writes, what is typed is a redirect: `redirect_plan`'s prewarms go to the session's
    prewarm_redirect."""

    def __init__(self, session, pause_s: float | None = None):
        self.session = session
        self.pause_s = PAUSE_S if pause_s is None else pause_s
        self.last: Warm | None = None
        self._value = ""
        self._region: Callable[[], tuple[int, int] | None] = lambda: None
        self._words = ""
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task | None = None
        self._paused = False
        self.last_redirect: tuple | None = None  # (typed, complete) of the last redirect prewarm

    def typed(self, value: str, region: Callable[[], tuple[int, int] | None]) -> None:
        """The prompt now holds `value` (call on every change); `region()`: the region Enter would send."""
        self._value, self._region = value, region
        self._paused = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not value.strip():
            self.last = None  # sent or cleared: the next instruction starts over
            self.last_redirect = None
            self._words = ""
            return
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(self.pause_s, self._kick, True)
        text = self._text()
        words = whole_words(value)
        if words != self._words or (text is not None and guess_name(text, value, self._path())):
            self._words = words
            self._kick(False)

    def _text(self) -> str | None:
        doc = getattr(self.session, "document", None)
        return doc.text if doc is not None else None

    def _path(self) -> str | None:
        """The file's path, for its language (the session's turn finds the region by it too: Session.scoped)."""
        path = getattr(getattr(self.session, "document", None), "path", None)
        return str(path) if path is not None else None

    def _kick(self, paused: bool) -> None:
        if paused:
            self._timer = None
            self._paused = True
            self._whole_now()
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._send())

    def _whole_now(self) -> None:
        """The user paused: the whole message goes out now, queued behind the prewarm in flight
        when that is of the same region (its block is most of what the message evaluates), rather
        than after it has come back: Enter often follows the pause within a prewarm's time."""
        try:
            self._send_plan(True, behind=True)
        except Exception:  # an optimisation: a failure here must never reach the prompt
            log.debug("typing prewarm failed", exc_info=True)

    def _ready(self) -> bool:
        s = self.session
        # A proposal under review is discarded by the next turn, which reads the same file text.
        return (s.client is not None and s.connection == "ready" and s.state in (IDLE, REVIEW)
                and s.format == prompts.REWRITE)

    async def _send(self) -> None:
        # The newest state is read after each wait, so keys typed meanwhile are never sent stale.
        try:
            while True:
                await self.session.warmed()  # the file's prewarm, the cursor's block, or our last one
                if not self._send_plan(self._paused):
                    return
        except Exception:  # an optimisation: a failure here must never reach the prompt
            log.debug("typing prewarm failed", exc_info=True)

    def _send_plan(self, paused: bool, behind: bool = False) -> bool:
        """Send the prewarm the prompt's value calls for now (a redirect's while the model writes);
        False when there is nothing new to send."""
        if self.session.state is GENERATING or self.session.follows_up(self._value):
            # Words that go on from the answer under review restart its turn as a redirect would.
            redirect = redirect_plan(self._text() or "", self._value, self.last_redirect, paused=paused)
            if redirect is None or not self.session.prewarm_redirect(*redirect, behind=behind):
                return False
            self.last_redirect = redirect
            return True
        if not self._ready() or not self._value.strip():
            return False
        want = plan(self._text(), self._value, self._region(), self.last, paused=paused, path=self._path())
        if want is None:
            return False
        self.last = want
        self.session.prewarm(want.region, typed=want.typed, complete=want.complete, behind=behind)
        return True
