"""The import an edit needs for a name it took from the context, placed after the file's imports."""

from __future__ import annotations

import pytest

from steer_tui.project.context import select_context
from steer_tui.project.imports import needed
from steer_tui.project.index import ProjectIndex

FILES = {
    "app/settings.py": '"""Settings."""\n\n# Rows a page shows.\nPAGE_SIZE = 15\n',
    "app/money.py": 'def format_money(cents):\n    """Format cents as currency."""\n    return str(cents)\n',
    "app/queries.py": '"""Queries."""\n\nfrom app.money import format_money\n\n\ndef paginate(rows, page):\n    return rows[page * 10:]\n',
    "src/errors.js": "class ValidationError extends Error {}\nmodule.exports = { ValidationError };\n",
    "src/config.js": "const config = { timeoutMs: 10 };\nmodule.exports = config;\n",
    "src/users.js": "'use strict';\n\nfunction createUser(email) {\n  throw new Error('bad');\n}\n",
    "web/math.js": "export function percentOf(part, whole) {\n  return part / whole;\n}\n",
    "web/stats.js": "export function label(done, total) {\n  return `${done}/${total}`;\n}\n",
}


def _built(root, files: dict[str, str]) -> ProjectIndex:
    """The index of a project of `files` written under `root`."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return ProjectIndex(root, root / "cache").build()


@pytest.fixture
def index(tmp_path) -> ProjectIndex:
    return _built(tmp_path, FILES)


def _needed(index, rel, new, instruction):
    items = select_context(index, rel, FILES[rel], None, instruction, 800)
    return needed(rel, FILES[rel], new, items, index)


def test_a_python_name_from_the_context_gets_its_import_after_the_imports(index):
    new = FILES["app/queries.py"].replace("rows[page * 10:]", "rows[page * PAGE_SIZE:]")
    got = _needed(index, "app/queries.py", new, "use the page size")
    assert [(g.line, g.text) for g in got] == [(3, "from app.settings import PAGE_SIZE\n")]


def test_a_module_reached_by_its_name_is_imported(index):
    new = FILES["app/queries.py"].replace("rows[page * 10:]", "rows[page * settings.PAGE_SIZE:]")
    got = _needed(index, "app/queries.py", new, "use the page size from settings")
    assert [g.text for g in got] == ["from app import settings\n"]


def test_nothing_when_the_edit_imports_it_itself_or_does_not_use_it(index):
    new = "from app.settings import PAGE_SIZE\n" + FILES["app/queries.py"].replace("* 10", "* PAGE_SIZE")
    assert _needed(index, "app/queries.py", new, "use the page size") == []
    assert _needed(index, "app/queries.py", FILES["app/queries.py"], "use the page size") == []
    # format_money was imported already
    new = FILES["app/queries.py"].replace("return rows", "return format_money(0) or rows")
    assert _needed(index, "app/queries.py", new, "format it with the money helper") == []


def test_javascript_commonjs_and_es_modules(index):
    new = FILES["src/users.js"].replace("new Error('bad')", "new ValidationError('email', 'bad')")
    got = _needed(index, "src/users.js", new, "throw the validation error")
    assert [(g.line, g.text) for g in got] == [(1, "\nconst { ValidationError } = require('./errors');\n")]
    new = FILES["src/users.js"].replace("new Error('bad')", "new Error(config.timeoutMs)")
    got = _needed(index, "src/users.js", new, "use the timeout from the config")
    assert [g.text for g in got] == ["\nconst config = require('./config');\n"]
    new = FILES["web/stats.js"].replace("`${done}/${total}`", "`${done}/${total} (${percentOf(done, total)})`")
    got = _needed(index, "web/stats.js", new, "add the percent helper's value")
    assert [(g.line, g.text) for g in got] == [(0, "import { percentOf } from './math.js';\n\n")]


def test_an_es_module_with_exports_and_no_imports_imports_a_module_it_reaches_by_name(index):
    """`export function` alone makes the file an ES module: a `require` would throw there."""
    new = FILES["web/stats.js"].replace("`${done}/${total}`", "`${done}/${total} (${math.percentOf(done, total)})`")
    got = _needed(index, "web/stats.js", new, "add the percent helper's value")
    assert [g.text for g in got] == ["import * as math from './math.js';\n\n"]


def test_a_file_name_in_a_path_or_a_string_is_no_use_of_its_module(index):
    for line in ("// web/math.js", "const url = '/static/math.js';", "import { percentOf } from './math.js';"):
        new = FILES["web/stats.js"] + line + "\n"
        assert _needed(index, "web/stats.js", new, "add the percent helper's value") == [], line


@pytest.mark.parametrize("imports, want", [
    ("", "./units"),
    ("import { x } from './x';\n\n", "./units"),
    ("import { x } from './x.js';\n\n", "./units.js"),
])
def test_typescript_never_names_its_ts_source(tmp_path, imports, want):
    """An import of `./units.ts` is an error without allowImportingTsExtensions: the file's own
    imports decide between no extension and `.js`."""
    files = {"src/units.ts": "export function toKg(v: number): number {\n  return v;\n}\n",
             "src/x.ts": "export const x = 1;\n",
             "src/ship.ts": imports + "export function price(w: number): number {\n  return w;\n}\n"}
    index = _built(tmp_path, files)
    old = files["src/ship.ts"]
    items = select_context(index, "src/ship.ts", old, None, "convert with the units toKg helper", 800)
    for new, line in ((old.replace("return w;", "return units.toKg(w);"), f"import * as units from '{want}';"),
                      (old.replace("return w;", "return toKg(w);"), f"import {{ toKg }} from '{want}';")):
        assert [g.text.strip() for g in needed("src/ship.ts", old, new, items, index)] == [line]


def test_the_fallback_place_is_right_above_the_first_definition(index):
    new = FILES["app/queries.py"].replace("rows[page * 10:]", "rows[page * PAGE_SIZE:]")
    got = _needed(index, "app/queries.py", new, "use the page size")
    assert (got[0].fallback, got[0].fallback_text) == (5, "from app.settings import PAGE_SIZE\n\n\n")


def test_a_project_module_the_context_showed_wins_over_a_standard_library_one(tmp_path):
    files = {"app/statistics.py": "def mean(xs):\n    \"\"\"The project's own mean.\"\"\"\n    return sum(xs) / len(xs)\n",
             "app/report.py": '"""Report."""\n\nimport json\n\n\ndef summary(xs):\n    return json.dumps(xs)\n'}
    index = _built(tmp_path, files)
    old = files["app/report.py"]
    new = old.replace("json.dumps(xs)", "json.dumps({'mean': mean(xs), 'when': datetime.now().isoformat()})")
    items = select_context(index, "app/report.py", old, None, "add the mean from the statistics module", 800)
    got = needed("app/report.py", old, new, items, index)
    assert [g.text for g in got] == ["from datetime import datetime\nfrom app.statistics import mean\n"]


def test_a_name_the_context_did_not_show_is_imported_where_one_project_file_defines_it(tmp_path):
    """As an editor offers: `format_money` read free, defined at top level by one other file of the
    project; a name two files define, or one a module keeps to itself, gets nothing. An underscored
    helper function is its package's: a module of the same package imports it, state it keeps does not."""
    files = dict(FILES)
    files["app/report.py"] = "def _inner(x):\n    return x\n\n\ndef paginate(rows):\n    return rows\n"
    files["app/__init__.py"] = ""
    files["lib/shared.py"] = "def _outer(x):\n    return x\n"
    files["app/cache.py"] = "_seen = {}\n"
    index = _built(tmp_path, files)
    old = '"""Totals."""\n\nimport json\n\n\ndef total(rows):\n    return sum(rows)\n'
    new = old.replace("return sum(rows)", "return format_money(sum(rows)) + str(PAGE_SIZE)")
    got = needed("app/totals.py", old, new, (), index)
    assert [g.text for g in got] == ["from app.money import format_money\nfrom app.settings import PAGE_SIZE\n"]
    assert needed("app/totals.py", old, old.replace("sum(rows)", "paginate(rows)"), (), index) == []  # two files
    assert needed("app/totals.py", old, old.replace("sum(rows)", "_outer(rows)"), (), index) == []  # private
    assert needed("app/totals.py", old, old.replace("sum(rows)", "len(_seen)"), (), index) == []  # its state
    assert [g.text for g in needed("app/totals.py", old, old.replace("sum(rows)", "_inner(rows)"), (), index)] == [
        "from app.report import _inner\n"]


