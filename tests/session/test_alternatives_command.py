"""`steer edit --attempts N [--check CMD]` end to end: a real subprocess, the real gateway, recorded answers."""

from __future__ import annotations

import json
import time

from .conftest import DATA
from .test_edit_command import fixed_mean_text, steer_edit

ASK = "handle an empty list in mean"
DEPARTS = frozenset({"avoid", "stop"})


async def test_the_most_likely_alternative_is_written_and_the_others_listed(replay, calc):
    url, engine = await replay(["fix_mean.txt", "two_hunks.txt", "fix_mean.txt"], features=DEPARTS)
    code, out, err = await steer_edit(str(calc), "-m", ASK, "--backend", url, "--attempts", "3")
    assert code == 0, err
    assert calc.read_text() == fixed_mean_text()
    assert len(engine.requests) == 3 and engine.requests[1].avoid is not None and engine.requests[2].avoid is None
    assert "attempt 1 of 3" in err and "attempt 2: identical" not in err
    assert "attempt 3: identical to attempt 1" in err and "attempt 2: +" in err
    assert out.startswith("--- a/") and "+    if not values:" in out and "lo > hi" not in out


async def test_json_lists_every_alternative_with_its_diff(replay, calc):
    url, _ = await replay(["bad_mean.txt", "bad_mean.txt", "bad_mean.txt", "two_hunks.txt", "two_hunks.txt"],
                          features=DEPARTS)
    code, out, err = await steer_edit(str(calc), "-m", ASK, "--backend", url, "--attempts", "3", "--json")
    assert code == 0, err
    res = json.loads(out)
    assert res["status"] == "applied" and res["attempt"] == 2 and res["applied"]
    alts = res["alternatives"]
    assert [a["attempt"] for a in alts] == [1, 2, 3]
    assert [a["status"] for a in alts] == ["refused", "proposal", "proposal"]
    assert [a["applies"] for a in alts] == [False, True, True]
    assert [a["identical_to"] for a in alts] == [None, None, 2]
    assert alts[0]["diff"] == "" and "lo > hi" in alts[1]["diff"] and alts[2]["diff"] == alts[1]["diff"]
    assert res["diff"] == alts[1]["diff"] and "lo > hi" in calc.read_text()


async def test_check_writes_the_first_alternative_that_passes_and_says_what_the_others_printed(replay, calc):
    url, _ = await replay(["fix_mean.txt", "two_hunks.txt", "fix_mean.txt"], features=DEPARTS)
    # Passes only on the second alternative; the first one's output is reported.
    check = "grep -q 'lo > hi' calc.py || { echo 'no bounds check' ; exit 3; }"
    code, out, err = await steer_edit(str(calc), "-m", ASK, "--backend", url, "--attempts", "3", "--check", check,
                                      "--json")
    assert code == 0, err
    res = json.loads(out)
    assert res["attempt"] == 2 and "lo > hi" in calc.read_text() and "if not values" not in calc.read_text()
    first, second, third = res["alternatives"]
    assert first["check"]["exit_code"] == 3 and "no bounds check" in first["check"]["output"]
    assert second["check"]["passed"]
    # The third was asked before the second's check ended (it merges with the first), or it was not.
    assert (third["identical_to"] == 1 and third["check"]["exit_code"] == 3) or (
        third["status"] == "stopped" and "attempt 2 passed the check" in third["reason"])
    assert "failed (exit 3): no bounds check" in err


async def test_once_the_first_passes_its_check_no_more_alternatives_are_asked(replay, calc):
    # Slow answers: the first one's check ends while the second is still being written.
    url, engine = await replay(["fix_mean.txt", "two_hunks.txt", "two_hunks.txt"], rate=25, features=DEPARTS)
    code, out, err = await steer_edit(str(calc), "-m", ASK, "--backend", url, "--attempts", "3", "--check", "true",
                                      "--json")
    assert code == 0, err
    res = json.loads(out)
    assert res["attempt"] == 1 and calc.read_text() == fixed_mean_text()
    assert len(engine.requests) == 2  # the second was stopped, the third never asked
    assert [a["status"] for a in res["alternatives"]] == ["proposal", "stopped", "stopped"]
    assert all(a["reason"] == "not asked: attempt 1 passed the check" for a in res["alternatives"][1:])


