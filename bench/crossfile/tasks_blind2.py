"""The second blind cross-file set: written without knowledge of how the tool chooses context from
other files. Same fields as tasks_fresh.py; `python -m bench crossfile --write` turns them into
blind2.jsonl.
"""

from __future__ import annotations

from bench.crossfile.authoring import ESM_PACKAGE, collector

TASKS: list[dict] = []
py, js = collector(TASKS)


# ================================================================ Python

# ---------------------------------------------------------------- i18n: one function of several (plural forms)

py(
    id="py-b2-inbox-unread-plural",
    files={
        "app/i18n.py": r'''"""Translations. Every user-visible string is looked up here by key; {name} placeholders are filled in.

Plural messages have one key per plural category of the language: 'unread.one', 'unread.other' in
English and German, 'unread.one', 'unread.few', 'unread.many' in Polish.
"""

DEFAULT_LOCALE = "en"

CATALOG = {
    "en": {
        "greeting": "Hello, {name}!",
        "inbox.empty": "Your inbox is empty",
        "unread.one": "You have {count} unread message",
        "unread.other": "You have {count} unread messages",
        "drafts.one": "{count} draft",
        "drafts.other": "{count} drafts",
    },
    "de": {
        "greeting": "Hallo, {name}!",
        "inbox.empty": "Dein Posteingang ist leer",
        "unread.one": "Du hast {count} ungelesene Nachricht",
        "unread.other": "Du hast {count} ungelesene Nachrichten",
        "drafts.one": "{count} Entwurf",
        "drafts.other": "{count} Entwürfe",
    },
    "pl": {
        "greeting": "Cześć, {name}!",
        "inbox.empty": "Twoja skrzynka jest pusta",
        "unread.one": "Masz {count} nieprzeczytaną wiadomość",
        "unread.few": "Masz {count} nieprzeczytane wiadomości",
        "unread.many": "Masz {count} nieprzeczytanych wiadomości",
        "drafts.one": "{count} szkic",
        "drafts.few": "{count} szkice",
        "drafts.many": "{count} szkiców",
    },
}


def plural_category(locale, n):
    """The CLDR plural category of the whole number n in `locale`."""
    if locale == "pl":
        if n == 1:
            return "one"
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return "few"
        return "many"
    return "one" if n == 1 else "other"


def gettext(key, locale=DEFAULT_LOCALE, **params):
    """The message `key` in `locale` (English when the locale or the key is missing), filled in."""
    messages = CATALOG.get(locale, CATALOG[DEFAULT_LOCALE])
    text = messages.get(key) or CATALOG[DEFAULT_LOCALE][key]
    return text.format(**params)


def ngettext(key, count, locale=DEFAULT_LOCALE, **params):
    """The right plural form of `key` for `count` ('<key>.<category>'), with {count} filled in as well."""
    if locale not in CATALOG:
        locale = DEFAULT_LOCALE
    return gettext(f"{key}.{plural_category(locale, count)}", locale, count=count, **params)


def language_name(locale):
    return {"en": "English", "de": "Deutsch", "pl": "Polski"}.get(locale, locale)
''',
        "app/inbox.py": r'''"""The header line of the inbox page."""

from app.i18n import gettext


def inbox_banner(user, unread):
    """user: has .name and .locale ('en', 'de', 'pl'...); unread: how many unread messages."""
    if unread == 0:
        return gettext("inbox.empty", user.locale)
    return f"You have {unread} unread messages"
''',
    },
    target="app/inbox.py",
    instruction="The unread-messages banner is still hard-coded English. Translate it into the user's locale "
                "like the empty-inbox message, with the right plural form for the count",
    edit=[("from app.i18n import gettext\n", "from app.i18n import gettext, ngettext\n"),
          ('    return f"You have {unread} unread messages"\n',
           '    return ngettext("unread", unread, user.locale)\n')],
    test=r'''from types import SimpleNamespace

from app.inbox import inbox_banner

pl = SimpleNamespace(name="Ola", locale="pl")
assert inbox_banner(pl, 1) == "Masz 1 nieprzeczytaną wiadomość", inbox_banner(pl, 1)
assert inbox_banner(pl, 3) == "Masz 3 nieprzeczytane wiadomości", inbox_banner(pl, 3)
assert inbox_banner(pl, 12) == "Masz 12 nieprzeczytanych wiadomości", inbox_banner(pl, 12)
assert inbox_banner(pl, 22) == "Masz 22 nieprzeczytane wiadomości", inbox_banner(pl, 22)
assert inbox_banner(pl, 0) == "Twoja skrzynka jest pusta"

de = SimpleNamespace(name="Jan", locale="de")
assert inbox_banner(de, 1) == "Du hast 1 ungelesene Nachricht", inbox_banner(de, 1)
assert inbox_banner(de, 7) == "Du hast 7 ungelesene Nachrichten", inbox_banner(de, 7)

en = SimpleNamespace(name="Ann", locale="en")
assert inbox_banner(en, 1) == "You have 1 unread message", inbox_banner(en, 1)
assert inbox_banner(en, 2) == "You have 2 unread messages"
fr = SimpleNamespace(name="Luc", locale="fr")
assert inbox_banner(fr, 5) == "You have 5 unread messages", inbox_banner(fr, 5)
''',
)

# ---------------------------------------------------------------- CLI: an exit-status enum and a reporting helper

py(
    id="py-b2-csvtool-missing-input-exit",
    files={
        "csvtool/exitcodes.py": r'''"""Exit statuses of our command-line tools (the BSD sysexits.h values), so the shell scripts that
call them can tell a typo in the arguments from a missing file from a bug."""

import sys
from enum import IntEnum


class Exit(IntEnum):
    OK = 0
    FAILURE = 1       # generic; prefer a specific status below
    USAGE = 64        # the command line was wrong
    DATAERR = 65      # the input was read but is malformed
    NOINPUT = 66      # an input file did not exist or could not be read
    SOFTWARE = 70     # a bug of ours
    CANTCREAT = 73    # an output file could not be created
    CONFIG = 78       # bad configuration


def fail(message, status, *, stream=None):
    """Report `message` the way all our tools do ('csvtool: <message>' on stderr, or on `stream`) and
    return `status` as a plain int, for main() to return."""
    print(f"csvtool: {message}", file=stream or sys.stderr)
    return int(status)


def warn(message):
    print(f"csvtool: warning: {message}", file=sys.stderr)
''',
        "csvtool/cli.py": r'''"""csvtool: count the rows of a CSV file, optionally only those where column=value."""

import argparse
import csv


def main(argv=None):
    parser = argparse.ArgumentParser(prog="csvtool")
    parser.add_argument("path")
    parser.add_argument("--where", help="column=value")
    args = parser.parse_args(argv)
    try:
        handle = open(args.path, newline="", encoding="utf-8")
    except OSError as exc:
        print(f"error: {exc}")
        return 1
    with handle:
        rows = list(csv.DictReader(handle))
    if args.where:
        column, _, value = args.where.partition("=")
        rows = [r for r in rows if r.get(column) == value]
    print(len(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
''',
    },
    target="csvtool/cli.py",
    instruction="When the input file can't be opened, csvtool prints to stdout and exits 1. Report it like our "
                "other tools do: message on stderr and the sysexits-style status for a missing input",
    edit=[("import argparse\nimport csv\n", "import argparse\nimport csv\n\nfrom csvtool.exitcodes import Exit, fail\n"),
          ('        print(f"error: {exc}")\n        return 1\n',
           '        return fail(f"cannot open {args.path}: {exc.strerror}", Exit.NOINPUT)\n')],
    test=r'''import contextlib
import io

from csvtool.cli import main

with open("people.csv", "w", encoding="utf-8", newline="") as f:
    f.write("name,city\nann,Oslo\nbob,Rome\ncid,Oslo\n")


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


code, out, err = run(["does-not-exist.csv"])
assert code == 66, code
assert out == "", out
assert err.startswith("csvtool: ") and "does-not-exist.csv" in err, err

code, out, err = run(["people.csv", "--where", "city=Oslo"])
assert (code, out, err) == (0, "2\n", ""), (code, out, err)
code, out, err = run(["people.csv"])
assert (code, out) == (0, "3\n"), (code, out)
''',
)

