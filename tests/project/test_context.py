"""Context selection: what the region imports and calls, what the instruction names, pinned and
dropped items, the budget, and the message a request carries."""

from __future__ import annotations

from pathlib import Path

import pytest

from steer_tui.project.context import (CONTEXT_HEADER, context_message, count_tokens, instruction_stems,
                                       name_words, select_context, stem)
from steer_tui.project.index import ProjectIndex

FILES = {
    "shop/money.py": '''"""Money helpers."""

CURRENCY = "USD"


def format_money(cents: int) -> str:
    """Format an amount of cents as a currency string like $1.50."""
    return f"${cents / 100:.2f}"


def parse_money(text):
    """Parse '$1.50' into cents."""
    return int(round(float(text.strip("$")) * 100))
''',
    "shop/api.py": '''from enum import Enum

PAGE_SIZE = 20  # rows shown per page


class Status(Enum):
    """The status of an API response."""
    OK = "ok"
    NOT_FOUND = "not_found"


class ApiError(Exception):
    """Raised when a request to the API fails."""
    def __init__(self, code: int, message: str):
        self.code = code
''',
    "shop/cart.py": '''from shop.money import parse_money
from shop import api


def total(items):
    return sum(parse_money(i) for i in items)


def page(items, n):
    return items[n * 20:(n + 1) * 20]


def lookup(items, key):
    if key not in items:
        return api.Status.NOT_FOUND
    return items[key]


def format_money(x):
    return str(x)
''',
    "web/errors.js": '''// A bad field in a request: new ValidationError(field, message).
class ValidationError extends Error {
  constructor(field, message) { super(message); this.field = field; }
}
module.exports = { ValidationError };
''',
    "web/users.js": '''const { ValidationError } = require('./errors');

function createUser(email) {
  if (!email) throw new ValidationError('email', 'missing');
  return { email };
}
''',
}


@pytest.fixture
def index(tmp_path) -> ProjectIndex:
    root = tmp_path / "proj"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return ProjectIndex(root, tmp_path / "cache").build()


def _select(index, rel, instruction, region=None, budget=800, **kw):
    return select_context(index, rel, FILES[rel], region, instruction, budget, **kw)


def _names(items):
    return [(i.path, i.name, i.reason) for i in items]


def test_words_split_and_stem():
    assert name_words("formatMoney") == ("format", "money")
    assert name_words("PAGE_SIZE") == ("page", "size")
    assert name_words("HTTPError") == ("http", "error")
    assert stem("formatting") == stem("formatted") == stem("formats") == stem("format")
    assert stem("currencies") == stem("currency")
    # a plural and its word meet whatever the word ends with; a word that ends in s is no plural
    assert stem("dates") == stem("date") and stem("names") == stem("name") and stem("types") == stem("type")
    assert stem("classes") == stem("class") and stem("statuses") == stem("status")
    assert instruction_stems("use the page size", own_names=()) == {stem("page"), stem("size")}
    assert "total" not in instruction_stems("make total use the helper", own_names=("total",))


def test_what_the_region_imports_and_calls(index):
    items = _select(index, "shop/cart.py", "", region=(4, 6))
    assert _names(items) == [("shop/money.py", "parse_money", "imported")]
    # short, and it returns a value: shown whole, so the model sees what the value looks like
    assert items[0].text == ('def parse_money(text):\n    """Parse \'$1.50\' into cents."""\n'
                             '    return int(round(float(text.strip("$")) * 100))')
    items = _select(index, "shop/cart.py", "", region=(12, 16))
    assert _names(items) == [("shop/api.py", "Status", "imported")]  # through the module: api.Status
    assert 'NOT_FOUND = "not_found"' in items[0].text
    js = _select(index, "web/users.js", "", region=(2, 6))
    assert _names(js) == [("web/errors.js", "ValidationError", "imported")]
    assert js[0].text.startswith("// A bad field in a request: new ValidationError(field, message).\n"
                                 "class ValidationError extends Error {\n  constructor(field, message)\n}")


