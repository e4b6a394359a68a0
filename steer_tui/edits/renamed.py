"""A definition an answer turned into another one: its name gone, a new name beside it, unasked.

Asked to add a method with the cursor in the last one, a small model writes the new method in
place of the one it was shown: `check_token` comes back as `token_valid`, its body half reused,
and the old method is gone from the file. The body mostly being there, it passes for a rewrite, not
a deletion (steer_tui.edits.anchor refuses those). An answer that makes a definition's name vanish
from the file while defining a new one is refused, unless the words name the old one (a request
about it: "replace check_token with ...") or ask for a rename, a replacement or a deletion.
"""

from __future__ import annotations

import re

from steer_tui.edits.anchor import defined_names, may_delete

# Words that may ask for a definition to go or to become another.
_ASKS_FOR_IT = re.compile(r"\b(?:renam\w*|replac\w*|instead|turn\w*|convert\w*|merg\w*|split\w*|mov\w*|"
                          r"(?:call|name)\s+(?:it|them|this|that))\b", re.I)


def renamed_definitions(old: str, new: str, path: str | None, instruction: str | None) -> list[tuple[str, list[str]]]:
    """[(name of a definition of `old` no longer in `new` at all, the names `new` defines that `old`
    did not)] where that is not asked for; [] when nothing went or nothing new came."""
    if not instruction or _ASKS_FOR_IT.search(instruction):
        return []
    before = defined_names(tuple(old.splitlines()), path)
    after = defined_names(tuple(new.splitlines()), path)
    added = sorted(after - before)
    if not added:
        return []
    said = set(re.findall(r"\w+", instruction))
    gone = [name for name in sorted(before - after)
            if name not in said and not re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", new)]
    if not gone or may_delete(instruction, old.splitlines(), path):
        return []
    return [(name, added) for name in gone]
