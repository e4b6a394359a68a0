"""A line steer adds to a JavaScript file reads like the file's own (steer_tui/edits/js_style.py)."""

from steer_tui.edits.js_style import JsStyle, js_style
from steer_tui.edits.node_imports import missing


def test_the_first_require_or_import_sets_keyword_quote_and_semicolon():
    assert js_style("var auth = require('basic-auth')\nvar x = 1\n") == JsStyle("var", "'", "")
    assert js_style("'use strict';\nconst { a } = require(\"./a\");\n") == JsStyle("const", '"', ";")
    assert js_style('import fs from "fs"\nexport const x = 1\n') == JsStyle(quote='"', semicolon="")
    assert js_style("import './polyfill';\n") == JsStyle(quote="'", semicolon=";")


def test_without_either_the_files_statements_decide_and_the_default_is_semicolons():
    assert js_style("function f() {\n  return 1\n}\nf()\nlet a = 2\nlet b = 3\n").semicolon == ""
    assert js_style("let a = 2;\nf(a)\n").semicolon == ";"
    assert js_style("") == JsStyle()


def test_a_node_built_in_is_required_as_the_file_requires():
    old = "var debug = require('debug')('morgan')\n\nfunction flush (buf) {\n  return buf\n}\n"
    new = old.replace("  return buf\n", "  fs.appendFileSync(process.env.LOG, buf)\n  return buf\n")
    assert missing("index.js", old, new, esm=False) == ["var fs = require('fs')"]
    assert JsStyle().require("{ a, b }", "./x") == "const { a, b } = require('./x');"
    assert JsStyle(quote='"', semicolon="").import_("* as fs", "fs") == 'import * as fs from "fs"'


def test_a_list_of_names_is_padded_inside_its_braces_as_the_files_own():
    assert js_style("import {type InternalOptions} from '../types/options.js';\n").names(["a", "b"]) == "{a, b}"
    assert js_style("import ky, {HTTPError} from 'ky';\n").padding == ""
    assert js_style("const {a} = require('./a');\n").names(["b"]) == "{b}"
    assert js_style("import { a } from './a.js';\n").names(["b"]) == "{ b }"
    assert js_style("import x from './x.js';\n").names(["b"]) == "{ b }"  # nothing to go by: padded
    old = "import {promisify} from 'node:util';\n\nexport function run(cmd) {\n  return cmd;\n}\n"
    new = old.replace("  return cmd;", "  return execSync(cmd);")
    assert missing("run.js", old, new, esm=True) == ["import {execSync} from 'child_process';"]
