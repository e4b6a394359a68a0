"""A request's project context: in the prompt the gateway receives (what the file and region use
between the file and the instruction, what the words name between the region and the words), the
same in the prewarm before it, never written anywhere; and through the real `steer edit` command
with --context and --no-context."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from steer_tui import prompts
from steer_tui.config import Settings
from steer_tui.files import Document
from steer_tui.project.context import ASIDE_HEADER, CONTEXT_HEADER
from steer_tui.project.session_context import ProjectContext
from steer_tui.session import Session
from steer_tui.transport.client import ResponsesClient

from .conftest import DATA
from .recorded_events import FakeBackend
from .test_edit_command import steer_edit

STATS = '''"""Statistics helpers shared by the calculator."""

# What the mean of no values is taken to be.
EMPTY_MEAN = 0.0


def safe_div(a, b, default=0.0):
    """Divide a by b, or return default when b is zero."""
    return a / b if b else default
'''
# What a request shows of safe_div: short, and it returns a value, so all of it.
SAFE_DIV_SHOWN = STATS[STATS.index("def safe_div"):].rstrip()


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    shutil.copy(DATA / "calc.py", root / "calc.py")
    (root / "stats.py").write_text(STATS)
    return root


def _context(project, tmp_path, **kw) -> ProjectContext:
    ctx = ProjectContext(project / "calc.py", 800, cache_dir=tmp_path / "cache", **kw)
    ctx.build()
    return ctx


async def test_the_gateway_receives_what_the_words_name_just_before_the_words(replay, project, tmp_path):
    url, engine = await replay(["fix_mean.txt"])
    client = ResponsesClient(url)
    await client.connect()
    session = Session(Document.read(project / "calc.py"), Settings(backend=url), client=client,
                      edit_format="search_replace")
    session.context = _context(project, tmp_path)
    try:
        await session.start(prewarm=False)
        result = await session.edit("handle an empty list in mean: return the empty mean value")
        assert result.status == "proposal"
        messages = engine.requests[0].messages
        assert [m["role"] for m in messages] == ["system", "user", "user"]
        assert messages[1]["content"].startswith("File: calc.py\n")
        last = messages[2]["content"]
        assert last.startswith(ASIDE_HEADER + "\n```python\n# stats.py\n")
        assert "# What the mean of no values is taken to be.\nEMPTY_MEAN = 0.0\n```\n\nhandle an empty list in mean" in last
        assert [(i.name, i.reason) for i in session.context.last] == [("EMPTY_MEAN", "named in the request")]
        assert session.accept_all()
    finally:
        await session.close()
    # Only the open file is written: the context is never.
    assert "EMPTY_MEAN" not in (project / "calc.py").read_text()
    assert (project / "stats.py").read_text() == STATS


async def test_no_project_around_the_file_leaves_the_prompt_as_it_was(replay, tmp_path):
    (tmp_path / "alone").mkdir()
    shutil.copy(DATA / "calc.py", tmp_path / "alone" / "calc.py")
    url, engine = await replay(["fix_mean.txt"])
    client = ResponsesClient(url)
    await client.connect()
    session = Session(Document.read(tmp_path / "alone" / "calc.py"), Settings(backend=url), client=client,
                      edit_format="search_replace")
    session.context = _context(tmp_path / "alone", tmp_path)
    try:
        await session.start(prewarm=False)
        await session.edit("handle an empty list in mean")
    finally:
        await session.close()
    text = (DATA / "calc.py").read_text()
    want = [prompts.system_prompt("search_replace"),
            *[m["content"] for m in prompts.build_input("search_replace", session.prompt_path, text,
                                                       "handle an empty list in mean")]]
    assert [m["content"] for m in engine.requests[0].messages] == want


async def test_the_prewarm_carries_the_same_context_as_the_turn(project, tmp_path):
    backend = FakeBackend(["fix_mean"])
    session = Session(Document.read(project / "calc.py"), Settings(), client=backend, edit_format="rewrite")
    session.context = _context(project, tmp_path)
    words = "make mean divide safely with the safe division helper"
    region = (11, 16)  # mean
    await session.start(prewarm=False)
    session.prewarm(region, words, complete=True)
    await session.warmed()
    await session.send(words, region)
    await session.wait()
    warm, turn = backend.prewarms[-1]["input"], backend.requests[0]["input"]
    assert turn[:len(warm)] == warm
    aside = turn[-1]["content"]
    assert aside.index("Region (lines 12-16)") < aside.index(ASIDE_HEADER) < aside.index(words)
    assert SAFE_DIV_SHOWN in aside
    await session.close()


async def test_words_that_name_something_keep_the_region_prewarm_a_prefix(project, tmp_path):
    """The cursor's block is prewarmed before any word is typed; words that then name something in
    another file add their items after that block, so the prewarmed prefix stays the turn's prefix."""
    backend = FakeBackend(["fix_mean"])
    session = Session(Document.read(project / "calc.py"), Settings(), client=backend, edit_format="rewrite")
    session.context = _context(project, tmp_path)
    region = (11, 16)  # mean
    await session.start(prewarm=False)
    session.prewarm(region)
    await session.warmed()
    words = "make mean divide safely with the safe division helper"
    await session.send(words, region)
    await session.wait()
    warm, turn = backend.prewarms[-1]["input"], backend.requests[0]["input"]
    assert [(i.name, i.reason) for i in session.context.last] == [("safe_div", "named in the request")]
    assert turn[:-1] == warm[:-1]
    assert turn[-1]["content"].startswith(warm[-1]["content"])
    assert ASIDE_HEADER not in warm[-1]["content"] and ASIDE_HEADER in turn[-1]["content"]
    await session.close()


