"""Benchmarks: `python -m bench` runs all, `python -m bench NAME` runs one; each prints a table."""
