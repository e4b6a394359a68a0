"""The gateway's finished transcripts (for `previous_response_id`), bounded by count and by bytes."""

from __future__ import annotations

import operator
import sys
from collections import OrderedDict
from dataclasses import dataclass, field

DEFAULT_MAX_ENTRIES = 1024
DEFAULT_MAX_BYTES = 16 * 1024 * 1024
# What one message costs beside its text: the dict, its two keys' slots, the list slot.
MESSAGE_OVERHEAD = 240


@dataclass(eq=False)
class _Texts:
    """The texts one entry added to its base's (held while the entry or an entry built on it is stored)."""

    size: int
    base: "_Texts | None"
    holders: int = 1  # the entry itself while stored, plus each live _Texts built on this one


@dataclass
class Stored:
    messages: list[dict]  # the prompt plus the output as a final assistant message
    session_key: str
    texts: _Texts | None = field(default=None, repr=False)
    contents: list = field(default_factory=list, repr=False)  # each message's text, for entries built on this


class TranscriptStore:
    """Transcripts by response id, the least recently used evicted first once there are more
    than `max_entries` or they hold more than `max_bytes`.

    A turn chained on a stored one repeats its messages, sharing their text (the gateway copies
    message dicts, not their strings), so each entry is charged only for the text it adds to
    the entry it was built on, which stays charged while anything built on it is stored: a
    20-turn chain over a 4 MB file costs about 4 MB, not 80, and a put costs the new messages,
    not the whole chain. The newest entry is kept even when it alone is over the budget (the
    frame limit bounds it), so a client can always chain on its last answer."""

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES, max_bytes: int = DEFAULT_MAX_BYTES):
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.bytes = 0
        self.evicted = 0
        self._entries: OrderedDict[str, Stored] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, rid: str) -> bool:
        return rid in self._entries

    def __getitem__(self, rid: str) -> Stored:
        return self._entries[rid]

    def get(self, rid: str) -> Stored | None:
        """The transcript of `rid`, now the most recently used; None when unknown or evicted."""
        stored = self._entries.get(rid)
        if stored is not None:
            self._entries.move_to_end(rid)
        return stored

    def put(self, rid: str, messages: list[dict], session_key: str, base_id: str | None = None) -> None:
        """Store `messages` for `rid`; `base_id`: the stored response they were built on, if any."""
        base = self._entries.get(base_id) if base_id is not None else None
        contents = [m.get("content") or "" for m in messages]
        added = contents
        if base is not None:
            n = len(base.contents)
            # Shared only if every earlier message holds the very same text object (a replaced
            # system message, say, is not shared: then the whole transcript is charged).
            if len(contents) >= n and all(map(operator.is_, contents, base.contents)):
                added = contents[n:]
            else:
                base = None
        size = sum(map(sys.getsizeof, added))
        texts = _Texts(size, base.texts if base is not None else None)
        if texts.base is not None:
            texts.base.holders += 1
        self.bytes += size + MESSAGE_OVERHEAD * len(messages)
        old = self._entries.pop(rid, None)
        if old is not None:
            self._release(old)
        self._entries[rid] = Stored(messages, session_key, texts, contents)
        while len(self._entries) > 1 and (len(self._entries) > self.max_entries or self.bytes > self.max_bytes):
            _, evicted = self._entries.popitem(last=False)
            self._release(evicted)
            self.evicted += 1

    def _release(self, stored: Stored) -> None:
        self.bytes -= MESSAGE_OVERHEAD * len(stored.messages)
        texts = stored.texts
        while texts is not None:
            texts.holders -= 1
            if texts.holders:
                break
            self.bytes -= texts.size  # nothing stored holds these texts any more
            texts = texts.base

