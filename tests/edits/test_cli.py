"""`steer apply`: exit codes, diff output, --dry-run, --json, stdin, no Textual import."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from steer_tui.cli import main

RESP = "<<<<<<< SEARCH\nb = 2\n=======\nb = 3\n>>>>>>> REPLACE\n"


@pytest.fixture
def target(tmp_path):
    p = tmp_path / "m.py"
    p.write_bytes(b"a = 1\r\nb = 2\r\n")
    return p


def write_resp(tmp_path, text=RESP):
    r = tmp_path / "resp.md"
    r.write_text(text)
    return str(r)


def test_applies_and_prints_diff(target, tmp_path, capsys):
    assert main(["apply", str(target), write_resp(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "-b = 2\n+b = 3\n" in out
    assert target.read_bytes() == b"a = 1\r\nb = 3\r\n"


def test_the_diff_marks_a_last_line_without_a_newline(tmp_path, capsys):
    """As `diff -u` does: without the marker the two last lines run together ("-b = 2+b = 3")."""
    p = tmp_path / "m.py"
    p.write_bytes(b"a = 1\nb = 2")
    assert main(["apply", "--dry-run", str(p), write_resp(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.endswith("-b = 2\n\\ No newline at end of file\n+b = 3\n\\ No newline at end of file\n")
    assert p.read_bytes() == b"a = 1\nb = 2"


def test_already_applied_is_exit_0_with_message(target, tmp_path, capsys):
    resp = write_resp(tmp_path, "<<<<<<< SEARCH\nb = 2\n=======\nb = 3  # the new value\n>>>>>>> REPLACE\n")
    assert main(["apply", str(target), resp]) == 0
    before = target.read_bytes()
    capsys.readouterr()
    assert main(["apply", str(target), resp]) == 0
    assert "already applied" in capsys.readouterr().out
    assert target.read_bytes() == before


def test_refusal_is_exit_1_and_file_untouched(target, tmp_path, capsys):
    resp = write_resp(tmp_path, "<<<<<<< SEARCH\nc = 9\n=======\nc = 3\n>>>>>>> REPLACE\n")
    before = target.read_bytes()
    assert main(["apply", str(target), resp]) == 1
    err = capsys.readouterr().err
    assert "refused" in err and "c = 9" in err
    assert target.read_bytes() == before


def test_io_errors_are_exit_2(tmp_path, capsys):
    assert main(["apply", str(tmp_path / "missing.py"), write_resp(tmp_path)]) == 2
    b = tmp_path / "bin"
    b.write_bytes(b"\x00\x01")
    assert main(["apply", str(b), write_resp(tmp_path)]) == 2
    l1 = tmp_path / "latin1.txt"
    l1.write_bytes(b"caf\xe9\n")
    assert main(["apply", str(l1), write_resp(tmp_path)]) == 2
    p = tmp_path / "ok.txt"
    p.write_text("b = 2\n")
    assert main(["apply", str(p), str(tmp_path / "no-response")]) == 2


def test_usage_error_is_exit_2(capsys):
    with pytest.raises(SystemExit) as e:
        main(["apply"])
    assert e.value.code == 2


def test_dry_run_writes_nothing(target, tmp_path, capsys):
    before = target.read_bytes()
    assert main(["apply", "--dry-run", str(target), write_resp(tmp_path)]) == 0
    assert "+b = 3" in capsys.readouterr().out
    assert target.read_bytes() == before


def test_json_output(target, tmp_path, capsys):
    assert main(["apply", "--json", str(target), write_resp(tmp_path)]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["applied"] is True and res["reason"] is None and "+b = 3" in res["diff"]
    assert res["blocks"][0]["status"] == "applied" and res["blocks"][0]["start_line"] == 2
    assert main(["apply", "--json", str(target), write_resp(tmp_path, "nothing here")]) == 1
    res = json.loads(capsys.readouterr().out)
    assert res["applied"] is False and res["reason"] == "no_blocks"


def test_stdin_and_no_textual_import(target):
    code = (
        "import sys; from steer_tui.cli import main; rc = main(['apply', sys.argv[1]]); "
        "assert 'textual' not in sys.modules, 'textual imported'; raise SystemExit(rc)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(target)], input=RESP, capture_output=True, text=True,
        cwd=os.getcwd(), timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert target.read_bytes() == b"a = 1\r\nb = 3\r\n"


def test_region_rewrite_flag(tmp_path, capsys):
    p = tmp_path / "r.py"
    p.write_text("def f():\n    return 1\n\ndef g():\n    return 1\n")
    resp = write_resp(tmp_path, "```python\ndef g():\n    return 2\n```\n")
    assert main(["apply", "--region", "4:5", str(p), resp]) == 0
    assert p.read_text() == "def f():\n    return 1\n\ndef g():\n    return 2\n"
    assert main(["apply", "--region", "9:12", str(p), resp]) == 2


def test_response_file_with_bom_and_crlf(target, tmp_path):
    r = tmp_path / "resp.txt"
    r.write_bytes(b"\xef\xbb\xbf" + RESP.replace("\n", "\r\n").encode())
    assert main(["apply", str(target), str(r)]) == 0
    assert target.read_bytes() == b"a = 1\r\nb = 3\r\n"
