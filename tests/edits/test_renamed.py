"""An answer that writes a new definition in place of one it was shown, unasked, is refused."""

from __future__ import annotations

from steer_tui.edits.judge import judge
from steer_tui.edits.lines import document_lines
from steer_tui.edits.parse import parse
from steer_tui.edits.renamed import renamed_definitions

OLD = ("class User:\n"
       "    def get_token(self):\n"
       "        return self.token\n"
       "\n"
       "    @staticmethod\n"
       "    def check_token(token):\n"
       "        user = find(token)\n"
       "        if user is None or user.expired():\n"
       "            return None\n"
       "        return user\n")
# "add a User method token_valid()" with the cursor in check_token, as a 1.5B model answered it.
TURNED = OLD.replace("def check_token(token):", "def token_valid(token):").replace(
    "        return user\n", "        return True\n")
ADDED = OLD + "\n    def token_valid(self):\n        return self.token is not None\n"
ASK = "add a User method token_valid() that says whether the token is set"


def test_a_definition_written_over_by_a_new_one_is_found():
    assert renamed_definitions(OLD, TURNED, "models.py", ASK) == [("check_token", ["token_valid"])]


def test_an_addition_beside_it_is_not():
    assert renamed_definitions(OLD, ADDED, "models.py", ASK) == []


def test_words_that_name_the_old_one_or_ask_for_a_rename_or_a_deletion_allow_it():
    assert renamed_definitions(OLD, TURNED, "models.py", "turn check_token into token_valid returning a bool") == []
    assert renamed_definitions(OLD, TURNED, "models.py", "rename the static method to token_valid") == []
    assert renamed_definitions(OLD, TURNED, "models.py", "replace the static method with token_valid") == []
    deleted = OLD.replace("    @staticmethod\n    def check_token(token):\n        user = find(token)\n"
                          "        if user is None or user.expired():\n            return None\n        return user\n",
                          "    def token_valid(self):\n        return True\n")
    assert renamed_definitions(OLD, deleted, "models.py", "delete check_token and add token_valid") == []


def test_a_name_still_used_in_the_file_has_not_gone():
    used = TURNED + "\n\ndef load(token):\n    return User.check_token(token)\n"
    assert renamed_definitions(OLD + "\n\ndef load(token):\n    return User.check_token(token)\n", used,
                               "models.py", ASK) == []


def test_a_javascript_function_written_over_is_found():
    old = "export function parseDate(s) {\n  return new Date(s)\n}\n"
    new = "export function formatDate(d) {\n  return d.toISOString()\n}\n"
    assert renamed_definitions(old, new, "dates.js", "add a formatDate helper") == [("parseDate", ["formatDate"])]


def test_the_verdict_refuses_it_and_says_what_to_keep():
    lines = document_lines(OLD)[0]
    answer = parse(f"```python\n{TURNED}```\n", OLD, 0)
    verdict = judge(answer, OLD, lines, "models.py", ASK)
    assert verdict.status == "refused"
    assert "`check_token`" in verdict.reason and "`token_valid`" in verdict.feedback
    added = judge(parse(f"```python\n{ADDED}```\n", OLD, 0), OLD, lines, "models.py", ASK)
    assert added.status == "proposal" and added.new_text == ADDED
