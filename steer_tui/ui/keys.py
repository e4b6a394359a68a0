"""The app's keys: the bindings, every action's palette title and help text, and the help screen's sections."""

from __future__ import annotations

from typing import Callable, Iterator

from textual.app import App, SystemCommand
from textual.binding import Binding

FINDER_KEY = "ctrl+p"  # what Textual's users (its palette) and VS Code's (quick open) press to find things
PALETTE_KEY = "ctrl+shift+p"  # Textual's command palette at once, where the terminal tells it from Ctrl+P

# (action, palette title, help text). Every action is in the palette and on the help screen.
ACTIONS: list[tuple[str, str, str]] = [
    ("find_file", "Find a file", "Find a file of the project by name and open it; each open file keeps its "
     "view, undo history and pending proposal"),
    ("stop", "Stop generating", "Stop the answer now; complete blocks stay as the proposal"),
    ("take_back", "Take back the queued instruction",
     "An instruction waiting for the backend goes back into the prompt, unsent"),
    ("ask", "Ask about the code", "Ask the prompt's words as a question (or start them with ?): a prose answer "
     "in a panel about the selection or the block at the cursor; the file does not change"),
    ("do_it", "Do it", "Turn the answer into an edit, with the answer as its plan"),
    ("close_answer", "Close the answer", "Hide the answer panel"),
    ("accept_all", "Accept all", "Write every pending hunk to the file"),
    ("reject_all", "Reject all", "Drop the pending proposal"),
    ("next_hunk", "Next hunk", "Move to the next hunk of the proposal"),
    ("prev_hunk", "Previous hunk", "Move to the previous hunk of the proposal"),
    ("accept_hunk", "Accept hunk", "Write the current hunk only"),
    ("reject_hunk", "Reject hunk", "Drop the current hunk only"),
    ("alternatives", "Ask alternatives", "Ask alternatives of the request (the prompt's words, or beside the "
     "proposal under review, which is lane 1; `alternatives` in the config, default 3): a lane bar shows each, "
     "Alt+Left / Alt+Right switch, accepting one (whole or a hunk) drops the others, Ctrl+N drops all, Esc "
     "stops them, words sent while they are written ask them all again with these words"),
    ("undo", "Undo", "Undo the last accepted edit"),
    ("redo", "Redo", "Redo the last undone edit"),
    ("toggle_view", "Toggle view", "Live diff / unified diff / raw model text"),
    ("run_tests", "Run tests", "Run the configured test command (only now, only when asked)"),
    ("fix_tests", "Send test failure", "Send the failed test output to the model"),
    ("toggle_tests", "Show/hide test panel", "Show or hide the test output panel"),
    ("focus_code", "Focus file view", "Move the keyboard focus between the prompt and the file"),
    ("follow", "Follow the edit", "Scroll back to the line being written and keep following it"),
    ("clear_selection", "Clear selection", "Forget the selection (the next edit uses the cursor's surroundings)"),
    ("reload", "Reload the file", "Read the file from disk again"),
    ("context", "Context from the project", "What the project's other files gave the request (read-only): "
     "Space drops an item from the requests after; @path or @name in the prompt adds one"),
    ("help", "Help", "Show every key"),
    ("quit", "Quit", "Leave steer (asks first when a proposal is pending)"),
]

# Offered (keys, palette) only while alternatives are shown: the lane keys (steer_tui.ui.lanes).
LANE_ACTIONS: list[tuple[str, str, str]] = [
    ("lane(1)", "Next alternative", "Show the next alternative (lane) as the proposal under review"),
    ("lane(-1)", "Previous alternative", "Show the previous alternative (lane) as the proposal under review"),
]

