"""The switch that turns speculative edits off: `steer serve --no-speculation` and the config key."""

from __future__ import annotations

import argparse

from steer_tui.commands import serve


def _engine(argv, monkeypatch, tmp_path, config: str | None = None):
    path = tmp_path / "config.toml"
    if config is not None:
        path.write_text(config, encoding="utf-8")
    monkeypatch.setenv("STEER_CONFIG", str(path))
    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    return serve.build_engine(parser.parse_args(argv))


def test_speculation_is_on_by_default(monkeypatch, tmp_path):
    assert _engine(["--engine", "local"], monkeypatch, tmp_path).speculation is True


def test_no_speculation_flag_turns_it_off(monkeypatch, tmp_path):
    assert _engine(["--engine", "local", "--no-speculation"], monkeypatch, tmp_path).speculation is False


def test_config_key_turns_it_off(monkeypatch, tmp_path):
    engine = _engine(["--engine", "local"], monkeypatch, tmp_path, "speculation = false\n")
    assert engine.speculation is False


def test_a_bad_config_file_keeps_the_default(monkeypatch, tmp_path):
    assert _engine(["--engine", "local"], monkeypatch, tmp_path, "speculation = [\n").speculation is True
