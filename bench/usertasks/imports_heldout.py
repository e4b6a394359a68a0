"""Held-out requests about one function or method whose natural implementation needs a
standard-library module that the file does not import yet (`bench/usertasks/imports_heldout.py`):
"try up to 3 times, waiting a second between attempts", "send the auth as an HTTP Basic header",
"stamp created_at with the current UTC time", "return the SHA-256 hex digest of the file", "fall
back to the API_TOKEN environment variable", "suggest the closest command"... The instruction
describes the behaviour and never says "import"; each task needs a different module (time, base64,
datetime, uuid, hashlib, shutil, os, logging, csv, statistics, difflib, re).

Written 2026-11-28, blind to the mechanism they measure (its code and prompts unread), and run as
first written. Each file is an original, runnable, stdlib-only module (an API client, a job queue,
folder snapshots, a settings loader, an expense report, a notes CLI), each serving two tasks. Each
test is appended to the edited file (editbench's judge runs the two as one script): it checks the
behaviour asked for, by what the code does rather than by how the import is written (`import time`
at the top, `from time import sleep`, or an import inside the function all pass), and that the rest
of the file still works. A test imports what it needs under a leading-underscore name only
(`import os as _os`), so it never supplies the module name that the edited code has to import
itself: an edit that uses the module without importing it fails with a NameError."""

from __future__ import annotations

# Starts every test, so that a test can find the edited part of the script if it has to.
_MARK = "# ---- test ----\n"


def _task(name: str, file: str, source: str, instruction: str, checks: str) -> dict:
    return {"name": name, "file": file, "instruction": instruction, "input": source,
            "test": _MARK + checks}


# ------------------------------------------------------------------------------ the files

CLIENT = r'''"""A thin client for a JSON-over-HTTP API, with a pluggable transport.

The transport is any object with a `send(request) -> Response` method. `ScriptedTransport` answers
from a list prepared in advance, which is what the offline demo and the tests use."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from urllib.parse import urlencode, urljoin

DEFAULT_TIMEOUT = 10.0
USER_AGENT = "ledger-client/0.7"


class TransportError(Exception):
    """The request never got an answer: connection refused, reset or timed out."""


class APIError(Exception):
    def __init__(self, status, message):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message


@dataclass
class Request:
    method: str
    url: str
    headers: dict = field(default_factory=dict)
    body: str = ""


@dataclass
class Response:
    status: int
    body: str = ""
    headers: dict = field(default_factory=dict)

    @property
    def ok(self):
        return 200 <= self.status < 300


class ScriptedTransport:
    """Answers each request with the next item of `script`: a Response is returned, an exception
    instance is raised. Every request sent is kept in `sent`; past the end of the script every
    answer is a 404."""

    def __init__(self, script=()):
        self.script = list(script)
        self.sent = []

    def send(self, request):
        self.sent.append(request)
        if not self.script:
            return Response(404, '{"error": "not found"}')
        item = self.script.pop(0)
        if isinstance(item, Exception):
            raise item
        return item


class Client:
    def __init__(self, base_url, transport, auth=None, timeout=DEFAULT_TIMEOUT):
        self.base_url = base_url.rstrip("/") + "/"
        self.transport = transport
        self.auth = auth  # (username, password) or None
        self.timeout = timeout

    def url(self, path, params=None):
        url = urljoin(self.base_url, path.lstrip("/"))
        if params:
            url += "?" + urlencode(sorted(params.items()))
        return url

    def headers(self):
        """The headers every request carries."""
        return {"User-Agent": USER_AGENT, "Accept": "application/json"}

    def fetch(self, path, params=None):
        """GET `path` once and return the Response; a TransportError goes to the caller."""
        request = Request("GET", self.url(path, params), self.headers())
        return self.transport.send(request)

    def get(self, path, params=None):
        """The decoded JSON body of GET `path`; an APIError for any status outside 2xx."""
        response = self.fetch(path, params)
        if not response.ok:
            raise APIError(response.status, error_message(response))
        return json.loads(response.body or "null")

    def post(self, path, payload):
        headers = dict(self.headers(), **{"Content-Type": "application/json"})
        request = Request("POST", self.url(path), headers, json.dumps(payload, sort_keys=True))
        response = self.transport.send(request)
        if not response.ok:
            raise APIError(response.status, error_message(response))
        return json.loads(response.body or "null")


def error_message(response):
    """The "error" field of a JSON error body, else the start of the body."""
    try:
        data = json.loads(response.body)
    except ValueError:
        return response.body[:120] or "no body"
    if isinstance(data, dict) and "error" in data:
        return str(data["error"])
    return response.body[:120]


def fetch_all(client, path, page_size=50):
    """Every item of a paged collection: pages are {"items": [...], "next_page": n or null}."""
    items, page = [], 1
    while page is not None:
        data = client.get(path, {"page": page, "per_page": page_size})
        items.extend(data["items"])
        page = data.get("next_page")
    return items
'''

