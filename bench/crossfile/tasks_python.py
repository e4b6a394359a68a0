"""The Python cross-file tasks: small projects whose one edit needs what another file defines.

Each task: id, files {path: text}, target, instruction, test (a script run from the project's
root in a copy of the edited project; exit 0 is a pass), and `edit`: the (old, new) replacements
in the target that make the reference solution (bench/crossfile/build.py turns them into the
`solution` text and checks that each old text occurs exactly once).
"""

from __future__ import annotations

TASKS: list[dict] = []


def task(**fields) -> None:
    fields.setdefault("lang", "python")
    TASKS.append(fields)


# ---------------------------------------------------------------- a helper's output format

task(
    id="py-money-label",
    files={
        "shop/utils/money.py": '''"""Money helpers: every price the shop shows goes through here."""

from decimal import Decimal, ROUND_HALF_UP


def format_price(cents: int, currency: str = "EUR") -> str:
    """Format an amount in cents the way our shop shows prices: '1.234,50 €'."""
    amount = (Decimal(cents) / 100).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    whole, frac = f"{amount:,.2f}".split(".")
    symbol = {"EUR": "€", "GBP": "£", "CHF": "CHF"}.get(currency, currency)
    return f"{whole.replace(',', '.')},{frac} {symbol}"
''',
        "shop/models.py": '''"""Catalog models."""

from dataclasses import dataclass


@dataclass
class Product:
    sku: str
    name: str
    price_cents: int
    currency: str = "EUR"

    def is_free(self) -> bool:
        return self.price_cents == 0
''',
    },
    target="shop/models.py",
    instruction="add a label() method to Product that returns '<name> - <price>', with the price formatted "
                "by our money helper in the product's currency",
    edit=[('from dataclasses import dataclass\n',
           'from dataclasses import dataclass\n\nfrom shop.utils.money import format_price\n'),
          ('        return self.price_cents == 0\n',
           '        return self.price_cents == 0\n\n    def label(self) -> str:\n'
           '        return f"{self.name} - {format_price(self.price_cents, self.currency)}"\n')],
    test='''from shop.models import Product
from shop.utils.money import format_price

p = Product("T-1", "Green tea", 123450)
assert p.label() == "Green tea - " + format_price(123450), p.label()
q = Product("T-2", "Mug", 899, "GBP")
assert q.label() == "Mug - " + format_price(899, "GBP"), q.label()
''',
)

# ---------------------------------------------------------------- the project's error class

task(
    id="py-stock-out-of-stock",
    files={
        "inventory/errors.py": '''"""Errors the inventory raises; the API maps each to a status code."""


class InventoryError(Exception):
    """Base class of every inventory error."""


class UnknownSku(InventoryError):
    def __init__(self, sku: str):
        super().__init__(f"unknown SKU {sku}")
        self.sku = sku


class OutOfStock(InventoryError):
    """Raised when an order asks for more units than are on hand."""

    def __init__(self, sku: str, wanted: int, available: int):
        super().__init__(f"{sku}: wanted {wanted}, only {available} left")
        self.sku = sku
        self.wanted = wanted
        self.available = available
''',
        "inventory/stock.py": '''"""Units on hand per SKU."""

from inventory.errors import UnknownSku


class Stock:
    def __init__(self):
        self.counts: dict[str, int] = {}

    def add(self, sku: str, qty: int) -> None:
        self.counts[sku] = self.counts.get(sku, 0) + qty

    def remove(self, sku: str, qty: int) -> None:
        if sku not in self.counts:
            raise UnknownSku(sku)
        self.counts[sku] -= qty
''',
    },
    target="inventory/stock.py",
    instruction="remove() lets the count go negative. If we don't have enough units, raise the project's "
                "out-of-stock error instead and leave the count alone",
    edit=[("from inventory.errors import UnknownSku\n", "from inventory.errors import OutOfStock, UnknownSku\n"),
          ("            raise UnknownSku(sku)\n        self.counts[sku] -= qty\n",
           "            raise UnknownSku(sku)\n        if qty > self.counts[sku]:\n"
           "            raise OutOfStock(sku, qty, self.counts[sku])\n        self.counts[sku] -= qty\n")],
    test='''from inventory.errors import OutOfStock
from inventory.stock import Stock

s = Stock()
s.add("A1", 3)
try:
    s.remove("A1", 5)
except OutOfStock as e:
    assert (e.sku, e.wanted, e.available) == ("A1", 5, 3), vars(e)
else:
    raise SystemExit("no OutOfStock")
assert s.counts["A1"] == 3, s.counts
s.remove("A1", 3)
assert s.counts["A1"] == 0
''',
)

