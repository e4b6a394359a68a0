"""Measure the structure targets of issue 39 on steer_tui/: long classes, long functions, import
cycles and reaches into another object's private attributes. Prints one table.

Usage: python scripts/structure_probe.py [--detail] [package directory, default steer_tui]
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

# Classes the issue holds to 450 lines; every other class may have 650.
CORE_CLASSES = {"Session", "Turn", "Review", "SteerApp"}
CORE_LIMIT, OTHER_LIMIT, FUNCTION_LIMIT = 450, 650, 80


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def lines_of(node: ast.AST) -> int:
    return node.end_lineno - node.lineno + 1


def resolve(current: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module an ImportFrom names (relative imports resolved against `current`)."""
    if not node.level:
        return node.module or ""
    base = current.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(tree: ast.Module, current: str, is_package: bool, modules: set[str]) -> set[str]:
    """Every module of the package this module imports, wherever the import statement is (inside
    functions and under TYPE_CHECKING too): `from pkg import mod` counts as an import of pkg.mod."""
    found: set[str] = set()

    def add(name: str) -> None:
        while name and name not in modules:  # an attribute of a module: the module itself
            name = name.rpartition(".")[0]
        if name and name != current:
            found.add(name)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            target = resolve(current, is_package, node)
            for alias in node.names:
                add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        comp.append(member)
                        if member == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def definitions(tree: ast.Module):
    """(qualified name, node) of every class and function, nested ones too."""
    todo = [("", tree)]
    while todo:
        prefix, parent = todo.pop()
        for node in ast.iter_child_nodes(parent):
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{node.name}"
                yield name, node
                todo.append((name + ("." if isinstance(node, ast.ClassDef) else ".<locals>."), node))
            else:
                todo.append((prefix, node))


def private_reaches(tree: ast.Module) -> int:
    """`x._name` where x is not self or cls (dunders are not private)."""
    n = 0
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
            n += 1
    return n


def probe(root: Path) -> dict:
    files = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    trees = {p: ast.parse(p.read_text(), str(p)) for p in files}
    names = {p: module_name(root, p) for p in files}
    modules = set(names.values())
    long_classes, long_functions, graph, reaches = [], [], {}, Counter()
    for path, tree in trees.items():
        mod = names[path]
        graph[mod] = imports(tree, mod, path.name == "__init__.py", modules)
        reaches[mod] = private_reaches(tree)
        for qualname, node in definitions(tree):
            if isinstance(node, ast.ClassDef):
                limit = CORE_LIMIT if node.name in CORE_CLASSES else OTHER_LIMIT
                if lines_of(node) > limit:
                    long_classes.append((mod, qualname, lines_of(node)))
            elif lines_of(node) > FUNCTION_LIMIT:
                long_functions.append((mod, qualname, lines_of(node)))
    return {"classes": long_classes, "functions": long_functions, "cycles": cycles(graph),
            "reaches": reaches, "graph": graph}


def main(argv: list[str]) -> None:
    detail = "--detail" in argv
    args = [a for a in argv if not a.startswith("--")]
    root = Path(args[0] if args else Path(__file__).resolve().parent.parent / "steer_tui").resolve()
    got = probe(root)
    short = lambda mod: mod.partition(".")[2] or mod  # noqa: E731
    classes = ", ".join(f"{c} {n}" for _, c, n in sorted(got["classes"], key=lambda x: -x[2]))
    functions = ", ".join(f"{short(m)}:{f} {n}" for m, f, n in sorted(got["functions"], key=lambda x: -x[2]))
    loops = "; ".join(" <-> ".join(short(m) for m in c) for c in got["cycles"])
    total = sum(got["reaches"].values())
    top = ", ".join(f"{short(m)} {n}" for m, n in got["reaches"].most_common(5) if n)
    print("| | measured | target |")
    print("| --- | --- | --- |")
    print(f"| classes over {CORE_LIMIT} lines among {', '.join(sorted(CORE_CLASSES))}; over {OTHER_LIMIT} among "
          f"the rest | {len(got['classes'])}{f' ({classes})' if classes else ''} | 0 |")
    print(f"| functions over {FUNCTION_LIMIT} lines | {len(got['functions'])}{f' ({functions})' if functions else ''} | 0 |")
    print(f"| import cycles among {root.name}/ modules | {len(got['cycles'])}{f' ({loops})' if loops else ''} | 0 |")
    print(f"| reaches into another object's private attributes | {total} ({top}) | at most 30 |")
    if detail:
        for c in got["cycles"]:
            print("\ncycle:", ", ".join(c))
            members = set(c)
            for m in c:
                print(f"  {m} -> {', '.join(sorted(got['graph'][m] & members))}")
        print("\nreaches per module:")
        for m, n in got["reaches"].most_common():
            if n:
                print(f"  {m} {n}")


if __name__ == "__main__":
    main(sys.argv[1:])