JOBS = r'''"""An in-memory job queue with priorities, retries and a status report.

Workers call `JobQueue.claim()` to take the most urgent pending job, then `complete()` or `fail()`
it; a failed job goes back in the queue until it has used up its attempts."""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from enum import Enum

MAX_ATTEMPTS = 3


class Status(str, Enum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class QueueError(Exception):
    pass


@dataclass
class Job:
    id: str
    kind: str
    payload: dict = field(default_factory=dict)
    priority: int = 0
    status: Status = Status.PENDING
    attempts: int = 0
    created_at: str = ""  # ISO 8601, when the job was submitted
    error: str = ""
    result: object = None


class JobQueue:
    def __init__(self, max_attempts=MAX_ATTEMPTS):
        self.max_attempts = max_attempts
        self.jobs = {}
        self._heap = []
        self._ids = itertools.count(1)
        self._order = itertools.count()

    def _new_id(self):
        """A fresh job id."""
        return f"job-{next(self._ids)}"

    def _push(self, job):
        heapq.heappush(self._heap, (-job.priority, next(self._order), job.id))

    def submit(self, kind, payload=None, priority=0):
        """Queue a new job and return it."""
        if not kind:
            raise QueueError("a job needs a kind")
        job = Job(self._new_id(), kind, dict(payload or {}), priority)
        self.jobs[job.id] = job
        self._push(job)
        return job

    def get(self, job_id):
        try:
            return self.jobs[job_id]
        except KeyError:
            raise QueueError(f"no job {job_id!r}") from None

    def claim(self):
        """The most urgent pending job, now running; None when nothing is pending."""
        while self._heap:
            _, _, job_id = heapq.heappop(self._heap)
            job = self.jobs[job_id]
            if job.status is Status.PENDING:
                job.status = Status.RUNNING
                job.attempts += 1
                return job
        return None

    def complete(self, job_id, result=None):
        job = self._running(job_id)
        job.status, job.result, job.error = Status.DONE, result, ""
        return job

    def fail(self, job_id, error):
        """Record a failure; the job is queued again unless it has used all its attempts."""
        job = self._running(job_id)
        job.error = str(error)
        if job.attempts >= self.max_attempts:
            job.status = Status.FAILED
        else:
            job.status = Status.PENDING
            self._push(job)
        return job

    def _running(self, job_id):
        job = self.get(job_id)
        if job.status is not Status.RUNNING:
            raise QueueError(f"{job_id} is {job.status.value}, not running")
        return job


def run_all(queue, handlers):
    """Claim and run jobs until none is pending; `handlers` maps a kind to a function of the payload."""
    ran = 0
    while (job := queue.claim()) is not None:
        ran += 1
        handler = handlers.get(job.kind)
        try:
            if handler is None:
                raise QueueError(f"no handler for {job.kind!r}")
            queue.complete(job.id, handler(job.payload))
        except Exception as exc:  # a job's failure must not stop the worker
            queue.fail(job.id, exc)
    return ran


def status_counts(queue):
    counts = {status.value: 0 for status in Status}
    for job in queue.jobs.values():
        counts[job.status.value] += 1
    return counts


def report(queue):
    counts = status_counts(queue)
    lines = [f"{len(queue.jobs)} jobs: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n)]
    for job in queue.jobs.values():
        if job.status is Status.FAILED:
            lines.append(f"  {job.id} ({job.kind}) failed after {job.attempts} attempts: {job.error}")
    return "\n".join(lines)
'''

SNAPSHOT = r'''"""Folder snapshots: record every file under a folder with its size and a checksum, compare two
snapshots, and keep the latest one as a manifest file inside the folder."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

MANIFEST_NAME = ".manifest.json"
IGNORED_SUFFIXES = (".tmp", ".swp", "~")


@dataclass(frozen=True)
class Entry:
    path: str
    size: int
    checksum: str


def is_ignored(path):
    """Editor droppings, temporary files and the manifest itself."""
    name = path.name
    return name == MANIFEST_NAME or name.endswith(IGNORED_SUFFIXES) or name.startswith(".#")


def checksum(path):
    """A fingerprint of the file's contents."""
    data = Path(path).read_bytes()
    return f"{len(data):x}-{sum(data) & 0xFFFFFFFF:08x}"


def snapshot(root):
    """{relative path: Entry} of every file under `root`, ignored ones aside."""
    root = Path(root)
    entries = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not is_ignored(path):
            rel = path.relative_to(root).as_posix()
            entries[rel] = Entry(rel, path.stat().st_size, checksum(path))
    return entries


def diff(old, new):
    """What changed from snapshot `old` to snapshot `new`."""
    added = sorted(set(new) - set(old))
    removed = sorted(set(old) - set(new))
    changed = sorted(p for p in set(old) & set(new) if old[p].checksum != new[p].checksum)
    return {"added": added, "removed": removed, "changed": changed}


def save_manifest(root, entries):
    """Write `entries` to the manifest file in `root` and return its path."""
    path = Path(root) / MANIFEST_NAME
    data = {rel: {"size": e.size, "checksum": e.checksum} for rel, e in sorted(entries.items())}
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


def load_manifest(root):
    """The entries saved in `root`'s manifest; {} when there is none."""
    path = Path(root) / MANIFEST_NAME
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {rel: Entry(rel, d["size"], d["checksum"]) for rel, d in data.items()}


def describe(changes):
    """One line per change, then a count."""
    lines = [f"{mark} {p}" for mark, key in (("+", "added"), ("-", "removed"), ("~", "changed"))
             for p in changes[key]]
    total = sum(len(v) for v in changes.values())
    lines.append("no changes" if not total else f"{total} change{'s' if total != 1 else ''}")
    return "\n".join(lines)


def update(root):
    """Compare `root` with its manifest, save the new manifest, and describe the changes."""
    old = load_manifest(root)
    new = snapshot(root)
    save_manifest(root, new)
    return describe(diff(old, new))
'''

