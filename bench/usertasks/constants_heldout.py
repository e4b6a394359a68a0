"""Held-out edits of a module's or a class's constant in a hand-written 150-210 line module
(`bench/usertasks/constants_heldout.py`): the requests people type ("set MAX_RETRIES to 5", "bump the
cache TTL to an hour", "add a comment explaining MAGIC_OFFSET"), some naming the constant as code,
some in words, at module level and in class bodies.

Written 2026-11-28, blind to the mechanism they measure (its code and prompts unread), and run as
first written. Each file is an original, runnable, stdlib-only module (a retrying client, a cache, an
upload validator, a job runner, web-app settings, a report, a query builder, day numbers, a rate
limiter); each test checks the change asked for, the behaviour of the code that uses the constant,
and that no other statement of the file changed (bench/usertasks/constants.py's _test).

A class constant's test allows f"{Class}.<" (the class body's statements; no other class of these
files has a name ending in that class's name, so the substring picks that body alone) and checks, with
_rest_of, that the body's other statements stayed as they were."""

from __future__ import annotations

from bench.usertasks.constants import _test

CLIENT = r'''"""A small retrying HTTP-style client with a pluggable transport.

The transport is anything with a `send(request) -> Response` method; FakeTransport replays a
script of responses so the client can be exercised without a network."""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode

MAX_RETRIES = 3
BACKOFF_BASE = 0.5
BACKOFF_CAP = 8.0
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
USER_AGENT = "steer-demo-client/1.4"


class TransportError(Exception):
    """The request never got a response (connection refused, reset, DNS failure)."""


class HTTPError(Exception):
    def __init__(self, response):
        super().__init__(f"{response.status} for {response.url}")
        self.response = response


@dataclass
class Request:
    method: str
    url: str
    headers: dict = field(default_factory=dict)
    body: bytes = b""


@dataclass
class Response:
    status: int
    url: str
    headers: dict = field(default_factory=dict)
    body: bytes = b""

    @property
    def ok(self):
        return 200 <= self.status < 300

    def json(self):
        return json.loads(self.body.decode("utf-8") or "null")

    def text(self):
        return self.body.decode("utf-8", errors="replace")


class FakeTransport:
    """Replays `script`: an int is a bare status, an exception is raised, a Response is returned.
    Every request sent is kept in `sent`; once the script runs out every answer is a 404."""

    def __init__(self, script=None):
        self.script = list(script or [])
        self.sent = []

    def queue(self, *items):
        self.script.extend(items)

    def send(self, request):
        self.sent.append(request)
        if not self.script:
            return Response(404, request.url)
        item = self.script.pop(0)
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, int):
            return Response(item, request.url)
        return item


def backoff_delay(attempt, base=BACKOFF_BASE, cap=BACKOFF_CAP, rng=None):
    """Seconds to wait before retry number `attempt` (0-based): exponential, capped, with jitter
    between half and the full delay when an rng is given."""
    delay = min(cap, base * (2 ** attempt))
    if rng is not None:
        delay *= 0.5 + rng.random() / 2
    return delay


def retry_after(response):
    """The Retry-After header in seconds, or None when absent or not a number."""
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def should_retry(method, response=None, error=None):
    if method.upper() not in IDEMPOTENT_METHODS:
        return False
    if error is not None:
        return isinstance(error, TransportError)
    return response is not None and response.status in RETRY_STATUSES


class Client:
    def __init__(self, transport, base_url="", sleep=time.sleep, max_retries=None, seed=None):
        self.transport = transport
        self.base_url = base_url.rstrip("/")
        self.sleep = sleep
        self.max_retries = MAX_RETRIES if max_retries is None else max_retries
        self.rng = random.Random(seed) if seed is not None else None
        self.stats = {"requests": 0, "retries": 0, "failures": 0}

    def _url(self, path, params=None):
        url = path if path.startswith(("http://", "https://")) else f"{self.base_url}/{path.lstrip('/')}"
        if params:
            url += ("&" if "?" in url else "?") + urlencode(sorted(params.items()))
        return url

    def request(self, method, path, params=None, headers=None, body=b"", json_body=None):
        all_headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
        all_headers.update(headers or {})
        if json_body is not None:
            body = json.dumps(json_body).encode("utf-8")
            all_headers["Content-Type"] = "application/json"
        request = Request(method.upper(), self._url(path, params), all_headers, body)
        attempt = 0
        while True:
            self.stats["requests"] += 1
            try:
                response = self.transport.send(request)
            except TransportError as exc:
                if attempt >= self.max_retries or not should_retry(method, error=exc):
                    self.stats["failures"] += 1
                    raise
                wait = backoff_delay(attempt, rng=self.rng)
            else:
                if attempt >= self.max_retries or not should_retry(method, response=response):
                    if not response.ok:
                        self.stats["failures"] += 1
                    return response
                wait = retry_after(response)
                if wait is None:
                    wait = backoff_delay(attempt, rng=self.rng)
            self.sleep(wait)
            attempt += 1
            self.stats["retries"] += 1

    def get(self, path, **kwargs):
        return self.request("GET", path, **kwargs)

    def post(self, path, **kwargs):
        return self.request("POST", path, **kwargs)

    def get_json(self, path, **kwargs):
        response = self.get(path, **kwargs)
        if not response.ok:
            raise HTTPError(response)
        return response.json()


def parse_link_header(value):
    """{rel: url} from a Link header such as '<https://x/?page=2>; rel="next"'."""
    links = {}
    for part in value.split(","):
        if ";" not in part:
            continue
        target, *params = part.split(";")
        url = target.strip().strip("<>")
        for param in params:
            key, _, rel = param.strip().partition("=")
            if key == "rel":
                links[rel.strip('"')] = url
    return links


def fetch_all(client, path, params=None):
    """Every item of a paginated JSON list, following rel="next" links."""
    items = []
    url = path
    while url:
        response = client.get(url, params=params)
        if not response.ok:
            raise HTTPError(response)
        items.extend(response.json())
        url = parse_link_header(response.headers.get("Link", "")).get("next")
        params = None
    return items


def summarize(stats):
    total = stats["requests"] or 1
    return f"{stats['requests']} requests, {stats['retries']} retries, {stats['failures'] / total:.0%} failed"


if __name__ == "__main__":
    fake = FakeTransport([503, Response(200, "/", {}, b'[1, 2]')])
    client = Client(fake, "https://api.example.test", sleep=lambda s: None)
    print(client.get_json("/items"), summarize(client.stats))
'''