def test_instruction_words_find_things_by_their_role(index):
    currency = _select(index, "shop/cart.py", "show the total with the project's currency helper", region=(4, 6))
    named = [i.name for i in currency if i.reason == "named in the request"]
    assert "format_money" in named  # its doc says currency; it is a function, a helper
    page = _select(index, "shop/cart.py", "stop hard-coding 20 rows; use the page size", region=(8, 10))
    assert _names(page)[0] == ("shop/api.py", "PAGE_SIZE", "named in the request")
    assert page[0].text == "# rows shown per page\nPAGE_SIZE = 20"
    err = _select(index, "shop/cart.py", "raise the API error when the key is missing", region=(12, 16))
    assert ("shop/api.py", "ApiError", "named in the request") in _names(err)


def test_the_open_file_is_never_context(index):
    items = _select(index, "shop/cart.py", "make format_money round to whole units")
    assert all(i.path != "shop/cart.py" for i in items)
    # format_money is the open file's own name said in full: it brings in nothing from elsewhere
    assert "format_money" not in [i.name for i in items if i.reason == "named in the request"]


def test_the_budget_is_respected_and_cuts_the_lowest_ranked(index):
    full = _select(index, "shop/cart.py", "raise the API error or the status; use the currency helper")
    assert len(full) >= 3
    budget = max(full[0].tokens + full[1].tokens, 2 * full[0].tokens)  # the first fits the uses' share
    assert sum(i.tokens for i in full) > budget
    cut = _select(index, "shop/cart.py", "raise the API error or the status; use the currency helper", budget=budget)
    assert sum(i.tokens for i in cut) <= budget
    assert cut[0] == full[0] and len(cut) < len(full)
    assert {(i.path, i.name) for i in cut} <= {(i.path, i.name) for i in full}
    assert _select(index, "shop/cart.py", "use the currency helper", budget=0) == []


def test_pinned_first_and_dropped_left_out(index):
    items = _select(index, "shop/cart.py", "use the currency helper", region=(4, 6),
                    pinned=("shop/api.py", "@ApiError"))
    assert _names(items)[:2] == [("shop/api.py", "shop/api.py", "--context"), ("shop/api.py", "ApiError", "pinned by @")]
    assert items[0].kind == "file" and "class Status(Enum):" in items[0].text
    dropped = _select(index, "shop/cart.py", "use the currency helper", region=(4, 6),
                      dropped=("shop/money.py:parse_money", "format_money"))
    assert "parse_money" not in [i.name for i in dropped] and "format_money" not in [i.name for i in dropped]
    assert _select(index, "shop/cart.py", "", pinned=("shop/cart.py",), region=(4, 6))[0].name == "parse_money"


def test_the_message_labels_each_file_and_is_read_only(index):
    items = _select(index, "shop/cart.py", "raise the API error; show it with the currency helper", region=(4, 6))
    msg = context_message(items)
    assert msg["role"] == "user"
    assert msg["content"].startswith(CONTEXT_HEADER + "\n```python\n# shop/money.py\n")
    assert "```python\n# shop/api.py\n" in msg["content"]
    assert context_message([]) is None
    assert all(i.tokens == count_tokens(i.text) + 1 for i in items)


def test_no_project_around_the_file_no_context(tmp_path):
    (tmp_path / "alone").mkdir()
    (tmp_path / "alone" / "one.py").write_text(FILES["shop/cart.py"])
    index = ProjectIndex(tmp_path / "alone", tmp_path / "cache").build()
    assert select_context(index, Path(tmp_path / "alone" / "one.py"), FILES["shop/cart.py"], None,
                          "use the currency helper", 800) == []


