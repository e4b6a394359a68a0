"""`?where ...` questions: the project lines a question's words name, and the references an answer makes."""

import subprocess
from pathlib import Path

import pytest

from steer_tui.project.context import name_words, stem
from steer_tui.project.where import places_block, question_words, references, where


def _project(tmp_path: Path, git: bool) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "config.py").write_text('"""Settings."""\nMAX_RETRIES = 5\nTIMEOUT_S = 3.0\n')
    (tmp_path / "pkg" / "client.py").write_text(
        "from pkg.config import MAX_RETRIES\n\n\ndef fetch(url):\n    for attempt in range(MAX_RETRIES):\n        pass\n")
    (tmp_path / "README.md").write_text("# demo\n")
    (tmp_path / "big.min.js").write_text("var retries=" + "1," * 400 + "0;\n")
    (tmp_path / "blob.bin").write_bytes(b"\0retry limit\0")
    if git:
        subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
        (tmp_path / ".gitignore").write_text("ignored/\n")
        (tmp_path / "ignored").mkdir()
        (tmp_path / "ignored" / "x.py").write_text("RETRY_LIMIT = 1\n")
    return tmp_path


def test_words_of_a_question_are_stems_without_the_question():
    assert question_words("Where is the retry limit set?") == ["retry", "limit"]
    assert question_words("where do we handle MAX_RETRIES") == ["max", "retry"]
    assert stem("retries") == stem("retry") == "retry"
    assert name_words("maxRetries") == name_words("MAX_RETRIES") == ("max", "retries")


@pytest.mark.parametrize("git", [True, False])
def test_where_finds_the_assignment_first_and_leaves_out_binary_long_and_ignored_lines(tmp_path, git):
    root = _project(tmp_path, git)
    files = ["pkg/config.py", "pkg/client.py", "README.md", "big.min.js", "blob.bin"]
    hits = where(root, "where is the retry limit set", files=None if git else files)
    assert hits[0].path == "pkg/config.py" and hits[0].line == 2 and hits[0].text == "MAX_RETRIES = 5"
    assert {h.path for h in hits} == {"pkg/config.py", "pkg/client.py"}
    block = places_block(hits)
    assert "pkg/config.py:2: MAX_RETRIES = 5" in block


