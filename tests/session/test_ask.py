"""Asking: the question's messages, a prose answer that never becomes an edit, stop, redirect, `steer ask`."""

from __future__ import annotations

import asyncio
import hashlib
import os
import sys

from steer_tui.ask import Asking, QUESTION_NOTE, do_it_instruction, question_input
from steer_tui.prompts import prewarm_input, system_prompt
from steer_tui.transport.client import ResponsesClient

from .conftest import DATA, recorded, until
from .test_edit_command import ROOT
from steer_tui.spawn import python_argv

STEER = python_argv()  # `python -m steer_tui`, isolated from the folder it runs in

CALC = (DATA / "calc.py").read_text()
MEAN = (11, 16)  # def mean ... return total / len(values)


def test_question_starts_with_the_prewarmed_prefix():
    for region in (None, MEAN):
        warm = prewarm_input("rewrite", "calc.py", CALC, region)
        messages = question_input("rewrite", "calc.py", CALC, "what does mean do?", region)
        assert messages[0] == warm[0]
        if region is not None:
            # The region block the session prewarms opens the question, so only the question is new.
            assert messages[-1]["content"].startswith(warm[1]["content"])
            assert "Region (lines 12-16)" in messages[-1]["content"]
        assert "Question: what does mean do?" in messages[-1]["content"]
        assert messages[-1]["content"].endswith(QUESTION_NOTE)


def test_do_it_carries_the_answer():
    text = do_it_instruction("why does mean fail?", "It divides by zero; guard the empty list.")
    assert "why does mean fail?" in text and "guard the empty list" in text


async def connected(url):
    client = ResponsesClient(url)
    await client.connect()
    return client


async def test_answer_is_prose_only_even_with_an_edit_block_in_it(replay, calc):
    url, engine = await replay(["answer_mean.txt"])
    before = hashlib.sha256(calc.read_bytes()).hexdigest()
    client = await connected(url)
    changes = []
    try:
        asking = Asking(client, on_change=lambda: changes.append(1))
        answer = await asking.start("rewrite", "calc.py", calc.read_text(), "what does mean do?", MEAN)
        await asking.wait()
        assert answer.status == "answered"
        assert answer.text == recorded("answer_mean.txt").strip()  # the SEARCH/REPLACE in it is just text
        assert answer.tokens > 0 and answer.ttft_s is not None and changes
        request = engine.requests[0]
        assert request.messages[0] == {"role": "system", "content": system_prompt("rewrite")}
        assert "Question: what does mean do?" in request.messages[-1]["content"]
        assert hashlib.sha256(calc.read_bytes()).hexdigest() == before
    finally:
        await client.close()


async def test_stop_keeps_what_came_and_nothing_after(replay, calc):
    url, _ = await replay(["answer_mean.txt"], rate=200)
    client = await connected(url)
    try:
        asking = Asking(client)
        answer = await asking.start("rewrite", "calc.py", calc.read_text(), "what does mean do?")
        await until(lambda: answer.tokens >= 5)
        await asking.stop()
        kept = answer.text
        assert answer.status == "stopped" and kept
        await asyncio.sleep(0.1)
        assert answer.text == kept and answer.status == "stopped"
        assert recorded("answer_mean.txt").startswith(kept)
    finally:
        await client.close()


async def test_redirect_answers_on_with_the_new_words(replay, calc):
    url, engine = await replay(["answer_mean.txt"], rate=200)
    client = await connected(url)
    try:
        asking = Asking(client)
        answer = await asking.start("rewrite", "calc.py", calc.read_text(), "what does mean do?")
        await until(lambda: answer.tokens >= 5)
        await asking.redirect("and what about clamp?")
        await asking.wait()
        assert answer.status == "answered"
        assert [k for k, _ in answer.parts][:3] == ["answer", "redirect", "answer"]
        assert "\n\n> and what about clamp?\n\n" in answer.text
        assert len(engine.requests) == 2  # the successor got the words
        assert "and what about clamp?" in str(engine.requests[1].messages)
    finally:
        await client.close()


async def steer_ask(*args, env=None):
    full_env = dict(os.environ, NO_COLOR="1", **(env or {}))
    proc = await asyncio.create_subprocess_exec(
        *STEER, "ask", *args, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=full_env, cwd=ROOT)
    out, err = await proc.communicate()
    return proc.returncode, out.decode(), err.decode()


