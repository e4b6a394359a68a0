"""What would fail when a Python proposal's code runs: a name nothing defines (undefined.py) or a
log call without the placeholders for its arguments (logging_args.py), with the warning the app
shows and the feedback a retry of `steer edit` sends. Pure: no I/O."""

from __future__ import annotations

from dataclasses import dataclass

from steer_tui.edits.logging_args import unformatted_logging_calls
from steer_tui.edits.undefined import undefined_names

__all__ = ["RuntimeProblem", "runtime_problem"]


@dataclass(frozen=True)
class RuntimeProblem:
    """One problem: `code` (a steer_tui.events.NoticeCode value), the warning, the feedback."""

    code: str
    what: str
    feedback: str


def runtime_problem(old: str, new: str, added_imports: str = "") -> RuntimeProblem | None:
    """The first problem of `new` (the proposal for `old`, with the import lines `added_imports`
    that will go in with it), or None."""
    names = undefined_names(old, new, added_imports)
    if names:
        said = ", ".join(f"`{n}`" for n in names[:4])
        return RuntimeProblem(
            "undefined", f"{said} {'is' if len(names) == 1 else 'are'} defined nowhere (NameError when run)",
            f"it uses {said}, which neither this file nor its imports define. Use only what this file defines "
            "or imports, Python's builtins and standard library, and what the other files shown to you define.")
    calls = unformatted_logging_calls(old, new)
    if calls:
        shown = calls[0] if len(calls[0]) <= 80 else calls[0][:77] + "..."
        return RuntimeProblem(
            "logging_args", f"`{shown}` passes arguments its message has no %s for (the record fails)",
            f"`{shown}` gives the log message arguments it has no placeholder for: logging formats the message "
            "with %, so that record fails when it is emitted. Put a %s in the message for each argument (or "
            "build the message yourself and pass it alone).")
    return None
