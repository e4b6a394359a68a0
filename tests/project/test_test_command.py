"""The test command a project's files name: each rule, its order, and what names none."""

from __future__ import annotations

import json

import pytest

from steer_tui.project.test_command import detect


def _project(tmp_path, files: dict[str, str]):
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


@pytest.mark.parametrize("files, command", [
    ({"pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-q'\n"}, "python -m pytest -q"),
    ({"setup.cfg": "[tool:pytest]\ntestpaths = tests\n"}, "python -m pytest -q"),
    ({"tests/test_app.py": "def test_x():\n    pass\n"}, "python -m pytest -q"),
    ({"package.json": json.dumps({"scripts": {"test": "vitest run"}})}, "npm test"),
    ({"package.json": json.dumps({"scripts": {"test": "jest"}}), "pnpm-lock.yaml": ""}, "pnpm test"),
    ({"Cargo.toml": "[package]\nname = 'x'\n"}, "cargo test"),
    ({"go.mod": "module x\n"}, "go test ./..."),
    ({"pom.xml": "<project/>\n"}, "mvn -q test"),
    ({"build.gradle.kts": "", "gradlew": "#!/bin/sh\n"}, "./gradlew test"),
    ({"App.sln": ""}, "dotnet test"),
    ({"Makefile": "build:\n\tcc x.c\n\ntest: build\n\t./run-tests\n"}, "make test"),
])
def test_each_rule(tmp_path, files, command):
    assert detect(_project(tmp_path, files)).command == command


@pytest.mark.parametrize("files", [
    {},
    {"package.json": json.dumps({"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}})},
    {"package.json": "{not json"},
    {"pyproject.toml": "[project]\nname = 'x'\n"},  # no pytest settings, no tests
    {"Makefile": "build:\n\tcc x.c\n"},
])
def test_what_names_no_command(tmp_path, files):
    assert detect(_project(tmp_path, files)) is None


def test_the_first_rule_that_holds_wins_and_says_why(tmp_path):
    found = detect(_project(tmp_path, {"pyproject.toml": "[tool.pytest.ini_options]\n",
                                       "package.json": json.dumps({"scripts": {"test": "jest"}})}))
    assert found.command == "python -m pytest -q" and found.because == "pyproject.toml configures pytest"
