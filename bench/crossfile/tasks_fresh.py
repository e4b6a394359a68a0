"""The fresh cross-file tasks: a second held-out set, written without knowledge of how the tool
chooses context. Same fields as tasks_python.py / tasks_js.py; `python -m bench crossfile --write`
turns them into fresh.jsonl.
"""

from __future__ import annotations

from bench.crossfile.authoring import ESM_PACKAGE, collector

TASKS: list[dict] = []
py, js = collector(TASKS)


# ================================================================ Python

# ---------------------------------------------------------------- a helper with a keyword option

py(
    id="py-fresh-blog-permalink-slug",
    files={
        "blog/text.py": '''"""Text helpers shared by the blog and the newsletter."""

import re
import unicodedata


def slugify(text: str, *, max_length: int = 80, separator: str = "-") -> str:
    """'Creme Brulee: A Love Story!' -> 'creme-brulee-a-love-story'.

    Accents are folded to ASCII, anything that is not a letter or a digit separates words, and a
    slug longer than max_length is cut after the last whole word that fits.
    """
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    slug = ""
    for word in words:
        candidate = f"{slug}{separator}{word}" if slug else word
        if len(candidate) > max_length:
            break
        slug = candidate
    if not slug and words:
        slug = words[0][:max_length]
    return slug
''',
        "blog/posts.py": '''"""Blog posts and their public URLs."""

from dataclasses import dataclass, field
from datetime import date


@dataclass
class Post:
    title: str
    published: date
    body: str = ""
    tags: list[str] = field(default_factory=list)

    def permalink(self) -> str:
        slug = self.title.lower().replace(" ", "-")
        return f"/{self.published:%Y/%m}/{slug}/"

    def word_count(self) -> int:
        return len(self.body.split())
''',
    },
    target="blog/posts.py",
    instruction="permalink() makes ugly URLs for titles with punctuation or accents. Use our slug helper "
                "for it, and keep slugs to 50 characters max",
    edit=[("from datetime import date\n", "from datetime import date\n\nfrom blog.text import slugify\n"),
          ('        slug = self.title.lower().replace(" ", "-")\n',
           "        slug = slugify(self.title, max_length=50)\n")],
    test='''from datetime import date

from blog.posts import Post
from blog.text import slugify

title = "Cr\\u00e8me Br\\u00fbl\\u00e9e, Explained: Why Your Custard Splits (and How to Fix It Tonight)"
p = Post(title, date(2024, 3, 7))
assert p.permalink() == "/2024/03/" + slugify(title, max_length=50) + "/", p.permalink()
assert p.permalink() == "/2024/03/creme-brulee-explained-why-your-custard-splits-and/", p.permalink()
q = Post("Hello, World!", date(2023, 11, 30), body="a b c")
assert q.permalink() == "/2023/11/hello-world/", q.permalink()
assert q.word_count() == 3
''',
)

# ---------------------------------------------------------------- a config value and unit conversions

py(
    id="py-fresh-weather-display-units",
    files={
        "station/config.py": '''"""Station settings; the deploy script rewrites these per site."""

STATION_NAME = "Hilltop"
# "metric" or "imperial": how readings are shown to people. Readings are always stored metric.
DISPLAY_UNITS = "metric"
ALERT_WIND_KMH = 60
''',
        "station/units.py": '''"""Conversions from the metric values we store to what people read."""


def c_to_f(celsius: float) -> float:
    return celsius * 9 / 5 + 32


def mm_to_in(mm: float) -> float:
    return mm / 25.4


def kmh_to_mph(kmh: float) -> float:
    return kmh / 1.609344


def show(value: float, unit: str) -> str:
    """One reading as people see it: '12.5 \\u00b0C', '0.31 in'. Inches get two decimals, the rest one."""
    decimals = 2 if unit == "in" else 1
    return f"{value:.{decimals}f} {unit}"
''',
        "station/report.py": '''"""The daily summary line the station posts to the village noticeboard."""

from station.units import show


def daily_summary(reading: dict) -> str:
    """reading: {'temp_c': ..., 'rain_mm': ..., 'wind_kmh': ...}, metric as stored."""
    parts = [
        show(reading["temp_c"], "\\u00b0C"),
        show(reading["rain_mm"], "mm"),
        show(reading["wind_kmh"], "km/h"),
    ]
    return " | ".join(parts)
''',
    },
    target="station/report.py",
    instruction="daily_summary is always metric. When the station is configured for imperial units, show "
                "\u00b0F, in and mph instead (convert with our units helpers)",
    edit=[("from station.units import show\n",
           "from station import config\nfrom station.units import c_to_f, kmh_to_mph, mm_to_in, show\n"),
          ('''    parts = [
        show(reading["temp_c"], "\\u00b0C"),
        show(reading["rain_mm"], "mm"),
        show(reading["wind_kmh"], "km/h"),
    ]
''', '''    if config.DISPLAY_UNITS == "imperial":
        parts = [
            show(c_to_f(reading["temp_c"]), "\\u00b0F"),
            show(mm_to_in(reading["rain_mm"]), "in"),
            show(kmh_to_mph(reading["wind_kmh"]), "mph"),
        ]
    else:
        parts = [
            show(reading["temp_c"], "\\u00b0C"),
            show(reading["rain_mm"], "mm"),
            show(reading["wind_kmh"], "km/h"),
        ]
''')],
    test='''import importlib

import station.config as config
import station.report as report
from station.units import c_to_f, kmh_to_mph, mm_to_in, show

r = {"temp_c": 21.5, "rain_mm": 7.9, "wind_kmh": 33.0}

config.DISPLAY_UNITS = "imperial"
importlib.reload(report)
got = report.daily_summary(r)
want = " | ".join([show(c_to_f(21.5), "\\u00b0F"), show(mm_to_in(7.9), "in"), show(kmh_to_mph(33.0), "mph")])
assert got == want == "70.7 \\u00b0F | 0.31 in | 20.5 mph", got

config.DISPLAY_UNITS = "metric"
importlib.reload(report)
got = report.daily_summary(r)
assert got == "21.5 \\u00b0C | 7.9 mm | 33.0 km/h", got
''',
)