# ---------------------------------------------------------------- caching: a key helper, a TTL in settings, a unit

py(
    id="py-b2-profile-cache-ttl",
    files={
        "svc/settings.py": r'''"""Service settings; production overrides them from the environment at start-up."""

from datetime import timedelta

DATABASE_URL = "postgresql://localhost/app"
CACHE_KEY_VERSION = 3
PROFILE_CACHE_TTL = timedelta(minutes=15)
SESSION_TTL = timedelta(days=14)
AVATAR_MAX_BYTES = 2 * 1024 * 1024
''',
        "svc/cache.py": r'''"""An in-process cache with per-entry expiry, and the key scheme every cache user shares."""

import time

from svc import settings


def cache_key(namespace, *parts):
    """cache_key('profile', 42) -> 'v3:profile:42'. Bumping settings.CACHE_KEY_VERSION drops every key at once."""
    return ":".join([f"v{settings.CACHE_KEY_VERSION}", namespace, *map(str, parts)])


class TTLCache:
    def __init__(self, clock=time.monotonic):
        self._clock = clock
        self._entries = {}

    def get(self, key, default=None):
        entry = self._entries.get(key)
        if entry is None or entry[1] <= self._clock():
            self._entries.pop(key, None)
            return default
        return entry[0]

    def set(self, key, value, ttl):
        """Keep `value` under `key` for `ttl` seconds (an int or a float)."""
        self._entries[key] = (value, self._clock() + ttl)

    def delete(self, key):
        self._entries.pop(key, None)

    def clear(self):
        self._entries.clear()


# The process-wide cache everything shares.
cache = TTLCache()
''',
        "svc/profiles.py": r'''"""User profiles, loaded from the database."""


class ProfileService:
    def __init__(self, db):
        self.db = db

    def get_profile(self, user_id):
        row = self.db.fetch_one("SELECT id, name, avatar FROM profiles WHERE id = %s", (user_id,))
        if row is None:
            return None
        return {"id": row[0], "name": row[1], "avatar": row[2]}

    def rename(self, user_id, name):
        self.db.execute("UPDATE profiles SET name = %s WHERE id = %s", (name, user_id))
''',
    },
    target="svc/profiles.py",
    instruction="get_profile hits the database on every call. Cache found profiles in our shared cache under the "
                "'profile' namespace for as long as settings say, and drop the entry when a profile is renamed",
    edit=[('"""User profiles, loaded from the database."""\n',
           '"""User profiles, loaded from the database."""\n\nfrom svc import settings\n'
           'from svc.cache import cache, cache_key\n'),
          ('''        row = self.db.fetch_one("SELECT id, name, avatar FROM profiles WHERE id = %s", (user_id,))
        if row is None:
            return None
        return {"id": row[0], "name": row[1], "avatar": row[2]}
''', '''        key = cache_key("profile", user_id)
        cached = cache.get(key)
        if cached is not None:
            return cached
        row = self.db.fetch_one("SELECT id, name, avatar FROM profiles WHERE id = %s", (user_id,))
        if row is None:
            return None
        profile = {"id": row[0], "name": row[1], "avatar": row[2]}
        cache.set(key, profile, settings.PROFILE_CACHE_TTL.total_seconds())
        return profile
'''),
          ('        self.db.execute("UPDATE profiles SET name = %s WHERE id = %s", (name, user_id))\n',
           '        self.db.execute("UPDATE profiles SET name = %s WHERE id = %s", (name, user_id))\n'
           '        cache.delete(cache_key("profile", user_id))\n')],
    test=r'''from svc import cache as cache_module

now = [1000.0]
cache_module.cache._clock = lambda: now[0]

from svc.profiles import ProfileService  # noqa: E402


class DB:
    def __init__(self):
        self.rows = {7: [7, "Ann", "a.png"]}
        self.fetches = 0

    def fetch_one(self, sql, params):
        self.fetches += 1
        row = self.rows.get(params[0])
        return tuple(row) if row else None

    def execute(self, sql, params):
        name, user_id = params
        self.rows[user_id][1] = name


db = DB()
service = ProfileService(db)
ann = {"id": 7, "name": "Ann", "avatar": "a.png"}
assert service.get_profile(7) == ann and db.fetches == 1
assert service.get_profile(7) == ann and db.fetches == 1, db.fetches
assert cache_module.cache.get("v3:profile:7") == ann, cache_module.cache._entries
now[0] += 899
assert service.get_profile(7) == ann and db.fetches == 1, db.fetches
now[0] += 2
assert service.get_profile(7) == ann and db.fetches == 2, db.fetches
service.rename(7, "Anna")
assert service.get_profile(7)["name"] == "Anna" and db.fetches == 3, db.fetches
assert service.get_profile(8) is None
''',
)

# ---------------------------------------------------------------- permissions: a role table and an error with fields