CACHE = r'''"""An in-process cache with per-entry expiry, a size bound and a memoizing decorator.

Time comes from an injectable clock so that expiry can be tested without sleeping."""

from __future__ import annotations

import functools
import time
from collections import OrderedDict

CACHE_TTL_SECONDS = 300
MAX_ENTRIES = 1024
SWEEP_EVERY = 100
KEY_SEPARATOR = ":"
MISSING = object()


class CacheStats:
    def __init__(self):
        self.hits = 0
        self.misses = 0
        self.evictions = 0
        self.expirations = 0

    @property
    def hit_rate(self):
        looked_up = self.hits + self.misses
        return self.hits / looked_up if looked_up else 0.0

    def as_dict(self):
        return {"hits": self.hits, "misses": self.misses, "evictions": self.evictions,
                "expirations": self.expirations, "hit_rate": round(self.hit_rate, 3)}


class ExpiringCache:
    """Least recently used entries go first once `max_entries` is reached; an entry older than
    its ttl is never returned."""

    def __init__(self, ttl=None, max_entries=MAX_ENTRIES, clock=time.monotonic):
        self.ttl = CACHE_TTL_SECONDS if ttl is None else ttl
        self.max_entries = max_entries
        self.clock = clock
        self.stats = CacheStats()
        self._data = OrderedDict()
        self._ops = 0

    def __len__(self):
        return len(self._data)

    def __contains__(self, key):
        return self.get(key, MISSING) is not MISSING

    def _tick(self):
        self._ops += 1
        if self._ops % SWEEP_EVERY == 0:
            self.sweep()

    def get(self, key, default=None):
        self._tick()
        entry = self._data.get(key)
        if entry is None:
            self.stats.misses += 1
            return default
        value, expires_at = entry
        if self.clock() >= expires_at:
            del self._data[key]
            self.stats.expirations += 1
            self.stats.misses += 1
            return default
        self._data.move_to_end(key)
        self.stats.hits += 1
        return value

    def set(self, key, value, ttl=None):
        self._tick()
        lifetime = self.ttl if ttl is None else ttl
        self._data[key] = (value, self.clock() + lifetime)
        self._data.move_to_end(key)
        while len(self._data) > self.max_entries:
            self._data.popitem(last=False)
            self.stats.evictions += 1

    def delete(self, key):
        return self._data.pop(key, None) is not None

    def clear(self):
        self._data.clear()

    def sweep(self):
        """Drop every expired entry; the number dropped."""
        now = self.clock()
        expired = [key for key, (_, expires_at) in self._data.items() if now >= expires_at]
        for key in expired:
            del self._data[key]
        self.stats.expirations += len(expired)
        return len(expired)

    def ttl_left(self, key):
        entry = self._data.get(key)
        if entry is None:
            return None
        return max(0.0, entry[1] - self.clock())

    def get_or_set(self, key, factory, ttl=None):
        value = self.get(key, MISSING)
        if value is MISSING:
            value = factory()
            self.set(key, value, ttl)
        return value


def make_key(*parts, **named):
    """A flat string key: positional parts, then named ones sorted by name."""
    pieces = [str(p) for p in parts]
    pieces.extend(f"{k}={named[k]}" for k in sorted(named))
    return KEY_SEPARATOR.join(pieces)


def cached(cache, prefix=None, ttl=None):
    """Memoize a function's results in `cache`, keyed on its arguments."""

    def decorate(fn):
        name = prefix or fn.__name__

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            key = make_key(name, *args, **kwargs)
            return cache.get_or_set(key, lambda: fn(*args, **kwargs), ttl)

        wrapper.invalidate = lambda *args, **kwargs: cache.delete(make_key(name, *args, **kwargs))
        return wrapper

    return decorate


class FakeClock:
    def __init__(self, start=0.0):
        self.now = start

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


def warm(cache, loader, keys):
    """Load every key not already cached; how many were loaded."""
    loaded = 0
    for key in keys:
        if cache.get(key, MISSING) is MISSING:
            cache.set(key, loader(key))
            loaded += 1
    return loaded


def describe(cache):
    stats = cache.stats.as_dict()
    return (f"{len(cache)}/{cache.max_entries} entries, ttl {cache.ttl}s, "
            f"hit rate {stats['hit_rate']:.1%}, {stats['evictions']} evicted")


if __name__ == "__main__":
    clock = FakeClock()
    cache = ExpiringCache(clock=clock)

    @cached(cache)
    def square(n):
        return n * n

    print([square(i % 3) for i in range(6)], describe(cache))
'''

UPLOADS = r'''"""Validation of user-uploaded images before they are stored.

Checks the file name, the declared size, the leading bytes and the pixel dimensions of an upload,
and builds a safe storage name for it."""

from __future__ import annotations

import hashlib
import re
import struct
from dataclasses import dataclass, field

ALLOWED_EXTENSIONS = frozenset({"jpg", "jpeg", "png", "gif"})
MAX_FILENAME_LENGTH = 120
STORAGE_PREFIX = "uploads"
SAFE_NAME = re.compile(r"[^a-z0-9._-]+")

SIGNATURES = {
    b"\x89PNG\r\n\x1a\n": "png",
    b"\xff\xd8\xff": "jpeg",
    b"GIF87a": "gif",
    b"GIF89a": "gif",
}


class UploadError(ValueError):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


@dataclass
class Upload:
    filename: str
    size: int
    head: bytes = b""
    width: int | None = None
    height: int | None = None
    meta: dict = field(default_factory=dict)


def extension(filename):
    """The lower-case extension of `filename`, without the dot ("" when there is none)."""
    base = filename.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    if "." not in base.strip("."):
        return ""
    return base.rsplit(".", 1)[-1].lower()


def is_allowed_filename(filename):
    return extension(filename) in ALLOWED_EXTENSIONS


def sniff(head):
    """The image type the leading bytes announce, or None."""
    for magic, kind in SIGNATURES.items():
        if head.startswith(magic):
            return kind
    return None


def png_dimensions(head):
    """(width, height) from a PNG's IHDR chunk, or None when `head` is too short."""
    if len(head) < 24 or sniff(head) != "png":
        return None
    return struct.unpack(">II", head[16:24])


def same_kind(ext, kind):
    return kind is None or ext == kind or {ext, kind} == {"jpg", "jpeg"}


def human_size(n):
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


class UploadValidator:
    MAX_BYTES = 5 * 1024 * 1024
    MIN_DIMENSION = 16
    MAX_DIMENSION = 4096

    def __init__(self, max_bytes=None, allow_upscale=False):
        self.max_bytes = self.MAX_BYTES if max_bytes is None else max_bytes
        self.allow_upscale = allow_upscale

    def check_name(self, upload):
        name = upload.filename
        if not name or len(name) > MAX_FILENAME_LENGTH:
            raise UploadError("bad_name", "file name is empty or too long")
        if not is_allowed_filename(name):
            allowed = ", ".join(sorted(ALLOWED_EXTENSIONS))
            raise UploadError("bad_type", f"only {allowed} files can be uploaded")

    def check_size(self, upload):
        if upload.size <= 0:
            raise UploadError("empty", "the file is empty")
        if upload.size > self.max_bytes:
            raise UploadError("too_big", f"the file is {human_size(upload.size)}, "
                                         f"the limit is {human_size(self.max_bytes)}")

    def check_content(self, upload):
        kind = sniff(upload.head)
        if not same_kind(extension(upload.filename), kind):
            raise UploadError("mismatch", f"the file says .{extension(upload.filename)} but looks like {kind}")
        if kind == "png" and upload.width is None:
            dims = png_dimensions(upload.head)
            if dims:
                upload.width, upload.height = dims

    def check_dimensions(self, upload):
        if upload.width is None or upload.height is None:
            return
        smallest, largest = min(upload.width, upload.height), max(upload.width, upload.height)
        if smallest < self.MIN_DIMENSION and not self.allow_upscale:
            raise UploadError("too_small", f"images must be at least {self.MIN_DIMENSION}px a side")
        if largest > self.MAX_DIMENSION:
            raise UploadError("too_large", f"images must be at most {self.MAX_DIMENSION}px a side")

    def validate(self, upload):
        """Raise UploadError for the first problem found; the upload, completed, otherwise."""
        self.check_name(upload)
        self.check_size(upload)
        self.check_content(upload)
        self.check_dimensions(upload)
        return upload

    def problems(self, upload):
        """Every problem code, not just the first."""
        codes = []
        for check in (self.check_name, self.check_size, self.check_content, self.check_dimensions):
            try:
                check(upload)
            except UploadError as exc:
                codes.append(exc.code)
        return codes


def storage_name(upload, user_id):
    """A collision-free, path-safe name: uploads/<user>/<digest>-<clean name>."""
    base = upload.filename.rsplit("/", 1)[-1].lower()
    stem, _, ext = base.rpartition(".")
    clean = SAFE_NAME.sub("-", stem).strip("-") or "image"
    digest = hashlib.sha256(f"{user_id}:{upload.filename}:{upload.size}".encode()).hexdigest()[:12]
    return f"{STORAGE_PREFIX}/{user_id}/{digest}-{clean[:40]}.{ext}"


def validate_batch(uploads, validator=None):
    """({filename: storage name} of the good ones, {filename: error message} of the rest)."""
    validator = validator or UploadValidator()
    accepted, rejected = {}, {}
    for upload in uploads:
        try:
            validator.validate(upload)
        except UploadError as exc:
            rejected[upload.filename] = str(exc)
        else:
            accepted[upload.filename] = storage_name(upload, upload.meta.get("user", "anon"))
    return accepted, rejected


if __name__ == "__main__":
    png = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + struct.pack(">II", 640, 480)
    ok, bad = validate_batch([Upload("Holiday Photo.PNG", 2048, png), Upload("notes.txt", 10)])
    print(ok, bad)
'''

