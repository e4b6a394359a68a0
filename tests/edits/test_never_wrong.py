"""Never a wrong file: every model mistake the applier tolerates gives exactly the intended
file or a refusal (the file untouched), never a third result.

Files here have what real files have around an edit: trailing whitespace, tab indentation,
whitespace-only lines and runs of blank lines. The intended file is the clean edit applied:
every line the edit does not change keeps the file's own bytes. The model's answer is that
edit with imitated mistakes, in SEARCH/REPLACE, apply_patch or a unified diff with right or
wrong line numbers.
"""

from __future__ import annotations

import difflib
import os

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from steer_tui.edits.apply import ApplyError, apply_response

EXAMPLES = int(os.environ.get("STEER_HYPOTHESIS_EXAMPLES", "40"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

WORDS = [
    "x = 1", "return x", "pass", "if a:", "else:", "def f(a):", "print(a)", "y += 2", "}",
    "# note", "for i in r:", "self.v = v", "value = compute(a, b)", "raise ValueError('bad')",
    "try:", "except KeyError:", "total = total + item.price",
] + [f"call_{i}()" for i in range(10)]
TRAILING = ["", "", "", "", " ", "  ", "\t"]
ELISION = "# ... existing code ..."


@st.composite
def files(draw):
    """(lines, indent unit): code lines with trailing whitespace here and there, blank runs
    (some whitespace-only), indented with spaces or with tabs throughout."""
    unit = draw(st.sampled_from(["    ", "\t"]))
    n = draw(st.integers(6, 28))
    lines = []
    for _ in range(n):
        kind = draw(st.integers(0, 9))
        if kind < 2:
            lines.append(draw(st.sampled_from(["", "", "", "    ", "\t"])))
        elif kind == 2:
            lines.append(unit * draw(st.integers(0, 3)) + f"step_{draw(st.integers(0, 300))}(state)")
        else:
            lines.append(unit * draw(st.integers(0, 3)) + draw(st.sampled_from(WORDS)) + draw(st.sampled_from(TRAILING)))
    return lines, unit


def _norm(x: str) -> str:
    return x.strip()


def _count(hay: list[str], needle: list[str]) -> int:
    n = len(needle)
    return sum(1 for k in range(len(hay) - n + 1) if hay[k : k + n] == needle)


def _trim(s: list[str]) -> list[str]:
    a, b = 0, len(s)
    while a < b and not s[a]:
        a += 1
    while b > a and not s[b - 1]:
        b -= 1
    return s[a:b]


def unique_context(old: list[str], i: int, j: int) -> tuple[int, int] | None:
    """The smallest [a, b) around [i, j) whose lines (blank ends trimmed, compared with all
    surrounding whitespace stripped) occur once in old, starting and ending with text."""
    norm = [_norm(x) for x in old]
    a, b = i, j
    down = True
    while True:
        t = _trim(norm[a:b])
        if t and _count(norm, t) == 1 and norm[a] and norm[b - 1]:
            return a, b
        if a == 0 and b == len(old):
            return None
        if (down and b < len(old)) or a == 0:
            b += 1
        else:
            a -= 1
        down = not down


@st.composite
def edits(draw):
    """(old, intended, search, replace, start, unit): lines [i, j) of old become fresh lines;
    search/replace are the clean block around them, as the model would quote the file."""
    old, unit = draw(files())
    i = draw(st.integers(0, len(old)))
    j = draw(st.integers(i, min(len(old), i + 3)))
    k = draw(st.integers(0 if j > i else 1, 3))
    near = next((x for x in old[i:] + old[:i][::-1] if x.strip()), "")
    depth = len(near) - len(near.lstrip())
    tag = draw(st.integers(0, 10_000))
    ins = [near[:depth] + f"fresh_{tag}_{n} = {n}" for n in range(k)]
    ctx = unique_context(old, i, j)
    assume(ctx is not None)
    a, b = ctx
    new = old[:i] + ins + old[j:]
    return old, new, old[a:b], new[a : b + len(ins) - (j - i)], a, unit


def text(lines: list[str], nl: str = "\n") -> str:
    return "".join(x + nl for x in lines)


def hunk(search: list[str], replace: list[str]) -> list[str]:
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, search, replace, autojunk=False).get_opcodes():
        if tag == "equal":
            out += [" " + x for x in search[i1:i2]]
        else:
            out += ["-" + x for x in search[i1:i2]] + ["+" + x for x in replace[j1:j2]]
    return out


def response(fmt: str, search: list[str], replace: list[str], start: int, nl: str = "\n") -> str:
    if fmt == "sr":
        body = ["<<<<<<< SEARCH", *search, "=======", *replace, ">>>>>>> REPLACE"]
        return "Here is the change:\n" + text(["```python", *body, "```"], nl)
    if fmt == "patch":
        return text(["*** Begin Patch", "*** Update File: m.py", "@@", *hunk(search, replace), "*** End Patch"], nl)
    # unified diff; `start` is a line number, right or wrong
    head = f"@@ -{start},{len(search)} +{start},{len(replace)} @@"
    return text(["```diff", "--- a/m.py", "+++ b/m.py", head, *hunk(search, replace), "```"], nl)


def outcome(old: list[str], resp: str) -> str | None:
    """The new text, or None for a refusal."""
    try:
        return apply_response(text(old), resp).new_text
    except ApplyError:
        return None


def _rstripped(x: str) -> list[str]:
    return [ln.rstrip() for ln in x.split("\n")]


def never_wrong(old, new, resp, must_apply=False, alike=None):
    got = outcome(old, resp)
    if got is None or got == text(old):
        assert not must_apply, "refused an edit it can place"
        return
    if alike and got != text(new):
        # The model wrote lines that differ in the file only by trailing whitespace alike
        # (blank lines, a repeated line) and removes some of them: which copy stays is not
        # the model's to say. But every line is one of the block's own, byte for byte, in
        # place of one alike.
        assert _rstripped(got) == _rstripped(text(new)), "a third result"
        want = text(new).split("\n")
        for g, w in zip(got.split("\n"), want):
            assert g == w or (g in alike and sum(x.rstrip() == w.rstrip() for x in alike) > 1), "bytes not the file's"
        return
    assert got == text(new), "a third result: neither the intended file nor the file untouched"


FORMATS = st.sampled_from(["sr", "patch", "udiff"])


def _line_number(data, start: int) -> int:
    return start + 1 if data.draw(st.booleans()) else data.draw(st.integers(1, 400))


# ------------------------------------------------------------------ mistakes


@SETTINGS
@given(edits(), FORMATS, st.data())
def test_model_drops_or_adds_trailing_whitespace(ed, fmt, data):
    old, new, search, replace, start, _ = ed
    how = data.draw(st.sampled_from(["strip both", "add to search", "add to both", "strip search"]))
    ws = data.draw(st.sampled_from([" ", "  ", "\t"]))
    if how == "strip both":
        s2, r2 = [x.rstrip() for x in search], [x.rstrip() for x in replace]
    elif how == "strip search":
        s2, r2 = [x.rstrip() for x in search], replace
    elif how == "add to search":
        s2, r2 = [x + ws for x in search], replace
    else:
        s2, r2 = [x + ws for x in search], [x + ws for x in replace]
    # Lines the edit keeps keep the file's trailing whitespace; new lines have none.
    never_wrong(old, new, response(fmt, s2, r2, _line_number(data, start)), must_apply=fmt == "sr", alike=search)


@SETTINGS
@given(edits(), FORMATS, st.data())
def test_model_shifts_or_outdents_the_indentation(ed, fmt, data):
    old, new, search, replace, start, unit = ed
    assume(unit == "    ")
    if data.draw(st.booleans()):
        s2 = ["    " + x if x.strip() else x for x in search]
        r2 = ["    " + x if x.strip() else x for x in replace]
    else:
        inds = [len(x) - len(x.lstrip()) for x in search + replace if x.strip()]
        k = min(inds)
        assume(k > 0 and all(x[:k].strip() == "" for x in search + replace if x.strip()))
        s2 = [x[k:] if x.strip() else x for x in search]
        r2 = [x[k:] if x.strip() else x for x in replace]
    never_wrong(old, new, response(fmt, s2, r2, _line_number(data, start)))


@SETTINGS
@given(edits(), FORMATS, st.data())
def test_model_writes_spaces_for_tabs(ed, fmt, data):
    old, new, search, replace, start, unit = ed
    assume(unit == "\t" and any(x.startswith("\t") for x in search if x.strip()))

    def spaces(x):
        body = x.lstrip("\t")
        return "    " * (len(x) - len(body)) + body.rstrip() if x.strip() else ""

    never_wrong(old, new, response(fmt, [spaces(x) for x in search], [spaces(x) for x in replace],
                                   _line_number(data, start)), alike=search)


@SETTINGS
@given(edits(), st.data())
def test_model_adds_blank_lines_at_the_ends(ed, data):
    old, new, search, replace, start, _ = ed
    lead = data.draw(st.integers(0, 2))
    trail = data.draw(st.integers(0, 2))
    assume(lead or trail)
    both = data.draw(st.booleans())  # the model's picture of the file (both sides) or SEARCH only
    ops = difflib.SequenceMatcher(None, search, replace, autojunk=False).get_opcodes()
    if both:
        # On both sides next to lines the edit keeps (next to a change, REPLACE's blank line
        # could as well be the file's: refusing or the cheaper reading is then right).
        assume(not lead or ops[0][0] == "equal")
        assume(not trail or ops[-1][0] == "equal")
    if not both:
        # Blank lines in SEARCH alone are a mistake only where the file has none: where it
        # has them, quoting them and leaving them out of REPLACE deletes them.
        end = start + len(search)
        assume(not lead or start == 0 or old[start - 1].strip())
        assume(not trail or end == len(old) or old[end].strip())
    s2 = [""] * lead + search + [""] * trail
    r2 = ([""] * lead + replace + [""] * trail) if both else replace
    never_wrong(old, new, response("sr", s2, r2, start))


@SETTINGS
@given(edits(), st.data())
def test_search_starts_with_one_blank_line_more_than_the_file(ed, data):
    """The 60 wrong files of issue 11: REPLACE starts with the blank line the file has."""
    old, new, search, replace, start, _ = ed
    a = start
    assume(a > 0 and old[a - 1].strip() == "" and (a < 2 or old[a - 2].strip()))
    # The block quotes the file's one blank line before it, with one more in SEARCH.
    s2 = ["", old[a - 1].rstrip()] + search
    r2 = [old[a - 1].rstrip()] + replace
    # Certain when the block keeps a line with text to place the blank lines by; a block
    # that replaces every line may equally mean to delete the blank line: then it refuses.
    keeps = {x.strip() for x in search if x.strip()} & {x.strip() for x in replace if x.strip()}
    never_wrong(old, new, response("sr", s2, r2, start), must_apply=bool(keeps))


@SETTINGS
@given(edits(), FORMATS, st.booleans())
def test_crlf_answer(ed, fmt, trailing_ws_lost):
    old, new, search, replace, start, _ = ed
    s2, r2 = search, replace
    if trailing_ws_lost:
        s2, r2 = [x.rstrip() for x in search], [x.rstrip() for x in replace]
    never_wrong(old, new, response(fmt, s2, r2, start + 1, nl="\r\n"), must_apply=fmt == "sr",
                alike=search if trailing_ws_lost else None)


@SETTINGS
@given(edits(), st.integers(1, 4), st.booleans())
def test_elided_context(ed, more, strip_ws):
    old, new, search, replace, start, _ = ed
    # Widen the block by `more` unchanged lines after it; "..." stands for all but the last.
    end = start + len(search)
    assume(end + more <= len(old) and old[end + more - 1].strip())
    tail = [old[end + more - 1]]
    assume(_count([_norm(x) for x in old[end:]], [_norm(tail[0])]) == 1)
    s2, r2 = search + [ELISION] + tail, replace + [ELISION] + tail
    if strip_ws:
        s2, r2 = [x.rstrip() for x in s2], [x.rstrip() for x in r2]
    never_wrong(old, new, response("sr", s2, r2, start), alike=old[start : start + len(search) + more] if strip_ws else None)


def _typo(line: str, at: int) -> str:
    body = line.strip()
    k = at % len(body)
    return line.replace(body, body[:k] + ("z" if body[k] != "z" else "q") + body[k + 1 :], 1)


@SETTINGS
@given(edits(), st.integers(0, 1000), st.sampled_from(["both", "search only", "replace only"]), FORMATS)
def test_typo_in_a_line_the_edit_keeps(ed, at, where, fmt):
    old, new, search, replace, start, _ = ed
    # A context line: in SEARCH and REPLACE alike, not one the edit changes.
    ops = difflib.SequenceMatcher(None, search, replace, autojunk=False).get_opcodes()
    pairs = [(i1 + d, j1 + d) for tag, i1, i2, j1, _ in ops if tag == "equal" for d in range(i2 - i1)]
    pairs = [(si, ri) for si, ri in pairs if search[si].strip()]
    assume(pairs)
    si, ri = pairs[at % len(pairs)]
    s2, r2 = list(search), list(replace)
    bad = _typo(search[si], at)
    if where != "replace only":
        s2[si] = bad
    if where != "search only":
        r2[ri] = bad
    # The file's line stays as it is, or nothing is applied; the typo never lands in the
    # file (with the typo in REPLACE alone the model rewrites that line: then it may).
    got = outcome(old, response(fmt, s2, r2, start + 1))
    if where == "replace only" and got is not None:
        changed = new[:start] + r2 + new[start + len(replace) :]
        assert got in (text(new), text(changed))
        return
    assert got is None or got in (text(new), text(old))


@SETTINGS
@given(edits(), st.integers(0, 1000))
def test_typo_in_a_line_the_edit_changes_is_refused(ed, at):
    old, new, search, replace, start, _ = ed
    ops = difflib.SequenceMatcher(None, search, replace, autojunk=False).get_opcodes()
    changed = [i for tag, i1, i2, *_ in ops if tag in ("replace", "delete") for i in range(i1, i2) if search[i].strip()]
    assume(changed)
    s2 = list(search)
    k = changed[at % len(changed)]
    s2[k] = _typo(s2[k], at)
    assert outcome(old, response("sr", s2, replace, start)) is None


@SETTINGS
@given(edits(), st.data())
def test_mistakes_combined(ed, data):
    old, new, search, replace, start, unit = ed
    s2, r2 = list(search), list(replace)
    alike = old[max(0, start - 1) : start + len(search)] if data.draw(st.booleans()) else None
    if alike:
        s2, r2 = [x.rstrip() for x in s2], [x.rstrip() for x in r2]
    if unit == "    " and data.draw(st.booleans()):
        s2 = ["    " + x if x.strip() else x for x in s2]
        r2 = ["    " + x if x.strip() else x for x in r2]
    if data.draw(st.booleans()):
        s2 = [""] + s2
        # In SEARCH alone only where the file has no blank line there (else it is a deletion).
        if start > 0 and not old[start - 1].strip() or data.draw(st.booleans()):
            r2 = [""] + r2
    nl = "\r\n" if data.draw(st.booleans()) else "\n"
    never_wrong(old, new, response(data.draw(FORMATS), s2, r2, _line_number(data, start), nl), alike=alike)


# ------------------------------------------------------------------ the cases from the issue, by hand


def test_the_blank_line_both_have_stays():
    old = ["x = 1", "", "def f():", "    return 1", ""]
    resp = "<<<<<<< SEARCH\n\n\ndef f():\n    return 1\n=======\n\ndef f():\n    return 2\n>>>>>>> REPLACE\n"
    assert apply_response(text(old), resp).new_text == "x = 1\n\ndef f():\n    return 2\n\n"


def test_a_blank_line_both_sides_open_with_keeps_the_files_spaces():
    # Found by test_mistakes_combined: REPLACE's blank line is SEARCH's first, the file's line of
    # spaces; paired with the blank line before `return x` instead, the spaces were lost.
    old = ["", "    ", "x = 1", "", "", "return x"]
    resp = "<<<<<<< SEARCH\n\nx = 1\n\n\nreturn x\n=======\n\nreturn x\n>>>>>>> REPLACE\n"
    assert apply_response(text(old), resp).new_text == "\n    \nreturn x\n"


def test_unchanged_lines_keep_their_trailing_whitespace_and_tabs():
    old = ["def f():  ", "\tx = 1\t", "\treturn x ", ""]
    # The model lost the trailing whitespace and wrote spaces for tabs.
    resp = "<<<<<<< SEARCH\ndef f():\n    x = 1\n    return x\n=======\ndef f():\n    x = 2\n    return x\n>>>>>>> REPLACE\n"
    assert apply_response(text(old), resp).new_text == "def f():  \n\tx = 2\n\treturn x \n\n"


def test_search_with_trailing_noise_keeps_the_files_lines():
    old = ["a = 1", "b = 2  ", "c = 3", "d = 4"]
    resp = "<<<<<<< SEARCH\na = 1   \nb = 2   \nc = 3   \n=======\na = 1\nb = 2\nc = 30\n>>>>>>> REPLACE\n"
    assert apply_response(text(old), resp).new_text == "a = 1\nb = 2  \nc = 30\nd = 4\n"


def test_a_typo_in_a_changed_line_is_refused_with_feedback():
    old = ["def area(w, h):", "    result = w * h", "    log(result)", "    return result", ""]
    resp = ("<<<<<<< SEARCH\ndef area(w, h):\n    result = w * h\n    log(reslt)\n    return result\n=======\n"
            "def area(w, h):\n    result = w * h\n    return result\n>>>>>>> REPLACE\n")
    try:
        apply_response(text(old), resp)
    except ApplyError as e:
        assert "log(reslt)" in e.feedback or "log(result)" in e.feedback
    else:
        raise AssertionError("a misquoted line the edit deletes was applied")


def test_a_typo_in_a_kept_line_leaves_that_line_as_the_file_has_it():
    old = ["def area(w, h):", "    result = w * h", "    log(result)", "    return result", ""]
    resp = ("<<<<<<< SEARCH\ndef area(w, h):\n    result = w * h\n    log(reslt)\n    return result\n=======\n"
            "def area(w, h):\n    result = w * h * 2\n    log(reslt)\n    return result\n>>>>>>> REPLACE\n")
    got = apply_response(text(old), resp).new_text
    assert got == "def area(w, h):\n    result = w * h * 2\n    log(result)\n    return result\n\n"