# ---------------------------------------------------------------- a config value

task(
    id="py-paginate-page-size",
    files={
        "app/settings.py": '''"""Settings shared by the web views and the CLI."""

DEBUG = False
DATABASE_URL = "sqlite:///app.db"
# How many rows a list view shows per page.
PAGE_SIZE = 15
MAX_PAGE = 200
''',
        "app/queries.py": '''"""Query helpers for the list views."""


def paginate(rows, page: int):
    """The rows of page `page` (0-based)."""
    start = page * 10
    return list(rows[start:start + 10])


def page_count(rows) -> int:
    return (len(rows) + 9) // 10
''',
    },
    target="app/queries.py",
    instruction="stop hard-coding 10 rows a page in paginate and page_count; use the page size from settings",
    edit=[('"""Query helpers for the list views."""\n',
           '"""Query helpers for the list views."""\n\nfrom app.settings import PAGE_SIZE\n'),
          ("    start = page * 10\n    return list(rows[start:start + 10])\n",
           "    start = page * PAGE_SIZE\n    return list(rows[start:start + PAGE_SIZE])\n"),
          ("    return (len(rows) + 9) // 10\n", "    return (len(rows) + PAGE_SIZE - 1) // PAGE_SIZE\n")],
    test='''from app.queries import page_count, paginate

rows = list(range(100))
assert paginate(rows, 0) == list(range(15)), paginate(rows, 0)
assert paginate(rows, 2) == list(range(30, 45))
assert page_count(rows) == 7, page_count(rows)
assert page_count(list(range(15))) == 1
''',
)

# ---------------------------------------------------------------- an enum member

task(
    id="py-task-close-enum",
    files={
        "tracker/status.py": '''"""The states a task moves through."""

from enum import Enum


class Status(Enum):
    OPEN = "open"
    IN_PROGRESS = "in-progress"
    BLOCKED = "blocked"
    DONE = "done"
''',
        "tracker/tasks.py": '''"""Tasks on the board."""

from dataclasses import dataclass, field
from datetime import datetime

from tracker.status import Status


@dataclass
class Task:
    title: str
    status: Status = Status.OPEN
    closed_at: datetime | None = None
    tags: list[str] = field(default_factory=list)

    def start(self) -> None:
        self.status = Status.IN_PROGRESS

    def close(self) -> None:
        self.status = "closed"
        self.closed_at = datetime.now()
''',
    },
    target="tracker/tasks.py",
    instruction="close() sets a string that isn't one of our statuses, fix it",
    edit=[('        self.status = "closed"\n', "        self.status = Status.DONE\n")],
    test='''from tracker.status import Status
from tracker.tasks import Task

t = Task("write docs")
t.start()
t.close()
assert t.status is Status.DONE, t.status
assert t.closed_at is not None
''',
)

# ---------------------------------------------------------------- a model's method

task(
    id="py-invoice-summary-total",
    files={
        "billing/models.py": '''"""Invoices and their lines."""

from dataclasses import dataclass, field
from decimal import Decimal

VAT = Decimal("0.21")


@dataclass
class Line:
    description: str
    amount: Decimal
    taxable: bool = True


@dataclass
class Invoice:
    number: str
    lines: list[Line] = field(default_factory=list)

    def total(self) -> Decimal:
        """What the customer pays: the lines plus VAT on the taxable ones, to the cent."""
        net = sum((l.amount for l in self.lines), Decimal(0))
        tax = sum((l.amount * VAT for l in self.lines if l.taxable), Decimal(0))
        return (net + tax).quantize(Decimal("0.01"))
''',
        "billing/report.py": '''"""Monthly billing report."""

from decimal import Decimal


def revenue(invoices) -> Decimal:
    """Everything billed this month."""
    total = Decimal(0)
    for inv in invoices:
        for line in inv.lines:
            total += line.amount
    return total
''',
    },
    target="billing/report.py",
    instruction="revenue() ignores VAT. Sum what each invoice actually bills (the invoice model already "
                "knows how to compute that)",
    edit=[("    for inv in invoices:\n        for line in inv.lines:\n            total += line.amount\n",
           "    for inv in invoices:\n        total += inv.total()\n")],
    test='''from decimal import Decimal
from billing.models import Invoice, Line
from billing.report import revenue

a = Invoice("A", [Line("work", Decimal("100.00")), Line("stamp", Decimal("1.00"), taxable=False)])
b = Invoice("B", [Line("parts", Decimal("10.05"))])
assert revenue([a, b]) == a.total() + b.total(), revenue([a, b])
assert revenue([]) == 0
''',
)

