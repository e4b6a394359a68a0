"""Held-out requests whose natural code uses a standard-library name imported by itself
(`from M import NAME`: typing's Optional/Iterable/Any/Callable, collections' defaultdict/Counter,
dataclasses' dataclass, enum's Enum, decimal's Decimal, pathlib's Path, functools' lru_cache,
datetime's timedelta) that the file does not import yet (`bench/usertasks/names_heldout.py`).

Each request is about one function, method or class of a hand-written 60-150 line module and is
phrased the way a developer types it in a pair-programming tool, without saying "import" ("add type
hints to parse_row, returning None for a blank line", "turn Point into a dataclass", "cache the
results of count_syllables", ...). Written 2026-11-28, blind to the mechanism it measures (its code
and prompts unread). Six original, runnable, stdlib-only modules (a bank ledger, a raster canvas,
invoices, app settings, text statistics, a reminder scheduler), each serving two tasks; none of
them has `from __future__ import annotations`, so in the four type-hint tasks (parse-row-optional,
invoice-totals-iterable, settings-any, scheduler-on-callable) a missing typing name is a NameError
as soon as the module loads.

Each test runs appended to the edited file as one script. It checks the behaviour asked for, that a
few of the file's other functions still behave as before, and nothing about how the import is
written; whatever it imports it binds to an underscore name, so it never supplies the name the edit
needs. Type hints are compared in a spelling-independent form (_norm): `Optional[X]`,
`Union[X, None]` and `X | None` are the same; typing's `List`/`Dict` and the builtins `list`/`dict`
are both accepted, and so are typing's `Iterable`/`Callable` and collections.abc's; the return
annotation `-> None` may be left off where the request says the function returns nothing. Values
"of any type" must be `typing.Any`.
"""

from __future__ import annotations


def _task(name: str, file: str, text: str, instruction: str, test: str) -> dict:
    return {"name": name, "file": file, "instruction": instruction, "input": text, "test": test}


# Prepended to the type-hint tests: _check_hints(func, want) compares typing.get_type_hints(func)
# with `want` after _norm, so equivalent spellings of an annotation compare equal.
_HINTS = r'''
import collections.abc as _abc
import types as _types
import typing as _typing


def _norm(hint):
    if hint is None or hint is type(None):
        return type(None)
    origin = _typing.get_origin(hint)
    args = _typing.get_args(hint)
    if origin is _typing.Union or origin is _types.UnionType:
        return ("union", frozenset(_norm(arg) for arg in args))
    if origin is None:
        return hint
    if not args:
        return origin
    if origin is _abc.Callable and isinstance(args[0], (list, tuple)):
        return ("callable", tuple(_norm(arg) for arg in args[0]), _norm(args[-1]))
    return (origin, tuple(_norm(arg) for arg in args))


def _check_hints(func, want, may_omit_return=False):
    got = _typing.get_type_hints(func)
    if may_omit_return and "return" not in got:
        want = {key: value for key, value in want.items() if key != "return"}
    normal_got = {key: _norm(value) for key, value in got.items()}
    normal_want = {key: _norm(value) for key, value in want.items()}
    assert normal_got == normal_want, f"annotations of {func.__qualname__}: {got} (want {want})"
'''