JOBS = r'''"""A tiny background-job runner: a priority queue of jobs and a worker that runs them with
retries and a per-job time limit. The clock is injectable so that runs can be simulated."""

from __future__ import annotations

import heapq
import itertools
import time
import traceback
from dataclasses import dataclass, field

PRIORITIES = {"high": 0, "normal": 5, "low": 9}
HISTORY_LIMIT = 500


class JobTimeout(Exception):
    pass


@dataclass
class Job:
    name: str
    func: object
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    priority: str = "normal"
    timeout: float | None = None
    attempts: int = 0
    status: str = "queued"
    result: object = None
    error: str = ""


class JobQueue:
    def __init__(self):
        self._heap = []
        self._order = itertools.count()
        self.names = set()

    def __len__(self):
        return len(self._heap)

    def push(self, job):
        if job.priority not in PRIORITIES:
            raise ValueError(f"unknown priority {job.priority!r}")
        heapq.heappush(self._heap, (PRIORITIES[job.priority], next(self._order), job))
        self.names.add(job.name)
        return job

    def pop(self):
        if not self._heap:
            return None
        job = heapq.heappop(self._heap)[2]
        self.names.discard(job.name)
        return job

    def submit(self, name, func, *args, priority="normal", timeout=None, **kwargs):
        return self.push(Job(name, func, args, kwargs, priority, timeout))

    def pending(self):
        return [job.name for _, _, job in sorted(self._heap)]


class Deadline:
    """Handed to a job that asks for it: `check()` raises JobTimeout once time is up."""

    def __init__(self, seconds, clock):
        self.clock = clock
        self.ends_at = clock() + seconds

    def remaining(self):
        return max(0.0, self.ends_at - self.clock())

    def check(self):
        if self.clock() > self.ends_at:
            raise JobTimeout("time limit reached")


class Worker:
    DEFAULT_TIMEOUT = 30.0
    MAX_ATTEMPTS = 3
    RETRY_DELAY = 1.0

    def __init__(self, queue, clock=time.monotonic, sleep=time.sleep, timeout=None):
        self.queue = queue
        self.clock = clock
        self.sleep = sleep
        self.timeout = self.DEFAULT_TIMEOUT if timeout is None else timeout
        self.history = []

    def _limit(self, job):
        return job.timeout if job.timeout is not None else self.timeout

    def run_one(self, job):
        job.attempts += 1
        deadline = Deadline(self._limit(job), self.clock)
        started = self.clock()
        try:
            kwargs = dict(job.kwargs)
            if getattr(job.func, "wants_deadline", False):
                kwargs["deadline"] = deadline
            result = job.func(*job.args, **kwargs)
            if self.clock() - started > self._limit(job):
                raise JobTimeout(f"took {self.clock() - started:.1f}s")
        except JobTimeout as exc:
            job.status, job.error = "timeout", str(exc)
        except Exception as exc:
            job.status = "failed"
            job.error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        else:
            job.status, job.result, job.error = "done", result, ""
        self._record(job, self.clock() - started)
        return job

    def _record(self, job, elapsed):
        self.history.append((job.name, job.status, round(elapsed, 3)))
        del self.history[:-HISTORY_LIMIT]

    def run(self, job):
        """Run `job`, retrying failures (not timeouts) up to MAX_ATTEMPTS times in all."""
        while True:
            self.run_one(job)
            if job.status != "failed" or job.attempts >= self.MAX_ATTEMPTS:
                return job
            self.sleep(self.RETRY_DELAY * job.attempts)

    def drain(self):
        """Run every queued job, highest priority first; {name: status}."""
        done = {}
        while True:
            job = self.queue.pop()
            if job is None:
                return done
            done[job.name] = self.run(job).status


def needs_deadline(func):
    func.wants_deadline = True
    return func


def summary(history):
    counts = {}
    for _, status, _ in history:
        counts[status] = counts.get(status, 0) + 1
    return ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "nothing run"


def slowest(history, n=3):
    return [name for name, _, _ in sorted(history, key=lambda h: -h[2])[:n]]


class SimClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


if __name__ == "__main__":
    clock = SimClock()
    queue = JobQueue()
    queue.submit("quick", lambda: 42, priority="high")
    queue.submit("slow", lambda: clock.sleep(45))
    worker = Worker(queue, clock=clock, sleep=clock.sleep)
    print(worker.drain(), summary(worker.history))
'''

