"""The status line's backend label from the settings and what a gateway says it serves, and its rate."""

from __future__ import annotations

from steer_tui.ui.widgets.status import backend_label, rate_text


def test_local_names_the_embedded_model_unless_one_is_set():
    assert backend_label(None, None) == "local · qwen2.5-coder-1.5b (embedded)"
    assert backend_label("local", "/models/tiny.gguf") == "local · tiny.gguf"


def test_a_gateway_url_names_the_model_it_serves_once_known():
    assert backend_label("ws://127.0.0.1:8765", None) == "ws://127.0.0.1:8765"
    assert backend_label("ws://127.0.0.1:8765", None, "qwen") == "ws://127.0.0.1:8765 · qwen"
    assert backend_label("ws://h:1", "mine", "qwen") == "ws://h:1 · mine"  # the setting wins


def test_other_backends_show_the_served_model_only_for_urls():
    assert backend_label("openai", "gpt-x", "other") == "openai · gpt-x"
    assert backend_label("openai", None, "other") == "openai"


def test_a_slow_rate_keeps_a_decimal():
    assert rate_text(None) == "–"
    assert rate_text(0.44) == "0.4" and rate_text(9.96) == "10.0"
    assert rate_text(26.4) == "26" and rate_text(12345.0) == "12,345"