LEDGER = r'''"""Bank-statement ledger: parse the CSV a bank exports and summarise it.

Rows look like ``2024-03-01,Checking,-12.50,Coffee at Mario's``: an ISO date, the account, a signed
amount and a free-text memo. Amounts are kept as integer cents so that sums come out exact; account
names are compared case-insensitively (they are stored lower-case)."""

import csv
import re
from collections import namedtuple
from datetime import date

Entry = namedtuple("Entry", "day account cents memo")

_AMOUNT = re.compile(r"^([+-])?(\d+)(?:\.(\d{1,2}))?$")

SAMPLE = """date,account,amount,memo
2024-03-01,Checking,2500.00,Salary
2024-03-02,Checking,-12.50,Coffee at Mario's
# moved by hand, see the savings statement
2024-03-02,Savings,400,Transfer in
2024-03-03,Checking,-400.00,Transfer out

2024-03-15,Checking,-89.99,"Groceries, weekly"
2024-04-01,Checking,2500.00,Salary
2024-04-03,Savings,-50.5,Withdrawal
2024-04-04,Checking,-1200.00,Rent
"""


def parse_amount(text):
    """'-12.5' -> -1250 cents; ValueError for anything that is not a plain decimal amount."""
    match = _AMOUNT.match(text.strip())
    if not match:
        raise ValueError(f"bad amount: {text!r}")
    sign, whole, frac = match.groups()
    cents = int(whole) * 100 + int((frac or "0").ljust(2, "0"))
    return -cents if sign == "-" else cents


def format_cents(cents):
    """-125050 -> '-1,250.50'."""
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(cents), 100)
    return f"{sign}{whole:,}.{frac:02d}"


def parse_row(line):
    """One CSV row -> Entry; ValueError when it lacks the four fields or they do not parse."""
    fields = next(csv.reader([line]), [])
    if len(fields) != 4:
        raise ValueError(f"expected 4 fields, got {len(fields)}: {line!r}")
    day, account, amount, memo = (field.strip() for field in fields)
    return Entry(date.fromisoformat(day), account.lower(), parse_amount(amount), memo)


def load_entries(text):
    """Parse a whole export, skipping blank lines, '#' comments and the header row."""
    entries = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped.lower().startswith("date,"):
            continue
        try:
            entries.append(parse_row(line))
        except ValueError as exc:
            raise ValueError(f"line {number}: {exc}") from None
    return entries


def balance(entries, account=None):
    return sum(e.cents for e in entries if account is None or e.account == account.lower())


def accounts(entries):
    return sorted({e.account for e in entries})


def between(entries, start, end):
    """Entries dated start..end inclusive, in their original order."""
    return [e for e in entries if start <= e.day <= end]


def monthly_net(entries):
    """{(year, month): net cents}, months in calendar order."""
    net = {}
    for e in sorted(entries, key=lambda e: e.day):
        key = (e.day.year, e.day.month)
        net[key] = net.get(key, 0) + e.cents
    return net


def largest_expenses(entries, n=3):
    spent = [e for e in entries if e.cents < 0]
    return sorted(spent, key=lambda e: (e.cents, e.day))[:n]


def statement(entries, account):
    """A plain-text statement for one account, with a running balance column."""
    account = account.lower()
    lines = [f"Statement for {account}"]
    running = 0
    for e in sorted((e for e in entries if e.account == account), key=lambda e: e.day):
        running += e.cents
        lines.append(f"{e.day.isoformat()}  {format_cents(e.cents):>10}  {format_cents(running):>10}  {e.memo}")
    lines.append(f"Closing balance: {format_cents(running)}")
    return "\n".join(lines)
'''

_LEDGER_OTHERS = r'''
import datetime as _dt
_entries = load_entries(SAMPLE)
assert len(_entries) == 8, _entries
assert balance(_entries, "Checking") == 329751 and balance(_entries, "savings") == 34950
assert accounts(_entries) == ["checking", "savings"]
assert monthly_net(_entries) == {(2024, 3): 239751, (2024, 4): 124950}, monthly_net(_entries)
assert [e.memo for e in largest_expenses(_entries, 2)] == ["Rent", "Transfer out"]
assert statement(_entries, "savings").splitlines()[-1] == "Closing balance: 349.50"
'''


CANVAS = r'''"""A tiny raster canvas for diagrams and test images.

Shapes are drawn into a grid of palette colours, with (0, 0) at the top left; the result can be
written out as a plain-text PPM (P3) image or shown as ASCII art in a terminal."""

import math
from itertools import product


class Point:
    """A position on the canvas (x to the right, y down)."""

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def translated(self, dx, dy):
        return Point(self.x + dx, self.y + dy)

    def distance_to(self, other):
        return math.hypot(other.x - self.x, other.y - self.y)

    def as_tuple(self):
        return (self.x, self.y)


class Color:
    BLACK = 0
    RED = 1
    GREEN = 2
    BLUE = 3
    WHITE = 4


RGB = {
    Color.BLACK: (0, 0, 0),
    Color.RED: (255, 0, 0),
    Color.GREEN: (0, 160, 0),
    Color.BLUE: (0, 0, 255),
    Color.WHITE: (255, 255, 255),
}
GLYPHS = {Color.BLACK: "#", Color.RED: "r", Color.GREEN: "g", Color.BLUE: "b", Color.WHITE: "."}


def bounding_box(points):
    """The smallest (top_left, bottom_right) pair of Points that contains all of `points`."""
    points = list(points)
    if not points:
        raise ValueError("no points")
    xs = [p.x for p in points]
    ys = [p.y for p in points]
    return Point(min(xs), min(ys)), Point(max(xs), max(ys))


class Canvas:
    def __init__(self, width, height, background=Color.WHITE):
        if width <= 0 or height <= 0:
            raise ValueError("a canvas needs a positive size")
        self.width = width
        self.height = height
        self.pixels = [[background] * width for _ in range(height)]

    def inside(self, point):
        return 0 <= point.x < self.width and 0 <= point.y < self.height

    def set(self, point, color):
        """Paint one pixel; points off the canvas are clipped silently."""
        if self.inside(point):
            self.pixels[point.y][point.x] = color

    def get(self, point):
        return self.pixels[point.y][point.x]

    def line(self, a, b, color):
        """Bresenham's line from a to b, both ends included."""
        x, y = a.x, a.y
        dx, dy = abs(b.x - a.x), -abs(b.y - a.y)
        sx = 1 if a.x < b.x else -1
        sy = 1 if a.y < b.y else -1
        err = dx + dy
        while True:
            self.set(Point(x, y), color)
            if (x, y) == (b.x, b.y):
                return
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x += sx
            if e2 <= dx:
                err += dx
                y += sy

    def rect(self, top_left, bottom_right, color, fill=False):
        if fill:
            xs = range(top_left.x, bottom_right.x + 1)
            for x, y in product(xs, range(top_left.y, bottom_right.y + 1)):
                self.set(Point(x, y), color)
            return
        top_right = Point(bottom_right.x, top_left.y)
        bottom_left = Point(top_left.x, bottom_right.y)
        corners = [top_left, top_right, bottom_right, bottom_left, top_left]
        for a, b in zip(corners, corners[1:]):
            self.line(a, b, color)

    def circle(self, center, radius, color):
        """Paint every pixel whose centre lies within half a pixel of the circle."""
        for x, y in product(range(self.width), range(self.height)):
            if abs(center.distance_to(Point(x, y)) - radius) <= 0.5:
                self.set(Point(x, y), color)

    def count(self, color):
        return sum(row.count(color) for row in self.pixels)

    def to_ascii(self):
        return "\n".join("".join(GLYPHS[c] for c in row) for row in self.pixels)

    def to_ppm(self):
        lines = ["P3", f"{self.width} {self.height}", "255"]
        for row in self.pixels:
            lines.append(" ".join(" ".join(str(v) for v in RGB[c]) for c in row))
        return "\n".join(lines) + "\n"
'''

