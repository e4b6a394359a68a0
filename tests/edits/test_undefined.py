"""Names a Python edit reads that nothing defines (steer_tui/edits/undefined.py)."""

from steer_tui.edits.undefined import undefined_names

OLD = '''"""Users."""

import json

LIMIT = 3


def delete_user(store, user_id):
    del store.users[user_id]
'''


def _with(body: str) -> str:
    return OLD.replace("    del store.users[user_id]\n", body)


def test_a_name_read_and_bound_nowhere_is_reported_once_in_order():
    new = _with("    del store.users[user_id]\n    AUDIT_LOG.append(user_id)\n    notify(AUDIT_LOG)\n")
    assert undefined_names(OLD, new) == ["AUDIT_LOG", "notify"]


def test_what_the_text_binds_anywhere_is_defined():
    new = _with("    for i in range(LIMIT):\n        seen = [k for k in store.users if k]\n"
                "    with open(store.path) as fh:\n        json.dump(seen, fh)\n    try:\n        pass\n"
                "    except KeyError as err:\n        raise ValueError(user_id) from err\n"
                "    if (n := len(seen)) > i:\n        print(n, __file__, __name__)\n")
    assert undefined_names(OLD, new) == []
    later = new + "\n\nAUDIT = []\n\n\ndef log(e):\n    global HITS\n    HITS = e\n"
    assert undefined_names(OLD, later.replace("print(n,", "print(AUDIT, HITS, log, n,")) == []


def test_the_import_lines_to_be_added_count_as_bindings():
    new = _with("    del store.users[user_id]\n    audit('user.deleted', user_id)\n")
    assert undefined_names(OLD, new) == ["audit"]
    assert undefined_names(OLD, new, "from svc.audit import audit\n") == []


def test_a_name_the_file_already_read_free_stays_its_own_business():
    old = OLD + "\n\ndef view():\n    return request.args\n"
    new = old.replace("    del store.users[user_id]\n", "    del store.users[user_id]\n    request.log(user_id)\n")
    assert undefined_names(old, new) == []


def test_a_removed_import_still_read_is_reported():
    new = _with("    json.dumps(store)\n").replace("import json\n", "")
    assert undefined_names(OLD, new) == ["json"]


def test_nothing_is_reported_for_a_star_import_or_text_that_does_not_parse():
    assert undefined_names(OLD, "from os.path import *\n" + _with("    join(user_id)\n")) == []
    assert undefined_names(OLD, _with("    del store.users[\n")) == []
    assert undefined_names("def f(:\n", _with("    x(1)\n")) == []


def test_scopes_are_pythons_own():
    """A parameter of the function next door is no name here; a closure's variable and a name a
    function declares global and assigns are."""
    old = "def send(to, msg):\n    deliver(to, msg)\n\n\ndef deliver(to, msg):\n    pass\n"
    new = old.replace("    pass\n", "    try:\n        pass\n    except OSError:\n        print(recipients, to)\n")
    new = new.replace("def send(to, msg)", "def send(to, msg, recipients=())")
    assert undefined_names(old, new) == ["recipients"]
    closure = old + "\n\ndef outer(n):\n    def inner():\n        global SEEN\n        SEEN = n\n        return n\n    return inner\n"
    assert undefined_names(old, closure + "\n\ndef later():\n    return SEEN\n") == []
    cls = old + "\n\nclass Box:\n    size = 3\n\n    def grow(self):\n        return size + 1\n"
    assert undefined_names(old, cls) == ["size"]  # a class's names are not a method's
