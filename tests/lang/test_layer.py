"""steer_tui.lang on a real small file of every language: its definitions, the one at a line, and the
syntax errors an edit brings in (not those the file already had)."""

from __future__ import annotations

import pytest

from steer_tui import lang

from .samples import SAMPLES

IDS = [s.path for s in SAMPLES]


def edited(text: str, change: tuple[str, str]) -> str:
    old, new = change
    assert text.count(old) == 1, old
    return text.replace(old, new)


def test_every_language_of_the_issue_is_known():
    names = {spec.name for spec in lang.LANGUAGES}
    assert {"Python", "JavaScript", "TypeScript", "TSX", "Go", "Rust", "Java", "C", "C++", "C#", "Ruby", "PHP",
            "Bash"} <= names
    assert lang.language("a/b.TS").name == "TypeScript" and lang.language("x.hpp").name == "C++"


def test_an_unknown_extension_is_no_language():
    assert lang.language("notes.txt") is None and lang.language(None) is None
    assert lang.definitions("notes.txt", "def f():\n    pass\n") == []
    assert lang.innermost("notes.txt", "def f():\n    pass\n", 1) is None
    assert lang.syntax_errors("notes.txt", "{{{") == [] and lang.introduced_errors("x.txt", "a", "{{{") == []


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_definitions(sample):
    found = {(d.qualname, d.kind) for d in lang.definitions(sample.path, sample.text)}
    assert set(sample.defs) <= found, found


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_innermost_definition_at_a_line(sample):
    line, qualname = sample.at
    inner = lang.innermost(sample.path, sample.text, line)
    assert inner is not None and inner.qualname == qualname
    lines = sample.text.splitlines()
    assert inner.start <= inner.line <= line < inner.end <= len(lines)
    # The span starts where the definition does (its annotations first), or above it.
    assert inner.name in "".join(lines[inner.line:inner.line + 2])
    assert lines[inner.end - 1].strip()  # and ends on its last line, not on a blank after it


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_the_sample_parses_and_a_good_edit_brings_no_error(sample):
    assert lang.syntax_errors(sample.path, sample.text) == []
    assert lang.introduced_errors(sample.path, sample.text, edited(sample.text, sample.good)) == []


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_a_breaking_edit_is_flagged(sample):
    broken = edited(sample.text, sample.breaks)
    found = lang.introduced_errors(sample.path, sample.text, broken)
    assert found and all(0 <= e.line <= e.end < len(broken.splitlines()) + 1 for e in found)
    assert found[0].message.startswith(("missing", "unexpected"))


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_an_edit_to_a_file_that_had_an_error_is_not_blamed_for_it(sample):
    had = edited(sample.text, sample.breaks)
    assert lang.syntax_errors(sample.path, had)
    # A good edit elsewhere leaves the error where it was: nothing is the edit's.
    assert lang.introduced_errors(sample.path, had, edited(had, sample.good)) == []


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_a_file_with_an_error_is_still_blamed_for_a_new_one(sample):
    had = sample.text + "\n) ] (\n"
    assert lang.syntax_errors(sample.path, had)
    assert lang.introduced_errors(sample.path, had, edited(had, sample.good)) == []
    if sample.path.endswith(".sh"):
        # Bash's recovery makes one ERROR of the whole file around the stray `)`: nothing to tell apart.
        return
    # Recovery may fold the new error into the old one's: blamed for the lines it newly covers.
    assert lang.introduced_errors(sample.path, had, edited(had, sample.breaks))


def test_the_missing_brace_of_a_file_moves_with_its_end():
    # A file without its last `}`: its MISSING `}` is at the end, wherever an edit moves that.
    text = "function f(a) {\n  return a;\n"
    grown = text + "function g() {\n  return 2;\n}\n"
    assert lang.syntax_errors("a.js", text) and lang.syntax_errors("a.js", grown)
    assert lang.introduced_errors("a.js", text, grown) == []


def test_a_stray_end_in_ruby_is_an_error_but_a_method_named_end_is_not():
    good = "r = (1..3)\nputs r.end\n"
    assert lang.syntax_errors("a.rb", good) == []
    errors = lang.syntax_errors("a.rb", "class A\nend\nend\n")
    assert [e.line for e in errors] == [2] and "end" in errors[0].message