# ---------------------------------------------------------------- the project's exception with fields

py(
    id="py-fresh-room-booking-conflict",
    files={
        "rooms/errors.py": '''"""Errors of the room booking service; the web layer turns them into 4xx pages."""

from datetime import datetime


class BookingError(Exception):
    """Base class of every booking error."""


class UnknownRoom(BookingError):
    def __init__(self, room: str):
        super().__init__(f"no room called {room!r}")
        self.room = room


class SlotTaken(BookingError):
    """Someone else already holds this room for this hour."""

    def __init__(self, room: str, start: datetime, holder: str):
        super().__init__(f"{room} at {start:%H:%M} is already booked by {holder}")
        self.room = room
        self.start = start
        self.holder = holder
''',
        "rooms/schedule.py": '''"""Hourly bookings of the meeting rooms."""

from datetime import datetime

from rooms.errors import UnknownRoom

ROOMS = ("Aurora", "Boreal", "Cirrus")


class Schedule:
    def __init__(self):
        self.bookings: dict[tuple[str, datetime], str] = {}

    def book(self, room: str, start: datetime, who: str) -> None:
        if room not in ROOMS:
            raise UnknownRoom(room)
        start = start.replace(minute=0, second=0, microsecond=0)
        self.bookings[(room, start)] = who

    def holder(self, room: str, start: datetime) -> str | None:
        return self.bookings.get((room, start.replace(minute=0, second=0, microsecond=0)))
''',
    },
    target="rooms/schedule.py",
    instruction="book() silently overwrites somebody else's booking. Raise our slot-taken error instead "
                "(the same person booking the slot again is fine)",
    edit=[("from rooms.errors import UnknownRoom\n", "from rooms.errors import SlotTaken, UnknownRoom\n"),
          ("        self.bookings[(room, start)] = who\n",
           "        current = self.bookings.get((room, start))\n"
           "        if current is not None and current != who:\n"
           "            raise SlotTaken(room, start, current)\n"
           "        self.bookings[(room, start)] = who\n")],
    test='''from datetime import datetime

from rooms.errors import BookingError, SlotTaken, UnknownRoom
from rooms.schedule import Schedule

s = Schedule()
ten = datetime(2024, 5, 6, 10, 0)
s.book("Aurora", ten, "ana")
s.book("Aurora", datetime(2024, 5, 6, 10, 30), "ana")
try:
    s.book("Aurora", ten, "bo")
except SlotTaken as e:
    assert isinstance(e, BookingError)
    assert (e.room, e.start, e.holder) == ("Aurora", ten, "ana"), vars(e)
else:
    raise AssertionError("double booking was accepted")
assert s.holder("Aurora", ten) == "ana"
s.book("Boreal", ten, "bo")
s.book("Aurora", datetime(2024, 5, 6, 11, 0), "bo")
assert s.holder("Boreal", ten) == "bo"
try:
    s.book("Zephyr", ten, "bo")
except UnknownRoom:
    pass
else:
    raise AssertionError("unknown room accepted")
''',
)

# ---------------------------------------------------------------- a feature-flag registry

py(
    id="py-fresh-express-shipping-flag",
    files={
        "shop/flags.py": '''"""Feature flags: a flag is on for everyone, for nobody, or for a list of user ids (beta testers)."""

EXPRESS_SHIPPING = "checkout.express-shipping"
GIFT_WRAP = "checkout.gift-wrap"

_rules: dict[str, object] = {EXPRESS_SHIPPING: [], GIFT_WRAP: True}


def set_flag(name: str, rule) -> None:
    """rule: True (everyone), False (nobody) or a list of user ids."""
    _rules[name] = rule


def is_enabled(name: str, user_id: int | None = None) -> bool:
    rule = _rules.get(name, False)
    if isinstance(rule, bool):
        return rule
    return user_id is not None and user_id in rule
''',
        "shop/shipping.py": '''"""Shipping choices shown at checkout."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Option:
    code: str
    label: str
    price_cents: int


STANDARD = Option("standard", "Standard (3-5 days)", 490)
EXPRESS = Option("express", "Express (next day)", 1290)
PICKUP = Option("pickup", "Pick up in store", 0)


def shipping_options(user) -> list[Option]:
    """What the checkout page offers this user (user has .id and .country)."""
    options = [STANDARD, EXPRESS]
    if user.country == "NL":
        options.append(PICKUP)
    return options
''',
    },
    target="shop/shipping.py",
    instruction="express shipping is still in beta: only offer it when its feature flag is on for that user",
    edit=[("from dataclasses import dataclass\n",
           "from dataclasses import dataclass\n\nfrom shop.flags import EXPRESS_SHIPPING, is_enabled\n"),
          ("    options = [STANDARD, EXPRESS]\n",
           "    options = [STANDARD]\n    if is_enabled(EXPRESS_SHIPPING, user.id):\n        options.append(EXPRESS)\n")],
    test='''from types import SimpleNamespace

from shop import flags
from shop.shipping import shipping_options

ann = SimpleNamespace(id=7, country="NL")
bob = SimpleNamespace(id=8, country="DE")


def codes(user):
    return sorted(o.code for o in shipping_options(user))


flags.set_flag(flags.EXPRESS_SHIPPING, [7])
assert codes(ann) == ["express", "pickup", "standard"], codes(ann)
assert codes(bob) == ["standard"], codes(bob)
flags.set_flag(flags.EXPRESS_SHIPPING, True)
assert codes(bob) == ["express", "standard"], codes(bob)
flags.set_flag(flags.EXPRESS_SHIPPING, False)
assert codes(ann) == ["pickup", "standard"], codes(ann)
''',
)