# ---------------------------------------------------------------- a keyword-only argument

task(
    id="py-fetch-retries",
    files={
        "net/retry.py": '''"""Retrying flaky calls."""

import time


def with_retries(fn, *args, attempts: int = 3, backoff: float = 0.5, **kwargs):
    """Call fn(*args, **kwargs) up to `attempts` times, sleeping `backoff` seconds (doubling) between
    tries; the last error is raised if every try fails."""
    delay = backoff
    for i in range(attempts):
        try:
            return fn(*args, **kwargs)
        except ConnectionError:
            if i == attempts - 1:
                raise
            time.sleep(delay)
            delay *= 2
''',
        "net/client.py": '''"""A small HTTP client for the catalog service."""

import json
import urllib.request


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return resp.read()


def fetch_json(url: str):
    """GET url and decode its JSON body."""
    body = _get(url)
    return json.loads(body)
''',
    },
    target="net/client.py",
    instruction="the catalog service drops connections now and then; make fetch_json retry the GET with our "
                "retry helper, 5 attempts and no backoff",
    edit=[("import urllib.request\n", "import urllib.request\n\nfrom net.retry import with_retries\n"),
          ("    body = _get(url)\n", "    body = with_retries(_get, url, attempts=5, backoff=0)\n")],
    test='''import time
import net.client as client

calls = []


def flaky(url):
    calls.append(url)
    if len(calls) < 5:
        raise ConnectionError("reset")
    return b'{"ok": true}'


client._get = flaky
t0 = time.monotonic()
assert client.fetch_json("http://x/items") == {"ok": True}
assert calls == ["http://x/items"] * 5, calls
assert time.monotonic() - t0 < 0.5, "backoff should be off"
calls.clear()
client._get = lambda url: (calls.append(url), (_ for _ in ()).throw(ConnectionError("down")))[1]
try:
    client.fetch_json("http://x/y")
except ConnectionError:
    pass
else:
    raise SystemExit("the last error should be raised")
assert len(calls) == 5, calls
''',
)

# ---------------------------------------------------------------- an audit wrapper

task(
    id="py-delete-user-audit",
    files={
        "svc/audit.py": '''"""The audit trail: who did what, kept for compliance."""

from datetime import datetime, timezone

AUDIT_LOG: list[dict] = []


def audit(event: str, *, actor: str, **details) -> None:
    """Record one audit entry. `event` is dotted ('user.created'); `actor` is who did it."""
    AUDIT_LOG.append({"event": event, "actor": actor, "at": datetime.now(timezone.utc), **details})
''',
        "svc/users.py": '''"""User administration."""


class UserStore:
    def __init__(self):
        self.users: dict[int, dict] = {}

    def add(self, user_id: int, email: str) -> None:
        self.users[user_id] = {"id": user_id, "email": email}


def delete_user(store: UserStore, user_id: int, actor: str) -> None:
    """Remove a user; `actor` is the admin doing it."""
    del store.users[user_id]
''',
    },
    target="svc/users.py",
    instruction="deleting a user has to leave an entry in the audit trail: event 'user.deleted', the admin "
                "as actor, and the user_id",
    edit=[('"""User administration."""\n', '"""User administration."""\n\nfrom svc.audit import audit\n'),
          ("    del store.users[user_id]\n",
           '    del store.users[user_id]\n    audit("user.deleted", actor=actor, user_id=user_id)\n')],
    test='''from svc.audit import AUDIT_LOG
from svc.users import UserStore, delete_user

s = UserStore()
s.add(7, "a@example.com")
delete_user(s, 7, "root")
assert 7 not in s.users
assert len(AUDIT_LOG) == 1, AUDIT_LOG
e = AUDIT_LOG[0]
assert e["event"] == "user.deleted" and e["actor"] == "root" and e["user_id"] == 7, e
''',
)

# ---------------------------------------------------------------- match a format function

