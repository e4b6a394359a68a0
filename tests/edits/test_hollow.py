"""An answer that keeps a function's signature and drops its code is refused, not written."""

from __future__ import annotations

from steer_tui.edits.hollow import asks_to_stub, hollowed
from steer_tui.edits.livediff import LiveDiff
from steer_tui.edits.proposal import ProposalBuilder

CALC = '''class Stats:
    def mean(self, values):
        total = 0
        for v in values:
            total += v
        return total / len(values)

    def size(self, values):
        """How many."""
        ...


def add(a, b):
    return a + b
'''


def test_a_body_left_with_only_a_docstring_is_found_by_qualified_name():
    new = CALC.replace("        total = 0\n        for v in values:\n            total += v\n        return total / len(values)\n",
                       '        """The average."""\n')
    assert hollowed(CALC, new) == ["Stats.mean"]
    assert hollowed(CALC, new.replace("return a + b", "pass")) == ["Stats.mean", "add"]
    # A body that was a stub already, a removed function, a file that does not parse: not this check's.
    assert hollowed(CALC, CALC.replace("        ...\n", "        pass\n")) == []
    assert hollowed(CALC, CALC.replace("def add(a, b):\n    return a + b\n", "")) == []
    assert hollowed(CALC, CALC + "def broken(:\n") == []
    # A shorter body with code is an edit, not a hollowed function.
    assert hollowed(CALC, CALC.replace("        total = 0\n        for v in values:\n            total += v\n"
                                       "        return total / len(values)\n", "        return sum(values) / len(values)\n")) == []


def _judge(answer: str, instruction: str):
    live = LiveDiff(CALC.splitlines())
    builder = ProposalBuilder(live, (1, 6), instruction, "calc.py")
    builder.feed(answer)
    builder.finish()
    return builder.judge(CALC)


def test_the_rewrite_that_hollows_a_method_is_refused_with_feedback():
    answer = '```python\n    def mean(self, values):\n        """The average of `values`."""\n```\n'
    verdict = _judge(answer, "add a docstring to mean")
    assert verdict.status == "refused" and "`Stats.mean`" in verdict.reason
    assert "Write each function out in full" in verdict.feedback


def test_an_instruction_that_asks_for_a_stub_gets_one():
    assert asks_to_stub("replace mean's body with pass") and asks_to_stub("make mean a stub")
    assert asks_to_stub("empty the function") and not asks_to_stub("add a docstring to mean")
    assert not asks_to_stub("make mean return 0.0 for an empty list")
    answer = '```python\n    def mean(self, values):\n        pass\n```\n'
    verdict = _judge(answer, "make mean a stub")
    assert verdict.status == "proposal" and "total = 0" not in verdict.new_text