# ---------------------------------------------------------------- a registration decorator

py(
    id="py-fresh-jsonl-exporter-register",
    files={
        "exporters/__init__.py": '''"""Importing the package loads every export format (each registers itself)."""

from exporters import csv_format, jsonl_format  # noqa: F401
''',
        "exporters/registry.py": '''"""Export formats by name: the /export?format=... endpoint looks them up here."""

from typing import Callable, Iterable

Exporter = Callable[[Iterable[dict]], str]
_EXPORTERS: dict[str, Exporter] = {}


def register(name: str, *, mime: str):
    """Decorator: @register("csv", mime="text/csv") makes the function the exporter for that format."""

    def decorate(fn: Exporter) -> Exporter:
        if name in _EXPORTERS:
            raise ValueError(f"exporter {name!r} registered twice")
        fn.mime = mime
        _EXPORTERS[name] = fn
        return fn

    return decorate


def get_exporter(name: str) -> Exporter:
    try:
        return _EXPORTERS[name]
    except KeyError:
        raise LookupError(f"no exporter for {name!r}; have {sorted(_EXPORTERS)}") from None
''',
        "exporters/csv_format.py": '''import csv
import io

from exporters.registry import register


@register("csv", mime="text/csv")
def to_csv(rows):
    rows = list(rows)
    if not rows:
        return ""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
''',
        "exporters/jsonl_format.py": '''"""JSON Lines: one JSON object per line, for the data team's loaders."""

import json


def to_jsonl(rows):
    return "".join(json.dumps(row, sort_keys=True) + "\\n" for row in rows)
''',
    },
    target="exporters/jsonl_format.py",
    instruction="the JSON Lines exporter can't be picked on the export endpoint. Register it as 'jsonl' the "
                "same way the CSV one is (mime type application/x-ndjson)",
    edit=[("import json\n", "import json\n\nfrom exporters.registry import register\n"),
          ("def to_jsonl(rows):\n", '@register("jsonl", mime="application/x-ndjson")\ndef to_jsonl(rows):\n')],
    test='''import exporters  # noqa: F401
from exporters.registry import get_exporter

fn = get_exporter("jsonl")
assert fn([{"b": 1, "a": "x"}, {"n": None}]) == '{"a": "x", "b": 1}\\n{"n": null}\\n'
assert fn.mime == "application/x-ndjson", fn.mime
assert get_exporter("csv").mime == "text/csv"
assert get_exporter("csv")([{"a": 1}]) == "a\\n1\\n"
''',
)

# ---------------------------------------------------------------- a parser's return value

py(
    id="py-fresh-reminder-snooze-duration",
    files={
        "remind/durations.py": '''"""Durations as people type them to the reminder bot: '45m', '2h', '1h30m', '1d', '90s'."""

import re

_UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
_PART = re.compile(r"(\\d+)([dhms])")


class BadDuration(ValueError):
    pass


def parse_duration(text: str) -> int:
    """Total seconds in text; raises BadDuration unless text is only <number><unit> parts."""
    text = text.strip().lower()
    if not text or _PART.sub("", text):
        raise BadDuration(text)
    return sum(int(n) * _UNITS[u] for n, u in _PART.findall(text))
''',
        "remind/reminders.py": '''"""Reminders the bot sends back to people."""

from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass
class Reminder:
    text: str
    due: datetime
    snoozed: int = 0


def snooze(reminder: Reminder, minutes: int, now: datetime) -> Reminder:
    """Push the reminder to `minutes` from now."""
    reminder.due = now + timedelta(minutes=minutes)
    reminder.snoozed += 1
    return reminder
''',
    },
    target="remind/reminders.py",
    instruction="make snooze take what people actually type, like '20m' or '1h30m', instead of a number of "
                "minutes. Parse it with our duration parser",
    edit=[("from datetime import datetime, timedelta\n",
           "from datetime import datetime, timedelta\n\nfrom remind.durations import parse_duration\n"),
          ('def snooze(reminder: Reminder, minutes: int, now: datetime) -> Reminder:\n'
           '    """Push the reminder to `minutes` from now."""\n'
           '    reminder.due = now + timedelta(minutes=minutes)\n',
           'def snooze(reminder: Reminder, duration: str, now: datetime) -> Reminder:\n'
           '    """Push the reminder to `duration` (like \'1h30m\') from now."""\n'
           '    reminder.due = now + timedelta(seconds=parse_duration(duration))\n')],
    test='''from datetime import datetime, timedelta

from remind.reminders import Reminder, snooze

now = datetime(2024, 1, 1, 9, 0)
r = Reminder("call mum", now)
assert snooze(r, "1h30m", now) is r
assert r.due == now + timedelta(minutes=90), r.due
snooze(r, "45s", now)
assert r.due == now + timedelta(seconds=45), r.due
snooze(r, "1d", now + timedelta(hours=2))
assert r.due == now + timedelta(days=1, hours=2), r.due
assert r.snoozed == 3
try:
    snooze(r, "soonish", now)
except ValueError:
    pass
else:
    raise AssertionError("a nonsense duration was accepted")
''',
)