CONFIG = r'''"""Settings for the sync service, read from a small `key = value` file.

Blank lines and lines starting with '#' are ignored; each value is converted to the type of the
setting's default, and an unknown key is an error rather than a silent typo."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


class ConfigError(ValueError):
    pass


@dataclass(frozen=True)
class Settings:
    endpoint: str = "https://sync.example.com/api"
    api_token: str = ""
    timeout: float = 10.0
    workers: int = 4
    verify_tls: bool = True
    tags: tuple = ()


def parse(text):
    """{key: raw value} of the `key = value` lines of `text`."""
    values = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if "=" not in line:
            continue
        key, _, value = line.partition("=")
        if not key.strip():
            raise ConfigError(f"line {number}: no setting name before '='")
        values[key.strip().lower()] = value.strip().strip('"')
    return values


def coerce(name, raw, default):
    """`raw` converted to the type of `default`."""
    if isinstance(default, bool):
        word = raw.lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
        raise ConfigError(f"{name}: expected yes or no, got {raw!r}")
    if isinstance(default, (int, float)):
        try:
            return type(default)(raw)
        except ValueError:
            raise ConfigError(f"{name}: expected a number, got {raw!r}") from None
    if isinstance(default, tuple):
        return tuple(part.strip() for part in raw.split(",") if part.strip())
    return raw


def load(path=None, text=None):
    """Settings from the file at `path`, or from `text`; defaults for what they leave out."""
    if text is None:
        text = Path(path).read_text(encoding="utf-8") if path else ""
    raw = parse(text)
    defaults = {f.name: f.default for f in fields(Settings)}
    unknown = sorted(set(raw) - set(defaults))
    if unknown:
        raise ConfigError("unknown setting(s): " + ", ".join(unknown))
    values = {name: coerce(name, value, defaults[name]) for name, value in raw.items()}
    return Settings(**values)


def problems(settings):
    """What is wrong with `settings`, as sentences; [] when nothing is."""
    out = []
    if not settings.endpoint.startswith(("https://", "http://")):
        out.append(f"endpoint {settings.endpoint!r} is not an http(s) URL")
    if not settings.api_token:
        out.append("no API token is set")
    if settings.timeout <= 0:
        out.append("timeout must be positive")
    if not 1 <= settings.workers <= 64:
        out.append("workers must be between 1 and 64")
    return out


def redacted(settings):
    """The settings as `key = value` lines, the token masked, for logs and bug reports."""
    lines = []
    for f in fields(settings):
        value = getattr(settings, f.name)
        if f.name == "api_token" and value:
            value = value[:4] + "..."
        elif isinstance(value, bool):
            value = "yes" if value else "no"
        elif isinstance(value, tuple):
            value = ", ".join(value)
        lines.append(f"{f.name} = {value}")
    return "\n".join(lines)
'''

