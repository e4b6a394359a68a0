"""The third batch of user tasks (written 2026-11-27, before the deletion change they measure, and
run as first written): deleting code, the way people ask for it in the app. Each test checks that
what was named is gone and that every other definition and statement is exactly as it was."""

from __future__ import annotations

from bench.usertasks.batch2 import BANK, CACHE, REPORT, TIMEUTIL, USERS

# Appended to the edited file (bench/editbench.py's judge): the file is read back up to the marker
# and compared, definition by definition, with the original.
_UNCHANGED = '''
# ---- test ----
import ast as _ast


def _parts(src):
    """{qualified name: dump} of every definition and every other statement of the module or a class body."""
    out = {}

    def walk(body, prefix):
        for i, node in enumerate(body):
            if isinstance(node, (_ast.FunctionDef, _ast.AsyncFunctionDef, _ast.ClassDef)):
                name = prefix + node.name
                if isinstance(node, _ast.ClassDef):
                    walk(node.body, name + ".")
                    node = _ast.ClassDef(node.name, node.bases, node.keywords, [], node.decorator_list)
                out[name] = _ast.dump(node)
            else:
                out[f"{prefix}<{_ast.dump(node)}>"] = ""

    walk(_ast.parse(src).body, "")
    return out


def _only_gone(original, gone):
    edited = open(__file__, encoding="utf-8").read().split("# ---- test ----")[0]
    before, after = _parts(original), _parts(edited)
    left = {k: v for k, v in before.items() if k not in gone and not any(k.startswith(g + ".") for g in gone)}
    changed = sorted(k for k in set(left) | set(after) if left.get(k) != after.get(k))
    assert not changed, f"changed besides what was asked: {changed}"
'''


def _test(original: str, gone: list[str], checks: str) -> str:
    return _UNCHANGED + f"\n_ORIGINAL = {original!r}\n" + checks + f"\n_only_gone(_ORIGINAL, {gone!r})\n"


TASKS = [
    {
        "name": "delete-statement-method",
        "file": "bank.py",
        "instruction": "delete the statement method",
        "input": BANK,
        "test": _test(BANK, ["Account.statement"], '''
assert not hasattr(Account, "statement"), "statement is still there"
a = Account("ann", 10)
a.deposit(5)
a.withdraw(3)
assert a.balance == 12 and total_balance([a]) == 12
'''),
    },
    {
        "name": "remove-hit-rate",
        "file": "cache.py",
        "instruction": "remove hit_rate",
        "input": CACHE,
        "test": _test(CACHE, ["LRUCache.hit_rate"], '''
assert not hasattr(LRUCache, "hit_rate"), "hit_rate is still there"
c = LRUCache(1)
c.put("a", 1)
assert c.get("a") == 1
'''),
    },
    {
        "name": "delete-paginate",
        "file": "users.py",
        "instruction": "delete the paginate function",
        "input": USERS,
        "test": _test(USERS, ["paginate"], '''
assert "paginate" not in globals(), "paginate is still there"
assert validate_email("a@b.c") and full_name("a", "b", "c") == "a b c"
'''),
    },
    {
        "name": "remove-unused-total-duration",
        "file": "timeutil.py",
        "instruction": "remove total_duration, nothing uses it",
        "input": TIMEUTIL,
        "test": _test(TIMEUTIL, ["total_duration"], '''
assert "total_duration" not in globals(), "total_duration is still there"
assert parse_duration("1m30s") == 90 and format_duration(90) == "1m30s"
'''),
    },
    {
        "name": "delete-read-rows",
        "file": "report.py",
        "instruction": "delete read_rows",
        "input": REPORT,
        "test": _test(REPORT, ["read_rows"], '''
assert "read_rows" not in globals(), "read_rows is still there"
assert report(summarize([{"region": "n", "amount": "2"}])) == "n: 2.00"
'''),
    },
    {
        "name": "drop-memoize",
        "file": "cache.py",
        "instruction": "drop the memoize decorator",
        "input": CACHE,
        "test": _test(CACHE, ["memoize"], '''
assert "memoize" not in globals(), "memoize is still there"
c = LRUCache(1)
c.put("a", 1)
assert c.get("a") == 1 and c.hit_rate() == 1.0
'''),
    },
]