def test_a_node_built_in_follows_the_packages_module_type(tmp_path):
    """A file with neither imports nor requires is an ES module where its package.json says so."""
    (tmp_path / "web").mkdir()
    (tmp_path / "package.json").write_text('{"name": "x", "type": "module"}\n')
    plain = "function digest(text) {\n  return text;\n}\n"
    (tmp_path / "web/hash.js").write_text(plain)
    index = ProjectIndex(tmp_path, tmp_path / "cache").build()
    new = plain.replace("return text;", "return createHash('sha256').update(text).digest('hex');")
    assert [g.text for g in needed("web/hash.js", plain, new, (), index)] == ["import { createHash } from 'crypto';\n\n"]
    (tmp_path / "package.json").write_text('{"name": "x"}\n')
    got = needed("web/hash.js", plain, plain.replace("return text;", "return createHash('md5');"), (), index)
    assert [g.text for g in got] == ["const { createHash } = require('crypto');\n\n"]


NATIVE = {
    "src/main/java/com/acme/money/Money.java": "package com.acme.money;\n\n/** Money as text. */\npublic final class Money {\n"
                                              "    public static final int MAX_CENTS = 100;\n"
                                              "    public static String format(String currency, long cents) {\n"
                                              "        return currency + cents;\n    }\n}\n",
    "src/main/java/com/acme/shop/Cart.java": "package com.acme.shop;\n\nimport java.util.List;\n\npublic class Cart {\n"
                                             "    long cents;\n    public String label() {\n        return \"\" + cents;\n"
                                             "    }\n}\n",
    "src/main/java/com/acme/shop/Bare.java": "package com.acme.shop;\n\npublic class Bare {\n    int cap() {\n"
                                             "        return 1;\n    }\n}\n",
    "include/money.h": "#ifndef MONEY_H\n#define MONEY_H\n/* Cents as text. */\nvoid money_format(char *buf, long cents);\n#endif\n",
    "src/money.c": '#include "money.h"\n\nvoid money_format(char *buf, long cents) {\n    (void)buf; (void)cents;\n}\n',
    "src/cart.c": '#include <stdio.h>\n\nvoid label(char *buf, long cents) {\n    sprintf(buf, "%ld", cents);\n}\n',
    "src/wrapped.c": '#include "cart.h"\n\nvoid show(char *buf) {\n    buf[0] = 0;\n}\n',
    "src/cart.h": '#include "money.h"\n',
    "Cargo.toml": '[package]\nname = "shop"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod money;\npub mod shop;\n",
    "src/money.rs": "/// Cents as text.\npub fn format_cents(cents: u64) -> String {\n    cents.to_string()\n}\n",
    "src/shop/mod.rs": "//! The shop.\n\npub fn label(cents: u64) -> String {\n    cents.to_string()\n}\n",
}


