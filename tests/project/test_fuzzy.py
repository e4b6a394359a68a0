"""The fuzzy finder's ranking: what must come first for a query, and what must not match at all."""

from __future__ import annotations

import pytest

from steer_tui.project.fuzzy import FuzzyIndex

PATHS = [
    "README.md",
    "setup.py",
    "steer_tui/__init__.py",
    "steer_tui/ui/app.py",
    "steer_tui/ui/widgets/code_view.py",
    "steer_tui/ui/widgets/status.py",
    "steer_tui/session.py",
    "steer_tui/edits/apply.py",
    "steer_tui/server/gateway.py",
    "tests/ui/test_app_start.py",
    "tests/session/test_session.py",
    "docs/architecture.md",
    "bench/apply.py",
    "src/components/UserProfile.tsx",
    "src/components/user/profile_card.tsx",
    "src/api/users.ts",
    "scripts/update-test-pins.sh",
    "docs/time.md",
    "src/humanize/time.py",
    "tests/test_time.py",
]


@pytest.fixture(scope="module")
def index():
    return FuzzyIndex(PATHS)


@pytest.mark.parametrize("query, first", [
    ("session", "steer_tui/session.py"),  # the name itself beats a test named after it
    ("app", "steer_tui/ui/app.py"),  # a name that is the query beats names starting with it
    ("cv", "steer_tui/ui/widgets/code_view.py"),  # the starts of words
    ("codeview", "steer_tui/ui/widgets/code_view.py"),
    ("READ", "README.md"),  # any case
    ("userprof", "src/components/UserProfile.tsx"),
    ("ui/app", "steer_tui/ui/app.py"),  # folders and a '/' in the query
    ("gw", "steer_tui/server/gateway.py"),
    ("pins", "scripts/update-test-pins.sh"),
    ("arch md", "docs/architecture.md"),  # spaces are ignored
    ("time", "src/humanize/time.py"),  # code before prose of the same name, though its path is longer
    ("time.md", "docs/time.md"),
])
def test_ranks_first(index, query, first):
    assert index.search(query)[0].path == first


def test_only_subsequences_match_and_positions_point_at_them(index):
    assert index.search("zzz") == []
    for q in ("ppa", "sts", "uit", "ap", "rdm"):  # exactly the paths that hold q's characters in order
        expected = {p for p in PATHS if _subsequence(q, p.lower())}
        assert {m.path for m in index.search(q, limit=100)} == expected, q
    for m in index.search("stus"):
        lowered = m.path.lower()
        assert "".join(lowered[i] for i in m.positions) == "stus"
        assert list(m.positions) == sorted(set(m.positions))


def _subsequence(q: str, s: str) -> bool:
    it = iter(s)
    return all(ch in it for ch in q)


def test_empty_query_lists_shortest_first_and_limit_holds(index):
    got = [m.path for m in index.search("", limit=3)]
    assert got == ["setup.py", "README.md", "docs/time.md"]
    assert len(index.search("s", limit=5)) == 5


def test_same_answers_whatever_was_typed_before(index):
    fresh = FuzzyIndex(PATHS)
    for q in ("s", "se", "ses", "sess", "se", "x", "session"):
        index.search(q)
    assert [m.path for m in index.search("session")] == [m.path for m in fresh.search("session")]


def test_many_paths_rank_a_name_match_over_thousands_of_partial_ones():
    paths = [f"pkg{i}/module_{i}/helpers_{i}.py" for i in range(20000)] + ["deep/in/the/tree/invoice.py"]
    index = FuzzyIndex(paths)
    assert index.search("invoice")[0].path == "deep/in/the/tree/invoice.py"
    assert index.search("inv")[0].path == "deep/in/the/tree/invoice.py"
    top = index.search("h")
    assert len(top) == 50 and all("h" in m.path for m in top)