# ---------------------------------------------------------------- security helpers

py(
    id="py-fresh-account-password-hash",
    files={
        "app/security.py": '''"""Password hashing. Stored form: 'pbkdf2_sha256$<iterations>$<salt hex>$<hash hex>'."""

import hashlib
import hmac
import os

ITERATIONS = 60_000


def hash_password(password: str, *, salt: bytes | None = None, iterations: int = ITERATIONS) -> str:
    salt = salt or os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    return f"pbkdf2_sha256${iterations}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    """True if password matches a value made by hash_password."""
    try:
        algo, iterations, salt, digest = stored.split("$")
    except ValueError:
        return False
    if algo != "pbkdf2_sha256":
        return False
    again = hashlib.pbkdf2_hmac("sha256", password.encode(), bytes.fromhex(salt), int(iterations))
    return hmac.compare_digest(again.hex(), digest)
''',
        "app/accounts.py": '''"""Sign-up, login and password changes."""


class AuthError(Exception):
    pass


class Accounts:
    def __init__(self):
        self.passwords: dict[str, str] = {}

    def register(self, email: str, password: str) -> None:
        if email in self.passwords:
            raise AuthError("email already registered")
        self.passwords[email] = password

    def login(self, email: str, password: str) -> bool:
        return self.passwords.get(email) == password

    def change_password(self, email: str, old: str, new: str) -> None:
        if not self.login(email, old):
            raise AuthError("wrong password")
        self.passwords[email] = new
''',
    },
    target="app/accounts.py",
    instruction="we're keeping passwords in plaintext. Store them hashed with our password helpers and check "
                "logins against the hash",
    edit=[('"""Sign-up, login and password changes."""\n',
           '"""Sign-up, login and password changes."""\n\nfrom app.security import check_password, hash_password\n'),
          ("        self.passwords[email] = password\n", "        self.passwords[email] = hash_password(password)\n"),
          ("        return self.passwords.get(email) == password\n",
           "        stored = self.passwords.get(email)\n"
           "        return stored is not None and check_password(password, stored)\n"),
          ("        self.passwords[email] = new\n", "        self.passwords[email] = hash_password(new)\n")],
    test='''from app.accounts import Accounts, AuthError
from app.security import check_password

a = Accounts()
a.register("kim@example.org", "hunter2")
stored = a.passwords["kim@example.org"]
assert stored != "hunter2" and stored.startswith("pbkdf2_sha256$"), stored
assert check_password("hunter2", stored)
assert a.login("kim@example.org", "hunter2")
assert not a.login("kim@example.org", "hunter3")
assert not a.login("nobody@example.org", "hunter2")
a.change_password("kim@example.org", "hunter2", "s3cret")
assert check_password("s3cret", a.passwords["kim@example.org"])
assert a.login("kim@example.org", "s3cret") and not a.login("kim@example.org", "hunter2")
try:
    a.change_password("kim@example.org", "wrong", "x")
except AuthError:
    pass
else:
    raise AssertionError("changed the password without the old one")
try:
    a.register("kim@example.org", "again")
except AuthError:
    pass
else:
    raise AssertionError("registered twice")
''',
)

# ---------------------------------------------------------------- a shared tokenizer and stop words

py(
    id="py-fresh-search-index-tokenizer",
    files={
        "search/text.py": '''"""Tokenizing shared by the indexer and the query parser, so both see the same words."""

import re

STOP_WORDS = frozenset({"a", "an", "and", "are", "at", "in", "is", "of", "on", "or", "the", "to", "with"})
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def tokenize(text: str) -> list[str]:
    """Lower-cased words; an apostrophe stays inside a word ("don't"), other punctuation splits."""
    return _WORD.findall(text.lower())
''',
        "search/index.py": '''"""A tiny inverted index over help-centre articles."""

from collections import defaultdict


class Index:
    def __init__(self):
        self.postings: dict[str, set[int]] = defaultdict(set)

    def add(self, doc_id: int, text: str) -> None:
        for word in text.lower().split():
            self.postings[word].add(doc_id)

    def search(self, query: str) -> set[int]:
        """Ids of the articles that have every word of the query."""
        words = query.lower().split()
        if not words:
            return set()
        return set.intersection(*(self.postings.get(w, set()) for w in words))
''',
    },
    target="search/index.py",
    instruction="the index only splits on whitespace, so 'password?' never matches 'password'. Use the shared "
                "tokenizer for articles and queries alike, and leave out stop words",
    edit=[("from collections import defaultdict\n",
           "from collections import defaultdict\n\nfrom search.text import STOP_WORDS, tokenize\n\n\n"
           "def _words(text: str) -> list[str]:\n    return [w for w in tokenize(text) if w not in STOP_WORDS]\n"),
          ("        for word in text.lower().split():\n", "        for word in _words(text):\n"),
          ("        words = query.lower().split()\n", "        words = _words(query)\n")],
    test='''from search.index import Index

ix = Index()
ix.add(1, "How do I reset my password?")
ix.add(2, "Resetting the Password of a shared account, and what's next")
ix.add(3, "Billing: invoices and refunds")

assert ix.search("password") == {1, 2}, ix.search("password")
assert ix.search("The password?") == {1, 2}, ix.search("The password?")
assert ix.search("what's") == {2}
assert ix.search("invoices, refunds") == {3}
assert ix.search("billing") == {3}
assert ix.search("the of") == set()
for stop in ("the", "of", "a", "and"):
    assert stop not in ix.postings, stop
''',
)

