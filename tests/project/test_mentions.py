"""`@path` and `@name` in an instruction: found, completed and resolved without guessing."""

from steer_tui.project.mentions import complete, mentions, partial_mention, resolve

FILES = ["utils/money.py", "src/monitor.js", "lemon.py", "a/config.py", "b/config.py"]
NAMES = ["format_money", "Money", "demon", "PAGE_SIZE"]


def test_mentions_are_at_a_word_start_each_once():
    assert mentions("use @utils/money.py and @format_money, not a@b.com; @format_money again") == [
        "utils/money.py", "format_money"]
    assert mentions("`@decorator` in quotes is code") == []


def test_the_partial_mention_being_typed():
    assert partial_mention("fix it with @mon") == "mon"
    assert partial_mention("fix it with @") == ""
    assert partial_mention("mail a@b") is None
    assert partial_mention("use @money.py now") is None
    assert partial_mention("use @money.py now", cursor=len("use @mon")) == "mon"


def test_completion_ranks_prefixes_first_then_names_then_substrings():
    assert complete("mon", FILES, NAMES) == ["src/monitor.js", "utils/money.py", "Money", "lemon.py", "demon",
                                             "format_money"]
    assert complete("PAGE", FILES, NAMES) == ["PAGE_SIZE"]
    assert complete("zzz", FILES, NAMES) == []


def test_resolving_never_guesses_between_two_files():
    assert resolve("money.py", FILES, NAMES).target == "utils/money.py"
    assert resolve("utils/money.py", FILES, NAMES).kind == "file"
    assert resolve("config.py", FILES, NAMES).kind == "unknown"  # a/config.py or b/config.py
    assert resolve("a/config.py", FILES, NAMES).target == "a/config.py"
    assert resolve("format_money", FILES, NAMES) .kind == "symbol"
    assert resolve("Money.format", FILES, ["format", "Money"]).target == "format"
    assert resolve("nothing", FILES, NAMES).kind == "unknown"