SETTINGS = r'''"""Settings of the blog web app: one class per environment, picked by name at start-up.

Values can be overridden from a mapping (a parsed config file, test fixtures); `load` returns
a plain dict of the upper-case names."""

from __future__ import annotations

import json
from datetime import timedelta

APP_NAME = "inkwell"
VERSION = "2.3.1"


class Config:
    SECRET_KEY = "dev-5b1f0c7e9a2d4e38"
    DEBUG = False
    TESTING = False
    DATABASE_URL = "sqlite:///inkwell.db"
    POSTS_PER_PAGE = 20
    COMMENTS_PER_PAGE = 50
    SESSION_LIFETIME = timedelta(days=14)
    MAX_CONTENT_LENGTH = 16 * 1024 * 1024
    LANGUAGES = ("en", "fr", "de")
    MAIL_SENDER = "no-reply@inkwell.example"
    SLUG_MAX_LENGTH = 80

    @classmethod
    def as_dict(cls):
        return {name: getattr(cls, name) for name in dir(cls) if name.isupper()}

    @classmethod
    def problems(cls):
        """What is wrong with this environment's settings, as sentences."""
        found = []
        if cls.POSTS_PER_PAGE < 1 or cls.COMMENTS_PER_PAGE < 1:
            found.append("page sizes must be positive")
        if not cls.LANGUAGES:
            found.append("at least one language is needed")
        if cls.SESSION_LIFETIME <= timedelta(0):
            found.append("sessions must last some time")
        return found


class Development(Config):
    DEBUG = True
    DATABASE_URL = "sqlite:///inkwell-dev.db"


class Testing(Config):
    TESTING = True
    DATABASE_URL = "sqlite:///:memory:"
    POSTS_PER_PAGE = 5
    SESSION_LIFETIME = timedelta(minutes=5)


class Production(Config):
    DATABASE_URL = "postgresql://inkwell@db/inkwell"
    SESSION_LIFETIME = timedelta(days=30)

    @classmethod
    def problems(cls):
        found = super().problems()
        if cls.SECRET_KEY.startswith("dev-"):
            found.append("the secret key is still the development one")
        if cls.DEBUG:
            found.append("debug must be off in production")
        return found


ENVIRONMENTS = {"development": Development, "testing": Testing, "production": Production}


def config_class(name):
    try:
        return ENVIRONMENTS[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown environment {name!r}; one of {', '.join(sorted(ENVIRONMENTS))}") from None


def _coerce(current, raw):
    """`raw` (often a string from a config file) as the type of the current value."""
    if isinstance(current, bool):
        return raw if isinstance(raw, bool) else str(raw).strip().lower() in ("1", "true", "yes", "on")
    if isinstance(current, int):
        return int(raw)
    if isinstance(current, timedelta):
        return raw if isinstance(raw, timedelta) else timedelta(seconds=float(raw))
    if isinstance(current, tuple):
        return tuple(raw) if not isinstance(raw, str) else tuple(p.strip() for p in raw.split(",") if p.strip())
    return raw


def load(name="development", overrides=None):
    """The settings of environment `name` as a dict, with `overrides` applied (unknown keys are errors)."""
    settings = config_class(name).as_dict()
    for key, raw in (overrides or {}).items():
        if key not in settings:
            raise KeyError(f"unknown setting {key}")
        settings[key] = _coerce(settings[key], raw)
    return settings


def page_bounds(page, total, per_page=None):
    """(offset, limit, last page) of 1-based `page` of a list of `total` posts."""
    per_page = per_page or Config.POSTS_PER_PAGE
    last = max(1, -(-total // per_page))
    page = min(max(1, page), last)
    return (page - 1) * per_page, per_page, last


def paginate(items, page, settings=None):
    per_page = (settings or {}).get("POSTS_PER_PAGE") or Config.POSTS_PER_PAGE
    offset, limit, last = page_bounds(page, len(items), per_page)
    return {"items": items[offset:offset + limit], "page": min(max(1, page), last), "pages": last}


def slugify(title, settings=None):
    limit = (settings or {}).get("SLUG_MAX_LENGTH", Config.SLUG_MAX_LENGTH)
    out, dash = [], False
    for ch in title.lower():
        if ch.isalnum():
            out.append(ch)
            dash = False
        elif not dash and out:
            out.append("-")
            dash = True
    return "".join(out).strip("-")[:limit].rstrip("-")


def public_view(settings):
    """The settings safe to show on the admin page: no secrets, durations in seconds."""
    shown = {}
    for key, value in sorted(settings.items()):
        if "SECRET" in key or "PASSWORD" in key:
            value = "********"
        elif isinstance(value, timedelta):
            value = int(value.total_seconds())
        shown[key] = value
    return shown


def dump(settings):
    return json.dumps(public_view(settings), indent=2, default=list)


def banner(settings):
    mode = "debug" if settings.get("DEBUG") else "testing" if settings.get("TESTING") else "live"
    return f"{APP_NAME} {VERSION} ({mode}, {settings['POSTS_PER_PAGE']} posts a page)"


if __name__ == "__main__":
    current = load("development", {"POSTS_PER_PAGE": "15"})
    print(banner(current))
    print(Production.problems())
'''

REPORT = r'''"""Monthly sales report: groups order rows by region and product, and renders a plain-text or
CSV summary. Rows are dicts with date (a datetime.date), region, product, quantity, unit_price."""

from __future__ import annotations

import csv
import io
import logging
from collections import defaultdict
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

LOG_LEVEL = logging.ERROR
LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"
DATE_FORMAT = "%d/%m/%Y"
CURRENCY_SYMBOL = "€"
TOP_N = 5
COLUMN_WIDTH = 14
VAT_RATE = Decimal("0.20")

log = logging.getLogger("sales_report")


def configure_logging(stream=None):
    """Send the report's log to `stream` (stderr by default) at LOG_LEVEL; the handler."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    for old in list(log.handlers):
        log.removeHandler(old)
    log.addHandler(handler)
    log.setLevel(LOG_LEVEL)
    log.propagate = False
    return handler


def money(amount):
    value = Decimal(amount).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return f"{CURRENCY_SYMBOL}{value:,.2f}"


def format_date(day):
    return day.strftime(DATE_FORMAT)


def line_total(row, with_vat=False):
    total = Decimal(str(row["unit_price"])) * int(row["quantity"])
    return total * (1 + VAT_RATE) if with_vat else total


def clean_rows(rows):
    """Rows with every field present and a positive quantity; the others are logged and dropped."""
    kept = []
    for i, row in enumerate(rows):
        missing = [k for k in ("date", "region", "product", "quantity", "unit_price") if k not in row]
        if missing:
            log.warning("row %d lacks %s", i, ", ".join(missing))
            continue
        if int(row["quantity"]) <= 0:
            log.info("row %d has no quantity, skipped", i)
            continue
        kept.append(row)
    if len(kept) < len(rows):
        log.error("%d of %d rows dropped", len(rows) - len(kept), len(rows))
    return kept


def by_region(rows):
    totals = defaultdict(Decimal)
    for row in rows:
        totals[row["region"]] += line_total(row)
    return dict(sorted(totals.items(), key=lambda kv: (-kv[1], kv[0])))


def top_products(rows, n=TOP_N):
    totals = defaultdict(Decimal)
    for row in rows:
        totals[row["product"]] += line_total(row)
    return sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))[:n]


def period(rows):
    """(first day, last day) of the rows, or None when there are none."""
    days = [row["date"] for row in rows]
    return (min(days), max(days)) if days else None


def render_text(rows, title="Sales report"):
    rows = clean_rows(rows)
    span = period(rows)
    lines = [title, "=" * len(title)]
    if span is None:
        lines.append("no sales")
        return "\n".join(lines)
    lines.append(f"From {format_date(span[0])} to {format_date(span[1])}")
    lines.append("")
    lines.append("Region".ljust(COLUMN_WIDTH) + "Revenue".rjust(COLUMN_WIDTH))
    for region, total in by_region(rows).items():
        lines.append(region.ljust(COLUMN_WIDTH) + money(total).rjust(COLUMN_WIDTH))
    lines.append("")
    lines.append(f"Top {TOP_N} products")
    for rank, (product, total) in enumerate(top_products(rows), 1):
        lines.append(f"{rank}. {product} ({money(total)})")
    grand = sum(by_region(rows).values(), Decimal(0))
    lines.append("")
    lines.append(f"Total {money(grand)}, with VAT {money(grand * (1 + VAT_RATE))}")
    return "\n".join(lines)


def render_csv(rows):
    rows = clean_rows(rows)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["date", "region", "product", "quantity", "total"])
    for row in sorted(rows, key=lambda r: (r["date"], r["region"], r["product"])):
        writer.writerow([format_date(row["date"]), row["region"], row["product"], row["quantity"],
                         f"{line_total(row):.2f}"])
    return out.getvalue()


def month_rows(rows, year, month):
    return [row for row in rows if row["date"].year == year and row["date"].month == month]


def compare_months(rows, year, month):
    """Revenue change, in percent, from the month before to (year, month); None without a base."""
    prev_year, prev_month = (year, month - 1) if month > 1 else (year - 1, 12)
    now = sum((line_total(r) for r in month_rows(rows, year, month)), Decimal(0))
    before = sum((line_total(r) for r in month_rows(rows, prev_year, prev_month)), Decimal(0))
    if not before:
        return None
    return float((now - before) / before * 100)


def busiest_weekday(rows):
    """The weekday with the most revenue, or None when there are no rows."""
    totals = defaultdict(Decimal)
    for row in rows:
        totals[row["date"].strftime("%A")] += line_total(row)
    if not totals:
        return None
    return max(sorted(totals), key=lambda day: totals[day])


SAMPLE = [
    {"date": date(2024, 3, 4), "region": "North", "product": "kettle", "quantity": 3, "unit_price": "24.50"},
    {"date": date(2024, 3, 9), "region": "South", "product": "toaster", "quantity": 1, "unit_price": "39.99"},
    {"date": date(2024, 3, 17), "region": "North", "product": "toaster", "quantity": 2, "unit_price": "39.99"},
    {"date": date(2024, 2, 20), "region": "East", "product": "kettle", "quantity": 4, "unit_price": "24.50"},
]


if __name__ == "__main__":
    configure_logging()
    print(render_text(month_rows(SAMPLE, 2024, 3)))
    print(render_csv(SAMPLE))
    print(compare_months(SAMPLE, 2024, 3), busiest_weekday(SAMPLE))
'''