# ================================================================ JavaScript

# ---------------------------------------------------------------- a CSV row helper (ESM)

js(
    id="js-fresh-contacts-csv-row",
    files={
        "package.json": ESM_PACKAGE % "address-book",
        "lib/csv.js": r"""// CSV that Excel and our importer both read back: a cell holding the separator, a quote or a
// line break is quoted, with quotes doubled. Every row ends in \r\n (RFC 4180).
export function csvRow(cells, { separator = ',' } = {}) {
  const out = cells.map((cell) => {
    const text = cell == null ? '' : String(cell);
    const needsQuotes = text.includes(separator) || /["\r\n]/.test(text);
    return needsQuotes ? `"${text.replace(/"/g, '""')}"` : text;
  });
  return out.join(separator) + '\r\n';
}
""",
        "lib/contacts.js": r"""// Export of the address book for the "Download contacts" button.
const COLUMNS = ['name', 'email', 'phone', 'company'];

export function contactsCsv(contacts) {
  const lines = [COLUMNS.join(',')];
  for (const c of contacts) {
    lines.push(COLUMNS.map((col) => c[col] ?? '').join(','));
  }
  return lines.join('\n') + '\n';
}
""",
    },
    target="lib/contacts.js",
    instruction="contactsCsv breaks on names with commas or quotes in them; build the header and every line "
                "with our CSV row helper",
    edit=[("// Export of the address book", "import { csvRow } from './csv.js';\n\n// Export of the address book"),
          (r"""  const lines = [COLUMNS.join(',')];
  for (const c of contacts) {
    lines.push(COLUMNS.map((col) => c[col] ?? '').join(','));
  }
  return lines.join('\n') + '\n';
""", r"""  const lines = [csvRow(COLUMNS)];
  for (const c of contacts) {
    lines.push(csvRow(COLUMNS.map((col) => c[col])));
  }
  return lines.join('');
""")],
    test=r'''import assert from 'node:assert';
import { contactsCsv } from './lib/contacts.js';

const out = contactsCsv([
  { name: 'Doe, Jane', email: 'jane@x.io', phone: null, company: 'ACME "Labs"' },
  { name: 'Bo', email: 'bo@x.io', phone: '+31 6 1234' },
]);
assert.strictEqual(out,
  'name,email,phone,company\r\n"Doe, Jane",jane@x.io,,"ACME ""Labs"""\r\nBo,bo@x.io,+31 6 1234,\r\n');
assert.strictEqual(contactsCsv([]), 'name,email,phone,company\r\n');
''',
)

# ---------------------------------------------------------------- error codes in a frozen object

js(
    id="js-fresh-signup-username-taken",
    files={
        "src/errorCodes.js": """'use strict';

// Machine-readable codes the mobile app switches on; never change a value once it has shipped.
const ErrorCodes = Object.freeze({
  BAD_REQUEST: 'E1000',
  USERNAME_INVALID: 'E1001',
  USERNAME_TAKEN: 'E1002',
  EMAIL_TAKEN: 'E1003',
  RATE_LIMITED: 'E1429',
});

// The JSON body of every error response.
function errorBody(code, detail) {
  return { error: { code, detail } };
}

module.exports = { ErrorCodes, errorBody };
""",
        "src/handlers/signup.js": """'use strict';

const USERNAME = /^[a-z0-9_]{3,20}$/;

// POST /signup, body { username, password }.
// users: { findByUsername(name) -> Promise<user|null>, create({ username, password }) -> Promise<user> }
function makeSignupHandler(users) {
  return async function signup(req) {
    const { username, password } = req.body || {};
    if (!USERNAME.test(username || '')) {
      return { status: 400, body: { error: 'invalid username' } };
    }
    const user = await users.create({ username, password });
    return { status: 201, body: { id: user.id, username } };
  };
}

module.exports = { makeSignupHandler };
""",
    },
    target="src/handlers/signup.js",
    instruction="signup should answer 409 when the username is already taken, and both error responses should "
                "use our standard error body with the right error codes",
    edit=[("'use strict';\n", "'use strict';\n\nconst { ErrorCodes, errorBody } = require('../errorCodes');\n"),
          ("      return { status: 400, body: { error: 'invalid username' } };\n    }\n",
           "      return { status: 400, body: errorBody(ErrorCodes.USERNAME_INVALID, 'invalid username') };\n    }\n"
           "    if (await users.findByUsername(username)) {\n"
           "      return { status: 409, body: errorBody(ErrorCodes.USERNAME_TAKEN, 'username taken') };\n    }\n")],
    test="""const assert = require('assert');
const { makeSignupHandler } = require('./src/handlers/signup');

const list = [{ id: 1, username: 'ann' }];
const users = {
  async findByUsername(name) { return list.find((u) => u.username === name) || null; },
  async create(u) { const user = { id: list.length + 1, ...u }; list.push(user); return user; },
};
const signup = makeSignupHandler(users);

(async () => {
  let r = await signup({ body: { username: 'ann', password: 'pw' } });
  assert.strictEqual(r.status, 409);
  assert.strictEqual(r.body.error.code, 'E1002');
  assert.strictEqual(list.length, 1);
  r = await signup({ body: { username: 'A!', password: 'pw' } });
  assert.strictEqual(r.status, 400);
  assert.strictEqual(r.body.error.code, 'E1001');
  r = await signup({ body: { username: 'bob_2', password: 'pw' } });
  assert.strictEqual(r.status, 201);
  assert.deepStrictEqual(r.body, { id: 2, username: 'bob_2' });
})().catch((e) => { console.error(e); process.exit(1); });
""",
)

