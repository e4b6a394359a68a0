"""The region chooser on plain strings: selection first, else the block around a placed cursor."""

from __future__ import annotations

from steer_tui.region import block_around, region_for_send

SOURCE = '''import os

# helpers
@cache
def load(path):
    data = read(path)

    return data


class Store:
    def __init__(self):
        self.items = {
            "a": 1,
        }

    def total(self):
        return sum(self.items.values())


x = load(
    "f",
)
'''.split("\n")


def test_selection_wins_over_the_cursor():
    assert region_for_send(SOURCE, (3, 7), 15, True) == (3, 7)
    assert region_for_send(SOURCE, (0, 2), 0, False) == (0, 2)


def test_a_cursor_never_placed_means_the_whole_file():
    assert region_for_send(SOURCE, None, 5, False) is None
    assert region_for_send([], None, 0, True) is None


def test_function_with_its_decorator_and_comment_no_trailing_blanks():
    start, end = region_for_send(SOURCE, None, 6, True)  # the blank line inside load()
    assert SOURCE[start:end] == SOURCE[2:8]
    assert SOURCE[start] == "# helpers" and SOURCE[end - 1] == "    return data"


def test_a_method_line_gives_the_whole_class():
    start, end = block_around(SOURCE, 13)  # inside the dict literal of __init__
    assert SOURCE[start] == "class Store:"
    assert SOURCE[end - 1] == "        return sum(self.items.values())"


def test_closing_brackets_at_column_zero_stay_in_their_statement():
    start, end = block_around(SOURCE, 21)
    assert SOURCE[start:end] == ['x = load(', '    "f",', ')']


def test_top_level_line_alone_and_cursor_past_the_end():
    assert block_around(SOURCE, 0) == (0, 1)
    last = len(SOURCE) - 1  # the empty string after the final newline
    start, end = block_around(SOURCE, 10_000)
    assert start <= last < end


def test_long_block_is_cut_to_the_limit_around_the_cursor():
    lines = ["def big():"] + [f"    x{i} = {i}" for i in range(500)]
    start, end = block_around(lines, 300, limit=200)
    assert end - start == 200 and start <= 300 < end
    assert block_around(lines, 3, limit=200) == (0, 200)
    # Near the end the window is centred on the cursor and cut at the file's end: fewer lines.
    assert block_around(lines, 499, limit=200) == (399, 501)
