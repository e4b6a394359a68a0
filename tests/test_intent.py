"""Every row of the intent table (steer_tui/intent.py) hits the phrases it must and none it must not."""

import pytest

from steer_tui.intent import TABLE


@pytest.mark.parametrize("row", TABLE, ids=[row.name for row in TABLE])
def test_row(row):
    assert row.matches, f"{row.name} has no phrase it must hit"
    for words in row.matches:
        assert row.hits(words), f"{row.name} ({row.meaning}) should hit {words!r}"
    for words in row.misses:
        assert not row.hits(words), f"{row.name} ({row.meaning}) should not hit {words!r}"


def test_names_are_unique():
    assert len({row.name for row in TABLE}) == len(TABLE)
