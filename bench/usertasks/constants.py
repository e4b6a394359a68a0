"""Edits of a module's or a class's constant in a 200-line module (`bench editbench --set constants`).

Written 2026-11-28, before the region change they measure, and run as first written. Each file is a
generated back-office module (bench/bigfile_gen.py, its own seed) with its constants at the top and
in its classes; each test checks the value asked for and that no other statement of the file changed
(the whole module, statement by statement, against the original: bench/usertasks/batch3.py's
_parts)."""

from __future__ import annotations

import re

from bench.bigfile_gen import generate
from bench.usertasks.batch3 import _UNCHANGED

LINES = 200


def _module(seed: int) -> str:
    return generate(LINES, seed=seed)


def _class_constant(text: str) -> tuple[str, str, int]:
    """The first class of `text` with a DEFAULT_ constant: (class, constant, value)."""
    m = re.search(r"^class (\w+):\n(?:    .*\n|\n)*?    (DEFAULT_\w+) = (\d+)$", text, re.M)
    assert m is not None
    return m.group(1), m.group(2), int(m.group(3))


# Appended to the edited file: the statements named in `changed` may differ, no other one.
_CHECK = '''
def _only_changed(original, changed):
    edited = open(__file__, encoding="utf-8").read().split("# ---- test ----")[0]
    before, after = _parts(original), _parts(edited)
    def asked(key):
        return any(c in key for c in changed)
    lost = sorted(k for k in before if not asked(k) and before[k] != after.get(k))
    added = sorted(k for k in after if not asked(k) and k not in before)
    assert not lost and not added, f"changed besides what was asked: {lost} {added}"
'''


def _test(original: str, changed: list[str], checks: str) -> str:
    """`changed`: substrings of the ast dumps (or names) of the statements the task may change."""
    return (_UNCHANGED + _CHECK + f"\n_ORIGINAL = {original!r}\n" + checks
            + f"\n_only_changed(_ORIGINAL, {changed!r})\n")


def _tasks() -> list[dict]:
    out = []

    def add(name: str, seed: int, instruction: str, changed: list[str], checks: str) -> None:
        text = _module(seed)
        out.append({"name": name, "file": "operations.py", "instruction": instruction, "input": text,
                    "test": _test(text, changed, checks)})

    add("set-max-retries", 11, "set MAX_RETRIES to 5", ["'MAX_RETRIES'"],
        "assert MAX_RETRIES == 5, MAX_RETRIES\nassert PAGE_SIZE == 50\n")
    add("page-size-words", 12, "change the page size to 100", ["'PAGE_SIZE'"],
        "assert PAGE_SIZE == 100, PAGE_SIZE\nassert MAX_RETRIES == 3\n")
    add("currency-usd", 13, 'make DEFAULT_CURRENCY "USD"', ["'DEFAULT_CURRENCY'"],
        'assert DEFAULT_CURRENCY == "USD", DEFAULT_CURRENCY\n')
    add("retries-from-env", 14,
        "read MAX_RETRIES from the STEER_RETRIES environment variable, defaulting to 3",
        ["'MAX_RETRIES'", "'os'"], '''
import importlib.util as _u, os as _os, sys as _sys
_os.environ["STEER_RETRIES"] = "7"
_spec = _u.spec_from_file_location("_again", __file__.replace(".py", "_again.py"))
open(__file__.replace(".py", "_again.py"), "w").write(open(__file__).read().split("# ---- test ----")[0])
_m = _u.module_from_spec(_spec); _spec.loader.exec_module(_m)
assert _m.MAX_RETRIES == 7 or _m.MAX_RETRIES == "7", _m.MAX_RETRIES
assert int(MAX_RETRIES) == 3, MAX_RETRIES
''')
    add("two-constants", 15, "set PAGE_SIZE to 25 and MAX_RETRIES to 10", ["'PAGE_SIZE'", "'MAX_RETRIES'"],
        "assert PAGE_SIZE == 25 and MAX_RETRIES == 10, (PAGE_SIZE, MAX_RETRIES)\n")
    add("add-timeout-constant", 16, "add a REQUEST_TIMEOUT constant of 30 seconds after MAX_RETRIES",
        ["'REQUEST_TIMEOUT'"], "assert REQUEST_TIMEOUT == 30, REQUEST_TIMEOUT\nassert MAX_RETRIES == 3\n")
    add("increase-retries", 17, "increase MAX_RETRIES by two", ["'MAX_RETRIES'"],
        "assert MAX_RETRIES == 5, MAX_RETRIES\n")
    for name, seed in (("class-constant", 18), ("class-constant-dotted", 19)):
        text = _module(seed)
        cls, const, value = _class_constant(text)
        words = (f"set {const} in {cls} to {value + 100}" if name == "class-constant"
                 else f"change {cls}.{const} to {value + 100}")
        out.append({"name": name, "file": "operations.py", "instruction": words, "input": text,
                    "test": _test(text, [f"{cls}.<"], f"assert {cls}.{const} == {value + 100}, {cls}.{const}\n")})
    add("currency-comment", 20, "DEFAULT_CURRENCY should be GBP; add a comment above it saying why it is not EUR",
        ["'DEFAULT_CURRENCY'"], 'assert DEFAULT_CURRENCY == "GBP", DEFAULT_CURRENCY\n'
        'assert "#" in open(__file__).read().split("DEFAULT_CURRENCY")[0].splitlines()[-1], "no comment above"\n')
    return out


TASKS = _tasks()