_CANVAS_OTHERS = r'''
_c = Canvas(5, 4)
_c.line(Point(0, 0), Point(4, 2), Color.RED)
_c.rect(Point(1, 2), Point(3, 3), Color.BLUE, fill=True)
assert _c.to_ascii() == "r....\n.rr..\n.bbbr\n.bbb.", _c.to_ascii()
assert _c.count(Color.WHITE) == 10 and _c.count(Color.BLUE) == 6
assert _c.to_ppm().splitlines()[:4] == ["P3", "5 4", "255", "255 0 0 " + " ".join(["255 255 255"] * 4)]
_o = Canvas(7, 7, background=Color.BLACK)
_o.circle(Point(3, 3), 2, Color.GREEN)
assert _o.count(Color.GREEN) == 12 and _o.get(Point(3, 1)) == Color.GREEN and _o.get(Point(3, 3)) == Color.BLACK
'''


INVOICES = r'''"""Invoices from a plain-text order export.

An invoice is a header line ``INV-1001 | Acme Ltd | 2024-04-02`` followed by indented item lines
``    Widget ; 3 ; $4.10``; a blank line ends it. Tax is a whole percentage of the subtotal."""

import re
from collections import defaultdict
from datetime import date

TAX_PERCENT = 20

_HEADER = re.compile(r"^(INV-\d+)\s*\|\s*(.+?)\s*\|\s*(\d{4}-\d{2}-\d{2})$")
_PRICE = re.compile(r"^\d+(\.\d+)?$")

SAMPLE = """INV-1001 | Acme Ltd | 2024-04-02
    Widget ; 3 ; $4.10
    Gadget ; 1 ; $1,250.20

INV-1002 | Bell & Co | 2024-04-09
    Cable ; 10 ; $0.10
    Plug ; 3 ; $0.20

INV-1003 | Acme Ltd | 2024-05-01
    Support hours ; 2 ; $95.55
"""


class LineItem:
    def __init__(self, name, quantity, price):
        if quantity <= 0:
            raise ValueError(f"{name}: quantity must be positive")
        self.name = name
        self.quantity = quantity
        self.price = price

    @property
    def amount(self):
        return self.quantity * self.price


class Invoice:
    def __init__(self, number, customer, issued, items=None):
        self.number = number
        self.customer = customer
        self.issued = issued
        self.items = list(items or [])

    @property
    def subtotal(self):
        return sum((item.amount for item in self.items), 0)

    def tax(self, percent=TAX_PERCENT):
        return self.subtotal * percent / 100

    def total(self, percent=TAX_PERCENT):
        return self.subtotal + self.tax(percent)


def parse_price(text):
    """'$1,250.20' -> the amount; ValueError when the text is not a price."""
    cleaned = text.strip().replace("$", "").replace(",", "")
    if not _PRICE.match(cleaned):
        raise ValueError(f"bad price: {text!r}")
    return float(cleaned)


def format_money(amount):
    return f"${amount:,.2f}"


def parse_item(line):
    name, quantity, price = (part.strip() for part in line.split(";"))
    return LineItem(name, int(quantity), parse_price(price))


def parse_invoices(text):
    invoices = []
    current = None
    for line in text.splitlines():
        if not line.strip():
            current = None
            continue
        header = _HEADER.match(line.strip())
        if header:
            number, customer, issued = header.groups()
            current = Invoice(number, customer, date.fromisoformat(issued))
            invoices.append(current)
        elif current is not None and line[:1].isspace():
            current.items.append(parse_item(line))
        else:
            raise ValueError(f"line outside an invoice: {line!r}")
    return invoices


def totals_by_customer(invoices):
    totals = {}
    for invoice in invoices:
        totals[invoice.customer] = totals.get(invoice.customer, 0) + invoice.total()
    return totals


def invoices_by_month(invoices):
    months = defaultdict(list)
    for invoice in invoices:
        months[invoice.issued.strftime("%Y-%m")].append(invoice.number)
    return dict(months)


def render(invoice, percent=TAX_PERCENT):
    lines = [f"{invoice.number}  {invoice.customer}  {invoice.issued:%d %b %Y}"]
    for item in invoice.items:
        price, amount = format_money(item.price), format_money(item.amount)
        lines.append(f"  {item.name:<16}{item.quantity:>4} x {price:>10} = {amount:>11}")
    lines.append(f"  {'Subtotal':<33}{format_money(invoice.subtotal):>11}")
    lines.append(f"  {'Tax ' + str(percent) + '%':<33}{format_money(invoice.tax(percent)):>11}")
    lines.append(f"  {'Total':<33}{format_money(invoice.total(percent)):>11}")
    return "\n".join(lines)
'''