def _chosen(tmp_path, files: dict[str, str], target: str, instruction: str, region=None) -> list[str]:
    """The names select_context gives a request on `target` in a project of `files`."""
    root = tmp_path / "proj"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    index = ProjectIndex(root, tmp_path / "cache").build()
    return [i.name for i in select_context(index, target, files[target], region, instruction, 800)]


def test_what_a_javascript_file_does_not_export_is_not_offered(tmp_path):
    files = {"src/validate.js": "// SKUs look like 'ABC-1234'.\nconst SKU = /^[A-Z]{3}-\\d{4}$/;\n\n"
                                "// True for a well-formed SKU.\nfunction isValidSku(sku) {\n  return SKU.test(sku);\n}\n\n"
                                "module.exports = { isValidSku };\n",
             "src/catalog.js": "function addProduct(p) {\n  return p;\n}\n"}
    assert _chosen(tmp_path, files, "src/catalog.js",
                   "throw for a malformed SKU; use the validators we have") == ["isValidSku"]


def test_a_word_that_names_a_large_share_of_the_project_says_little(tmp_path):
    """"the price helper" in a project with many helper_N functions: "price" is rare, "helper" is in
    hundreds of names, so the price function is chosen and the helpers are not."""
    files = {"money.py": 'def format_price(cents):\n    """Format cents as a price."""\n'
                         '    return f"${cents / 100:.2f}"\n',
             **{f"lib/m{n}.py": f"def helper_{n}(x):\n    return x + {n}\n" for n in range(60)},
             "shop.py": "def total(items):\n    return sum(items)\n"}
    assert _chosen(tmp_path, files, "shop.py", "return the total formatted with the project's price helper",
                   (0, 2)) == ["format_price"]


def test_the_request_context_puts_what_the_words_name_in_the_aside(index):
    from steer_tui.project.context import ASIDE_HEADER, RequestContext

    items = _select(index, "shop/cart.py", "raise the API error when the key is missing", region=(4, 6))
    assert {i.reason for i in items} == {"imported", "named in the request"}
    got = RequestContext.of(items)
    assert "parse_money" in got.message["content"] and "ApiError" not in got.message["content"]
    assert got.aside.startswith(ASIDE_HEADER + "\n```python\n# shop/api.py\n") and "class ApiError" in got.aside
    assert not RequestContext.of([]) and RequestContext.of([]).message is None


def test_a_python_name_the_module_keeps_to_itself_is_not_offered(tmp_path):
    files = {"core/log.py": '"""Logging for the app."""\n\nimport logging\n\n_root = logging.getLogger("ledger")\n\n\n'
                            'def get_logger(component):\n    """The logger for one component."""\n'
                            '    return _root.getChild(component)\n',
             "core/sync.py": "def sync(entries):\n    print('skipping')\n"}
    assert _chosen(tmp_path, files, "core/sync.py",
                   "log through the project's root logger instead of printing") == ["get_logger"]


def test_a_script_outside_the_packages_is_not_offered_for_the_words(tmp_path):
    """A Flask app of regular packages beside alembic's migrations/ (no __init__.py): "log" names
    migrations/env.py's `logger`, which no module of the app can import; the app's own helper is
    offered. Where the open file's folder is no package either, the same script is offered."""
    env = "import logging\n\nlogger = logging.getLogger('alembic.env')\n\n\ndef run_migrations_online():\n    pass\n"
    files = {"app/__init__.py": "", "app/main/__init__.py": "",
             "app/logs.py": 'def log_event(name):\n    """Log an event of the app."""\n    print(name)\n',
             "app/main/routes.py": "def explore(page):\n    return page\n",
             "migrations/env.py": env}
    chosen = _chosen(tmp_path, files, "app/main/routes.py", "in explore, log the page number")
    assert "log_event" in chosen
    assert "logger" not in chosen
    flat = {"tools/routes.py": "def explore(page):\n    return page\n", "migrations/env.py": env}
    assert "logger" in _chosen(tmp_path / "flat", flat, "tools/routes.py", "in explore, log the page number")