REPORT = r'''"""Expense report: turn submitted expense rows into expenses, total them by category and by
month, and write the result as a plain-text table or a CSV file."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date

COLUMNS = ("date", "category", "description", "amount")


@dataclass(frozen=True)
class Expense:
    day: date
    category: str
    description: str
    amount: float


def parse_row(row):
    """An Expense from a dict with the COLUMNS as keys (strings, as a form or a file gives them)."""
    missing = [c for c in COLUMNS if not str(row.get(c, "")).strip()]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    amount = float(str(row["amount"]).replace(",", ""))
    if amount < 0:
        raise ValueError(f"negative amount {amount}")
    return Expense(date.fromisoformat(row["date"]), row["category"].strip().lower(),
                   row["description"].strip(), round(amount, 2))


def by_category(expenses):
    """{category: total}, the largest total first."""
    totals = defaultdict(float)
    for e in expenses:
        totals[e.category] += e.amount
    return {k: round(v, 2) for k, v in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))}


def by_month(expenses):
    """{"YYYY-MM": total} in date order."""
    totals = defaultdict(float)
    for e in expenses:
        totals[f"{e.day:%Y-%m}"] += e.amount
    return {k: round(totals[k], 2) for k in sorted(totals)}


def summarize(expenses):
    """Count, total, mean, smallest and largest amount."""
    amounts = [e.amount for e in expenses]
    if not amounts:
        return {"count": 0, "total": 0.0, "mean": 0.0, "min": 0.0, "max": 0.0}
    total = round(sum(amounts), 2)
    return {"count": len(amounts), "total": total, "mean": round(total / len(amounts), 2),
            "min": min(amounts), "max": max(amounts)}


def render_text(expenses):
    """The category totals as a two-column table, then the month totals and a summary line."""
    lines = [f"{'Category':<16}{'Total':>10}", "-" * 26]
    lines += [f"{category:<16}{total:>10.2f}" for category, total in by_category(expenses).items()]
    lines.append("")
    lines += [f"{month:<16}{total:>10.2f}" for month, total in by_month(expenses).items()]
    summary = summarize(expenses)
    lines.append(f"{summary['count']} expenses, {summary['total']:.2f} in all")
    return "\n".join(lines)


def write_csv(path, expenses):
    """Write `expenses` to the CSV file at `path`, header first; return how many rows were written."""
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(",".join(COLUMNS) + "\n")
        for e in expenses:
            f.write(",".join([e.day.isoformat(), e.category, e.description, f"{e.amount:.2f}"]) + "\n")
    return len(expenses)


SAMPLE = [
    {"date": "2024-03-04", "category": "Travel", "description": "Train to Leeds", "amount": "86.40"},
    {"date": "2024-03-04", "category": "meals", "description": "Lunch with client", "amount": "32.50"},
    {"date": "2024-03-19", "category": "travel", "description": "Taxi", "amount": "18.00"},
    {"date": "2024-04-02", "category": "office", "description": "Printer paper", "amount": "1,024.00"},
]
'''

NOTES = r'''"""`notes`: a tiny command-line notebook that keeps each note as a text file in a folder.

    notes add "Buy milk" "two litres" --tag home
    notes list [--tag home]
    notes show buy-milk
    notes remove buy-milk

Installed as a console script pointing at `main`."""

from __future__ import annotations

import sys
from pathlib import Path

NOTES_DIR = Path.home() / ".notes"
TAG_PREFIX = "tags:"


class NoteError(Exception):
    pass


def slugify(title):
    """The file name (without .txt) for a note called `title`."""
    slug = title.strip().lower().replace(" ", "-")
    if not slug:
        raise NoteError("a note needs a title")
    return slug


def note_path(folder, slug):
    return Path(folder) / f"{slug}.txt"


def add_note(folder, title, body="", tags=()):
    path = note_path(folder, slugify(title))
    if path.exists():
        raise NoteError(f"there is already a note {path.stem!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    header = f"{title}\n{TAG_PREFIX} {', '.join(sorted(set(tags)))}\n\n"
    path.write_text(header + body.rstrip() + "\n", encoding="utf-8")
    return path.stem


def read_note(folder, slug):
    path = note_path(folder, slug)
    if not path.exists():
        raise NoteError(f"no note {slug!r}")
    title, tag_line, _, *body = path.read_text(encoding="utf-8").split("\n")
    tags = [t.strip() for t in tag_line[len(TAG_PREFIX):].split(",") if t.strip()]
    return {"slug": slug, "title": title, "tags": tags, "body": "\n".join(body).rstrip()}


def list_notes(folder, tag=None):
    notes = [read_note(folder, p.stem) for p in sorted(Path(folder).glob("*.txt"))]
    return [n for n in notes if tag is None or tag in n["tags"]]


def _take_option(args, name):
    """Remove every `name VALUE` pair from `args` and return the values."""
    values = []
    while name in args:
        i = args.index(name)
        if i + 1 >= len(args):
            raise NoteError(f"{name} needs a value")
        values.append(args[i + 1])
        del args[i:i + 2]
    return values


def cmd_add(folder, args):
    tags = _take_option(args, "--tag")
    if not args:
        raise NoteError("usage: notes add TITLE [BODY] [--tag TAG]...")
    return f"added {add_note(folder, args[0], ' '.join(args[1:]), tags)}"


def cmd_list(folder, args):
    tags = _take_option(args, "--tag")
    notes = list_notes(folder, tags[0] if tags else None)
    return "\n".join(f"{n['slug']:<24} {n['title']}" for n in notes) or "no notes"


def cmd_show(folder, args):
    if len(args) != 1:
        raise NoteError("usage: notes show NAME")
    note = read_note(folder, args[0])
    return f"{note['title']}\n[{', '.join(note['tags'])}]\n\n{note['body']}"


def cmd_remove(folder, args):
    if len(args) != 1:
        raise NoteError("usage: notes remove NAME")
    path = note_path(folder, args[0])
    if not path.exists():
        raise NoteError(f"no note {args[0]!r}")
    path.unlink()
    return f"removed {args[0]}"


COMMANDS = {"add": cmd_add, "list": cmd_list, "show": cmd_show, "remove": cmd_remove}


def resolve_command(name):
    """The function for the command called `name`."""
    try:
        return COMMANDS[name]
    except KeyError:
        raise NoteError(f"unknown command {name!r}") from None


def main(argv=None, folder=None, out=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    out = out or sys.stdout
    folder = NOTES_DIR if folder is None else Path(folder)
    if not argv:
        print("usage: notes add|list|show|remove ...", file=out)
        return 2
    try:
        print(resolve_command(argv[0])(folder, argv[1:]), file=out)
    except NoteError as exc:
        print(f"notes: {exc}", file=out)
        return 1
    return 0
'''


