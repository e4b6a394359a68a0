"""The standard-library modules a Python edit reads without an import (steer_tui/edits/stdlib_imports.py),
and where the import goes (steer_tui/project/imports.needed without a project)."""

from __future__ import annotations

from steer_tui.edits.stdlib_imports import missing
from steer_tui.project.imports import needed

OLD = '''"""Jobs."""

from dataclasses import dataclass


@dataclass
class Job:
    name: str


def run(job, tries):
    for _ in range(tries):
        if job.name:
            return True
    return False
'''


def _edit(body: str) -> str:
    return OLD.replace("        if job.name:\n            return True\n", body)


def test_a_module_read_free_is_missing():
    new = _edit("        if job.name:\n            return True\n        time.sleep(1)\n")
    assert missing(OLD, new) == ["import time"]
    new = _edit("        log.info(json.dumps({'job': job.name}))\n        return os.getenv('X')\n")
    assert missing(OLD, new) == ["import json", "import os"]  # `log` is no standard-library module


def test_the_import_is_the_one_under_which_every_attribute_exists():
    assert missing(OLD, _edit("        job.at = datetime.now().isoformat()\n")) == ["from datetime import datetime"]
    assert missing(OLD, _edit("        job.at = datetime.date.today()\n")) == ["import datetime"]
    assert missing(OLD, _edit("        job.copy = copy.copy(job)\n")) == ["import copy"]
    # `datetime.now` and `datetime.timezone` exist under no one import: nothing rather than a guess
    assert missing(OLD, _edit("        job.at = datetime.now(datetime.timezone.utc)\n")) == []
    # names from one module share one line, whichever rule found them
    assert missing(OLD, _edit("        job.at = datetime.now(timezone.utc)\n")) == ["from datetime import datetime, timezone"]
    assert missing(OLD, _edit("        json.no_such_function(job)\n")) == []


def test_a_module_bound_anywhere_is_not_missing():
    assert missing(OLD, "import time\n" + _edit("        time.sleep(1)\n")) == []
    assert missing(OLD, _edit("        import time\n        time.sleep(1)\n")) == []  # the model imported it inside
    assert missing(OLD, _edit("        from time import sleep\n        sleep(1)\n")) == []
    assert missing(OLD, _edit("        for time in job.times:\n            time.stop()\n")) == []  # a loop variable
    assert missing(OLD.replace("def run(job, tries)", "def run(job, tries, random)"),
                   _edit("        random.choice(job.name)\n").replace("def run(job, tries)", "def run(job, tries, random)")) == []
    assert missing(OLD, "from helpers import *\n" + _edit("        time.sleep(1)\n")) == []  # a star import may bind it


def test_what_the_file_read_free_before_is_left_as_it_was():
    old = OLD.replace("return False", "return os.sep")
    assert missing(old, old.replace("for _ in range(tries)", "for _ in range(tries + 1)")) == []


def test_a_text_that_does_not_parse_gets_nothing():
    assert missing(OLD, _edit("        time.sleep(1\n")) == []


def test_builtins_and_non_modules_are_not_imported():
    new = _edit("        print(str.upper(job.name), self.time.now(), this.x, test.y, job.os.sep)\n")
    assert missing(OLD, new) == []


def test_the_import_goes_after_the_file_imports():
    new = _edit("        if job.name:\n            return True\n        time.sleep(1)\n")
    got = needed("jobs.py", OLD, new)
    assert [(g.line, g.text) for g in got] == [(3, "import time\n")]


def test_a_file_without_imports_gets_its_first_after_the_docstring():
    old = '"""Jobs."""\n\n\ndef run(job):\n    return job\n'
    got = needed("jobs.py", old, old.replace("return job", "return json.dumps(job)"))
    assert [(g.line, g.text) for g in got] == [(1, "\nimport json\n")]


def test_other_languages_get_no_standard_library_imports():
    old = "function run(job) {\n  return job;\n}\n"
    assert needed("jobs.js", old, old.replace("return job", "return os.sep")) == []


def test_a_bare_name_comes_from_the_one_module_that_gives_it():
    new = OLD.replace("def run(job, tries):", "def run(job: Job, tries: Optional[int]) -> List[str]:")
    assert missing(OLD, new) == ["from typing import List, Optional"]
    new = _edit("        seen = defaultdict(list)\n        return Path(job.name), seen, Counter(job.name)\n")
    assert missing(OLD, new) == ["from collections import Counter, defaultdict", "from pathlib import Path"]
    new = OLD + "\n\nclass Color(Enum):\n    RED = auto()\n"
    assert missing(OLD, new) == ["from enum import Enum, auto"]
    new = OLD.replace("def run(", "@lru_cache(maxsize=None)\ndef run(")
    assert missing(OLD, new) == ["from functools import lru_cache"]


def test_a_bare_name_is_not_imported_where_a_use_does_not_fit_or_two_modules_give_it():
    assert missing(OLD, _edit("        return cache[job.name]\n")) == []  # functools.cache is no mapping
    assert missing(OLD, _edit("        return pi(job)\n")) == []  # math.pi is not called
    assert missing(OLD, _edit("        return time() - tries\n")) == []  # time.time or datetime.time
    assert missing(OLD, _edit("        return log(job) + sample + indent\n")) == []  # not in the table: a missing variable
    assert missing(OLD, _edit("        print(e)\n")) == []  # math.e is no name to import bare


def test_a_bare_name_of_a_module_the_file_imports_from_comes_from_it():
    old = "from collections.abc import Sequence\n\n\ndef first(xs: Sequence):\n    return xs[0]\n"
    new = old.replace("xs: Sequence", "xs: Iterable")
    assert missing(old, new) == ["from collections.abc import Iterable"]  # not typing's