def test_a_short_helper_that_returns_a_value_is_shown_whole_and_others_as_signatures(tmp_path):
    root = tmp_path / "p"
    (root / "src").mkdir(parents=True)
    (root / "src/routes.js").write_text(
        "// Every URL is built here.\n"
        "function userPath(id, { tab } = {}) {\n"
        "  const base = `/people/${id}`;\n"
        "  return tab ? `${base}/${tab}` : base;\n"
        "}\n\n"
        "// Record one audit entry.\n"
        "function audit(event, actor) {\n"
        "  LOG.push({ event, actor });\n"
        "}\n\n"
        "function long(x) {\n" + "".join(f"  x += {i};\n" for i in range(12)) + "  return x;\n}\n"
        "module.exports = { userPath, audit, long };\n")
    text = "const r = require('./routes');\nfunction f(u) { r.audit('x', u); r.long(1); return r.userPath(u.id); }\n"
    (root / "src/link.js").write_text(text)
    index = ProjectIndex(root, tmp_path / "cache").build()
    items = {i.name: i.text for i in select_context(index, "src/link.js", text, None, "", 800)}
    assert items["userPath"] == ("// Every URL is built here.\nfunction userPath(id, { tab } = {}) {\n"
                                 "  const base = `/people/${id}`;\n  return tab ? `${base}/${tab}` : base;\n}")
    # a procedure: its body would be written out in place of the call
    assert items["audit"] == "// Record one audit entry.\nfunction audit(event, actor)"
    assert items["long"] == "function long(x)"  # too long to show whole
    # the file changed since it was indexed: the signature, never lines of something else
    (root / "src/routes.js").write_text("\n\n\n" + (root / "src/routes.js").read_text())
    items = {i.name: i.text for i in select_context(index, "src/link.js", text, None, "", 800)}
    assert items["userPath"] == "// Every URL is built here.\nfunction userPath(id, { tab } = {})"


def test_a_name_the_file_binds_itself_is_never_a_neighbours(tmp_path):
    """`Message` imported from a package and `app` a parameter are not the project's `Message`
    model or `app` object next door, though the region uses both."""
    root = tmp_path / "p"
    (root / "web").mkdir(parents=True)
    (root / "web/models.py").write_text("class Message:\n    \"\"\"A private message between users.\"\"\"\n")
    (root / "web/tasks.py").write_text("app = object()\n\n\ndef deliver(box):\n    return box\n")
    text = ("from flask_mail import Message\n\n\ndef send(app, to):\n    msg = Message(to)\n"
            "    return deliver(app, msg)\n")
    (root / "web/email.py").write_text(text)
    index = ProjectIndex(root, tmp_path / "cache").build()
    items = select_context(index, "web/email.py", text, (3, 6), "", 800)
    assert _names(items) == [("web/tasks.py", "deliver", "called")]


def test_a_tests_definitions_are_offered_for_the_words_only_to_another_test(tmp_path):
    """On expressjs/morgan, "log" found test/morgan.js's writeLog for index.js: a test's helpers are
    not the code the words mean, unless the open file is a test too."""
    root = tmp_path / "p"
    (root / "test").mkdir(parents=True)
    (root / "test/morgan.js").write_text("function writeLog(line) {\n  return line\n}\nmodule.exports = { writeLog }\n")
    (root / "lib").mkdir()
    (root / "lib/logfile.js").write_text("// Append one line to the log file.\nfunction appendLog(line) {}\n"
                                          "module.exports = { appendLog }\n")
    text = "function flush(buf) {\n  return buf\n}\n"
    (root / "index.js").write_text(text)
    (root / "test/other.test.js").write_text(text)
    index = ProjectIndex(root, tmp_path / "cache").build()
    names = [i.name for i in select_context(index, "index.js", text, None, "write each line to the log", 800)]
    assert "appendLog" in names and "writeLog" not in names
    in_test = [i.name for i in select_context(index, "test/other.test.js", text, None, "write each line to the log", 800)]
    assert "writeLog" in in_test