BINDINGS: list[Binding] = [
    Binding("escape", "take_back", "Take back", priority=True),
    Binding("escape", "stop", "Stop", priority=True),
    Binding("ctrl+k", "ask", "Ask", priority=True),
    Binding("ctrl+d", "do_it", "Do it", priority=True),
    Binding("ctrl+y", "accept_all", "Accept all", priority=True),
    Binding("ctrl+n", "reject_all", "Reject all", priority=True),
    Binding("alt+down", "next_hunk", "Next hunk", priority=True),
    Binding("alt+up", "prev_hunk", "Prev hunk", priority=True),
    Binding("alt+y", "accept_hunk", "Accept hunk", priority=True),
    Binding("alt+n", "reject_hunk", "Reject hunk", priority=True),
    Binding("alt+a", "alternatives", "Alternatives", priority=True),
    Binding("alt+right", "lane(1)", "Next lane", priority=True),
    Binding("alt+left", "lane(-1)", "Prev lane", priority=True),
    Binding("ctrl+z", "undo", "Undo", priority=True),
    Binding("ctrl+r", "redo", "Redo", priority=True),
    Binding("ctrl+o", "toggle_view", "View", priority=True),
    Binding("ctrl+t", "run_tests", "Tests", priority=True),
    Binding("ctrl+f", "fix_tests", "Send failure", priority=True),
    Binding("ctrl+g", "toggle_tests", "Test panel", show=False, priority=True),
    Binding("ctrl+l", "follow", "Follow", show=False, priority=True),
    Binding("escape", "clear_selection", "Clear selection", show=False),
    Binding("f1", "help", "Help", priority=True),
    Binding(FINDER_KEY, "find_file", "Files · > commands", show=False, priority=True),
    Binding("ctrl+e", "context", "Context", show=False, priority=True),
    Binding("tab", "focus_code", "File/prompt", show=False, priority=True),
    Binding("ctrl+q", "quit", "Quit", priority=True),
]


def help_sections(bindings: list[Binding] = BINDINGS) -> list[tuple[str, list[tuple[str, str]]]]:
    """The help screen: (section title, [(key, what it does)]), every binding once."""
    helps = {a: h for a, _, h in ACTIONS + LANE_ACTIONS}
    app_keys = []
    seen = set()
    for b in bindings:
        key = b.key.replace("ctrl+", "Ctrl+").replace("alt+", "Alt+")
        if (b.key, b.action) in seen or b.action == "find_file":
            continue  # the finder has its own section
        seen.add((b.key, b.action))
        app_keys.append((key, helps.get(b.action, b.description)))
    prompt_keys = [("Enter", "Send the instruction (the selection or the block at the cursor is the region); "
                             "while generating or answering: redirect with these words; over a proposal under "
                             "review (or after Esc): go on from its request, keeping it (Ctrl+N first to "
                             "start afresh); before the backend is ready: queued, sent the moment it is "
                             "(Esc takes it back)"),
                   ("?question", "Ask instead of edit: a prose answer in a panel below the code, about the "
                                 "selection or the block at the cursor; the file does not change (Ctrl+K: the "
                                 "same without the ?); Ctrl+D then turns the answer into an edit"),
                   ("Up / Down", "Instruction history"),
                   ("/test", "Run the test command")]
    view_keys = [("Up / Down / PgUp / PgDn", "Move the cursor line"),
                 ("Ctrl+Home / Ctrl+End", "Top / bottom of the file"),
                 ("Shift+arrows / Shift+PgUp/PgDn", "Select lines (scopes the next edit)"),
                 ("Mouse drag", "Select lines; click moves the cursor; wheel scrolls (stops following)")]
    project = [("Ctrl+P", "Find a file of the project by name (git's list, or the folder's files "
                           ".gitignore does not rule out) and open it; each open file keeps its view, undo "
                           "history and pending proposal"),
               ("Up / Down, Enter, Esc", "In the finder: choose, open, close"),
               (">", "Typed first in the finder: the command palette (every action, and the themes); "
                     "Ctrl+Shift+P opens it at once where the terminal tells it from Ctrl+P")]
    return [("Everywhere", app_keys), ("Project", project), ("Prompt", prompt_keys),
            ("File view (Tab to focus)", view_keys)]


def palette_commands(app: App, applies: Callable[[str], bool] | None = None) -> Iterator[SystemCommand]:
    """The command palette's entries: every action that applies now (quit and help are Textual's own).
    `applies(action)`: whether it applies to the screen beneath the palette (default: check_action,
    which turns every action off while a modal screen, the palette itself, is on top)."""
    for action, title, help_text in ACTIONS + LANE_ACTIONS:
        if action in ("quit", "help"):
            continue  # the base class offers these
        if (applies(action) if applies is not None else app.check_action(action, ())) is False:
            continue
        yield SystemCommand(title, help_text, lambda a=action: app.run_action(a))
