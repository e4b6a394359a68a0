"""prompts.rewrite_region for a constant: "set MAX_RETRIES to 5" is asked of that statement, not of the
whole module (steer_tui.named_constants), and never of one of two statements the words do not tell apart."""

from __future__ import annotations

from steer_tui import prompts

MODULE = '''"""Fetching with retries."""

import logging

log = logging.getLogger(__name__)

PAGE_SIZE = 50
# how often fetch tries before it gives up
MAX_RETRIES = 3
TIMEOUTS = {
    "connect": 5,
    "read": 10,
}


class Client:
    DEFAULT_PORT = 80

    def get(self, path):
        return path


class Server:
    DEFAULT_PORT = 8080

    def serve(self):
        return self.DEFAULT_PORT


def fetch_all(urls):
    out = []
    for url in urls:
        for _ in range(MAX_RETRIES):
            out.append(url)
    return out


def load(path):
    return open(path).read()
'''
LINES = MODULE.splitlines()
WHOLE = (0, len(LINES))


def region(words: str, path: str = "fetch.py") -> list[str]:
    a, b = prompts.rewrite_region(MODULE, words, path=path)
    return LINES[a:b]


def test_a_named_module_constant_is_its_statement_with_its_comment():
    assert region("set MAX_RETRIES to 5") == ["# how often fetch tries before it gives up", "MAX_RETRIES = 3"]
    assert region("add `json` to TIMEOUTS with 30") == LINES[9:13]
    assert region("set PAGE_SIZE to 25 and MAX_RETRIES to 10") == LINES[6:9]


def test_a_constant_said_in_words():
    assert region("change the page size to 100") == ["PAGE_SIZE = 50"]
    text = "POOLSIZE = 10\n\n\nclass Adapter:\n    _pool_block: bool\n" + "".join(
        f"\n    def m{i}(self):\n        return {i}\n" for i in range(8))
    assert prompts.rewrite_region(text, "make the default pool size 20", path="a.py") == (0, 1)
    # A lower-case name said in words is as likely plain speech: not the member `_pool_block`.
    assert prompts.rewrite_region(text, "make the pool block", path="a.py") == (0, len(text.splitlines()))


def test_a_class_constant_counts_only_where_the_words_say_which_class():
    assert region("set Server.DEFAULT_PORT to 9000") == ["    DEFAULT_PORT = 8080"]
    assert region("set DEFAULT_PORT in Client to 8000") == ["    DEFAULT_PORT = 80"]
    # Two classes bind it: neither is guessed.
    assert prompts.rewrite_region(MODULE, "set DEFAULT_PORT to 9000", path="fetch.py") == WHOLE


def test_a_function_named_beside_a_constant_is_the_edit():
    assert region("make fetch_all retry MAX_RETRIES times")[0] == "def fetch_all(urls):"
    assert region("make load give up after MAX_RETRIES tries")[0] == "def load(path):"


def test_a_rename_or_a_plain_word_is_not_a_constant_s_region():
    assert prompts.rewrite_region(MODULE, "rename MAX_RETRIES to RETRIES", path="fetch.py") == WHOLE
    # `log` is a module variable, but a plain word is not taken for it.
    assert prompts.rewrite_region(MODULE, "make it log each url", path="fetch.py") == WHOLE


def test_a_deleted_constant_is_asked_with_its_neighbours():
    assert region("remove the MAX_RETRIES constant") == LINES[6:13]


def test_javascript_constants():
    js = "const PAGE_SIZE = 50;\nconst MAX_RETRIES = 3;\n\n" + "\n".join(
        f"function f{i}(x) {{\n  return x + {i};\n}}\n" for i in range(6))
    a, b = prompts.rewrite_region(js, "set MAX_RETRIES to 5", path="fetch.js")
    assert js.splitlines()[a:b] == ["const MAX_RETRIES = 3;"]


def test_constants_in_other_languages_are_their_statements():
    go = ("package fetch\n\nconst (\n\t// how often Fetch tries\n\tMaxRetries = 3\n\tpageSize   = 50\n)\n\n"
          + "\n".join(f"func F{i}(x int) int {{\n\treturn x + {i}\n}}\n" for i in range(6)))
    a, b = prompts.rewrite_region(go, "set MaxRetries to 5", path="fetch.go")
    assert go.splitlines()[a:b] == ["\t// how often Fetch tries", "\tMaxRetries = 3"]
    java = ("class Fetch {\n    static final int MAX_RETRIES = 3;\n\n"
            + "\n".join(f"    int f{i}(int x) {{\n        return x + {i};\n    }}\n" for i in range(6)) + "}\n")
    a, b = prompts.rewrite_region(java, "set MAX_RETRIES to 5", path="Fetch.java")
    assert java.splitlines()[a:b] == ["    static final int MAX_RETRIES = 3;"]
    c = "#define MAX_RETRIES 3\n\n" + "\n".join(f"int f{i}(int x) {{\n    return x + {i};\n}}\n" for i in range(6))
    a, b = prompts.rewrite_region(c, "change the max retries to 5", path="fetch.c")
    assert c.splitlines()[a:b] == ["#define MAX_RETRIES 3"]