def test_a_go_constant_next_door_is_offered_and_a_test_file_is_not(tmp_path):
    """A Go package shares its names across its files: the code uses error.go's ErrInvalidID, and
    id_test.go's IDs (named in a comment) is the tests' own."""
    files = {"error.go": 'package xid\n\nconst (\n\t// ErrInvalidID is returned for a malformed ID.\n'
                         '\tErrInvalidID strErr = "xid: invalid ID"\n)\n\ntype strErr string\n',
             "id_test.go": "package xid\n\nvar IDs = []string{\"a\"}\n",
             "id.go": ("package xid\n\n// FromBytes reads an ID back. Like the IDs String gives.\n"
                       "func FromBytes(b []byte) (ID, error) {\n\tif len(b) != 12 {\n\t\treturn ID{}, ErrInvalidID\n"
                       "\t}\n\treturn ID{}, nil\n}\n")}
    assert _chosen(tmp_path, files, "id.go", "", (2, 9)) == ["ErrInvalidID"]
    assert "IDs" in _chosen(tmp_path / "t", {**files, "other_test.go": "package xid\n\nfunc TestX() { _ = IDs }\n"},
                            "other_test.go", "", (2, 3))


IMPORTING = {
    "c": ({"include/money.h": "/* Cents as a price like $1.50. */\nvoid format_price(char *out, int cents);\n"
                              "#define CURRENCY \"USD\"\n",
           "src/shop/cart.c": '#include "money.h"\n\nvoid show(int cents) {\n    char buf[16];\n'
                              '    format_price(buf, cents);\n}\n'},
          "src/shop/cart.c", ["format_price"]),
    "java": ({"src/main/java/com/acme/money/Money.java": "package com.acme.money;\n\n/** Cents as a price. */\n"
                                                         "public class Money {\n    public static String format(int c) {"
                                                         " return \"\"; }\n}\n",
              "src/main/java/com/acme/shop/Cart.java": "package com.acme.shop;\n\nimport com.acme.money.Money;\n\n"
                                                       "class Cart {\n    String show(int c) {\n"
                                                       "        return Money.format(c);\n    }\n}\n"},
             "src/main/java/com/acme/shop/Cart.java", ["Money"]),
    "rust": ({"src/lib.rs": "pub mod money;\npub mod shop;\n",
              "src/money.rs": "/// Cents as a price.\npub fn format_price(cents: u32) -> String {\n"
                              "    format!(\"${}\", cents)\n}\n",
              "src/shop/cart.rs": "use crate::money::format_price;\n\npub fn show(cents: u32) -> String {\n"
                                  "    format_price(cents)\n}\n"},
             "src/shop/cart.rs", ["format_price"]),
    "ruby": ({"lib/money.rb": "# Cents as a price.\ndef format_price(cents)\n  format('$%.2f', cents / 100.0)\nend\n",
              "app/cart.rb": "require_relative '../lib/money'\n\ndef show(cents)\n  format_price(cents)\nend\n"},
             "app/cart.rb", ["format_price"]),
    "php": ({"app/Support/Money.php": "<?php\nnamespace App\\Support;\n\n/** Cents as a price. */\n"
                                      "class Money {\n    public static function format($c) { return ''; }\n}\n",
             "app/Http/Cart.php": "<?php\nnamespace App\\Http;\n\nuse App\\Support\\Money;\n\nclass Cart {\n"
                                  "    function show($c) { return Money::format($c); }\n}\n"},
            "app/Http/Cart.php", ["Money"]),
}


@pytest.mark.parametrize("language", sorted(IMPORTING))
def test_what_a_file_imports_from_another_folder_is_offered(tmp_path, language):
    """An include, an import, a `use` or a require names a file in another folder: what the code
    uses from it goes with the request (the same folder's would by the neighbour rule alone)."""
    files, target, want = IMPORTING[language]
    root = tmp_path / "proj"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    index = ProjectIndex(root, tmp_path / "cache").build()
    items = select_context(index, target, files[target], None, "", 800)
    assert [(i.name, i.reason) for i in items] == [(name, "imported") for name in want]