# ------------------------------------------------------------------------------ the tests

# Replaces time.sleep with a recorder, on the module object (what `import time` sees at call time,
# and what an import inside the function gets) and on a module-level `sleep` when the file did
# `from time import sleep`.
_FAKE_SLEEP = r'''
import time as _time
_sleeps = []
_real_sleep = _time.sleep


def _fake_sleep(seconds):
    _sleeps.append(seconds)


_time.sleep = _fake_sleep
if globals().get("sleep") is _real_sleep:
    sleep = _fake_sleep
'''

# A handler on the root logger that keeps every record (a logger named after the module, a logger
# of any other name that propagates, and logging.warning all reach it).
_CATCH_LOGS = r'''
import logging as _logging


class _Catch(_logging.Handler):
    def __init__(self):
        super().__init__(_logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)


_catch = _Catch()
_logging.getLogger().addHandler(_catch)
'''

# Whether a call raises the exception named; the exception's text.
_RAISES = r'''
def _raises(exc, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        return str(e)
    raise AssertionError(f"{getattr(fn, '__name__', fn)}{args} did not raise {exc.__name__}")
'''


TASKS = [
    _task("retry-transport-errors", "client.py", CLIENT,
          "make fetch try up to 3 times when the transport raises a TransportError, waiting one "
          "second between attempts, and re-raise the last error if all 3 fail",
          _FAKE_SLEEP + _RAISES + r'''
_t0 = _time.monotonic()
_tr = ScriptedTransport([TransportError("reset"), TransportError("refused"), Response(200, '{"ok": true}')])
_c = Client("https://api.example.com/v1", _tr)
_r = _c.fetch("/status", {"verbose": 1})
_elapsed = _time.monotonic() - _t0
assert _r.status == 200, _r
assert len(_tr.sent) == 3, f"{len(_tr.sent)} attempts"
assert _tr.sent[-1].url == "https://api.example.com/v1/status?verbose=1", _tr.sent[-1].url
# slept 1 s twice (or, had the wait not gone through time.sleep, for real)
assert [float(s) for s in _sleeps] == [1.0, 1.0] or (not _sleeps and _elapsed >= 1.9), (_sleeps, _elapsed)

_sleeps.clear()
_tr = ScriptedTransport([TransportError("a"), TransportError("b"), TransportError("c"), Response(200, "{}")])
_c = Client("https://api.example.com/v1", _tr)
assert _raises(TransportError, _c.fetch, "/status") == "c"
assert len(_tr.sent) == 3 and len(_tr.script) == 1, (len(_tr.sent), _tr.script)
assert len(_sleeps) in (0, 2, 3) and all(float(s) == 1.0 for s in _sleeps), _sleeps

# a first answer is not retried, nor is an HTTP error status
_sleeps.clear()
_tr = ScriptedTransport([Response(200, '{"id": 7}')])
assert Client("https://api.example.com", _tr).get("/things/7") == {"id": 7}
_tr = ScriptedTransport([Response(503, '{"error": "down for maintenance"}'), Response(200, "{}")])
assert _raises(APIError, Client("https://api.example.com", _tr).get, "/x") == "HTTP 503: down for maintenance"
assert len(_tr.sent) == 1 and _sleeps == [], (_tr.sent, _sleeps)

_tr = ScriptedTransport([Response(200, '{"items": [1, 2], "next_page": 2}'), Response(200, '{"items": [3]}')])
assert fetch_all(Client("https://api.example.com", _tr), "/numbers") == [1, 2, 3]
assert _tr.sent[1].url == "https://api.example.com/numbers?page=2&per_page=50", _tr.sent[1].url
'''),
    _task("basic-auth-header", "client.py", CLIENT,
          "when the client has auth set, send it as an HTTP Basic Authorization header",
          r'''
import base64 as _b64
_tr = ScriptedTransport([Response(200, '{"id": 1}'), Response(201, '{"id": 2}')])
_c = Client("https://api.example.com/v2", _tr, auth=("alice", "pa:ss word"))
assert _c.get("/me") == {"id": 1}
assert _c.post("/things", {"name": "x"}) == {"id": 2}
_want = "Basic " + _b64.b64encode(b"alice:pa:ss word").decode("ascii")
for _req in _tr.sent:
    assert _req.headers.get("Authorization") == _want, _req.headers
    assert _req.headers["User-Agent"] == USER_AGENT and _req.headers["Accept"] == "application/json"
assert _tr.sent[1].headers["Content-Type"] == "application/json"
assert _tr.sent[1].body == '{"name": "x"}' and _tr.sent[0].url == "https://api.example.com/v2/me"

# no auth: no Authorization header, the rest as before
_tr = ScriptedTransport([Response(200, "[1]")])
_c = Client("https://api.example.com", _tr)
assert _c.get("/list") == [1]
assert _tr.sent[0].headers == {"User-Agent": USER_AGENT, "Accept": "application/json"}, _tr.sent[0].headers
assert error_message(Response(400, '{"error": "bad page"}')) == "bad page"
'''),
    _task("job-created-at", "jobs.py", JOBS,
          "make submit set the job's created_at to the current UTC time, as an ISO 8601 string",
          r'''
import datetime as _dt
_q = JobQueue()
_before = _dt.datetime.now(_dt.timezone.utc)
_a = _q.submit("email", {"to": "a@example.com"}, priority=1)
_b = _q.submit("resize", {"width": 200}, priority=5)
_after = _dt.datetime.now(_dt.timezone.utc)


def _when(job):
    assert isinstance(job.created_at, str) and job.created_at, repr(job.created_at)
    when = _dt.datetime.fromisoformat(job.created_at)
    return when if when.tzinfo else when.replace(tzinfo=_dt.timezone.utc)


_slack = _dt.timedelta(seconds=2)
assert _before - _slack <= _when(_a) <= _after + _slack, (_a.created_at, _before, _after)
assert _when(_a) <= _when(_b) <= _after + _slack, (_a.created_at, _b.created_at)
assert "T" in _a.created_at, _a.created_at

# the queue works as before
assert _a.id == "job-1" and _b.id == "job-2", (_a.id, _b.id)
assert _q.claim() is _b and _b.status is Status.RUNNING and _b.attempts == 1
_q.fail(_b.id, "disk full")
assert _b.status is Status.PENDING and _q.claim() is _b
_q.complete(_b.id, "ok")
assert run_all(_q, {}) == 3 and _a.status is Status.FAILED and _a.attempts == 3
assert status_counts(_q) == {"pending": 0, "running": 0, "done": 1, "failed": 1}
assert "job-1 (email) failed after 3 attempts: no handler for 'email'" in report(_q), report(_q)
'''),
    _task("job-uuid-ids", "jobs.py", JOBS,
          "give jobs random UUIDs (as strings) for their ids instead of job-1, job-2, ...",
          _RAISES + r'''
import uuid as _uuid
_q = JobQueue()
_jobs = [_q.submit("resize", {"n": i}, priority=i % 3) for i in range(40)]
_ids = [j.id for j in _jobs]
assert len(set(_ids)) == 40, _ids
for _i in _ids:
    assert isinstance(_i, str) and not _i.startswith("job-"), repr(_i)
    _uuid.UUID(_i)
assert _q.get(_ids[5]) is _jobs[5]
assert "no job 'nope'" in _raises(QueueError, _q.get, "nope")

# priority, then submission order, as before
assert _q.claim() is _jobs[2] and _q.claim() is _jobs[5]
_q.complete(_jobs[2].id, 1)
_q.fail(_jobs[5].id, "boom")
assert _jobs[5].status is Status.PENDING
assert run_all(_q, {"resize": lambda p: p["n"] * 2}) == 39
assert _jobs[5].result == 10 and status_counts(_q)["done"] == 40
assert report(_q) == "40 jobs: 40 done", report(_q)
'''),
    _task("sha256-checksum", "snapshot.py", SNAPSHOT,
          "make checksum return the SHA-256 hex digest of the file's contents, reading it in chunks",
          r'''
import hashlib as _hashlib
import os as _os
_os.makedirs("data/sub", exist_ok=True)
_big = bytes(range(256)) * 1000 + b"tail"
with open("data/sub/big.bin", "wb") as _f:
    _f.write(_big)
with open("data/a.txt", "w", encoding="utf-8") as _f:
    _f.write("hello\n")
with open("data/scratch.tmp", "w", encoding="utf-8") as _f:
    _f.write("ignored\n")

assert checksum("data/sub/big.bin") == _hashlib.sha256(_big).hexdigest(), checksum("data/sub/big.bin")
assert checksum(Path("data/a.txt")) == _hashlib.sha256(b"hello\n").hexdigest()
_snap = snapshot("data")
assert sorted(_snap) == ["a.txt", "sub/big.bin"], sorted(_snap)
assert _snap["sub/big.bin"] == Entry("sub/big.bin", len(_big), _hashlib.sha256(_big).hexdigest())

# the rest as before
assert update("data") == "+ a.txt\n+ sub/big.bin\n2 changes", update
with open("data/a.txt", "w", encoding="utf-8") as _f:
    _f.write("hellp\n")
_os.remove("data/sub/big.bin")
assert update("data") == "- sub/big.bin\n~ a.txt\n2 changes"
assert update("data") == "no changes"
assert load_manifest("data")["a.txt"].checksum == _hashlib.sha256(b"hellp\n").hexdigest()
'''),
    _task("manifest-backup", "snapshot.py", SNAPSHOT,
          "before save_manifest overwrites an existing manifest, copy the old one to .manifest.json~ "
          "in the same folder, keeping its modification time",
          r'''
import os as _os
_os.makedirs("tree")
with open("tree/a.txt", "w", encoding="utf-8") as _f:
    _f.write("one")
_p = save_manifest("tree", snapshot("tree"))
assert _p == Path("tree") / MANIFEST_NAME
assert not (Path("tree") / ".manifest.json~").exists(), "a backup with nothing to back up"
_old = _p.read_text(encoding="utf-8")
_os.utime(_p, (1_600_000_000, 1_600_000_000))

with open("tree/b.txt", "w", encoding="utf-8") as _f:
    _f.write("two")
_p2 = save_manifest("tree", snapshot("tree"))
_bak = Path("tree") / ".manifest.json~"
assert _bak.exists(), "no backup"
assert _bak.read_text(encoding="utf-8") == _old, _bak.read_text(encoding="utf-8")
assert abs(_bak.stat().st_mtime - 1_600_000_000) < 2, _bak.stat().st_mtime
assert sorted(load_manifest("tree")) == ["a.txt", "b.txt"]
assert _p2.read_text(encoding="utf-8") != _old

# the rest as before (the backup's name ends with "~": snapshots leave it out)
with open("tree/c.txt", "w", encoding="utf-8") as _f:
    _f.write("three")
assert update("tree") == "+ c.txt\n1 change", update("tree")
assert sorted(load_manifest(Path("tree") / "nowhere")) == []
assert checksum("tree/a.txt") == checksum(Path("tree/a.txt")) and is_ignored(Path("x.swp"))
'''),
    _task("token-from-env", "config.py", CONFIG,
          "make load fall back to the API_TOKEN environment variable when the file doesn't set "
          "api_token",
          _RAISES + r'''
import os as _os
_os.environ["API_TOKEN"] = "tok-from-env-123"
_s = load(text="workers = 8\nverify_tls = no\n")
assert _s.api_token == "tok-from-env-123", _s
assert _s.workers == 8 and _s.verify_tls is False and problems(_s) == [], _s
with open("sync.conf", "w", encoding="utf-8") as _f:
    _f.write("# mine\napi_token = tok-from-file\ntags = a, b\n")
_s = load("sync.conf")
assert _s.api_token == "tok-from-file" and _s.tags == ("a", "b"), _s
assert load().api_token == "tok-from-env-123"

del _os.environ["API_TOKEN"]
_s = load(text="timeout = 2.5\n")
assert _s.api_token == "" and _s.timeout == 2.5, _s
assert problems(_s) == ["no API token is set"], problems(_s)
assert "unknown setting(s): colour" in _raises(ConfigError, load, text="colour = red\n")
assert redacted(load(text="api_token = abcdefgh")).splitlines()[1] == "api_token = abcd..."
'''),
    _task("warn-skipped-lines", "config.py", CONFIG,
          "make parse log a warning, with the line number, for each line it skips because it has "
          "no '='",
          _CATCH_LOGS + _RAISES + r'''
import re as _re
_text = "# sync settings\nworkers = 2\nthis line is broken\n\nendpoint = https://x.example.com\n[section]\n"
_vals = parse(_text)
assert _vals == {"workers": "2", "endpoint": "https://x.example.com"}, _vals
_warned = [r.getMessage() for r in _catch.records if r.levelno == _logging.WARNING]
assert len(_warned) == 2, [(r.levelname, r.getMessage()) for r in _catch.records]
assert _re.search(r"\b3\b", _warned[0]) and _re.search(r"\b6\b", _warned[1]), _warned

# nothing to skip, nothing logged; the rest as before
_catch.records.clear()
_s = load(text="# comment\n\nworkers = 3\ntags = x,y\n")
assert _s.workers == 3 and _s.tags == ("x", "y") and _catch.records == [], _catch.records
assert "line 2: no setting name" in _raises(ConfigError, parse, "a = 1\n = 2\n")
assert coerce("verify_tls", "ON", True) is True
'''),
    _task("csv-quoting", "report.py", REPORT,
          "make write_csv quote values properly, so descriptions with commas or quotes in them "
          "survive",
          r'''
import csv as _csv
_rows = [Expense(date(2024, 3, 1), "travel", 'Taxi, airport "red-eye"', 48.5),
         Expense(date(2024, 3, 2), "meals", "Lunch", 12.0),
         Expense(date(2024, 3, 9), "office", "Pens; paper, \"good\" ones", 7.25)]
assert write_csv("out.csv", _rows) == 3
with open("out.csv", newline="", encoding="utf-8") as _f:
    _back = list(_csv.reader(_f))
assert _back == [list(COLUMNS),
                 ["2024-03-01", "travel", 'Taxi, airport "red-eye"', "48.50"],
                 ["2024-03-02", "meals", "Lunch", "12.00"],
                 ["2024-03-09", "office", "Pens; paper, \"good\" ones", "7.25"]], _back

# the rest as before
_exp = [parse_row(r) for r in SAMPLE]
assert by_category(_exp) == {"office": 1024.0, "travel": 104.4, "meals": 32.5}, by_category(_exp)
assert by_month(_exp) == {"2024-03": 136.9, "2024-04": 1024.0}
assert render_text(_exp).splitlines()[-1] == "4 expenses, 1160.90 in all"
'''),
    _task("summary-median", "report.py", REPORT,
          "add the median amount to what summarize returns, under \"median\"",
          r'''
def _e(amount):
    return Expense(date(2024, 5, 1), "misc", "x", amount)


_s = summarize([_e(12.5), _e(3.0), _e(40.0)])
assert abs(_s["median"] - 12.5) < 1e-9, _s
assert _s["count"] == 3 and _s["total"] == 55.5 and _s["mean"] == 18.5 and _s["min"] == 3.0 and _s["max"] == 40.0, _s
_s = summarize([_e(3.0), _e(12.5), _e(40.0), _e(7.5)])
assert abs(_s["median"] - 10.0) < 1e-9, _s
assert abs(summarize([parse_row(r) for r in SAMPLE])["median"] - 59.45) < 1e-9

# the rest as before
assert summarize([])["count"] == 0 and summarize([])["total"] == 0.0
assert render_text([_e(2.0), _e(4.0)]).splitlines()[-1] == "2 expenses, 6.00 in all"
assert parse_row({"date": "2024-01-02", "category": " Meals ", "description": "d", "amount": "1,200.5"}) \
    == Expense(date(2024, 1, 2), "meals", "d", 1200.5)
'''),
    _task("did-you-mean", "notes.py", NOTES,
          "when resolve_command gets an unknown name, suggest the closest known command in the "
          "error, like \"unknown command 'lsit' (did you mean 'list'?)\"",
          _RAISES + r'''
import io as _io
import re as _re
for _typo, _meant in (("lsit", "list"), ("remvoe", "remove"), ("sho", "show"), ("ad", "add")):
    _msg = _raises(NoteError, resolve_command, _typo)
    assert _re.search(rf"\b{_meant}\b", _msg) and _typo in _msg, (_typo, _msg)
_msg = _raises(NoteError, resolve_command, "xyzzy")
assert "xyzzy" in _msg and not _re.search(r"\b(add|list|show|remove)\b", _msg), _msg
assert resolve_command("show") is cmd_show

_out = _io.StringIO()
assert main(["lsit"], folder="nb", out=_out) == 1
assert _out.getvalue().startswith("notes: ") and _re.search(r"\blist\b", _out.getvalue()), _out.getvalue()

# the rest as before
_out = _io.StringIO()
assert main(["add", "Buy milk", "two", "litres", "--tag", "home"], folder="nb", out=_out) == 0
assert _out.getvalue() == "added buy-milk\n", _out.getvalue()
assert read_note("nb", "buy-milk") == {"slug": "buy-milk", "title": "Buy milk", "tags": ["home"], "body": "two litres"}
assert cmd_list("nb", ["--tag", "work"]) == "no notes"
'''),
    _task("slugify-punctuation", "notes.py", NOTES,
          "make slugify turn every run of characters that aren't letters or digits into a single "
          "hyphen, with no hyphens at the ends",
          _RAISES + r'''
assert slugify("Buy milk") == "buy-milk", slugify("Buy milk")
assert slugify("  Call Bob: re. Q3 budget!! ") == "call-bob-re-q3-budget", slugify("  Call Bob: re. Q3 budget!! ")
assert slugify("a -- b") == "a-b", slugify("a -- b")
assert slugify("Tom & Jerry's  plan (v2)") == "tom-jerry-s-plan-v2", slugify("Tom & Jerry's  plan (v2)")
assert slugify("already-fine-42") == "already-fine-42"
assert "needs a title" in _raises(NoteError, slugify, "   ")

# the rest as before
assert add_note("nb", "Dentist, Tuesday 9:30!", "bring forms", ["health", "health"]) == "dentist-tuesday-9-30"
assert read_note("nb", "dentist-tuesday-9-30")["tags"] == ["health"]
assert cmd_show("nb", ["dentist-tuesday-9-30"]) == "Dentist, Tuesday 9:30!\n[health]\n\nbring forms"
assert "already a note" in _raises(NoteError, add_note, "nb", "dentist tuesday 9 30")
assert cmd_remove("nb", ["dentist-tuesday-9-30"]) == "removed dentist-tuesday-9-30" and list_notes("nb") == []
'''),
]
