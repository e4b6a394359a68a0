"""project.resolve: the project file an import names in each language, and none where the rules name none."""

from __future__ import annotations

from steer_tui.project.resolve import resolve_import

KNOWN = {
    "include/money.h", "src/shop/cart.c", "src/shop/tax.h",
    "src/main/java/com/acme/money/Money.java", "src/main/java/com/acme/shop/Cart.java",
    "src/lib.rs", "src/money.rs", "src/shop/mod.rs", "src/shop/cart.rs", "src/shop/money.rs",
    "lib/money.rb", "app/cart.rb", "app/tax.rb",
    "app/Support/Money.php", "app/Http/Cart.php", "src/Models/User.php",
}


def test_c_includes_beside_the_file_then_from_the_folders_above_or_their_include():
    assert resolve_import("src/shop/cart.c", "tax.h", KNOWN) == "src/shop/tax.h"
    assert resolve_import("src/shop/cart.c", "money.h", KNOWN) == "include/money.h"
    assert resolve_import("src/shop/cart.c", "stdio.h", KNOWN) == ""
    assert resolve_import("src/shop/cart.c", "<money.h>", KNOWN) == ""  # the system's, by its brackets


def test_java_imports_under_a_source_root_above_the_file():
    cart = "src/main/java/com/acme/shop/Cart.java"
    assert resolve_import(cart, "com.acme.money.Money", KNOWN) == "src/main/java/com/acme/money/Money.java"
    assert resolve_import(cart, "java.util.List", KNOWN) == ""


def test_rust_crate_paths_from_the_crate_root_not_the_file_s_folder():
    # src/shop/money.rs exists too, but crate::money is the root's module
    assert resolve_import("src/shop/cart.rs", "crate::money", KNOWN) == "src/money.rs"
    assert resolve_import("src/shop/cart.rs", "crate::shop", KNOWN) == "src/shop/mod.rs"
    assert resolve_import("src/shop/cart.rs", "std::fmt", KNOWN) == ""
    assert resolve_import("src/shop/cart.rs", "crate", KNOWN) == "src/lib.rs"


def test_rust_self_and_super_paths_from_the_file_s_own_module():
    # cart.rs is the module shop::cart: its parent shop holds money (src/shop/money.rs)
    assert resolve_import("src/shop/cart.rs", "super::money", KNOWN) == "src/shop/money.rs"
    assert resolve_import("src/shop/cart.rs", "super", KNOWN) == "src/shop/mod.rs"
    assert resolve_import("src/shop/cart.rs", "super::super::money", KNOWN) == "src/money.rs"
    assert resolve_import("src/shop/cart.rs", "super::super", KNOWN) == "src/lib.rs"
    # mod.rs is the module shop itself: its children are beside it, its parent is the crate's root
    assert resolve_import("src/shop/mod.rs", "self::cart", KNOWN) == "src/shop/cart.rs"
    assert resolve_import("src/shop/mod.rs", "super::money", KNOWN) == "src/money.rs"
    assert resolve_import("src/lib.rs", "self::shop", KNOWN) == "src/shop/mod.rs"
    assert resolve_import("src/lib.rs", "super::money", KNOWN) == ""  # above the crate's root


def test_ruby_require_relative_beside_the_file_and_require_from_lib():
    assert resolve_import("app/cart.rb", "./tax", KNOWN) == "app/tax.rb"
    assert resolve_import("app/cart.rb", "../lib/money", KNOWN) == "lib/money.rb"
    assert resolve_import("app/cart.rb", "money", KNOWN) == "lib/money.rb"
    assert resolve_import("app/cart.rb", "json", KNOWN) == ""


def test_php_namespaces_by_the_usual_psr4_roots():
    assert resolve_import("app/Http/Cart.php", "App\\Support\\Money", KNOWN) == "app/Support/Money.php"
    assert resolve_import("app/Http/Cart.php", "Acme\\Models\\User", KNOWN) == "src/Models/User.php"
    assert resolve_import("app/Http/Cart.php", "Illuminate\\Http\\Request", KNOWN) == ""
    # an included file, from the including file's folder
    assert resolve_import("app/Http/Cart.php", "./../Support/Money.php", KNOWN) == "app/Support/Money.php"


def test_go_imports_name_a_package_folder_of_the_module_go_mod_declares():
    assert resolve_import("cmd/shop/main.go", "example.com/shop/money", KNOWN, "example.com/shop") == "money/"
    assert resolve_import("money/x.go", "example.com/shop", KNOWN, "example.com/shop") == "/"
    assert resolve_import("cmd/shop/main.go", "fmt", KNOWN, "example.com/shop") == ""
    assert resolve_import("cmd/shop/main.go", "example.com/shopping/x", KNOWN, "example.com/shop") == ""
    assert resolve_import("cmd/shop/main.go", "example.com/shop/money", KNOWN) == ""  # no go.mod


def test_go_imports_in_a_module_below_the_root_are_folders_under_its_go_mod():
    assert resolve_import("tools/gen/main.go", "example.com/tools/gen/out", KNOWN, "example.com/tools", "tools") == (
        "tools/gen/out/")
    assert resolve_import("tools/gen/main.go", "example.com/tools", KNOWN, "example.com/tools", "tools") == "tools/"