QUERY = r'''"""A small SQL query builder producing parameterised statements for sqlite3-style drivers.

    Query("posts").where("author_id = ?", 3).order_by("-created").limit(10).sql()
    -> ('SELECT * FROM "posts" WHERE author_id = ? ORDER BY "created" DESC LIMIT 10', [3])
"""

from __future__ import annotations

import re

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
PLACEHOLDER = "?"
DEBUG_SQL = False  # print every statement before it runs
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
OPERATORS = {"eq": "=", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "like": "LIKE"}


class QueryError(ValueError):
    pass


def quote(name):
    """A double-quoted identifier; "table.column" quotes both parts."""
    parts = name.split(".")
    for part in parts:
        if part != "*" and not IDENTIFIER.match(part):
            raise QueryError(f"bad identifier {name!r}")
    return ".".join(p if p == "*" else f'"{p}"' for p in parts)


def placeholders(n):
    return ", ".join([PLACEHOLDER] * n)


class Query:
    def __init__(self, table):
        self.table = quote(table)
        self._columns = ["*"]
        self._where = []
        self._params = []
        self._joins = []
        self._order = []
        self._group = []
        self._limit = None
        self._offset = 0

    def select(self, *columns):
        self._columns = [quote(c) for c in columns] or ["*"]
        return self

    def where(self, clause, *params):
        if clause.count(PLACEHOLDER) != len(params):
            raise QueryError(f"{clause!r} needs {clause.count(PLACEHOLDER)} parameters, got {len(params)}")
        self._where.append(f"({clause})" if " OR " in clause.upper() else clause)
        self._params.extend(params)
        return self

    def filter(self, **conditions):
        """Django-style filters: filter(age__ge=18, name="ann")."""
        for key in sorted(conditions):
            column, _, op = key.partition("__")
            value = conditions[key]
            if op == "in":
                values = list(value)
                self.where(f"{quote(column)} IN ({placeholders(len(values))})", *values)
            elif value is None and op in ("", "eq"):
                self.where(f"{quote(column)} IS NULL")
            else:
                if (op or "eq") not in OPERATORS:
                    raise QueryError(f"unknown operator {op!r}")
                self.where(f"{quote(column)} {OPERATORS[op or 'eq']} {PLACEHOLDER}", value)
        return self

    def join(self, table, on, kind="INNER"):
        if kind.upper() not in ("INNER", "LEFT"):
            raise QueryError(f"unsupported join {kind!r}")
        self._joins.append(f"{kind.upper()} JOIN {quote(table)} ON {on}")
        return self

    def order_by(self, *columns):
        for column in columns:
            desc = column.startswith("-")
            self._order.append(quote(column.lstrip("-")) + (" DESC" if desc else ""))
        return self

    def group_by(self, *columns):
        self._group.extend(quote(c) for c in columns)
        return self

    def limit(self, n, offset=0):
        if n < 1 or n > MAX_LIMIT:
            raise QueryError(f"limit must be between 1 and {MAX_LIMIT}")
        self._limit, self._offset = n, offset
        return self

    def page(self, number, size=None):
        size = size or DEFAULT_LIMIT
        return self.limit(size, (max(1, number) - 1) * size)

    def sql(self):
        parts = [f"SELECT {', '.join(self._columns)} FROM {self.table}"]
        parts.extend(self._joins)
        if self._where:
            parts.append("WHERE " + " AND ".join(self._where))
        if self._group:
            parts.append("GROUP BY " + ", ".join(self._group))
        if self._order:
            parts.append("ORDER BY " + ", ".join(self._order))
        if self._limit is not None:
            parts.append(f"LIMIT {self._limit}" + (f" OFFSET {self._offset}" if self._offset else ""))
        return " ".join(parts), list(self._params)

    def count(self):
        inner, params = self.sql()
        return f"SELECT COUNT(*) FROM ({inner})", params


def insert(table, row):
    columns = sorted(row)
    sql = (f"INSERT INTO {quote(table)} ({', '.join(quote(c) for c in columns)}) "
           f"VALUES ({placeholders(len(columns))})")
    return sql, [row[c] for c in columns]


def update(table, changes, **where):
    if not where:
        raise QueryError("refusing to update every row")
    sets = ", ".join(f"{quote(c)} = {PLACEHOLDER}" for c in sorted(changes))
    conds = " AND ".join(f"{quote(c)} = {PLACEHOLDER}" for c in sorted(where))
    params = [changes[c] for c in sorted(changes)] + [where[c] for c in sorted(where)]
    return f"UPDATE {quote(table)} SET {sets} WHERE {conds}", params


def delete(table, **where):
    if not where:
        raise QueryError("refusing to delete every row")
    conds = " AND ".join(f"{quote(c)} = {PLACEHOLDER}" for c in sorted(where))
    return f"DELETE FROM {quote(table)} WHERE {conds}", [where[c] for c in sorted(where)]


def inline(sql, params):
    """The statement with its parameters written in, for logs only (never run this)."""
    out = []
    values = iter(params)
    for piece in re.split(r"(\?)", sql):
        if piece == PLACEHOLDER:
            value = next(values)
            out.append("NULL" if value is None else repr(value) if isinstance(value, str) else str(value))
        else:
            out.append(piece)
    return "".join(out)


if __name__ == "__main__":
    q = Query("posts").select("id", "title").filter(author_id=3, status__in=["draft", "live"]).order_by("-created")
    print(inline(*q.page(2, 20).sql()))
    print(update("posts", {"title": "Hello"}, id=7))
'''

