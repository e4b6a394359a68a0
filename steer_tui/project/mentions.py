"""`@path` and `@name` in an instruction: finding them, completing a partial one, and resolving each to a project file or definition."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

# `@` at a word's start (not an e-mail's or a decorator inside code quotes), then a path or a name.
MENTION = re.compile(r"(?<![\w@`])@([\w][\w./-]*[\w]|[\w])")


@dataclass(frozen=True)
class Mention:
    """What one `@word` names: a project file ("file", its path) or a definition ("symbol", its name); "unknown" when neither."""

    word: str
    kind: str
    target: str


def mentions(text: str) -> list[str]:
    """The `@` words of an instruction, in order, each once (without the `@`)."""
    out: list[str] = []
    for m in MENTION.finditer(text):
        if m.group(1) not in out:
            out.append(m.group(1))
    return out


def resolve(word: str, files: Iterable[str], names: Iterable[str]) -> Mention:
    """A file wins where the word is its path or its unique base name (`@money.py`); else a
    definition's name (`@format_money`, `@Money.format`); never a guess between two files."""
    files = list(files)
    if word in files:
        return Mention(word, "file", word)
    by_suffix = [f for f in files if f.endswith("/" + word)]
    if len(by_suffix) == 1:
        return Mention(word, "file", by_suffix[0])
    name = word.rsplit(".", 1)[-1] if "/" not in word else ""
    known = set(names)
    if word in known:
        return Mention(word, "symbol", word)
    if name and name in known and "." in word:
        return Mention(word, "symbol", name)
    return Mention(word, "unknown", "")


def partial_mention(value: str, cursor: int | None = None) -> str | None:
    """The `@` word being typed at the end of `value` (up to `cursor`), without its `@`; None when none is."""
    head = value if cursor is None else value[:cursor]
    m = re.search(r"(?:^|(?<=[\s(\[{,]))@([\w./-]*)$", head)
    return m.group(1) if m else None


def complete(partial: str, files: Iterable[str], names: Iterable[str], limit: int = 20) -> list[str]:
    """Completions of a partial `@` word: files whose path or base name starts with it, then names
    that do, then paths and names that contain it; shorter first within each rank."""
    low = partial.lower()
    ranked: list[tuple[int, int, str]] = []
    for path in files:
        p = path.lower()
        base = p.rsplit("/", 1)[-1]
        rank = 0 if p.startswith(low) or base.startswith(low) else (2 if low in p else None)
        if rank is not None:
            ranked.append((rank, len(path), path))
    for name in set(names):
        n = name.lower()
        rank = 1 if n.startswith(low) else (3 if low and low in n else None)
        if rank is not None:
            ranked.append((rank, len(name), name))
    ranked.sort()
    out: list[str] = []
    for _, _, text in ranked:
        if text not in out:
            out.append(text)
        if len(out) >= limit:
            break
    return out
