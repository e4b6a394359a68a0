"""`steer edit` and review in every language the layer knows: an answer that breaks the file's syntax is
flagged in review and refused by `steer edit` with the file untouched; a good one is applied. Recorded answers
through the real gateway (into a real subprocess for `steer edit`)."""

from __future__ import annotations

import json
import shutil

import pytest

from steer_tui import lang
from tests.session.conftest import replay  # noqa: F401  (the fixture)
from tests.session.test_edit_command import steer_edit

from tests.edits.test_anchor_languages import CASES as ANCHOR_CASES

from .samples import FILES, SAMPLES, by_suffix

IDS = [s.path for s in SAMPLES]


def answer(sample, kind: str) -> str:
    return f"lang/{sample.path.replace('.', '_')}_{kind}.txt"


@pytest.fixture
def copy(tmp_path):
    def make(sample):
        target = tmp_path / sample.path
        shutil.copy(FILES / sample.path, target)
        return target
    return make


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
async def test_a_breaking_answer_is_never_written(replay, copy, sample):  # noqa: F811
    target = copy(sample)
    url, engine = await replay([answer(sample, "broken")])
    code, out, err = await steer_edit(str(target), "-m", "fix the code", "--backend", url,
                                      "--format", "search_replace", "--json")
    assert code == 1, err
    assert target.read_text() == sample.text
    language = lang.language(sample.path).name
    assert f"breaks the {language} syntax" in json.loads(out)["reason"]
    assert len(engine.requests) == 3  # the first attempt and two retries with the feedback
    assert f"valid {language}" in engine.requests[1].messages[-1]["content"]


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
async def test_a_good_answer_is_applied(replay, copy, sample):  # noqa: F811
    target = copy(sample)
    url, _ = await replay([answer(sample, "good")])
    code, out, err = await steer_edit(str(target), "-m", "fix the code", "--backend", url,
                                      "--format", "search_replace", "--json")
    assert code == 0, err
    old, new = sample.good
    assert target.read_text() == sample.text.replace(old, new)



@pytest.mark.parametrize("suffix", [".go", ".ts", ".rb"])
async def test_review_flags_the_breaking_hunk(replay, copy, suffix):  # noqa: F811
    from steer_tui.events import Notice
    from steer_tui.state import REVIEW
    from tests.session.conftest import session_on

    sample = by_suffix(suffix)
    target = copy(sample)
    url, _ = await replay([answer(sample, "broken")])
    events = []
    async with session_on(url, target, events) as (session, _):
        await session.send("fix the code")
        assert (await session.wait()).status == "proposal" and session.state == REVIEW
        problem = session.syntax_problem
        assert problem is not None and problem.hunk == 0 and problem.language == lang.language(sample.path).name
        said = f"breaks the {problem.language} syntax"
        assert any(isinstance(e, Notice) and said in e.text for e in events)
        assert session.reject_hunk(0)
        assert session.syntax_problem is None


async def test_a_hollowing_answer_is_never_written(replay, copy):  # noqa: F811
    sample = by_suffix(".js")
    target = copy(sample)
    url, engine = await replay(["lang/cart_js_hollow.txt"])
    code, out, err = await steer_edit(str(target), "-m", "improve the doc comment of total", "--backend", url,
                                      "--format", "search_replace", "--json")
    assert code == 1, err
    assert target.read_text() == sample.text
    assert "leaves `Cart.total` with no code" in json.loads(out)["reason"]


@pytest.mark.parametrize("name, answer, first, last, old, new", ANCHOR_CASES, ids=[c[0] for c in ANCHOR_CASES])
async def test_a_partial_rewrite_of_a_class_impl_or_struct_is_anchored_without_loss(
        replay, tmp_path, name, answer, first, last, old, new):  # noqa: F811
    # The region is a class, impl or struct with its methods; the answer restates one method with a
    # new doc comment. Anchored by the layer's definitions, the method is replaced and the rest of
    # the region stays (by the header regex, the method took the place of the class's head).
    target = tmp_path / name
    shutil.copy(FILES / name, target)
    original = target.read_text()
    url, _ = await replay([f"lang/{answer}"])
    code, out, err = await steer_edit(str(target), "-m", "document it", "--backend", url,
                                      "--format", "rewrite", "--region", f"{first}:{last}", "--json")
    assert code == 0, err
    assert target.read_text() == original.replace(old, new)


async def test_review_of_a_partial_java_rewrite_shows_the_method_alone(replay, tmp_path):  # noqa: F811
    from tests.session.conftest import session_on

    name, answer, first, last, old, new = ANCHOR_CASES[0]
    target = tmp_path / name
    shutil.copy(FILES / name, target)
    original = target.read_text()
    url, _ = await replay([f"lang/{answer}"])
    async with session_on(url, target, edit_format="rewrite", prewarm=False) as (session, _):
        await session.edit("document it", (first - 1, last), retries=0)
        assert [h.new for h in session.proposal] == [tuple(new.split("\n")[:1])]
        assert session.accept_all()
        assert target.read_text() == original.replace(old, new)