DAYNUM = r'''"""Compact day numbers for the bookings store: every date is kept as a small integer, and
these helpers convert to and from dates, timestamps and ISO week labels."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

SECONDS_PER_DAY = 86400  # no leap seconds in day arithmetic
WEEKEND = (5, 6)  # Saturday and Sunday, as date.weekday() numbers them
MAGIC_OFFSET = 719163
MAX_SPAN_DAYS = 3660  # about ten years; longer ranges are refused
HOLIDAYS = frozenset({(1, 1), (5, 1), (12, 25), (12, 26)})


class DayNumberError(ValueError):
    pass


def to_day(d):
    """The day number of date `d` (negative before the start of the range)."""
    if isinstance(d, datetime):
        d = d.date()
    return d.toordinal() - MAGIC_OFFSET


def from_day(n):
    """The date of day number `n`."""
    try:
        return date.fromordinal(n + MAGIC_OFFSET)
    except (ValueError, OverflowError):
        raise DayNumberError(f"day {n} is out of range") from None


def day_of_timestamp(ts):
    """The day number of a Unix timestamp, in UTC."""
    return int(ts // SECONDS_PER_DAY)


def timestamp_of_day(n):
    """The Unix timestamp of midnight UTC at the start of day `n`."""
    return n * SECONDS_PER_DAY


def today(now=None):
    now = now or datetime.now(timezone.utc)
    return to_day(now.astimezone(timezone.utc))


def is_holiday(n):
    d = from_day(n)
    return (d.month, d.day) in HOLIDAYS


def is_business_day(n):
    return from_day(n).weekday() not in WEEKEND and not is_holiday(n)


def add_business_days(n, count):
    """The day number `count` business days after `n` (before it when count is negative)."""
    step = 1 if count >= 0 else -1
    remaining = abs(count)
    while remaining:
        n += step
        if is_business_day(n):
            remaining -= 1
    return n


def business_days_between(start, end):
    """Business days in [start, end)."""
    if end < start:
        return -business_days_between(end, start)
    if end - start > MAX_SPAN_DAYS:
        raise DayNumberError(f"span of {end - start} days is too long")
    return sum(1 for n in range(start, end) if is_business_day(n))


def week_label(n):
    """The ISO week of day `n`, like "2024-W09"."""
    year, week, _ = from_day(n).isocalendar()
    return f"{year}-W{week:02d}"


def week_start(n):
    """The Monday on or before day `n`."""
    return n - from_day(n).weekday()


def month_range(year, month):
    """(first day number, first day number of the next month)."""
    first = to_day(date(year, month, 1))
    nxt = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return first, to_day(nxt)


def parse(text):
    """A day number from "2024-03-05", "+3" / "-2" (relative to today) or a bare integer."""
    text = text.strip()
    if text.startswith(("+", "-")) and text[1:].isdigit():
        return today() + int(text)
    if text.isdigit():
        return int(text)
    try:
        return to_day(date.fromisoformat(text))
    except ValueError:
        raise DayNumberError(f"not a date: {text!r}") from None


def format_day(n, style="iso"):
    d = from_day(n)
    if style == "iso":
        return d.isoformat()
    if style == "long":
        return f"{d.strftime('%A')} {d.day} {d.strftime('%B %Y')}"
    if style == "short":
        return d.strftime("%d %b")
    raise ValueError(f"unknown style {style!r}")


def nights(check_in, check_out):
    """Nights of a booking; a DayNumberError when check-out is not after check-in."""
    if check_out <= check_in:
        raise DayNumberError("check-out must be after check-in")
    if check_out - check_in > MAX_SPAN_DAYS:
        raise DayNumberError("booking is too long")
    return check_out - check_in


def overlaps(a, b):
    """Whether bookings a and b, each (check_in, check_out), share a night."""
    return a[0] < b[1] and b[0] < a[1]


def free_nights(bookings, start, end):
    """Day numbers in [start, end) no booking covers."""
    taken = set()
    for check_in, check_out in bookings:
        taken.update(range(max(start, check_in), min(end, check_out)))
    return [n for n in range(start, end) if n not in taken]


def span_text(check_in, check_out):
    count = nights(check_in, check_out)
    return f"{format_day(check_in, 'short')} to {format_day(check_out, 'short')}, {count} night{'s' * (count != 1)}"


def to_datetime(n, hour=0, minute=0):
    return datetime.combine(from_day(n), datetime.min.time(), timezone.utc) + timedelta(hours=hour, minutes=minute)


if __name__ == "__main__":
    start = to_day(date(2024, 12, 23))
    print(start, format_day(start, "long"), week_label(start))
    print(format_day(add_business_days(start, 3)), business_days_between(start, start + 14))
    print(span_text(start, start + 4), free_nights([(start, start + 2)], start, start + 4))
'''