def test_a_literal_in_the_words_names_nothing(tmp_path):
    """"make DEFAULT_ESCAPE_HTML false" (google/gson): "false" is the new value, not a word of some
    other file's doc that says when a method returns false."""
    files = {"Reader.java": "/** Reads JSON. */\npublic class Reader {\n    /** Returns false at the end. */\n"
                            "    public boolean hasNext() { return false; }\n}\n",
             "Builder.java": "public class Builder {\n    private static final boolean DEFAULT_ESCAPE_HTML = true;\n}\n"}
    assert _chosen(tmp_path, files, "Builder.java", "make DEFAULT_ESCAPE_HTML false") == []
    assert _chosen(tmp_path / "b", files, "Builder.java", "escape like the reader does at the end") == ["Reader"]


def test_a_go_package_the_file_imports_is_followed_to_its_folder(tmp_path):
    """`money.Format` in cmd/shop/main.go, with money imported by the module path go.mod declares:
    Format of money/format.go (not its test), and nothing of a package outside the module."""
    files = {"go.mod": "module example.com/shop\n\ngo 1.22\n",
             "money/format.go": "package money\n\n// Format writes cents as a price like $1.50.\n"
                                "func Format(cents int64) string {\n\treturn \"\"\n}\n",
             "money/format_test.go": "package money\n\nfunc Format2() {}\n",
             "cmd/shop/main.go": 'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/shop/money"\n)\n\n'
                                 "func main() {\n\tfmt.Println(money.Format(150))\n}\n"}
    assert _chosen(tmp_path, files, "cmd/shop/main.go", "") == ["Format"]


def test_a_c_static_or_header_guard_is_the_file_s_own(tmp_path):
    header = ("#ifndef GEO_H\n#define GEO_H\n// Earth's radius in metres.\n#define GEO_EARTH_RADIUS_M 6371008.8\n"
              "double geo_distance_m(double a, double b);\nstatic int geo_helper(int x) { return x; }\n#endif\n")
    files = {"include/geo.h": header, "src/trip.c": "double trip_length(void) { return 0; }\n"}
    assert _chosen(tmp_path, files, "src/trip.c", "use the earth radius, the geo guard and the geo helper") == [
        "GEO_EARTH_RADIUS_M"]


def test_a_word_that_is_a_whole_name_outranks_names_that_share_other_words(tmp_path):
    """"build the className with cn": `cn` is read in every component's signature, so its word is
    common, and five components share the request's other words (label, link, title, post); the
    name as written is what the user means."""
    components = {f"components/{n.lower()}.tsx": (f'import {{ cn }} from "../lib/utils"\n\n'
                                                  f"export const {n} = ({{ className }}) => <div className={{cn(className)}} />\n")
                  for n in ("PostLabel", "TitleLink", "PostTitle", "LinkLabel", "PostLink", "LabelTitle")}
    files = {"lib/utils.ts": "export function cn(...inputs: string[]) {\n  return inputs.join(' ')\n}\n",
             **components,
             "components/item.tsx": "export function Item({ post }) {\n  return <a className=\"title\">{post.title}</a>\n}\n"}
    chosen = _chosen(tmp_path, files, "components/item.tsx",
                     "add a label after the post title and build the link's className with cn")
    assert chosen[0] == "cn", chosen