task(
    id="py-export-human-date",
    files={
        "report/dates.py": '''"""How dates are written everywhere a person reads them."""

from datetime import date

_MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


def human_date(d: date) -> str:
    """'3 Mar 2024': day without a leading zero, short month, full year."""
    return f"{d.day} {_MONTHS[d.month - 1]} {d.year}"


def iso_week(d: date) -> str:
    year, week, _ = d.isocalendar()
    return f"{year}-W{week:02d}"
''',
        "report/export.py": '''"""Plain-text export of the changelog."""


def entry_line(entry) -> str:
    """One changelog entry: title and date."""
    return f"- {entry.title} ({entry.when.isoformat()})"


def export(entries) -> str:
    return "\\n".join(entry_line(e) for e in entries)
''',
    },
    target="report/export.py",
    instruction="the export shows ISO dates; write them the way the rest of the app shows dates to people",
    edit=[('"""Plain-text export of the changelog."""\n',
           '"""Plain-text export of the changelog."""\n\nfrom report.dates import human_date\n'),
          ('({entry.when.isoformat()})', '({human_date(entry.when)})')],
    test='''from datetime import date
from types import SimpleNamespace
from report.export import export

e = [SimpleNamespace(title="Fast start", when=date(2024, 3, 3)),
     SimpleNamespace(title="Dark theme", when=date(2023, 11, 21))]
assert export(e) == "- Fast start (3 Mar 2024)\\n- Dark theme (21 Nov 2023)", export(e)
''',
)

# ---------------------------------------------------------------- an error with arguments

task(
    id="py-api-error-404",
    files={
        "api/errors.py": '''"""Errors a handler raises; the server turns each into a JSON response."""


class ApiError(Exception):
    """An error with an HTTP status. Raise ApiError(status, message)."""

    def __init__(self, status: int, message: str, *, code: str | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code or {400: "bad_request", 404: "not_found", 409: "conflict"}.get(status, "error")
''',
        "api/handlers.py": '''"""Request handlers for /users."""


def get_user(users: dict, user_id: int) -> dict:
    """GET /users/<id>."""
    user = users.get(user_id)
    return user


def list_users(users: dict) -> list[dict]:
    return sorted(users.values(), key=lambda u: u["id"])
''',
    },
    target="api/handlers.py",
    instruction="get_user returns None for a missing user; raise our API error with a 404 instead",
    edit=[('"""Request handlers for /users."""\n',
           '"""Request handlers for /users."""\n\nfrom api.errors import ApiError\n'),
          ("    user = users.get(user_id)\n    return user\n",
           '    user = users.get(user_id)\n    if user is None:\n'
           '        raise ApiError(404, f"no user {user_id}")\n    return user\n')],
    test='''from api.errors import ApiError
from api.handlers import get_user

users = {1: {"id": 1, "name": "Ann"}}
assert get_user(users, 1)["name"] == "Ann"
try:
    get_user(users, 2)
except ApiError as e:
    assert e.status == 404 and e.code == "not_found", vars(e)
    assert isinstance(e.message, str) and e.message
else:
    raise SystemExit("no ApiError")
''',
)

# ---------------------------------------------------------------- a limit in config

task(
    id="py-upload-limit",
    files={
        "files/limits.py": '''"""Limits on what users may upload."""

# Bigger files are refused before they are read.
MAX_UPLOAD_BYTES = 3 * 1024 * 1024
ALLOWED_TYPES = {"image/png", "image/jpeg", "application/pdf"}
''',
        "files/upload.py": '''"""Accepting an upload."""


class UploadRejected(ValueError):
    pass


def accept(name: str, content_type: str, size: int) -> dict:
    """Check an upload's metadata and return the record we store."""
    if not name:
        raise UploadRejected("a file needs a name")
    return {"name": name, "type": content_type, "size": size}
''',
    },
    target="files/upload.py",
    instruction="accept() should reject files over the size limit and types we don't allow, both as "
                "UploadRejected; the limits are already defined",
    edit=[('"""Accepting an upload."""\n',
           '"""Accepting an upload."""\n\nfrom files.limits import ALLOWED_TYPES, MAX_UPLOAD_BYTES\n'),
          ('        raise UploadRejected("a file needs a name")\n',
           '        raise UploadRejected("a file needs a name")\n    if size > MAX_UPLOAD_BYTES:\n'
           '        raise UploadRejected("too big")\n    if content_type not in ALLOWED_TYPES:\n'
           '        raise UploadRejected("type not allowed")\n')],
    test='''from files.upload import UploadRejected, accept

MB = 1024 * 1024
assert accept("a.png", "image/png", 3 * MB)["size"] == 3 * MB
for args in [("a.png", "image/png", 3 * MB + 1), ("a.gif", "image/gif", 10), ("b.txt", "text/plain", 1)]:
    try:
        accept(*args)
    except UploadRejected:
        pass
    else:
        raise SystemExit(f"accepted {args}")
assert accept("d.pdf", "application/pdf", 5)["type"] == "application/pdf"
''',
)