async def test_a_check_that_fails_everywhere_exits_1_and_the_users_file_stays_as_it_was(replay, calc):
    url, _ = await replay(["fix_mean.txt", "two_hunks.txt", "fix_mean.txt"], features=DEPARTS)
    before = calc.read_text()
    # The command writes in its copy: none of it may reach the user's tree.
    check = "echo scribbled >> calc.py; touch made-by-check; echo 'tests failed'; exit 1"
    code, out, err = await steer_edit(str(calc), "-m", ASK, "--backend", url, "--attempts", "3", "--check", check,
                                      "--json")
    assert code == 1, err
    res = json.loads(out)
    assert res["status"] == "check_failed" and not res["applied"]
    assert calc.read_text() == before and not (calc.parent / "made-by-check").exists()
    assert sorted(p.name for p in calc.parent.iterdir()) == ["calc.py"]
    assert [a["check"]["passed"] for a in res["alternatives"]] == [False, False, False]
    assert "no attempt passed the check" in err and err.count("tests failed") >= 2


async def test_a_check_over_its_time_limit_is_killed(replay, calc):
    url, _ = await replay(["fix_mean.txt"], features=DEPARTS)
    before = calc.read_text()
    t0 = time.monotonic()
    code, out, err = await steer_edit(str(calc), "-m", ASK, "--backend", url, "--check", "sleep 30",
                                      "--check-timeout", "0.5", "--json")
    assert code == 1, err
    assert time.monotonic() - t0 < 20
    res = json.loads(out)
    assert res["alternatives"][0]["check"]["timed_out"] and calc.read_text() == before
    assert "timed out after" in err


async def test_check_with_one_attempt_writes_it_when_it_passes(replay, calc):
    url, engine = await replay(["fix_mean.txt"], features=DEPARTS)
    code, out, err = await steer_edit(str(calc), "-m", ASK, "--backend", url, "--check", "python3 -c 'import calc'")
    assert code == 0, err
    assert len(engine.requests) == 1 and calc.read_text() == fixed_mean_text()


async def test_bad_attempt_flags_are_usage_errors(calc):
    before = calc.read_text()
    for flags in (["--attempts", "0"], ["--attempts", "9"], ["--attempts", "x"], ["--check", "true", "--check-timeout", "0"]):
        code, out, err = await steer_edit(str(calc), "-m", ASK, "--backend", "ws://127.0.0.1:9/v1/responses", *flags)
        assert code == 2, (flags, err)
        assert "--attempts" in err or "--check-timeout" in err
    assert calc.read_text() == before


async def test_nothing_applies_ends_as_one_attempt_would(replay, calc):
    url, _ = await replay(["bad_mean.txt"], features=DEPARTS)
    code, out, err = await steer_edit(str(calc), "-m", ASK, "--backend", url, "--attempts", "2", "--json")
    assert code == 1, err
    res = json.loads(out)
    assert res["status"] == "refused" and len(res["alternatives"]) == 2
    assert calc.read_text() == (DATA / "calc.py").read_text()


async def test_an_edit_already_made_asks_no_alternatives(replay, calc):
    calc.write_text(fixed_mean_text())
    url, engine = await replay(["fix_mean.txt", "two_hunks.txt"], features=DEPARTS)
    code, out, err = await steer_edit(str(calc), "-m", ASK, "--backend", url, "--attempts", "3", "--json")
    assert code == 0, err
    res = json.loads(out)
    assert res["status"] == "nothing" and len(engine.requests) == 1
    assert [a["reason"] for a in res["alternatives"][1:]] == ["not asked: attempt 1 found nothing to change"] * 2
    assert calc.read_text() == fixed_mean_text()