_INVOICES_OTHERS = r'''
_invs = parse_invoices(SAMPLE)
assert [i.number for i in _invs] == ["INV-1001", "INV-1002", "INV-1003"]
assert invoices_by_month(_invs) == {"2024-04": ["INV-1001", "INV-1002"], "2024-05": ["INV-1003"]}
assert format_money(1234.5) == "$1,234.50"
assert render(_invs[0]).splitlines() == [
    "INV-1001  Acme Ltd  02 Apr 2024",
    "  Widget             3 x      $4.10 =      $12.30",
    "  Gadget             1 x  $1,250.20 =   $1,250.20",
    "  Subtotal                           $1,262.50",
    "  Tax 20%                              $252.50",
    "  Total                              $1,515.00",
], render(_invs[0])
try:
    parse_price("12 dollars")
except ValueError:
    pass
else:
    raise AssertionError("parse_price accepted '12 dollars'")
'''


APPCONFIG = r'''"""Application settings from ``appconfig.ini``-style files.

A file is ``key = value`` lines, ``#`` comments and optional ``[section]`` headers (keys after a
header become ``section.key``). Values that look like booleans, integers, floats or comma-separated
lists are converted. The file is found by walking up from a start directory, the way git finds its
repository, and environment variables named APP_<KEY> override what it says."""

import os
import re

CONFIG_NAME = "appconfig.ini"
ENV_PREFIX = "APP_"
DEFAULTS = {"debug": False, "port": 8000, "hosts": ["localhost"], "db.url": "sqlite:///app.db"}

_SECTION = re.compile(r"^\[([A-Za-z0-9_.-]+)\]$")
_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+)$")

SAMPLE = """# local development
debug = yes
port = 8080
hosts = localhost, 127.0.0.1

[db]
url = postgres://app@localhost/app
timeout = 2.5
"""


def coerce(value):
    """'yes' -> True, '8080' -> 8080, '2.5' -> 2.5, 'a, b' -> ['a', 'b'], anything else unchanged."""
    value = value.strip()
    lowered = value.lower()
    if lowered in ("yes", "true", "on"):
        return True
    if lowered in ("no", "false", "off"):
        return False
    if _INT.match(value):
        return int(value)
    if _FLOAT.match(value):
        return float(value)
    if "," in value:
        return [coerce(part) for part in value.split(",") if part.strip()]
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def parse_settings(text):
    settings = {}
    section = ""
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        header = _SECTION.match(line)
        if header:
            section = header.group(1) + "."
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"line {number}: expected key = value, got {raw!r}")
        settings[section + key.strip().lower()] = coerce(value)
    return settings


def find_config(start=".", name=CONFIG_NAME):
    """The nearest file called `name` in `start` or one of its parents, or None."""
    directory = os.path.abspath(start)
    while True:
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def env_overrides(environ=None):
    """APP_DB__URL=... -> {"db.url": ...}: a double underscore separates section and key."""
    environ = os.environ if environ is None else environ
    found = {}
    for name, value in environ.items():
        if name.startswith(ENV_PREFIX):
            key = name[len(ENV_PREFIX):].lower().replace("__", ".")
            found[key] = coerce(value)
    return found


def load_config(start=".", environ=None):
    settings = dict(DEFAULTS)
    path = find_config(start)
    if path is not None:
        with open(path, encoding="utf-8") as fh:
            settings.update(parse_settings(fh.read()))
    settings.update(env_overrides(environ))
    return settings


def describe(settings):
    width = max(len(key) for key in settings)
    return "\n".join(f"{key:<{width}} = {settings[key]!r}" for key in sorted(settings))
'''

