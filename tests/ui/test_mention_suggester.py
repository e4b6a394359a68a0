"""The prompt's `@` completion: what the suggestion adds to an `@word` being typed."""

from steer_tui.ui.mention_suggester import suggestion

FILES = ["utils/money.py", "src/monitor.js", "a/config.py", "b/config.py"]
NAMES = ["format_money", "PAGE_SIZE"]


def test_a_path_a_unique_base_name_or_a_name_completes():
    assert suggestion("use @utils/m", FILES, NAMES) == "use @utils/money.py"
    assert suggestion("use @money", FILES, NAMES) == "use @money.py"
    assert suggestion("fix with @PAGE", FILES, NAMES) == "fix with @PAGE_SIZE"
    assert suggestion("@format", FILES, NAMES) == "@format_money"


def test_nothing_is_suggested_for_a_base_name_two_files_share_or_no_mention():
    assert suggestion("@conf", FILES, NAMES) is None
    assert suggestion("no mention", FILES, NAMES) is None
    assert suggestion("mail a@b", FILES, NAMES) is None
    assert suggestion("@", FILES, NAMES) is None
    assert suggestion("@utils/money.py", FILES, NAMES) is None  # already whole
