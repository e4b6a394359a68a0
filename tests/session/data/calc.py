"""A small calculator module for steer's session tests."""


def add(a, b):
    return a + b


def sub(a, b):
    return a - b


def mean(values):
    total = 0
    for v in values:
        total += v
    return total / len(values)


def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def describe(values):
    return f"n={len(values)} mean={mean(values)}"
