"""A session's project context: the index of the open file's project (built on a thread, kept
current by a watcher), the items each request carries, and what went in last."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Callable

from steer_tui.project.context import ContextItem, RequestContext, select_context
from steer_tui.project.index import ProjectIndex

log = logging.getLogger(__name__)

# Token budgets of the context a request carries, by backend: the embedded model has a small
# window and copies what it is shown, a remote model reads more.
LOCAL_BUDGET = 800
REMOTE_BUDGET = 2000


def default_budget(backend: str, engine: str | None = None) -> int:
    return LOCAL_BUDGET if backend == "local" or engine == "local" else REMOTE_BUDGET


def project_of(path: Path) -> Path:
    """The project a file belongs to (steer_tui.project.root), else its git work tree or folder."""
    try:
        from steer_tui.project.root import project_root
    except ImportError:
        project_root = None
    if project_root is not None:
        return Path(project_root(path))
    import subprocess

    folder = path.parent if not path.is_dir() else path
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=folder, capture_output=True, text=True,
                             timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        top = ""
    return Path(top) if top else folder


class ProjectContext:
    """The context of one open file's project. `start()` builds the index on a thread (`build()`
    on this one); until it is built, requests carry no context. Items are chosen once per
    (text, region, instruction), so a prewarm and the turn after it carry the same message."""

    def __init__(self, file_path: Path | str, budget_tokens: int = LOCAL_BUDGET, *, pinned: tuple[str, ...] = (),
                 dropped: tuple[str, ...] = (), cache_dir: Path | None = None, watch: bool = False,
                 index: ProjectIndex | None = None):
        self.file_path = Path(file_path).resolve()
        self.budget_tokens = budget_tokens
        self.pinned = tuple(pinned)
        self.dropped = list(dropped)
        self.index = index or ProjectIndex(project_of(self.file_path), cache_dir)
        self.watch = watch
        self.last: list[ContextItem] = []  # what the last request (or prewarm) carried
        self._memo: tuple[tuple, list[ContextItem]] | None = None
        self._thread: threading.Thread | None = None
        self._watcher = None
        self.error: str | None = None
        self.automatic = True  # False: only the pinned items (`--no-context` with `--context PATH`)

    @property
    def relative_path(self) -> str:
        """The open file's path relative to the project root."""
        try:
            return self.file_path.relative_to(self.index.root).as_posix()
        except ValueError:
            return self.file_path.name

    @property
    def ready(self) -> bool:
        return self.index.built.is_set()

    def build(self) -> None:
        """Build the index (from its cache where it can) on this thread; once only."""
        with self.index.build_lock:
            if self.index.built.is_set():
                return
            try:
                self.index.build()
            except Exception as exc:  # no context is a worse answer, never a failed one
                self.error = str(exc)
                log.warning("project index failed: %s", exc)
                self.index.built.set()
        if self.watch and self._watcher is None:
            self._watcher = _watcher_of(self.index)

    def start(self, on_ready: Callable[[], None] | None = None) -> None:
        """Build the index on a thread; `on_ready()` (on that thread) once it is built."""
        if self._thread is not None:
            return

        def run() -> None:
            self.build()
            if on_ready is not None:
                on_ready()

        self._thread = threading.Thread(target=run, name="steer-index", daemon=True)
        self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        return self.index.built.wait(timeout)

    def close(self) -> None:
        if self._watcher is not None:
            _release_watcher(self.index)
            self._watcher = None

    def items(self, text: str, region: tuple[int, int] | None, instruction: str) -> list[ContextItem]:
        """The context for a request on the open file's `text`, `region` and `instruction`."""
        if not self.ready:
            return []
        from steer_tui.project.mentions import mentions

        # `@path` and `@name` in the words pin what they name, like --context does.
        pinned = (*self.pinned, *(f"@{word}" for word in mentions(instruction) if f"@{word}" not in self.pinned))
        key = (text, region, instruction, pinned, tuple(self.dropped), self.budget_tokens, self.index.version)
        memo = self._memo
        if memo is not None and memo[0] == key:
            return memo[1]
        try:
            got = select_context(self.index, self.file_path, text, region, instruction, self.budget_tokens,
                                 pinned, self.dropped)
            if not self.automatic:
                got = [item for item in got if item.reason in ("--context", "pinned by @")]
        except Exception as exc:  # as above: the request goes without context
            log.warning("context selection failed: %s", exc)
            got = []
        self._memo = (key, got)
        return got

    def request(self, text: str, region: tuple[int, int] | None, instruction: str) -> RequestContext:
        """What a request for these carries (steer_tui.project.context.RequestContext); its items
        are remembered as `last`."""
        items = self.items(text, region, instruction)
        self.last = items
        return RequestContext.of(items)

    def drop(self, key: str) -> None:
        """Leave an item out of every request from now on: a path, a name or "path:name"."""
        if key not in self.dropped:
            self.dropped.append(key)


# One index (and one watcher) a project for the files a process has open: the app's sessions share them.
_SHARED: dict[Path, ProjectIndex] = {}
_WATCHERS: dict[int, list] = {}  # id(index) -> [watcher, users]
_SHARED_LOCK = threading.Lock()


def shared_index(root: Path) -> ProjectIndex:
    with _SHARED_LOCK:
        index = _SHARED.get(root)
        if index is None:
            index = _SHARED[root] = ProjectIndex(root)
        return index


def _watcher_of(index: ProjectIndex):
    from steer_tui.project.watch import IndexWatcher

    with _SHARED_LOCK:
        held = _WATCHERS.get(id(index))
        if held is None:
            held = _WATCHERS[id(index)] = [IndexWatcher(index).start(), 0]
        held[1] += 1
        return held[0]


def _release_watcher(index: ProjectIndex) -> None:
    with _SHARED_LOCK:
        held = _WATCHERS.get(id(index))
        if held is None:
            return
        held[1] -= 1
        if held[1] > 0:
            return
        del _WATCHERS[id(index)]
    held[0].stop()


def for_file(path: Path | str, settings, *, pinned: tuple[str, ...] = (), enabled: bool | None = None,
             watch: bool = False, shared: bool = False) -> ProjectContext | None:
    """The context of the file at `path` as `settings` ask for it (None with context off, or a
    budget of 0); `enabled` (a flag) overrides the setting; pinned items come even with it off.
    `shared`: the project's one index in this process (the app's files), `watch`: kept current."""
    on = settings.context if enabled is None else enabled
    if not on and not pinned:
        return None
    budget = settings.context_tokens if settings.context_tokens is not None else default_budget(settings.backend)
    if budget <= 0:
        return None
    index = shared_index(project_of(Path(path).resolve())) if shared else None
    ctx = ProjectContext(path, budget, pinned=pinned, watch=watch, index=index)
    ctx.automatic = bool(on)
    return ctx
