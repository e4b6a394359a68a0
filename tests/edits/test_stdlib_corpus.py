"""A corpus drill on real code: random edits of Python's own standard library files, sent
in every format with the mistakes models make. No file may come out wrong; nearly all apply.
(The refusals are short quotes that are genuinely ambiguous or too garbled to place.)"""

from __future__ import annotations

import difflib
import glob
import os
import random

from steer_tui.edits.apply import ApplyError, apply_response

CASES = int(os.environ.get("STEER_CORPUS_CASES", "300"))  # a deep run: STEER_CORPUS_CASES=5000
SEED = int(os.environ.get("STEER_CORPUS_SEED", "20261121"))
STDLIB = sorted(glob.glob(os.path.join(os.path.dirname(os.__file__), "*.py")))


def text(lines):
    return "".join(x + "\n" for x in lines)


def with_mistake(search, replace, kind):
    if kind == "trailing":
        return [x + "  " for x in search], [x + " " for x in replace]
    if kind == "dedent":
        ind = min((len(x) - len(x.lstrip()) for x in search + replace if x.strip()), default=0)
        return [x[ind:] for x in search], [x[ind:] for x in replace]
    if kind == "indent":
        return ["    " + x if x.strip() else x for x in search], ["    " + x if x.strip() else x for x in replace]
    if kind == "blank":
        return [""] + search, [""] + replace
    if kind == "fence_inside":
        return ["```python"] + search + ["```"], ["```python"] + replace + ["```"]
    if kind == "curly":
        f = lambda x: x.replace('"', "\u201c", 1).replace('"', "\u201d", 1)  # noqa: E731
        return [f(x) for x in search], [f(x) for x in replace]
    if kind == "misquote":
        # a typo in a context line before the change (identical on both sides)
        k = 0
        while k < min(len(search), len(replace)) and search[k] == replace[k]:
            k += 1
        eq = [i for i in range(k) if len(search[i].strip()) > 12]
        if eq:
            i = eq[0]
            bad = search[i][:-2] + search[i][-1:]
            return search[:i] + [bad] + search[i + 1 :], replace[:i] + [bad] + replace[i + 1 :]
    return search, replace


def response(fmt, s2, r2, a, rng):
    if fmt == "sr":
        return f"Here is the change:\n```python\n<<<<<<< SEARCH\n{text(s2)}=======\n{text(r2)}>>>>>>> REPLACE\n```\n"
    body = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, s2, r2, autojunk=False).get_opcodes():
        if tag == "equal":
            body += [" " + x for x in s2[i1:i2]]
        else:
            body += ["-" + x for x in s2[i1:i2]] + ["+" + x for x in r2[j1:j2]]
    if fmt == "patch":
        return "*** Begin Patch\n*** Update File: x.py\n@@\n" + text(body) + "*** End Patch\n"
    start = max(1, a + rng.randint(-5, 50))  # line numbers right or wrong: hints only
    return f"```diff\n--- a/x.py\n+++ b/x.py\n@@ -{start},9 +{start},9 @@\n" + text(body) + "```\n"


def test_stdlib_edit_drill_never_leaves_a_file_wrong():
    rng = random.Random(SEED)
    done = applied = 0
    wrong = []
    sources = {}
    while done < CASES:
        path = rng.choice(STDLIB)
        if path not in sources:
            with open(path, encoding="utf-8", errors="replace") as f:
                sources[path] = f.read().split("\n")[:-1]
        old = sources[path]
        if len(old) < 20:
            continue
        i = rng.randrange(len(old) - 5)
        j = i + rng.choice([0, 1, 1, 2, 3])
        ind = old[i][: len(old[i]) - len(old[i].lstrip())]
        ins = [ind + f"new_stmt_{done}_{q}(x)" for q in range(rng.choice([0, 1, 1, 2]))]
        if j > i and rng.random() < 0.5 and old[i].strip():
            ins = [old[i] + f"  # changed {done}"] + ins
        if j == i and not ins:
            continue
        new = old[:i] + ins + old[j:]
        extra = rng.choice([1, 2, 3, 4])
        a, b = max(0, i - extra), min(len(old), j + extra)
        search, replace = old[a:b], new[a : b + len(ins) - (j - i)]
        kind = rng.choice(["none", "none", "trailing", "dedent", "indent", "blank", "fence_inside", "curly", "misquote"])
        s2, r2 = with_mistake(search, replace, kind)
        resp = response(rng.choice(["sr", "patch", "udiff"]), s2, r2, a, rng)
        done += 1
        try:
            res = apply_response(text(old), resp)
        except ApplyError:
            continue
        if res.new_text == text(new):
            applied += 1
        elif not (res.new_text == text(old) and res.already_applied):
            wrong.append((path, kind, resp))
    print(f"stdlib drill: {applied} of {done} applied, {len(wrong)} wrong, the rest refused")
    assert wrong == []
    assert applied >= 0.9 * done, f"only {applied} of {done} applied"