_APPCONFIG_OTHERS = r'''
assert coerce(" off ") is False and coerce("-3") == -3 and coerce("'quoted'") == "quoted"
assert env_overrides({"APP_DB__URL": "sqlite://", "HOME": "/x", "APP_PORT": "81"}) == {"db.url": "sqlite://", "port": 81}
assert describe({"b": 1, "a": "x"}) == "a = 'x'\nb = 1"
'''

_APPCONFIG_PARSED = r'''
assert parse_settings(SAMPLE) == {"debug": True, "port": 8080, "hosts": ["localhost", "127.0.0.1"],
                                  "db.url": "postgres://app@localhost/app", "db.timeout": 2.5}, parse_settings(SAMPLE)
try:
    parse_settings("just words")
except ValueError:
    pass
else:
    raise AssertionError("parse_settings accepted a line without '='")
'''


WORDSTATS = r'''"""Readability statistics for plain English text.

Words are runs of letters (with inner apostrophes, so "don't" is one word), compared lower-case.
Syllables are estimated from groups of vowels, which is good enough for the Flesch reading-ease
score."""

import re
import string

_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*")
_SENTENCE_END = re.compile(r"[.!?]+(?:\s+|$)")
_VOWEL_GROUP = re.compile(r"[aeiouy]+")

STOPWORDS = frozenset(
    "a an and are as at be but by for from in is it its of on or that the this to was were with".split()
)


def tokenize(text):
    return [word.lower() for word in _WORD.findall(text)]


def sentences(text):
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


def strip_punctuation(text):
    return text.translate(str.maketrans("", "", string.punctuation))


def word_frequencies(text, skip_stopwords=False):
    """How often each word occurs in `text`."""
    counts = {}
    for word in tokenize(text):
        if skip_stopwords and word in STOPWORDS:
            continue
        counts[word] = counts.get(word, 0) + 1
    return counts


def top_words(text, n=5):
    """The n most frequent words that are not stopwords, most frequent first, ties alphabetical."""
    counts = word_frequencies(text, skip_stopwords=True)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:n]


def _vowel_groups(word):
    return _VOWEL_GROUP.findall(word.lower())


def count_syllables(word):
    """A heuristic syllable count: vowel groups, less a silent final 'e', and at least one."""
    groups = len(_vowel_groups(word))
    lowered = word.lower()
    if lowered.endswith("e") and not lowered.endswith(("le", "ee")) and groups > 1:
        groups -= 1
    return max(groups, 1)


def flesch_reading_ease(text):
    words = tokenize(text)
    if not words:
        return 0.0
    n_sentences = max(len(sentences(text)), 1)
    n_syllables = sum(count_syllables(word) for word in words)
    return round(206.835 - 1.015 * len(words) / n_sentences - 84.6 * n_syllables / len(words), 1)


def lexical_density(text):
    """The share of words that are not stopwords, 0.0 for an empty text."""
    words = tokenize(text)
    if not words:
        return 0.0
    return round(sum(1 for word in words if word not in STOPWORDS) / len(words), 3)


def summary(text):
    words = tokenize(text)
    return {
        "words": len(words),
        "distinct": len(set(words)),
        "sentences": len(sentences(text)),
        "syllables": sum(count_syllables(word) for word in words),
        "reading_ease": flesch_reading_ease(text),
        "density": lexical_density(text),
        "top": top_words(text, 3),
    }
'''

_WORDSTATS_TEXT = r'''
_TEXT = ("The whale surfaced near the boat. The crew watched the whale in silence! "
         "Nobody on the boat had seen a whale this close, and nobody wanted to leave.")
'''

_WORDSTATS_OTHERS = r'''
assert tokenize("Don't stop, DON'T!") == ["don't", "stop", "don't"]
assert sentences(_TEXT) == ["The whale surfaced near the boat", "The crew watched the whale in silence",
                            "Nobody on the boat had seen a whale this close, and nobody wanted to leave"]
assert [count_syllables(w) for w in ("whale", "table", "silence", "nobody", "the", "rhythm")] == [2, 2, 2, 3, 1, 1]
assert flesch_reading_ease(_TEXT) == 76.5, flesch_reading_ease(_TEXT)
assert summary(_TEXT)["top"] == [("whale", 3), ("boat", 2), ("nobody", 2)], summary(_TEXT)
assert summary(_TEXT)["syllables"] == 40 and summary(_TEXT)["density"] == 0.607, summary(_TEXT)
'''


