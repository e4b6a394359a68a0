"""Asking about the code: the question's messages, and a prose answer streamed with no edit parser.

An answer is text to read, never an edit: nothing here parses it, locates it or touches the
Document. The messages start with exactly the prefix the session prewarms (system prompt of
the edit format, the file, and the region block when there is one), so on a prefix-caching
engine only the question itself is evaluated after Enter. No Textual here.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Callable

from steer_tui.edits.repeats import PROSE_REPEATS, RepeatWatch, without_repeats

ANSWER_MAX_TOKENS = 700  # a prose answer is short; an edit turn's cap does not apply

QUESTION_NOTE = (
    "This is a question, not a request to change the file. Answer it in plain prose, in a few short "
    "sentences or a short list; quote code only where it helps. Do not write an edit, a diff or the file."
)


def question_input(fmt: str, path: str, text: str, question: str, region: tuple[int, int] | None = None,
                   history: list[dict] | None = None, places: str = "", context=None,
                   file_tokens: int | None = None) -> list[dict]:
    """Responses `input` for a question about `path` (its `region`, when given); `places`: the
    project's lines the question's words name (steer_tui/project/where.py), shown after the
    prewarmed prefix so the file stays cached; `context`: what the project's other files say
    (steer_tui.project.context.RequestContext), placed as in an edit's request; `file_tokens`: a file over
    it is shown in part, as an edit's request shows it (steer_tui/project/window.py)."""
    from steer_tui.prompts import prewarm_input

    # [the file, context?, the region block]
    warm = prewarm_input(fmt, path, text, region, context=context, file_tokens=file_tokens)
    opening = warm[-1]["content"] if region is not None else ""
    head = warm[:-1] if region is not None else warm
    about = "The question is about the region above." if region is not None else ""
    aside = context.aside if context else ""
    body = "\n\n".join(x for x in (about, places, aside, f"Question: {question.strip()}", QUESTION_NOTE) if x)
    return [*head, *(history or []), {"role": "user", "content": opening + body}]


def do_it_instruction(question: str, answer: str) -> str:
    """The edit instruction "do it" sends: the answer is the plan."""
    return (f"Make the change this answer describes (it answered the question: {question.strip()}).\n\n"
            f"Answer:\n{answer.strip()}")


@dataclass
class Answer:
    """A question and its answer so far; a redirect adds the new words and the answer goes on."""

    question: str
    region: tuple[int, int] | None = None
    parts: list[tuple[str, str]] = field(default_factory=list)  # ("answer" | "redirect", text)
    status: str = "asking"  # asking | answered | stopped | cut_off | error
    reason: str = ""
    ttft_s: float | None = None
    tokens: int = 0
    tokens_per_s: float | None = None

    @property
    def text(self) -> str:
        """The answer as markdown: answer pieces, each redirect as a quoted line between them."""
        out = []
        for kind, text in self.parts:
            out.append(f"\n\n> {text}\n\n" if kind == "redirect" else text)
        return "".join(out).strip("\n")

    @property
    def answer_text(self) -> str:
        """What the model wrote (redirect words left out)."""
        return "\n\n".join(t.strip() for k, t in self.parts if k == "answer" and t.strip())

    @property
    def done(self) -> bool:
        return self.status != "asking"