def test_a_name_written_as_code_means_itself_not_each_of_its_words(tmp_path):
    """`IndexOutOfBoundsException` (the JDK's) names neither `BoundField` nor `JsonIOException`
    nor `indexOf`'s class by one of its words; a name that has all but one of them still counts
    (`MAX_UPLOAD_BYTES` for `MAX_UPLOAD_SIZE`)."""
    files = {"src/BoundField.java": "class BoundField {\n  String name;\n}\n",
             "src/JsonIOException.java": "public final class JsonIOException extends RuntimeException {\n}\n",
             "src/Finder.java": "class Finder {\n  int indexOf(Object o) {\n    return 0;\n  }\n}\n",
             "src/Limits.java": "class Limits {\n  static final long MAX_UPLOAD_SIZE = 10;\n}\n",
             "src/JsonArray.java": "class JsonArray {\n  Object remove(int i) {\n    return null;\n  }\n}\n"}
    assert _chosen(tmp_path, files, "src/JsonArray.java",
                   "make remove throw an IndexOutOfBoundsException when it is out of range") == []
    assert _chosen(tmp_path, files, "src/JsonArray.java", "cap remove at MAX_UPLOAD_BYTES") == ["Limits"]


def test_a_csharp_using_brings_the_namespaces_types_that_the_region_uses(tmp_path):
    """`using Shop.Models;` names a namespace, not a file: the types the region uses come from the
    files that declare it, in a block namespace or a file-scoped one (a type inside
    `namespace X { }` is top level, not a member of the namespace)."""
    files = {"Models/Item.cs": "namespace Shop.Models\n{\n    public record Item(string Name, long PriceCents);\n}\n",
             "Models/Money.cs": ("namespace Shop.Models;\n\npublic static class Money\n{\n"
                                 "    public static string FormatPrice(long cents) => cents.ToString();\n}\n"),
             "Services/Cart.cs": ("using System.Collections.Generic;\nusing Shop.Models;\n\nnamespace Shop.Services;\n\n"
                                  "public class Cart\n{\n    private readonly List<Item> _items = new();\n\n"
                                  "    public long Total()\n    {\n        long sum = 0;\n"
                                  "        foreach (var item in _items) sum += item.PriceCents;\n        return sum;\n    }\n}\n")}
    assert _chosen(tmp_path, files, "Services/Cart.cs", "make Total skip free items") == ["Item"]
    assert _chosen(tmp_path, files, "Services/Cart.cs", "format Total with the price helper") == ["Item", "Money"]


def test_vendored_code_is_not_what_the_words_mean(tmp_path):
    """A copied library (ThirdParty/, vendor/) defines many names; the request's words mean the
    project's own code, unless the open file is vendored itself."""
    files = {"src/ThirdParty/Annotations.cs": "public sealed class ValueProviderAttribute : System.Attribute\n{\n}\n",
             "src/Values.cs": "public static class Values\n{\n    public static int Provide() => 1;\n}\n",
             "src/Guard.cs": "public static class Guard\n{\n    public static int Check() => 0;\n}\n"}
    assert _chosen(tmp_path, files, "src/Guard.cs", "make Check use the value provider") == ["Values"]


def test_a_package_s_underscored_helper_is_offered_to_its_other_modules_by_name(tmp_path):
    """`from .i18n import _gettext`: a package's modules share their underscored helper functions.
    Its words must say the helper's name (its doc or file alone bring in the public API), and its
    state (`_cache`) and other packages' helpers stay out."""
    files = {"pkg/__init__.py": "",
             "pkg/number.py": 'def _format_not_finite(value):\n    """Text for inf and nan."""\n    return "NaN"\n\n\n'
                              '_cache = {}\n',
             "pkg/filesize.py": "def naturalsize(value):\n    return str(value)\n",
             "other/__init__.py": "",
             "other/size.py": "def naturalsize(value):\n    return str(value)\n"}
    ask = "naturalsize: return the not-finite text for inf and nan values"
    assert _chosen(tmp_path, files, "pkg/filesize.py", ask) == ["_format_not_finite"]
    assert _chosen(tmp_path, files, "other/size.py", ask) == []
    assert _chosen(tmp_path, files, "pkg/filesize.py", "naturalsize: handle inf and nan") == []
