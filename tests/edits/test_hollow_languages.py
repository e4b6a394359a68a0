"""steer_tui.edits.hollow beyond Python: a function whose body an answer emptied (or left only comments in), by the grammar."""

import pytest

from steer_tui.edits.hollow import hollowed
from tests.lang.samples import by_suffix

# (file, a function's body as it is, the same body hollowed: comments alone or nothing)
CASES = [
    (".js", "    return this.items.reduce((sum, item) => sum + item.price, 0);\n",
     "    // Sums the prices.\n", "Cart.total"),
    (".ts", '  if (s.area() > 10) {\n    return "big";\n  }\n  return "small";\n', "", "describe"),
    (".go", "\tq.items = append(q.items, x)\n", "\t// append x\n", "Queue.Push"),
    (".rs", "        (self.x * self.x + self.y * self.y).sqrt()\n", "        // the norm\n", "Point.norm"),
    (".java", '        return "Account(" + balance + ")";\n', "        /* the account */\n", "Account.toString"),
    (".rb", "      @items.push(x)\n      self\n", "      # push it\n", "Collections.Stack.push"),
    (".c", "    int n = 0;\n    while (head) {\n        n++;\n        head = head->next;\n    }\n    return n;\n",
     "    /* count */\n", "length"),
    (".sh", "    build\n    rsync -a dist/ \"$HOST:/srv\"\n", "    # todo\n    :\n", None),
]


@pytest.mark.parametrize("suffix, body, empty, name", CASES, ids=[c[0] for c in CASES])
def test_a_hollowed_function_is_found(suffix, body, empty, name):
    s = by_suffix(suffix)
    assert s.text.count(body) == 1
    found = hollowed(s.text, s.text.replace(body, empty), s.path)
    # Bash's `:` is a command: code, so the function is not hollow (a placeholder there is the user's call).
    assert found == ([name] if name else [])


@pytest.mark.parametrize("suffix", [c[0] for c in CASES])
def test_a_good_edit_or_a_deletion_is_not_hollowing(suffix):
    s = by_suffix(suffix)
    assert hollowed(s.text, s.text.replace(*s.good), s.path) == []
    assert hollowed(s.text, s.text.replace(*s.breaks), s.path) == []  # does not parse: not judged


def test_an_unknown_language_is_not_judged():
    old = "function f() {\n  return 1;\n}\n"
    assert hollowed(old, "function f() {\n}\n", "f.js") == ["f"]
    assert hollowed(old, "function f() {\n}\n", "f.txt") == []
