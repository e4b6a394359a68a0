"""Which lines an instruction sent from the app is about: the selection, else the block around the cursor."""

from __future__ import annotations

SURROUNDINGS_MAX = 200  # lines of the cursor's enclosing block sent as the region


def region_for_send(lines: list[str], selection: tuple[int, int] | None, cursor: int,
                    cursor_placed: bool, words: str = "", path: str | None = None) -> tuple[int, int] | None:
    """The selection, else the block around the cursor the user placed, or the definition at it
    that the words point at ("this method", "delete this": prompts.cursor_definition, by the
    language of `path`); else None (the whole file).

    A cursor the user never moved says nothing about where the edit belongs: scoping the
    edit to the first lines of the file would make a region-rewrite model rewrite them.
    """
    if selection is not None:
        return selection
    if not lines or not cursor_placed:
        return None
    if words:
        from steer_tui.prompts import cursor_definition

        meant = cursor_definition("\n".join(lines) + "\n", min(cursor, len(lines) - 1), words, path)
        if meant is not None:
            return meant
    return block_around(lines, cursor)


def block_around(lines: list[str], cursor: int, limit: int = SURROUNDINGS_MAX) -> tuple[int, int]:
    """The top-level block holding line `cursor` (0-based), as (start, end) end-exclusive.

    A block runs from one line that starts at column 0 to the next; decorators and comments
    directly above it belong to it and blank lines after it do not. A block longer than
    `limit` lines gives `limit` lines centred on the cursor instead.
    """
    cur = min(cursor, len(lines) - 1)

    def top_level(i: int) -> bool:
        line = lines[i]
        return bool(line.strip()) and not line[0].isspace() and not line.startswith((")", "]", "}"))

    start = cur
    while start > 0 and not top_level(start):
        start -= 1
    while start > 0 and lines[start - 1].startswith(("@", "#")):
        start -= 1
    end = cur + 1
    while end < len(lines) and not top_level(end):
        end += 1
    while end > cur + 1 and not lines[end - 1].strip():
        end -= 1
    if end - start > limit:
        start = max(0, cur - limit // 2)
        end = min(len(lines), start + limit)
    return start, end