@pytest.fixture
def native(tmp_path) -> ProjectIndex:
    return _built(tmp_path, NATIVE)


def _native_needed(index, rel, old, new, instruction):
    items = select_context(index, rel, NATIVE[rel], None, instruction, 800)
    return [(g.line, g.text) for g in needed(rel, old, new, items, index)]


def test_java_imports_the_class_by_its_package_after_the_imports_or_the_package_line(native):
    cart = "src/main/java/com/acme/shop/Cart.java"
    new = NATIVE[cart].replace('"" + cents', "Money.format(\"USD\", cents)")
    assert _native_needed(native, cart, NATIVE[cart], new, "use the money formatter") == [
        (3, "import com.acme.money.Money;\n")]
    bare = "src/main/java/com/acme/shop/Bare.java"
    new = NATIVE[bare].replace("return 1;", "return Money.MAX_CENTS;")
    assert _native_needed(native, bare, NATIVE[bare], new, "return MAX_CENTS") == [
        (1, "\nimport com.acme.money.Money;\n")]


def test_c_includes_the_header_that_declares_it_unless_an_include_already_reaches_it(native):
    new = NATIVE["src/cart.c"].replace('sprintf(buf, "%ld", cents);', "money_format(buf, cents);")
    assert _native_needed(native, "src/cart.c", NATIVE["src/cart.c"], new, "use money_format") == [
        (1, '#include "money.h"\n')]
    new = NATIVE["src/wrapped.c"].replace("buf[0] = 0;", "money_format(buf, 0);")
    assert _native_needed(native, "src/wrapped.c", NATIVE["src/wrapped.c"], new, "use money_format") == []


def test_rust_uses_the_item_by_its_crate_path_after_the_inner_doc(native):
    rel = "src/shop/mod.rs"
    new = NATIVE[rel].replace("cents.to_string()", "format_cents(cents)")
    assert _native_needed(native, rel, NATIVE[rel], new, "use format_cents") == [
        (1, "\nuse crate::money::format_cents;\n")]


