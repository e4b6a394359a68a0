"""The shared parse: one tree per text, walked once, never changed by a check that reads it."""

import ast

from steer_tui.edits import cosmetic, stdlib_imports
from steer_tui.edits.pytree import nodes, parse_tree

SOURCE = '''"""Module doc."""
import os


class Account:
    """An account."""

    def balance(self):
        """The balance."""
        return os.getcwd()
'''


def test_the_same_text_gives_the_same_tree():
    assert parse_tree(SOURCE) is parse_tree("".join(list(SOURCE)))  # equal text, another string
    assert parse_tree("def f(:\n") is None


def test_nodes_are_ast_walks_order_and_kept_on_the_tree():
    tree = parse_tree(SOURCE)
    assert [type(n) for n in nodes(tree)] == [type(n) for n in ast.walk(ast.parse(SOURCE))]
    assert nodes(tree) is nodes(tree)


def test_a_check_that_cuts_docstrings_leaves_the_shared_tree_whole():
    edited = SOURCE.replace('"""The balance."""', '"""What is left."""')
    assert cosmetic.cosmetic("bank.py", SOURCE, edited)
    tree = parse_tree(SOURCE)
    account = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    assert ast.get_docstring(account) == "An account."
    assert ast.get_docstring(account.body[1]) == "The balance."


def test_bound_names_is_found_once_per_tree():
    tree = parse_tree(SOURCE)
    assert stdlib_imports.bound_names(tree) == {"os", "Account", "balance", "self"}
    assert stdlib_imports.bound_names(tree) is stdlib_imports.bound_names(tree)
    assert stdlib_imports.bound_names(parse_tree("from os import *\n")) is None