py(
    id="py-b2-docs-delete-permission",
    files={
        "docs/permissions.py": r'''"""Who may do what. Each role has a set of permissions; check one with can()."""

from enum import Enum


class Perm(Enum):
    READ = "doc.read"
    COMMENT = "doc.comment"
    EDIT = "doc.edit"
    SHARE = "doc.share"
    DELETE = "doc.delete"
    MANAGE_MEMBERS = "workspace.members"


ROLE_PERMS = {
    "viewer": {Perm.READ},
    "commenter": {Perm.READ, Perm.COMMENT},
    "editor": {Perm.READ, Perm.COMMENT, Perm.EDIT, Perm.SHARE},
    "owner": {Perm.READ, Perm.COMMENT, Perm.EDIT, Perm.SHARE, Perm.DELETE},
    "admin": set(Perm),
}


def can(user, perm):
    """Whether the user's role grants `perm` (a Perm). Unknown roles get nothing."""
    return perm in ROLE_PERMS.get(user.role, set())


def is_member(user, workspace_id):
    return workspace_id in user.workspaces
''',
        "docs/errors.py": r'''"""Errors of the documents service; the web layer answers with their `status`."""


class DocsError(Exception):
    status = 400


class NotFound(DocsError):
    status = 404

    def __init__(self, doc_id):
        super().__init__(f"document {doc_id} not found")
        self.doc_id = doc_id


class PermissionDenied(DocsError):
    """The user is signed in but their role lacks `perm` (a Perm) for the document."""

    status = 403

    def __init__(self, user_id, perm, doc_id):
        super().__init__(f"user {user_id} lacks {perm.value} on document {doc_id}")
        self.user_id = user_id
        self.perm = perm
        self.doc_id = doc_id


class Conflict(DocsError):
    status = 409
''',
        "docs/handlers.py": r'''"""Document actions behind the API. user: has .id, .role and .workspaces; store: get/put/delete by id."""

from docs.errors import NotFound


def delete_document(store, user, doc_id):
    doc = store.get(doc_id)
    if doc is None:
        raise NotFound(doc_id)
    store.delete(doc_id)
    return {"deleted": doc_id}


def rename_document(store, user, doc_id, title):
    doc = store.get(doc_id)
    if doc is None:
        raise NotFound(doc_id)
    doc["title"] = title.strip()
    store.put(doc_id, doc)
    return doc
''',
    },
    target="docs/handlers.py",
    instruction="Anyone can delete a document right now. Only allow it for users whose role has the delete "
                "permission; everyone else should get our 403 error",
    edit=[("from docs.errors import NotFound\n",
           "from docs.errors import NotFound, PermissionDenied\nfrom docs.permissions import Perm, can\n"),
          ("        raise NotFound(doc_id)\n    store.delete(doc_id)\n",
           "        raise NotFound(doc_id)\n    if not can(user, Perm.DELETE):\n"
           "        raise PermissionDenied(user.id, Perm.DELETE, doc_id)\n    store.delete(doc_id)\n")],
    test=r'''from types import SimpleNamespace

from docs.errors import DocsError
from docs.handlers import delete_document
from docs.permissions import Perm


class Store:
    def __init__(self):
        self.docs = {1: {"title": "a"}, 2: {"title": "b"}, 3: {"title": "c"}}

    def get(self, doc_id):
        return self.docs.get(doc_id)

    def put(self, doc_id, doc):
        self.docs[doc_id] = doc

    def delete(self, doc_id):
        del self.docs[doc_id]


store = Store()
for role in ("viewer", "commenter", "editor", "guest"):
    user = SimpleNamespace(id=50, role=role, workspaces={"w1"})
    try:
        delete_document(store, user, 1)
    except DocsError as exc:
        assert exc.status == 403, (role, exc)
        assert exc.perm is Perm.DELETE and exc.doc_id == 1 and exc.user_id == 50, vars(exc)
    else:
        raise AssertionError(f"a {role} deleted a document")
assert 1 in store.docs
assert delete_document(store, SimpleNamespace(id=1, role="owner", workspaces={"w1"}), 1) == {"deleted": 1}
assert delete_document(store, SimpleNamespace(id=2, role="admin", workspaces=set()), 2) == {"deleted": 2}
assert list(store.docs) == [3]
''',
)

# ---------------------------------------------------------------- logging: a masking helper with a keyword option

py(
    id="py-b2-charge-webhook-mask-card",
    files={
        "pay/logsafe.py": r'''"""Keeping secrets out of the logs."""

SECRET_FIELDS = {"password", "token", "cvc", "iban"}


def mask(value, *, visible=2, fill="*"):
    """'4111111111111111' -> '**************11': keeps the last `visible` characters and hides the rest."""
    text = str(value)
    if visible <= 0:
        return fill * len(text)
    return fill * max(len(text) - visible, 0) + text[-visible:]


def scrub(fields):
    """A copy of a dict of log fields with every SECRET_FIELDS value replaced by '[redacted]'."""
    return {k: "[redacted]" if k in SECRET_FIELDS else v for k, v in fields.items()}


def truncate(text, limit=200):
    text = str(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."
''',
        "pay/webhook.py": r'''"""Handles the card processor's 'charge.succeeded' and 'charge.failed' callbacks."""

import logging

log = logging.getLogger("pay.webhook")


def handle_charge_event(event, orders):
    charge = event["data"]
    order = orders[charge["order_id"]]
    if event["type"] == "charge.succeeded":
        order["status"] = "paid"
        log.info("charge ok order=%s card=%s", order["id"], charge["card_number"])
    else:
        order["status"] = "payment_failed"
        log.warning("charge failed order=%s card=%s reason=%s", order["id"], charge["card_number"],
                    charge["reason"])
    return order["status"]
''',
    },
    target="pay/webhook.py",
    instruction="The charge webhook logs full card numbers. Mask them with our log-safety helper so only the last "
                "four digits show",
    edit=[("import logging\n", "import logging\n\nfrom pay.logsafe import mask\n"),
          ('    charge = event["data"]\n', '    charge = event["data"]\n'
           '    card = mask(charge["card_number"], visible=4)\n'),
          ('order=%s card=%s", order["id"], charge["card_number"])', 'order=%s card=%s", order["id"], card)'),
          ('order["id"], charge["card_number"],\n', 'order["id"], card,\n')],
    test=r'''import logging

messages = []


class Collect(logging.Handler):
    def emit(self, record):
        messages.append(record.getMessage())


logger = logging.getLogger("pay.webhook")
logger.addHandler(Collect())
logger.setLevel(logging.INFO)

from pay.webhook import handle_charge_event  # noqa: E402

orders = {"A1": {"id": "A1", "status": "new"}, "B2": {"id": "B2", "status": "new"}}
ok = {"type": "charge.succeeded", "data": {"order_id": "A1", "card_number": "4111111111111111"}}
bad = {"type": "charge.failed",
       "data": {"order_id": "B2", "card_number": "5500005555555559", "reason": "insufficient_funds"}}
assert handle_charge_event(ok, orders) == "paid"
assert handle_charge_event(bad, orders) == "payment_failed"
assert messages == ["charge ok order=A1 card=************1111",
                    "charge failed order=B2 card=************5559 reason=insufficient_funds"], messages
assert orders["A1"]["status"] == "paid" and orders["B2"]["status"] == "payment_failed"
''',
)

# ---------------------------------------------------------------- scheduling: a parser whose result is in minutes

