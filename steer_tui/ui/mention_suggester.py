"""The prompt's `@` completion: while an `@word` is typed, the rest of the project file or definition it starts, shown as the Input's suggestion (Right accepts it)."""

from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable

from textual.suggester import Suggester

from steer_tui.project.mentions import complete, partial_mention


class MentionSuggester(Suggester):
    """Suggests how the `@word` at the end of the prompt goes on: a path, a file's base name (where
    no other file has it) or a definition's name. `files()` and `names()` are read on each word, so a
    project still being listed or indexed completes what is known so far."""

    def __init__(self, files: Callable[[], Iterable[str]], names: Callable[[], Iterable[str]]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self._files = files
        self._names = names

    @classmethod
    def of(cls, app) -> "MentionSuggester":
        """The suggester of the app's prompt: the project's files (listed in the background the
        first time) and the names its index knows (none until it is built)."""
        def files() -> list[str]:
            if app.files.files is None and not app.files.listing:
                app.files.refresh()
            return app.files.files or []

        def names() -> list[str]:
            context = getattr(app.session, "context", None)
            if context is None or not context.ready:
                return []
            return context.index.names()  # each name once, kept by the index

        return cls(files, names)

    async def get_suggestion(self, value: str) -> str | None:
        return suggestion(value, list(self._files()), list(self._names()))


def suggestion(value: str, files: list[str], names: list[str]) -> str | None:
    """The prompt's text with the `@word` at its end completed, or None when it starts nothing."""
    partial = partial_mention(value)
    if not partial:
        return None
    bases = Counter(f.rsplit("/", 1)[-1] for f in files)
    low = partial.lower()
    for candidate in complete(partial, files, names, limit=50):
        base = candidate.rsplit("/", 1)[-1]
        if candidate.lower().startswith(low) and len(candidate) > len(partial):
            return value + candidate[len(partial):]
        if "/" in candidate and base.lower().startswith(low) and bases[base] == 1 and len(base) > len(partial):
            return value + base[len(partial):]
    return None
