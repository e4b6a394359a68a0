"""The project's symbol index: definitions, signatures, docs and imports (Python, JS), updates, the cache."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from steer_tui.project.index import ProjectIndex

MONEY = '''"""Money helpers."""

CURRENCY = "USD"  # ISO code of every price


def format_money(cents: int,
                 symbol: str = "$") -> str:
    """Format an amount of cents as a currency string.

    More words."""
    return f"{symbol}{cents / 100:.2f}"


class Price(Base):
    """A price in cents."""
    ZERO = 0

    def add(self, other: "Price") -> "Price":
        return Price(self.cents + other.cents)
'''

CART = '''from shop.money import format_money as fmt, CURRENCY
from . import api
import os.path as osp


def total(items):
    return fmt(sum(items))
'''

API_JS = '''// Statuses of an API response.
export const Status = Object.freeze({ OK: 'ok', NOT_FOUND: 'not_found' });

export const PAGE_SIZE = 20;

/**
 * Fetches one page.
 * @param {number} n
 */
export async function fetchPage(n, size = PAGE_SIZE) {
  return [];
}

export class Client extends Base {
  retries = 3;
  get(id) { return id; }
}
'''

USE_JS = '''import { fetchPage, Status as S } from './api';
import * as api from "./api.js";
const { helper } = require('../lib/util');
const path = require('path');

export const load = (n) => fetchPage(n);
'''


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "proj"
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "money.py").write_text(MONEY)
    (root / "shop" / "cart.py").write_text(CART)
    (root / "shop" / "api.py").write_text("OK = 1\n")
    (root / "web").mkdir()
    (root / "web" / "api.js").write_text(API_JS)
    (root / "web" / "use.js").write_text(USE_JS)
    (root / "lib").mkdir()
    (root / "lib" / "util.js").write_text("function helper() {}\nmodule.exports = { helper };\n")
    (root / "notes.txt").write_text("not code\n")
    return root


def _by_name(index, rel):
    return {s.name: s for s in index.symbols_in(rel)}


def test_python_definitions_signatures_docs_and_constants(project, tmp_path):
    index = ProjectIndex(project, tmp_path / "cache").build()
    syms = _by_name(index, "shop/money.py")
    assert syms["CURRENCY"].kind == "constant"
    assert syms["CURRENCY"].signature == 'CURRENCY = "USD"'
    assert syms["CURRENCY"].doc == "ISO code of every price"
    fmt = syms["format_money"]
    assert (fmt.kind, fmt.signature, fmt.doc) == (
        "function", 'def format_money(cents: int, symbol: str = "$") -> str:', "Format an amount of cents as a currency string.")
    assert (fmt.line, fmt.path) == (5, "shop/money.py")
    price = syms["Price"]
    assert (price.kind, price.signature, price.doc) == ("class", "class Price(Base):", "A price in cents.")
    add = syms["add"]
    assert (add.kind, add.parent, add.signature) == ("method", "Price", 'def add(self, other: "Price") -> "Price":')
    assert syms["ZERO"].kind == "member" and syms["ZERO"].parent == "Price"
    assert "notes.txt" not in index.files()


def test_javascript_definitions_constants_and_jsdoc(project, tmp_path):
    index = ProjectIndex(project, tmp_path / "cache").build()
    syms = _by_name(index, "web/api.js")
    assert syms["Status"].signature == "export const Status = Object.freeze({ OK: 'ok', NOT_FOUND: 'not_found' });"
    assert syms["Status"].doc == "Statuses of an API response."
    assert syms["PAGE_SIZE"].kind == "constant"
    assert syms["fetchPage"].signature == "export async function fetchPage(n, size = PAGE_SIZE)"
    assert syms["fetchPage"].doc == "Fetches one page."
    assert syms["Client"].signature == "export class Client extends Base"
    assert (syms["get"].kind, syms["get"].parent) == ("method", "Client")
    assert (syms["retries"].kind, syms["retries"].parent) == ("member", "Client")
    assert _by_name(index, "web/use.js")["load"].signature == "export const load = (n) =>"


def test_imports_resolve_to_project_files(project, tmp_path):
    index = ProjectIndex(project, tmp_path / "cache").build()
    py = {i.module: i for i in index.imports_of("shop/cart.py")}
    assert py["shop.money"].path == "shop/money.py"
    assert py["shop.money"].names == (("format_money", "fmt"), ("CURRENCY", "CURRENCY"))
    assert py["."].names == (("api", "api"),)
    assert index.resolve("shop/cart.py", ".api") == "shop/api.py"
    assert py["os.path"].path == ""
    js = {i.module: i for i in index.imports_of("web/use.js")}
    assert js["./api"].path == "web/api.js" and js["./api"].names == (("fetchPage", "fetchPage"), ("Status", "S"))
    assert js["./api.js"].path == "web/api.js" and js["./api.js"].names == (("", "api"),)
    assert js["../lib/util"].path == "lib/util.js" and js["../lib/util"].names == (("helper", "helper"),)
    assert js["path"].path == ""


def test_update_on_a_saved_file_and_remove(project, tmp_path):
    index = ProjectIndex(project, tmp_path / "cache").build()
    target = project / "shop" / "money.py"
    target.write_text(MONEY.replace("def format_money(", "def format_cents("))
    os.utime(target, ns=(time.time_ns(), time.time_ns() + 10_000_000))  # a new mtime even on a coarse clock
    assert index.update("shop/money.py")
    assert index.find("format_money") == []
    assert [s.path for s in index.find("format_cents")] == ["shop/money.py"]
    assert not index.update("shop/money.py")  # unchanged since: nothing to do
    (project / "shop" / "new.py").write_text("def fresh():\n    pass\n")
    assert index.update("shop/new.py") and index.find("fresh")[0].path == "shop/new.py"
    target.unlink()
    assert index.update("shop/money.py")  # gone: removed
    assert index.symbols_in("shop/money.py") == [] and "shop/money.py" not in index.files()
    assert index.remove("shop/new.py") and index.find("fresh") == []
    assert not index.remove("shop/new.py")


def test_a_second_start_reads_only_changed_files_from_the_cache(project, tmp_path):
    cache = tmp_path / "cache"
    first = ProjectIndex(project, cache)
    first.min_cached_files = 0
    first.build()
    assert first.parsed == len(first.files()) == 6
    assert first.cache_path.exists()
    (project / "web" / "use.js").write_text(USE_JS + "export const extra = 1;\n")
    second = ProjectIndex(project, cache)
    second.min_cached_files = 0
    second.build()
    assert second.parsed == 1
    assert _by_name(second, "web/use.js")["extra"].kind == "variable"
    assert _by_name(second, "shop/money.py")["format_money"] == _by_name(first, "shop/money.py")["format_money"]
    (project / "lib" / "util.js").unlink()
    third = ProjectIndex(project, cache)
    third.min_cached_files = 0
    third.build()
    assert third.parsed == 0 and "lib/util.js" not in third.files()


def test_a_foreign_or_broken_cache_is_rebuilt(project, tmp_path):
    index = ProjectIndex(project, tmp_path / "cache")
    index.cache_path.parent.mkdir(parents=True)
    index.cache_path.write_bytes(b"\x80\x04\x95not a pickle")
    index.build()
    assert index.parsed == 6
    import pickle

    # A cache naming a class to load is refused, not executed.
    index.cache_path.write_bytes(pickle.dumps((1, str(index.root), {"x.py": os.stat})))
    again = ProjectIndex(project, tmp_path / "cache").build()
    assert again.parsed == 6


def test_the_watcher_updates_the_index_on_a_save(project, tmp_path):
    from steer_tui.project.watch import IndexWatcher

    index = ProjectIndex(project, tmp_path / "cache").build()
    seen = []
    watcher = IndexWatcher(index, seen.extend).start()
    try:
        assert watcher.ready.wait(10)
        (project / "shop" / "money.py").write_text(MONEY + "\n\ndef refund(cents):\n    return -cents\n")
        deadline = time.time() + 10
        while not index.find("refund") and time.time() < deadline:
            time.sleep(0.02)
        assert index.find("refund")[0].signature == "def refund(cents):"
        assert "shop/money.py" in seen
    finally:
        watcher.stop()
