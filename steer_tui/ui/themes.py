"""Themes: read themes/*.toml (shipped and user) into Textual themes with the diff colours as variables."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from textual.app import App
from textual.theme import Theme

from steer_tui.config import config_dir

# Every variable the file view reads, with a fallback for themes that do not set it
# (Textual's built-in themes, or a user theme that only sets a few colours).
DARK_DEFAULTS = {
    "code-fg": "#d7d7d7",
    "code-bg": "#1c1c1c",
    "gutter-fg": "#6c6c6c",
    "gutter-bg": "#1c1c1c",
    "cursor-line-bg": "#2a2a2a",
    "selection-bg": "#264f78",
    "diff-removed-fg": "#ffafaf",
    "diff-removed-bg": "#4b1818",
    "diff-removed-intra-bg": "#8b2a2a",
    "diff-added-fg": "#afffaf",
    "diff-added-bg": "#173d17",
    "diff-added-intra-bg": "#2e7d32",
    "diff-target-bg": "#3a3520",
    "diff-conflict-bg": "#5f3f00",
    "diff-hunk-marker": "#ffaf5f",
}
LIGHT_DEFAULTS = {
    "code-fg": "#1c1c1c",
    "code-bg": "#fafafa",
    "gutter-fg": "#8a8a8a",
    "gutter-bg": "#f0f0f0",
    "cursor-line-bg": "#ececec",
    "selection-bg": "#c6dbf5",
    "diff-removed-fg": "#5f0000",
    "diff-removed-bg": "#ffe0e0",
    "diff-removed-intra-bg": "#ffb3b3",
    "diff-added-fg": "#003d00",
    "diff-added-bg": "#e0f5e0",
    "diff-added-intra-bg": "#a8e0a8",
    "diff-target-bg": "#fff3c4",
    "diff-conflict-bg": "#ffd7a0",
    "diff-hunk-marker": "#d75f00",
}
VARIABLE_NAMES = tuple(DARK_DEFAULTS)
_COLOR_KEYS = ("primary", "secondary", "warning", "error", "success", "accent",
               "foreground", "background", "surface", "panel", "boost")


@dataclass
class LoadedTheme:
    theme: Theme
    pygments_style: str
    source: Path | None


def shipped_theme_dirs() -> list[Path]:
    """Where the shipped themes live: the repo's themes/ or, installed, steer_tui/_themes."""
    here = Path(__file__).resolve().parent.parent  # steer_tui/
    return [p for p in (here.parent / "themes", here / "_themes") if p.is_dir()]


def user_theme_dir() -> Path:
    return config_dir() / "themes"


def defaults_for(dark: bool) -> dict[str, str]:
    return dict(DARK_DEFAULTS if dark else LIGHT_DEFAULTS)


def parse_theme(data: dict, fallback_name: str, source: Path | None = None) -> LoadedTheme:
    """Build a Textual Theme from one TOML table; raises ValueError on a bad file."""
    colors = data.get("colors", {})
    if not isinstance(colors, dict):
        raise ValueError("[colors] must be a table")
    unknown = set(colors) - set(_COLOR_KEYS)
    if unknown:
        raise ValueError(f"unknown colour(s) {sorted(unknown)}")
    dark = bool(data.get("dark", True))
    variables = defaults_for(dark)
    extra = data.get("variables", {})
    if not isinstance(extra, dict):
        raise ValueError("[variables] must be a table")
    variables.update({str(k): str(v) for k, v in extra.items()})
    theme = Theme(
        name=str(data.get("name") or fallback_name),
        primary=str(colors.get("primary", "#5fafff")),
        **{k: str(colors[k]) for k in _COLOR_KEYS if k != "primary" and k in colors},
        dark=dark,
        variables=variables,
    )
    style = str(data.get("pygments") or ("monokai" if dark else "default"))
    return LoadedTheme(theme, style, source)


def load_themes(extra_dirs: list[Path] | None = None) -> tuple[list[LoadedTheme], list[str]]:
    """All themes: shipped first, then the user's (a user theme may replace a shipped one).

    Returns the themes and a list of human-readable problems (bad files are skipped, not fatal).
    """
    found: dict[str, LoadedTheme] = {}
    problems: list[str] = []
    dirs = shipped_theme_dirs()[:1] + [user_theme_dir()] + list(extra_dirs or [])
    for directory in dirs:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.toml")):
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
                loaded = parse_theme(data, path.stem, path)
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, ValueError, TypeError) as exc:
                problems.append(f"theme {path.name}: {exc}")
                continue
            found[loaded.theme.name] = loaded
    return list(found.values()), problems


def set_initial_theme(app: App, wanted: str) -> str | None:
    """Set `steer_tui`'s theme before it runs, without the change watcher; the name when unknown (a fallback is used).

    The first stylesheet parse then uses this theme's variables; setting `theme` in
    on_mount instead re-parses and re-applies all CSS (~20-40 ms before the first frame).
    What the watcher would do besides is repeated here (as App.__init__ does for its default).
    """
    unknown = None
    if wanted not in app.available_themes:
        unknown = wanted
        wanted = "dark" if "dark" in app.available_themes else "textual-dark"
    app.set_reactive(App.theme, wanted)
    dark = app.current_theme.dark
    app.set_class(dark, "-dark-mode", update=False)
    app.set_class(not dark, "-light-mode", update=False)
    app.set_class(True, f"-theme-{wanted}", update=False)
    refresh_filter = getattr(app, "_refresh_truecolor_filter", None)
    if refresh_filter is not None:
        refresh_filter(app.ansi_theme)
    # App.__init__ took the CSS variables from its default theme; nothing is parsed yet.
    app.stylesheet.set_variables(app.get_css_variables())
    return unknown


def pygments_style_for(app: App, loaded: dict[str, LoadedTheme], theme_name: str) -> str:
    """The Pygments style for a theme: its file's choice, else by the theme's brightness."""
    item = loaded.get(theme_name)
    if item is not None:
        return item.pygments_style
    theme = app.get_theme(theme_name)
    return "monokai" if theme is None or theme.dark else "default"