py(
    id="py-b2-roster-overnight-shift",
    files={
        "roster/clock.py": r'''"""Times of day as the roster stores them: 'HH:MM' strings on the 24-hour clock."""

MINUTES_PER_DAY = 24 * 60


def parse_hhmm(text):
    """'07:45' -> 465, the minutes since midnight. ValueError for anything that is not a time of day."""
    hours, sep, minutes = text.strip().partition(":")
    if not sep or not hours.isdigit() or not minutes.isdigit() or len(minutes) != 2:
        raise ValueError(f"not a time of day: {text!r}")
    h, m = int(hours), int(minutes)
    if h > 23 or m > 59:
        raise ValueError(f"not a time of day: {text!r}")
    return h * 60 + m


def format_hhmm(minutes):
    """465 -> '07:45'; wraps past midnight."""
    minutes %= MINUTES_PER_DAY
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def is_night(minutes):
    """Night work is 23:00-06:00 by the collective agreement."""
    return minutes >= 23 * 60 or minutes < 6 * 60
''',
        "roster/shifts.py": r'''"""Shift lengths for the weekly roster and the working-time check."""

MAX_WEEKLY_HOURS = 48


def shift_hours(shift):
    """shift: {'start': 'HH:MM', 'end': 'HH:MM', 'break_minutes': int}. The paid hours, as a float."""
    start = int(shift["start"][:2])
    end = int(shift["end"][:2])
    return end - start - shift.get("break_minutes", 0) / 60


def weekly_hours(shifts):
    return sum(shift_hours(s) for s in shifts)


def over_limit(shifts):
    return weekly_hours(shifts) > MAX_WEEKLY_HOURS
''',
    },
    target="roster/shifts.py",
    instruction="shift_hours ignores the minutes and goes negative for night shifts that end after midnight. "
                "Parse the times with our clock helpers instead",
    edit=[('MAX_WEEKLY_HOURS = 48\n', 'from roster.clock import MINUTES_PER_DAY, parse_hhmm\n\nMAX_WEEKLY_HOURS = 48\n'),
          ('''    start = int(shift["start"][:2])
    end = int(shift["end"][:2])
    return end - start - shift.get("break_minutes", 0) / 60
''', '''    start = parse_hhmm(shift["start"])
    end = parse_hhmm(shift["end"])
    minutes = (end - start) % MINUTES_PER_DAY
    return (minutes - shift.get("break_minutes", 0)) / 60
''')],
    test=r'''from roster.shifts import over_limit, shift_hours, weekly_hours

assert shift_hours({"start": "09:15", "end": "17:45", "break_minutes": 45}) == 7.75, \
    shift_hours({"start": "09:15", "end": "17:45", "break_minutes": 45})
assert shift_hours({"start": "22:30", "end": "06:15", "break_minutes": 30}) == 7.25, \
    shift_hours({"start": "22:30", "end": "06:15", "break_minutes": 30})
assert shift_hours({"start": "06:00", "end": "14:00"}) == 8
week = [{"start": "22:00", "end": "08:30", "break_minutes": 30}] * 5
assert weekly_hours(week) == 50 and over_limit(week), weekly_hours(week)
assert not over_limit([{"start": "08:00", "end": "16:30", "break_minutes": 30}] * 5)
''',
)

# ---------------------------------------------------------------- data import: an error with a documented line numbering

py(
    id="py-b2-orders-import-row-error",
    files={
        "imports/errors.py": r'''"""Errors of the bulk importers. The upload page lists them to the user, so they say where it went wrong."""


class ImportFailed(Exception):
    """The whole upload is rejected (not a CSV, missing header...)."""


class RowError(ImportFailed):
    """One cell of the file is wrong.

    line: the line number as a spreadsheet shows it (the header is line 1, the first data row line 2)
    column: the header name of the cell
    problem: what is wrong, for people ('not a whole number')
    """

    def __init__(self, line, column, problem):
        super().__init__(f"line {line}, {column}: {problem}")
        self.line = line
        self.column = column
        self.problem = problem


class TooManyRows(ImportFailed):
    def __init__(self, limit):
        super().__init__(f"at most {limit} rows per upload")
        self.limit = limit
''',
        "imports/orders.py": r'''"""Bulk import of orders from an uploaded CSV with the columns sku, quantity, unit_price."""

import csv
import io
from decimal import Decimal, InvalidOperation

from imports.errors import ImportFailed

REQUIRED = ("sku", "quantity", "unit_price")


def parse_orders(text):
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None or not set(REQUIRED) <= set(reader.fieldnames):
        raise ImportFailed(f"the header must name {', '.join(REQUIRED)}")
    orders = []
    for row in reader:
        quantity = int(row["quantity"])
        try:
            price = Decimal(row["unit_price"])
        except InvalidOperation:
            price = Decimal(0)
        orders.append({"sku": row["sku"].strip(), "quantity": quantity, "unit_price": price})
    return orders
''',
    },
    target="imports/orders.py",
    instruction="A bad quantity or unit price in an uploaded orders file should raise our per-cell import error "
                "pointing at the line and column, instead of a bare ValueError or a silent zero price",
    edit=[("from imports.errors import ImportFailed\n", "from imports.errors import ImportFailed, RowError\n"),
          ('''    for row in reader:
        quantity = int(row["quantity"])
        try:
            price = Decimal(row["unit_price"])
        except InvalidOperation:
            price = Decimal(0)
''', '''    for line, row in enumerate(reader, start=2):
        try:
            quantity = int(row["quantity"])
        except ValueError:
            raise RowError(line, "quantity", "not a whole number") from None
        try:
            price = Decimal(row["unit_price"])
        except InvalidOperation:
            raise RowError(line, "unit_price", "not a number") from None
''')],
    test=r'''from decimal import Decimal

from imports.errors import ImportFailed, RowError
from imports.orders import parse_orders

orders = parse_orders("sku,quantity,unit_price\nA-1,2,9.99\n B-2 ,10,0.5\n")
assert orders == [{"sku": "A-1", "quantity": 2, "unit_price": Decimal("9.99")},
                  {"sku": "B-2", "quantity": 10, "unit_price": Decimal("0.5")}], orders

try:
    parse_orders("sku,quantity,unit_price\nA-1,2,9.99\nB-2,3,1.00\nC-3,two,4.00\n")
except RowError as exc:
    assert (exc.line, exc.column) == (4, "quantity"), (exc.line, exc.column)
    assert isinstance(exc, ImportFailed)
else:
    raise AssertionError("a bad quantity was accepted")

try:
    parse_orders("sku,quantity,unit_price\nA-1,2,abc\n")
except RowError as exc:
    assert (exc.line, exc.column) == (2, "unit_price"), (exc.line, exc.column)
else:
    raise AssertionError("a bad price was accepted")
''',
)

# ---------------------------------------------------------------- feature flags: a flag constant and a keyword option

py(
    id="py-b2-checkout-flag-rollout",
    files={
        "shop/flags.py": r'''"""Feature flags. A flag is on for everyone, off for everyone, or rolled out to a percentage of
users, bucketed by a stable hash of the user id so each user keeps seeing the same thing."""

import zlib

NEW_CHECKOUT = "checkout.one_page"
DARK_MODE = "ui.dark_mode"
GIFT_CARDS = "payments.gift_cards"
SAVED_CARTS = "cart.saved"

# flag -> True, False, or a rollout percentage (0-100)
FLAGS = {
    NEW_CHECKOUT: 25,
    DARK_MODE: True,
    GIFT_CARDS: False,
    SAVED_CARTS: 50,
}


def bucket(user_id):
    """0-99, the same for a user id every time."""
    return zlib.crc32(str(user_id).encode()) % 100


def is_enabled(flag, *, user_id=None, default=False):
    """Whether `flag` is on. A percentage rollout needs the user_id; without one it counts as off."""
    setting = FLAGS.get(flag, default)
    if isinstance(setting, bool):
        return setting
    return user_id is not None and bucket(user_id) < setting
''',
        "shop/views.py": r'''"""Checkout pages. request: has .user_id (None when not signed in)."""


def checkout_page(request, cart):
    template = "checkout/classic.html"
    return {"template": template, "items": len(cart), "user": request.user_id}
''',
    },
    target="shop/views.py",
    instruction="Serve the one-page checkout (template checkout/one_page.html) to the users our new-checkout "
                "feature flag is rolled out to; everyone else keeps the classic page",
    edit=[('"""Checkout pages. request: has .user_id (None when not signed in)."""\n',
           '"""Checkout pages. request: has .user_id (None when not signed in)."""\n\n'
           'from shop.flags import NEW_CHECKOUT, is_enabled\n'),
          ('    template = "checkout/classic.html"\n',
           '    template = "checkout/classic.html"\n'
           '    if is_enabled(NEW_CHECKOUT, user_id=request.user_id):\n'
           '        template = "checkout/one_page.html"\n')],
    test=r'''import zlib
from types import SimpleNamespace

from shop import flags
from shop.views import checkout_page


def page(user_id):
    return checkout_page(SimpleNamespace(user_id=user_id), ["a", "b"])["template"]


seen = set()
for uid in range(1, 201):
    want = "checkout/one_page.html" if zlib.crc32(str(uid).encode()) % 100 < 25 else "checkout/classic.html"
    assert page(uid) == want, (uid, page(uid))
    seen.add(want)
assert len(seen) == 2
assert page(None) == "checkout/classic.html"
assert checkout_page(SimpleNamespace(user_id=3), ["a", "b"])["items"] == 2

flags.FLAGS[flags.NEW_CHECKOUT] = True
assert all(page(u) == "checkout/one_page.html" for u in (1, 2, 3, None))
flags.FLAGS[flags.NEW_CHECKOUT] = False
assert all(page(u) == "checkout/classic.html" for u in range(1, 60))
''',
)