RATELIMIT = r'''"""Per-client request throttling for the API gateway: a token bucket per client key, a registry
that forgets idle clients, and helpers that build the standard rate-limit response headers."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

ANONYMOUS_KEY = "anonymous"
MAX_TRACKED_CLIENTS = 10_000
IDLE_FORGET_SECONDS = 600
EXEMPT_PATHS = ("/health", "/metrics")


@dataclass
class Decision:
    allowed: bool
    remaining: int
    retry_after: float
    limit: int

    def headers(self):
        out = {"X-RateLimit-Limit": str(self.limit), "X-RateLimit-Remaining": str(self.remaining)}
        if not self.allowed:
            out["Retry-After"] = str(math.ceil(self.retry_after))
        return out


class RateLimiter:
    """A token bucket: up to CAPACITY requests at once (the burst), refilled at
    REFILL_PER_SECOND tokens a second."""

    CAPACITY = 10
    REFILL_PER_SECOND = 2.0
    COST = 1

    def __init__(self, clock=time.monotonic, capacity=None, refill_per_second=None):
        self.clock = clock
        self.capacity = self.CAPACITY if capacity is None else capacity
        self.refill = self.REFILL_PER_SECOND if refill_per_second is None else refill_per_second
        self.tokens = float(self.capacity)
        self.updated = clock()
        self.denied = 0

    def _refill(self):
        now = self.clock()
        elapsed = max(0.0, now - self.updated)
        self.tokens = min(float(self.capacity), self.tokens + elapsed * self.refill)
        self.updated = now

    def peek(self):
        self._refill()
        return int(self.tokens)

    def take(self, cost=None):
        cost = self.COST if cost is None else cost
        if cost > self.capacity:
            raise ValueError(f"a request costing {cost} can never pass a bucket of {self.capacity}")
        self._refill()
        if self.tokens >= cost:
            self.tokens -= cost
            return Decision(True, int(self.tokens), 0.0, self.capacity)
        self.denied += 1
        wait = (cost - self.tokens) / self.refill
        return Decision(False, int(self.tokens), wait, self.capacity)

    def idle_for(self):
        return self.clock() - self.updated


class LimiterRegistry:
    """One RateLimiter per client key, created on first use."""

    def __init__(self, clock=time.monotonic, overrides=None):
        self.clock = clock
        self.overrides = dict(overrides or {})
        self.buckets = {}

    def bucket(self, key):
        key = key or ANONYMOUS_KEY
        if key not in self.buckets:
            if len(self.buckets) >= MAX_TRACKED_CLIENTS:
                self.forget_idle()
            capacity, refill = self.overrides.get(key, (None, None))
            self.buckets[key] = RateLimiter(self.clock, capacity, refill)
        return self.buckets[key]

    def check(self, key, cost=None):
        return self.bucket(key).take(cost)

    def forget_idle(self, seconds=IDLE_FORGET_SECONDS):
        idle = [k for k, b in self.buckets.items() if b.idle_for() >= seconds]
        for k in idle:
            del self.buckets[k]
        return len(idle)

    def report(self):
        return {k: (b.peek(), b.denied) for k, b in sorted(self.buckets.items())}


def client_key(headers, remote_addr):
    """The API key when there is one, else the first forwarded address, else the peer address."""
    api_key = headers.get("X-Api-Key", "").strip()
    if api_key:
        return f"key:{api_key}"
    forwarded = headers.get("X-Forwarded-For", "")
    if forwarded:
        return f"ip:{forwarded.split(',')[0].strip()}"
    return f"ip:{remote_addr}" if remote_addr else ANONYMOUS_KEY


def handle(registry, path, headers, remote_addr=None, cost=None):
    """(status, headers) the gateway answers before passing the request on: 200 means go ahead."""
    if path.startswith(EXEMPT_PATHS):
        return 200, {}
    decision = registry.check(client_key(headers, remote_addr), cost)
    return (200 if decision.allowed else 429), decision.headers()


def simulate(registry, key, times):
    """Statuses of requests from `key` at the given clock times (the clock must be settable)."""
    statuses = []
    for t in times:
        registry.clock.now = t
        statuses.append(200 if registry.check(key).allowed else 429)
    return statuses


class ManualClock:
    def __init__(self, now=0.0):
        self.now = now

    def __call__(self):
        return self.now


def burst_then_steady(n_burst, steady_seconds, rate):
    """Request times: a burst of n at t=0, then `rate` a second for `steady_seconds`."""
    times = [0.0] * n_burst
    step = 1.0 / rate
    t = step
    while t <= steady_seconds + 1e-9:
        times.append(round(t, 6))
        t += step
    return times


def allowed_share(statuses):
    return sum(s == 200 for s in statuses) / len(statuses) if statuses else 1.0


def describe(limiter):
    return (f"{limiter.capacity} burst, {limiter.refill:g}/s refill, "
            f"{limiter.peek()} left, {limiter.denied} denied")


if __name__ == "__main__":
    clock = ManualClock()
    registry = LimiterRegistry(clock)
    statuses = simulate(registry, "key:demo", burst_then_steady(15, 3, 4))
    print(statuses.count(200), "allowed of", len(statuses), f"({allowed_share(statuses):.0%})")
    print(handle(registry, "/v1/items", {"X-Api-Key": "demo"}))
    print(describe(registry.bucket("key:demo")))
'''



def _task(name: str, file: str, source: str, instruction: str, changed: list[str], checks: str) -> dict:
    return {"name": name, "file": file, "instruction": instruction, "input": source,
            "test": _test(source, changed, checks)}


# Re-runs the edited module (the part above the test marker) as a fresh module, with SECRET_KEY set
# in the environment or not.
_RELOAD = r'''
import importlib.util as _u, os as _os
_again = __file__.replace(".py", "_again.py")
with open(_again, "w", encoding="utf-8") as _f:
    _f.write(open(__file__, encoding="utf-8").read().split("# ---- test ----")[0])


def _reload(secret):
    _os.environ.pop("SECRET_KEY", None)
    if secret is not None:
        _os.environ["SECRET_KEY"] = secret
    try:
        spec = _u.spec_from_file_location("_again", _again)
        module = _u.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        _os.environ.pop("SECRET_KEY", None)
'''


def _rest_of(cls: str, const: str) -> str:
    """Checks that `cls`'s body statements other than `const`'s stay as they were (the allowed
    f"{cls}.<" would let them all change)."""
    return f'''
def _rest_of_class(original, cls, const):
    edited = open(__file__, encoding="utf-8").read().split("# ---- test ----")[0]
    def rest(src):
        return sorted(k for k in _parts(src) if k.startswith(cls + ".<") and repr(const) not in k)
    assert rest(original) == rest(edited), f"{{cls}}: other statements changed"


_rest_of_class(_ORIGINAL, {cls!r}, {const!r})
'''


