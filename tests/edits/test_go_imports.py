"""A Go edit's imports: the standard-library and project packages it now reads, placed in the import block's groups."""

from __future__ import annotations

from steer_tui.edits import go_imports
from steer_tui.lang.qualifiers import go_qualifiers
from steer_tui.project.imports import needed
from steer_tui.project.index import ProjectIndex

BLOCK = '''package shop

import (
\t"errors"
\t"os"

\t"github.com/acme/log"
)

func Load(url string) error {
\treturn nil
}
'''


def _applied(text: str, placed: list[tuple[int, str]]) -> str:
    lines = text.splitlines(keepends=True)
    for at, insert in sorted(placed, reverse=True):
        lines.insert(at, insert)
    return "".join(lines)


def _index_of(root, files: dict[str, str]) -> ProjectIndex:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return ProjectIndex(root, root / "cache").build()


def test_qualifiers_are_names_read_only_as_a_package():
    text = ("package a\n\nfunc f(url string, user *U) time.Duration {\n\tfmt.Println(url.Host, user.Name)\n"
            "\tvar d time.Duration\n\treturn d + strings.x\n}\n")
    got = go_qualifiers(text)
    # url and user are parameters; strings reads an unexported name, which no package gives
    assert got == {"fmt": {"Println"}, "time": {"Duration"}}


def test_a_standard_package_the_edit_reads_goes_into_the_first_group_in_order():
    new = BLOCK.replace("return nil", 'return fmt.Errorf("load %s: %w", url, errors.New(strings.TrimSpace(url)))')
    paths = go_imports.missing(BLOCK, new)
    assert paths == ["fmt", "strings"]
    got = _applied(BLOCK, go_imports.placements(BLOCK, paths))
    assert got.splitlines()[2:10] == ['import (', '\t"errors"', '\t"fmt"', '\t"os"', '\t"strings"', "",
                                      '\t"github.com/acme/log"', ")"]


def test_nothing_for_an_import_the_edit_wrote_a_package_the_old_text_read_or_an_ambiguous_name():
    new = BLOCK.replace('\t"os"\n', '\t"fmt"\n\t"os"\n').replace("return nil", 'return fmt.Errorf("x")')
    assert go_imports.missing(BLOCK, new) == []
    broken = BLOCK.replace("return nil", "return fmt.Errorf(url)")
    assert go_imports.missing(broken, broken.replace("(url)", "(url + url)")) == []
    assert go_imports.missing(BLOCK, BLOCK.replace("return nil", "_ = rand.Intn(3)\n\treturn nil")) == []
    # a package-level name of the same package, declared in another file
    assert go_imports.missing(BLOCK, BLOCK.replace("return nil", "return log.Err"), frozenset({"log"})) == []


def test_a_file_without_a_block_gets_lines_after_its_imports_or_a_new_import_after_the_package():
    one = 'package a\n\nimport "os"\n\nfunc f() {}\n'
    assert go_imports.placements(one, ["fmt"]) == [(3, 'import "fmt"\n')]
    bare = "// Package a does a.\npackage a\n\nfunc f() {}\n"
    assert go_imports.placements(bare, ["fmt"]) == [(2, '\nimport "fmt"\n')]
    assert _applied(bare, go_imports.placements(bare, ["fmt", "os"])).splitlines()[2:7] == [
        "", "import (", '\t"fmt"', '\t"os"', ")"]


def test_a_group_of_its_own_for_a_kind_the_block_lacks():
    only_third = 'package a\n\nimport (\n\t"github.com/x/y"\n)\n'
    got = _applied(only_third, go_imports.placements(only_third, ["fmt", "example.com/m/store"], "example.com/m"))
    assert got.splitlines()[2:9] == ["import (", '\t"fmt"', "", '\t"github.com/x/y"', "",
                                     '\t"example.com/m/store"', ")"]


def test_a_project_package_is_imported_by_its_module_path(tmp_path):
    files = {
        "go.mod": "module example.com/shop\n\ngo 1.22\n",
        "money/money.go": "package money\n\n// Cents formats an amount.\nfunc Cents(n int) string { return \"\" }\n",
        "cart/cart.go": BLOCK.replace("package shop", "package cart"),
        "cart/log.go": "package cart\n\nvar audit = 1\n",
        "other/a.go": "package money\n\nfunc Other() {}\n",
    }
    index = _index_of(tmp_path, files)
    old = files["cart/cart.go"]
    new = old.replace("return nil", "_ = money.Cents(1)\n\t_ = audit.X\n\treturn nil")
    got = needed("cart/cart.go", old, new, (), index)
    # audit is the package's own variable; money is found in money/ (other/ does not define Cents)
    assert _applied(old, [(g.line, g.text) for g in got]).splitlines()[2:11] == [
        "import (", '\t"errors"', '\t"os"', "", '\t"github.com/acme/log"', "", '\t"example.com/shop/money"', ")", ""]
    # two folders of that package name defining what is read: none is guessed
    (tmp_path / "other/a.go").write_text("package money\n\nfunc Cents() {}\n")
    index.update("other/a.go")
    assert needed("cart/cart.go", old, new, (), index) == []


def test_a_module_below_the_root_has_its_own_go_mod(tmp_path):
    files = {
        "go.mod": "module example.com/shop\n",
        "tools/go.mod": "module example.com/shoptools\n",
        "tools/money/money.go": "package money\n\nfunc Cents(n int) string { return \"\" }\n",
        "tools/cmd/main.go": "package main\n\nfunc main() {\n}\n",
    }
    index = _index_of(tmp_path, files)
    assert index.go_module("tools/cmd/main.go") == ("example.com/shoptools", "tools")
    assert index.go_module("main.go") == ("example.com/shop", "")
    old = files["tools/cmd/main.go"]
    new = old.replace("{\n}", "{\n\tprintln(money.Cents(1))\n}")
    got = needed("tools/cmd/main.go", old, new, (), index)
    assert [(g.line, g.text) for g in got] == [(1, '\nimport "example.com/shoptools/money"\n')]
    assert index.resolve("tools/cmd/main.go", "example.com/shoptools/money") == "tools/money/"
