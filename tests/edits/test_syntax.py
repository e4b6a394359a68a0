"""steer_tui.edits.syntax: a proposal that stops a Python file from parsing is found, and the hunk that does it."""

from steer_tui.edits.syntax import SyntaxProblem, blame, check, is_python, parse_error, parses

STACK = '''class Stack:
    def __init__(self, limit):
        self.limit = limit
        self.items = []

    def pop(self):
        return self.items.pop()

    def size(self):
        return len(self.items)
'''


def lines(text):
    return text.splitlines()


def apply(text, hunks):
    out, pos, old = [], 0, lines(text)
    for start, end, new in sorted(hunks):
        out += old[pos:start] + list(new)
        pos = end
    return "\n".join(out + old[pos:]) + "\n"


def test_python_paths():
    assert is_python("a/b.py") and is_python("x.PYI") and not is_python("a.txt") and not is_python(None)


def test_parses_and_error():
    assert parses(STACK)
    err = parse_error("def f(:\n    pass\n")
    assert err is not None and err.lineno == 1
    assert parse_error("x = 1\n\tif x:\n") is not None  # IndentationError counts
    assert parse_error("a = '\x00'\x00\n") is not None  # NUL bytes are an error, not a crash


def test_a_good_edit_is_no_problem():
    hunks = [(5, 7, ["    def pop(self):", '        """Remove and return the top item."""', "        return self.items.pop()"])]
    assert check("stack.py", STACK, apply(STACK, hunks), hunks) is None


def test_the_issue_edit_is_flagged_with_its_hunk():
    # A docstring hunk that is fine, then a prose answer that replaced a method.
    hunks = [(5, 6, ["    def pop(self):", '        """Pop."""']),
             (8, 10, ["    def size(self) -> int:", "        Returns the size of the stack"])]
    new = apply(STACK, hunks)
    problem = check("pkg/stack.py", STACK, new, hunks)
    assert isinstance(problem, SyntaxProblem)
    assert problem.hunk == 1
    assert problem.line == 11  # the new text's line: the first hunk added one
    assert "hunk 2" in problem.describe() and "line 11" in problem.describe()


def test_hunks_in_any_order_name_the_index_given():
    good = (5, 6, ["    def pop(self):", '        """Pop."""'])
    bad = (1, 2, ["    def __init__(self, limit) ->:"])
    assert blame(STACK, [good, bad]) == 1
    assert blame(STACK, [bad, good]) == 0


def test_two_hunks_that_break_it_only_together():
    # Opening a bracket in one hunk and closing it in another parses; dropping the closer does not.
    hunks = [(2, 3, ["        self.limit = (limit"]), (3, 4, ["        )", "        self.items = []"])]
    assert check("s.py", STACK, apply(STACK, hunks), hunks) is None
    hunks = [(2, 3, ["        self.limit = (limit"]), (8, 10, ["    def size(self):", "        return 0"])]
    problem = check("s.py", STACK, apply(STACK, hunks), hunks)
    assert problem is not None and problem.hunk == 0


def test_not_judged_when_the_original_did_not_parse_or_not_python():
    broken = STACK.replace("def pop(self):", "def pop(self:")
    assert check("s.py", broken, broken + "x = (\n", [(10, 10, ["x = ("])]) is None
    assert check("notes.txt", STACK, STACK + "def (\n", [(10, 10, ["def ("])]) is None


def test_no_hunks_still_reports_the_problem():
    problem = check("s.py", STACK, STACK + "def (\n")
    assert problem is not None and problem.hunk is None and problem.line == 11