# ---------------------------------------------------------------- a model's constructor

task(
    id="py-load-users-from-row",
    files={
        "people/models.py": '''"""The User model."""

from dataclasses import dataclass


@dataclass(frozen=True)
class User:
    id: int
    email: str
    name: str
    active: bool = True

    @classmethod
    def from_row(cls, row: tuple) -> "User":
        """Build a User from a `users` table row: (id, name, email, active_flag) with the flag 0/1."""
        uid, name, email, flag = row
        return cls(id=uid, email=email.lower(), name=name, active=bool(flag))
''',
        "people/repo.py": '''"""Reading users from the database."""


def load_users(cursor) -> list:
    """Every user in the users table."""
    rows = cursor.execute("SELECT id, name, email, active FROM users").fetchall()
    return [{"id": r[0], "name": r[1], "email": r[2]} for r in rows]
''',
    },
    target="people/repo.py",
    instruction="load_users should return User objects, not dicts; build them with the model's own row "
                "constructor",
    edit=[('"""Reading users from the database."""\n',
           '"""Reading users from the database."""\n\nfrom people.models import User\n'),
          ('    return [{"id": r[0], "name": r[1], "email": r[2]} for r in rows]\n',
           "    return [User.from_row(r) for r in rows]\n")],
    test='''import sqlite3
from people.models import User
from people.repo import load_users

db = sqlite3.connect(":memory:")
db.execute("CREATE TABLE users (id INTEGER, name TEXT, email TEXT, active INTEGER)")
db.executemany("INSERT INTO users VALUES (?, ?, ?, ?)", [(1, "Ann", "Ann@X.org", 1), (2, "Bo", "bo@y.org", 0)])
users = load_users(db.cursor())
assert users == [User(1, "ann@x.org", "Ann", True), User(2, "bo@y.org", "Bo", False)], users
''',
)

# ---------------------------------------------------------------- a str enum returned

task(
    id="py-order-state-enum",
    files={
        "orders/states.py": '''"""Order states as the API module reports them."""

from enum import Enum


class OrderState(str, Enum):
    PENDING = "pending"
    PAID = "paid"
    SHIPPED = "shipped"
    CANCELLED = "cancelled"
''',
        "orders/service.py": '''"""Order lifecycle."""


def state_of(order: dict) -> str:
    """The state of an order record."""
    if order.get("cancelled_at"):
        return "cancelled"
    if order.get("shipped_at"):
        return "shipped"
    if order.get("paid_at"):
        return "paid"
    return "pending"
''',
    },
    target="orders/service.py",
    instruction="have state_of return the order state enum instead of bare strings",
    edit=[('"""Order lifecycle."""\n', '"""Order lifecycle."""\n\nfrom orders.states import OrderState\n'),
          ('def state_of(order: dict) -> str:', 'def state_of(order: dict) -> OrderState:'),
          ('        return "cancelled"\n', "        return OrderState.CANCELLED\n"),
          ('        return "shipped"\n', "        return OrderState.SHIPPED\n"),
          ('        return "paid"\n', "        return OrderState.PAID\n"),
          ('    return "pending"\n', "    return OrderState.PENDING\n")],
    test='''from orders.service import state_of
from orders.states import OrderState

assert state_of({}) is OrderState.PENDING
assert state_of({"paid_at": 1}) is OrderState.PAID
assert state_of({"paid_at": 1, "shipped_at": 2}) is OrderState.SHIPPED
assert state_of({"paid_at": 1, "cancelled_at": 3}) is OrderState.CANCELLED
''',
)

# ---------------------------------------------------------------- argument order of a helper