# ================================================================ JavaScript

# ---------------------------------------------------------------- an error class hierarchy with constructor arguments (CJS)

js(
    id="js-b2-order-patch-validation",
    files={
        "src/httpErrors.js": r"""'use strict';

// Errors a route handler throws; the app's error middleware answers with `status` and the body
// { error: code, message, details }.
class HttpError extends Error {
  constructor(status, code, message, { details, expose = true } = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.expose = expose;
  }
}

class NotFoundError extends HttpError {
  constructor(resource, id) {
    super(404, 'not_found', `${resource} ${id} not found`);
  }
}

class ConflictError extends HttpError {
  constructor(message) {
    super(409, 'conflict', message);
  }
}

// A request body that cannot be accepted. details: [{ field, problem }], one per bad field.
class ValidationFailed extends HttpError {
  constructor(details) {
    super(422, 'validation_failed', 'the request body is invalid', { details });
  }
}

module.exports = { HttpError, NotFoundError, ConflictError, ValidationFailed };
""",
        "src/routes/orders.js": r"""'use strict';

const { NotFoundError } = require('../httpErrors');

// What a customer may still change on an order.
const EDITABLE = ['shippingAddress', 'note', 'giftWrap'];

// PATCH /orders/:id. db.orders: { get(id) -> Promise<order|null>, put(order) -> Promise }
async function patchOrder(db, id, body) {
  const order = await db.orders.get(id);
  if (!order) throw new NotFoundError('order', id);
  for (const key of Object.keys(body)) {
    if (!EDITABLE.includes(key)) throw new Error(`cannot change ${key}`);
  }
  Object.assign(order, body);
  await db.orders.put(order);
  return order;
}

module.exports = { patchOrder, EDITABLE };
""",
    },
    target="src/routes/orders.js",
    instruction="patchOrder throws a plain Error for fields that can't be edited, which shows up as a 500. Throw "
                "our 422 validation error instead, listing every offending field, and save nothing in that case",
    edit=[("const { NotFoundError } = require('../httpErrors');\n",
           "const { NotFoundError, ValidationFailed } = require('../httpErrors');\n"),
          ("""  for (const key of Object.keys(body)) {
    if (!EDITABLE.includes(key)) throw new Error(`cannot change ${key}`);
  }
""", """  const bad = Object.keys(body).filter((key) => !EDITABLE.includes(key));
  if (bad.length) throw new ValidationFailed(bad.map((field) => ({ field, problem: 'not editable' })));
""")],
    test=r"""const assert = require('assert');
const { patchOrder } = require('./src/routes/orders');
const { HttpError } = require('./src/httpErrors');

const rows = { 5: { id: 5, status: 'paid', total: 1200, note: '' } };
const puts = [];
const db = {
  orders: {
    async get(id) { return rows[id] ? { ...rows[id] } : null; },
    async put(order) { puts.push(order); rows[order.id] = order; },
  },
};

(async () => {
  await assert.rejects(patchOrder(db, 5, { note: 'x', status: 'shipped', total: 1 }), (err) => {
    assert.ok(err instanceof HttpError, String(err));
    assert.strictEqual(err.status, 422);
    assert.strictEqual(err.code, 'validation_failed');
    assert.deepStrictEqual(err.details.map((d) => d.field), ['status', 'total']);
    return true;
  });
  assert.strictEqual(puts.length, 0);
  assert.strictEqual(rows[5].status, 'paid');
  const order = await patchOrder(db, 5, { note: 'leave at the door', giftWrap: true });
  assert.strictEqual(order.note, 'leave at the door');
  assert.strictEqual(puts.length, 1);
  await assert.rejects(patchOrder(db, 9, { note: 'x' }), (err) => err.status === 404);
})().catch((e) => { console.error(e); process.exit(1); });
""",
)

# ---------------------------------------------------------------- one helper of several related ones (ESM)

js(
    id="js-b2-leaderboard-shared-places",
    files={
        "package.json": ESM_PACKAGE % "quiz-league",
        "src/ranking.js": r"""// Ranking helpers for the leaderboards. Each takes entries already sorted best-first and a function
// giving an entry's score, and returns [{ rank, entry }] in the same order.

// 1, 2, 3, 4 whatever the scores: ties are broken by position.
export function ordinalRanks(entries) {
  return entries.map((entry, i) => ({ rank: i + 1, entry }));
}

// Equal scores share a rank and the next rank is skipped: 1, 2, 2, 4 ("standard competition").
export function competitionRanks(entries, score) {
  let rank = 0;
  let prev;
  return entries.map((entry, i) => {
    const s = score(entry);
    if (i === 0 || s !== prev) rank = i + 1;
    prev = s;
    return { rank, entry };
  });
}

// Equal scores share a rank and the next rank follows on: 1, 2, 2, 3.
export function denseRanks(entries, score) {
  let rank = 0;
  let prev;
  return entries.map((entry, i) => {
    const s = score(entry);
    if (i === 0 || s !== prev) rank += 1;
    prev = s;
    return { rank, entry };
  });
}

// Best first; entries with equal scores keep their order.
export function sortByScore(entries, score) {
  return [...entries].sort((a, b) => score(b) - score(a));
}
""",
        "src/leaderboard.js": r"""import { sortByScore } from './ranking.js';

// The weekly leaderboard as text lines: "1. ann — 120 pts".
export function leaderboardLines(players) {
  const sorted = sortByScore(players, (p) => p.points);
  return sorted.map((p, i) => `${i + 1}. ${p.name} — ${p.points} pts`);
}
""",
    },
    target="src/leaderboard.js",
    instruction="Players with the same points should share a place on the leaderboard, and the place after a tie "
                "is skipped (1, 1, 3...). There's a helper for this in our ranking module",
    edit=[("import { sortByScore } from './ranking.js';\n",
           "import { competitionRanks, sortByScore } from './ranking.js';\n"),
          ("  return sorted.map((p, i) => `${i + 1}. ${p.name} — ${p.points} pts`);\n",
           "  return competitionRanks(sorted, (p) => p.points)\n"
           "    .map(({ rank, entry: p }) => `${rank}. ${p.name} — ${p.points} pts`);\n")],
    test=r"""import assert from 'node:assert';
import { leaderboardLines } from './src/leaderboard.js';

const lines = leaderboardLines([
  { name: 'cy', points: 80 }, { name: 'ann', points: 120 }, { name: 'bo', points: 80 },
  { name: 'dee', points: 75 }, { name: 'eve', points: 120 }, { name: 'fay', points: 10 },
]);
assert.deepStrictEqual(lines, [
  '1. ann — 120 pts', '1. eve — 120 pts', '3. cy — 80 pts', '3. bo — 80 pts', '5. dee — 75 pts', '6. fay — 10 pts',
]);
assert.deepStrictEqual(leaderboardLines([{ name: 'x', points: 3 }, { name: 'y', points: 2 }]),
  ['1. x — 3 pts', '2. y — 2 pts']);
assert.deepStrictEqual(leaderboardLines([]), []);
""",
)