# ---------------------------------------------------------------- an options object plus config

js(
    id="js-fresh-invoice-due-business-days",
    files={
        "src/calendar.js": """'use strict';

// Dates in billing are plain 'YYYY-MM-DD' strings, in UTC.
function isWeekend(iso) {
  const day = new Date(iso + 'T00:00:00Z').getUTCDay();
  return day === 0 || day === 6;
}

// The date n working days after `iso`, skipping weekends and every date in `holidays`.
function addBusinessDays(iso, n, { holidays = [] } = {}) {
  const d = new Date(iso + 'T00:00:00Z');
  let left = n;
  while (left > 0) {
    d.setUTCDate(d.getUTCDate() + 1);
    const day = d.toISOString().slice(0, 10);
    if (!isWeekend(day) && !holidays.includes(day)) left -= 1;
  }
  return d.toISOString().slice(0, 10);
}

module.exports = { isWeekend, addBusinessDays };
""",
        "src/config.js": """'use strict';

module.exports = {
  companyName: 'Northwind Freight',
  currency: 'EUR',
  paymentTermDays: 10, // working days
  bankHolidays: ['2024-12-25', '2024-12-26', '2025-01-01'],
};
""",
        "src/invoices.js": """'use strict';

function addDays(iso, n) {
  const d = new Date(iso + 'T00:00:00Z');
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

// invoice: { number, issuedOn: 'YYYY-MM-DD', paid }
function dueDate(invoice) {
  return addDays(invoice.issuedOn, 14);
}

function isOverdue(invoice, today) {
  return !invoice.paid && today > dueDate(invoice);
}

module.exports = { dueDate, isOverdue };
""",
    },
    target="src/invoices.js",
    instruction="due dates should follow the payment terms in our config: that many working days after the "
                "issue date, skipping weekends and bank holidays. There's a business-day helper for it",
    edit=[("'use strict';\n\nfunction addDays(iso, n) {\n  const d = new Date(iso + 'T00:00:00Z');\n"
           "  d.setUTCDate(d.getUTCDate() + n);\n  return d.toISOString().slice(0, 10);\n}\n",
           "'use strict';\n\nconst config = require('./config');\nconst { addBusinessDays } = require('./calendar');\n"),
          ("  return addDays(invoice.issuedOn, 14);\n",
           "  return addBusinessDays(invoice.issuedOn, config.paymentTermDays, { holidays: config.bankHolidays });\n")],
    test="""const assert = require('assert');
const config = require('./src/config');

config.paymentTermDays = 7;
config.bankHolidays = [...config.bankHolidays, '2025-01-02'];
const { dueDate, isOverdue } = require('./src/invoices');

assert.strictEqual(dueDate({ number: 1, issuedOn: '2024-12-20', paid: false }), '2025-01-06');
assert.strictEqual(dueDate({ number: 2, issuedOn: '2024-03-01', paid: false }), '2024-03-12');
assert.strictEqual(isOverdue({ number: 2, issuedOn: '2024-03-01', paid: false }, '2024-03-12'), false);
assert.strictEqual(isOverdue({ number: 2, issuedOn: '2024-03-01', paid: false }, '2024-03-13'), true);
assert.strictEqual(isOverdue({ number: 3, issuedOn: '2024-03-01', paid: true }, '2024-04-30'), false);
""",
)

# ---------------------------------------------------------------- a unit conversion (ESM)

js(
    id="js-fresh-parcel-weight-units",
    files={
        "package.json": ESM_PACKAGE % "parcel-pricing",
        "src/units.js": """// Weights: everything is converted to kilograms before pricing or printing labels.
const KG_PER = Object.freeze({ kg: 1, g: 0.001, lb: 0.45359237, oz: 0.028349523125 });

export const WEIGHT_UNITS = Object.keys(KG_PER);

export function toKilograms(value, unit) {
  const factor = KG_PER[unit];
  if (factor === undefined) throw new RangeError(`unknown weight unit: ${unit}`);
  return value * factor;
}
""",
        "src/shipping.js": """// Parcel prices in cents, by weight.
const BASE_CENTS = 450; // up to 1 kg
const PER_EXTRA_KG_CENTS = 120; // each started kilogram over that

export function parcelPrice(parcel) {
  const kg = parcel.weight;
  if (kg <= 1) return BASE_CENTS;
  return BASE_CENTS + Math.ceil(kg - 1) * PER_EXTRA_KG_CENTS;
}

export function totalPrice(parcels) {
  return parcels.reduce((sum, p) => sum + parcelPrice(p), 0);
}
""",
    },
    target="src/shipping.js",
    instruction="parcels now say what unit their weight is in (parcel.unit: kg, g, lb or oz). Convert to kilos "
                "with our units helper before pricing",
    edit=[("// Parcel prices in cents, by weight.\n",
           "import { toKilograms } from './units.js';\n\n// Parcel prices in cents, by weight.\n"),
          ("  const kg = parcel.weight;\n", "  const kg = toKilograms(parcel.weight, parcel.unit);\n")],
    test="""import assert from 'node:assert';
import { parcelPrice, totalPrice } from './src/shipping.js';

assert.strictEqual(parcelPrice({ weight: 2.5, unit: 'kg' }), 450 + 2 * 120);
assert.strictEqual(parcelPrice({ weight: 10, unit: 'lb' }), 450 + 4 * 120);
assert.strictEqual(parcelPrice({ weight: 35, unit: 'oz' }), 450);
assert.strictEqual(parcelPrice({ weight: 1500, unit: 'g' }), 450 + 120);
assert.strictEqual(totalPrice([{ weight: 3, unit: 'lb' }, { weight: 800, unit: 'g' }]), 570 + 450);
""",
)

