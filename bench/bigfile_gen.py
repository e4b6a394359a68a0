"""A generated Python module of any length for bench/bigfile.py: many classes and functions of the
kinds real code has (dataclasses, services with methods, helpers, constants), deterministic per seed,
with one known method to edit (`ReportBuilder._get_renderer`) where the caller puts it."""

from __future__ import annotations

import random

NOUNS = ["order", "invoice", "customer", "shipment", "ledger", "account", "payment", "refund", "coupon",
         "warehouse", "supplier", "basket", "receipt", "tariff", "parcel", "route", "driver", "booking",
         "ticket", "session", "profile", "report", "budget", "forecast", "audit", "policy", "claim", "quote",
         "catalog", "product", "review", "rating", "message", "channel", "export", "import", "metric", "alert"]
VERBS = ["load", "save", "build", "check", "apply", "merge", "split", "format", "parse", "collect", "resolve",
         "refresh", "archive", "validate", "normalize", "summarize", "estimate", "schedule", "cancel", "notify"]
QUALIFIERS = ["", "pending", "daily", "batch", "regional", "archived", "draft", "external", "internal", "bulk",
              "scheduled", "manual", "partner", "legacy", "shared", "priority", "monthly", "open", "closed", "remote"]
FIELDS = ["name", "amount", "currency", "created", "status", "owner", "region", "weight", "count", "limit",
          "code", "label", "priority", "due", "rate", "total", "notes", "source", "target", "version"]

# The method the edit is about, and the instruction that asks for it (the argparse edit's kind).
TARGET_CLASS = '''class ReportBuilder:
    """Renders a report's sections with the configured renderer class."""

    renderer_class = TextRenderer

    def __init__(self, title, sections=None):
        self.title = title
        self.sections = list(sections or [])

    def add_section(self, heading, body):
        self.sections.append((heading, body))
        return self

    def _get_renderer(self):
        return self.renderer_class(title=self.title)

    def render(self):
        renderer = self._get_renderer()
        for heading, body in self.sections:
            renderer.add(heading, body)
        return renderer.finish()
'''
RENDERER = '''class TextRenderer:
    """Collects headed sections into plain text."""

    def __init__(self, title, width=80):
        self.title = title
        self.width = width
        self.parts = [title.center(width)]

    def add(self, heading, body):
        self.parts.append(heading.upper())
        self.parts.append(body)

    def finish(self):
        return "\\n\\n".join(self.parts)
'''
INSTRUCTION = "make _get_renderer pass width=100 to the renderer class"
CHANGED = "        return self.renderer_class(title=self.title, width=100)"


def _camel(*words: str) -> str:
    return "".join(w.capitalize() for w in words)