task(
    id="py-nearest-store",
    files={
        "geo/distance.py": '''"""Great-circle distances."""

from math import asin, cos, radians, sin, sqrt

EARTH_RADIUS_KM = 6371.0


def distance_km(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    """Distance between two points given as (longitude, latitude) in degrees, in km."""
    lon1, lat1, lon2, lat2 = map(radians, (lon1, lat1, lon2, lat2))
    a = sin((lat2 - lat1) / 2) ** 2 + cos(lat1) * cos(lat2) * sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_KM * asin(sqrt(a))
''',
        "geo/stores.py": '''"""Store finder."""

from dataclasses import dataclass


@dataclass
class Store:
    name: str
    lat: float
    lon: float


def nearest(stores: list[Store], lat: float, lon: float) -> Store:
    """The store closest to (lat, lon)."""
    return stores[0]
''',
    },
    target="geo/stores.py",
    instruction="nearest() just returns the first store; make it pick the closest one using the distance "
                "function we already have",
    edit=[("from dataclasses import dataclass\n",
           "from dataclasses import dataclass\n\nfrom geo.distance import distance_km\n"),
          ("    return stores[0]\n", "    return min(stores, key=lambda s: distance_km(s.lon, s.lat, lon, lat))\n")],
    test='''from geo.stores import Store, nearest

stores = [Store("Oslo", 59.91, 10.75), Store("Lagos", 6.52, 3.38), Store("Bergen", 60.39, 5.32),
          Store("Tromso", 69.65, 18.96), Store("Murmansk", 68.97, 33.09)]
assert nearest(stores, 6.0, 3.0).name == "Lagos"
assert nearest(stores, 60.0, 6.0).name == "Bergen"
assert nearest(stores, 70.0, 24.0).name == "Tromso"
# With latitude and longitude swapped this point looks nearer to Tromso.
assert nearest(stores, 65.0, 25.0).name == "Murmansk"
''',
)

# ---------------------------------------------------------------- a dataclass's fields

task(
    id="py-weekly-pay",
    files={
        "hr/models.py": '''"""People on the payroll."""

from dataclasses import dataclass


@dataclass
class Employee:
    full_name: str
    hourly_rate_cents: int
    overtime_multiplier: float = 1.5
    contract_hours: int = 38
''',
        "hr/payroll.py": '''"""Weekly payroll."""


def weekly_pay(employee, hours: float) -> int:
    """Gross pay for a week, in cents."""
    raise NotImplementedError
''',
    },
    target="hr/payroll.py",
    instruction="implement weekly_pay: hours up to the employee's contract hours at their rate, the rest "
                "at their overtime multiplier, rounded to whole cents",
    edit=[("    raise NotImplementedError\n",
           "    normal = min(hours, employee.contract_hours)\n    extra = max(0.0, hours - employee.contract_hours)\n"
           "    return round(employee.hourly_rate_cents * (normal + extra * employee.overtime_multiplier))\n")],
    test='''from hr.models import Employee
from hr.payroll import weekly_pay

e = Employee("Ann Lee", 2000)
assert weekly_pay(e, 30) == 60000, weekly_pay(e, 30)
assert weekly_pay(e, 40) == 38 * 2000 + 2 * 3000, weekly_pay(e, 40)
f = Employee("Bo", 1000, overtime_multiplier=2.0, contract_hours=20)
assert weekly_pay(f, 25) == 20000 + 10000, weekly_pay(f, 25)
''',
)

# ---------------------------------------------------------------- a translation helper

task(
    id="py-cart-empty-message",
    files={
        "i18n.py": '''"""User-facing text, looked up by key so it can be translated."""

MESSAGES = {
    "cart.empty": "Your basket is empty - have a look at today's offers.",
    "cart.items": "{count} item(s) in your basket",
    "cart.total": "Total: {total}",
}


def t(key: str, **params) -> str:
    """The message for `key`, with {params} filled in."""
    return MESSAGES[key].format(**params)
''',
        "cart.py": '''"""The shopping cart's summary line."""


def summary(items: list[dict]) -> str:
    if not items:
        return "Cart is empty"
    count = sum(i["qty"] for i in items)
    return f"{count} items in cart"
''',
    },
    target="cart.py",
    instruction="summary has hard-coded English; use the translation helper for both messages (the keys "
                "are in the catalog)",
    edit=[('"""The shopping cart\'s summary line."""\n',
           '"""The shopping cart\'s summary line."""\n\nfrom i18n import t\n'),
          ('        return "Cart is empty"\n', '        return t("cart.empty")\n'),
          ('    return f"{count} items in cart"\n', '    return t("cart.items", count=count)\n')],
    test='''from cart import summary

assert summary([]) == "Your basket is empty - have a look at today's offers.", summary([])
assert summary([{"qty": 2}, {"qty": 1}]) == "3 item(s) in your basket", summary([{"qty": 2}, {"qty": 1}])
''',
)