# ---------------------------------------------------------------- a formatter with options and an input unit (CJS)

js(
    id="js-b2-timer-status-words",
    files={
        "lib/duration.js": r"""'use strict';

const UNITS = [
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

// '1h30m', '45s', '2d 4h' -> a number of seconds.
function parseDuration(text) {
  const re = /(\d+)\s*([dhms])/g;
  let total = 0;
  let matched = false;
  for (const [, n, unit] of String(text).matchAll(re)) {
    matched = true;
    total += Number(n) * { d: 86400, h: 3600, m: 60, s: 1 }[unit];
  }
  if (!matched) throw new Error(`bad duration: ${text}`);
  return total;
}

// seconds (fractions dropped) -> '1h 2m 5s' (style 'short') or '1 hour 2 minutes 5 seconds' (style
// 'long'). Parts that are zero are left out; `largest` is how many parts to keep, biggest first.
function formatDuration(seconds, { style = 'short', largest = 2 } = {}) {
  let left = Math.floor(seconds);
  const parts = [];
  for (const [name, size] of UNITS) {
    const n = Math.floor(left / size);
    left -= n * size;
    if (n > 0) parts.push(style === 'long' ? `${n} ${name}${n === 1 ? '' : 's'}` : `${n}${name[0]}`);
  }
  if (!parts.length) return style === 'long' ? '0 seconds' : '0s';
  return parts.slice(0, largest).join(' ');
}

module.exports = { parseDuration, formatDuration };
""",
        "lib/timer.js": r"""'use strict';

// `track status`: what the running timer is doing.
// entry: { task, startedAt } with startedAt in milliseconds since the epoch; null when none runs.
function statusLine(entry, now = Date.now()) {
  if (!entry) return 'No timer running.';
  const elapsed = now - entry.startedAt;
  return `Tracking "${entry.task}" for ${elapsed} ms`;
}

module.exports = { statusLine };
""",
    },
    target="lib/timer.js",
    instruction="The timer status line shows raw milliseconds. Spell the elapsed time out in words with at most "
                "three units (e.g. '2 hours 5 minutes 9 seconds') using our duration formatter",
    edit=[("'use strict';\n", "'use strict';\n\nconst { formatDuration } = require('./duration');\n"),
          ("  return `Tracking \"${entry.task}\" for ${elapsed} ms`;\n",
           "  const words = formatDuration(elapsed / 1000, { style: 'long', largest: 3 });\n"
           "  return `Tracking \"${entry.task}\" for ${words}`;\n")],
    test=r"""const assert = require('assert');
const { statusLine } = require('./lib/timer');

const t0 = 1700000000000;
const at = (ms) => statusLine({ task: 'invoices', startedAt: t0 }, t0 + ms);
assert.strictEqual(at(7509123), 'Tracking "invoices" for 2 hours 5 minutes 9 seconds');
assert.strictEqual(at(86400000 + 60000 + 999), 'Tracking "invoices" for 1 day 1 minute');
assert.strictEqual(at(45500), 'Tracking "invoices" for 45 seconds');
assert.strictEqual(at(3 * 86400000 + 4 * 3600000 + 5 * 60000 + 6000), 'Tracking "invoices" for 3 days 4 hours 5 minutes');
assert.strictEqual(statusLine(null), 'No timer running.');
""",
)

# ---------------------------------------------------------------- a statistic whose argument has a unit (ESM)

js(
    id="js-b2-latency-p95",
    files={
        "package.json": ESM_PACKAGE % "ops-digest",
        "src/stats.js": r"""// Summary statistics for the ops dashboard. Inputs are arrays of numbers in any order.

export function mean(values) {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN;
}

// Nearest-rank percentile, p from 0 to 100 (95, not 0.95): the smallest value with at least p% of
// the values at or below it. NaN for no values.
export function percentile(values, p) {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

export function median(values) {
  return percentile(values, 50);
}

export function stddev(values) {
  const m = mean(values);
  return Math.sqrt(mean(values.map((v) => (v - m) ** 2)));
}
""",
        "src/latency.js": r"""import { mean } from './stats.js';

// One line per endpoint for the daily ops e-mail. samples: { '/api/x': [ms, ms, ...], ... }
export function latencySummary(samples) {
  return Object.entries(samples).map(([endpoint, ms]) =>
    `${endpoint}: avg ${mean(ms).toFixed(1)} ms over ${ms.length} requests`);
}
""",
    },
    target="src/latency.js",
    instruction="Add the 95th percentile to each endpoint line of the latency summary, right after the average, "
                "like 'avg 12.0 ms, p95 40 ms over 20 requests'. Use our stats module",
    edit=[("import { mean } from './stats.js';\n", "import { mean, percentile } from './stats.js';\n"),
          ("`${endpoint}: avg ${mean(ms).toFixed(1)} ms over ${ms.length} requests`",
           "`${endpoint}: avg ${mean(ms).toFixed(1)} ms, p95 ${percentile(ms, 95)} ms over ${ms.length} requests`")],
    test=r"""import assert from 'node:assert';
import { latencySummary } from './src/latency.js';

const orders = [];
for (let i = 20; i >= 1; i--) orders.push(i * 10);
const login = [5, 300, 7, 9, 6, 8, 11];
assert.deepStrictEqual(latencySummary({ '/api/orders': orders, '/api/login': login }), [
  '/api/orders: avg 105.0 ms, p95 190 ms over 20 requests',
  '/api/login: avg 49.4 ms, p95 300 ms over 7 requests',
]);
assert.deepStrictEqual(orders[0], 200);
""",
)

# ---------------------------------------------------------------- defaults and parsers in a config module (CJS)

