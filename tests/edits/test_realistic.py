"""Responses shaped like real model output (Aider-, Claude-, GPT- and Codex-style), including
the mistakes models make, through the whole parse -> locate -> apply path."""

from __future__ import annotations

import pytest

from steer_tui.edits.apply import ApplyError, apply_response

PY = '''import json


class Store:
    def __init__(self, path):
        self.path = path
        self.items = {}

    def load(self):
        with open(self.path) as f:
            self.items = json.load(f)
        return self.items

    def save(self):
        with open(self.path, "w") as f:
            json.dump(self.items, f)
        return self.items


class Cache(Store):
    def save(self):
        with open(self.path, "w") as f:
            json.dump(self.items, f)
        return self.items
'''


def test_aider_style_path_fence_and_trailing_whitespace():
    resp = '''store.py
```python
<<<<<<< SEARCH
    def load(self):   
        with open(self.path) as f:
            self.items = json.load(f)
=======
    def load(self):
        with open(self.path, encoding="utf-8") as f:
            self.items = json.load(f)
>>>>>>> REPLACE
```
'''
    res = apply_response(PY, resp)
    assert 'open(self.path, encoding="utf-8")' in res.new_text
    assert res.blocks[0].strategy == "whitespace"


def test_dedented_method_is_reindented_into_the_class():
    resp = '''I'll make `load` return a copy.

```python
<<<<<<< SEARCH
def load(self):
    with open(self.path) as f:
        self.items = json.load(f)
    return self.items
=======
def load(self):
    with open(self.path) as f:
        self.items = json.load(f)
    return dict(self.items)
>>>>>>> REPLACE
```

This way callers cannot mutate the store by accident.
'''
    res = apply_response(PY, resp)
    assert "        return dict(self.items)\n" in res.new_text
    assert res.blocks[0].strategy == "indent"


def test_identical_methods_are_ambiguous_and_feedback_names_both():
    resp = '''<<<<<<< SEARCH
    def save(self):
        with open(self.path, "w") as f:
=======
    def save(self):
        with open(self.path, "w", encoding="utf-8") as f:
>>>>>>> REPLACE
'''
    with pytest.raises(ApplyError) as e:
        apply_response(PY, resp)
    assert e.value.reason == "ambiguous"
    assert "14 |     def save(self):" in e.value.feedback and "21 |     def save(self):" in e.value.feedback


def test_codex_apply_patch_anchor_picks_the_class():
    resp = '''*** Begin Patch
*** Update File: store.py
@@ class Cache(Store):
     def save(self):
         with open(self.path, "w") as f:
-            json.dump(self.items, f)
+            json.dump(self.items, f, indent=2)
*** End Patch
'''
    res = apply_response(PY, resp)
    assert res.new_text.count("indent=2") == 1
    assert res.new_text.index("indent=2") > res.new_text.index("class Cache")


def test_git_diff_output_with_headers_and_wrong_counts():
    resp = '''```diff
diff --git a/store.py b/store.py
index 3b18e51..a8c4f2e 100644
--- a/store.py
+++ b/store.py
@@ -1,3 +1,4 @@
 import json
+import os
 
 
@@ -90,7 +91,7 @@ class Store:
     def __init__(self, path):
-        self.path = path
+        self.path = os.fspath(path)
         self.items = {}
```
'''
    res = apply_response(PY, resp)
    assert res.new_text.startswith("import json\nimport os\n\n\nclass Store:")
    assert "self.path = os.fspath(path)" in res.new_text


def test_curly_quotes_and_spurious_blank_line():
    resp = '''<<<<<<< SEARCH

        with open(self.path, “w”) as f:
            json.dump(self.items, f)
        return self.items


class Cache(Store):
=======

        with open(self.path, "w") as f:
            json.dump(self.items, f, sort_keys=True)
        return self.items


class Cache(Store):
>>>>>>> REPLACE
'''
    res = apply_response(PY, resp)
    assert res.new_text.count("sort_keys=True") == 1
    assert res.blocks[0].strategy == "unicode"
    assert res.new_text.count("\n") == PY.count("\n")


