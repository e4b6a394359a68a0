"""Accepted draft tokens reach the response's usage and the turn's result (status line, `steer edit --json`)."""

from __future__ import annotations

from types import SimpleNamespace

from steer_tui.config import Settings
from steer_tui.files import Document
from steer_tui.server.engines.base import Usage
from steer_tui.events import TurnResult
from steer_tui.session import Session
from steer_tui.turn import Turn


def test_usage_reports_drafts_only_when_there_were_some():
    assert "output_tokens_details" not in Usage(input_tokens=5, output_tokens=3).to_json()
    usage = Usage(input_tokens=5, output_tokens=40, draft_tokens=50, draft_accepted=36).to_json()
    assert usage["output_tokens_details"] == {"accepted_prediction_tokens": 36, "rejected_prediction_tokens": 14}


def test_turn_result_carries_the_accepted_draft_tokens(tmp_path):
    path = tmp_path / "a.py"
    path.write_text("x = 1\n", encoding="utf-8")
    session = Session(Document.read(path), Settings(backend="ws://127.0.0.1:9/v1/responses"))
    usage = {"output_tokens": 40, "output_tokens_details": {"accepted_prediction_tokens": 36, "rejected_prediction_tokens": 4}}
    turn = Turn(session, "x", None, 0)
    turn.stream = SimpleNamespace(stats=SimpleNamespace(ttft_s=0.2, deltas_per_s=50.0, usage=usage))
    result = turn.conclude(TurnResult("proposal"))
    assert (result.tokens, result.draft_accepted) == (40, 36)
    turn.stream = SimpleNamespace(stats=SimpleNamespace(ttft_s=0.2, deltas_per_s=50.0, usage={"output_tokens": 7}))
    assert turn.conclude(TurnResult("proposal")).draft_accepted == 0