def test_a_module_path_or_a_class_reached_by_its_member_gets_the_module_or_the_class(native):
    rel = "src/shop/mod.rs"
    new = NATIVE[rel].replace("cents.to_string()", "money::format_cents(cents)")
    assert _native_needed(native, rel, NATIVE[rel], new, "use the money module's formatter") == [
        (1, "\nuse crate::money;\n")]
    bare = "src/main/java/com/acme/shop/Bare.java"
    new = NATIVE[bare].replace("return 1;", "return Money.MAX_CENTS;")
    assert _native_needed(native, bare, NATIVE[bare], new, "return the most cents money allows") == [
        (1, "\nimport com.acme.money.Money;\n")]


def test_a_java_type_nested_in_a_context_class_and_named_bare_is_imported_by_its_outer_name(tmp_path):
    files = {"src/com/acme/errors/StockException.java":
             "package com.acme.errors;\n\n/** Stock errors. */\npublic class StockException extends RuntimeException {\n"
             "    /** Too few on hand. */\n    public static final class Insufficient extends StockException {\n"
             "        public Insufficient(String sku) { }\n    }\n}\n",
             "src/com/acme/Warehouse.java": "package com.acme;\n\nimport com.acme.errors.StockException;\n\n"
                                            "public class Warehouse {\n    int take(String sku) {\n"
                                            "        return -1;\n    }\n}\n"}
    index = _built(tmp_path, files)
    rel = "src/com/acme/Warehouse.java"
    items = select_context(index, rel, files[rel], None, "throw the stock exception for too few on hand", 800)
    new = files[rel].replace("return -1;", "throw new Insufficient(sku);")
    assert [(g.line, g.text) for g in needed(rel, files[rel], new, items, index)] == [
        (3, "import com.acme.errors.StockException.Insufficient;\n")]


def test_a_word_in_a_comment_is_no_use_of_a_name(native):
    rel = "src/shop/mod.rs"
    old = NATIVE[rel].replace("//! The shop.", "//! The shop: prices come from money.")
    new = old.replace("cents.to_string()", "money::format_cents(cents)")
    items = select_context(native, rel, old, None, "use the money module's formatter", 800)
    assert [g.text for g in needed(rel, old, new, items, native)] == ["\nuse crate::money;\n"]


def test_where_a_first_import_goes_in_java_and_rust():
    from steer_tui.project.import_lines import first_place

    assert first_place("java", ["// Copyright", "package a.b;", "", "class A {}"]) == 2
    assert first_place("java", ["class A {}"]) == 0
    assert first_place("rust", ["//! The shop.", "#![allow(dead_code)]", "", "pub fn f() {}"]) == 2
    assert first_place("rust", ["pub fn f() {}"]) == 0
    assert first_place("c", ["int x;"]) is None


def test_a_standard_library_import_goes_with_its_kind_above_the_third_party_ones():
    """As isort groups them: under the file's import of the same module, else after its last
    standard-library import; never into the third-party or project group below."""
    old = ("from datetime import datetime, timezone\nimport os\n\nimport sqlalchemy as sa\nfrom app import db\n\n\n"
           "def recent(q):\n    return q\n")
    new = old.replace("return q", "return q.where(sa.x > datetime.now(timezone.utc) - timedelta(days=7), json.dumps(1))")
    got = needed("app/routes.py", old, new)
    assert [(g.line, g.text) for g in got] == [(1, "from datetime import timedelta\n"), (2, "import json\n")]
    only_third_party = "import sqlalchemy as sa\n\n\ndef recent(q):\n    return q\n"
    got = needed("app/routes.py", only_third_party, only_third_party.replace("return q", "return json.dumps(q)"))
    assert [(g.line, g.text) for g in got] == [(1, "import json\n")]