# ---------------------------------------------------------------- the project's logger

task(
    id="py-sync-logger",
    files={
        "core/log.py": '''"""Logging for the app: one place decides names, levels and where records go."""

import logging

RECORDS: list[logging.LogRecord] = []


class _Keep(logging.Handler):
    def emit(self, record):
        RECORDS.append(record)


_root = logging.getLogger("ledger")
_root.setLevel(logging.INFO)
_root.addHandler(_Keep())


def get_logger(component: str) -> logging.Logger:
    """The logger for one component: 'ledger.<component>'."""
    return logging.getLogger(f"ledger.{component}")
''',
        "core/sync.py": '''"""Syncing entries to the remote ledger."""


def sync(entries, push) -> int:
    """Push every valid entry; return how many went."""
    sent = 0
    for entry in entries:
        if entry.get("amount") is None:
            print("skipping entry without amount:", entry.get("id"))
            continue
        push(entry)
        sent += 1
    return sent
''',
    },
    target="core/sync.py",
    instruction="replace the print in sync with a warning through the project's logger for this component",
    edit=[('"""Syncing entries to the remote ledger."""\n',
           '"""Syncing entries to the remote ledger."""\n\nfrom core.log import get_logger\n\n'
           'log = get_logger("sync")\n'),
          ('            print("skipping entry without amount:", entry.get("id"))\n',
           '            log.warning("skipping entry without amount: %s", entry.get("id"))\n')],
    test='''import contextlib
import io
import logging
from core.log import RECORDS
from core.sync import sync

out = io.StringIO()
pushed = []
with contextlib.redirect_stdout(out):
    n = sync([{"id": "e1", "amount": 5}, {"id": "e2"}], pushed.append)
assert n == 1 and len(pushed) == 1
assert out.getvalue() == "", "still prints: " + out.getvalue()
warn = [r for r in RECORDS if r.levelno == logging.WARNING]
assert len(warn) == 1, RECORDS
assert warn[0].name.startswith("ledger."), warn[0].name
assert "e2" in warn[0].getMessage(), warn[0].getMessage()
''',
)

# ---------------------------------------------------------------- a validator's contract

task(
    id="py-signup-email-validator",
    files={
        "forms/validators.py": '''"""Field validators. Each returns an error message, or None when the value is fine."""

import re

_EMAIL = re.compile(r"^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$", re.I)


def check_email(value: str) -> str | None:
    if not value:
        return "Email is required."
    if not _EMAIL.match(value):
        return "That doesn't look like an email address."
    return None


def check_password(value: str) -> str | None:
    if len(value or "") < 10:
        return "Use at least 10 characters."
    return None
''',
        "forms/signup.py": '''"""The signup form."""


def validate(form: dict) -> dict[str, str]:
    """Field name -> error message for every invalid field (empty when the form is fine)."""
    errors = {}
    if not form.get("name", "").strip():
        errors["name"] = "Name is required."
    return errors
''',
    },
    target="forms/signup.py",
    instruction="validate should also check the email and password fields with the validators we already "
                "have, putting their messages under 'email' and 'password'",
    edit=[('"""The signup form."""\n', '"""The signup form."""\n\nfrom forms.validators import check_email, '
           'check_password\n'),
          ('        errors["name"] = "Name is required."\n',
           '        errors["name"] = "Name is required."\n    for field, check in (("email", check_email), '
           '("password", check_password)):\n        message = check(form.get(field, ""))\n'
           '        if message:\n            errors[field] = message\n')],
    test='''from forms.signup import validate

ok = {"name": "Ann", "email": "ann@example.org", "password": "correct horse"}
assert validate(ok) == {}, validate(ok)
bad = {"name": "Ann", "email": "ann@example", "password": "short"}
assert validate(bad) == {"email": "That doesn't look like an email address.",
                         "password": "Use at least 10 characters."}, validate(bad)
assert validate({"name": ""}) == {"name": "Name is required.", "email": "Email is required.",
                                  "password": "Use at least 10 characters."}, validate({"name": ""})
''',
)
