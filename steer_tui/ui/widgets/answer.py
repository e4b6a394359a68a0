"""The answer panel: a question's prose answer, drawn as markdown below the code while it streams."""

from __future__ import annotations

import re

from rich.markdown import Markdown
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

STATUS_TEXT = {
    "asking": "answering…  Esc stops · typing redirects",
    "answered": "answered · Ctrl+D turns it into an edit · Esc closes",
    "stopped": "stopped · Ctrl+D turns it into an edit · Esc closes",
    "cut_off": "cut off · Ctrl+D turns it into an edit · Esc closes",
    "error": "failed · Esc closes",
}


_BLOCK_OPEN = re.compile(r"^\s*<{5,9}\s*SEARCH\b")
_BLOCK_CLOSE = re.compile(r"^\s*>{5,9}\s*REPLACE\b")


# A line that quotes a place as the question showed it ("app/__init__.py:71: code"), bulleted or not.
_PLACE_LINE = re.compile(r"^\s*(?:[-*]\s+)?`?(?:[\w.-]+/)*[\w.-]+\.[\w-]+`?:\d+:\s", re.M)


def readable(text: str) -> str:
    """The answer as markdown to draw. An edit block written outside a code fence (small models
    trained on edits do that) is drawn as code, not as headings and quotes; so are lines that quote
    places (`path:line: code`), which markdown would run together and whose `__init__` it would
    read as emphasis."""
    if "<<<<<" not in text and not _PLACE_LINE.search(text):
        return text
    out: list[str] = []
    fenced = block = places = False
    for line in text.split("\n"):
        if places and not _PLACE_LINE.match(line):
            out.append("```")
            places = False
        if not block and line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and not block and _BLOCK_OPEN.match(line):
            out.append("```")
            block = True
        elif not fenced and not block and not places and _PLACE_LINE.match(line):
            out.append("```")
            places = True
        out.append(line)
        if block and _BLOCK_CLOSE.match(line):
            out.append("```")
            block = False
    if block or places:
        out.append("```")  # still streaming: close it for now
    return "\n".join(out)


class AnswerBody(Static):
    """The answer's text; each time a layout gives it a new height, its scroll shows the end.

    Scrolling when the text is set would race the layout (the old height is still in place);
    a resize comes once the new height is."""

    def on_resize(self) -> None:
        if isinstance(self.parent, VerticalScroll):
            self.parent.scroll_end(animate=False)


class AnswerPanel(Vertical):
    """Hidden until a question is asked. Read-only: nothing here reaches the file or the file view.

    The question and the answer's state stay on the top line; the answer scrolls below it."""

    DEFAULT_CSS = """
    AnswerPanel { height: 40%; min-height: 6; border-top: solid $accent; display: none; background: $surface; }
    AnswerPanel.-visible { display: block; }
    AnswerPanel > #answer-title { height: 1; padding: 0 1; color: $text-muted; }
    AnswerPanel > #answer-scroll { height: 1fr; padding: 0 1; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.question = ""
        self.status = ""
        self.text = ""
        self._about = ""  # what the question is about: "lines 3-9" or the whole file
        self._title = Static("", id="answer-title")
        self._body = AnswerBody("", id="answer-body")
        self._scroll = VerticalScroll(self._body, id="answer-scroll")

    def compose(self) -> ComposeResult:
        yield self._title
        yield self._scroll

    @property
    def visible(self) -> bool:
        return self.has_class("-visible")

    def begin(self, question: str, about: str = "") -> None:
        """A new question: show the panel, empty, with the question on top."""
        self.question = question
        self.text = ""
        self.status = ""
        self.show(status="asking", text="", about=about)
        self.add_class("-visible")

    def show(self, *, status: str, text: str, about: str | None = None) -> None:
        """Draw the answer so far (markdown) and its state (AnswerBody keeps its end in view)."""
        if about is not None:
            self._about = about
        if status != self.status or about is not None:
            self.status = status
            title = Text()
            title.append(f"? {self.question}", style="bold")
            if self._about:
                title.append(f"  ({self._about})", style="italic")
            title.append(f"  ·  {STATUS_TEXT.get(status, status)}")
            self._title.update(title)
        if text != self.text or not text:
            self.text = text
            self._body.update(Markdown(readable(text)) if text.strip() else Text("…", style="dim"))

    def close(self) -> None:
        self.remove_class("-visible")
