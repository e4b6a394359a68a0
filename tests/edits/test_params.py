"""A parameter an edit adds to a function and never reads is found; what is meant to go unread is not."""

from __future__ import annotations

from steer_tui.edits.params import unused_new_parameters

OLD = '''def join_words(words):
    return " ".join(w for w in words if w)


class Box:
    def put(self, item):
        self.item = item
'''


def test_a_new_parameter_the_body_never_reads_is_named():
    new = OLD.replace("def join_words(words):", 'def join_words(words, sep=" "):')
    assert unused_new_parameters(OLD, new) == [("join_words", "sep")]
    used = new.replace('return " ".join', "return sep.join")
    assert unused_new_parameters(OLD, used) == []


def test_methods_keyword_only_and_several():
    new = OLD.replace("def put(self, item):", "def put(self, item, *, force=False, note=None):")
    assert unused_new_parameters(OLD, new) == [("Box.put", "force"), ("Box.put", "note")]


def test_what_is_meant_to_go_unread_is_left_alone():
    assert unused_new_parameters(OLD, OLD) == []
    # *args / **kwargs and _names are often kept for callers; a stub's body reads nothing.
    assert unused_new_parameters(OLD, OLD.replace("(words)", "(words, *args, _hint=None, **kwargs)")) == []
    stub = OLD.replace('    return " ".join(w for w in words if w)', '    """Join them."""\n    ...')
    assert unused_new_parameters(stub, stub.replace("(words)", "(words, sep)")) == []
    # A new function's parameters are its own business; a parameter it always had is not new.
    added = OLD + "\n\ndef split_words(text, sep):\n    return text.split()\n"
    assert unused_new_parameters(OLD, added) == []
    assert unused_new_parameters(added, added.replace("return text.split()", "return []")) == []
    assert unused_new_parameters(OLD, "def join_words(:\n") == []  # does not parse: the syntax check's case