async def test_steer_ask_prints_the_plain_answer_when_piped(replay, calc):
    url, engine = await replay(["answer_mean.txt"])
    before = calc.read_bytes()
    code, out, err = await steer_ask(str(calc), "-m", "what does mean do?", "--backend", url, "--region", "12:16")
    assert code == 0, err
    assert out.strip() == recorded("answer_mean.txt").strip()
    assert calc.read_bytes() == before
    assert "Region (lines 12-16)" in engine.requests[0].messages[-1]["content"]


async def test_steer_ask_markdown_always_renders(replay, calc):
    url, _ = await replay(["answer_mean.txt"])
    code, out, err = await steer_ask(str(calc), "-m", "what does mean do?", "--backend", url, "--markdown", "always")
    assert code == 0, err
    assert "`mean`" not in out and "mean adds the values up" in out  # the backticks are drawn, not printed


async def test_steer_ask_cuts_an_answer_that_loops_after_its_first_round(replay, calc):
    url, engine = await replay(["answer_loops.txt"])
    code, out, err = await steer_ask(str(calc), "-m", "where is the mail server configured?", "--backend", url)
    assert code == 0, err
    # Printed as it came, the answer cannot be taken back: it stops in its fourth round of six.
    lines = out.strip().splitlines()
    assert lines[0] == "The mail server is configured in config.py:" and 10 <= len(lines) <= 13
    assert "it began to repeat itself" in err


async def test_steer_ask_errors(calc, tmp_path):
    code, _, err = await steer_ask(str(tmp_path / "none.py"), "-m", "q", "--backend", "ws://127.0.0.1:9/v1/responses")
    assert code == 2 and "none.py" in err
    code, _, err = await steer_ask(str(calc), "-m", "q", "--backend", "ws://127.0.0.1:9/v1/responses")
    assert code == 3 and "backend error" in err


async def test_steer_ask_in_a_project_shows_the_places_the_question_names(replay, tmp_path):
    import subprocess

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "config.py").write_text("MAX_RETRIES = 5\n")
    target = tmp_path / "pkg" / "client.py"
    target.write_text("from pkg.config import MAX_RETRIES\n\n\ndef fetch(url):\n    return MAX_RETRIES\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    url, engine = await replay(["answer_mean.txt"])
    code, _, err = await steer_ask(str(target), "-m", "where is the retry limit set?", "--backend", url)
    assert code == 0, err
    message = engine.requests[0].messages[-1]["content"]
    assert f"{tmp_path}/pkg/config.py:1: MAX_RETRIES = 5" in message
    assert message.index("Places in the project") < message.index("Question: where is the retry limit set?")
    # An answer that names the setting without its line gets the line after it, as grep prints one.
    url, engine = await replay(["answer_retry_limit.txt"])
    code, out, err = await steer_ask(str(target), "-m", "where is the retry limit set?", "--backend", url)
    assert code == 0, err
    answer, _, places = out.partition("\n\n")
    assert answer.strip() == recorded("answer_retry_limit.txt").strip()
    assert places.splitlines() == [f"{tmp_path}/pkg/config.py:1: MAX_RETRIES = 5"]
    url, engine = await replay(["answer_mean.txt"])
    code, _, err = await steer_ask(str(target), "-m", "what does fetch return?", "--backend", url)
    assert code == 0, err
    assert "Places in the project" not in engine.requests[0].messages[-1]["content"]
    # Only the open file matches: a question asking where still gets the line, which the file the
    # model reads does not number.
    url, engine = await replay(["answer_mean.txt"])
    code, _, err = await steer_ask(str(target), "-m", "where does fetch return?", "--backend", url)
    assert code == 0, err
    assert f"{tmp_path}/pkg/client.py:4: def fetch(url):" in engine.requests[0].messages[-1]["content"]


async def test_steer_ask_shows_a_big_file_in_part_as_an_edit_does(replay, tmp_path):
    big = tmp_path / "big.py"
    big.write_text("".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(20_000)))
    url, engine = await replay(["answer_mean.txt"])
    code, _, err = await steer_ask(str(big), "-m", "what does f12345 do?", "--backend", url, "--region", "49381:49382")
    assert code == 0, err
    shown = engine.requests[0].messages[1]["content"]
    assert "omitted" in shown and len(shown) < len(big.read_text()) / 10
    assert "def f12345(x):" in engine.requests[0].messages[-1]["content"]