async def test_steer_edit_context_flags(replay, project, tmp_path):
    env = {"STEER_CACHE_DIR": str(tmp_path / "cache")}
    url, engine = await replay(["fix_mean.txt"])
    calc = str(project / "calc.py")
    code, out, err = await steer_edit(calc, "-m", "handle an empty list in mean with the empty mean value",
                                      "--backend", url, "--json", "--dry-run", env=env)
    assert code == 0, err
    got = json.loads(out)
    assert got["context"] == [{"path": "stats.py", "name": "EMPTY_MEAN", "reason": "named in the request",
                               "tokens": got["context"][0]["tokens"]}]
    assert "EMPTY_MEAN = 0.0" in engine.requests[-1].messages[-1]["content"]

    code, out, err = await steer_edit(calc, "-m", "handle an empty list in mean with the empty mean value",
                                      "--backend", url, "--json", "--dry-run", "--no-context", env=env)
    assert code == 0, err
    assert json.loads(out)["context"] == []
    assert len(engine.requests[-1].messages) == 3  # system, file, instruction

    code, out, err = await steer_edit(calc, "-m", "handle an empty list in mean", "--no-context",
                                      "--context", str(project / "stats.py"), "--backend", url, "--dry-run", env=env)
    assert code == 0, err
    assert "context: stats.py" in err  # the one line saying what went in
    context = engine.requests[-1].messages[2]["content"]
    assert "# stats.py\n" in context and SAFE_DIV_SHOWN in context
    assert (project / "stats.py").read_text() == STATS


async def test_a_name_taken_from_the_context_is_imported_in_the_same_proposal(replay, project, tmp_path):
    url, engine = await replay(["mean_empty_mean.txt"])
    code, out, err = await steer_edit(str(project / "calc.py"), "-m", "return the empty mean value for no values",
                                      "--backend", url, "--json", env={"STEER_CACHE_DIR": str(tmp_path / "cache")})
    assert code == 0, err
    got = json.loads(out)
    assert got["hunks"] == 2
    text = (project / "calc.py").read_text()
    assert text.startswith('"""A small calculator module for steer\'s session tests."""\n\nfrom stats import EMPTY_MEAN\n\n\n'
                           'def add(a, b):'), text[:200]
    assert "        return EMPTY_MEAN\n" in text
    assert (project / "stats.py").read_text() == STATS


async def _steer_ask(*args, env):
    import asyncio
    import os

    from .test_edit_command import ROOT, STEER

    proc = await asyncio.create_subprocess_exec(*STEER, "ask", *args, stdin=asyncio.subprocess.DEVNULL,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                env=dict(os.environ, NO_COLOR="1", **env), cwd=ROOT)
    out, err = await proc.communicate()
    return proc.returncode, out.decode(), err.decode()


