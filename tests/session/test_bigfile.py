"""A file too big to show whole: the request shows it around the region (the prewarm the same), the
answer is applied to the real file's lines, and an edit of the whole of it is refused before sending.
The replay engine behind the real gateway plays the answers; it records what each request showed."""

from __future__ import annotations

import json
import threading

import pytest

from steer_tui import prompts
from steer_tui.config import Settings
from steer_tui.events import Notice, NoticeCode
from steer_tui.files import Document
from steer_tui.server.engines.replay import ReplayEngine
from steer_tui.server.gateway import Gateway
from steer_tui.session import Session
from steer_tui.transport.client import ResponsesClient
from steer_tui.turn import NOT_SENT

from .test_edit_command import steer_edit

BUDGET = 1500  # tokens: the file below is about 11,000

ANSWER = '''```
    def change_me(self, value):
        total = value * 3
        return total + self.LIMIT
```
'''


def big_module(classes: int = 80) -> str:
    out = ['"""Stock keeping."""', "", "import json", "", "PAGE_SIZE = 50", ""]
    for i in range(classes):
        if i == classes // 2:
            out += ["", "class Target:", "    LIMIT = 7", "", "    def before(self):", "        return 1", "",
                    "    def change_me(self, value):", "        total = value * 2", "        return total + self.LIMIT",
                    "", "    def after(self):", "        return 2", ""]
        out += ["", f"class Store{i}:", f"    def load_{i}(self, path):", "        with open(path) as f:",
                "            return json.load(f)", "", f"    def save_{i}(self, path, data):",
                "        with open(path, 'w') as f:", "            json.dump(data, f)", "", "",
                f"def helper_{i}(x):", f"    return x + {i}"]
    return "\n".join(out) + "\n"


class Recorder(ReplayEngine):
    """The replay engine, keeping every request it gets (prewarms too): what the model was shown."""

    def __init__(self, text: str):
        super().__init__(text, rate=0)
        self.seen = []

    async def stream(self, request, cancel: threading.Event):
        self.seen.append(request)
        async for delta in super().stream(request, cancel):
            yield delta


@pytest.fixture
async def gateway():
    made = []

    async def start(text: str = ANSWER):
        engine = Recorder(text)
        gw = Gateway(engine)
        url = await gw.start("127.0.0.1", 0)
        made.append(gw)
        return url, engine

    yield start
    for gw in made:
        await gw.close()


@pytest.fixture
def big(tmp_path):
    path = tmp_path / "stock.py"
    path.write_text(big_module(), encoding="utf-8")
    return path


async def open_session(url, path, events):
    client = ResponsesClient(url)
    await client.connect()
    session = Session(Document.read(path), Settings(backend=url, file_tokens=BUDGET), events.append, client=client,
                      edit_format="rewrite")
    await session.start(prewarm=False)
    return session


async def test_a_big_file_is_shown_in_outline_with_the_region_whole_and_the_answer_lands_on_its_real_lines(gateway, big):
    url, engine = await gateway()
    text = big.read_text(encoding="utf-8")
    region = prompts.definitions(text, str(big))["change_me"]
    events = []
    session = await open_session(url, big, events)
    try:
        session.prewarm_region(region)
        await session.warmed()
        result = await session.edit("make change_me triple the value", region)
        assert result.status == "proposal", result
        warm, turn = [r for r in engine.seen if not r.generate], [r for r in engine.seen if r.generate]
        assert len(turn) == 1 and warm
        shown = turn[0].messages[1]["content"]
        assert {w.messages[1]["content"] for w in warm} == {shown}  # the file's prewarm and the region's show it alike
        assert len(shown) < len(text) / 3 and "omitted ..." in shown and "shown in part" in shown.splitlines()[0]
        assert "    def change_me(self, value):\n        total = value * 2\n" not in shown
        asked = turn[0].messages[-1]["content"]
        assert f"Region (lines {region[0] + 1}-{region[1]})" in asked
        assert "    def change_me(self, value):\n        total = value * 2\n" in asked
        assert session.accept_all()
    finally:
        await session.close()
    lines = text.splitlines(keepends=True)
    want = "".join(lines[:region[0]]) + ANSWER.split("```\n")[1] + "".join(lines[region[1]:])
    assert big.read_text(encoding="utf-8") == want


async def test_a_big_file_with_no_region_is_refused_before_sending(gateway, big):
    url, engine = await gateway()
    before = big.read_bytes()
    events = []
    session = await open_session(url, big, events)
    try:
        result = await session.edit("make the code faster")
    finally:
        await session.close()
    assert result.status == "refused" and result.error_code == NOT_SENT
    assert "stock.py has" in result.reason and "Name a function or class" in result.reason
    assert not [r for r in engine.seen if r.generate]  # nothing was asked
    said = [e for e in events if isinstance(e, Notice) and e.code == NoticeCode.REFUSED]
    assert said and "too long to edit whole" in said[0].text
    assert big.read_bytes() == before


async def test_a_small_file_still_sends_the_whole_file(gateway, tmp_path):
    url, engine = await gateway('```\ndef f():\n    return 2\n```\n')
    path = tmp_path / "small.py"
    path.write_text("def f():\n    return 1\n", encoding="utf-8")
    session = await open_session(url, path, [])
    try:
        result = await session.edit("return 2")
    finally:
        await session.close()
    assert result.status == "proposal"
    turn = [r for r in engine.seen if r.generate][0]
    assert turn.messages[1]["content"] == prompts.file_message(session.prompt_path, "def f():\n    return 1\n")["content"]


@pytest.fixture
def small_budget(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(f"file_tokens = {BUDGET}\n", encoding="utf-8")
    return {"STEER_CONFIG": str(config)}


async def test_steer_edit_refuses_a_big_file_with_no_region_and_leaves_it(gateway, big, small_budget):
    url, engine = await gateway()
    before = big.read_bytes()
    code, out, err = await steer_edit(str(big), "-m", "make the code faster", "--backend", url, "--format", "rewrite",
                                      "--json", env=small_budget)
    assert code == 1, err
    report = json.loads(out)
    assert report["status"] == "refused" and "Name a function or class" in report["reason"]
    assert not [r for r in engine.seen if r.generate]
    assert big.read_bytes() == before


async def test_steer_edit_edits_a_named_definition_of_a_big_file(gateway, big, small_budget):
    url, engine = await gateway()
    text = big.read_text(encoding="utf-8")
    code, out, err = await steer_edit(str(big), "-m", "make change_me triple the value", "--backend", url,
                                      "--format", "rewrite", env=small_budget)
    assert code == 0, err
    after = big.read_text(encoding="utf-8").splitlines()
    before = text.splitlines()
    assert [i for i, (a, b) in enumerate(zip(before, after)) if a != b] == [before.index("        total = value * 2")]
    assert len(after) == len(before)
    turn = [r for r in engine.seen if r.generate][0]
    assert "omitted ..." in turn.messages[1]["content"]