REMINDERS = r'''"""An in-process reminder scheduler.

A job has a name, a due time and an optional repeat interval. `Scheduler.run_pending(now)` fires
every job that is due, in due order, calling the handlers registered for "run" (and those for
"error" when one of them raises); repeating jobs are then rescheduled, and one-off jobs are dropped
and reported to the "done" handlers."""

import heapq
import itertools
from datetime import datetime


class Job:
    def __init__(self, name, due, repeat=None, payload=None):
        if repeat is not None and repeat.total_seconds() <= 0:
            raise ValueError(f"{name}: repeat must be positive")
        self.name = name
        self.due = due
        self.repeat = repeat
        self.payload = dict(payload or {})
        self.runs = 0
        self.last_error = None

    def next_due(self):
        """When a repeating job fires next after its current due time; None for a one-off job."""
        if self.repeat is None:
            return None
        return self.due + self.repeat

    def __repr__(self):
        every = f" every {self.repeat}" if self.repeat else ""
        return f"<Job {self.name} due {self.due:%Y-%m-%d %H:%M}{every}>"


class Scheduler:
    EVENTS = ("run", "error", "done")

    def __init__(self):
        self.jobs = {}
        self._heap = []
        self._order = itertools.count()
        self._handlers = {event: [] for event in self.EVENTS}

    def add(self, name, due, repeat=None, payload=None):
        if name in self.jobs:
            raise ValueError(f"a job named {name!r} already exists")
        job = Job(name, due, repeat, payload)
        self.jobs[name] = job
        self._push(job)
        return job

    def _push(self, job):
        heapq.heappush(self._heap, (job.due, next(self._order), job.name))

    def on(self, event, handler):
        if event not in self._handlers:
            raise ValueError(f"unknown event {event!r}; expected one of {self.EVENTS}")
        self._handlers[event].append(handler)

    def cancel(self, name):
        return self.jobs.pop(name, None) is not None

    def _emit(self, event, job):
        for handler in self._handlers[event]:
            handler(job)

    def run_pending(self, now=None):
        """Fire every job due at or before `now`; returns the names fired, in order."""
        now = now or datetime.now()
        fired = []
        while self._heap and self._heap[0][0] <= now:
            due, _, name = heapq.heappop(self._heap)
            job = self.jobs.get(name)
            if job is None or job.due != due:
                continue  # cancelled, or a stale entry
            fired.append(name)
            job.runs += 1
            try:
                self._emit("run", job)
            except Exception as exc:
                job.last_error = exc
                self._emit("error", job)
            following = job.next_due()
            if following is None:
                del self.jobs[name]
                self._emit("done", job)
            else:
                job.due = following
                self._push(job)
        return fired

    def next_wakeup(self):
        """The earliest due time among the live jobs, or None when nothing is scheduled."""
        live = [job.due for job in self.jobs.values()]
        return min(live) if live else None

    def pending(self, now):
        return sorted(name for name, job in self.jobs.items() if job.due <= now)
'''

_REMINDERS_OTHERS = r'''
import datetime as _dt
_t0 = _dt.datetime(2024, 6, 1, 9, 0)
_s = Scheduler()
_log = []
_s.on("run", lambda job: _log.append(("run", job.name)))
_s.on("done", lambda job: _log.append(("done", job.name)))
_s.add("tea", _t0 + _dt.timedelta(minutes=5))
_s.add("standup", _t0, repeat=_dt.timedelta(days=1))
_s.add("gone", _t0)
assert _s.cancel("gone") and not _s.cancel("gone")
assert _s.pending(_t0) == ["standup"] and _s.next_wakeup() == _t0
assert _s.run_pending(_t0 + _dt.timedelta(minutes=10)) == ["standup", "tea"]
assert _log == [("run", "standup"), ("run", "tea"), ("done", "tea")], _log
assert _s.next_wakeup() == _t0 + _dt.timedelta(days=1) and list(_s.jobs) == ["standup"]
assert repr(_s.jobs["standup"]) == "<Job standup due 2024-06-02 09:00 every 1 day, 0:00:00>"
'''


