"""tsconfig/jsconfig aliases: `@/lib/utils` and a `baseUrl` name resolve to project files; comments, trailing commas and `extends` are read."""

from __future__ import annotations

from steer_tui.project.index import ProjectIndex
from steer_tui.project.tsconfig import parse_jsonc

FILES = {
    "web/tsconfig.base.json": '{\n  // shared by the app and its tests\n  "compilerOptions": {"baseUrl": "src", "strict": true,},\n}\n',
    "web/tsconfig.json": '{\n  "extends": "./tsconfig.base.json",\n  "compilerOptions": {\n'
                         '    /* the app\'s own prefix */\n    "paths": {"@/*": ["*"], "#ui": ["components/ui/index.ts"]},\n  },\n}\n',
    "web/src/lib/utils.ts": "export function cn(...parts: string[]) { return parts.join(' '); }\n",
    "web/src/components/ui/index.ts": "export const Button = 1;\n",
    "web/src/components/card.tsx": "export const Card = 2;\n",
    "web/src/app/page.tsx": "import { cn } from '@/lib/utils';\nimport { Button } from '#ui';\n"
                            "import { Card } from 'components/card';\nimport React from 'react';\n",
    "plain/jsconfig.json": '{"compilerOptions": {"paths": {"~/*": ["./app/*"]}}}',
    "plain/app/db.js": "export const db = {};\n",
    "plain/app/routes/home.js": "import { db } from '~/db';\n",
    "other/x.js": "import { cn } from '@/lib/utils';\n",
}


def _index(tmp_path, files: dict[str, str] = FILES) -> ProjectIndex:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return ProjectIndex(tmp_path, tmp_path / "cache").build()


def test_jsonc_comments_and_trailing_commas_but_not_inside_strings():
    assert parse_jsonc('{"a": "http://x/*y*/", // c\n "b": [1, 2,],}') == {"a": "http://x/*y*/", "b": [1, 2]}


def test_paths_extends_and_base_url_resolve_to_project_files(tmp_path):
    index = _index(tmp_path)
    got = {imp.module: imp.path for imp in index.imports_of("web/src/app/page.tsx")}
    assert got == {"@/lib/utils": "web/src/lib/utils.ts", "#ui": "web/src/components/ui/index.ts",
                   "components/card": "web/src/components/card.tsx", "react": ""}
    # without baseUrl, paths are relative to the config that declares them
    assert index.resolve("plain/app/routes/home.js", "~/db") == "plain/app/db.js"
    # a file under no config has no aliases
    assert index.resolve("other/x.js", "@/lib/utils") == ""


def test_a_new_import_goes_through_the_alias_the_file_already_uses(tmp_path):
    from steer_tui.project.context import select_context
    from steer_tui.project.imports import needed

    files = {**FILES, "web/src/lib/money.ts": "// Format cents as a price.\nexport function formatPrice(cents: number) {\n"
                                             "  return `$${cents / 100}`;\n}\n"}
    index = _index(tmp_path, files)
    assert index.js_aliases("web/src/app/page.tsx").module_for("web/src/lib/money.ts") == "@/lib/money"
    old = files["web/src/app/page.tsx"] + "\nexport const total = (c: number) => String(c);\n"
    new = old.replace("String(c)", "formatPrice(c)")
    items = select_context(index, "web/src/app/page.tsx", old, None, "format the total as a price", 800)
    got = needed("web/src/app/page.tsx", old, new, items, index)
    assert [g.text for g in got] == ["import { formatPrice } from '@/lib/money';\n"]
