"""An answer caught in a loop is spotted as it streams; a table the file has, or a few similar lines, are not loops."""

from __future__ import annotations

from steer_tui.edits.repeats import PROSE_REPEATS, RepeatWatch, without_repeats

FILE = "class Game:\n    def roll(self, pins):\n        pass\n"


def stream(watch: RepeatWatch, text: str, step: int = 7) -> int | None:
    """Feed `text` a few characters at a time; the line (0-based) at which the watch fires, if it does."""
    for i in range(0, len(text), step):
        if watch.feed(text[i : i + step]):
            return text[: i + step].count("\n")
    return None


def test_a_counting_loop_is_stopped_after_twelve_rounds():
    # What the embedded model wrote for polyglot bowling until its cap.
    loop = "".join(f"        if self.current_frame == 10 and self.fill_balls == {n}:\n"
                   f"            raise ValueError(\"invalid fill balls\")\n" for n in range(3, 60))
    answer = "```python\nclass Game:\n    def roll(self, pins):\n" + loop
    watch = RepeatWatch(FILE)
    at = stream(watch, answer)
    assert at is not None and at <= 3 + 2 * 13
    assert watch.block[0].startswith("if self.current_frame == 10 and self.fill_balls == ")
    assert watch.block[1] == 'raise ValueError("invalid fill balls")'



def test_an_exact_cycle_is_stopped():
    # polyglot sgf-parsing: the same checks over a cycle of punctuation marks.
    cycle = "".join(f'    if not s.count("{c}") == s.count("{c}"):\n        raise ValueError("tree missing")\n'
                    for c in "!@#$%^&*+-=?")
    watch = RepeatWatch("def parse(s):\n    pass\n")
    assert stream(watch, "```python\ndef parse(s):\n" + cycle * 5) is not None


def test_the_same_line_needs_many_more_repeats_than_a_block():
    line = "    total = total + compute(values, 3)\n"
    assert stream(RepeatWatch(""), line * 23) is None
    assert stream(RepeatWatch(""), line * 30) is not None


def test_a_table_the_file_already_has_is_copied_not_looped():
    table = "".join(f"    register(Handler{n},\n             priority={n})\n" for n in range(40))
    source = "def setup():\n" + table
    assert stream(RepeatWatch(source), "```python\n" + source + "```\n") is None
    # Twice as long as the file's and more: a loop after all.
    assert stream(RepeatWatch(source), "```python\n" + source + table * 2) is not None


def test_similar_lines_that_are_meant_are_not_a_loop():
    ten = "".join(f"        self.assertEqual(square({n}), {n * n})\n" for n in range(10))
    assert stream(RepeatWatch(""), ten) is None
    rows = "".join(f"    [{n}, {n + 1}, {n + 2}, {n + 3}],\n" for n in range(60))  # numbers only: data
    assert stream(RepeatWatch(""), rows) is None
    assert stream(RepeatWatch(""), "    else:\n        pass\n" * 30) is None  # too short to say
    # Long blocks alike but for their numbers (test methods) are meant; the same ones exactly, not.
    method = ("    def test_size_{n}(self):\n        board = Board({n}, {n})\n        board.fill(1)\n"
              "        self.assertEqual(board.count(), {n} * {n})\n        board.clear()\n"
              "        self.assertEqual(board.count(), 0)\n        self.assertTrue(board.empty())\n"
              "        self.assertFalse(board.full())\n\n")
    assert stream(RepeatWatch(""), "".join(method.format(n=n) for n in range(2, 7))) is None
    assert stream(RepeatWatch(""), method.format(n=3) * 3) is not None


def _prose_loops(text: str) -> bool:
    watch = RepeatWatch("", PROSE_REPEATS)
    return any(watch.feed(line + "\n") for line in text.split("\n"))


def test_prose_that_writes_the_same_lines_a_third_time_is_looping_and_keeps_one_round():
    block = "config.py:16: MAIL_PORT = 25\nconfig.py:17: MAIL_USE_TLS = True\n"
    assert not _prose_loops("It is set in config.py:\n" + block * 2)
    watch = RepeatWatch("", PROSE_REPEATS)
    text = ""
    for line in ("It is set in config.py:\n" + block * 4).splitlines(keepends=True):
        text += line
        if watch.feed(line):
            break
    assert watch.looping and len(watch.block) == 2
    assert without_repeats(text + "config.py:1", watch.block) == "It is set in config.py:\n" + block.rstrip("\n")


def test_a_list_in_prose_is_no_loop():
    steps = "\n".join(f"{i}. set `LIMIT_{i}` in config.py" for i in range(1, 12))
    assert not _prose_loops(steps)
    assert not _prose_loops("- see config.py\n" * 7)


def test_the_departure_of_a_loop_is_the_first_line_of_its_second_round():
    from steer_tui.edits.repeats import loop_departure

    answer = "```python\ndef f(x):\n" + "".join(f"    if x == {i}:\n        return {i}\n" for i in range(14))
    watch = RepeatWatch("def f(x):\n    return x\n")
    watch.feed(answer)
    assert watch.looping
    avoid = loop_departure(answer, watch.block)
    text, after = avoid["text"], avoid["after"]
    assert text == "```python\ndef f(x):\n    if x == 0:\n        return 0\n    if x == 1:\n"
    assert text.encode()[after:] == b"    if x == 1:\n"
