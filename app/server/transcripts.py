"""The gateway's finished transcripts (for `previous_response_id`), bounded by count and by bytes."""

from __future__ import annotations

import sys
from collections import OrderedDict
from dataclasses import dataclass, field

DEFAULT_MAX_ENTRIES = 1024
DEFAULT_MAX_BYTES = 16 * 1024 * 1024
# What one message costs beside its text: the dict, its two keys' slots, the list slot.
MESSAGE_OVERHEAD = 240


@dataclass
class Stored:
    messages: list[dict]  # the prompt plus the output as a final assistant message
    session_key: str
    texts: list[int] = field(default_factory=list, repr=False)  # ids of the texts counted for it


class TranscriptStore:
    """Transcripts by response id, the least recently used evicted first once there are more
    than `max_entries` or they hold more than `max_bytes`.

    Each distinct text is counted once however many entries hold it: the entries of one chain
    share the string objects of their earlier messages (the gateway copies message dicts, not
    their text), so a 20-turn chain over a 4 MB file costs about 4 MB, not 80. The newest entry
    is kept even when it alone is over the budget (the frame limit bounds it), so a client
    can always chain on its last answer."""

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES, max_bytes: int = DEFAULT_MAX_BYTES):
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.bytes = 0
        self.evicted = 0
        self._entries: OrderedDict[str, Stored] = OrderedDict()
        self._texts: dict[int, list] = {}  # id(text) -> [text, entries holding it, its size]

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

    def put(self, rid: str, messages: list[dict], session_key: str) -> None:
        stored = Stored(messages, session_key)
        texts = self._texts
        for message in messages:
            text = message.get("content")
            if not isinstance(text, str):
                continue
            entry = texts.get(id(text))
            if entry is None:
                # The entry keeps `text` alive, so its id stays its own while it is counted.
                size = sys.getsizeof(text)
                texts[id(text)] = [text, 1, size]
                self.bytes += size
            else:
                entry[1] += 1
            stored.texts.append(id(text))
        self.bytes += MESSAGE_OVERHEAD * len(messages)
        old = self._entries.pop(rid, None)
        if old is not None:
            self._release(old)
        self._entries[rid] = stored
        while len(self._entries) > 1 and (len(self._entries) > self.max_entries or self.bytes > self.max_bytes):
            _, evicted = self._entries.popitem(last=False)
            self._release(evicted)
            self.evicted += 1

    def _release(self, stored: Stored) -> None:
        texts = self._texts
        for key in stored.texts:
            entry = texts[key]
            entry[1] -= 1
            if not entry[1]:
                del texts[key]
                self.bytes -= entry[2]
        self.bytes -= MESSAGE_OVERHEAD * len(stored.messages)
