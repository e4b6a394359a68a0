"""Tests of steer_tui.lang, the tree-sitter language layer."""