TASKS = [
    _task("set-max-retries-client", "client.py", CLIENT, "set MAX_RETRIES to 5", ["'MAX_RETRIES'"], r'''
assert MAX_RETRIES == 5, MAX_RETRIES
_t = FakeTransport([503] * 5 + [Response(200, "x", {}, b"[7]")])
_c = Client(_t, "https://api.test", sleep=lambda s: None)
assert _c.get_json("/a") == [7] and len(_t.sent) == 6, len(_t.sent)
_t = FakeTransport([503] * 8)
_c = Client(_t, sleep=lambda s: None)
assert _c.get("/a").status == 503 and len(_t.sent) == 6 and _c.stats["retries"] == 5, _c.stats
_t = FakeTransport([503, 200])
assert Client(_t, sleep=lambda s: None).post("/a").status == 503 and len(_t.sent) == 1
'''),
    _task("cache-ttl-one-hour", "cache.py", CACHE, "bump the cache TTL to an hour", ["'CACHE_TTL_SECONDS'"], r'''
assert CACHE_TTL_SECONDS == 3600, CACHE_TTL_SECONDS
_clock = FakeClock()
_c = ExpiringCache(clock=_clock)
_c.set("k", 1)
_c.set("short", 2, ttl=10)
_clock.advance(3599)
assert _c.get("k") == 1 and _c.get("short") is None
_clock.advance(2)
assert _c.get("k") is None and _c.ttl == 3600
'''),
    _task("allow-webp", "uploads.py", UPLOADS, "add 'webp' to ALLOWED_EXTENSIONS", ["'ALLOWED_EXTENSIONS'"], r'''
assert "webp" in ALLOWED_EXTENSIONS, ALLOWED_EXTENSIONS
assert set(ALLOWED_EXTENSIONS) == {"jpg", "jpeg", "png", "gif", "webp"}, ALLOWED_EXTENSIONS
assert is_allowed_filename("cat.WEBP") and is_allowed_filename("dog.jpg") and not is_allowed_filename("x.bmp")
_ok, _bad = validate_batch([Upload("cat.webp", 1000, b"RIFF\x10\x00\x00\x00WEBPVP8 "), Upload("a.bmp", 10)])
assert "cat.webp" in _ok and "a.bmp" in _bad, (_ok, _bad)
'''),
    _task("upload-limit-10mb", "uploads.py", UPLOADS, "raise the upload size limit to 10 MB",
          ["UploadValidator.<"], r'''
assert UploadValidator.MAX_BYTES in (10 * 1024 * 1024, 10_000_000), UploadValidator.MAX_BYTES
_v = UploadValidator()
assert _v.max_bytes == UploadValidator.MAX_BYTES
_v.validate(Upload("big.png", 9_900_000))
try:
    _v.validate(Upload("huge.png", 10 * 1024 * 1024 + 1))
except UploadError as _e:
    assert _e.code == "too_big", _e.code
else:
    raise AssertionError("a file over 10 MB passed")
assert UploadValidator(max_bytes=100).problems(Upload("a.png", 101)) == ["too_big"]
''' + _rest_of("UploadValidator", "MAX_BYTES")),
    _task("worker-timeout-2-5s", "jobs.py", JOBS, "make the default timeout 2.5 seconds", ["Worker.<"], r'''
assert Worker.DEFAULT_TIMEOUT == 2.5, Worker.DEFAULT_TIMEOUT
_clock = SimClock()
_q = JobQueue()
_q.submit("under", lambda: _clock.sleep(2.4))
_q.submit("over", lambda: _clock.sleep(2.6))
_q.submit("own-limit", lambda: _clock.sleep(20), timeout=30)
_w = Worker(_q, clock=_clock, sleep=_clock.sleep)
assert _w.timeout == 2.5, _w.timeout
_done = _w.drain()
assert _done == {"under": "done", "over": "timeout", "own-limit": "done"}, _done
assert Worker(JobQueue(), timeout=9).timeout == 9
''' + _rest_of("Worker", "DEFAULT_TIMEOUT")),
    _task("posts-per-page-10", "settings.py", SETTINGS, "change Config.POSTS_PER_PAGE to 10", ["Config.<"], r'''
assert Config.POSTS_PER_PAGE == 10, Config.POSTS_PER_PAGE
assert Development.POSTS_PER_PAGE == 10 and Production.POSTS_PER_PAGE == 10 and Testing.POSTS_PER_PAGE == 5
assert load("production")["POSTS_PER_PAGE"] == 10 and load("testing")["POSTS_PER_PAGE"] == 5
_p = paginate(list(range(25)), 2)
assert _p == {"items": list(range(10, 20)), "page": 2, "pages": 3}, _p
assert page_bounds(1, 5) == (0, 10, 1)
''' + _rest_of("Config", "POSTS_PER_PAGE")),
    _task("secret-key-from-env", "settings.py", SETTINGS,
          "read SECRET_KEY from the environment, falling back to the current value",
          ["Config.<", "'os'", "'SECRET_KEY'"], _RELOAD + r'''
_m = _reload("s3cr3t-from-env")
assert _m.Config.SECRET_KEY == "s3cr3t-from-env", _m.Config.SECRET_KEY
assert _m.Production.SECRET_KEY == "s3cr3t-from-env"
assert _m.Production.problems() == [], _m.Production.problems()
_m = _reload(None)
assert _m.Config.SECRET_KEY == "dev-5b1f0c7e9a2d4e38", _m.Config.SECRET_KEY
assert _m.Production.problems() == ["the secret key is still the development one"]
''' + _rest_of("Config", "SECRET_KEY")),
    _task("log-level-warning", "report.py", REPORT, "lower the log level constant to WARNING", ["'LOG_LEVEL'"], r'''
import io as _io
assert LOG_LEVEL in (logging.WARNING, "WARNING"), LOG_LEVEL
_s = _io.StringIO()
configure_logging(_s)
assert log.level == logging.WARNING, log.level
clean_rows([{"date": date(2024, 1, 1), "region": "N", "product": "p", "quantity": 0, "unit_price": "1"},
            {"region": "N"}])
_out = _s.getvalue()
assert "WARNING sales_report: row 1 lacks" in _out and "ERROR sales_report: 2 of 2 rows dropped" in _out, _out
assert "INFO" not in _out, _out
'''),
    _task("report-iso-dates", "report.py", REPORT, "show the dates in the report as YYYY-MM-DD", ["'DATE_FORMAT'"], r'''
assert format_date(date(2024, 3, 5)) == "2024-03-05", format_date(date(2024, 3, 5))
_text = render_text(month_rows(SAMPLE, 2024, 3))
assert "From 2024-03-04 to 2024-03-17" in _text, _text
assert render_csv(SAMPLE).splitlines()[1] == "2024-02-20,East,kettle,4,98.00", render_csv(SAMPLE)
'''),
    _task("remove-debug-sql", "query.py", QUERY, "remove the DEBUG_SQL flag", ["'DEBUG_SQL'"], r'''
assert "DEBUG_SQL" not in globals(), "DEBUG_SQL is still there"
assert "DEBUG_SQL" not in open(__file__, encoding="utf-8").read().split("# ---- test ----")[0], "still mentioned"
_sql, _params = Query("posts").filter(author_id=3).order_by("-created").limit(10).sql()
assert _sql == 'SELECT * FROM "posts" WHERE "author_id" = ? ORDER BY "created" DESC LIMIT 10', _sql
assert _params == [3] and PLACEHOLDER == "?" and DEFAULT_LIMIT == 100
'''),
    _task("comment-magic-offset", "daynum.py", DAYNUM, "add a comment explaining MAGIC_OFFSET", ["'MAGIC_OFFSET'"], r'''
_lines = open(__file__, encoding="utf-8").read().split("# ---- test ----")[0].splitlines()
_i = next(i for i, line in enumerate(_lines) if line.startswith("MAGIC_OFFSET"))
_note = _lines[_i].partition("#")[2]
_j = _i - 1
while _j >= 0 and _lines[_j].lstrip().startswith("#"):
    _note = _lines[_j].lstrip()[1:] + " " + _note
    _j -= 1
assert len(_note.split()) >= 3, f"no comment on or just above MAGIC_OFFSET: {_note!r}"
assert any(w in _note.lower() for w in ("1970", "epoch", "ordinal", "unix")), _note
assert MAGIC_OFFSET == 719163, MAGIC_OFFSET
assert to_day(date(1970, 1, 2)) == 1 and from_day(0) == date(1970, 1, 1)
'''),
    _task("double-burst", "ratelimit.py", RATELIMIT, "double the rate limiter's burst size", ["RateLimiter.<"], r'''
assert RateLimiter.CAPACITY == 20, RateLimiter.CAPACITY
assert RateLimiter.REFILL_PER_SECOND == 2.0 and RateLimiter.COST == 1
_r = LimiterRegistry(ManualClock())
assert simulate(_r, "k", [0.0] * 21) == [200] * 20 + [429]
assert simulate(_r, "k", [0.5, 0.5]) == [200, 429]
assert handle(_r, "/v1/x", {"X-Api-Key": "k2"})[1]["X-RateLimit-Limit"] == "20"
''' + _rest_of("RateLimiter", "CAPACITY")),
]