# ---------------------------------------------------------------- an escaping helper (ESM)

js(
    id="js-fresh-invite-html-escape",
    files={
        "package.json": ESM_PACKAGE % "team-mailer",
        "src/html.js": """const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

// Escape text for an HTML body or a quoted attribute value.
export function escapeHtml(value) {
  return String(value ?? '').replace(/[&<>"']/g, (ch) => ENTITIES[ch]);
}
""",
        "src/emails/invite.js": """// The e-mail someone gets when they are invited to a team.
export function inviteEmail({ inviter, team, acceptUrl }) {
  return {
    subject: `${inviter.name} invited you to ${team.name}`,
    html: `<p><strong>${inviter.name}</strong> invited you to join <em>${team.name}</em>.</p>
<p><a href="${acceptUrl}">Accept the invitation</a></p>`,
  };
}
""",
    },
    target="src/emails/invite.js",
    instruction="inviteEmail puts user-typed names straight into the HTML. Escape every value interpolated into "
                "the html part with our escaping helper (the subject is plain text, leave it alone)",
    edit=[("// The e-mail someone gets", "import { escapeHtml } from '../html.js';\n\n// The e-mail someone gets"),
          ("""    html: `<p><strong>${inviter.name}</strong> invited you to join <em>${team.name}</em>.</p>
<p><a href="${acceptUrl}">Accept the invitation</a></p>`,""",
           """    html: `<p><strong>${escapeHtml(inviter.name)}</strong> invited you to join <em>${escapeHtml(team.name)}</em>.</p>
<p><a href="${escapeHtml(acceptUrl)}">Accept the invitation</a></p>`,""")],
    test="""import assert from 'node:assert';
import { inviteEmail } from './src/emails/invite.js';

const m = inviteEmail({
  inviter: { name: 'Tom & "Jerry" <script>' },
  team: { name: "O'Brien's crew" },
  acceptUrl: 'https://app.example/invite?t=1&u=2',
});
assert.strictEqual(m.subject, `Tom & "Jerry" <script> invited you to O'Brien's crew`);
assert.strictEqual(m.html,
  '<p><strong>Tom &amp; &quot;Jerry&quot; &lt;script&gt;</strong> invited you to join ' +
  '<em>O&#39;Brien&#39;s crew</em>.</p>\\n<p><a href="https://app.example/invite?t=1&amp;u=2">Accept the invitation</a></p>');
""",
)

# ---------------------------------------------------------------- an id helper with an option

js(
    id="js-fresh-ticket-public-id",
    files={
        "lib/ids.js": """'use strict';

const crypto = require('crypto');

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford-style: no i, l, o, u

// Public ids look like 'cus_8f3k2m9x0qz1': a type prefix, an underscore, then random characters.
function publicId(prefix, { size = 12 } = {}) {
  let out = '';
  for (const b of crypto.randomBytes(size)) out += ALPHABET[b % ALPHABET.length];
  return `${prefix}_${out}`;
}

function prefixOf(id) {
  const i = id.indexOf('_');
  return i === -1 ? null : id.slice(0, i);
}

module.exports = { publicId, prefixOf };
""",
        "lib/tickets.js": """'use strict';

// Support tickets, kept in memory by the helpdesk worker.
const tickets = new Map();

function openTicket({ customerId, subject, body }) {
  const ticket = {
    id: String(Date.now()),
    customerId,
    subject,
    body,
    status: 'open',
    createdAt: new Date().toISOString(),
  };
  tickets.set(ticket.id, ticket);
  return ticket;
}

function getTicket(id) {
  return tickets.get(id) || null;
}

module.exports = { openTicket, getTicket };
""",
    },
    target="lib/tickets.js",
    instruction="ticket ids are timestamps and collide under load. Give tickets proper public ids from our id "
                "helper: prefix 'tkt', 16 random characters",
    edit=[("'use strict';\n", "'use strict';\n\nconst { publicId } = require('./ids');\n"),
          ("    id: String(Date.now()),\n", "    id: publicId('tkt', { size: 16 }),\n")],
    test="""const assert = require('assert');
const { openTicket, getTicket } = require('./lib/tickets');

const seen = new Set();
for (let i = 0; i < 40; i++) {
  const t = openTicket({ customerId: 'cus_1', subject: 'help', body: 'it broke' });
  assert.match(t.id, /^tkt_[0-9abcdefghjkmnpqrstvwxyz]{16}$/);
  assert.strictEqual(getTicket(t.id), t);
  assert.strictEqual(t.status, 'open');
  seen.add(t.id);
}
assert.strictEqual(seen.size, 40);
assert.strictEqual(getTicket('tkt_nope'), null);
""",
)

# ---------------------------------------------------------------- an error class plus a plans table