js(
    id="js-b2-server-env-defaults",
    files={
        "config/defaults.js": r"""'use strict';

// What the server uses when the environment says nothing.
const DEFAULTS = Object.freeze({
  port: 8080,
  host: '0.0.0.0',
  requestTimeoutMs: 15000,
  bodyLimitBytes: 1024 * 1024,
  logLevel: 'info',
});

// '512kb', '2mb', '1gb', '300' (bytes) -> a number of bytes; 1kb is 1024 bytes.
function parseSize(text) {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(String(text));
  if (!m) throw new Error(`bad size: ${text}`);
  const mult = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] || 'b').toLowerCase()];
  return Math.round(Number(m[1]) * mult);
}

// 'true', '1', 'yes', 'on' (any case) -> true; anything else, or nothing, -> false.
function parseBool(text) {
  return ['true', '1', 'yes', 'on'].includes(String(text ?? '').trim().toLowerCase());
}

// '30s', '5m', '250ms' -> milliseconds.
function parseMs(text) {
  const m = /^\s*(\d+)\s*(ms|s|m)\s*$/.exec(String(text));
  if (!m) throw new Error(`bad duration: ${text}`);
  return Number(m[1]) * { ms: 1, s: 1000, m: 60000 }[m[2]];
}

module.exports = { DEFAULTS, parseSize, parseBool, parseMs };
""",
        "src/serverOptions.js": r"""'use strict';

// Options for http.createServer and our body parser, read from the environment.
function serverOptions(env = process.env) {
  return {
    port: Number(env.PORT),
    host: env.HOST,
    requestTimeoutMs: Number(env.REQUEST_TIMEOUT_MS),
    bodyLimitBytes: Number(env.BODY_LIMIT),
    trustProxy: env.TRUST_PROXY === 'true',
  };
}

module.exports = { serverOptions };
""",
    },
    target="src/serverOptions.js",
    instruction="serverOptions gives NaN or undefined for anything the environment doesn't set. Fall back to our "
                "default settings, and accept sizes like '2mb' for BODY_LIMIT and yes/on/1 for TRUST_PROXY",
    edit=[("'use strict';\n", "'use strict';\n\nconst { DEFAULTS, parseSize, parseBool } = require('../config/defaults');\n"),
          ("""    port: Number(env.PORT),
    host: env.HOST,
    requestTimeoutMs: Number(env.REQUEST_TIMEOUT_MS),
    bodyLimitBytes: Number(env.BODY_LIMIT),
    trustProxy: env.TRUST_PROXY === 'true',
""", """    port: env.PORT ? Number(env.PORT) : DEFAULTS.port,
    host: env.HOST || DEFAULTS.host,
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS ? Number(env.REQUEST_TIMEOUT_MS) : DEFAULTS.requestTimeoutMs,
    bodyLimitBytes: env.BODY_LIMIT ? parseSize(env.BODY_LIMIT) : DEFAULTS.bodyLimitBytes,
    trustProxy: parseBool(env.TRUST_PROXY),
""")],
    test=r"""const assert = require('assert');
const { serverOptions } = require('./src/serverOptions');

assert.deepStrictEqual(serverOptions({}), {
  port: 8080, host: '0.0.0.0', requestTimeoutMs: 15000, bodyLimitBytes: 1048576, trustProxy: false,
});
assert.deepStrictEqual(serverOptions({
  PORT: '3000', HOST: '127.0.0.1', REQUEST_TIMEOUT_MS: '2500', BODY_LIMIT: '512kb', TRUST_PROXY: 'Yes',
}), { port: 3000, host: '127.0.0.1', requestTimeoutMs: 2500, bodyLimitBytes: 524288, trustProxy: true });
assert.strictEqual(serverOptions({ BODY_LIMIT: '2mb' }).bodyLimitBytes, 2097152);
assert.strictEqual(serverOptions({ BODY_LIMIT: '4096' }).bodyLimitBytes, 4096);
assert.strictEqual(serverOptions({ TRUST_PROXY: 'off' }).trustProxy, false);
assert.strictEqual(serverOptions({ TRUST_PROXY: '1' }).trustProxy, true);
assert.strictEqual(serverOptions({ TRUST_PROXY: 'ON' }).trustProxy, true);
""",
)

# ---------------------------------------------------------------- colour maths: a function returning a ratio (ESM)

js(
    id="js-b2-label-text-contrast",
    files={
        "package.json": ESM_PACKAGE % "issue-labels",
        "src/color.js": r"""// Colour maths for the design system. Colours are '#rrggbb' strings.

export function hexToRgb(hex) {
  const n = parseInt(hex.replace(/^#/, ''), 16);
  return { r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255 };
}

export function rgbToHex({ r, g, b }) {
  return '#' + [r, g, b].map((c) => Math.round(c).toString(16).padStart(2, '0')).join('');
}

// WCAG relative luminance, from 0 (black) to 1 (white).
export function relativeLuminance(hex) {
  const { r, g, b } = hexToRgb(hex);
  const lin = (c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

// WCAG contrast ratio of two colours, from 1 to 21; the order of the arguments does not matter.
export function contrastRatio(a, b) {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

// t = 0 gives a, t = 1 gives b.
export function mix(a, b, t) {
  const x = hexToRgb(a);
  const y = hexToRgb(b);
  return rgbToHex({ r: x.r + (y.r - x.r) * t, g: x.g + (y.g - x.g) * t, b: x.b + (y.b - x.b) * t });
}
""",
        "src/labels.js": r"""import { hexToRgb } from './color.js';

// Issue labels: a coloured pill with the label's name on it. label: { name, color: '#rrggbb' }
export function labelStyle(label) {
  const { r, g, b } = hexToRgb(label.color);
  const brightness = (r * 299 + g * 587 + b * 114) / 1000;
  return {
    background: label.color,
    color: brightness > 128 ? '#000000' : '#ffffff',
  };
}
""",
    },
    target="src/labels.js",
    instruction="Choose a label's text colour (black or white) by whichever has the higher contrast ratio against "
                "its background, using our colour utilities instead of the brightness guess",
    edit=[("import { hexToRgb } from './color.js';\n", "import { contrastRatio } from './color.js';\n"),
          ("""  const { r, g, b } = hexToRgb(label.color);
  const brightness = (r * 299 + g * 587 + b * 114) / 1000;
  return {
    background: label.color,
    color: brightness > 128 ? '#000000' : '#ffffff',
""", """  const onBlack = contrastRatio(label.color, '#000000');
  const onWhite = contrastRatio(label.color, '#ffffff');
  return {
    background: label.color,
    color: onBlack >= onWhite ? '#000000' : '#ffffff',
""")],
    test=r"""import assert from 'node:assert';
import { contrastRatio } from './src/color.js';
import { labelStyle } from './src/labels.js';

const expected = (c) => (contrastRatio(c, '#000000') >= contrastRatio(c, '#ffffff') ? '#000000' : '#ffffff');
assert.deepStrictEqual(labelStyle({ name: 'triage', color: '#808080' }), { background: '#808080', color: '#000000' });
assert.strictEqual(labelStyle({ name: 'bug', color: '#d73a4a' }).color, '#000000');
assert.strictEqual(labelStyle({ name: 'docs', color: '#0000ff' }).color, '#ffffff');
assert.strictEqual(labelStyle({ name: 'ok', color: '#ffffff' }).color, '#000000');
let seed = 12345;
const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
let differs = 0;
for (let i = 0; i < 400; i++) {
  const color = '#' + Math.floor(rnd() * 0x1000000).toString(16).padStart(6, '0');
  assert.strictEqual(labelStyle({ name: 'x', color }).color, expected(color), color);
  const { r, g, b } = { r: parseInt(color.slice(1, 3), 16), g: parseInt(color.slice(3, 5), 16), b: parseInt(color.slice(5), 16) };
  if (((r * 299 + g * 587 + b * 114) / 1000 > 128 ? '#000000' : '#ffffff') !== expected(color)) differs += 1;
}
assert.ok(differs > 0);
""",
)

# ---------------------------------------------------------------- a transition table and its error (CJS)

