"""The chat transcripts the client keeps per response, so a lost server cache or a cut chain is replayed, never lost."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass


@dataclass
class Record:
    """What the client knows about one finished response, enough to replay it."""

    messages: list[dict]  # full transcript: prompt + this response's output (assistant)
    prompt: list[dict]  # full transcript before the output
    parent: str | None
    server_ok: bool  # the server's stored state matches `messages` (False after an abandon/drop)


def messages_to_input(messages: list[dict]) -> list[dict]:
    return [{"type": "message", "role": m["role"], "content": m["content"]} for m in messages]


def normalize(input_) -> list[dict]:
    """A caller's input (a string, or Responses input items) as chat messages."""
    if isinstance(input_, str):
        return [{"role": "user", "content": input_}]
    out = []
    for item in input_ or []:
        content = item.get("content")
        if isinstance(content, list):
            content = "".join(str(p.get("text") or "") for p in content if isinstance(p, dict))
        out.append({"role": item.get("role", "user"), "content": content or ""})
    return out


def with_answer(messages: list[dict], text: str) -> list[dict]:
    """A new list: `messages` followed by the assistant's answer `text` (none for an empty answer)."""
    return [*messages, {"role": "assistant", "content": text}] if text else list(messages)


def with_instructions(messages: list[dict], instructions: str | None) -> list[dict]:
    messages = [dict(m) for m in messages]
    if instructions is None:
        return messages
    if messages and messages[0]["role"] == "system":
        messages[0] = {"role": "system", "content": instructions}
    else:
        messages.insert(0, {"role": "system", "content": instructions})
    return messages


class Transcripts:
    """The last `size` responses' transcripts, by response id, oldest dropped first."""

    def __init__(self, size: int = 512):
        self.size = size
        self._records: OrderedDict[str, Record] = OrderedDict()

    def get(self, response_id: str | None) -> Record | None:
        return self._records.get(response_id) if response_id else None

    def messages(self, response_id: str) -> list[dict] | None:
        """A copy of the full transcript up to and including `response_id`'s output."""
        record = self._records.get(response_id)
        return [dict(m) for m in record.messages] if record else None

    def prompt(self, previous_response_id: str | None, instructions: str | None, items: list[dict]) -> list[dict] | None:
        """The full transcript a new request sends, None when the previous response is unknown here."""
        if previous_response_id is None:
            return with_instructions([], instructions) + items
        record = self._records.get(previous_response_id)
        return with_instructions(record.messages, instructions) + items if record is not None else None

    def remember(self, response_id: str, prompt: list[dict], text: str, parent: str | None, *,
                 server_ok: bool) -> None:
        self._records[response_id] = Record(with_answer(prompt, text), prompt, parent, server_ok)
        self._records.move_to_end(response_id)
        while len(self._records) > self.size:
            self._records.popitem(last=False)

    def continuation(self, old_id: str | None, old_text: str, items: list[dict],
                     prompt: list[dict] | None) -> tuple[str | None, list[dict]]:
        """(previous_response_id, input) for a new request that continues `old_id`'s partial
        answer `old_text` with `items`; `prompt` is that request's full transcript, if known."""
        record = self.get(old_id)
        parent = self.get(record.parent) if record is not None else None
        if record is not None and record.server_ok:
            return old_id, items  # the server has the partial answer already
        if record is not None and parent is not None and parent.server_ok:
            # Chain on the parent, resending the abandoned turn's input and partial answer.
            return record.parent, with_answer(record.prompt[len(parent.messages):], old_text) + items
        return None, prompt or items