js(
    id="js-fresh-project-plan-quota",
    files={
        "src/plans.js": """'use strict';

// What each subscription plan allows. Infinity means no limit.
const PLANS = Object.freeze({
  free: Object.freeze({ maxProjects: 3, maxSeats: 1 }),
  team: Object.freeze({ maxProjects: 25, maxSeats: 10 }),
  enterprise: Object.freeze({ maxProjects: Infinity, maxSeats: Infinity }),
});

function limitsFor(plan) {
  const limits = PLANS[plan];
  if (!limits) throw new Error(`unknown plan ${plan}`);
  return limits;
}

module.exports = { PLANS, limitsFor };
""",
        "src/errors.js": """'use strict';

class BillingError extends Error {
  constructor(message) {
    super(message);
    this.name = this.constructor.name;
  }
}

// An account would go over its plan: new QuotaExceededError(resource, limit, plan),
// e.g. new QuotaExceededError('seats', 1, 'free'). The API answers 402 with an upgrade link.
class QuotaExceededError extends BillingError {
  constructor(resource, limit, plan) {
    super(`the ${plan} plan allows ${limit} ${resource}`);
    this.resource = resource;
    this.limit = limit;
    this.plan = plan;
    this.status = 402;
  }
}

module.exports = { BillingError, QuotaExceededError };
""",
        "src/projects.js": """'use strict';

// account: { id, plan, projects: [] }
function createProject(account, name) {
  const trimmed = String(name || '').trim();
  if (!trimmed) throw new Error('project name required');
  const project = { id: `${account.id}-${account.projects.length + 1}`, name: trimmed };
  account.projects.push(project);
  return project;
}

module.exports = { createProject };
""",
    },
    target="src/projects.js",
    instruction="createProject has to stop at the number of projects the account's plan allows; throw our "
                "quota error (resource 'projects') when it would go over",
    edit=[("'use strict';\n",
           "'use strict';\n\nconst { limitsFor } = require('./plans');\nconst { QuotaExceededError } = require('./errors');\n"),
          ("  if (!trimmed) throw new Error('project name required');\n",
           "  if (!trimmed) throw new Error('project name required');\n"
           "  const { maxProjects } = limitsFor(account.plan);\n"
           "  if (account.projects.length >= maxProjects) {\n"
           "    throw new QuotaExceededError('projects', maxProjects, account.plan);\n  }\n")],
    test="""const assert = require('assert');
const { QuotaExceededError } = require('./src/errors');
const { createProject } = require('./src/projects');

const free = { id: 'a1', plan: 'free', projects: [] };
for (const n of ['one', 'two', 'three']) createProject(free, n);
assert.throws(() => createProject(free, 'four'),
  (e) => e instanceof QuotaExceededError && e.resource === 'projects' && e.limit === 3 && e.plan === 'free'
    && e.status === 402);
assert.strictEqual(free.projects.length, 3);

const team = { id: 't1', plan: 'team', projects: Array.from({ length: 24 }, (_, i) => ({ id: `t1-${i + 1}` })) };
createProject(team, 'last one');
assert.throws(() => createProject(team, 'too many'), (e) => e instanceof QuotaExceededError && e.limit === 25);

const big = { id: 'e1', plan: 'enterprise', projects: Array.from({ length: 500 }, (_, i) => ({ id: i })) };
assert.strictEqual(createProject(big, 'more').name, 'more');
""",
)

# ---------------------------------------------------------------- argument order of a key builder (ESM)

js(
    id="js-fresh-avatar-storage-key",
    files={
        "package.json": ESM_PACKAGE % "media-service",
        "src/storage/keys.js": """// Every object in the bucket lives under its tenant: t/<tenant>/<kind>/<name>.
// Names are lower-cased and runs of anything outside [a-z0-9._-] become '-', so keys are URL-safe.
export const KINDS = Object.freeze({ AVATAR: 'avatars', ATTACHMENT: 'attachments', EXPORT: 'exports' });

export function objectKey(tenantId, kind, fileName) {
  const safe = fileName.toLowerCase().replace(/[^a-z0-9._-]+/g, '-');
  return `t/${tenantId}/${kind}/${safe}`;
}
""",
        "src/users/avatar.js": """// Where a user's uploaded avatar goes in the bucket, and its public URL.
// user: { id, tenantId, name }
const CDN = 'https://cdn.example.com';

export function avatarKey(user, fileName) {
  return `avatars/${user.id}-${fileName}`;
}

export function avatarUrl(user, fileName) {
  return `${CDN}/${avatarKey(user, fileName)}`;
}
""",
    },
    target="src/users/avatar.js",
    instruction="avatars have to live under the user's tenant in the bucket now. Build the key with our object "
                "key helper (the avatar kind); the file name stays '<user id>-<uploaded name>'",
    edit=[("// Where a user's uploaded avatar",
           "import { KINDS, objectKey } from '../storage/keys.js';\n\n// Where a user's uploaded avatar"),
          ("  return `avatars/${user.id}-${fileName}`;\n",
           "  return objectKey(user.tenantId, KINDS.AVATAR, `${user.id}-${fileName}`);\n")],
    test="""import assert from 'node:assert';
import { avatarKey, avatarUrl } from './src/users/avatar.js';

const user = { id: 42, tenantId: 'acme', name: 'Ida' };
assert.strictEqual(avatarKey(user, 'My Photo (1).PNG'), 't/acme/avatars/42-my-photo-1-.png');
assert.strictEqual(avatarUrl(user, 'me.jpg'), 'https://cdn.example.com/t/acme/avatars/42-me.jpg');
assert.strictEqual(avatarKey({ id: 7, tenantId: 'globex' }, 'a.gif'), 't/globex/avatars/7-a.gif');
""",
)
