"""Which requests ask for a class's docstring alone, and the answer's text with only that docstring."""

from __future__ import annotations

import pytest

from steer_tui.edits.class_doc import (
    DOC_CLOSE,
    asked_class,
    docstring_place,
    docstring_prefix,
    only_the_docstring,
    repeats_module_doc,
    saying_what,
)

SOURCE = '''"""Shapes."""


class Rect:
    def __init__(self, w, h):
        self.w, self.h = w, h

    def area(self):
        return self.w * self.h


class Outer:
    class Inner:
        x = 1
'''


@pytest.mark.parametrize("words, name", [
    ("add a docstring to the Rect class", "Rect"),
    ("Add a docstring to class Rect", "Rect"),
    ("also add a short docstring to Rect", "Rect"),
    ("write a one-line docstring for the Rect class.", "Rect"),
    ("give the Rect class a docstring", "Rect"),
    ("and give `Rect` a docstring", "Rect"),
    ("Rect needs a docstring", "Rect"),
    ("add a docstring to the Inner class", "Outer.Inner"),
    ("document the Rect class", None),  # may mean its methods too
    ("add a docstring to area", None),  # a method, not a class
    ("add docstrings to the Rect class and its methods", None),
    ("add a docstring to the Circle class", None),  # no such class
    ("make Rect a dataclass\nalso add a docstring to the Rect class", None),  # more was asked
])
def test_which_requests_ask_for_a_class_docstring_alone(words, name):
    assert asked_class(words, SOURCE) == name


def test_only_the_class_docstring_is_taken_from_the_answer():
    answer = SOURCE.replace('"""Shapes."""', '"""Shapes and more."""').replace(
        "class Rect:\n", 'class Rect:\n    """A rectangle,\n    w wide and h high."""\n').replace(
        "    def area(self):\n", '    def area(self):\n        """The area."""\n')
    want = SOURCE.replace("class Rect:\n", 'class Rect:\n    """A rectangle,\n    w wide and h high."""\n')
    assert only_the_docstring(SOURCE, answer, "Rect") == want


def test_a_docstring_at_another_indent_is_moved_to_the_class_body_indent():
    old = "class Rect:\n    x = 1\n"
    assert only_the_docstring(old, 'class Rect:\n  """A rect."""\n  x = 1\n', "Rect") == 'class Rect:\n    """A rect."""\n    x = 1\n'


def test_a_docstring_with_other_letters_and_a_comment_after_it_is_taken_whole():
    old = "class Rect:\n    x = 1\n"
    new = 'class Rect:\n    """Un rectángulo, größer als 0."""  # ok\n    x = 1\n'
    assert only_the_docstring(old, new, "Rect") == 'class Rect:\n    """Un rectángulo, größer als 0."""  # ok\n    x = 1\n'


def test_a_docstring_the_class_had_is_replaced():
    old = 'class Rect:\n    """Old."""\n\n    x = 1\n'
    assert only_the_docstring(old, 'class Rect:\n    """New,\n    longer."""\n    x = 2\n', "Rect") == \
        'class Rect:\n    """New,\n    longer."""\n\n    x = 1\n'


def test_no_docstring_of_its_own_is_none():
    assert only_the_docstring(SOURCE, SOURCE, "Rect") is None
    assert only_the_docstring(SOURCE, SOURCE.replace("class Rect:", "class Square:"), "Rect") is None
    had = SOURCE.replace("class Rect:\n", 'class Rect:\n    """Same."""\n')
    assert only_the_docstring(had, had.replace("return self.w", "return 2 * self.w"), "Rect") is None


def test_what_cannot_be_told_apart_line_by_line_stays_as_the_answer_wrote_it():
    old = "class Rect: x = 1\n"  # the body on the header's line
    new = 'class Rect:\n    """A rect."""\n    x = 1\n'
    assert only_the_docstring(old, new, "Rect") == new
    assert only_the_docstring(SOURCE, "class (", "Rect") == "class ("  # does not parse
    shared = SOURCE.replace("class Rect:\n", 'class Rect:\n    """A rect."""; y = 2\n')
    assert only_the_docstring(SOURCE, shared, "Rect") == shared


# docstring_place / docstring_prefix: the header an answer that writes the docstring alone rewrites.

@pytest.mark.parametrize("text, name, place", [
    ("import x\n\n\nclass Rect:\n    x = 1\n", "Rect", (3, 4, 4, "    ")),
    ("@dataclass\n@total_ordering\nclass Rect:\n    x: int\n", "Rect", (0, 3, 3, "    ")),  # decorators
    ("class Rect(\n    Base,\n    metaclass=M,\n):  # note\n  x = 1\n", "Rect", (0, 4, 4, "  ")),  # a long header
    ('class Rect:\n    """Old,\n    two lines."""\n    x = 1\n', "Rect", (0, 1, 3, "    ")),  # the one it had
    ("def make():\n    class Inner:\n        def f(self): pass\n    return Inner\n", "make.Inner", (1, 2, 2, "        ")),
    ("class Rect:\n\n    # a comment first\n    x = 1\n", "Rect", (0, 1, 1, "    ")),  # inserted above the comment
])
def test_the_header_and_the_docstring_it_has_are_the_place(text, name, place):
    assert docstring_place(text, name) == place


@pytest.mark.parametrize("text", [
    "class Rect: x = 1\n",  # the body on the header's line
    "class Rect:  x = 1\n",
    'class Rect:\n    """Doc."""; x = 1\n',  # the docstring shares a line with code
    'class Rect:\n    # why\n    """Doc."""\n    x = 1\n',  # a comment above the docstring would be lost
    "def Rect():\n    pass\n",  # not a class
    "class Rect(:\n",  # does not parse
])
def test_no_place_where_the_header_cannot_be_rewritten_alone(text):
    assert docstring_place(text, "Rect") is None


def test_the_prefix_is_the_fence_the_header_as_it_is_and_the_opening_quotes():
    text = "@dataclass\nclass Rect(\n    Base,\n):  # note\n    x: int\n"
    assert docstring_prefix(text, docstring_place(text, "Rect")) == \
        '```python\n@dataclass\nclass Rect(\n    Base,\n):  # note\n    """'
    assert docstring_prefix(text, docstring_place(text, "Rect")).endswith(DOC_CLOSE)


def test_a_docstring_that_is_the_modules_word_for_word_repeats_it():
    text = '"""Bank   accounts,\n   kept simple."""\n\nclass Account:\n    pass\n'
    assert repeats_module_doc(text, "Bank accounts, kept simple.")
    assert repeats_module_doc(text, " Bank accounts,\n    kept simple.\n    ")  # spacing and line breaks aside
    assert not repeats_module_doc(text, "A bank account.")
    assert not repeats_module_doc(text, "Bank accounts, kept simple. An Account holds a balance.")
    assert not repeats_module_doc("class Account:\n    pass\n", "")  # no module docstring
    assert not repeats_module_doc("class (", "x")  # does not parse


def test_asked_again_the_words_say_what_the_class_docstring_is_about():
    assert saying_what("add a docstring to the Stack class.", "Stack") == \
        "add a docstring to the Stack class saying what a Stack object is and what it holds"
    assert saying_what("give Inventory a docstring", "Inventory").endswith("what an Inventory object is and what it holds")
    assert saying_what("add a docstring to Inner", "make.Inner").endswith("what an Inner object is and what it holds")