async def test_steer_ask_carries_the_context_and_says_so(replay, project, tmp_path):
    env = {"STEER_CACHE_DIR": str(tmp_path / "cache")}
    url, engine = await replay(["answer_mean.txt"])
    code, out, err = await _steer_ask(str(project / "calc.py"), "-m", "what does the empty mean value default to?",
                                      "--backend", url, env=env)
    assert code == 0, err
    assert "steer: context: stats.py:EMPTY_MEAN" in err
    messages = engine.requests[-1].messages
    last = messages[-1]["content"]
    assert ASIDE_HEADER in last and last.index("EMPTY_MEAN = 0.0") < last.index("Question: what does the empty")
    code, out, err = await _steer_ask(str(project / "calc.py"), "-m", "what does the empty mean value default to?",
                                      "--backend", url, "--no-context", env=env)
    assert code == 0, err
    assert not any(ASIDE_HEADER in m["content"] or CONTEXT_HEADER in m["content"] for m in engine.requests[-1].messages)


async def test_the_import_goes_above_the_first_definition_when_the_edit_rewrote_the_top(replay, project, tmp_path):
    # The answer adds an import of its own right after the docstring, where this one would go.
    url, engine = await replay(["mean_empty_mean_top.txt"])
    code, out, err = await steer_edit(str(project / "calc.py"), "-m", "return the empty mean value for no values",
                                      "--backend", url, "--json", env={"STEER_CACHE_DIR": str(tmp_path / "cache")})
    assert code == 0, err
    text = (project / "calc.py").read_text()
    assert text.startswith('"""A small calculator module for steer\'s session tests."""\n\nimport math\n\n\n'
                           'from stats import EMPTY_MEAN\n\n\ndef add(a, b):'), text[:160]
    assert "        return EMPTY_MEAN\n" in text


def test_at_a_file_or_a_name_in_the_words_pins_it(project, tmp_path):
    ctx = _context(project, tmp_path)
    text = (project / "calc.py").read_text()
    plain = ctx.items(text, None, "make mean round its result")
    assert all(i.reason != "pinned by @" for i in plain)
    by_name = ctx.items(text, None, "make mean use @safe_div")
    assert [(i.name, i.reason) for i in by_name][:1] == [("safe_div", "pinned by @")]
    by_file = ctx.items(text, None, "follow the style of @stats.py")
    assert [(i.kind, i.path, i.reason) for i in by_file][:1] == [("file", "stats.py", "pinned by @")]
    assert all(i.reason != "pinned by @" for i in ctx.items(text, None, "use @nothing_like_it"))


LOGGER_JS = ("'use strict';\n\n// Structured logs: createLogger(scope) gives info/warn/error(message, fields).\n"
             "const entries = [];\n\nfunction createLogger(scope) {\n  const at = (level) => (message, fields = {}) =>"
             " entries.push({ level, scope, message, ...fields });\n  return { info: at('info'), warn: at('warn'),"
             " error: at('error') };\n}\n\nmodule.exports = { createLogger, entries };\n")
JOBS_JS = ("'use strict';\n\nasync function runJob(job) {\n  try {\n    await job.run();\n    return true;\n"
           "  } catch (err) {\n    console.log('job failed', job.name, err.message);\n    return false;\n  }\n}\n\n"
           "module.exports = { runJob };\n")


async def test_a_member_the_project_module_lacks_is_a_failed_attempt_in_edit(replay, tmp_path):
    root = tmp_path / "jobs"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()  # the project is the repository, src/ a folder in it
    (root / "src" / "logger.js").write_text(LOGGER_JS)
    (root / "src" / "jobs.js").write_text(JOBS_JS)
    url, engine = await replay(["jobs_logger_missing.txt", "jobs_logger_fixed.txt"])
    client = ResponsesClient(url)
    await client.connect()
    session = Session(Document.read(root / "src" / "jobs.js"), Settings(backend=url), client=client,
                      edit_format="search_replace")
    session.context = ProjectContext(root / "src" / "jobs.js", 800, cache_dir=tmp_path / "cache")
    session.context.build()
    try:
        await session.start(prewarm=False)
        result = await session.edit("log job failures through the project logger instead of console.log")
        assert result.status == "proposal" and result.attempts == 2
        feedback = engine.requests[1].messages[-1]["content"]
        assert "`logger.error`" in feedback and "src/logger.js has no `error`" in feedback
        assert "what it has: `entries`, `createLogger`" in feedback
        assert "log.error('job failed'" in session.review.proposed_text()
    finally:
        await session.close()
    assert (root / "src" / "jobs.js").read_text() == JOBS_JS
