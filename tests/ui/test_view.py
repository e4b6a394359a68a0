"""The file view and themes: big files, row invalidation, user themes, theme switching."""

from __future__ import annotations

from steer_tui.config import config_dir
from steer_tui.ui.app import make_app
from steer_tui.ui.widgets.rows import PlainRows, Row, row_for_old_line

from .conftest import settings


async def test_20000_line_file_scrolls_and_only_changed_rows_refresh(tmp_path):
    path = tmp_path / "big.py"
    path.write_text("".join(f"x_{i} = {i}\n" for i in range(20_000)))
    app = make_app(path, settings(), watch=False, connect=False)
    async with app.run_test(size=(100, 30)) as pilot:
        code = app.code
        assert code.row_count == 20_000
        await pilot.press("tab", "ctrl+end")
        await pilot.pause()
        assert code.cursor_line == 19_999
        assert code.scroll_y > 19_000
        await pilot.press("ctrl+home")
        await pilot.pause()
        assert code.scroll_y == 0
        # nothing changed: a sync refreshes no row; one changed line: one row
        assert code.sync() == 0
        code.lines[3] = "x_3 = 'changed'"
        assert code.sync() == 1


async def test_row_lookup_by_file_line_over_a_diff_like_source():
    class Rows:
        def __init__(self, rows):
            self.rows = rows

        @property
        def row_count(self):
            return len(self.rows)

        def row(self, i):
            return self.rows[i]

    rows = [Row("context", "a", 1, 1), Row("removed", "b", 2, None), Row("added", "B", None, 2),
            Row("added", "C", None, 3), Row("context", "c", 3, 4)]
    src = Rows(rows)
    assert row_for_old_line(src, 0) == 0
    assert row_for_old_line(src, 1) == 1
    assert row_for_old_line(src, 2) == 4
    assert row_for_old_line(PlainRows(["x", "y"]), 1) == 1


async def test_user_theme_from_the_config_dir_and_switching(sample):
    themes = config_dir() / "themes"
    themes.mkdir(parents=True)
    (themes / "mine.toml").write_text(
        'name = "mine"\ndark = true\npygments = "native"\n[colors]\nprimary = "#ff00ff"\n'
        '[variables]\ndiff-added-bg = "#003300"\n')
    (themes / "broken.toml").write_text("name = [unclosed")
    app = make_app(sample, settings(theme="mine"), watch=False, connect=False)
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.theme == "mine"
        assert app.theme_variables["diff-added-bg"] == "#003300"
        assert app.pygments_style_for("mine") == "native"
        assert any("broken.toml" in n.message for n in app._notifications)  # shown, not thrown
        assert {"dark", "light", "mine"} <= set(app.available_themes)
        before = app.code._style("base")
        app.theme = "light"
        await pilot.pause()
        assert app.code._style("base") != before  # the view re-reads the theme's colours
        assert app.code._style("added").bgcolor.triplet.hex == "#e0f5e0"


async def test_unknown_theme_falls_back_with_a_notice(sample):
    app = make_app(sample, settings(theme="no-such-theme"), watch=False, connect=False)
    async with app.run_test(size=(100, 30)):
        assert app.theme == "dark"
        assert any("unknown theme" in n.message for n in app._notifications)