js(
    id="js-b2-candidate-stage-moves",
    files={
        "src/pipeline.js": r"""'use strict';

// The stages of a candidate in the hiring pipeline, and which moves between them are allowed.
const Stage = Object.freeze({
  APPLIED: 'applied',
  SCREEN: 'phone_screen',
  ONSITE: 'onsite',
  OFFER: 'offer',
  HIRED: 'hired',
  REJECTED: 'rejected',
  WITHDRAWN: 'withdrawn',
});

const NEXT = Object.freeze({
  [Stage.APPLIED]: [Stage.SCREEN, Stage.REJECTED, Stage.WITHDRAWN],
  [Stage.SCREEN]: [Stage.ONSITE, Stage.REJECTED, Stage.WITHDRAWN],
  [Stage.ONSITE]: [Stage.OFFER, Stage.REJECTED, Stage.WITHDRAWN],
  [Stage.OFFER]: [Stage.HIRED, Stage.REJECTED, Stage.WITHDRAWN],
  [Stage.HIRED]: [],
  [Stage.REJECTED]: [Stage.APPLIED], // re-opened
  [Stage.WITHDRAWN]: [],
});

const isFinal = (stage) => (NEXT[stage] || []).length === 0;

class TransitionError extends Error {
  constructor(candidateId, from, to) {
    super(`candidate ${candidateId} cannot move from ${from} to ${to}`);
    this.name = 'TransitionError';
    this.candidateId = candidateId;
    this.from = from;
    this.to = to;
  }
}

module.exports = { Stage, NEXT, isFinal, TransitionError };
""",
        "src/candidates.js": r"""'use strict';

// Moving a candidate between columns of the recruiter board (drag and drop).
// candidate: { id, name, stage, history: [{ from, to, at }] }
function moveCandidate(candidate, to, now = new Date()) {
  candidate.history.push({ from: candidate.stage, to, at: now.toISOString() });
  candidate.stage = to;
  return candidate;
}

module.exports = { moveCandidate };
""",
    },
    target="src/candidates.js",
    instruction="Recruiters can currently drag a candidate to any stage. Only allow the moves our pipeline defines "
                "and throw its transition error otherwise, before touching the candidate",
    edit=[("'use strict';\n", "'use strict';\n\nconst { NEXT, TransitionError } = require('./pipeline');\n"),
          ("function moveCandidate(candidate, to, now = new Date()) {\n",
           "function moveCandidate(candidate, to, now = new Date()) {\n"
           "  if (!(NEXT[candidate.stage] || []).includes(to)) {\n"
           "    throw new TransitionError(candidate.id, candidate.stage, to);\n  }\n")],
    test=r"""const assert = require('assert');
const { moveCandidate } = require('./src/candidates');
const { TransitionError } = require('./src/pipeline');

const at = new Date('2024-05-01T10:00:00Z');
const c = { id: 'c-17', name: 'Ann', stage: 'applied', history: [] };
assert.throws(() => moveCandidate(c, 'onsite', at), (err) => {
  assert.ok(err instanceof TransitionError, String(err));
  assert.deepStrictEqual([err.candidateId, err.from, err.to], ['c-17', 'applied', 'onsite']);
  return true;
});
assert.strictEqual(c.stage, 'applied');
assert.strictEqual(c.history.length, 0);
moveCandidate(c, 'phone_screen', at);
assert.strictEqual(c.stage, 'phone_screen');
assert.deepStrictEqual(c.history, [{ from: 'applied', to: 'phone_screen', at: '2024-05-01T10:00:00.000Z' }]);
moveCandidate(c, 'rejected', at);
moveCandidate(c, 'applied', at);
assert.strictEqual(c.history.length, 3);
assert.throws(() => moveCandidate(c, 'bogus', at), TransitionError);
const hired = { id: 'c-2', name: 'Bo', stage: 'hired', history: [] };
assert.throws(() => moveCandidate(hired, 'offer', at), TransitionError);
assert.strictEqual(hired.stage, 'hired');
""",
)

# ---------------------------------------------------------------- URL helpers: two functions the edit needs (ESM)

js(
    id="js-b2-repo-search-url",
    files={
        "package.json": ESM_PACKAGE % "codehost-client",
        "src/http/url.js": r"""// URL building for the API clients.

export const API_BASE = 'https://api.codehost.example/v2/';

// base + path + query string. Query values are encoded with encodeURIComponent (a space is %20);
// undefined and null values are left out; an array repeats the key (?tag=a&tag=b). Keys keep their order.
export function buildUrl(base, path, query = {}) {
  const url = base.replace(/\/+$/, '') + '/' + path.replace(/^\/+/, '');
  const pairs = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      pairs.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`);
    }
  }
  return pairs.length ? `${url}?${pairs.join('&')}` : url;
}

// Path segments, each encoded on its own: joinPath('repos', 'a b', 'x/y') -> 'repos/a%20b/x%2Fy'.
export function joinPath(...segments) {
  return segments.map((s) => encodeURIComponent(String(s))).join('/');
}

export function withToken(headers, token) {
  return token ? { ...headers, authorization: `Bearer ${token}` } : { ...headers };
}
""",
        "src/client/repos.js": r"""import { API_BASE } from '../http/url.js';

// The code host's repository endpoints. fetchJson(url) -> Promise<object>.
export function searchRepos(fetchJson, { query, language, sort, page } = {}) {
  let url = API_BASE + 'search/repositories?q=' + query;
  if (language) url += '&language=' + language;
  if (sort) url += '&sort=' + sort;
  if (page) url += '&page=' + page;
  return fetchJson(url);
}

export function getRepo(fetchJson, owner, name) {
  return fetchJson(API_BASE + 'repos/' + owner + '/' + name);
}
""",
    },
    target="src/client/repos.js",
    instruction="searchRepos glues its URL together by hand, so queries with spaces, '&' or '#' break. Build it "
                "with our URL helpers, and encode getRepo's owner and name properly too",
    edit=[("import { API_BASE } from '../http/url.js';\n",
           "import { API_BASE, buildUrl, joinPath } from '../http/url.js';\n"),
          ("""  let url = API_BASE + 'search/repositories?q=' + query;
  if (language) url += '&language=' + language;
  if (sort) url += '&sort=' + sort;
  if (page) url += '&page=' + page;
  return fetchJson(url);
""", """  return fetchJson(buildUrl(API_BASE, 'search/repositories', { q: query, language, sort, page }));
"""),
          ("  return fetchJson(API_BASE + 'repos/' + owner + '/' + name);\n",
           "  return fetchJson(buildUrl(API_BASE, joinPath('repos', owner, name)));\n")],
    test=r"""import assert from 'node:assert';
import { getRepo, searchRepos } from './src/client/repos.js';

const seen = [];
const fetchJson = async (url) => { seen.push(url); return {}; };
await searchRepos(fetchJson, { query: 'tui & cli #rust', language: 'c++', page: 2 });
await searchRepos(fetchJson, { query: 'steer', sort: 'stars' });
await getRepo(fetchJson, 'ann b', 'x/y?');
assert.deepStrictEqual(seen, [
  'https://api.codehost.example/v2/search/repositories?q=tui%20%26%20cli%20%23rust&language=c%2B%2B&page=2',
  'https://api.codehost.example/v2/search/repositories?q=steer&sort=stars',
  'https://api.codehost.example/v2/repos/ann%20b/x%2Fy%3F',
]);
""",
)
