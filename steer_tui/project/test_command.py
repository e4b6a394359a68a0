"""The test command a project's own files name (pytest settings, package.json's test script, Cargo.toml, ...): offered, never run unasked.

Ctrl+T with no `test_command` configured asks whether to run what this finds; nothing here runs
anything. The first rule that holds wins, in the order of `RULES`, looked for at the project root.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable


@dataclass(frozen=True)
class Found:
    """A command and the file that names it (what the question shows as the reason)."""

    command: str
    because: str


# npm's default when `npm init` wrote the script: not a test suite.
_NPM_PLACEHOLDER = re.compile(r"no test specified", re.I)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    except OSError:
        return ""


def _pytest(root: Path) -> Found | None:
    for name, marker in (("pytest.ini", ""), ("pyproject.toml", "[tool.pytest"), ("setup.cfg", "[tool:pytest]"),
                         ("tox.ini", "[pytest]")):
        text = _read(root / name)
        if text and marker in text:
            return Found("python -m pytest -q", f"{name} configures pytest" if marker else f"{name} is there")
    if (root / "conftest.py").is_file() or any((root / d).is_dir() and any((root / d).glob("test_*.py"))
                                                  for d in ("tests", "test")):
        return Found("python -m pytest -q", "tests/ holds test_*.py files")
    return None


def _npm(root: Path) -> Found | None:
    text = _read(root / "package.json")
    if not text:
        return None
    try:
        script = (json.loads(text).get("scripts") or {}).get("test")
    except (ValueError, AttributeError):
        return None
    if not isinstance(script, str) or not script.strip() or _NPM_PLACEHOLDER.search(script):
        return None
    runner = "pnpm" if (root / "pnpm-lock.yaml").is_file() else "yarn" if (root / "yarn.lock").is_file() else "npm"
    return Found(f"{runner} test", f"package.json's test script: {script.strip()[:60]}")


def _named(file: str, command: str) -> Callable[[Path], Found | None]:
    def rule(root: Path) -> Found | None:
        return Found(command, f"{file} is there") if (root / file).is_file() else None
    return rule


def _gradle(root: Path) -> Found | None:
    if not any((root / f).is_file() for f in ("build.gradle", "build.gradle.kts")):
        return None
    wrapper = (root / "gradlew").is_file()
    return Found("./gradlew test" if wrapper else "gradle test", "a Gradle build is there")


def _dotnet(root: Path) -> Found | None:
    found = next((p.name for pattern in ("*.sln", "*.csproj") for p in sorted(root.glob(pattern))), None)
    return Found("dotnet test", f"{found} is there") if found else None


def _make(root: Path) -> Found | None:
    text = _read(root / "Makefile")
    return Found("make test", "the Makefile has a test target") if re.search(r"^test\s*:", text, re.M) else None


RULES = (_pytest, _npm, _named("Cargo.toml", "cargo test"), _named("go.mod", "go test ./..."),
         _named("pom.xml", "mvn -q test"), _gradle, _dotnet, _make)


def detect(root: Path) -> Found | None:
    """The test command the files at `root` name, or None."""
    root = Path(root)
    for rule in RULES:
        found = rule(root)
        if found is not None:
            return found
    return None