def test_elided_middle_keeps_the_code():
    resp = '''```python
<<<<<<< SEARCH
class Store:
    # ... existing code ...
    def save(self):
=======
class Store:
    """A JSON file of items."""

    # ... existing code ...
    def save(self):
>>>>>>> REPLACE
```
'''
    res = apply_response(PY, resp)
    assert '"""A JSON file of items."""' in res.new_text
    assert "def load(self):" in res.new_text and res.blocks[0].strategy == "elision"


def test_lazy_model_placeholder_is_refused():
    resp = '''<<<<<<< SEARCH
    def load(self):
        with open(self.path) as f:
            self.items = json.load(f)
        return self.items
=======
    def load(self):
        # ... existing code ...
        return dict(self.items)
>>>>>>> REPLACE
'''
    with pytest.raises(ApplyError) as e:
        apply_response(PY, resp)
    assert e.value.reason == "placeholder"


def test_misremembered_context_fuzzy_but_exact_change():
    resp = '''<<<<<<< SEARCH
    def load(self):
        with open(self.path) as fh:
            self.items = json.load(f)
        return self.items
=======
    def load(self):
        with open(self.path) as fh:
            self.items = json.load(f)
        self.loaded = True
        return self.items
>>>>>>> REPLACE
'''
    res = apply_response(PY, resp)
    assert res.blocks[0].strategy == "fuzzy"
    assert "        with open(self.path) as f:\n            self.items = json.load(f)\n        self.loaded = True\n" in res.new_text


def test_non_uniform_indentation_mistake_is_refused():
    resp = '''<<<<<<< SEARCH
def load(self):
        with open(self.path) as f:
    self.items = json.load(f)
=======
def load(self):
        with open(self.path) as f:
    self.items = json.load(f) or {}
>>>>>>> REPLACE
'''
    with pytest.raises(ApplyError):
        apply_response(PY, resp)


GO = "package main\n\nfunc main() {\n\tfor i := 0; i < 3; i++ {\n\t\tfmt.Println(i)\n\t}\n}\n"


def test_go_file_with_tabs_edited_with_spaces():
    resp = '''```go
<<<<<<< SEARCH
    for i := 0; i < 3; i++ {
        fmt.Println(i)
    }
=======
    for i := 0; i < 3; i++ {
        if i > 0 {
            fmt.Println(i)
        }
    }
>>>>>>> REPLACE
```
'''
    res = apply_response(GO, resp)
    assert res.new_text == (
        "package main\n\nfunc main() {\n\tfor i := 0; i < 3; i++ {\n\t\tif i > 0 {\n"
        "\t\t\tfmt.Println(i)\n\t\t}\n\t}\n}\n"
    )


def test_markdown_file_with_fences_edits_exactly():
    md = "# Title\n\n```python\nprint('hi')\n```\n\nEnd.\n"
    resp = "<<<<<<< SEARCH\n```python\nprint('hi')\n```\n=======\n```python\nprint('hello')\n```\n>>>>>>> REPLACE\n"
    assert apply_response(md, resp).new_text == md.replace("'hi'", "'hello'")


def test_rst_heading_in_replace_is_a_malformed_block_not_a_guess():
    resp = "<<<<<<< SEARCH\nimport json\n=======\nTitle\n=======\nimport json\n>>>>>>> REPLACE\n"
    with pytest.raises(ApplyError) as e:
        apply_response(PY, resp)
    assert e.value.reason == "malformed"


def test_claude_style_two_blocks_one_fails_nothing_applies():
    resp = '''I'll make two changes.

First, the constructor:

```python
<<<<<<< SEARCH
        self.items = {}
=======
        self.items: dict = {}
>>>>>>> REPLACE
```

Second, `load`:

```python
<<<<<<< SEARCH
    def load(self, strict=False):
=======
    def load(self, strict=True):
>>>>>>> REPLACE
```
'''
    with pytest.raises(ApplyError) as e:
        apply_response(PY, resp)
    assert e.value.block_index == 1 and "9 |     def load(self):" in e.value.feedback
