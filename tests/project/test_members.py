"""project.members: a member an edit reads from a project module that the module does not have, and none where that is not certain."""

from __future__ import annotations

import pytest

from steer_tui.project.index import ProjectIndex
from steer_tui.project.members import missing_members

FILES = {
    "src/logger.js": "'use strict';\nfunction createLogger(scope) {}\nconst entries = [];\nmodule.exports = { createLogger, entries };\n",
    "src/esm.js": "export function a() {}\nexport const b = 1;\n",
    "src/all.js": "export * from './esm';\nexport const c = 2;\n",
    "src/one.js": "module.exports = function log() {};\n",
    "src/jobs.js": "'use strict';\n\nfunction runJob(job) {\n  console.log('x');\n}\n\nmodule.exports = { runJob };\n",
    "app/__init__.py": "",
    "app/helpers.py": "import os\n\nX = 1\n\n\ndef f():\n    y = 2\n",
    "app/lazy.py": "def __getattr__(name):\n    return name\n",
    "app/main.py": "def g():\n    return 1\n",
}


@pytest.fixture
def index(tmp_path) -> ProjectIndex:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return ProjectIndex(tmp_path, tmp_path / "cache").build()


def _missing(index, rel, head, body):
    old = FILES[rel]
    new = head + old.replace("console.log('x')" if rel.endswith(".js") else "return 1", body)
    return [(m.local, m.member, m.source) for m in missing_members(rel, old, new, index)]


def test_a_javascript_module_s_members_by_require_and_namespace_import(index):
    head = "const logger = require('./logger');\nimport * as e from './esm';\n"
    assert _missing(index, "src/jobs.js", head, "logger.error('x'); logger.createLogger(); e.c(); e.a()") == [
        ("logger", "error", "src/logger.js"), ("e", "c", "src/esm.js")]


def test_nothing_where_the_members_are_not_known_exactly(index):
    # a value exported whole, a re-export of everything, a package outside the project
    head = "const one = require('./one');\nimport * as all from './all';\nconst fs = require('fs');\n"
    assert _missing(index, "src/jobs.js", head, "one.foo(); all.zzz(); fs.nothing()") == []
    # the name is also a parameter somewhere: not only the module
    head = "const logger = require('./logger');\n"
    assert _missing(index, "src/jobs.js", head, "logger.error('x'); [1].map((logger) => logger)") == []


def test_a_python_module_s_members_are_every_name_it_binds(index):
    head = "from app import helpers\nimport app.helpers as h\n"
    assert _missing(index, "app/main.py", head, "return helpers.X + helpers.Y + h.os + h.Z") == [
        ("helpers", "Y", "app/helpers.py"), ("h", "Z", "app/helpers.py")]
    # a package's __init__ and a module __getattr__ may have anything
    assert _missing(index, "app/main.py", "import app\nfrom app import lazy\n", "return app.anything + lazy.what") == []


def test_a_member_the_old_text_read_already_is_not_the_edit_s(index):
    old = "from app import helpers\n\n\ndef g():\n    return helpers.Q\n"
    new = old.replace("helpers.Q", "helpers.Q + 1")
    assert missing_members("app/main.py", old, new, index) == []


def test_names_imported_by_name_that_the_module_lacks(index):
    head = "const { createLogger, error } = require('./logger');\nimport { a, c as cee } from './esm';\n"
    assert _missing(index, "src/jobs.js", head, "createLogger(); error(); a(); cee()") == [
        ("from ./logger", "error", "src/logger.js"), ("from ./esm", "c", "src/esm.js")]
    head = "from app.helpers import X, Y\nfrom app import main, helpers\n"
    assert _missing(index, "app/main.py", head, "return X + Y") == [("from app.helpers", "Y", "app/helpers.py")]


def test_es_and_commonjs_exports_as_other_files_see_them(tmp_path):
    from steer_tui.project.members import _js_members

    class Root:
        root = tmp_path

    cases = {
        "a.ts": ("export function f() {}\nexport const a = 1, b = 2;\nexport { x as y, z };\nexport default 3;\n"
                 "export interface I {}\nexport type T = number;\n", {"f", "a", "b", "y", "z", "default", "I", "T"}),
        "b.js": ("module.exports = { p, q: 1, r() {}, 's': 2 };\nexports.t = 1;\n", {"p", "q", "r", "s", "t"}),
        "c.js": ("export * from './x';\nexport const a = 1;\n", None),
        "d.js": ("module.exports = make;\n", None),
        "e.js": ("module.exports = { ...base, a };\n", None),
        "f.js": ("export { default as Button } from './Button';\n", {"Button"}),
    }
    for name, (text, want) in cases.items():
        (tmp_path / name).write_text(text)
        got = _js_members(Root, name)
        assert (set(got) if got is not None else None) == want, name


def test_a_go_package_s_names_are_its_files_top_level_definitions(tmp_path):
    files = {
        "go.mod": "module example.com/shop\n",
        "money/money.go": "package money\n\n// Cents formats an amount.\nfunc Cents(n int) string { return \"\" }\n",
        "money/rates.go": "package money\n\nconst (\n\tVAT = 21\n\tlow = 9\n)\n",
        "money/money_test.go": "package money\n\nfunc TestHelper() {}\n",
        "cart/cart.go": 'package cart\n\nimport "example.com/shop/money"\n\nfunc Total() string {\n\treturn ""\n}\n',
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    index = ProjectIndex(tmp_path, tmp_path / "cache").build()
    old = files["cart/cart.go"]
    new = old.replace('return ""', "_ = money.VAT + money.Rate\n\tmoney.TestHelper()\n\treturn money.Cents(1) + money.Format(2)")
    got = missing_members("cart/cart.go", old, new, index)
    assert [(m.local, m.member, m.source) for m in got] == [
        ("money", "Format", "package money (money/)"), ("money", "Rate", "package money (money/)"),
        ("money", "TestHelper", "package money (money/)")]
    assert got[0].members == ("Cents", "VAT")
    # a file of the package the index left out (ignored, too big) may define anything: nothing is said
    (tmp_path / ".gitignore").write_text("money/generated.go\n")
    (tmp_path / "money" / "generated.go").write_text("package money\n\nfunc Format(n int) string { return \"\" }\n")
    index = ProjectIndex(tmp_path, tmp_path / "cache2").build()
    assert missing_members("cart/cart.go", old, new, index) == []


def test_a_member_the_words_name_is_the_user_s_own_call(index):
    from types import SimpleNamespace

    from steer_tui.project.members import member_problem

    old = FILES["src/jobs.js"]
    new = "const logger = require('./logger');\n" + old.replace("console.log('x')", "logger.error('x')")
    session = SimpleNamespace(context=SimpleNamespace(index=index, relative_path="src/jobs.js"),
                              document=SimpleNamespace(text=old))
    problem = member_problem(session, new, "log failures through the project logger")
    assert problem is not None and problem.code == "member"
    assert "src/logger.js has no `error`; what it has: `createLogger`, `entries`" in problem.feedback
    assert member_problem(session, new, "call logger.error when a job fails") is None
