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


@pytest.fixture
def index(tmp_path) -> ProjectIndex:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return ProjectIndex(tmp_path, tmp_path / "cache").build()


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


def test_the_fallback_place_is_right_above_the_first_definition(index):
    new = FILES["app/queries.py"].replace("rows[page * 10:]", "rows[page * PAGE_SIZE:]")
    got = _needed(index, "app/queries.py", new, "use the page size")
    assert (got[0].fallback, got[0].fallback_text) == (5, "from app.settings import PAGE_SIZE\n\n\n")


def test_a_project_module_the_context_showed_wins_over_a_standard_library_one(tmp_path):
    files = {"app/statistics.py": "def mean(xs):\n    \"\"\"The project's own mean.\"\"\"\n    return sum(xs) / len(xs)\n",
             "app/report.py": '"""Report."""\n\nimport json\n\n\ndef summary(xs):\n    return json.dumps(xs)\n'}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    index = ProjectIndex(tmp_path, tmp_path / "cache").build()
    old = files["app/report.py"]
    new = old.replace("json.dumps(xs)", "json.dumps({'mean': mean(xs), 'when': datetime.now().isoformat()})")
    items = select_context(index, "app/report.py", old, None, "add the mean from the statistics module", 800)
    got = needed("app/report.py", old, new, items, index)
    assert [g.text for g in got] == ["from datetime import datetime\nfrom app.statistics import mean\n"]


def test_a_name_the_context_did_not_show_is_imported_where_one_project_file_defines_it(tmp_path):
    """As an editor offers: `format_money` read free, defined at top level by one other file of the
    project; a name two files define, or one a module keeps to itself, gets nothing."""
    files = dict(FILES)
    files["app/report.py"] = "def _inner(x):\n    return x\n\n\ndef paginate(rows):\n    return rows\n"
    files["app/__init__.py"] = ""
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    index = ProjectIndex(tmp_path, tmp_path / "cache").build()
    old = '"""Totals."""\n\nimport json\n\n\ndef total(rows):\n    return sum(rows)\n'
    new = old.replace("return sum(rows)", "return format_money(sum(rows)) + str(PAGE_SIZE)")
    got = needed("app/totals.py", old, new, (), index)
    assert [g.text for g in got] == ["from app.money import format_money\nfrom app.settings import PAGE_SIZE\n"]
    assert needed("app/totals.py", old, old.replace("sum(rows)", "paginate(rows)"), (), index) == []  # two files
    assert needed("app/totals.py", old, old.replace("sum(rows)", "_inner(rows)"), (), index) == []  # private


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