class _Writer:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.used: set[str] = set()

    def name(self, make) -> str:
        for _ in range(1000):
            n = make()
            if n not in self.used:
                self.used.add(n)
                return n
        n = f"{make()}_{len(self.used)}"
        self.used.add(n)
        return n

    def body(self, indent: str, fields: list[str], attr: str = "self.") -> list[str]:
        r = self.rng
        f1, f2 = r.choice(fields), r.choice(fields)
        kind = r.randrange(6)
        if kind == 0:
            return [f"{indent}total = 0", f"{indent}for item in {attr}{f1}s:",
                    f"{indent}    if item.{f2} is None:", f"{indent}        continue",
                    f"{indent}    total += item.{f2}", f"{indent}return total"]
        if kind == 1:
            return [f"{indent}if not {attr}{f1}:", f"{indent}    raise ValueError(\"{f1} is required\")",
                    f"{indent}value = str({attr}{f1}).strip()", f"{indent}return value.lower()"]
        if kind == 2:
            return [f"{indent}result = {{}}", f"{indent}for key, value in {attr}{f1}.items():",
                    f"{indent}    result.setdefault(key, []).append(value)", f"{indent}return result"]
        if kind == 3:
            return [f"{indent}try:", f"{indent}    return int({attr}{f1})", f"{indent}except (TypeError, ValueError):",
                    f"{indent}    log.warning(\"bad {f1}: %r\", {attr}{f1})", f"{indent}    return {r.randrange(100)}"]
        if kind == 4:
            return [f"{indent}items = sorted({attr}{f1}s, key=lambda x: x.{f2})",
                    f"{indent}return [x for x in items if x.{f2} > {r.randrange(1, 50)}]"]
        return [f"{indent}{attr}{f1} = {attr}{f2}", f"{indent}{attr}{f2} = None", f"{indent}return self"
                if attr else f"{indent}return {f1}"]

    def function(self) -> list[str]:
        r = self.rng
        name = self.name(lambda: "_".join(w for w in (r.choice(VERBS), r.choice(QUALIFIERS), r.choice(NOUNS) + "s") if w))
        args = r.sample(FIELDS, r.randrange(1, 4))
        out = [f"def {name}({', '.join(args)}):", f'    """{name.replace("_", " ").capitalize()}."""']
        out += self.body("    ", args, attr="")
        return out

    def klass(self) -> list[str]:
        r = self.rng
        name = self.name(lambda: _camel(r.choice(QUALIFIERS), r.choice(NOUNS), r.choice(
            ["service", "store", "manager", "client", "builder", "policy", "view", "record"])))
        fields = r.sample(FIELDS, r.randrange(2, 6))
        out = []
        if r.random() < 0.3:
            out += ["@dataclass", f"class {name}:", f'    """A {name} as stored."""', ""]
            out += [f"    {f}: {r.choice(['str', 'int', 'float', 'str | None'])} = None" for f in fields]
            out += ["", f"    def key(self):", f"        return ({', '.join('self.' + f for f in fields[:2])},)"]
            return out
        out += [f"class {name}:", f'    """{name}: keeps {", ".join(fields)}."""', ""]
        out += [f"    DEFAULT_{fields[0].upper()} = {r.randrange(1000)}", ""]
        out += [f"    def __init__(self, {', '.join(fields)}):"] + [f"        self.{f} = {f}" for f in fields]
        for _ in range(r.randrange(2, 7)):
            m = self.name(lambda: "_".join(w for w in (r.choice(VERBS), r.choice(QUALIFIERS), r.choice(FIELDS)) if w))
            out += ["", f"    def {m}(self{', ' + r.choice(FIELDS) if r.random() < 0.5 else ''}):"]
            if r.random() < 0.4:
                out.append(f'        """{m.replace("_", " ").capitalize()}."""')
            out += self.body("        ", fields)
        return out


def generate(lines: int, seed: int = 41, target_at: float = 0.6) -> str:
    """A module of about `lines` lines: imports, constants, then classes and functions; the renderer
    and `ReportBuilder` (the edit's target) start at `target_at` of the way down."""
    w = _Writer(seed)
    head = ['"""Back-office operations: orders, invoices, shipments and the reports built on them."""', "",
            "from __future__ import annotations", "", "import json", "import logging", "import os",
            "from dataclasses import dataclass, field", "from datetime import datetime, timedelta", "",
            "log = logging.getLogger(__name__)", "", "PAGE_SIZE = 50", "MAX_RETRIES = 3",
            'DEFAULT_CURRENCY = "EUR"', ""]
    out = list(head)
    placed = False
    while len(out) < lines:
        if not placed and len(out) >= lines * target_at:
            out += ["", "", *RENDERER.splitlines(), "", "", *TARGET_CLASS.splitlines()]
            placed = True
            continue
        piece = w.klass() if w.rng.random() < 0.6 else w.function()
        out += ["", "", *piece]
    if not placed:
        out += ["", "", *RENDERER.splitlines(), "", "", *TARGET_CLASS.splitlines()]
    return "\n".join(out) + "\n"