def test_decorators_attributes_and_doc_comments_belong_to_the_definition():
    assert lang.innermost("a.py", "@cache\ndef f():\n    pass\n", 0).name == "f"
    rust = "/// Doc.\n#[inline]\nfn f() {}\n"
    d = lang.innermost("a.rs", rust, 2)
    assert (d.start, d.line, d.end) == (0, 2, 3)
    # A comment after code on its line is that code's, not the next definition's.
    js = "let a = 1; // one\nfunction f() {}\n"
    assert lang.innermost("a.js", js, 1).start == 1


def test_comments_and_docstrings():
    py = 'def f():\n    """Doc."""\n    # why\n    return 1\n'
    assert lang.comment_spans("a.py", py) == [(1, 1), (2, 2)]
    assert lang.same_code("a.py", py, py.replace("Doc.", "Other.").replace("# why", "# because")) is True
    assert lang.same_code("a.py", py, py.replace("return 1", "return 2")) is False
    go = "package p\n\n// F is.\nfunc F() int {\n\treturn 1 /* one */\n}\n"
    assert lang.comment_spans("a.go", go) == [(2, 2), (4, 4)]
    assert lang.same_code("a.go", go, go.replace("/* one */", "").replace("F is.", "F.")) is True
    assert lang.same_code("a.go", go, go.replace("return 1", "return 2")) is False
    assert lang.same_code("a.go", go, go.replace("{", "")) is None  # a text with errors: cannot tell
    assert lang.same_code("a.txt", "a", "b") is None


def test_a_reparse_after_an_edit_is_the_same_as_a_fresh_parse():
    from steer_tui.lang.parsing import parse

    spec = lang.language("a.java")
    text = "class A {\n    int f() { return 1; }\n}\n"
    parse(spec, text)
    for new in (text.replace("1", "12"), text.replace("return 1;", ""), text[:-2], "x" + text):
        import tree_sitter

        fresh = tree_sitter.Parser(spec_language(spec)).parse(new.encode())
        assert str(parse(spec, new).root_node) == str(fresh.root_node)


def spec_language(spec):
    from steer_tui.lang.parsing import language

    return language(spec)


def test_every_line_of_a_doc_comment_belongs_to_the_definition():
    # Rust's line comments hold their newline: each ends where the next begins.
    rust = "fn a() {} // trailing\n/// One.\n/// Two.\n#[inline]\nfn f() {}\n"
    assert [(d.name, d.start) for d in lang.definitions("a.rs", rust)] == [("a", 0), ("f", 1)]


def test_a_generic_impl_or_template_is_named_by_its_base_type():
    rust = "struct Lexer<'a> { s: &'a str }\nimpl<'a> Lexer<'a> {\n    fn new() {}\n}\n"
    assert [(d.qualname, d.kind) for d in lang.definitions("a.rs", rust)] == [
        ("Lexer", "struct"), ("Lexer", "impl"), ("Lexer.new", "method")]
    cpp = "template <typename T> class Box<T*> { void f() {} };\n"
    assert [d.qualname for d in lang.definitions("a.cpp", cpp)] == ["Box", "Box.f"]


@pytest.mark.parametrize("path, text, want", [
    ("Item.cs", "namespace Shop.Models\n{\n    public class Item\n    {\n        public int Count() => 1;\n    }\n}\n",
     [("Item", "class", ""), ("Count", "method", "Item")]),
    ("Item.cs", "namespace Shop.Models;\n\npublic record Item(string Name);\n", [("Item", "record", "")]),
    ("geo.cpp", "namespace geo {\nconst double R = 1;\ndouble dist(double a) { return a * R; }\n}\n",
     [("R", "constant", ""), ("dist", "function", "")]),
])
def test_a_namespace_is_a_scope_its_declarations_are_top_level(path, text, want):
    """What a C# or C++ namespace declares is used by its own name once the namespace is imported."""
    symbols, _ = lang.outline(path, text)
    assert [(s.name, s.kind, s.parent) for s in symbols] == want


def test_csharp_usings_name_namespaces():
    text = ("using System;\nusing static System.Math;\nusing M = Shop.Models;\nusing Shop.Models;\n"
            "namespace Shop.Services\n{\n    using Shop.Util;\n    class A {}\n}\n")
    assert [(i.module, i.names) for i in lang.outline("A.cs", text)[1]] == [
        ("System", (("*", "*"),)), ("Shop.Models", (("*", "*"),)), ("Shop.Util", (("*", "*"),))]
