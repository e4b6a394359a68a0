"""A small real file a language (tests/session/data/lang), with what the layer must find in it and edits that break it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# The files live with the recorded answers that edit them (tests/lang/test_edit_languages.py).
FILES = Path(__file__).resolve().parents[1] / "session" / "data" / "lang"


def _read(name: str) -> str:
    return (FILES / name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Sample:
    path: str  # the name the language is told by
    text: str
    defs: tuple[tuple[str, str], ...]  # (qualified name, kind) that must be among the definitions
    at: tuple[int, str]  # (0-based line, qualified name of the innermost definition there)
    breaks: tuple[str, str]  # replace this with that: a syntax error
    good: tuple[str, str]  # replace this with that: still parses (elsewhere than `breaks`)


SAMPLES = [
    Sample("stack.py", _read("stack.py"),
        (("area", "function"), ("Stack", "class"), ("Stack.push", "method")), (11, "Stack.push"),
        ("def pop(self):", "def pop(self)"), ("r * r", "r ** 2")),
    Sample("cart.js", _read("cart.js"),
        (("Cart", "class"), ("Cart.total", "method"), ("label", "function"), ("double", "function")), (8, "Cart.total"),
        ("return `${cart.items.length} items`;", "return `${cart.items.length} items;"),
        ("x * 2", "x * 3")),
    Sample("shapes.ts", _read("shapes.ts"),
        (("Shape", "interface"), ("Circle", "class"), ("Circle.area", "method"), ("Color", "enum"),
         ("describe", "function")), (8, "Circle.area"),
        ('    return "big";\n  }\n', '    return "big";\n'), ('"small"', '"tiny"')),
    Sample("view.tsx", _read("view.tsx"),
        (("Props", "type"), ("Hello", "function"), ("Bye", "function")), (5, "Hello"),
        ('<div className="hello">Hello {name}</div>', '<div className="hello">Hello {name</div>'),
        ("Bye {name}", "Goodbye {name}")),
    Sample("queue.go", _read("queue.go"),
        (("Queue", "type"), ("Queue.Push", "method"), ("Max", "function")), (9, "Queue.Push"),
        ("\t\treturn a\n\t}\n", "\t\treturn a\n"), ("return b", "return b + 0")),
    Sample("point.rs", _read("point.rs"),
        (("Point", "struct"), ("Point.norm", "method"), ("Shape", "trait"), ("main", "function")), (11, "Point.norm"),
        ('println!("{}", p.norm());', 'println!("{}, p.norm());'), ("x: 1.0", "x: 3.0")),
    Sample("Account.java", _read("Account.java"),
        (("Account", "class"), ("Account.Account", "constructor"), ("Account.toString", "method"),
         ("Account.Listener", "interface")), (12, "Account.toString"),
        ("this.balance = opening;", "this.balance = opening"), ('"Account("', '"Acct("')),
    Sample("list.c", _read("list.c"),
        (("node", "struct"), ("length", "function")), (12, "length"),
        ("        head = head->next;\n    }\n", "        head = head->next;\n"), ("int n = 0;", "int n = 0, m = 0;")),
    Sample("vec.cpp", _read("vec.cpp"),
        (("geo", "namespace"), ("geo.Vec", "class"), ("geo.Vec.dot", "method"), ("geo.twice", "function")),
        (7, "geo.Vec.dot"), ("return a + a;", "return a + a"), ("x * o.x", "o.x * x")),
    Sample("Greeter.cs", _read("Greeter.cs"),
        (("App", "namespace"), ("App.Greeter", "class"), ("App.Greeter.Greet", "method")), (11, "App.Greeter.Greet"),
        ('return $"Hello {who}, I am {Name}";', 'return $"Hello {who}, I am {Name};'), ("Hello", "Hi")),
    Sample("stack.rb", _read("stack.rb"),
        (("Collections", "module"), ("Collections.Stack", "class"), ("Collections.Stack.push", "method")),
        (8, "Collections.Stack.push"), ("      self\n    end\n", "      self\n"), ("@items = []", "@items = Array.new")),
    Sample("cart.php", _read("cart.php"),
        (("Cart", "class"), ("Cart.add", "method"), ("total", "function")), (11, "Cart.add"),
        ("$this->items[] = $name;", "$this->items[] = $name"), ("array_sum($prices)", "array_sum($prices) + 0")),
    Sample("deploy.sh", _read("deploy.sh"),
        (("build", "function"), ("deploy", "function")), (6, "build"),
        ("        rm -rf dist\n    fi\n", "        rm -rf dist\n"), ("make all", "make site")),
]


def by_suffix(suffix: str) -> Sample:
    return next(s for s in SAMPLES if s.path.endswith(suffix))
