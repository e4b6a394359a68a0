"""The Node built-in module a JavaScript/TypeScript edit reads that its file lacks (steer_tui/edits/node_imports.py)."""

from steer_tui.edits.node_imports import missing

OLD = "'use strict';\n\nconst { total } = require('./money');\n\nfunction save(report, dir) {\n  return total(report);\n}\n"


def _edit(body: str) -> str:
    return OLD.replace("  return total(report);\n", body)


def test_a_module_read_free_is_required_in_the_files_style():
    new = _edit("  fs.writeFileSync(path.join(dir, 'r.txt'), String(total(report)));\n")
    assert missing("r.js", OLD, new, esm=False) == ["const fs = require('fs');", "const path = require('path');"]
    assert missing("r.ts", OLD, new, esm=True) == ["import * as fs from 'fs';", "import * as path from 'path';"]


def test_a_distinctive_bare_name_comes_from_the_one_module_that_exports_it():
    new = _edit("  return createHash('sha1').update(readFileSync(dir)).digest('hex');\n")
    assert missing("r.js", OLD, new, esm=False) == ["const { createHash } = require('crypto');",
                                                    "const { readFileSync } = require('fs');"]
    assert missing("r.mjs", OLD, new, esm=True) == ["import { createHash } from 'crypto';",
                                                    "import { readFileSync } from 'fs';"]
    # short or common words are never taken for a module's: `join` may be anything
    assert missing("r.js", OLD, _edit("  return join(dir, exec(report));\n"), esm=False) == []


def test_a_name_bound_anywhere_or_an_attribute_the_module_lacks_gets_nothing():
    assert missing("r.js", OLD, _edit("  const path = dir;\n  return path.join('x');\n"), esm=False) == []
    assert missing("r.js", OLD, OLD.replace("save(report, dir)", "save(report, path)") + "path.join();\n",
                   esm=False) == []
    assert missing("r.js", OLD, _edit("  return fs.noSuchThing(dir);\n"), esm=False) == []
    assert missing("r.js", OLD, _edit("  return this.fs.readFileSync(dir);\n"), esm=False) == []


def test_what_the_file_read_free_before_and_text_that_does_not_parse_are_left_alone():
    had = _edit("  return fs.readFileSync(dir);\n")
    assert missing("r.js", had, had + "\nfs.existsSync('x');\n", esm=False) == []
    assert missing("r.js", OLD, _edit("  return fs.readFileSync(dir;\n"), esm=False) == []
    assert missing("r.py", OLD, _edit("  return fs.readFileSync(dir);\n"), esm=False) == []
