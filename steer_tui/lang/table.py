"""The per-language knowledge of steer_tui.lang: extensions, grammars and node type names, one entry a language."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath


@dataclass(frozen=True, eq=False)  # one object a language: hashed by identity
class Spec:
    """What the layer needs to know of one language; everything else is the same mechanism for all.

    `definitions` maps a node type to the kind of definition it is. `bound` maps a node type
    that binds a name to a value (`const f = () => ...`) to the value types that make the
    binding a function. `wrappers` are node types whose span a definition directly inside them
    takes (decorators, `export`, `template <...>`, Go's `type` around a spec) when it is their only
    definition. `leading` are node types (comments, attributes) that belong to the definition
    they sit directly above. `docstrings`: a statement type holding only a string type that is
    documentation when it comes first in a body (Python). `values`: a query for the constants and
    variables bound outside a function (steer_tui.lang.symbols reads Python's and JavaScript's by
    their own rules): `@constant`, `@variable` or `@function` (a prototype) captures the statement a
    name is bound by, `@name` the name, and `@keyword` a keyword outside that statement that its
    signature starts with (Go's `const` before a block of specs).
    """

    name: str  # the label users read: "TypeScript"
    key: str  # the short name: "typescript"
    extensions: tuple[str, ...]
    module: str  # the grammar package's import name
    function: str  # its function returning the language pointer
    definitions: dict[str, str]
    comments: frozenset[str]
    bound: dict[str, frozenset[str]] = field(default_factory=dict)
    wrappers: frozenset[str] = frozenset()
    leading: frozenset[str] = frozenset()
    docstrings: tuple[str, str] | None = None  # (statement type, string type)
    name_fields: tuple[str, ...] = ("name",)  # fields naming a definition, tried in order
    # A query whose @error captures are errors the grammar accepts (Ruby reads a stray `end` as a name).
    stray: str = ""
    # Node types holding a function's statements where no `body` field does; a function without
    # one has an empty body (Ruby's `body_statement`).
    bodies: frozenset[str] = frozenset()
    values: str = ""


_C_COMMENTS = frozenset({"comment"})
# Where a statement may stand in Ruby: a bare `end` there is one too many, not a method call.
_RUBY_BODIES = ("program", "body_statement", "then", "else", "do", "block_body", "begin", "ensure",
                "parenthesized_statements", "argument_list", "binary", "assignment", "array")
_RUBY_STRAY = "([" + " ".join(f"({p} (identifier) @error)" for p in _RUBY_BODIES) + '] (#eq? @error "end"))'
# Bash reads a reserved word where a command's name stands as that command: a stray `fi`, `done`, `}`.
_BASH_STRAY = ('((command_name (word) @error) '
               '(#any-of? @error "fi" "done" "esac" "then" "do" "else" "elif" "in" "}"))')
# A spec's direct identifiers are its names (`a, b = 1, 2`): a `name:` field pattern matches only the first.
_GO_VALUES = """
(const_declaration "const" @keyword (const_spec (identifier) @name) @constant)
(var_declaration "var" @keyword (var_spec (identifier) @name) @variable)
(var_declaration "var" @keyword (var_spec_list (var_spec (identifier) @name) @variable))
"""
_RUST_VALUES = """
(const_item name: (identifier) @name) @constant
(static_item name: (identifier) @name) @variable
"""
_JAVA_VALUES = """
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @variable
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @constant
"""
# A header's prototypes are its functions as other files see them.
_C_VALUES = """
(preproc_def name: (identifier) @name) @constant
(declaration declarator: (init_declarator declarator: (identifier) @name)) @variable
(declaration declarator: (identifier) @name) @variable
(declaration declarator: (function_declarator declarator: (identifier) @name)) @function
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @function
"""
_CPP_VALUES = _C_VALUES + "(field_declaration declarator: (field_identifier) @name) @variable\n"
_CSHARP_VALUES = "(field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @variable"
_RUBY_VALUES = "(assignment left: (constant) @name) @constant"
_PHP_VALUES = """
(const_declaration (const_element (name) @name)) @constant
(property_declaration (property_element name: (variable_name (name) @name))) @variable
"""
# Bash: a script's own settings, at its top level only (not every loop variable).
_BASH_VALUES = """
(program (variable_assignment name: (variable_name) @name) @variable)
(program (declaration_command (variable_assignment name: (variable_name) @name)) @variable)
"""
_JS_DEFS = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "method_definition": "method",
}
_JS_BOUND = {"variable_declarator": frozenset({"arrow_function", "function_expression", "function",
                                               "generator_function", "class"})}
_JS_WRAPPERS = frozenset({"export_statement", "lexical_declaration", "variable_declaration"})
_TS_DEFS = {
    **_JS_DEFS,
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "type_alias_declaration": "type",
    "internal_module": "namespace",
    "module": "namespace",
    "abstract_method_signature": "method",
    "function_signature": "function",
}
_TS_WRAPPERS = _JS_WRAPPERS | {"expression_statement", "ambient_declaration"}
_C_DEFS = {
    "function_definition": "function",
    "struct_specifier": "struct",
    "union_specifier": "union",
    "enum_specifier": "enum",
}
_CPP_DEFS = {
    **_C_DEFS,
    "class_specifier": "class",
    "namespace_definition": "namespace",
}

LANGUAGES: tuple[Spec, ...] = (
    Spec("Python", "python", (".py", ".pyi", ".pyw"), "tree_sitter_python", "language",
         {"function_definition": "function", "class_definition": "class"},
         frozenset({"comment"}), wrappers=frozenset({"decorated_definition"}),
         docstrings=("expression_statement", "string")),
    Spec("JavaScript", "javascript", (".js", ".mjs", ".cjs", ".jsx"), "tree_sitter_javascript", "language",
         _JS_DEFS, _C_COMMENTS, bound=_JS_BOUND, wrappers=_JS_WRAPPERS, leading=_C_COMMENTS),
    Spec("TypeScript", "typescript", (".ts", ".mts", ".cts"), "tree_sitter_typescript", "language_typescript",
         _TS_DEFS, _C_COMMENTS, bound=_JS_BOUND, wrappers=_TS_WRAPPERS, leading=_C_COMMENTS),
    Spec("TSX", "tsx", (".tsx",), "tree_sitter_typescript", "language_tsx",
         _TS_DEFS, _C_COMMENTS, bound=_JS_BOUND, wrappers=_TS_WRAPPERS, leading=_C_COMMENTS),
    Spec("Go", "go", (".go",), "tree_sitter_go", "language",
         {"function_declaration": "function", "method_declaration": "method", "type_spec": "type"},
         _C_COMMENTS, wrappers=frozenset({"type_declaration"}), leading=_C_COMMENTS, values=_GO_VALUES),
    Spec("Rust", "rust", (".rs",), "tree_sitter_rust", "language",
         {"function_item": "function", "function_signature_item": "function", "struct_item": "struct",
          "enum_item": "enum", "union_item": "union", "trait_item": "trait", "impl_item": "impl",
          "mod_item": "module", "macro_definition": "macro"},
         frozenset({"line_comment", "block_comment"}),
         leading=frozenset({"line_comment", "block_comment", "attribute_item"}),
         name_fields=("name", "type"), values=_RUST_VALUES),  # an impl is named by the type it is for
    Spec("Java", "java", (".java",), "tree_sitter_java", "language",
         {"class_declaration": "class", "interface_declaration": "interface", "enum_declaration": "enum",
          "record_declaration": "record", "annotation_type_declaration": "interface",
          "method_declaration": "method", "constructor_declaration": "constructor"},
         frozenset({"line_comment", "block_comment"}), leading=frozenset({"line_comment", "block_comment"}),
         values=_JAVA_VALUES),
    Spec("C", "c", (".c", ".h"), "tree_sitter_c", "language",
         _C_DEFS, _C_COMMENTS, wrappers=frozenset({"type_definition"}), leading=_C_COMMENTS,
         name_fields=("name", "declarator"), values=_C_VALUES),
    Spec("C++", "cpp", (".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp"),
         "tree_sitter_cpp", "language",
         _CPP_DEFS, _C_COMMENTS, wrappers=frozenset({"template_declaration", "type_definition"}),
         leading=_C_COMMENTS, name_fields=("name", "declarator"), values=_CPP_VALUES),
    Spec("C#", "csharp", (".cs",), "tree_sitter_c_sharp", "language",
         {"class_declaration": "class", "struct_declaration": "struct", "interface_declaration": "interface",
          "enum_declaration": "enum", "record_declaration": "record", "namespace_declaration": "namespace",
          "method_declaration": "method", "constructor_declaration": "constructor",
          "property_declaration": "property", "local_function_statement": "function"},
         _C_COMMENTS, leading=_C_COMMENTS, values=_CSHARP_VALUES),
    Spec("Ruby", "ruby", (".rb", ".rake", ".gemspec"), "tree_sitter_ruby", "language",
         {"method": "method", "singleton_method": "method", "class": "class", "module": "module",
          "singleton_class": "class"},
         _C_COMMENTS, leading=_C_COMMENTS, stray=_RUBY_STRAY, bodies=frozenset({"body_statement"}),
         values=_RUBY_VALUES),
    Spec("PHP", "php", (".php",), "tree_sitter_php", "language_php",
         {"function_definition": "function", "method_declaration": "method", "class_declaration": "class",
          "interface_declaration": "interface", "trait_declaration": "trait", "enum_declaration": "enum"},
         _C_COMMENTS, leading=_C_COMMENTS, values=_PHP_VALUES),
    Spec("Bash", "bash", (".sh", ".bash"), "tree_sitter_bash", "language",
         {"function_definition": "function"}, _C_COMMENTS, leading=_C_COMMENTS, stray=_BASH_STRAY,
         values=_BASH_VALUES),
)

_BY_EXTENSION = {ext: spec for spec in LANGUAGES for ext in spec.extensions}


def spec_for(path: str | PurePath | None) -> Spec | None:
    """The language of `path` by its extension; None for one the layer does not know."""
    return _BY_EXTENSION.get(PurePath(str(path or "")).suffix.lower())
