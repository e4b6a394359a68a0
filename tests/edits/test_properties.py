"""Property tests: responses built from (old, new) apply to exactly new, in every format and
with the mistakes models really make; ambiguous or invented SEARCH applies to nothing."""

from __future__ import annotations

import difflib
import os

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from steer_tui.edits.apply import ApplyError, apply_response
from steer_tui.edits.blocks import ReplaceDelta
from steer_tui.edits.parse import StreamParser, parse

# Moderate by default (2 shared cores); STEER_HYPOTHESIS_EXAMPLES=2000 for a deep run.
EXAMPLES = int(os.environ.get("STEER_HYPOTHESIS_EXAMPLES", "60"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

WORDS = [
    "x = 1", "return x", "pass", "if a:", "else:", "def f(a):", "print(a)", "y += 2", "}",
    "# note", "for i in r:", "self.v = v", "value = compute(a, b)", "raise ValueError('bad')",
    "})", "end", "try:", "except KeyError:",
] + [f"call_{i}()" for i in range(12)]

line_st = st.one_of(
    st.just(""),
    st.builds(lambda ind, w: "    " * ind + w, st.integers(0, 3), st.sampled_from(WORDS)),
)
file_st = st.lists(line_st, min_size=1, max_size=30)


rich_line_st = st.one_of(
    line_st,
    st.builds(lambda ind, n: "    " * ind + f"step_{n}(state)", st.integers(0, 3), st.integers(0, 400)),
)
rich_file_st = st.lists(rich_line_st, min_size=8, max_size=30)


@st.composite
def change_st(draw, files=file_st):
    """(old lines, new lines, i, j, inserted): lines [i, j) of old become `inserted`."""
    old = draw(files)
    i = draw(st.integers(0, len(old)))
    j = draw(st.integers(i, min(len(old), i + 4)))
    k = draw(st.integers(0, 3))
    base = draw(st.integers(0, 10_000))
    # Fresh lines: never present in old, so "already applied" cannot be mistaken.
    ins = [("    " * draw(st.integers(0, 3))) + f"fresh_{base}_{n} = {n}" for n in range(k)]
    assume(j > i or ins)
    return old, old[:i] + ins + old[j:], i, j, ins


def _count(lines: list[str], s: list[str]) -> int:
    n = len(s)
    return sum(1 for k in range(len(lines) - n + 1) if lines[k : k + n] == s)


def _trim(s: list[str]) -> list[str]:
    a, b = 0, len(s)
    while a < b and not s[a].strip():
        a += 1
    while b > a and not s[b - 1].strip():
        b -= 1
    return s[a:b]


def unique_context(old: list[str], i: int, j: int) -> tuple[int, int] | None:
    """The smallest [a, b) around [i, j) whose lines, blank ends trimmed and compared with
    all whitespace stripped, occur once in old (so every tolerant strategy finds one place)."""
    norm = [x.strip() for x in old]
    a, b = i, j
    grow_down = True
    while True:
        t = _trim(norm[a:b])
        if t and _count(norm, t) == 1:
            return a, b
        if a == 0 and b == len(old):
            return None
        if (grow_down and b < len(old)) or a == 0:
            b += 1
        else:
            a -= 1
        grow_down = not grow_down


def block_parts(old, new, i, j, ins):
    ctx = unique_context(old, i, j)
    assume(ctx is not None)
    a, b = ctx
    search = old[a:b]
    replace = new[a : b + len(ins) - (j - i)]
    return a, search, replace


def text(lines: list[str]) -> str:
    return "".join(x + "\n" for x in lines)


def sr_block(search, replace, n=7, reverse=False, fence=False, prose=False):
    o, c = ("<", ">") if not reverse else (">", "<")
    body = f"{o * n} SEARCH\n{text(search)}{'=' * n}\n{text(replace)}{c * n} REPLACE\n"
    if fence:
        body = f"```python\n{body}```\n"
    if prose:
        body = f"Here is the fix for the problem you describe:\n\n{body}\nThis should work now.\n"
    return body


def hunk_body(search, replace, blank_prefix=" "):
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, search, replace, autojunk=False).get_opcodes():
        if tag == "equal":
            out += [(" " + x) if x else blank_prefix for x in search[i1:i2]]
        else:
            out += ["-" + x for x in search[i1:i2]]
            out += ["+" + x for x in replace[j1:j2]]
    return "".join(x + "\n" for x in out)


def check(old, new, response):
    res = apply_response(text(old), response)
    assert res.new_text == text(new)


# ------------------------------------------------------------------ exact formats


@SETTINGS
@given(change_st(), st.sampled_from([5, 7, 9]), st.booleans(), st.booleans(), st.booleans())
def test_search_replace_applies_to_exactly_new(ch, n, reverse, fence, prose):
    old, new, i, j, ins = ch
    _, search, replace = block_parts(old, new, i, j, ins)
    check(old, new, sr_block(search, replace, n, reverse, fence, prose))


@SETTINGS
@given(change_st(), st.sampled_from([" ", ""]), st.booleans())
def test_apply_patch_applies_to_exactly_new(ch, blank_prefix, fence):
    old, new, i, j, ins = ch
    _, search, replace = block_parts(old, new, i, j, ins)
    body = f"*** Begin Patch\n*** Update File: m.py\n@@\n{hunk_body(search, replace, blank_prefix)}*** End Patch\n"
    if fence:
        body = f"Patch:\n```\n{body}```\n"
    check(old, new, body)


@SETTINGS
@given(change_st(), st.booleans(), st.integers(-50, 500))
def test_udiff_applies_with_right_or_wrong_line_numbers(ch, right, wrong):
    old, new, i, j, ins = ch
    a, search, replace = block_parts(old, new, i, j, ins)
    start = a + 1 if right else max(1, wrong)
    body = f"--- a/m.py\n+++ b/m.py\n@@ -{start},{len(search)} +{start},{len(replace)} @@\n{hunk_body(search, replace)}"
    check(old, new, f"```diff\n{body}```\n")


@SETTINGS
@given(change_st(), st.integers(1, 8))
def test_streaming_in_any_chunks_gives_the_same_blocks(ch, size):
    old, new, i, j, ins = ch
    _, search, replace = block_parts(old, new, i, j, ins)
    resp = sr_block(search, replace, fence=True, prose=True) + "\n" + sr_block(replace, search)
    p = StreamParser()
    for k in range(0, len(resp), size):
        p.feed(resp[k : k + size])
    p.finish()
    assert p.result() == parse(resp)


@SETTINGS
@given(st.lists(change_st(), min_size=2, max_size=2))
def test_two_changes_in_one_response(chs):
    # Two independent changes of the same random file, made top to bottom.
    old = chs[0][0]
    _, new1, i1, j1, ins1 = chs[0]
    _, search1, replace1 = block_parts(old, new1, i1, j1, ins1)
    # second change applies to new1, below nothing in particular
    ch2 = chs[1]
    i2 = min(ch2[2], len(new1))
    j2 = min(max(ch2[3], i2), len(new1))
    ins2 = [x.replace("fresh_", "fresh2_") for x in ch2[4]]
    assume(j2 > i2 or ins2)
    new2 = new1[:i2] + ins2 + new1[j2:]
    _, search2, replace2 = block_parts(new1, new2, i2, j2, ins2)
    # the first block must be unique in old, the second in new1: both hold by construction
    check(old, new2, sr_block(search1, replace1) + "\n" + sr_block(search2, replace2))


# ------------------------------------------------------------------ model mistakes


@SETTINGS
@given(change_st(), st.sampled_from([" ", "  ", "\t"]))
def test_trailing_spaces_mistake(ch, ws):
    old, new, i, j, ins = ch
    _, search, replace = block_parts(old, new, i, j, ins)
    assume(any(x.strip() for x in search))
    check(old, new, sr_block([x + ws for x in search], [x + ws for x in replace]))


def _common_indent(lines):
    inds = [len(x) - len(x.lstrip()) for x in lines if x.strip()]
    return min(inds) if inds else 0


@SETTINGS
@given(change_st(), st.booleans())
def test_shifted_or_dropped_indentation_mistake(ch, drop):
    old, new, i, j, ins = ch
    _, search, replace = block_parts(old, new, i, j, ins)
    if drop:
        k = _common_indent(search)
        assume(k > 0)
        p = " " * k
        assume(all(x.startswith(p) for x in replace if x.strip()))
        s2 = [x[k:] if x.strip() else x for x in search]
        r2 = [x[k:] if x.strip() else x for x in replace]
    else:
        s2 = ["    " + x if x.strip() else x for x in search]
        r2 = ["    " + x if x.strip() else x for x in replace]
    check(old, new, sr_block(s2, r2, fence=True))


@SETTINGS
@given(change_st(), st.booleans())
def test_spurious_blank_line_mistake(ch, at_start):
    old, new, i, j, ins = ch
    a, search, replace = block_parts(old, new, i, j, ins)
    # A blank line where the file has none, next to a line with text (where the file has
    # blank lines, one more in SEARCH alone is the other mistake, whose REPLACE keeps the
    # file's: tests/edits/test_never_wrong.py; both read the same).
    b = a + len(search)
    if at_start:
        assume(search[0].strip() and (a == 0 or old[a - 1].strip()))
    else:
        assume(search[-1].strip() and (b == len(old) or old[b].strip()))
    if at_start:
        s2, r2 = [""] + search, [""] + replace
    else:
        s2, r2 = search + [""], replace + [""]
    try:
        res = apply_response(text(old), sr_block(s2, r2))
    except ApplyError as e:
        # Where the edit changes lines next to the blank lines at that end (or keeps no line
        # with text), whether REPLACE's blank lines are the file's or the spurious ones is
        # not certain: refusing is right, applying a guess is not.
        assert e.reason == "uncertain"
        return
    assert res.new_text == text(new)


@settings(SETTINGS, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(change_st(rich_file_st), st.integers(3, 6))
def test_elision_mistake(ch, more):
    old, new, i, j, ins = ch
    a, search, replace = block_parts(old, new, i, j, ins)
    # Widen the block by `more` unchanged lines after it, then let "..." stand for all but
    # the last of them: search/replace keep their heads, "..." and the same last line.
    end = a + len(search)
    assume(end + more <= len(old))
    extra = old[end : end + more]
    head_s, head_r, tail = search, replace, extra[-1:]
    assume(tail[0].strip() and any(x.strip() for x in head_s))
    s2 = head_s + ["    # ... existing code ..."] + tail
    r2 = head_r + ["    # ... existing code ..."] + tail
    # The tail must be found once after the head (otherwise refusing is right).
    norm = [x.strip() for x in old]
    assume(_count(norm[end:], [tail[0].strip()]) == 1)
    check(old, new, sr_block(s2, r2, fence=True, prose=True))


@SETTINGS
@given(change_st())
def test_fenced_block_with_prose_and_missing_end_marker(ch):
    old, new, i, j, ins = ch
    _, search, replace = block_parts(old, new, i, j, ins)
    resp = f"Change:\n```python\n<<<<<<< SEARCH\n{text(search)}=======\n{text(replace)}```\nThat is all.\n"
    check(old, new, resp)


# ------------------------------------------------------------------ refusals


@SETTINGS
@given(file_st, st.lists(line_st, min_size=1, max_size=4), file_st, file_st)
def test_ambiguous_search_applies_nothing(a, dup, b, c):
    assume(any(x.strip() for x in dup))
    old = a + dup + b + dup + c
    resp = sr_block(dup, ["fresh_replacement = 1"])
    with pytest.raises(ApplyError) as e:
        apply_response(text(old), resp)
    assert e.value.reason == "ambiguous"


@SETTINGS
@given(file_st, st.integers(0, 10_000), st.integers(1, 3))
def test_invented_search_applies_nothing(old, seed, k):
    invented = [f"invented_{seed}_{n}(x, y)" for n in range(k)]
    with pytest.raises(ApplyError) as e:
        apply_response(text(old), sr_block(invented, ["fresh = 1"]))
    assert e.value.reason == "not_found"


# Most generated changes are pure insertions, which the assume() below skips: a health check
# that counts filtered inputs failed this test on some seeds without finding anything wrong.
@settings(SETTINGS, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(change_st(), st.integers(0, 10_000))
def test_misquoted_changed_line_applies_nothing(ch, seed):
    old, new, i, j, ins = ch
    assume(j > i and any(x.strip() for x in old[i:j]))
    a, search, replace = block_parts(old, new, i, j, ins)
    # The model quotes a line it changes wrongly: that is never fuzzily forgiven.
    k = next(n for n in range(i, j) if old[n].strip()) - a
    bad = list(search)
    bad[k] = bad[k] + f"  # wrong {seed}"
    with pytest.raises(ApplyError):
        apply_response(text(old), sr_block(bad, replace))


@settings(max_examples=EXAMPLES * 2, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>=`~*@+- \n\tabSEARCHREPLACE.:/")), max_size=300), st.integers(1, 7))
def test_arbitrary_text_never_crashes(junk, size):
    region = "a\n" if size % 2 else None
    p = StreamParser(region_text=region)
    events = []
    for k in range(0, len(junk), size):
        events += p.feed(junk[k : k + size])
    events += p.finish()
    # chunking never changes the result, and each block's deltas add up to its replacement
    assert p.result() == parse(junk, region_text=region)
    for b in p.result().blocks:
        streamed = "".join(e.delta for e in events if isinstance(e, ReplaceDelta) and e.index == b.index)
        if b.kind == "search_replace" and not streamed.endswith("```\n"):
            assert streamed == b.replace
    try:
        apply_response("a\nb\nc\n", junk)
    except ApplyError:
        pass


POOL = [
    "<<<<<<< SEARCH", ">>>>>>> SEARCH", "=======", ">>>>>>> REPLACE", "<<<<<<< REPLACE", "```", "```python",
    "~~~", "*** Begin Patch", "*** Update File: a.py", "*** Add File: b.py", "*** End Patch",
    "*** End of File", "@@", "@@ def f():", "@@ -1,2 +1,2 @@", "--- a/a.py", "+++ b/a.py", "---",
    " context", "-old", "+new", "", "    code()", "prose words here.", "a", "b", "\\ No newline",
    "diff --git a/a.py b/a.py", "a.py", "# ... existing code ...",
]


@settings(max_examples=EXAMPLES * 3, deadline=None)
@given(st.lists(st.sampled_from(POOL), max_size=40), st.integers(1, 9), st.booleans(), st.booleans())
def test_structured_junk_streams_like_whole_and_never_crashes(lines, size, crlf, region):
    junk = ("\r\n" if crlf else "\n").join(lines)
    region_text = "a\nb\n" if region else None
    p = StreamParser(region_text=region_text)
    events = []
    for k in range(0, len(junk), size):
        events += p.feed(junk[k : k + size])
    events += p.finish()
    whole = parse(junk, region_text=region_text)
    assert p.result() == whole
    started = [e.index for e in events if type(e).__name__ == "BlockStarted"]
    ended = [e.index for e in events if type(e).__name__ in ("BlockComplete", "BlockDropped")]
    assert sorted(started) == sorted(ended) == list(range(len(started)))  # every block ends once
    for b in whole.blocks:
        assert b.search == "" or b.search.endswith("\n")
        assert b.replace == "" or b.replace.endswith("\n")
    try:
        apply_response("a\nb\nc\n", junk, region_text=region_text)
    except ApplyError:
        pass


@SETTINGS
@given(file_st, st.data(), st.booleans(), st.booleans())
def test_region_rewrite_applies_to_exactly_new(old, data, dedent, prose):
    a = data.draw(st.integers(0, len(old) - 1))
    b = data.draw(st.integers(a + 1, len(old)))
    region = old[a:b]
    base = " " * data.draw(st.sampled_from([0, 4, 8]))
    body = data.draw(st.lists(st.builds(lambda d, n: "    " * d + f"rewritten_{n}()", st.integers(0, 2), st.integers(0, 99)),
                              min_size=1, max_size=6))
    body[0] = body[0].lstrip()  # one line at the base indentation
    shown = body if dedent else [base + x for x in body]
    resp = ("Here is the rewritten code:\n" if prose else "") + "```python\n" + text(shown) + "```\n"
    if any(x.strip() == "def f(a):" for x in region):
        # A rewrite that shares no line with a region holding a definition, defines nothing and never
        # names it would delete it: refused (steer_tui.edits.anchor).
        with pytest.raises(ApplyError, match="without being asked to delete"):
            apply_response(text(old), resp, region_text=text(region), region_start=a)
        return
    res = apply_response(text(old), resp, region_text=text(region), region_start=a)
    # the rewrite lands at the region's own indentation, however the model indented it
    if any(x.strip() for x in region):
        ind = " " * min(len(x) - len(x.lstrip()) for x in region if x.strip())
        expect = old[:a] + [ind + x for x in body] + old[b:]
    else:
        expect = old[:a] + shown + old[b:]
    assert res.new_text == text(expect)