def test_a_line_in_a_test_or_a_document_counts_half_unless_the_question_is_about_them(tmp_path):
    """requests: "where are proxies read from the environment" found `test_use_proxy_from_environment`
    before the code that reads them."""
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "src" / "utils.py").write_text("def proxies_from_environment(url):\n    return getproxies()\n")
    (tmp_path / "tests" / "test_utils.py").write_text("def test_proxies_read_from_environment(monkeypatch):\n    pass\n")
    (tmp_path / "HISTORY.md").write_text("- Proxies are read from the environment again.\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    assert where(tmp_path, "where are proxies read from the environment")[0].path == "src/utils.py"
    assert where(tmp_path, "which test checks that proxies are read from the environment")[0].path == "tests/test_utils.py"


def test_the_definition_around_a_line_names_it_too(tmp_path, monkeypatch):
    """`limit: 2` inside `defaultRetryOptions` is the retry limit; `limit: 100` in `pageOptions` is
    not. With the project's index the definitions come from it, and no file is parsed again."""
    import steer_tui.lang as lang
    from steer_tui.project.index import ProjectIndex

    (tmp_path / "options.js").write_text("const pageOptions = {\n  limit: 100,\n};\n\n"
                                         "const defaultRetryOptions = {\n  limit: 2,\n  methods: ['get'],\n};\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    hits = where(tmp_path, "where is the retry limit set")
    assert (hits[0].line, hits[0].text) == (6, "limit: 2,")
    index = ProjectIndex(tmp_path, tmp_path / ".cache").build()
    parsed = []
    outline = lang.outline
    monkeypatch.setattr(lang, "outline", lambda *a, **k: parsed.append(a[0]) or outline(*a, **k))
    again = where(tmp_path, "where is the retry limit set", index=index)
    assert (again[0].line, again[0].text) == (6, "limit: 2,") and parsed == []


def test_a_question_of_stop_words_or_no_match_finds_nothing(tmp_path):
    root = _project(tmp_path, True)
    assert where(root, "where is it?") == []
    assert where(root, "where is the spaceship") == []
    assert places_block([]) == ""


def test_references_in_an_answer():
    text = "It is set at `pkg/config.py:2` and read in pkg/client.py:5 (see note:3, ./pkg/config.py:2)."
    assert references(text) == [("pkg/config.py", 2), ("pkg/client.py", 5)]
    assert references(text, {"pkg/client.py"}) == [("pkg/client.py", 5)]


def test_references_written_in_words():
    text = "The retry limit is set in `pkg/config.py` at line 2; the client reads it in pkg/client.py, line 5."
    assert references(text) == [("pkg/config.py", 2), ("pkg/client.py", 5)]
    assert references("It is detected in the `app/main/routes.py` file at line 32.") == [("app/main/routes.py", 32)]
    assert references("It is checked in index.js at lines 78 and 59, and in lib/a.js, lines 3, 4.") == [
        ("index.js", 78), ("index.js", 59), ("lib/a.js", 3), ("lib/a.js", 4)]


def _hits(*rows):
    from steer_tui.project.where import Hit

    return [Hit(path, line, text, 10.0) for path, line, text in rows]


# The places a microblog question showed ("where is the number of posts per page set").
PAGE_HITS = _hits(("app/main/routes.py", 43, "per_page=current_app.config['POSTS_PER_PAGE'],"),
                  ("app/main/routes.py", 60, "per_page=current_app.config['POSTS_PER_PAGE'],"),
                  ("config.py", 25, "POSTS_PER_PAGE = 25"),
                  ("app/api/users.py", 20, "per_page = min(request.args.get('per_page', 10, type=int), 100)"),
                  ("app/models.py", 21, "def search(cls, expression, page, per_page):"))


def test_an_answer_naming_a_setting_and_its_file_cites_the_line_that_sets_it():
    from steer_tui.project.where import cited

    text = "The number of posts per page is set in the POSTS_PER_PAGE configuration variable in the config.py file."
    assert [(h.path, h.line) for h in cited(text, PAGE_HITS)] == [("config.py", 25)]
    # Without the file: of the three lines naming it, the one that sets it.
    assert [(h.path, h.line) for h in cited("It is `POSTS_PER_PAGE`.", PAGE_HITS)] == [("config.py", 25)]


def test_a_name_on_too_many_places_or_plain_words_cite_nothing():
    from steer_tui.project.where import cited

    many = _hits(*[(f"pkg/m{i}.py", 3, "return per_page * 2") for i in range(3)])
    assert cited("It multiplies `per_page` by two.", many) == []
    assert cited("The number of posts per page is set in the configuration.", PAGE_HITS) == []
    # A file named that has two places is no single place either.
    assert cited("See routes.py.", PAGE_HITS) == []
    # A name whose places are all in files other than the one the answer names: none of them.
    assert cited("The `search` function in app/main/routes.py checks it.", PAGE_HITS) == []


def test_a_named_file_with_one_place_is_cited_and_written_references_are_not_repeated():
    from steer_tui.project.where import cited

    assert [(h.path, h.line) for h in cited("Look in app/models.py.", PAGE_HITS)] == [("app/models.py", 21)]
    assert cited("It is set at config.py:25 as `POSTS_PER_PAGE`.", PAGE_HITS) == []
    # A file name two places' files share names neither.
    two = _hits(("a/config.py", 2, "LIMIT = 1"), ("b/config.py", 4, "LIMIT = 2"))
    assert cited("It is in config.py.", two) == []


def test_a_path_written_without_its_leading_folder_names_the_one_place_file_it_ends():
    """requests: "the `prepare_content_length` method ... in the `requests/models.py` file"."""
    from steer_tui.project.where import cited

    hits = _hits(("src/requests/models.py", 654, "def prepare_content_length(self, body):"),
                 ("src/requests/adapters.py", 679, 'chunked = "Content-Length" not in request.headers'))
    answer = "It is set in the `prepare_content_length` method in the `requests/models.py` file."
    assert [(h.path, h.line) for h in cited(answer, hits)] == [("src/requests/models.py", 654)]
    # Two files end so: neither is meant.
    both = hits + _hits(("lib/requests/models.py", 9, "def prepare_content_length(self):"))
    assert cited(answer, both) == []


def test_a_name_the_answer_places_in_a_file_it_names_is_found_there_by_its_definition(tmp_path):
    from steer_tui.project.where import cited

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "utils.py").write_text("import os\n\n\ndef get_environ_proxies(url):\n    return os.environ\n")
    shown = _hits(("tests/test_requests.py", 12, "assert get_environ_proxies(url) == {}"))
    text = "The proxies are read in the `get_environ_proxies` function in `src/utils.py`."
    assert [(h.path, h.line) for h in cited(text, shown, tmp_path)] == [("src/utils.py", 4)]
    # Without the folder to read it from, the file named holds none of the places shown: none.
    assert cited(text, shown) == []
    # A file the answer names that does not define the name: nothing, not the test's line.
    assert cited("It is `get_environ_proxies` in `src/other.py`.", shown, tmp_path) == []


def test_a_definition_or_an_assignment_is_preferred_to_a_use():
    from steer_tui.project.where import cited

    shown = _hits(("index.js", 107, "req._remoteAddress = getip(req)"),
                  ("index.js", 228, "morgan.token('response-time', function getResponseTimeToken (req, res, digits) {"),
                  ("README.md", 54, "`getResponseTimeToken` is the name of the token function"),
                  ("index.js", 493, "function getip (req) {"),
                  ("index.js", 495, "req._remoteAddress ||"))
    assert [(h.path, h.line) for h in cited("It is `getResponseTimeToken`.", shown)] == [("index.js", 228)]
    text = "It is read from `req._remoteAddress`, which the `getip` function sets."
    assert [(h.path, h.line) for h in cited(text, shown)] == [("index.js", 107), ("index.js", 493)]


def test_a_path_names_no_code_and_a_definition_outranks_an_export():
    from steer_tui.project.where import cited

    shown = _hits(("src/requests/utils.py", 208, "# let requests chunk it instead."),
                  ("src/requests/utils.py", 267, "_netrc = netrc(netrc_path).authenticators(host)"),
                  ("index.js", 18, "module.exports.compile = compile"),
                  ("index.js", 401, "function compile (format) {"))
    assert cited("It is read in `src/requests/utils.py`, in a function.", shown) == []
    text = "The format string is compiled in the `compile` function in `index.js`."
    assert [(h.path, h.line) for h in cited(text, shown)] == [("index.js", 401)]


def test_a_span_of_code_names_nothing_and_a_file_given_a_line_gets_no_other_place():
    from steer_tui.project.where import cited

    shown = _hits(("index.js", 59, "function morgan (format, options) {"),
                  ("index.js", 212, "morgan.token('url', function getUrlToken (req) {"),
                  ("app/main/routes.py", 116, "def follow(username):"))
    assert cited("It is sent to the `/users/<username>/follow` endpoint.", shown) == []
    assert cited("The status token is computed in the `morgan` module at index.js:283.", shown) == []
    text = "It is `morgan.token('url', function getUrlToken (req) { ... })`, in index.js."
    assert cited(text, shown) == []
    assert [(h.path, h.line) for h in cited("See `module.getUrlToken()`.", shown)] == [("index.js", 212)]


def test_a_plain_word_cites_only_its_definition_and_a_reference_may_say_file_line():
    from steer_tui.project.where import cited, references

    shown = _hits(("index.js", 329, "morgan.token('http-version', function getHttpVersionToken (req) {"),
                  ("README.md", 37, "where `tokens` is an object, `req` is the HTTP request"),
                  ("lib/errors.py", 31, "self.response = response"),
                  ("index.js", 493, "function getip (req) {"))
    assert cited("It takes the `req` object.", shown) == []
    assert cited("It keeps the `response` it was given.", shown) == []
    assert [(h.path, h.line) for h in cited("It is the `getip` function.", shown)] == [("index.js", 493)]
    assert references("It is in the `index.js` file, line 337.") == [("index.js", 337)]