TASKS = [
    _task("parse-row-optional", "ledger.py", LEDGER,
          "add type hints to parse_row: it takes a line of text and returns an Entry, or None when "
          "the line is blank (instead of raising like it does now)",
          _HINTS + _LEDGER_OTHERS + r'''
_check_hints(parse_row, {"line": str, "return": _typing.Optional[Entry]})
assert parse_row("") is None
assert parse_row("   ") is None
assert parse_row("2024-05-06, Checking ,-3.20,Bus") == Entry(_dt.date(2024, 5, 6), "checking", -320, "Bus")
try:
    parse_row("2024-05-06,Checking")
except ValueError:
    pass
else:
    raise AssertionError("a row with two fields did not raise")
'''),
    _task("group-entries-by-account", "ledger.py", LEDGER,
          "add an entries_by_account(entries) function that groups the entries by account: a dict "
          "from each account to its entries, in their original order",
          _LEDGER_OTHERS + r'''
_groups = entries_by_account(_entries)
assert dict(_groups) == {"checking": [e for e in _entries if e.account == "checking"],
                         "savings": [e for e in _entries if e.account == "savings"]}, _groups
assert [e.memo for e in _groups["savings"]] == ["Transfer in", "Withdrawal"]
assert dict(entries_by_account([])) == {}
'''),
    _task("point-dataclass", "canvas.py", CANVAS, "turn Point into a dataclass", _CANVAS_OTHERS + r'''
import dataclasses as _dataclasses
assert _dataclasses.is_dataclass(Point), "Point is not a dataclass"
assert [f.name for f in _dataclasses.fields(Point)] == ["x", "y"], _dataclasses.fields(Point)
assert Point(1, 2) == Point(1, 2) and Point(1, 2) != Point(2, 1)
assert repr(Point(3, 4)) == "Point(x=3, y=4)", repr(Point(3, 4))
assert Point(x=0, y=0).distance_to(Point(3, 4)) == 5.0
assert Point(1, 2).translated(2, 3) == Point(3, 5) and Point(7, 8).as_tuple() == (7, 8)
assert bounding_box([Point(3, 1), Point(0, 4), Point(2, 2)]) == (Point(0, 1), Point(3, 4))
'''),
    _task("color-enum", "canvas.py", CANVAS, "make Color an enum", _CANVAS_OTHERS + r'''
import enum as _enum
assert isinstance(Color, type) and issubclass(Color, _enum.Enum), "Color is not an Enum"
assert [member.name for member in Color] == ["BLACK", "RED", "GREEN", "BLUE", "WHITE"], list(Color)
assert isinstance(Color.RED, Color) and Color.RED != Color.BLUE
_b = Canvas(4, 3)
_b.rect(Point(0, 0), Point(3, 2), Color.BLUE)
assert _b.to_ascii() == "bbbb\nb..b\nbbbb", _b.to_ascii()
assert _b.count(Color.BLUE) == 10 and _b.get(Point(1, 1)) is Color.WHITE
'''),
    _task("decimal-prices", "invoices.py", INVOICES,
          "make parse_price return a Decimal so that prices add up exactly", _INVOICES_OTHERS + r'''
import decimal as _decimal
_p = parse_price("$1,250.20")
assert isinstance(_p, _decimal.Decimal) and _p == _decimal.Decimal("1250.20"), repr(_p)
assert parse_price(" 0.10") + parse_price("0.20") == _decimal.Decimal("0.30")
assert _invs[1].subtotal == _decimal.Decimal("1.60"), repr(_invs[1].subtotal)
assert _invs[0].total() == _decimal.Decimal("1515.00"), repr(_invs[0].total())
assert totals_by_customer(_invs) == {"Acme Ltd": _decimal.Decimal("1744.32"), "Bell & Co": _decimal.Decimal("1.92")}, \
    totals_by_customer(_invs)
'''),
    _task("invoice-totals-iterable", "invoices.py", INVOICES,
          "add type hints to totals_by_customer: it accepts any iterable of Invoice and returns a dict "
          "from customer name to their total as a float",
          _HINTS + _INVOICES_OTHERS + r'''
_check_hints(totals_by_customer, {"invoices": _typing.Iterable[Invoice], "return": _typing.Dict[str, float]})
_totals = totals_by_customer(iter(_invs))
assert list(_totals) == ["Acme Ltd", "Bell & Co"] and abs(_totals["Acme Ltd"] - 1744.32) < 1e-6, _totals
assert abs(_totals["Bell & Co"] - 1.92) < 1e-9, _totals
'''),
    _task("settings-any", "appconfig.py", APPCONFIG,
          "add type hints to parse_settings: it takes the file's text as a str and returns a dict "
          "mapping each setting name to its value, which can be of any type",
          _HINTS + _APPCONFIG_OTHERS + _APPCONFIG_PARSED + r'''
_check_hints(parse_settings, {"text": str, "return": _typing.Dict[str, _typing.Any]})
import os as _os
_os.makedirs("proj/sub", exist_ok=True)
with open("proj/appconfig.ini", "w", encoding="utf-8") as _fh:
    _fh.write("port = 9000\n")
assert find_config("proj/sub") == _os.path.abspath("proj/appconfig.ini")
assert load_config("proj/sub", environ={})["port"] == 9000
'''),
    _task("find-config-pathlib", "appconfig.py", APPCONFIG,
          "make find_config work with pathlib: accept a str or a Path as the start directory and "
          "return a Path (still None when there is no config file)",
          _APPCONFIG_OTHERS + _APPCONFIG_PARSED + r'''
import pathlib as _pathlib
_root = _pathlib.Path("proj").resolve()
(_root / "a" / "b").mkdir(parents=True)
(_root / "appconfig.ini").write_text("port = 9000\n[db]\nurl = sqlite:///x.db\n", encoding="utf-8")
_found = find_config(_root / "a" / "b")
assert isinstance(_found, _pathlib.PurePath), repr(_found)
assert _pathlib.Path(_found).resolve() == _root / "appconfig.ini", _found
_found = find_config(str(_root / "a"))
assert isinstance(_found, _pathlib.PurePath) and _pathlib.Path(_found).resolve() == _root / "appconfig.ini", _found
assert find_config(_root / "a", name="no-such-config-7e1d.ini") is None
assert find_config(str(_root), name="no-such-config-7e1d.ini") is None
assert load_config(_root / "a" / "b", environ={})["port"] == 9000
assert load_config(str(_root), environ={"APP_DEBUG": "on"})["db.url"] == "sqlite:///x.db"
'''),
    _task("word-frequencies-counter", "wordstats.py", WORDSTATS,
          "make word_frequencies return a Counter so callers can use most_common() on it",
          _WORDSTATS_TEXT + _WORDSTATS_OTHERS + r'''
_f = word_frequencies("b a b c b a")
assert _f.most_common(2) == [("b", 3), ("a", 2)], _f
assert _f == {"b": 3, "a": 2, "c": 1} and _f["zebra"] == 0
_f = word_frequencies(_TEXT, skip_stopwords=True)
assert _f.most_common(1) == [("whale", 3)] and "the" not in _f, _f
assert word_frequencies("").most_common() == []
'''),
    _task("cache-syllables", "wordstats.py", WORDSTATS,
          "count_syllables gets called for the same words over and over; cache its results",
          _WORDSTATS_TEXT + _WORDSTATS_OTHERS + r'''
_calls = []
_real_vowel_groups = _vowel_groups


def _counting_vowel_groups(word):
    _calls.append(word)
    return _real_vowel_groups(word)


_vowel_groups = _counting_vowel_groups
assert count_syllables("hippopotamus") == 5
assert count_syllables("hippopotamus") == 5
assert count_syllables("hippopotamus") == 5
assert _calls.count("hippopotamus") <= 1, f"count_syllables recomputed: {_calls}"
assert count_syllables("candle") == 2 and count_syllables("candle") == 2
assert _calls.count("candle") <= 1, _calls
'''),
    _task("scheduler-on-callable", "reminders.py", REMINDERS,
          "add type hints to Scheduler.on: event is a str, handler is a function that takes a Job and "
          "returns nothing, and on itself returns nothing",
          _HINTS + _REMINDERS_OTHERS + r'''
_check_hints(Scheduler.on, {"event": str, "handler": _typing.Callable[[Job], None], "return": None},
             may_omit_return=True)
try:
    _s.on("finish", print)
except ValueError:
    pass
else:
    raise AssertionError("on() accepted an unknown event")
'''),
    _task("repeat-seconds", "reminders.py", REMINDERS,
          "let a job's repeat be given as a number of seconds as well as a timedelta",
          _REMINDERS_OTHERS + r'''
_r = Scheduler()
_j = _r.add("stretch", _t0, repeat=90)
assert _j.next_due() == _t0 + _dt.timedelta(seconds=90), _j.next_due()
assert _r.run_pending(_t0 + _dt.timedelta(seconds=100)) == ["stretch", "stretch"]
assert _j.due == _t0 + _dt.timedelta(seconds=180) and _j.runs == 2, _j.due
_k = Job("blink", _t0, repeat=1.5)
assert _k.next_due() == _t0 + _dt.timedelta(seconds=1.5), _k.next_due()
assert Job("hourly", _t0, repeat=_dt.timedelta(hours=1)).next_due() == _t0 + _dt.timedelta(hours=1)
for _bad in (0, -5, _dt.timedelta(0)):
    try:
        Job("bad", _t0, repeat=_bad)
    except ValueError:
        pass
    else:
        raise AssertionError(f"repeat={_bad!r} was accepted")
'''),
]
