"""lang.outline's constants, variables and class members in every language the layer knows: bound
outside a function only, named each, with the statement's lines, a signature that reads as code and
the comment above as its doc."""

from __future__ import annotations

import pytest

from steer_tui import lang

_KINDS = ("constant", "variable", "member")

CASES = {
    "a.go": ('package x\n\n// Max is the most there is.\nconst Max = 5\n\nconst (\n\t// ErrX is bad.\n'
             '\tErrX strErr = "x"\n\ta, b = 1, 2\n)\n\nvar (\n\tpid = 1\n)\n\nfunc f() {\n\tconst z = 1\n}\n',
             [("Max", "constant", 3, "const Max = 5", "Max is the most there is.", ""),
              ("ErrX", "constant", 7, 'const ErrX strErr = "x"', "ErrX is bad.", ""),
              ("a", "constant", 8, "const a, b = 1, 2", "", ""),
              ("b", "constant", 8, "const a, b = 1, 2", "", ""),
              ("pid", "variable", 12, "var pid = 1", "", "")]),
    "a.rs": ('/// The limit.\nconst MAX: u32 = 5;\nstatic NAME: &str = "x";\nimpl Foo {\n    const LIMIT: usize = 3;\n}\n'
             'fn f() {\n    const Z: u8 = 1;\n}\n',
             [("MAX", "constant", 1, "const MAX: u32 = 5;", "The limit.", ""),
              ("NAME", "constant", 2, 'static NAME: &str = "x";', "", ""),
              ("LIMIT", "member", 4, "const LIMIT: usize = 3;", "", "Foo")]),
    "A.java": ('class A {\n    public static final int MAX = 5;\n    private int count, other;\n'
               '    void f() {\n        int y = 2;\n    }\n}\n',
               [("MAX", "member", 1, "public static final int MAX = 5;", "", "A"),
                ("count", "member", 2, "private int count, other;", "", "A"),
                ("other", "member", 2, "private int count, other;", "", "A")]),
    "a.c": ('#define MAX 5\nstatic const int LIMIT = 3;\nint counter = 0;\nint f(int);\n'
            'void g(void) {\n    int z = 1;\n}\n',
            [("MAX", "constant", 0, "#define MAX 5", "", ""),
             ("LIMIT", "constant", 1, "static const int LIMIT = 3;", "", ""),
             ("counter", "variable", 2, "int counter = 0;", "", "")]),
    "a.cs": ('class A {\n    public const int Max = 5;\n    void F() {\n        int y = 2;\n    }\n}\n',
             [("Max", "member", 1, "public const int Max = 5;", "", "A")]),
    "a.rb": ('MAX = 5\nmodule M\n  LIMIT = 3\n  def f\n    z = 1\n  end\nend\n',
             [("MAX", "constant", 0, "MAX = 5", "", ""), ("LIMIT", "member", 2, "LIMIT = 3", "", "M")]),
    "a.php": ('<?php\nconst MAX = 5;\nclass A {\n    const LIMIT = 3;\n}\n',
              [("MAX", "constant", 1, "const MAX = 5;", "", ""), ("LIMIT", "member", 3, "const LIMIT = 3;", "", "A")]),
    "a.sh": ('MAX=5\nreadonly LIMIT=3\nfor i in 1 2; do\n  n=$i\ndone\nf() {\n  local z=1\n}\n',
             [("MAX", "constant", 0, "MAX=5", "", ""), ("LIMIT", "constant", 1, "readonly LIMIT=3", "", "")]),
}


@pytest.mark.parametrize("path", sorted(CASES))
def test_values_bound_outside_functions(path):
    text, want = CASES[path]
    syms, _ = lang.outline(path, text)
    got = [(s.name, s.kind, s.line, s.signature, s.doc, s.parent) for s in syms if s.kind in _KINDS]
    assert got == want
    for s in syms:
        if s.kind in _KINDS:
            assert s.end == s.line + 1  # one line each here: a `#define` does not take the next


def test_a_value_spans_its_statement():
    text = "package x\n\nvar table = map[string]int{\n\t\"a\": 1,\n\t\"b\": 2,\n}\n"
    (sym,) = [s for s in lang.outline("t.go", text)[0] if s.name == "table"]
    assert (sym.line, sym.end, sym.kind) == (2, 6, "variable")
    assert sym.signature == 'var table = map[string]int{\n\t"a": 1,\n\t"b": 2,\n}'


IMPORTS = {
    "a.c": ('#include "money.h"\n#include <stdio.h>\n#ifndef X\n#include "util/fmt.h"\n#endif\n',
            [("money.h", (("*", "*"),)), ("<stdio.h>", ()), ("util/fmt.h", (("*", "*"),))]),
    "A.java": ("package com.acme.shop;\nimport com.acme.money.Money;\nimport static com.acme.money.Money.MAX;\n"
               "import java.util.*;\n",
               [("com.acme.money.Money", (("Money", "Money"),)), ("com.acme.money.Money", (("MAX", "MAX"),))]),
    "a.rs": ("use crate::money::format_price;\nuse crate::shop::{Cart, Item as It};\n",
             [("crate::money", (("format_price", "format_price"),)), ("crate::shop", (("Cart", "Cart"), ("Item", "It")))]),
    "a.rb": ('require_relative "money"\nrequire "shop/cart"\nrequire "#{dir}/x"\n',
             [("./money", (("*", "*"),)), ("shop/cart", (("*", "*"),))]),
    "a.go": ('package main\n\nimport (\n\t"fmt"\n\tm "example.com/shop/money"\n\t_ "embed"\n'
             '\t"github.com/go-chi/chi/v5"\n\t"gopkg.in/yaml.v3"\n)\n',
             [("fmt", (("", "fmt"),)), ("example.com/shop/money", (("", "m"),)),
              ("github.com/go-chi/chi/v5", (("", "chi"),)), ("gopkg.in/yaml.v3", (("", "yaml"),))]),
    "a.php": ("<?php\nnamespace App\\Http;\nuse App\\Models\\User;\nuse App\\Support\\Money as Cash;\n",
              [("App\\Models\\User", (("User", "User"),)), ("App\\Support\\Money", (("Money", "Cash"),))]),
    "b.php": ("<?php\nrequire_once __DIR__ . '/lib/money.php';\nrequire 'config.php';\n"
              "include_once(dirname(__FILE__) . \"/../x.php\");\nrequire $base . '/y.php';\n",
              [("./lib/money.php", (("*", "*"),)), ("./config.php", (("*", "*"),)), ("./../x.php", (("*", "*"),))]),
}


@pytest.mark.parametrize("path", sorted(IMPORTS))
def test_imports_of_the_other_languages(path):
    text, want = IMPORTS[path]
    assert [(i.module, i.names) for i in lang.outline(path, text)[1]] == want