def test_a_javascript_name_called_free_is_imported_where_one_project_file_exports_it(tmp_path):
    """As an editor offers: `cn(...)` and `<Badge />` read free, each exported by one file of the
    project (the import written through the tsconfig alias the file already uses); a name two files
    export, a global's name (a project `fetch` wrapper), and a parameter get nothing."""
    files = {
        "tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["./*"]}}}\n',
        "lib/utils.ts": "export function cn(...xs: string[]) {\n  return xs.join(' ')\n}\n",
        "lib/http.ts": "export function fetch(url: string) {\n  return url\n}\n",
        "components/badge.tsx": "export function Badge({ children }) {\n  return <span>{children}</span>\n}\n",
        "components/a.tsx": "export function Label() {\n  return null\n}\n",
        "components/b.tsx": "export function Label() {\n  return null\n}\n",
        "components/item.tsx": ('import { formatDate } from "@/lib/utils"\n\n'
                                "export function Item({ post }) {\n  return <p>{formatDate(post.at)}</p>\n}\n"),
    }
    index = _built(tmp_path, files)
    old = files["components/item.tsx"]
    new = old.replace("<p>{formatDate(post.at)}</p>",
                      '<p className={cn("a", "b")}>{formatDate(post.at)}<Badge>new</Badge><Label />{fetch("/x")}</p>')
    got = needed("components/item.tsx", old, new, (), index)
    assert [g.text for g in got] == ['import { Badge } from "@/components/badge"\nimport { cn } from "@/lib/utils"\n']
    param = old.replace("({ post })", "({ post, cn })").replace("<p>{", "<p className={cn()}>{")
    assert needed("components/item.tsx", old, param, (), index) == []


def test_a_csharp_type_from_another_namespace_gets_its_using(tmp_path):
    """The type's namespace by `using`, after the file's usings; none where the file is in that
    namespace or one inside it, or already uses it."""
    files = {"Models/Money.cs": ("namespace Shop.Models;\n\npublic static class Money\n{\n"
                                 "    public static string FormatPrice(long cents) => cents.ToString();\n}\n"),
             "Services/Cart.cs": ("using System.Collections.Generic;\n\nnamespace Shop.Services;\n\npublic class Cart\n{\n"
                                  "    public string Total(long sum)\n    {\n        return sum.ToString();\n    }\n}\n")}
    index = _built(tmp_path, files)
    old = files["Services/Cart.cs"]
    new = old.replace("return sum.ToString();", "return Money.FormatPrice(sum);")
    items = select_context(index, "Services/Cart.cs", old, None, "format the total with the price helper", 800)
    assert [(g.line, g.text) for g in needed("Services/Cart.cs", old, new, items, index)] == [(1, "using Shop.Models;\n")]
    using = "using Shop.Models;\n" + old
    assert needed("Services/Cart.cs", using, "using Shop.Models;\n" + new, items, index) == []
    inside = old.replace("namespace Shop.Services;", "namespace Shop.Models.Reports;")
    assert needed("Services/Cart.cs", inside, inside.replace("return sum.ToString();", "return Money.FormatPrice(sum);"),
                  items, index) == []


@pytest.mark.parametrize("rel, manifest, first, want", [
    # The file's extension or its package's "type" says what it is where its statements do not.
    ("web/calc.mjs", None, "", "import * as units from './units.js';"),
    ("web/calc.cjs", None, "", "const units = require('./units');"),
    ("web/calc.js", '{"type": "module"}', "", "import * as units from './units.js';"),
    ("web/calc.js", '{"type": "commonjs"}', "", "const units = require('./units');"),
    ("web/calc.js", '{"name": "x"}', "", "const units = require('./units');"),
    # An import statement makes an ES module even beside a require (createRequire, a bundler's mix).
    ("web/calc.js", None, "import fs from 'fs';\nconst path = require('path');\n\n", "import * as units from './units.js';"),
])
def test_a_module_reached_by_name_is_imported_as_the_file_is_a_module(tmp_path, rel, manifest, first, want):
    if manifest is not None:
        (tmp_path / "package.json").write_text(manifest + "\n")
    old = first + "function total(w) {\n  return w;\n}\n"
    files = {"web/units.js": "export function toKg(v) {\n  return v;\n}\n", rel: old}
    index = _built(tmp_path, files)
    items = select_context(index, rel, old, None, "convert with the units toKg helper", 800)
    got = needed(rel, old, old.replace("return w;", "return units.toKg(w);"), items, index)
    assert [g.text.strip() for g in got] == [want]


def test_a_name_from_a_commonjs_module_is_imported_in_an_es_module_package(tmp_path):
    """Node's ES modules import a CommonJS module's named exports: the package's "type" says which
    syntax the file may use, whatever syntax the module it imports from has; a `require` names a
    `.cjs` file with its extension (Node does not try it)."""
    (tmp_path / "package.json").write_text('{"type": "module"}\n')
    old = "function total(w) {\n  return w;\n}\n"
    files = {"web/units.cjs": "function toKg(v) {\n  return v;\n}\nmodule.exports = { toKg };\n", "web/calc.js": old}
    index = _built(tmp_path, files)
    items = select_context(index, "web/calc.js", old, None, "convert with the toKg helper", 800)
    got = needed("web/calc.js", old, old.replace("return w;", "return toKg(w);"), items, index)
    assert [g.text.strip() for g in got] == ["import { toKg } from './units.cjs';"]
    (tmp_path / "package.json").write_text('{"name": "x"}\n')
    got = needed("web/calc.js", old, old.replace("return w;", "return toKg(w);"), items, index)
    assert [g.text.strip() for g in got] == ["const { toKg } = require('./units.cjs');"]