class Asking:
    """One question's answer streaming from a ResponsesClient; `on_change()` after every change.

    `stop()` ends it at once (no delta after it is kept); `redirect(words)` steers it like an
    edit: the partial answer and the words go back to the model, which answers on.
    """

    def __init__(self, client, *, model: str | None = None, stream_id: str | None = None,
                 max_output_tokens: int | None = None, temperature: float | None = None,
                 on_change: Callable[[], None] | None = None):
        self.client = client
        self.model = model
        self.stream_id = stream_id
        self.max_output_tokens = max_output_tokens or ANSWER_MAX_TOKENS
        self.temperature = temperature
        self.on_change = on_change or (lambda: None)
        self.answer: Answer | None = None
        self._stream = None
        self._task: asyncio.Task | None = None
        self._stopped = False
        self._t0 = 0.0
        self._file_text = ""  # the file the question is about: text it holds repeated is copied, not looped

    @property
    def active(self) -> bool:
        return self.answer is not None and not self.answer.done

    async def start(self, fmt: str, path: str, text: str, question: str,
                    region: tuple[int, int] | None = None, places: str = "", context=None,
                    file_tokens: int | None = None) -> Answer:
        """Send the question; returns once the request is out (the answer streams on)."""
        from steer_tui.prompts import system_prompt

        answer = Answer(question.strip(), region, [("answer", "")])
        self.answer = answer
        self._stopped = False
        self._t0 = time.perf_counter()
        self._file_text = text
        try:
            self._stream = await self.client.create(
                model=self.model, instructions=system_prompt(fmt),
                input=question_input(fmt, path, text, question, region, places=places, context=context,
                                     file_tokens=file_tokens),
                stream_id=self.stream_id,
                max_output_tokens=self.max_output_tokens, temperature=self.temperature)
        except Exception as exc:
            answer.status, answer.reason = "error", f"request failed: {exc}"
            self._changed()
            return answer
        self._task = asyncio.ensure_future(self._read(self._stream, answer))
        return answer

    async def wait(self) -> Answer | None:
        if self._task is not None:
            await asyncio.wait([self._task])
        return self.answer

    async def stop(self) -> None:
        """Esc: nothing more is added to the answer from here on; the server stops the engine."""
        answer = self.answer
        if answer is None or answer.done:
            return
        self._stopped = True
        answer.status = "stopped"
        self._changed()
        stream = self._stream
        if stream is not None:
            try:
                await stream.cancel()
            except Exception:
                pass

    async def redirect(self, words: str) -> None:
        """Typing while it answers: stop now and answer on with these words."""
        answer = self.answer
        if answer is None or answer.done or self._stream is None:
            return
        answer.parts.append(("redirect", words.strip()))
        answer.parts.append(("answer", ""))
        self._changed()
        try:
            await self._stream.steer(words)
        except Exception as exc:
            answer.status, answer.reason = "error", f"redirect failed: {exc}"
            self._changed()

    def _changed(self) -> None:
        try:
            self.on_change()
        except Exception:  # a broken listener must not end the answer
            import logging

            logging.getLogger(__name__).exception("answer listener failed")

    async def _read(self, stream, answer: Answer) -> None:
        from steer_tui.stream_reader import read

        try:
            reader = _AnswerReader(answer, self._t0, lambda: self._stopped, self._changed, self._file_text)
            end = await read(stream, reader)
            if end.how == "gave_up":
                # Looping: what it wrote once stays, the rounds after it go, and the engine stops.
                answer.parts[-1] = ("answer", without_repeats(answer.parts[-1][1], reader.repeats.block))
                answer.status, answer.reason = "cut_off", "cut off: it began to repeat itself"
                try:
                    await stream.cancel()
                except Exception:
                    pass
            elif end.how == "completed" and not self._stopped:
                answer.status = "answered"
            elif end.how == "cancelled":
                answer.status = "stopped"
            elif end.how == "cut_off":
                answer.status, answer.reason = "cut_off", f"cut off ({end.message})"
            elif end.how == "failed":
                answer.status, answer.reason = "error", end.message or end.code or "backend error"
            elif end.how == "disconnected":
                answer.status, answer.reason = "error", f"connection lost: {end.message}"
        except Exception as exc:
            answer.status, answer.reason = "error", str(exc)
        finally:
            if answer.status == "asking":
                answer.status = "stopped" if self._stopped else "answered"
            stats = getattr(stream, "stats", None)
            usage = getattr(stats, "usage", None) or {}
            answer.tokens = int(usage.get("output_tokens") or answer.tokens)
            rate = getattr(stats, "deltas_per_s", None)
            if rate:
                answer.tokens_per_s = rate
            self._stream = None
            self._changed()


class _AnswerReader:
    """A question's answer as steer_tui.stream_reader reads it: deltas go to the answer's last piece."""

    def __init__(self, answer: Answer, t0: float, stopped: Callable[[], bool], changed: Callable[[], None],
                 file_text: str = ""):
        self.answer, self.t0, self.should_stop, self.changed = answer, t0, stopped, changed
        self.file_text = file_text
        self.repeats = RepeatWatch(file_text, PROSE_REPEATS)

    def on_text(self, delta: str) -> bool:
        answer = self.answer
        if answer.parts[-1][0] != "answer":
            answer.parts.append(("answer", ""))
        kind, text = answer.parts[-1]
        answer.parts[-1] = (kind, text + delta)
        if answer.ttft_s is None:
            answer.ttft_s = time.perf_counter() - self.t0
        answer.tokens += 1
        looping = self.repeats.feed(delta)
        self.changed()
        return looping

    def on_steered(self) -> None:
        # The successor answers on after the redirect words: a loop is looked for in its text alone.
        self.repeats = RepeatWatch(self.file_text, PROSE_REPEATS)

    def on_created(self) -> None:
        pass

    def on_notice(self, message: str) -> None:
        pass

    def on_steer_failed(self, message: str) -> None:
        pass
