"""The module aliases of a JavaScript/TypeScript project: `baseUrl` and `paths` of the nearest tsconfig.json or jsconfig.json (`@/lib/utils` is src/lib/utils)."""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterator

CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
_EXTENDS_DEPTH = 4  # a config extending one extending another...: followed this far

# A string, or a comment, or a comma that only a closing bracket follows: the JSON a tsconfig may
# have beyond JSON, told apart from the same characters inside a string.
_JSONC = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/|,(?=\s*[}\]])', re.S)


@dataclass(frozen=True)
class Aliases:
    """What a config maps: `paths` patterns ("@/*") to their targets ("src/*"), each relative to
    `base` (the project-relative folder of `baseUrl`, else of the config that declared `paths`);
    `base_url` is the folder a bare module name is also looked up in ("" when `baseUrl` is unset)."""

    base: str
    paths: tuple[tuple[str, tuple[str, ...]], ...]
    base_url: str | None = None

    @cached_property
    def _ranked(self) -> list[tuple[str, tuple[str, ...]]]:
        """`paths`, the pattern with the longest prefix first (TypeScript's rule)."""
        return sorted(self.paths, key=lambda p: -len(p[0].split("*", 1)[0]))

    def candidates(self, module: str) -> Iterator[str]:
        """The project-relative paths (extension not yet chosen) `module` may name, best first: the
        pattern with the longest prefix (TypeScript's rule), then `baseUrl`."""
        for pattern, targets in self._ranked:
            if "*" in pattern:
                prefix, suffix = pattern.split("*", 1)
                if not (module.startswith(prefix) and module.endswith(suffix)
                        and len(module) >= len(prefix) + len(suffix)):
                    continue
                star = module[len(prefix):len(module) - len(suffix)]
                yield from (_join(self.base, t.replace("*", star, 1)) for t in targets)
            elif module == pattern:
                yield from (_join(self.base, t) for t in targets)
        if self.base_url is not None:
            yield _join(self.base_url, module)

    def module_for(self, path: str) -> str | None:
        """How an import names the project file `path` through a `paths` pattern (`@/lib/utils` for
        src/lib/utils.ts): the first pattern, in `candidates` order, whose target holds it; None when none does."""
        stem, _ = posixpath.splitext(path)
        # a folder's index file is imported by the folder's name
        stems = ([posixpath.dirname(stem)] if posixpath.basename(stem) == "index" else []) + [stem]
        for pattern, targets in self._ranked:
            if "*" not in pattern:
                continue
            prefix, suffix = pattern.split("*", 1)
            for target in targets:
                if "*" not in target:
                    continue
                lead, tail = target.split("*", 1)
                head = _join(self.base, lead or ".")
                head = "" if head == "." else head
                tail = re.sub(r"\.[cm]?[jt]sx?$", "", tail)
                for candidate in stems:
                    if head and not candidate.startswith(head + "/"):
                        continue
                    star = candidate[len(head) + 1:] if head else candidate
                    if tail:
                        if not star.endswith(tail):
                            continue
                        star = star[: -len(tail)]
                    return prefix + star + suffix
        return None


def _join(folder: str, path: str) -> str:
    return posixpath.normpath(posixpath.join(folder, path)).lstrip("/").removeprefix("./")


def parse_jsonc(text: str) -> object:
    """JSON with comments and trailing commas, as tsconfig files are written."""
    return json.loads(_JSONC.sub(lambda m: m.group(1) or "", text))


def read(root: Path, config: str) -> Aliases | None:
    """The aliases the config file `config` (relative to `root`) declares, with what it extends
    from a file of the project; None when it declares neither `paths` nor `baseUrl` or cannot be read."""
    base_url: str | None = None
    paths: dict | None = None
    paths_from = ""
    for _ in range(_EXTENDS_DEPTH):
        try:
            data = parse_jsonc((root / config).read_text(encoding="utf-8", errors="replace"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict):
            return None
        folder = posixpath.dirname(config)
        options = data.get("compilerOptions") if isinstance(data.get("compilerOptions"), dict) else {}
        # What the file itself sets wins over what it extends: read the nearer value first.
        if base_url is None and isinstance(options.get("baseUrl"), str):
            base_url = _join(folder, options["baseUrl"])
        if paths is None and isinstance(options.get("paths"), dict):
            paths, paths_from = options["paths"], folder
        extends = data.get("extends")
        if not (isinstance(extends, str) and extends.startswith(".")):
            break  # a package's config (@tsconfig/node20) holds no project aliases
        config = _join(folder, extends if extends.endswith(".json") else extends + ".json")
    if paths is None and base_url is None:
        return None
    mapped = tuple((pattern, tuple(t for t in targets if isinstance(t, str)))
                   for pattern, targets in (paths or {}).items() if isinstance(pattern, str) and isinstance(targets, list))
    return Aliases(base_url if base_url is not None else paths_from, mapped, base_url)
